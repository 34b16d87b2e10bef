//! The support desk's changes. Who holds an item: a claim, an assignment or a release, decided by
//! `domain::desk` on the holding read just before, made only if nobody changed it meanwhile (else
//! decided again on what they made), audited with the actor and the holder before and after.
//! Internal notes: written by the people who work on operations, edited by their author alone as
//! a new version (the earlier ones stay), each version in the audit trail with its text; the
//! people a version newly mentions are told through the tenant's rules for mentions, in the same
//! transaction. Every change is told to the change feed, so that everyone's pages show it at once.

use serde_json::json;

use super::Ledger;
use crate::domain::audit::AuditEntry;
use crate::domain::desk::{decide_claim, ClaimRefusal, ClaimRequest, Holder, Holding, Item};
use crate::domain::ids::TenantId;
use crate::domain::note::{check_note, mentions, NoteProblem};
use crate::domain::saved_view::{check_view, ViewProblem, ViewRequest, ViewScope};
use crate::domain::notification::{delivery_id, Audience, Channel, NotifyEvent, Stage};
use crate::domain::people::UserStatus;
use crate::domain::policy::Role;
use crate::server::clock::now;
use crate::server::store::desk::{ClaimRecord, HoldingChange, NoteRecord, ViewRecord};
use crate::server::store::notify::NewNotifyDelivery;
use crate::server::store::StoreError;

/// How often a change of holding is decided again after someone else changed it first.
const TRIES: usize = 3;

/// Why a change of holding was not made.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    #[error("there is no such item in this tenant")]
    NoSuchItem,
    /// Nobody of the tenant has this name.
    #[error("nobody of this tenant is named {0}")]
    NoSuchPerson(String),
    /// The person is deactivated.
    #[error("{0} is deactivated")]
    Deactivated(String),
    #[error("refused: {0:?}")]
    Refused(ClaimRefusal),
    #[error("the item changed hands too often to decide; try again")]
    Contended,
    #[error("the note is refused: {0:?}")]
    Note(NoteProblem),
    #[error("there is no such note in this tenant")]
    NoSuchNote,
    /// A note is edited by its author alone.
    #[error("only the note's author edits it")]
    NotYourNote,
    /// Another version of the note was written meanwhile.
    #[error("the note was edited meanwhile")]
    NoteEditedMeanwhile,
    #[error("the view is refused: {0:?}")]
    View(ViewProblem),
    /// The view's scope has one of that name.
    #[error("a view named {0} exists already")]
    ViewNameTaken(String),
    #[error("there is no such view")]
    NoSuchView,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a person asks of an item's holding, with the person an assignment names by their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeskRequest {
    Claim,
    AssignTo(String),
    Release,
}

impl Ledger {
    /// Who holds each of `items` that someone holds.
    pub async fn holders_of(&self, tenant: &TenantId, items: &[Item]) -> Result<Vec<ClaimRecord>, StoreError> {
        self.store.holders_of(tenant, items).await
    }

    /// Every item the tenant's people hold, the longest held first.
    pub async fn tenant_claims(&self, tenant: &TenantId) -> Result<Vec<ClaimRecord>, StoreError> {
        self.store.tenant_claims(tenant).await
    }

    /// Makes `request` of `item` as `viewer` (with `role`): the holding after it. An item that is
    /// already held as asked is left as it is, and nothing is audited.
    pub async fn change_holding(
        &self,
        tenant: &TenantId,
        item: &Item,
        viewer: &Holder,
        role: Role,
        request: DeskRequest,
    ) -> Result<Holding, DeskError> {
        self.check_item(tenant, item).await?;
        let (request, assignee_role) = match request {
            DeskRequest::Claim => (ClaimRequest::Claim, None),
            DeskRequest::Release => (ClaimRequest::Release, None),
            DeskRequest::AssignTo(name) => {
                let (holder, role) = self.assignee(tenant, name.trim()).await?;
                (ClaimRequest::Assign(holder), Some(role))
            }
        };
        for _ in 0..TRIES {
            let current = self.store.holders_of(tenant, std::slice::from_ref(item)).await?.pop();
            let current_holder = current.as_ref().map(|claim| &claim.holder);
            let next = decide_claim(viewer, role, current_holder, &request, assignee_role)
                .map_err(DeskError::Refused)?;
            if next.as_ref() == current_holder {
                return Ok(next);
            }
            let at = now();
            let assigned_by = matches!(request, ClaimRequest::Assign(_)).then(|| viewer.name.clone());
            let change = HoldingChange {
                tenant: tenant.clone(),
                item: item.clone(),
                expected: current_holder.map(|holder| holder.user_id.clone()),
                next: next.clone().map(|holder| (holder, assigned_by)),
                at,
            };
            let evidence = json!({
                "item_kind": item.kind(),
                "item_id": item.id(),
                "holder": next.as_ref().map(|holder| &holder.name),
                "previous_holder": current_holder.map(|holder| &holder.name),
            });
            let mut audit = AuditEntry::action(at, tenant.as_str(), &viewer.name, role.as_str(), request.action(), evidence);
            if let Item::Operation(op_id) = item {
                audit.op_id = Some(op_id.to_string());
            }
            if self.store.change_holding(change, audit).await? {
                tracing::info!(%tenant, item = item.id(), action = request.action(), by = %viewer.name, "changed who holds an item");
                self.changes.changed(tenant);
                return Ok(next);
            }
        }
        Err(DeskError::Contended)
    }

