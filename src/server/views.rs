//! Builds what the console's pages show from the store, for the signed-in user's tenant only.
//! The server functions in [`crate::api`] check the role and call these; store failures are
//! logged here and become [`AppError::Unavailable`], never text from the database.

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Utc};
use leptos::prelude::expect_context;
use std::collections::BTreeMap;

use super::accounts::{add_user as add_account, AccountError};
use super::actions::{form_key, rule_sentence};
use super::auth::SignedIn;
use super::ledger::now;
use super::state::AppState;
use super::store::records::{AuditQuery, OperationHistory, OperationListItem, OperationQuery};
use super::store::{Store, StoreError};
use crate::api::*;
use crate::domain::{
    compensation::{still_offered, Compensation},
    ids::{Actor, OpId},
    machine::{allowed_commands, check as machine_check, CommandKind, Snapshot, State},
    policy::Role,
    rollup::{roll_up, OperationSummary, OrderStatus},
};

/// Rows per page of the operations list.
pub const PAGE_SIZE: u32 = 50;

fn store() -> std::sync::Arc<dyn Store> {
    expect_context::<AppState>().ledger.store().clone()
}

pub fn unavailable(error: StoreError) -> AppError {
    tracing::error!(error = %super::telemetry::cause_chain(&error), "a console read failed");
    AppError::Unavailable
}

fn row(item: OperationListItem) -> OperationRow {
    OperationRow {
        op_id: item.op_id.to_string(),
        kind: item.kind,
        subject: item.subject,
        provider: item.provider,
        state: item.state,
        amount: item.amount.map(|m| m.to_string()),
        attempts: item.attempts,
        external_ids: item.external_ids,
        compensates: item.compensates.map(|c| c.to_string()),
        created_at: item.created_at,
        updated_at: item.updated_at,
    }
}

fn given(value: &Option<String>) -> Option<String> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned)
}

/// Reads a time from a filter: RFC 3339, or the `YYYY-MM-DDTHH:MM` of a date-time field, or a
/// date, all in UTC.
pub fn parse_time(field: &str, text: &str) -> Result<DateTime<Utc>, AppError> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(at) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(at.and_utc());
        }
    }
    if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
    }
    Err(AppError::Invalid(format!(
        "“{text}” in {field} is not a time; write it as 2026-11-30 or 2026-11-30T14:05 (UTC)."
    )))
}

fn cursor_of(item: &OperationListItem) -> String {
    format!("{}~{}", item.created_at.timestamp_micros(), item.op_id)
}

fn parse_cursor(text: &str) -> Result<(DateTime<Utc>, OpId), AppError> {
    let invalid = || AppError::Invalid("The page link is damaged; go back to the first page.".into());
    let (micros, op_id) = text.split_once('~').ok_or_else(invalid)?;
    let at = micros.parse().ok().and_then(DateTime::from_timestamp_micros).ok_or_else(invalid)?;
    Ok((at, OpId::parse(op_id).map_err(|_| invalid())?))
}

/// The store query for a filter from the URL; bad values are refused with a sentence.
pub fn operation_query(filter: &OperationFilter) -> Result<OperationQuery, AppError> {
    let state = given(&filter.state)
        .map(|s| State::parse(&s).ok_or_else(|| AppError::Invalid(format!("There is no state named “{s}”."))))
        .transpose()?;
    Ok(OperationQuery {
        state,
        kind: given(&filter.kind),
        provider: given(&filter.provider),
        subject: given(&filter.subject),
        search: given(&filter.q),
        created_from: given(&filter.from).map(|t| parse_time("from", &t)).transpose()?,
        created_before: given(&filter.to).map(|t| parse_time("to", &t)).transpose()?,
        after: given(&filter.after).map(|c| parse_cursor(&c)).transpose()?,
        limit: PAGE_SIZE + 1,
    })
}

pub async fn operations(user: &SignedIn, filter: &OperationFilter) -> Result<OperationPage, AppError> {
    let query = operation_query(filter)?;
    let mut items = store().list_operations(&user.tenant, &query).await.map_err(unavailable)?;
    let next = if items.len() > PAGE_SIZE as usize {
        items.truncate(PAGE_SIZE as usize);
        items.last().map(cursor_of)
    } else {
        None
    };
    Ok(OperationPage { rows: items.into_iter().map(row).collect(), next })
}

