//! The support desk's rules of who holds what: an item (an operation, or an order) is held by one
//! person at most. A support person or a manager claims an unheld item for themselves; a manager
//! assigns an item to a person who works on operations, or takes it from whoever holds it; the
//! holder (or a manager) releases it. Holding an item never hides it or locks anyone out: it
//! tells the others who is on it, and an action on an item another person holds is confirmed
//! first.

use serde::{Deserialize, Serialize};

use super::ids::{check_subject, OpId};
use super::policy::Role;

/// Something the desk works on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Item {
    Operation(OpId),
    /// An order, by its subject (`order:1043`).
    Order(String),
}

impl Item {
    /// `operation` or `order`, as stored.
    pub fn kind(&self) -> &'static str {
        match self {
            Item::Operation(_) => "operation",
            Item::Order(_) => "order",
        }
    }

    /// The op id or the order's subject.
    pub fn id(&self) -> &str {
        match self {
            Item::Operation(op_id) => op_id.as_str(),
            Item::Order(subject) => subject,
        }
    }

    /// The item of a stored or typed kind and id; `None` when either is not one.
    pub fn parse(kind: &str, id: &str) -> Option<Item> {
        match kind.trim() {
            "operation" => OpId::parse(id.trim()).ok().map(Item::Operation),
            "order" => check_subject(id).ok().map(Item::Order),
            _ => None,
        }
    }

    /// The console's page of the item.
    pub fn page(&self) -> String {
        match self {
            Item::Operation(op_id) => format!("/operations/{op_id}"),
            Item::Order(subject) => format!("/orders/{subject}"),
        }
    }
}

/// Who holds an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub user_id: String,
    pub name: String,
}

/// What a person asks of an item's holding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimRequest {
    /// Hold it oneself.
    Claim,
    /// Give it to this person (a manager's).
    Assign(Holder),
    /// Let it go.
    Release,
}

impl ClaimRequest {
    /// The audit trail's name of the change.
    pub fn action(&self) -> &'static str {
        match self {
            ClaimRequest::Claim => "claim",
            ClaimRequest::Assign(_) => "assign",
            ClaimRequest::Release => "release",
        }
    }
}

/// Why a change of holding is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimRefusal {
    /// The role holds nothing (auditors, admins) or assigns nothing (support).
    NotAllowed,
    /// Someone else holds it: only a manager takes it from them.
    HeldByOther(Holder),
    /// Nobody, or somebody else, holds it: there is nothing of one's own to release.
    NotHeld,
    /// The person named works on no operations (an auditor, an admin).
    CannotHold,
}

/// What a change of holding does: the holder after it, or none.
pub type Holding = Option<Holder>;

/// Decides `request` by `viewer` (with `role`) on an item that `current` holds: the holding after
/// it, or why not. Asking for what already stands is answered with it, unchanged.
pub fn decide_claim(
    viewer: &Holder,
    role: Role,
    current: Option<&Holder>,
    request: &ClaimRequest,
    assignee_role: Option<Role>,
) -> Result<Holding, ClaimRefusal> {
    if !role.acts_on_operations() {
        return Err(ClaimRefusal::NotAllowed);
    }
    let held_by_viewer = current.is_some_and(|holder| holder.user_id == viewer.user_id);
    match request {
        ClaimRequest::Claim => match current {
            Some(holder) if !held_by_viewer && role != Role::Manager => {
                Err(ClaimRefusal::HeldByOther(holder.clone()))
            }
            _ => Ok(Some(viewer.clone())),
        },
        ClaimRequest::Assign(to) => {
            if role != Role::Manager {
                return Err(ClaimRefusal::NotAllowed);
            }
            if !assignee_role.is_some_and(Role::acts_on_operations) {
                return Err(ClaimRefusal::CannotHold);
            }
            Ok(Some(to.clone()))
        }
        ClaimRequest::Release => match current {
            Some(_) if held_by_viewer || role == Role::Manager => Ok(None),
            _ => Err(ClaimRefusal::NotHeld),
        },
    }
}

