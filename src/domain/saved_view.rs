//! Saved views of the operations list: a set of its filters saved under a name, a person's own or
//! shared with the tenant (a manager's to share), a shared one possibly the default of a role. A
//! view is checked here before it is kept: its name (1 to [`VIEW_NAME_MAX`] characters, no
//! control characters) and its filter, the list's URL query, which may name only the list's
//! filters; what each value means is checked where the list reads it.

use serde::{Deserialize, Serialize};

use super::policy::Role;

/// The longest name of a view, in characters.
pub const VIEW_NAME_MAX: usize = 60;

/// The filters of the operations list a view may hold, as its URL names them.
pub const VIEW_FILTERS: [&str; 8] = ["state", "kind", "provider", "subject", "q", "from", "to", "held"];

/// Who sees a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViewScope {
    /// Its maker alone.
    Personal,
    /// Everyone of the tenant who opens the operations list.
    Shared,
}

/// Why a view is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewProblem {
    /// No name, or a name too long or with control characters.
    Name,
    /// The filter names something the list does not filter by.
    UnknownFilter(String),
    /// The filter's query cannot be read.
    Unreadable,
    /// Only a manager shares a view or makes one a role's default.
    NotAllowed,
    /// A role's default is a shared view, of a role that opens the list.
    Default,
}

/// A view as a person asks to save it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewRequest {
    pub name: String,
    /// The list's URL query (`state=unknown&held=mine`).
    pub filter: String,
    pub scope: ViewScope,
    pub default_for: Option<Role>,
}

/// The filter's pairs, in the order given, with empty values left out; or why not.
pub fn filter_pairs(filter: &str) -> Result<Vec<(String, String)>, ViewProblem> {
    let filter = filter.trim().trim_start_matches('?');
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(filter).map_err(|_| ViewProblem::Unreadable)?;
    let mut kept = Vec::new();
    for (name, value) in pairs {
        if !VIEW_FILTERS.contains(&name.as_str()) {
            return Err(ViewProblem::UnknownFilter(name));
        }
        if !value.trim().is_empty() {
            kept.push((name, value.trim().to_owned()));
        }
    }
    Ok(kept)
}

/// The view `request` as it is kept, by a person with `role`: its name trimmed and its filter
/// written again from its pairs; or why not.
pub fn check_view(request: &ViewRequest, role: Role) -> Result<ViewRequest, ViewProblem> {
    let name = request.name.trim();
    let length = name.chars().count();
    if length == 0 || length > VIEW_NAME_MAX || name.chars().any(char::is_control) {
        return Err(ViewProblem::Name);
    }
    let pairs = filter_pairs(&request.filter)?;
    if request.scope == ViewScope::Shared && role != Role::Manager {
        return Err(ViewProblem::NotAllowed);
    }
    if let Some(default_for) = request.default_for {
        if role != Role::Manager {
            return Err(ViewProblem::NotAllowed);
        }
        if request.scope != ViewScope::Shared || default_for == Role::Admin {
            return Err(ViewProblem::Default);
        }
    }
    Ok(ViewRequest {
        name: name.to_owned(),
        filter: serde_urlencoded::to_string(&pairs).map_err(|_| ViewProblem::Unreadable)?,
        scope: request.scope,
        default_for: request.default_for,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(name: &str, filter: &str, scope: ViewScope, default_for: Option<Role>) -> ViewRequest {
        ViewRequest { name: name.into(), filter: filter.into(), scope, default_for }
    }

    #[test]
    fn a_view_keeps_the_lists_filters_alone() {
        let kept = check_view(&request(" Unknown, mine ", "?state=unknown&held=mine&q=", ViewScope::Personal, None), Role::Support)
            .unwrap();
        assert_eq!((kept.name.as_str(), kept.filter.as_str()), ("Unknown, mine", "state=unknown&held=mine"));
        let unknown = request("x", "state=unknown&sort=amount", ViewScope::Personal, None);
        assert_eq!(check_view(&unknown, Role::Support), Err(ViewProblem::UnknownFilter("sort".into())));
        assert_eq!(check_view(&request("", "state=unknown", ViewScope::Personal, None), Role::Support), Err(ViewProblem::Name));
        let long = "字".repeat(VIEW_NAME_MAX + 1);
        assert_eq!(check_view(&request(&long, "", ViewScope::Personal, None), Role::Support), Err(ViewProblem::Name));
        let kept = check_view(&request("所有", "subject=order%3A1043", ViewScope::Personal, None), Role::Auditor).unwrap();
        assert_eq!(kept.filter, "subject=order%3A1043");
    }

    #[test]
    fn only_a_manager_shares_and_sets_a_roles_default() {
        let shared = request("Team", "state=unknown", ViewScope::Shared, None);
        assert_eq!(check_view(&shared, Role::Support), Err(ViewProblem::NotAllowed));
        assert!(check_view(&shared, Role::Manager).is_ok());
        let default = request("Team", "state=unknown", ViewScope::Shared, Some(Role::Support));
        assert_eq!(check_view(&default, Role::Support), Err(ViewProblem::NotAllowed));
        assert!(check_view(&default, Role::Manager).is_ok());
        let personal_default = request("Mine", "", ViewScope::Personal, Some(Role::Support));
        assert_eq!(check_view(&personal_default, Role::Manager), Err(ViewProblem::Default));
        let admin_default = request("Admins", "", ViewScope::Shared, Some(Role::Admin));
        assert_eq!(check_view(&admin_default, Role::Manager), Err(ViewProblem::Default));
    }
}