/// Audit events per page of the audit page.
pub const AUDIT_PAGE_SIZE: u32 = 100;

/// The store query for the audit page's filter from the URL; bad values are refused with a
/// sentence.
pub fn audit_query(filter: &AuditFilter) -> Result<AuditQuery, AppError> {
    let before_seq = given(&filter.before)
        .map(|c| {
            c.parse::<u64>()
                .map_err(|_| AppError::Invalid("The page link is damaged; go back to the first page.".into()))
        })
        .transpose()?;
    Ok(AuditQuery {
        at_from: given(&filter.from).map(|t| parse_time("from", &t)).transpose()?,
        at_before: given(&filter.to).map(|t| parse_time("to", &t)).transpose()?,
        actor: given(&filter.actor),
        action: given(&filter.action),
        op_id: given(&filter.op_id),
        subject: given(&filter.subject),
        oldest_first: false,
        before_seq,
        after_seq: None,
        limit: AUDIT_PAGE_SIZE + 1,
    })
}

pub async fn audit_events(user: &SignedIn, filter: &AuditFilter) -> Result<AuditPage, AppError> {
    let query = audit_query(filter)?;
    let mut records = store().list_audit(&user.tenant, &query).await.map_err(unavailable)?;
    let next = if records.len() > AUDIT_PAGE_SIZE as usize {
        records.truncate(AUDIT_PAGE_SIZE as usize);
        records.last().map(|r| r.seq.to_string())
    } else {
        None
    };
    let events = records
        .into_iter()
        .map(|record| AuditEventView {
            seq: record.seq,
            at: record.entry.at,
            actor: record.entry.actor,
            role: record.entry.role,
            action: record.entry.action,
            op_id: record.entry.op_id,
            from_state: record.entry.from_state,
            to_state: record.entry.to_state,
            reason: record.entry.reason,
            evidence: record.entry.evidence.to_string(),
            hash: record.hash,
        })
        .collect();
    Ok(AuditPage { events, next })
}

/// `23 h 12 min`, `4 min`, `40 s`, `1 d`: the two largest units, leaving out a zero second one.
fn span(duration: Duration) -> String {
    let seconds = duration.num_seconds().max(0);
    let (major, minor) = match seconds {
        0..=59 => return format!("{seconds} s"),
        60..=3599 => return format!("{} min", seconds / 60),
        3600..=86_399 => ((seconds / 3600, "h"), (seconds % 3600 / 60, "min")),
        _ => ((seconds / 86_400, "d"), (seconds % 86_400 / 3600, "h")),
    };
    match minor {
        (0, _) => format!("{} {}", major.0, major.1),
        _ => format!("{} {} {} {}", major.0, major.1, minor.0, minor.1),
    }
}

/// How long the provider still remembers the operation's idempotency key, in words.
fn key_validity(snapshot: &Snapshot, at: DateTime<Utc>) -> String {
    match snapshot.key_expires_at() {
        None => "not sent yet".to_owned(),
        Some(expires) if expires > at => format!("{} left", span(expires - at)),
        Some(_) => "expired: the provider no longer recognises this key".to_owned(),
    }
}

fn no_operation(op_id: &str, user: &SignedIn) -> AppError {
    AppError::NotFound(format!("no operation {op_id} in tenant {}", user.tenant))
}

fn dashboard_link(provider: &str, external_id: &str) -> Option<String> {
    (provider == "stripe" && external_id.starts_with("re_"))
        .then(|| format!("https://dashboard.stripe.com/refunds/{external_id}"))
}

