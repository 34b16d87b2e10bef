//! The approval queue: operations waiting for a manager, oldest first, with their amount,
//! requester and the order's other operations, and why this viewer cannot decide where they cannot.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::operations::OperationRow;
use super::AppError;

/// An operation waiting for a manager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingApproval {
    pub row: OperationRow,
    pub requested_by: String,
    /// When an earlier approval expired before the operation was sent.
    pub approval_expired_at: Option<DateTime<Utc>>,
    /// The order's other operations, oldest first.
    pub order_history: Vec<OperationRow>,
    /// Why this viewer cannot decide on it, when they cannot (their own request, their role).
    pub refusal: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalsPage {
    pub items: Vec<PendingApproval>,
    /// How long an approval given now lets the operation be sent, in words.
    pub valid_for: String,
    /// The idempotency key prefix of this page's forms.
    pub form_key: String,
}

#[server(prefix = "/rpc", endpoint = "approvals")]
pub async fn approvals() -> Result<ApprovalsPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Approvals).await?;
    ssr::approvals(&user).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{reads, unavailable, SignedIn};
    use crate::console::operation::ssr::span;
    use crate::console::operations::ssr::{row, waiting_with_history};
    use crate::domain::ids::Actor;
    use crate::domain::machine::{check as machine_check, CommandKind, State};
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::requests::form_key;

    /// The approval queue: operations waiting for a manager, the longest waiting first, each with its
    /// order's other operations and, when this viewer cannot decide on it, why.
    pub async fn approvals(user: &SignedIn) -> Result<ApprovalsPage, AppError> {
        let state = expect_context::<AppState>();
        let at = now();
        let waiting = waiting_with_history(user, &[State::PendingApproval], 200).await?;
        let mut subjects: Vec<String> = waiting.iter().map(|(item, _)| item.subject.clone()).collect();
        subjects.sort();
        subjects.dedup();
        let orders = reads().subjects_operations(&user.tenant, &subjects).await.map_err(unavailable)?;
        let actor = Actor::human(&user.name, user.role);
        let language = crate::console::language::current_language();
        let mut items = Vec::with_capacity(waiting.len());
        for (item, history) in waiting {
            let snapshot = &history.operation.snapshot;
            let approval_expired_at = history
                .audit
                .iter()
                .rev()
                .find(|a| a.entry.action == CommandKind::ExpireApproval.as_str())
                .map(|a| a.entry.at);
            let refusal =
                machine_check(snapshot, CommandKind::Approve, &actor, at).err().map(|r| r.words(language));
            let order_history = orders
                .iter()
                .filter(|other| other.subject == item.subject && other.op_id != item.op_id)
                .cloned()
                .map(row)
                .collect();
            items.push(PendingApproval {
                requested_by: snapshot.requested_by.clone(),
                approval_expired_at,
                order_history,
                refusal,
                row: row(item),
            });
        }
        Ok(ApprovalsPage { items, valid_for: span(state.approval_valid_for), form_key: form_key() })
    }
}
