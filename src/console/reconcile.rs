//! The reconcile desk's queue: unknown, needs-review and silent submitted operations, oldest
//! first, each with why it waits and how long its downstream key stays valid.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::operations::OperationRow;
use super::AppError;
use crate::domain::machine::CommandKind;

/// An operation on the reconcile desk, with why it is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeskItem {
    pub row: OperationRow,
    pub why: String,
    pub key_validity: String,
    /// The actions this viewer may take on it now.
    pub actions: Vec<CommandKind>,
    /// What each of `actions` that must be confirmed does, in words.
    pub consequences: Vec<(CommandKind, String)>,
}

/// The reconcile desk's queue and the key prefix of its forms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconcileDesk {
    pub items: Vec<DeskItem>,
    pub form_key: String,
}

#[server(prefix = "/rpc", endpoint = "reconcile_queue")]
pub async fn reconcile_queue() -> Result<ReconcileDesk, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Reconcile).await?;
    ssr::reconcile_queue(&user).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::SignedIn;
    use crate::console::language::current_language;
    use crate::console::operation::ssr::{consequences_of, key_validity};
    use crate::console::operations::ssr::{row, waiting_with_history};
    use crate::domain::ids::Actor;
    use crate::domain::machine::{allowed_commands, State};
    use crate::domain::wording::{failure_reason_words, Described};
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::requests::form_key;
    use crate::t;
    use std::collections::HashMap;

    /// The reconcile desk: unknown, needs-review and silent submitted operations, the longest
    /// waiting first, each with the reason its last change gave, and no lookup offered where the
    /// downstream cannot be asked.
    pub async fn reconcile_queue(user: &SignedIn) -> Result<ReconcileDesk, AppError> {
        let at = now();
        let language = current_language();
        let waiting =
            waiting_with_history(user, &[State::Unknown, State::NeedsReview, State::Submitted], 100).await?;
        let actor = Actor::human(&user.name, user.role);
        let executor = expect_context::<AppState>().executor.clone();
        let mut asked: HashMap<(String, String), bool> = HashMap::new();
        let mut items = Vec::with_capacity(waiting.len());
        for (item, history) in waiting {
            let place = (item.provider.clone(), item.kind.clone());
            let can_be_asked = match asked.get(&place) {
                Some(known) => *known,
                None => {
                    let connector = executor
                        .directory()
                        .connector(&user.tenant, &item.provider)
                        .await
                        .ok()
                        .and_then(Result::ok);
                    let known = connector.is_none_or(|connector| connector.capabilities(&item.kind).lookup);
                    asked.insert(place, known);
                    known
                }
            };
            let snapshot = &history.operation.snapshot;
            let failed_after_success =
                snapshot.failure_reason.as_deref().filter(|_| snapshot.failed_after_success());
            let why = match failed_after_success {
                Some(reason) => t!(
                    language,
                    "reconcile-why-failed-after-success",
                    reason = failure_reason_words(reason, language)
                ),
                None => history
                    .audit
                    .iter()
                    .rev()
                    .find_map(|a| a.entry.reason.clone())
                    .or_else(|| snapshot.last_failure.map(|f| f.explanation_in(language)))
                    .unwrap_or_else(|| t!(language, "reconcile-why-no-outcome")),
            };
            let actions: Vec<CommandKind> = allowed_commands(snapshot, &actor, at)
                .into_iter()
                .filter(|action| can_be_asked || *action != CommandKind::ConfirmFound)
                .collect();
            let validity = key_validity(snapshot, at);
            let described =
                Described { kind: &item.kind, amount: item.amount, item: None, provider: &item.provider };
            let consequences = consequences_of(&actions, &described, &validity);
            items.push(DeskItem { row: row(item), why, key_validity: validity, actions, consequences });
        }
        Ok(ReconcileDesk { items, form_key: form_key() })
    }
}