pub async fn operation(user: &SignedIn, op_id: &str) -> Result<OperationDetail, AppError> {
    let not_found = || no_operation(op_id, user);
    let op_id = OpId::parse(op_id).map_err(|_| not_found())?;
    let store = store();
    let history =
        store.operation_history(&user.tenant, &op_id).await.map_err(unavailable)?.ok_or_else(not_found)?;
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
    let compensated_by =
        siblings.iter().filter(|s| s.compensates.as_ref() == Some(&operation.op_id)).map(linked).collect();
    let conflicts = store.conflicts_of(&user.tenant, &op_id).await.map_err(unavailable)?.len();
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
        created_at: operation.created_at,
        updated_at: operation.updated_at,
    };
    let actor = Actor::human(&user.name, user.role);
    let item_for_offers = item.clone();
    Ok(OperationDetail {
        row: row(item),
        params: serde_json::to_string_pretty(operation.params.as_value()).unwrap_or_default(),
        fingerprint: snapshot.fingerprint.to_string(),
        idempotency_key: operation.idempotency_key.clone(),
        requested_by: snapshot.requested_by.clone(),
        key_expires_at,
        key_validity: key_validity(snapshot, at),
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
        actions: allowed_commands(snapshot, &actor, at),
        compensations: compensations_for(user, &item_for_offers, &siblings),
        form_key: form_key(),
    })
}

