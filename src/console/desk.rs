//! The support desk on an item's page: who holds it (the holder, since when, who assigned it, and
//! the changes the viewer may make), with [`hold`], which claims, assigns or releases it; and its
//! internal notes (every version, cut into text, links and mentions), with [`add_note`] and
//! [`edit_note`]. Holding never locks: an action on an item someone else holds asks to confirm and
//! names them ([`ssr::held_by_another`]).

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::note::NotePiece;

/// Who holds one item, and what the viewer may change of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldingView {
    /// `operation` or `order`, and its op id or subject.
    pub item_kind: String,
    pub item_id: String,
    pub holder: Option<String>,
    pub held_since: Option<DateTime<Utc>>,
    /// The manager who assigned it, when it was assigned.
    pub assigned_by: Option<String>,
    /// Whether the viewer holds it.
    pub mine: bool,
    pub may_claim: bool,
    pub may_release: bool,
    /// The people a manager may assign it to (active, working on operations); empty for others.
    pub assignable: Vec<String>,
}

/// One note as its item's page shows it: its latest version, and the earlier ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteView {
    pub note_id: String,
    pub version: u32,
    pub author: String,
    pub at: DateTime<Utc>,
    /// Its text as the page shows it.
    pub pieces: Vec<NotePiece>,
    /// Its text as written, to edit it.
    pub body: String,
    /// Whether the viewer wrote it (and may edit it).
    pub mine: bool,
    /// The versions it replaced, the latest first: version, when, and text.
    pub earlier: Vec<(u32, DateTime<Utc>, String)>,
}

/// The notes of one item, and whether the viewer may write one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotesView {
    pub item_kind: String,
    pub item_id: String,
    pub notes: Vec<NoteView>,
    pub may_write: bool,
}