/// Whether an action by `viewer_id` on an item `current` holds is to be confirmed first: the item
/// is held by someone else.
pub fn held_by_another<'a>(viewer_id: &str, current: Option<&'a Holder>) -> Option<&'a Holder> {
    current.filter(|holder| holder.user_id != viewer_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(id: &str) -> Holder {
        Holder { user_id: id.into(), name: format!("{id}@example.com") }
    }

    #[test]
    fn items_read_back_from_their_kind_and_id() {
        let op = Item::parse("operation", "refund-1043-li_2").unwrap();
        assert_eq!((op.kind(), op.id(), op.page()), ("operation", "refund-1043-li_2", "/operations/refund-1043-li_2".into()));
        let order = Item::parse("order", " order:1043 ").unwrap();
        assert_eq!((order.kind(), order.id()), ("order", "order:1043"));
        assert_eq!(Item::parse("ticket", "x"), None);
        assert_eq!(Item::parse("operation", "not an id!"), None);
        assert_eq!(Item::parse("order", "<script>"), None);
    }

    #[test]
    fn support_claims_what_nobody_holds_and_releases_only_its_own() {
        let (ana, ben) = (person("ana"), person("ben"));
        let claim = |current: Option<&Holder>| decide_claim(&ana, Role::Support, current, &ClaimRequest::Claim, None);
        assert_eq!(claim(None), Ok(Some(ana.clone())));
        assert_eq!(claim(Some(&ana)), Ok(Some(ana.clone())), "claiming one's own again changes nothing");
        assert_eq!(claim(Some(&ben)), Err(ClaimRefusal::HeldByOther(ben.clone())));
        let release = |current: Option<&Holder>| decide_claim(&ana, Role::Support, current, &ClaimRequest::Release, None);
        assert_eq!(release(Some(&ana)), Ok(None));
        assert_eq!(release(Some(&ben)), Err(ClaimRefusal::NotHeld));
        assert_eq!(release(None), Err(ClaimRefusal::NotHeld));
        let assign = ClaimRequest::Assign(ben.clone());
        assert_eq!(decide_claim(&ana, Role::Support, None, &assign, Some(Role::Support)), Err(ClaimRefusal::NotAllowed));
    }

    #[test]
    fn managers_assign_to_people_who_work_on_operations_and_take_items_over() {
        let (maya, ben, ana) = (person("maya"), person("ben"), person("ana"));
        let assign = ClaimRequest::Assign(ben.clone());
        assert_eq!(decide_claim(&maya, Role::Manager, Some(&ana), &assign, Some(Role::Support)), Ok(Some(ben.clone())));
        assert_eq!(decide_claim(&maya, Role::Manager, None, &assign, Some(Role::Auditor)), Err(ClaimRefusal::CannotHold));
        assert_eq!(decide_claim(&maya, Role::Manager, None, &assign, None), Err(ClaimRefusal::CannotHold));
        assert_eq!(decide_claim(&maya, Role::Manager, Some(&ana), &ClaimRequest::Claim, None), Ok(Some(maya.clone())));
        assert_eq!(decide_claim(&maya, Role::Manager, Some(&ana), &ClaimRequest::Release, None), Ok(None));
    }

    #[test]
    fn auditors_and_admins_hold_nothing() {
        let viewer = person("audrey");
        for role in [Role::Auditor, Role::Admin] {
            for request in [ClaimRequest::Claim, ClaimRequest::Release, ClaimRequest::Assign(person("ben"))] {
                assert_eq!(decide_claim(&viewer, role, None, &request, Some(Role::Support)), Err(ClaimRefusal::NotAllowed));
            }
        }
    }

    #[test]
    fn an_action_asks_first_only_when_another_holds_the_item() {
        let ben = person("ben");
        assert_eq!(held_by_another("ana", Some(&ben)), Some(&ben));
        assert_eq!(held_by_another("ben", Some(&ben)), None);
        assert_eq!(held_by_another("ana", None), None);
    }
}
