//! One operation's page: its canonical parameters and fingerprint, state timeline, attempts,
//! external ids, the downstream key's validity, approval, compensations both ways, audit trail, and
//! the actions the state machine allows the viewer, which [`act`] carries out.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::operations::OperationRow;
use super::AppError;
use crate::domain::{
    compensation::Compensation,
    language::Language,
    machine::{CommandKind, State},
    wording::Told,
};
use crate::t;

/// One send of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptView {
    pub number: u32,
    pub started_at: DateTime<Utc>,
    /// Until when its send may still be in flight; nobody presumes it abandoned before then.
    pub send_deadline: Option<DateTime<Utc>>,
    pub duration_ms: Option<i64>,
    pub outcome: String,
    pub http_status: Option<u16>,
    pub idempotency_key: String,
    pub sent_by: String,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalView {
    pub provider: String,
    pub ref_type: String,
    pub external_id: String,
    /// The provider's dashboard page of this object, when the provider has one.
    pub link: Option<String>,
    pub recorded_at: DateTime<Utc>,
}

/// One audit event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditView {
    /// Its place in the tenant's chain; none until the sealer has given it one.
    pub seq: Option<u64>,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub role: String,
    pub action: String,
    pub from_state: Option<String>,
    pub to_state: Option<String>,
    pub reason: Option<String>,
    pub evidence: String,
}

/// Another operation linked to this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkedOperation {
    pub op_id: String,
    pub kind: String,
    pub state: State,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalView {
    pub approver: String,
    pub granted_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// Whether it was given for the parameters stored now.
    pub matches_params: bool,
}

/// Where an archived operation's history was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedFrom {
    /// The archive file's path within the archive.
    pub object_path: String,
    /// When it closed, from which its retention was counted.
    pub closed_at: DateTime<Utc>,
}

/// Everything recorded about one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationDetail {
    pub row: OperationRow,
    /// Set when the operation was archived: the page is read from its archive file, and nothing
    /// can be done to it.
    pub archived: Option<ArchivedFrom>,
    /// How it stands in words, and what to tell the customer.
    pub told: Told,
    pub params: String,
    pub fingerprint: String,
    pub idempotency_key: String,
    pub requested_by: String,
    /// When the downstream forgets the key, once it has been sent.
    pub key_expires_at: Option<DateTime<Utc>>,
    /// The key's remaining validity in words, e.g. `23 h 12 min left` or `expired`.
    pub key_validity: String,
    pub last_failure: Option<String>,
    pub cancel_requested: bool,
    pub approval: Option<ApprovalView>,
    pub attempts: Vec<AttemptView>,
    pub external: Vec<ExternalView>,
    pub compensates: Option<LinkedOperation>,
    pub compensated_by: Vec<LinkedOperation>,
    pub conflicts: usize,
    pub audit: Vec<AuditView>,
    /// The actions the state machine allows this viewer now.
    pub actions: Vec<CommandKind>,
    /// What each of `actions` that must be confirmed does, in words.
    pub consequences: Vec<(CommandKind, String)>,
    /// The compensations this viewer may record for it.
    pub compensations: Vec<Offer>,
    /// When it failed at the provider and this viewer may make it again: what that does, in words.
    pub retry: Option<String>,
    /// The failed operation this one makes again.
    pub retry_of: Option<LinkedOperation>,
    /// The operation that made this one again after it failed.
    pub retried_by: Option<LinkedOperation>,
    /// Who sends it, and what that means for the approval policy, in words.
    pub sender: String,
    /// How its provider settles an unknown or accepted result, in words, when the provider is
    /// connected.
    pub settling: Option<String>,
    /// What its provider offers for refunds (key, lookup, windows, outcome), each with its label;
    /// empty for a provider that refunds nothing or is not connected.
    pub offer: Vec<(String, String)>,
    /// The idempotency key prefix of this page's forms.
    pub form_key: String,
    /// Who holds it on the support desk, and what the viewer may change of that.
    pub holding: super::desk::HoldingView,
    /// Its internal notes.
    pub notes: super::desk::NotesView,
}

/// A compensation a viewer may record, with what recording it does in words (for its
/// confirmation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    pub compensation: Compensation,
    pub consequence: String,
}

