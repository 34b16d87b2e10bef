//! The console's changes as the server functions call them, for the signed-in user's tenant only:
//! each reads its form, answers a resent form with its first answer (by the idempotency key the
//! server put in the form), calls the workflow, and turns failures into sentences. A request that
//! fails frees its key, so the same form can be corrected and sent again; what it may already have
//! done is then refused by the state machine, never done twice.

use leptos::prelude::expect_context;
use std::future::Future;

use super::auth::SignedIn;
use super::ledger::{now, LedgerError};
use super::state::AppState;
use super::store::records::{ApprovalRuleRecord, NewBulkRun, RequestClaim};
use super::store::StoreError;
use super::telemetry::cause_chain;
use super::views::{capitalise, operation_query, unavailable};
use super::workflows::{self, Request, BULK_LIMIT};
use crate::api::{AppError, BulkPreview, OperationFilter};
use crate::domain::{
    audit::AuditEntry,
    compensation::Compensation,
    ids::{Actor, OpId},
    machine::{CommandKind, RejectionCode},
    money::{Currency, Money},
    policy::ApprovalRule,
};

/// A fresh idempotency key for the forms of one page.
pub fn form_key() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// After a change made by a plain form post (a browser without JavaScript), sends the browser back
/// to the page it came from with `done=<key>`, so that the page can show the answer in words.
/// Requests from the console's script get the answer in the response and stay where they are.
pub fn show_answer_after_form_post(key: &str) {
    let Some(parts) = leptos::prelude::use_context::<axum::http::request::Parts>() else { return };
    let header = |name| parts.headers.get(name).and_then(|v: &axum::http::HeaderValue| v.to_str().ok());
    let plain_form = header(axum::http::header::ACCEPT).is_some_and(|accept| accept.contains("text/html"));
    let Some(referer) = header(axum::http::header::REFERER).filter(|_| plain_form) else { return };
    let Ok(url) = reqwest::Url::parse(referer) else { return };
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(name, _)| name != "done" && !name.starts_with("__"))
        .map(|(n, v)| (n.into_owned(), v.into_owned()))
        .collect();
    let mut query = serde_urlencoded::to_string(&kept).unwrap_or_default();
    if !query.is_empty() {
        query.push('&');
    }
    query.push_str(&serde_urlencoded::to_string([("done", key)]).unwrap_or_default());
    leptos_axum::redirect(&format!("{}?{query}", url.path()));
}

/// The answer to one of the user's own earlier requests, by its key.
pub async fn answer_of(user: &SignedIn, key: &str) -> Result<Option<String>, AppError> {
    let store = expect_context::<AppState>().ledger.store().clone();
    store.request_answer(&user.tenant, key.trim(), &user.name).await.map_err(unavailable)
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

fn actor(user: &SignedIn) -> Actor {
    Actor::human(&user.name, user.role)
}

fn refused(error: LedgerError, op_id: &str, user: &SignedIn) -> AppError {
    match error {
        LedgerError::NotFound => {
            AppError::NotFound(format!("no operation {op_id} in tenant {}", user.tenant))
        }
        LedgerError::Rejected(rejection) if rejection.code == RejectionCode::NotPermitted => {
            tracing::warn!(user = %user.name, role = user.role.as_str(), %op_id, "refused: {rejection}");
            AppError::Forbidden
        }
        LedgerError::Rejected(rejection) => AppError::Invalid(rejection.message),
        LedgerError::Invalid(message) => AppError::Invalid(message),
        LedgerError::Contended => AppError::Invalid("The operation is changing right now; try again.".into()),
        LedgerError::Store(error) => unavailable(error),
    }
}

/// The idempotency key of a form, as the server made it: up to 256 visible ASCII characters.
fn valid_key(key: &str) -> Result<&str, AppError> {
    let key = key.trim();
    if key.is_empty() || key.len() > 256 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(AppError::Invalid("This form has no valid request key; reload the page.".into()));
    }
    Ok(key)
}

/// Runs `work` once per idempotency `key`: a second request with the key gets the first answer.
/// `request` names what is asked, so a key cannot be replayed for something else.
async fn once<F>(user: &SignedIn, key: &str, request: &str, work: F) -> Result<String, AppError>
where
    F: Future<Output = Result<String, AppError>>,
{
    let key = valid_key(key)?;
    let store = expect_context::<AppState>().ledger.store().clone();
    let claim =
        store.claim_request(&user.tenant, key, &user.name, request, now()).await.map_err(unavailable)?;
    match claim {
        RequestClaim::Claimed => {
            let answer = work.await;
            let kept = answer.as_ref().ok().map(String::as_str);
            if let Err(error) = store.answer_request(&user.tenant, key, kept).await {
                tracing::error!(error = %cause_chain(&error), "could not record a console request's answer");
            }
            answer
        }
        RequestClaim::Answered(answer) => Ok(answer),
        RequestClaim::InProgress => Err(AppError::Invalid(
            "This request is already being carried out; its result shows when it is done.".into(),
        )),
        RequestClaim::OtherRequest => {
            Err(AppError::Invalid("This form was already used for another request; reload the page.".into()))
        }
    }
}