/// The compensations `user` may record for `operation`, of those `siblings` (the operations of
/// its order) have not recorded yet.
fn compensations_for(
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

fn summaries(items: &[OperationListItem]) -> Vec<OperationSummary> {
    items
        .iter()
        .map(|item| OperationSummary {
            op_id: item.op_id.clone(),
            kind: item.kind.clone(),
            state: item.state,
            amount: item.amount,
            compensates: item.compensates.clone(),
        })
        .collect()
}

/// Rolls up every subject of `items`, most recently changed first.
fn order_summaries(items: Vec<OperationListItem>) -> Vec<OrderSummary> {
    let mut by_subject: BTreeMap<String, Vec<OperationListItem>> = BTreeMap::new();
    for item in items {
        by_subject.entry(item.subject.clone()).or_default().push(item);
    }
    let mut orders: Vec<OrderSummary> = by_subject
        .into_iter()
        .filter_map(|(subject, items)| {
            let rollup = roll_up(&summaries(&items)).ok()?;
            Some(OrderSummary {
                subject,
                status: rollup.status,
                operations: items.len(),
                net_refunded: rollup.net_refunded.iter().map(ToString::to_string).collect(),
                updated_at: items.iter().map(|i| i.updated_at).max()?,
            })
        })
        .collect();
    orders.sort_by_key(|order| std::cmp::Reverse(order.updated_at));
    orders
}

fn needs_attention(order: &OrderSummary) -> bool {
    matches!(order.status, OrderStatus::PartialSuccess | OrderStatus::PendingConfirmation)
}

async fn attention_orders(user: &SignedIn, limit: usize) -> Result<Vec<OrderSummary>, AppError> {
    let store = store();
    let subjects = store.subjects(&user.tenant, true, 200).await.map_err(unavailable)?;
    let items = store.subjects_operations(&user.tenant, &subjects).await.map_err(unavailable)?;
    Ok(order_summaries(items).into_iter().filter(needs_attention).take(limit).collect())
}

pub async fn orders(user: &SignedIn) -> Result<OrdersPage, AppError> {
    let store = store();
    let subjects = store.subjects(&user.tenant, false, 100).await.map_err(unavailable)?;
    let items = store.subjects_operations(&user.tenant, &subjects).await.map_err(unavailable)?;
    Ok(OrdersPage { attention: attention_orders(user, 100).await?, recent: order_summaries(items) })
}

pub async fn order(user: &SignedIn, subject: &str) -> Result<OrderDetail, AppError> {
    let items =
        store().subjects_operations(&user.tenant, &[subject.to_owned()]).await.map_err(unavailable)?;
    if items.is_empty() {
        return Err(AppError::NotFound(format!("no operations for order {subject}")));
    }
    let rollup = roll_up(&summaries(&items))
        .map_err(|_| AppError::Invalid("The order mixes amounts that cannot be added up.".into()))?;
    let ids = |ids: &[OpId]| ids.iter().map(ToString::to_string).collect::<Vec<_>>();
    Ok(OrderDetail {
        subject: subject.to_owned(),
        status: rollup.status,
        completed: ids(&rollup.completed),
        not_done: ids(&rollup.not_done),
        uncertain: ids(&rollup.uncertain),
        effects_in_force: ids(&rollup.effects_in_force),
        net_refunded: rollup.net_refunded.iter().map(ToString::to_string).collect(),
        compensations: if rollup.status == OrderStatus::PartialSuccess {
            items
                .iter()
                .map(|item| CompensationOffer {
                    op_id: item.op_id.to_string(),
                    kind: item.kind.clone(),
                    state: item.state,
                    offers: compensations_for(user, item, &items),
                })
                .filter(|offer| !offer.offers.is_empty())
                .collect()
        } else {
            Vec::new()
        },
        operations: items.into_iter().map(row).collect(),
        form_key: form_key(),
    })
}

/// Counts `ages` into the buckets whose upper bounds are given (the last bucket is open).
fn bucket(ages: &[Duration], bounds: &[(i64, &str)], last: &str) -> Vec<Bucket> {
    let mut counts = vec![0u64; bounds.len() + 1];
    for age in ages {
        let index = bounds.iter().position(|(limit, _)| age.num_seconds() < *limit).unwrap_or(bounds.len());
        counts[index] += 1;
    }
    bounds
        .iter()
        .map(|(_, label)| (*label).to_owned())
        .chain(std::iter::once(last.to_owned()))
        .zip(counts)
        .map(|(label, count)| Bucket { label, count })
        .collect()
}

/// How long operations stayed uncertain: from entering `unknown` to a settled state.
fn settle_durations(changes: &[super::store::records::StateChange]) -> Vec<Duration> {
    let mut entered: BTreeMap<&str, DateTime<Utc>> = BTreeMap::new();
    let mut durations = Vec::new();
    for change in changes {
        let to = change.to_state.as_deref().and_then(State::parse);
        if to == Some(State::Unknown) {
            entered.entry(&change.op_id).or_insert(change.at);
        } else if to.is_some_and(State::is_terminal) {
            if let Some(start) = entered.remove(change.op_id.as_str()) {
                durations.push(change.at - start);
            }
        }
    }
    durations
}

pub async fn overview(user: &SignedIn) -> Result<OverviewData, AppError> {
    let store = store();
    let at = now();
    let mut counts = store.count_by_state(&user.tenant).await.map_err(unavailable)?;
    counts.sort_by_key(|(state, _)| State::ALL.iter().position(|s| s == state));
    let count_of = |state: State| counts.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n);
    let uncertain = store
        .operations_in_states(&user.tenant, &[State::Unknown, State::Submitted, State::NeedsReview], 500)
        .await
        .map_err(unavailable)?;
    let unknown_ages: Vec<Duration> =
        uncertain.iter().filter(|o| o.state == State::Unknown).map(|o| at - o.updated_at).collect();
    let day_ago = at - Duration::hours(23);
    let first_hour = DateTime::from_timestamp(day_ago.timestamp() / 3600 * 3600, 0).unwrap_or(day_ago);
    let per_hour = store.outcomes_per_hour(&user.tenant, first_hour).await.map_err(unavailable)?;
    let hourly = (0..24)
        .map(|i| {
            let hour = first_hour + Duration::hours(i);
            let mut outcome = HourOutcomes { hour, succeeded: 0, not_done: 0, uncertain: 0, open: 0 };
            for (_, state, count) in per_hour.iter().filter(|(h, _, _)| *h == hour) {
                match state {
                    State::Succeeded => outcome.succeeded += count,
                    State::Rejected | State::Denied | State::Cancelled => outcome.not_done += count,
                    State::Submitted | State::Unknown | State::NeedsReview => outcome.uncertain += count,
                    State::Planned | State::PendingApproval | State::Approved => outcome.open += count,
                }
            }
            outcome
        })
        .collect();
    let changes = store.state_changes(&user.tenant, at - Duration::days(7)).await.map_err(unavailable)?;
    Ok(OverviewData {
        total: counts.iter().map(|(_, n)| n).sum(),
        pending_approvals: count_of(State::PendingApproval),
        unknown_by_age: bucket(
            &unknown_ages,
            &[(300, "under 5 min"), (1800, "5–30 min"), (7200, "30 min–2 h"), (86_400, "2–24 h")],
            "over a day",
        ),
        oldest_uncertain: uncertain
            .iter()
            .filter(|o| o.state == State::Unknown)
            .take(5)
            .cloned()
            .map(row)
            .collect(),
        needs_review: uncertain
            .into_iter()
            .filter(|o| o.state == State::NeedsReview)
            .take(10)
            .map(row)
            .collect(),
        attention_orders: attention_orders(user, 10).await?,
        hourly,
        time_to_settle: bucket(
            &settle_durations(&changes),
            &[(60, "under 1 min"), (300, "1–5 min"), (1800, "5–30 min"), (7200, "30 min–2 h")],
            "over 2 h",
        ),
        counts,
    })
}