/// The compensations one operation of an order offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompensationOffer {
    pub op_id: String,
    pub kind: String,
    pub state: State,
    pub offers: Vec<Offer>,
}

/// The answer of a form whose action must be confirmed first, in `language`; the browser is sent
/// to the operation's page, which asks.
pub fn confirm_first(language: Language) -> String {
    t!(language, "operation-confirm-first")
}

/// An action on an operation as the console names it (its button), in `language`: the look-up
/// of the provider reads "Query the provider now".
pub fn action_label(kind: CommandKind, language: Language) -> String {
    match kind {
        CommandKind::Approve => t!(language, "operation-action-approve"),
        CommandKind::Deny => t!(language, "operation-action-deny"),
        CommandKind::ExpireApproval => t!(language, "operation-action-expire-approval"),
        CommandKind::BeginAttempt => t!(language, "operation-action-send"),
        CommandKind::RecordOutcome => t!(language, "operation-action-record-outcome"),
        CommandKind::MarkUnknown => t!(language, "operation-action-mark-unknown"),
        CommandKind::ConfirmFound => t!(language, "operation-action-query"),
        CommandKind::ResendSameKey => t!(language, "operation-action-resend"),
        CommandKind::Escalate => t!(language, "operation-action-escalate"),
        CommandKind::MarkSucceeded => t!(language, "operation-action-mark-succeeded"),
        CommandKind::MarkNotHappened => t!(language, "operation-action-mark-not-happened"),
        CommandKind::Cancel => t!(language, "operation-action-cancel"),
    }
}

#[server(prefix = "/rpc", endpoint = "operation")]
pub async fn operation(op_id: String) -> Result<OperationDetail, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Operations).await?;
    ssr::operation(&user, &op_id).await.inspect_err(crate::console::guard::set_error_status)
}