fn request_of(form: &ActionForm) -> Result<Request, AppError> {
    let kind = CommandKind::parse(form.action.trim())
        .ok_or_else(|| AppError::Invalid(format!("There is no action named “{}”.", form.action)))?;
    let reason = form.reason.clone();
    Ok(match kind {
        CommandKind::Approve => Request::Approve { reason },
        CommandKind::Deny => Request::Deny { reason },
        CommandKind::ConfirmFound => Request::QueryProvider,
        CommandKind::ResendSameKey => Request::ResendSameKey,
        CommandKind::MarkSucceeded => {
            Request::MarkSucceeded { external_id: form.external_id.clone(), evidence: form.evidence.clone() }
        }
        CommandKind::MarkNotHappened => Request::MarkNotHappened { reason, evidence: form.evidence.clone() },
        CommandKind::Escalate => Request::Escalate { reason },
        CommandKind::Cancel => Request::Cancel { reason },
        CommandKind::ExpireApproval
        | CommandKind::BeginAttempt
        | CommandKind::RecordOutcome
        | CommandKind::MarkUnknown => {
            return Err(AppError::Invalid(format!(
                "“{}” is done by the executor, not from the console.",
                kind.label()
            )))
        }
    })
}

/// Carries out one action on one operation.
pub async fn act(user: &SignedIn, key: &str, form: ActionForm) -> Result<String, AppError> {
    let request = request_of(&form)?;
    let op_id =
        OpId::parse(form.op_id.trim()).map_err(|_| refused(LedgerError::NotFound, &form.op_id, user))?;
    let state = expect_context::<AppState>();
    let described = format!("{} {op_id}", form.action.trim());
    once(user, key, &described, async {
        workflows::act(&state.executor, &user.tenant, &op_id, &actor(user), request, state.approval_valid_for)
            .await
            .map_err(|error| refused(error, op_id.as_str(), user))
    })
    .await
}

/// Records a compensation of one operation and sends it.
pub async fn compensate(
    user: &SignedIn,
    key: &str,
    op_id: &str,
    compensation: &str,
    date: &str,
) -> Result<String, AppError> {
    let kind = Compensation::parse(compensation.trim())
        .ok_or_else(|| AppError::Invalid(format!("There is no compensation named “{compensation}”.")))?;
    let original = OpId::parse(op_id.trim()).map_err(|_| refused(LedgerError::NotFound, op_id, user))?;
    let executor = expect_context::<AppState>().executor;
    let date = Some(date.trim()).filter(|d| !d.is_empty());
    let described = format!("{} {original} {}", kind.as_str(), date.unwrap_or_default());
    once(user, key, &described, async {
        workflows::compensate(&executor, &user.tenant, &original, &actor(user), kind, date)
            .await
            .map_err(|error| refused(error, original.as_str(), user))
    })
    .await
}

/// The operations a bulk query over `filter` would touch: how many match (up to the limit) and
/// which of them this viewer may query now.
async fn bulk_candidates(
    user: &SignedIn,
    filter: &OperationFilter,
) -> Result<(usize, bool, Vec<OpId>), AppError> {
    let mut query = operation_query(&OperationFilter { after: None, ..filter.clone() })?;
    query.limit = BULK_LIMIT + 1;
    let state = expect_context::<AppState>();
    let mut matching =
        state.ledger.store().list_operations(&user.tenant, &query).await.map_err(unavailable)?;
    let capped = matching.len() > BULK_LIMIT as usize;
    matching.truncate(BULK_LIMIT as usize);
    let ids: Vec<OpId> = matching.into_iter().map(|item| item.op_id).collect();
    let allowed = workflows::queryable(&state.executor, &user.tenant, &actor(user), &ids)
        .await
        .map_err(|error| refused(error, "of the filter", user))?;
    Ok((ids.len(), capped, allowed))
}

pub async fn bulk_preview(user: &SignedIn, filter: OperationFilter) -> Result<BulkPreview, AppError> {
    let (matching, capped, allowed) = bulk_candidates(user, &filter).await?;
    Ok(BulkPreview {
        filter: OperationFilter { after: None, ..filter },
        matching,
        actionable: allowed.len(),
        capped,
        limit: BULK_LIMIT,
        form_key: form_key(),
    })
}