pub async fn conflicts(user: &SignedIn) -> Result<Vec<ConflictView>, AppError> {
    let conflicts = store().recent_conflicts(&user.tenant, 100).await.map_err(unavailable)?;
    Ok(conflicts
        .into_iter()
        .map(|c| ConflictView {
            id: c.conflict.id,
            op_id: c.conflict.op_id.to_string(),
            requested_by: c.conflict.requested_by,
            received_at: c.conflict.received_at,
            stored_state: c.stored_state,
            diff: c.conflict.diff,
            requested_params: serde_json::to_string_pretty(&c.conflict.requested_params).unwrap_or_default(),
            stored_params: serde_json::to_string_pretty(&c.stored_params).unwrap_or_default(),
        })
        .collect())
}

/// Up to `limit` of the tenant's operations in `states`, the longest unchanged first, each with
/// its history (what the queues read to say why an operation waits).
async fn waiting_with_history(
    user: &SignedIn,
    states: &[State],
    limit: u32,
) -> Result<Vec<(OperationListItem, OperationHistory)>, AppError> {
    let store = store();
    let waiting = store.operations_in_states(&user.tenant, states, limit).await.map_err(unavailable)?;
    let mut with_history = Vec::with_capacity(waiting.len());
    for item in waiting {
        if let Some(history) =
            store.operation_history(&user.tenant, &item.op_id).await.map_err(unavailable)?
        {
            with_history.push((item, history));
        }
    }
    Ok(with_history)
}

/// The reconcile desk: unknown, needs-review and silent submitted operations, the longest
/// waiting first, each with the reason its last change gave.
pub async fn reconcile_queue(user: &SignedIn) -> Result<ReconcileDesk, AppError> {
    let at = now();
    let waiting =
        waiting_with_history(user, &[State::Unknown, State::NeedsReview, State::Submitted], 100).await?;
    let actor = Actor::human(&user.name, user.role);
    let mut items = Vec::with_capacity(waiting.len());
    for (item, history) in waiting {
        let snapshot = &history.operation.snapshot;
        let why = history
            .audit
            .iter()
            .rev()
            .find_map(|a| a.entry.reason.clone())
            .or_else(|| snapshot.last_failure.map(|f| f.explanation().to_owned()))
            .unwrap_or_else(|| "sent, and no outcome was reported".to_owned());
        let actions = allowed_commands(snapshot, &actor, at);
        items.push(DeskItem { row: row(item), why, key_validity: key_validity(snapshot, at), actions });
    }
    Ok(ReconcileDesk { items, form_key: form_key() })
}