/// Writes a note on an item (`item_kind` `operation` or `order`, `item_id` its op id or subject),
/// once per form `key`.
#[server(prefix = "/rpc", endpoint = "add_note")]
pub async fn add_note(
    csrf: String,
    key: String,
    item_kind: String,
    item_id: String,
    #[server(default)] body: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let answer = ssr::write_note(&user, &key, ssr::NoteTarget::New { item_kind, item_id }, &body)
        .await
        .inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

/// Makes `body` the next version of the viewer's own note `note_id`, once per form `key`.
#[server(prefix = "/rpc", endpoint = "edit_note")]
pub async fn edit_note(
    csrf: String,
    key: String,
    note_id: String,
    #[server(default)] body: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let answer = ssr::write_note(&user, &key, ssr::NoteTarget::Edit { note_id }, &body)
        .await
        .inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

/// Claims (`action` = `claim`), assigns (`assign`, to the person named `to`) or releases
/// (`release`) an item (`item_kind` `operation` or `order`, `item_id` its op id or subject), once
/// per form `key`; answers in words.
#[server(prefix = "/rpc", endpoint = "hold")]
pub async fn hold(
    csrf: String,
    key: String,
    item_kind: String,
    item_id: String,
    action: String,
    #[server(default)] to: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let answer = ssr::hold(&user, &key, &item_kind, &item_id, &action, &to)
        .await
        .inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::forms::ssr::once;
    use crate::console::guard::{unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::desk::{ClaimRefusal, Holder, Item};
    use crate::domain::note::NoteProblem;
    use crate::domain::people::UserStatus;
    use crate::domain::policy::Role;
    use crate::server::http::state::AppState;
    use crate::server::ledger::desk::{DeskError, DeskRequest};
    use crate::t;

    /// The viewer as a holder.
    pub fn viewer(user: &SignedIn) -> Holder {
        Holder { user_id: user.user_id.clone(), name: user.name.clone() }
    }

    /// Who holds `item`, and what `user` may change of it.
    pub async fn holding_view(user: &SignedIn, item: &Item) -> Result<HoldingView, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let claim = ledger.holders_of(&user.tenant, std::slice::from_ref(item)).await.map_err(unavailable)?.pop();
        let mine = claim.as_ref().is_some_and(|claim| claim.holder.user_id == user.user_id);
        let works = user.role.acts_on_operations();
        let manager = user.role == Role::Manager;
        let assignable = if manager {
            let people = ledger.reads().tenant_users(&user.tenant).await.map_err(unavailable)?;
            people
                .into_iter()
                .filter(|person| person.status == UserStatus::Active && person.role.acts_on_operations())
                .map(|person| person.name)
                .collect()
        } else {
            Vec::new()
        };
        Ok(HoldingView {
            item_kind: item.kind().to_owned(),
            item_id: item.id().to_owned(),
            may_claim: works && !mine && (claim.is_none() || manager),
            may_release: mine || (manager && claim.is_some()),
            holder: claim.as_ref().map(|claim| claim.holder.name.clone()),
            held_since: claim.as_ref().map(|claim| claim.held_since),
            assigned_by: claim.and_then(|claim| claim.assigned_by),
            mine,
            assignable,
        })
    }

    /// The person other than `user` who holds `item`, if one does.
    pub async fn held_by_another(user: &SignedIn, item: &Item) -> Result<Option<String>, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let claim = ledger.holders_of(&user.tenant, std::slice::from_ref(item)).await.map_err(unavailable)?.pop();
        Ok(crate::domain::desk::held_by_another(&user.user_id, claim.as_ref().map(|claim| &claim.holder))
            .map(|holder| holder.name.clone()))
    }

    /// The notes of `item` as `user` sees them.
    pub async fn notes_view(user: &SignedIn, item: &Item) -> Result<NotesView, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let versions = ledger.notes_of(&user.tenant, item).await.map_err(unavailable)?;
        let people: Vec<String> = ledger
            .reads()
            .tenant_users(&user.tenant)
            .await
            .map_err(unavailable)?
            .into_iter()
            .map(|person| person.name)
            .collect();
        let mut notes: Vec<NoteView> = Vec::new();
        for version in versions {
            let pieces = crate::domain::note::pieces(&version.body, &people);
            match notes.last_mut().filter(|note| note.note_id == version.note_id) {
                Some(note) => {
                    note.earlier.insert(0, (note.version, note.at, std::mem::take(&mut note.body)));
                    note.version = version.version;
                    note.at = version.at;
                    note.pieces = pieces;
                    note.body = version.body;
                }
                None => notes.push(NoteView {
                    mine: version.author_id == user.user_id,
                    note_id: version.note_id,
                    version: version.version,
                    author: version.author,
                    at: version.at,
                    pieces,
                    body: version.body,
                    earlier: Vec::new(),
                }),
            }
        }
        Ok(NotesView {
            item_kind: item.kind().to_owned(),
            item_id: item.id().to_owned(),
            notes,
            may_write: user.role.acts_on_operations(),
        })
    }

    /// What a note form writes.
    pub enum NoteTarget {
        New { item_kind: String, item_id: String },
        Edit { note_id: String },
    }

    /// Carries out a note form.
    pub async fn write_note(user: &SignedIn, key: &str, target: NoteTarget, body: &str) -> Result<String, AppError> {
        let language = current_language();
        if !user.role.acts_on_operations() {
            tracing::warn!(user = %user.name, role = user.role.as_str(), "refused: this role writes no note");
            return Err(AppError::Forbidden);
        }
        let ledger = expect_context::<AppState>().ledger.clone();
        let (described, item) = match &target {
            NoteTarget::New { item_kind, item_id } => {
                let item = Item::parse(item_kind, item_id).ok_or_else(|| {
                    AppError::NotFound(t!(language, "desk-no-such-item", item = item_id.trim(), tenant = user.tenant.to_string()))
                })?;
                (format!("note {} {}", item.kind(), item.id()), Some(item))
            }
            NoteTarget::Edit { note_id } => (format!("edit note {}", note_id.trim()), None),
        };
        once(user, key, &described, |_| async move {
            let written = match (&target, &item) {
                (NoteTarget::New { .. }, Some(item)) => {
                    ledger.add_note(&user.tenant, item, &viewer(user), user.role, body).await
                }
                (NoteTarget::Edit { note_id }, _) => {
                    ledger.edit_note(&user.tenant, note_id.trim(), &viewer(user), user.role, body).await
                }
                (NoteTarget::New { .. }, None) => Err(DeskError::NoSuchItem),
            };
            let note = written.map_err(|error| match (error, &item) {
                (error, Some(item)) => refused(error, item, user),
                (error, None) => refused(error, &Item::Order(String::new()), user),
            })?;
            Ok(if note.mentions.is_empty() {
                t!(language, "desk-note-written", item = note.item.id())
            } else {
                t!(language, "desk-note-written-mentions", item = note.item.id(), people = note.mentions.join(", "))
            })
        })
        .await
    }

    /// The form's request, or a sentence saying what is wrong with it.
    fn request_of(action: &str, to: &str) -> Result<DeskRequest, AppError> {
        let language = current_language();
        match action.trim() {
            "claim" => Ok(DeskRequest::Claim),
            "release" => Ok(DeskRequest::Release),
            "assign" if to.trim().is_empty() => Err(AppError::Invalid(t!(language, "desk-assign-whom"))),
            "assign" => Ok(DeskRequest::AssignTo(to.trim().to_owned())),
            other => Err(AppError::Invalid(t!(language, "desk-no-such-change", action = other))),
        }
    }

    /// Carries out a holding form.
    pub async fn hold(
        user: &SignedIn,
        key: &str,
        item_kind: &str,
        item_id: &str,
        action: &str,
        to: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        if !user.role.acts_on_operations() {
            tracing::warn!(user = %user.name, role = user.role.as_str(), "refused: this role holds no item");
            return Err(AppError::Forbidden);
        }
        let item = Item::parse(item_kind, item_id).ok_or_else(|| {
            AppError::NotFound(t!(language, "desk-no-such-item", item = item_id.trim(), tenant = user.tenant.to_string()))
        })?;
        let request = request_of(action, to)?;
        let ledger = expect_context::<AppState>().ledger.clone();
        let described = format!("{} {} {} {}", action.trim(), item.kind(), item.id(), to.trim());
        once(user, key, &described, |_| async move {
            let held = ledger
                .change_holding(&user.tenant, &item, &viewer(user), user.role, request)
                .await
                .map_err(|error| refused(error, &item, user))?;
            Ok(match held {
                Some(holder) if holder.user_id == user.user_id => t!(language, "desk-now-yours", item = item.id()),
                Some(holder) => t!(language, "desk-now-held", item = item.id(), holder = holder.name),
                None => t!(language, "desk-now-unheld", item = item.id()),
            })
        })
        .await
    }

    /// The console's words for a refused change of holding.
    fn refused(error: DeskError, item: &Item, user: &SignedIn) -> AppError {
        let language = current_language();
        match error {
            DeskError::NoSuchItem => AppError::NotFound(t!(
                language,
                "desk-no-such-item",
                item = item.id(),
                tenant = user.tenant.to_string()
            )),
            DeskError::NoSuchPerson(name) => AppError::Invalid(t!(language, "desk-no-such-person", name = name)),
            DeskError::Deactivated(name) => AppError::Invalid(t!(language, "desk-person-deactivated", name = name)),
            DeskError::Refused(ClaimRefusal::NotAllowed) => {
                tracing::warn!(user = %user.name, role = user.role.as_str(), "refused: this role may not make this change of holding");
                AppError::Forbidden
            }
            DeskError::Refused(ClaimRefusal::HeldByOther(holder)) => {
                AppError::Invalid(t!(language, "desk-held-by-other", holder = holder.name))
            }
            DeskError::Refused(ClaimRefusal::NotHeld) => AppError::Invalid(t!(language, "desk-not-yours")),
            DeskError::Refused(ClaimRefusal::CannotHold) => AppError::Invalid(t!(language, "desk-cannot-hold")),
            DeskError::Contended => AppError::Invalid(t!(language, "desk-contended")),
            DeskError::Note(NoteProblem::Empty) => AppError::Invalid(t!(language, "desk-note-empty")),
            DeskError::Note(NoteProblem::TooLong(length)) => AppError::Invalid(t!(
                language,
                "desk-note-too-long",
                length = length,
                most = crate::domain::note::NOTE_MAX_CHARS
            )),
            DeskError::Note(NoteProblem::ControlCharacter) => AppError::Invalid(t!(language, "desk-note-control")),
            DeskError::NoSuchNote => AppError::NotFound(t!(language, "desk-no-such-note", tenant = user.tenant.to_string())),
            DeskError::NotYourNote => AppError::Invalid(t!(language, "desk-note-not-yours")),
            DeskError::NoteEditedMeanwhile => AppError::Invalid(t!(language, "desk-note-edited-meanwhile")),
            other @ (DeskError::View(_) | DeskError::ViewNameTaken(_) | DeskError::NoSuchView) => {
                tracing::warn!(error = %other, "a saved view's refusal came from an item's form");
                AppError::Unavailable
            }
            DeskError::Store(error) => unavailable(error),
        }
    }
}