    /// The notes on `item`, every version of each.
    pub async fn notes_of(&self, tenant: &TenantId, item: &Item) -> Result<Vec<NoteRecord>, StoreError> {
        self.store.notes_of(tenant, item).await
    }

    /// Writes a new note on `item` as `author` (with `role`).
    pub async fn add_note(
        &self,
        tenant: &TenantId,
        item: &Item,
        author: &Holder,
        role: Role,
        body: &str,
    ) -> Result<NoteRecord, DeskError> {
        if !role.acts_on_operations() {
            return Err(DeskError::Refused(ClaimRefusal::NotAllowed));
        }
        self.check_item(tenant, item).await?;
        let note_id = format!("n_{}", uuid::Uuid::new_v4().simple());
        self.write_note(tenant, item.clone(), note_id, 1, author, role, body, &[]).await
    }

    /// Makes `body` the next version of the note `note_id`, written by `author` (with `role`): the
    /// earlier versions stay. The same text again changes nothing.
    pub async fn edit_note(
        &self,
        tenant: &TenantId,
        note_id: &str,
        author: &Holder,
        role: Role,
        body: &str,
    ) -> Result<NoteRecord, DeskError> {
        if !role.acts_on_operations() {
            return Err(DeskError::Refused(ClaimRefusal::NotAllowed));
        }
        let latest = self.store.note_versions(tenant, note_id).await?.pop().ok_or(DeskError::NoSuchNote)?;
        if latest.author_id != author.user_id {
            return Err(DeskError::NotYourNote);
        }
        if check_note(body).map_err(DeskError::Note)? == latest.body {
            return Ok(latest);
        }
        let told = latest.mentions.clone();
        self.write_note(tenant, latest.item, latest.note_id, latest.version + 1, author, role, body, &told).await
    }

    /// Writes one version of a note, telling the people it mentions but those in `told`.
    #[allow(clippy::too_many_arguments)]
    async fn write_note(
        &self,
        tenant: &TenantId,
        item: Item,
        note_id: String,
        version: u32,
        author: &Holder,
        role: Role,
        body: &str,
        told: &[String],
    ) -> Result<NoteRecord, DeskError> {
        let body = check_note(body).map_err(DeskError::Note)?;
        let people: Vec<_> = self
            .store
            .tenant_users(tenant)
            .await?
            .into_iter()
            .filter(|person| person.status == UserStatus::Active)
            .collect();
        let names: Vec<String> = people.iter().map(|person| person.name.clone()).collect();
        let mentioned = mentions(&body, &names);
        let at = now();
        let note = NoteRecord {
            note_id,
            version,
            item,
            body,
            author_id: author.user_id.clone(),
            author: author.name.clone(),
            mentions: mentioned.clone(),
            at,
        };
        let to_tell: Vec<(String, String)> = people
            .iter()
            .filter(|person| {
                mentioned.contains(&person.name) && !told.contains(&person.name) && person.id != author.user_id
            })
            .map(|person| (person.id.clone(), person.name.clone()))
            .collect();
        let deliveries = self.mention_deliveries(tenant, &note, &to_tell).await?;
        let evidence = json!({
            "item_kind": note.item.kind(),
            "item_id": note.item.id(),
            "note_id": note.note_id,
            "version": note.version,
            "body": note.body,
            "mentions": note.mentions,
        });
        let action = if version == 1 { "add_note" } else { "edit_note" };
        let mut audit = AuditEntry::action(at, tenant.as_str(), &author.name, role.as_str(), action, evidence);
        if let Item::Operation(op_id) = &note.item {
            audit.op_id = Some(op_id.to_string());
        }
        let told_now = deliveries.len();
        if !self.store.add_note_version(tenant, note.clone(), deliveries, audit).await? {
            return Err(DeskError::NoteEditedMeanwhile);
        }
        tracing::info!(%tenant, item = note.item.id(), note = %note.note_id, version, by = %author.name, notifications = told_now, "wrote a note");
        self.changes.changed(tenant);
        Ok(note)
    }