/// The approval queue: operations waiting for a manager, the longest waiting first, each with its
/// order's other operations and, when this viewer cannot decide on it, why.
pub async fn approvals(user: &SignedIn) -> Result<ApprovalsPage, AppError> {
    let state = expect_context::<AppState>();
    let at = now();
    let waiting = waiting_with_history(user, &[State::PendingApproval], 200).await?;
    let mut subjects: Vec<String> = waiting.iter().map(|(item, _)| item.subject.clone()).collect();
    subjects.sort();
    subjects.dedup();
    let orders = store().subjects_operations(&user.tenant, &subjects).await.map_err(unavailable)?;
    let actor = Actor::human(&user.name, user.role);
    let mut items = Vec::with_capacity(waiting.len());
    for (item, history) in waiting {
        let snapshot = &history.operation.snapshot;
        let approval_expired_at = history
            .audit
            .iter()
            .rev()
            .find(|a| a.entry.action == CommandKind::ExpireApproval.as_str())
            .map(|a| a.entry.at);
        let refusal = machine_check(snapshot, CommandKind::Approve, &actor, at).err().map(|r| r.message);
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

pub async fn bulk_run(user: &SignedIn, id: &str) -> Result<BulkRunView, AppError> {
    let run = store()
        .bulk_run(&user.tenant, id)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| AppError::NotFound(format!("no bulk action {id}")))?;
    let filter: OperationFilter = serde_urlencoded::from_str(&run.filter).unwrap_or_default();
    Ok(BulkRunView {
        id: run.id,
        action: run.action,
        filter_description: filter.describe(),
        filter: run.filter,
        requested_by: run.requested_by,
        created_at: run.created_at,
        finished_at: run.finished_at,
        items: run
            .items
            .into_iter()
            .map(|item| BulkItemView { op_id: item.op_id, outcome: item.outcome, message: item.message })
            .collect(),
    })
}

pub async fn approval_rules(user: &SignedIn) -> Result<Vec<ApprovalRuleView>, AppError> {
    let rules = store().approval_rules(&user.tenant).await.map_err(unavailable)?;
    Ok(rules
        .into_iter()
        .map(|record| ApprovalRuleView {
            summary: rule_sentence(&record.rule),
            id: record.id,
            kind: record.rule.kind,
            provider: record.rule.provider,
            threshold: record.rule.threshold.map(|t| t.to_string()),
            created_by: record.created_by,
            created_at: record.created_at,
        })
        .collect())
}

pub async fn users(user: &SignedIn) -> Result<Vec<UserView>, AppError> {
    let users = store().tenant_users(&user.tenant).await.map_err(unavailable)?;
    Ok(users.into_iter().map(|u| UserView { name: u.name, role: u.role, created_at: u.created_at }).collect())
}

pub async fn add_user(admin: &SignedIn, name: &str, role: &str, password: &str) -> Result<String, AppError> {
    let role =
        Role::parse(role).ok_or_else(|| AppError::Invalid(format!("There is no role named “{role}”.")))?;
    let name = name.trim();
    match add_account(store().as_ref(), &admin.tenant, name, role, password, &admin.name).await {
        Ok(()) => Ok(format!("{name} can now sign in as {}.", role.as_str())),
        Err(AccountError::Store(error)) => Err(unavailable(error)),
        Err(refused) => Err(AppError::Invalid(format!("{}.", capitalise(&refused.to_string())))),
    }
}

pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_read_strictly_with_sentences_for_mistakes() {
        let filter = OperationFilter {
            state: Some("unknown".into()),
            from: Some("2026-11-30T14:05".into()),
            to: Some("2026-12-01".into()),
            q: Some("  ".into()),
            ..OperationFilter::default()
        };
        let query = operation_query(&filter).unwrap();
        assert_eq!(query.state, Some(State::Unknown));
        assert_eq!(query.created_from.unwrap().to_rfc3339(), "2026-11-30T14:05:00+00:00");
        assert_eq!(query.created_before.unwrap().to_rfc3339(), "2026-12-01T00:00:00+00:00");
        assert_eq!(query.search, None, "blank fields are no filter");
        let bad = OperationFilter { state: Some("lost".into()), ..OperationFilter::default() };
        assert_eq!(operation_query(&bad).unwrap_err().to_string(), "There is no state named “lost”.");
        let bad = OperationFilter { from: Some("yesterday".into()), ..OperationFilter::default() };
        assert!(operation_query(&bad).unwrap_err().to_string().contains("is not a time"));
        let bad = OperationFilter { after: Some("xyz".into()), ..OperationFilter::default() };
        assert!(operation_query(&bad).is_err());
    }

    #[test]
    fn ages_fall_into_their_buckets() {
        let ages = [Duration::seconds(10), Duration::minutes(10), Duration::minutes(10), Duration::days(3)];
        let buckets = bucket(&ages, &[(300, "a"), (1800, "b")], "c");
        let counts: Vec<u64> = buckets.iter().map(|b| b.count).collect();
        assert_eq!(counts, [1, 2, 1]);
    }

    #[test]
    fn spans_read_like_people_write_them() {
        assert_eq!(span(Duration::seconds(40)), "40 s");
        assert_eq!(span(Duration::minutes(83)), "1 h 23 min");
        assert_eq!(span(Duration::hours(50)), "2 d 2 h");
        assert_eq!(span(Duration::hours(24)), "1 d");
        assert_eq!(span(Duration::hours(2)), "2 h");
    }
}