/// Carries out one action on one operation (`action` is a command's name, e.g. `approve`,
/// `confirm_found` for a query of the provider, `resend_same_key`) and answers in words. An action
/// that must be confirmed and was not (`confirmed` is not `yes`) sends the browser to its
/// confirmation instead. Its arguments are the plain form's fields, one each.
#[allow(clippy::too_many_arguments)]
#[server(prefix = "/rpc", endpoint = "act")]
pub async fn act(
    csrf: String,
    key: String,
    op_id: String,
    action: String,
    #[server(default)] reason: String,
    #[server(default)] external_id: String,
    #[server(default)] evidence: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let form = ssr::ActionForm { op_id, action, reason, external_id, evidence };
    ssr::may_act(&user).inspect_err(crate::console::guard::set_error_status)?;
    let held_by_another = ssr::held_by_another(&user, &form.op_id).await?;
    if ssr::must_confirm(&form, &confirmed) || (held_by_another && confirmed.trim() != "yes") {
        ssr::ask_to_confirm(&form.op_id, &form.action, &form.fields());
        return Ok(confirm_first(crate::console::language::current_language()));
    }
    let answer = ssr::act(&user, &key, form).await.inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

/// Makes a failed operation again on purpose, for `reason`: a new operation of its own, linked to
/// it, then sent. Confirmed first (`confirmed` is `yes`), like every action that sends.
#[server(prefix = "/rpc", endpoint = "retry_after_failure")]
pub async fn retry_after_failure(
    csrf: String,
    key: String,
    op_id: String,
    #[server(default)] reason: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    ssr::may_act(&user).inspect_err(crate::console::guard::set_error_status)?;
    if confirmed.trim() != "yes" {
        ssr::ask_to_confirm(&op_id, RETRY, &[("reason", reason)]);
        return Ok(confirm_first(crate::console::language::current_language()));
    }
    let answer = ssr::retry_after_failure(&user, &key, &op_id, &reason)
        .await
        .inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

/// The name of the retry in a confirmation's address (`?confirm=retry`).
pub const RETRY: &str = "retry";

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use chrono::{DateTime, Duration, Utc};

    use super::*;
    use crate::console::forms::ssr::once;
    use crate::console::guard::{actor, reads, refused, unavailable, untrusted, SignedIn};
    use crate::console::language::current_language;
    use crate::console::operations::ssr::row;
    use crate::domain::{
        compensation::still_offered,
        desk::Item,
        ids::{Actor, OpId},
        machine::{allowed_commands, Command, Snapshot},
        money::Money,
        wording::{
            compensation_consequence, consequence, needs_confirmation, retry_consequence, settling, tell,
            Described,
        },
    };
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::requests::form_key;
    use crate::server::ledger::retention::RetentionError;
    use crate::server::ledger::{workflows, LedgerError};
    use crate::server::store::records::OperationListItem;

    /// How long a page waits for the tenant's shop before it shows the ledger's side alone.
    pub const SHOP_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

    /// `23 h 12 min`, `4 min`, `40 s`, `1 d` in the language of the request: the two largest
    /// units, leaving out a zero second one.
    pub fn span(duration: Duration) -> String {
        span_in(duration, current_language())
    }

    /// [`span`] in `language`.
    pub fn span_in(duration: Duration, language: Language) -> String {
        let seconds = duration.num_seconds().max(0);
        match seconds {
            0..=59 => t!(language, "operation-span-seconds", s = seconds),
            60..=3599 => t!(language, "operation-span-minutes", min = seconds / 60),
            3600..=86_399 => match (seconds / 3600, seconds % 3600 / 60) {
                (h, 0) => t!(language, "operation-span-hours", h = h),
                (h, min) => t!(language, "operation-span-hours-minutes", h = h, min = min),
            },
            _ => match (seconds / 86_400, seconds % 86_400 / 3600) {
                (d, 0) => t!(language, "operation-span-days", d = d),
                (d, h) => t!(language, "operation-span-days-hours", d = d, h = h),
            },
        }
    }

    /// How long the provider still remembers the operation's idempotency key, in words, in the
    /// language of the request; that it takes none, for a downstream without a key.
    pub fn key_validity(snapshot: &Snapshot, at: DateTime<Utc>) -> String {
        let language = current_language();
        if snapshot.key_retention <= chrono::Duration::zero() {
            return t!(language, "operation-key-none");
        }
        match snapshot.key_expires_at() {
            None => t!(language, "operation-key-not-sent"),
            Some(expires) if expires > at => {
                t!(language, "operation-key-left", span = span_in(expires - at, language))
            }
            Some(_) => t!(language, "operation-key-expired"),
        }
    }

    pub fn no_operation(op_id: &str, user: &SignedIn) -> AppError {
        let tenant = user.tenant.to_string();
        AppError::NotFound(t!(current_language(), "operation-not-found", op_id = op_id, tenant = tenant))
    }

    /// The archived operation `op_id`, read from its archive file, with where it was read from and
    /// how many conflicting requests its file keeps; `None` when it was never archived.
    async fn archived_history(
        user: &SignedIn,
        op_id: &OpId,
    ) -> Result<Option<(crate::domain::operation::OperationHistory, (ArchivedFrom, usize))>, AppError> {
        let archived = match expect_context::<AppState>().ledger.archived_history(&user.tenant, op_id).await {
            Ok(archived) => archived,
            Err(RetentionError::Untrusted(file)) => {
                return Err(untrusted(op_id.as_str(), file.why, &file.object))
            }
            Err(error) => {
                tracing::warn!(tenant = %user.tenant, %op_id, %error, "an archived operation could not be read");
                return Err(AppError::Unavailable);
            }
        };
        let Some(archived) = archived else { return Ok(None) };
        let history = archived.operation.history().map_err(|error| {
            tracing::warn!(tenant = %user.tenant, %op_id, %error, "an archived operation does not read back");
            AppError::Unavailable
        })?;
        let from = ArchivedFrom { object_path: archived.key.object_path, closed_at: archived.key.closed_at };
        Ok(Some((history, (from, archived.operation.conflicts.len()))))
    }

    pub fn dashboard_link(provider: &str, external_id: &str) -> Option<String> {
        (provider == "stripe" && external_id.starts_with("re_"))
            .then(|| format!("https://dashboard.stripe.com/refunds/{external_id}"))
    }

    pub async fn operation(user: &SignedIn, op_id: &str) -> Result<OperationDetail, AppError> {
        let not_found = || no_operation(op_id, user);
        let op_id = OpId::parse(op_id).map_err(|_| not_found())?;
        let store = reads();
        let executor = expect_context::<AppState>().executor.clone();
        let (history, archived) =
            match store.operation_history(&user.tenant, &op_id).await.map_err(unavailable)? {
                Some(history) => (history, None),
                None => {
                    let (history, archived) = archived_history(user, &op_id).await?.ok_or_else(not_found)?;
                    (history, Some(archived))
                }
            };
        let operation = &history.operation;
        let snapshot = &operation.snapshot;
        let at = now();
        let linked = |item: &OperationListItem| LinkedOperation {
            op_id: item.op_id.to_string(),
            kind: item.kind.clone(),
            state: item.state,
        };
        let siblings = store
            .subjects_operations(&user.tenant, std::slice::from_ref(&operation.subject))
            .await
            .map_err(unavailable)?;
        let compensates = operation
            .compensates
            .as_ref()
            .and_then(|parent| siblings.iter().find(|s| &s.op_id == parent))
            .map(linked);
        let compensated_by = siblings
            .iter()
            .filter(|s| s.compensates.as_ref() == Some(&operation.op_id))
            .map(linked)
            .collect();
        let conflicts = store.conflicts_of(&user.tenant, &op_id).await.map_err(unavailable)?.len()
            + archived.as_ref().map_or(0, |(_, conflicts)| *conflicts);
        let key_expires_at = snapshot.key_expires_at();
        let item = OperationListItem {
            op_id: operation.op_id.clone(),
            kind: operation.kind.clone(),
            subject: operation.subject.clone(),
            provider: operation.provider.clone(),
            state: snapshot.state,
            amount: operation.params.money("amount"),
            attempts: snapshot.last_attempt.map_or(0, |a| a.0),
            external_ids: history.external_refs.iter().map(|r| r.external_id.clone()).collect(),
            compensates: operation.compensates.clone(),
            failure_reason: snapshot.failure_reason.clone(),
            retry_of: operation.retry_of.clone(),
            created_at: operation.created_at,
            updated_at: operation.updated_at,
        };
        let actor = Actor::human(&user.name, user.role);
        let offered = if archived.is_some() { Vec::new() } else { compensations_for(user, &item, &siblings) };
        let line_item = if offered.is_empty() {
            None
        } else {
            let line_item = operation.params.as_value().get("line_item").and_then(|v| v.as_str());
            executor
                .directory()
                .order_of_subject(&user.tenant, &operation.subject, SHOP_WAIT)
                .await
                .ok()
                .and_then(|order| order.money_of(line_item?))
        };
        let described = Described {
            kind: &item.kind,
            amount: item.amount,
            item: line_item.as_ref().map(|(name, _)| name.as_str()),
            provider: &item.provider,
        };
        let held = matches!(item.state, State::Planned | State::Approved)
            && snapshot.last_failure == Some(crate::domain::failure::FailureClass::NotSent);
        let told = if held {
            crate::domain::wording::tell_held(&described, current_language())
        } else {
            tell(&described, item.state, snapshot.failure_reason.as_deref(), current_language())
        };
        let connector =
            executor.directory().connector(&user.tenant, &operation.provider).await.ok().and_then(Result::ok);
        let capabilities = connector.as_ref().map(|connector| connector.capabilities(&operation.kind));
        let asked = capabilities.is_none_or(|capabilities| capabilities.lookup);
        let actions: Vec<CommandKind> = allowed_commands(snapshot, &actor, at)
            .into_iter()
            .filter(|action| archived.is_none() && (asked || *action != CommandKind::ConfirmFound))
            .collect();
        let key_validity_now = key_validity(snapshot, at);
        let holding = crate::console::desk::ssr::holding_view(user, &Item::Operation(op_id.clone())).await?;
        let mut notes = crate::console::desk::ssr::notes_view(user, &Item::Operation(op_id.clone())).await?;
        notes.may_write &= archived.is_none();
        let consequences = consequences_of(&actions, &described, &key_validity_now);
        let consequences = match holding.holder.as_ref().filter(|_| !holding.mine) {
            Some(holder) => with_holder(&actions, consequences, holder),
            None => consequences,
        };
        let compensations = offers(offered, &described, line_item.as_ref().map(|(_, paid)| *paid));
        let retried_by = siblings.iter().find(|s| s.retry_of.as_ref() == Some(&operation.op_id));
        let retry = (archived.is_none()
            && operation.make_again_refusal().is_none()
            && retried_by.is_none()
            && user.role.acts_on_operations())
        .then(|| retry_consequence(&described, current_language()));
        let retry_of = operation
            .retry_of
            .as_ref()
            .and_then(|failed| siblings.iter().find(|s| &s.op_id == failed))
            .map(linked);
        let retried_by = retried_by.map(linked);
        Ok(OperationDetail {
            row: row(item),
            archived: archived.map(|(from, _)| from),
            told,
            params: serde_json::to_string_pretty(operation.params.as_value()).unwrap_or_default(),
            fingerprint: snapshot.fingerprint.to_string(),
            idempotency_key: operation.idempotency_key.clone(),
            requested_by: snapshot.requested_by.clone(),
            key_expires_at,
            key_validity: key_validity_now,
            last_failure: snapshot.last_failure.map(|f| f.as_str().to_owned()),
            cancel_requested: snapshot.cancel_requested,
            approval: snapshot.approval.as_ref().map(|a| ApprovalView {
                approver: a.approver.clone(),
                granted_at: a.granted_at,
                expires_at: a.expires_at,
                matches_params: a.fingerprint == snapshot.fingerprint,
            }),
            attempts: history
                .attempts
                .iter()
                .map(|a| AttemptView {
                    number: a.number,
                    started_at: a.started_at,
                    send_deadline: a.deadline_at,
                    duration_ms: a.finished_at.map(|f| (f - a.started_at).num_milliseconds()),
                    outcome: a.outcome.clone().unwrap_or_else(|| "open".into()),
                    http_status: a.http_status,
                    idempotency_key: a.idempotency_key.clone(),
                    sent_by: a.sent_by.clone(),
                    error: a.error.clone(),
                })
                .collect(),
            external: history
                .external_refs
                .iter()
                .map(|r| ExternalView {
                    link: dashboard_link(&r.provider, &r.external_id),
                    provider: r.provider.clone(),
                    ref_type: r.ref_type.clone(),
                    external_id: r.external_id.clone(),
                    recorded_at: r.recorded_at,
                })
                .collect(),
            compensates,
            compensated_by,
            conflicts,
            audit: history
                .audit
                .iter()
                .map(|record| AuditView {
                    seq: record.seq,
                    at: record.entry.at,
                    actor: record.entry.actor.clone(),
                    role: record.entry.role.clone(),
                    action: record.entry.action.clone(),
                    from_state: record.entry.from_state.clone(),
                    to_state: record.entry.to_state.clone(),
                    reason: record.entry.reason.clone(),
                    evidence: record.entry.evidence.to_string(),
                })
                .collect(),
            actions,
            consequences,
            compensations,
            retry,
            retry_of,
            retried_by,
            sender: sender_words(operation),
            offer: connector
                .as_ref()
                .map(|connector| {
                    let retention = Some(operation.snapshot.key_retention);
                    crate::domain::gateway::offer_lines(connector.kind(), retention, current_language())
                })
                .unwrap_or_default(),
            settling: connector.zip(capabilities).map(|(connector, capabilities)| {
                settling(capabilities, connector.kind(), &operation.provider, current_language())
            }),
            form_key: form_key(),
            holding,
            notes,
        })
    }

    /// `consequences` of `actions` with, first, that `holder` holds the operation: every action
    /// on it is then confirmed first.
    fn with_holder(
        actions: &[CommandKind],
        consequences: Vec<(CommandKind, String)>,
        holder: &str,
    ) -> Vec<(CommandKind, String)> {
        let held = t!(current_language(), "desk-held-confirm", holder = holder);
        actions
            .iter()
            .map(|kind| {
                let consequence = consequences.iter().find(|(k, _)| k == kind).map(|(_, text)| text.as_str());
                (*kind, consequence.map_or_else(|| held.clone(), |text| format!("{held} {text}")))
            })
            .collect()
    }

    /// Whether someone other than `user` holds the operation `op_id` (an action on it is then
    /// confirmed first).
    pub async fn held_by_another(user: &SignedIn, op_id: &str) -> Result<bool, AppError> {
        let Ok(op_id) = OpId::parse(op_id.trim()) else { return Ok(false) };
        crate::console::desk::ssr::held_by_another(user, &Item::Operation(op_id))
            .await
            .map(|holder| holder.is_some())
            .inspect_err(crate::console::guard::set_error_status)
    }

    /// `compensations` of the operation `described`, each with what recording it does in words;
    /// `refund` is what a refund of its line item would return, when known.
    pub fn offers(
        compensations: Vec<Compensation>,
        described: &Described,
        refund: Option<Money>,
    ) -> Vec<Offer> {
        compensations
            .into_iter()
            .map(|compensation| Offer {
                compensation,
                consequence: compensation_consequence(compensation, described, refund, current_language()),
            })
            .collect()
    }

    /// The compensations `user` may record for `operation`, of those `siblings` (the operations of
    /// its order) have not recorded yet.
    pub fn compensations_for(
        user: &SignedIn,
        operation: &OperationListItem,
        siblings: &[OperationListItem],
    ) -> Vec<Compensation> {
        if !user.role.acts_on_operations() {
            return Vec::new();
        }
        let recorded: Vec<(&str, State)> = siblings
            .iter()
            .filter(|s| s.compensates.as_ref() == Some(&operation.op_id))
            .map(|s| (s.kind.as_str(), s.state))
            .collect();
        still_offered(&operation.kind, operation.state, &recorded)
    }

    /// The fields of an action form on one operation.
    #[derive(Debug, Clone, Default)]
    pub struct ActionForm {
        pub op_id: String,
        pub action: String,
        pub reason: String,
        pub external_id: String,
        pub evidence: String,
    }

    impl ActionForm {
        /// What was typed into the form, to fill it again on its confirmation.
        pub fn fields(&self) -> Vec<(&'static str, String)> {
            [("reason", &self.reason), ("external_id", &self.external_id), ("evidence", &self.evidence)]
                .into_iter()
                .filter(|(_, value)| !value.is_empty())
                .map(|(name, value)| (name, value.clone()))
                .collect()
        }
    }

    /// Refuses a viewer whose role changes no operation (auditors, admins) before anything else,
    /// a confirmation included; the ledger refuses them too.
    pub fn may_act(user: &SignedIn) -> Result<(), AppError> {
        if user.role.acts_on_operations() {
            Ok(())
        } else {
            tracing::warn!(user = %user.name, role = user.role.as_str(), "refused: this role changes no operation");
            Err(AppError::Forbidden)
        }
    }

    /// Who sends `operation`, and what the server's approval policy can and cannot do about it,
    /// in the language of the request.
    fn sender_words(operation: &crate::domain::operation::OperationRecord) -> String {
        let language = current_language();
        let (kind, provider) = (&operation.kind, &operation.provider);
        match (&operation.action, operation.server_sends) {
            (None, _) => t!(language, "operation-sender-none", kind = kind, provider = provider),
            (Some(action), true) if operation.params.money("amount").is_some() => {
                t!(language, "operation-sender-server-money", action = action, provider = provider)
            }
            (Some(action), true) => {
                t!(language, "operation-sender-server", action = action, provider = provider)
            }
            (Some(action), false) => t!(language, "operation-sender-agent", action = action),
        }
    }

    /// Makes the failed operation `op_id` again for `reason`, once per form.
    pub async fn retry_after_failure(
        user: &SignedIn,
        key: &str,
        op_id: &str,
        reason: &str,
    ) -> Result<String, AppError> {
        let failed = OpId::parse(op_id.trim()).map_err(|_| no_operation(op_id, user))?;
        let executor = expect_context::<AppState>().executor.clone();
        let described = format!("{RETRY} {failed}");
        once(user, key, &described, |request| async move {
            workflows::retry_after_failure(&executor, &user.tenant, &failed, &actor(user), reason, &request)
                .await
                .map_err(|error| refused(error, failed.as_str(), user))
        })
        .await
    }

    /// Whether `form` asks for an action that must be confirmed and was not.
    pub fn must_confirm(form: &ActionForm, confirmed: &str) -> bool {
        CommandKind::parse(form.action.trim()).is_some_and(needs_confirmation) && confirmed.trim() != "yes"
    }

    /// Sends the browser to the operation's page, which restates what `action` does and asks to
    /// confirm it, with what was typed filled in again.
    pub fn ask_to_confirm(op_id: &str, action: &str, typed: &[(&'static str, String)]) {
        let mut query = vec![("confirm", action.trim().to_owned())];
        query.extend(typed.iter().map(|(name, value)| (*name, value.clone())));
        let query = serde_urlencoded::to_string(&query).unwrap_or_default();
        let op_id = OpId::parse(op_id.trim()).map(|id| id.to_string()).unwrap_or_default();
        leptos_axum::redirect(&format!("/operations/{op_id}?{query}#confirm"));
    }

    /// What each action of `actions` that must be confirmed does to `described`, in words.
    pub fn consequences_of(
        actions: &[CommandKind],
        described: &Described,
        key_validity: &str,
    ) -> Vec<(CommandKind, String)> {
        actions
            .iter()
            .filter_map(|kind| {
                consequence(*kind, described, key_validity, current_language()).map(|text| (*kind, text))
            })
            .collect()
    }

    /// The command a console form asks for, in the one place where console actions become the
    /// state machine's commands. `None` for a query of the provider (`confirm_found`): its
    /// evidence is what the lookup finds, so the lookup comes first.
    pub fn command_of(form: &ActionForm, approval_valid_for: Duration) -> Result<Option<Command>, AppError> {
        let language = current_language();
        let kind = CommandKind::parse(form.action.trim()).ok_or_else(|| {
            AppError::Invalid(t!(language, "operation-no-such-action", action = &form.action))
        })?;
        let reason = form.reason.clone();
        Ok(Some(match kind {
            CommandKind::ConfirmFound => return Ok(None),
            CommandKind::Approve => Command::Approve { reason, valid_for: approval_valid_for },
            CommandKind::Deny => Command::Deny { reason },
            CommandKind::ResendSameKey => Command::ResendSameKey,
            CommandKind::MarkSucceeded => Command::MarkSucceeded {
                external_id: form.external_id.clone(),
                evidence: form.evidence.clone(),
            },
            CommandKind::MarkNotHappened => {
                Command::MarkNotHappened { reason, evidence: form.evidence.clone() }
            }
            CommandKind::Escalate => Command::Escalate { reason },
            CommandKind::Cancel => Command::Cancel { reason },
            CommandKind::ExpireApproval
            | CommandKind::BeginAttempt
            | CommandKind::RecordOutcome
            | CommandKind::MarkUnknown => {
                return Err(AppError::Invalid(t!(
                    language,
                    "operation-executor-only",
                    action = action_label(kind, language)
                )))
            }
        }))
    }

    /// Carries out one action on one operation.
    pub async fn act(user: &SignedIn, key: &str, form: ActionForm) -> Result<String, AppError> {
        let state = expect_context::<AppState>();
        let command = command_of(&form, state.approval_valid_for)?;
        let op_id =
            OpId::parse(form.op_id.trim()).map_err(|_| refused(LedgerError::NotFound, &form.op_id, user))?;
        let described = format!("{} {op_id}", form.action.trim());
        let actor = actor(user);
        once(user, key, &described, |request| async move {
            let answer = match command {
                None => {
                    workflows::query_provider(&state.executor, &user.tenant, &op_id, &actor, Some(&request))
                        .await
                        .map(|outcome| outcome.sentence(&op_id))
                }
                Some(command) => {
                    workflows::act(&state.executor, &user.tenant, &op_id, &actor, command, &request).await
                }
            };
            answer.map_err(|error| refused(error, op_id.as_str(), user))
        })
        .await
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn spans_read_like_people_write_them() {
            assert_eq!(span(Duration::seconds(40)), "40 s");
            assert_eq!(span(Duration::minutes(83)), "1 h 23 min");
            assert_eq!(span(Duration::hours(50)), "2 d 2 h");
            assert_eq!(span(Duration::hours(24)), "1 d");
            assert_eq!(span(Duration::hours(2)), "2 h");
            assert_eq!(span_in(Duration::minutes(83), Language::ZhTw), "1 小時 23 分鐘");
            assert_eq!(span_in(Duration::hours(50), Language::ZhCn), "2 天 2 小时");
        }

        #[test]
        fn actions_are_named_in_each_language() {
            assert_eq!(action_label(CommandKind::ConfirmFound, Language::En), "Query the provider now");
            assert_eq!(action_label(CommandKind::ResendSameKey, Language::ZhTw), "以相同冪等鍵重新送出");
            assert_eq!(confirm_first(Language::ZhCn), "请先确认：页面会说明这个动作的后果。");
            assert_eq!(confirm_first(Language::En), "Confirm first: the page shows what this will do.");
        }
    }
}