    /// The notifications of the people `to_tell` (user id and name) that `note` mentions: for
    /// each of the tenant's rules for mentions, one to each of them on the rule's channel, or,
    /// for a rule whose audience is a shared destination, one there.
    async fn mention_deliveries(
        &self,
        tenant: &TenantId,
        note: &NoteRecord,
        to_tell: &[(String, String)],
    ) -> Result<Vec<NewNotifyDelivery>, StoreError> {
        if to_tell.is_empty() {
            return Ok(Vec::new());
        }
        let subject = format!("note:{}:{}", note.note_id, note.version);
        let rules = self.store.notify_rules(tenant).await?;
        let mut deliveries = Vec::new();
        for rule in rules.iter().filter(|rule| rule.rule.event == NotifyEvent::Mentioned) {
            let recipients: Vec<(String, Channel)> = match &rule.rule.audience {
                Audience::Destination(name) => vec![(format!("d:{name}"), rule.rule.channel)],
                Audience::Role(_) | Audience::People(_) => {
                    let channel = if rule.rule.channel.reaches_a_person() { rule.rule.channel } else { Channel::Email };
                    to_tell.iter().map(|(user_id, _)| (format!("u:{user_id}"), channel)).collect()
                }
            };
            for (recipient, channel) in recipients {
                deliveries.push(NewNotifyDelivery {
                    id: delivery_id(&rule.id, &subject, note.at.timestamp_micros(), Stage::First, &recipient),
                    rule_id: rule.id.clone(),
                    event: NotifyEvent::Mentioned,
                    subject: subject.clone(),
                    since: note.at,
                    waits_in: String::new(),
                    stage: Stage::First,
                    recipient,
                    channel,
                    due_at: note.at + rule.rule.after,
                });
            }
        }
        Ok(deliveries)
    }

    /// The views `user_id` sees: their own and the tenant's shared ones.
    pub async fn saved_views(&self, tenant: &TenantId, user_id: &str) -> Result<Vec<ViewRecord>, StoreError> {
        self.store.saved_views(tenant, user_id).await
    }

    /// Saves the view `request` of `by` (with `role`).
    pub async fn save_view(
        &self,
        tenant: &TenantId,
        by: &Holder,
        role: Role,
        request: &ViewRequest,
    ) -> Result<ViewRecord, DeskError> {
        if role == Role::Admin {
            return Err(DeskError::Refused(ClaimRefusal::NotAllowed));
        }
        let view = check_view(request, role).map_err(|problem| match problem {
            ViewProblem::NotAllowed => DeskError::Refused(ClaimRefusal::NotAllowed),
            problem => DeskError::View(problem),
        })?;
        let at = now();
        let record = ViewRecord {
            id: format!("v_{}", uuid::Uuid::new_v4().simple()),
            scope: match view.scope {
                ViewScope::Personal => by.user_id.clone(),
                ViewScope::Shared => String::new(),
            },
            name: view.name,
            filter: view.filter,
            default_for: view.default_for,
            created_by: by.name.clone(),
            created_at: at,
        };
        let evidence = json!({
            "view_id": record.id,
            "name": record.name,
            "filter": record.filter,
            "shared": record.scope.is_empty(),
            "default_for": record.default_for.map(Role::as_str),
        });
        let audit = AuditEntry::action(at, tenant.as_str(), &by.name, role.as_str(), "save_view", evidence);
        self.store.save_view(tenant, record.clone(), audit).await.map_err(|error| match error {
            StoreError::Conflict(_) => DeskError::ViewNameTaken(record.name.clone()),
            other => DeskError::Store(other),
        })?;
        Ok(record)
    }

    /// Removes the view `id`: one's own, or (a manager's) a shared one.
    pub async fn remove_view(&self, tenant: &TenantId, id: &str, by: &Holder, role: Role) -> Result<(), DeskError> {
        let mut scopes = vec![by.user_id.clone()];
        if role == Role::Manager {
            scopes.push(String::new());
        }
        let audit = AuditEntry::action(now(), tenant.as_str(), &by.name, role.as_str(), "remove_view", json!({"view_id": id}));
        self.store.remove_view(tenant, id, &scopes, audit).await.map_err(|error| match error {
            StoreError::NotFound => DeskError::NoSuchView,
            other => DeskError::Store(other),
        })
    }

    /// Refuses an item the tenant does not have: an operation it never recorded (or archived),
    /// an order none of its operations is of.
    async fn check_item(&self, tenant: &TenantId, item: &Item) -> Result<(), DeskError> {
        let exists = match item {
            Item::Operation(op_id) => self.store.load_operation(tenant, op_id).await?.is_some(),
            Item::Order(subject) => {
                !self.store.subjects_operations(tenant, std::slice::from_ref(subject)).await?.is_empty()
            }
        };
        exists.then_some(()).ok_or(DeskError::NoSuchItem)
    }

    /// The active person of the tenant named `name`, with their role.
    async fn assignee(&self, tenant: &TenantId, name: &str) -> Result<(Holder, Role), DeskError> {
        let person = self
            .store
            .users_named(name, Some(tenant))
            .await?
            .pop()
            .ok_or_else(|| DeskError::NoSuchPerson(name.to_owned()))?;
        if person.status != UserStatus::Active {
            return Err(DeskError::Deactivated(person.name));
        }
        Ok((Holder { user_id: person.id, name: person.name }, person.role))
    }
}