/// Records a bulk query over the operations list's filter (its URL query) and starts it in the
/// background; a second request with the same key finds the first run. Returns the run's id.
pub async fn start_bulk(user: &SignedIn, key: &str, filter_query: &str) -> Result<String, AppError> {
    let key = valid_key(key)?;
    let filter: OperationFilter = serde_urlencoded::from_str(filter_query).map_err(|_| {
        AppError::Invalid("The filter is damaged; start again from the operations list.".into())
    })?;
    let (_, _, allowed) = bulk_candidates(user, &filter).await?;
    if allowed.is_empty() {
        return Err(AppError::Invalid(
            "None of the operations this filter shows can be queried now; nothing was started.".into(),
        ));
    }
    let state = expect_context::<AppState>();
    let filter_text = filter.query_string(false);
    let evidence = serde_json::json!({"run": key, "filter": filter_text, "operations": allowed.len()});
    let audit = AuditEntry::action(
        now(),
        user.tenant.as_str(),
        &user.name,
        user.role.as_str(),
        "start_bulk_query",
        evidence,
    );
    let run = NewBulkRun {
        tenant: user.tenant.clone(),
        id: key.to_owned(),
        action: "query the provider".into(),
        filter: filter_text,
        requested_by: user.name.clone(),
        op_ids: allowed,
        at: now(),
    };
    let created = state.ledger.store().create_bulk_run(run, audit).await.map_err(unavailable)?;
    if created {
        let (executor, tenant, id, actor) =
            (state.executor.clone(), user.tenant.clone(), key.to_owned(), actor(user));
        tokio::spawn(async move {
            if let Err(error) = workflows::run_bulk_query(executor, tenant, id, actor).await {
                tracing::error!(error = %cause_chain(&error), "a bulk query could not record its results");
            }
        });
    }
    Ok(key.to_owned())
}

fn rule_audit(admin: &SignedIn, action: &str, evidence: serde_json::Value) -> AuditEntry {
    AuditEntry::action(now(), admin.tenant.as_str(), &admin.name, admin.role.as_str(), action, evidence)
}

/// Adds a rule to the admin's tenant's approval policy.
pub async fn add_approval_rule(
    admin: &SignedIn,
    kind: &str,
    provider: &str,
    threshold: &str,
    currency: &str,
) -> Result<String, AppError> {
    let kind = kind.trim();
    if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        return Err(AppError::Invalid("Write the kind as it is recorded, for example refund.".into()));
    }
    let provider = Some(provider.trim()).filter(|p| !p.is_empty()).map(str::to_owned);
    let threshold = match (threshold.trim(), currency.trim()) {
        ("", _) => None,
        (_, "") => return Err(AppError::Invalid("A threshold needs its currency, for example TWD.".into())),
        (amount, code) => {
            let currency = Currency::parse(&code.to_uppercase())
                .map_err(|e| AppError::Invalid(format!("{}.", capitalise(&e.to_string()))))?;
            Some(
                Money::parse_major(amount, currency)
                    .map_err(|e| AppError::Invalid(format!("{}.", capitalise(&e.to_string()))))?,
            )
        }
    };
    let rule = ApprovalRule { kind: kind.to_owned(), provider, threshold };
    let record = ApprovalRuleRecord {
        id: form_key()[..12].to_owned(),
        rule: rule.clone(),
        created_by: admin.name.clone(),
        created_at: now(),
    };
    let sentence = rule_sentence(&rule);
    let audit =
        rule_audit(admin, "add_approval_rule", serde_json::json!({"id": record.id, "rule": sentence}));
    let store = expect_context::<AppState>().ledger.store().clone();
    store.add_approval_rule(&admin.tenant, record, audit).await.map_err(unavailable)?;
    Ok(format!("From now on, {sentence}."))
}

/// The rule in words: `refunds at stripe from TWD 1000.00 up need a manager's approval`.
pub fn rule_sentence(rule: &ApprovalRule) -> String {
    let at = rule.provider.as_deref().map(|p| format!(" at {p}")).unwrap_or_default();
    let from = rule.threshold.map(|t| format!(" from {t} up")).unwrap_or_default();
    format!("{} operations{at}{from} need a manager's approval", rule.kind)
}

pub async fn remove_approval_rule(admin: &SignedIn, id: &str) -> Result<String, AppError> {
    let store = expect_context::<AppState>().ledger.store().clone();
    let audit = rule_audit(admin, "remove_approval_rule", serde_json::json!({"id": id}));
    match store.remove_approval_rule(&admin.tenant, id, audit).await {
        Ok(()) => Ok("The rule is removed; operations registered from now on no longer need it.".into()),
        Err(StoreError::NotFound) => Err(AppError::NotFound(format!("no approval rule {id}"))),
        Err(error) => Err(unavailable(error)),
    }
}
