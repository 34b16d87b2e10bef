//! How a change's events land on the rows beside the operation's own: the attempts they start and
//! finish, the external ids they record and the approvals they decide, as statements; and what a
//! read just after that write would find, known from the same values before the write.

use super::operations::{AttemptRow, ExternalRefRow};
use super::{micros, narrow, time};
use crate::domain::{
    failure::FailureClass,
    machine::Event,
    operation::{AttemptReport, ExternalRef, OperationRecord},
};
use crate::server::store::query::{insert_values, QueryText, SqlValue};
use crate::server::store::records::{AttemptsAndRefs, OperationChange};
use crate::server::store::StoreError;

/// What a statement of a change calls the rows its external id's insert wrote (none when it
/// skipped the id): how the statement tells whether it recorded it.
pub(in crate::server::store) const EXTERNAL_ID_RECORDED: &str = "external_id_recorded";

/// The attempt `event` starts, if it does, as its row.
fn started_attempt(
    operation: &OperationRecord,
    change: &OperationChange,
    event: &Event,
) -> Option<AttemptRow> {
    let Event::AttemptStarted { attempt, at: started, .. } = event else { return None };
    Some(AttemptRow {
        number: i64::from(attempt.0),
        idempotency_key: operation.idempotency_key.clone(),
        sent_by: format!("{} ({})", change.actor.name, change.actor.role_label()),
        started_at_us: micros(*started),
        finished_at_us: None,
        outcome: None,
        http_status: None,
        latency_ms: None,
        error: None,
        retry_after_s: None,
        send_budget: change.report.budget.map(|b| i64::from(b.max_sends)),
        deadline_at_us: change.report.budget.map(|b| micros(b.deadline)),
    })
}

/// What `event` writes to the open attempt it finishes, if it finishes one.
struct FinishedAttempt {
    number: u32,
    outcome: String,
    http_status: Option<i64>,
    latency_ms: Option<i64>,
    error: Option<String>,
    retry_after_s: Option<i64>,
}

/// How `event`, reported with `report`, finishes an attempt, if it does.
fn finished_attempt(event: &Event, report: &AttemptReport) -> Option<FinishedAttempt> {
    let (number, outcome, report) = match event {
        Event::AttemptSucceeded { attempt, .. } => (attempt.0, "succeeded", report.clone()),
        Event::AttemptAccepted { attempt, .. } => (attempt.0, "accepted", report.clone()),
        Event::AttemptFailedAtProvider { attempt, reason, .. } => {
            let error = Some(report.error.clone().unwrap_or_else(|| reason.clone()));
            (attempt.0, FailureClass::FailedAtProvider.as_str(), AttemptReport { error, ..report.clone() })
        }
        Event::AttemptFailed { attempt, class } => {
            let mut report = report.clone();
            if let FailureClass::TransientUnavailable { retry_after_s: Some(s) } = class {
                report.retry_after_s.get_or_insert(*s);
            }
            (attempt.0, class.as_str(), report)
        }
        Event::MarkedUnknown { attempt: Some(attempt), reason } => (
            attempt.0,
            "no_report",
            AttemptReport { error: Some(reason.clone()), ..AttemptReport::default() },
        ),
        _ => return None,
    };
    Some(FinishedAttempt {
        number,
        outcome: outcome.to_owned(),
        http_status: report.http_status.map(i64::from),
        latency_ms: report.latency_ms.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)),
        error: report.error,
        retry_after_s: report.retry_after_s.map(i64::from),
    })
}

/// The external id `event`, reported with `report`, records for its operation, if any.
fn recorded_external_id<'a>(event: &'a Event, report: &'a AttemptReport) -> Option<&'a str> {
    match event {
        Event::AttemptSucceeded { external_id, .. }
        | Event::AttemptAccepted { external_id, .. }
        | Event::AttemptFailedAtProvider { external_id, .. } => {
            external_id.as_deref().or(report.external_id.as_deref())
        }
        Event::FoundDownstream { external_id, .. } | Event::MarkedSucceeded { external_id, .. } => {
            Some(external_id)
        }
        _ => None,
    }
}

/// The external id `event` of `change` records for `operation`, if any, as its row.
fn recorded_ref(
    operation: &OperationRecord,
    change: &OperationChange,
    event: &Event,
) -> Option<ExternalRefRow> {
    recorded_external_id(event, &change.report).map(|external_id| ExternalRefRow {
        provider: operation.provider.clone(),
        ref_type: operation.kind.clone(),
        external_id: external_id.to_owned(),
        recorded_at_us: micros(change.at),
    })
}

/// The statements that project `event`, of a change that `change` describes, onto attempts,
/// external references and approvals: none, one or two, on different tables.
pub(in crate::server::store) fn projection(
    operation: &OperationRecord,
    change: &OperationChange,
    event: &Event,
) -> Vec<QueryText> {
    let at = micros(change.at);
    let tenant = || SqlValue::Text(operation.tenant.as_str().to_owned());
    let op_id = || SqlValue::Text(operation.op_id.as_str().to_owned());
    let mut statements = Vec::new();
    if let Some(row) = started_attempt(operation, change, event) {
        statements.push(insert_values(
            "attempts (tenant, op_id, number, idempotency_key, sent_by, started_at_us, send_budget, deadline_at_us)",
            vec![
                tenant(),
                op_id(),
                SqlValue::Int(row.number),
                SqlValue::Text(row.idempotency_key),
                SqlValue::Text(row.sent_by),
                SqlValue::Int(row.started_at_us),
                SqlValue::MaybeInt(row.send_budget),
                SqlValue::MaybeInt(row.deadline_at_us),
            ],
            "",
        ));
    }
    if let Some(finished) = finished_attempt(event, &change.report) {
        let mut text = QueryText::new("update attempts set finished_at_us = ");
        let values = [
            SqlValue::Int(at),
            SqlValue::Text(finished.outcome),
            SqlValue::MaybeInt(finished.http_status),
            SqlValue::MaybeInt(finished.latency_ms),
            SqlValue::MaybeText(finished.error),
            SqlValue::MaybeInt(finished.retry_after_s),
            tenant(),
            op_id(),
            SqlValue::Int(i64::from(finished.number)),
        ];
        let p: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
        text.push(&format!(
            "{}, outcome = {}, http_status = {}, latency_ms = {}, error = {}, retry_after_s = {} \
             where tenant = {} and op_id = {} and number = {} and outcome is null",
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
        ));
        statements.push(text.where_ends_here());
    }
    if let Some(row) = recorded_ref(operation, change, event) {
        statements.push(
            insert_values(
                "external_refs (tenant, op_id, provider, ref_type, external_id, recorded_at_us)",
                vec![
                    tenant(),
                    op_id(),
                    SqlValue::Text(row.provider),
                    SqlValue::Text(row.ref_type),
                    SqlValue::Text(row.external_id),
                    SqlValue::Int(row.recorded_at_us),
                ],
                " on conflict (tenant, provider, external_id) do nothing returning op_id",
            )
            .named(EXTERNAL_ID_RECORDED),
        );
    }
    match event {
        Event::ApprovalGranted { approval, reason } => statements.push(insert_values(
            "approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us, expires_at_us)",
            vec![
                tenant(),
                op_id(),
                SqlValue::Text("approved".into()),
                SqlValue::Text(approval.approver.clone()),
                SqlValue::Text(approval.fingerprint.as_str().to_owned()),
                SqlValue::Text(reason.clone()),
                SqlValue::Int(micros(approval.granted_at)),
                SqlValue::Int(micros(approval.expires_at)),
            ],
            "",
        )),
        Event::ApprovalDenied { by, reason } => statements.push(insert_values(
            "approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us)",
            vec![
                tenant(),
                op_id(),
                SqlValue::Text("denied".into()),
                SqlValue::Text(by.clone()),
                SqlValue::Text(operation.snapshot.fingerprint.as_str().to_owned()),
                SqlValue::Text(reason.clone()),
                SqlValue::Int(at),
            ],
            "",
        )),
        _ => {}
    }
    statements
}

/// What a write answered a change with, known before the write from the same values it binds,
/// but for one thing only the write can tell: whether the external id the change records was
/// written, which the write skips when an operation of the tenant (this one included) already
/// holds it.
pub(in crate::server::store) struct AnswerBeforeWrite {
    known: AttemptsAndRefs,
    external_ref: Option<ExternalRef>,
}

impl AnswerBeforeWrite {
    /// The attempts and external ids once written, given whether the write recorded the change's
    /// external id; `None` when that matters and the write could not tell.
    pub(in crate::server::store) fn given(
        self,
        external_id_recorded: Option<bool>,
    ) -> Option<AttemptsAndRefs> {
        let AnswerBeforeWrite { mut known, external_ref } = self;
        match (external_ref, external_id_recorded) {
            (None, _) | (Some(_), Some(false)) => Some(known),
            (Some(recorded), Some(true)) => {
                let later = |held: &ExternalRef| {
                    (held.recorded_at, held.external_id.as_bytes())
                        > (recorded.recorded_at, recorded.external_id.as_bytes())
                };
                let at = known.external_refs.iter().position(later).unwrap_or(known.external_refs.len());
                known.external_refs.insert(at, recorded);
                Some(known)
            }
            (Some(_), None) => None,
        }
    }
}

/// The attempts and external ids of `operation` once `change` is written, from `before`, those it
/// had when the change was decided: what a read just after the write finds, built from the same
/// values the write binds. `None` when the change records more than one external id, which only a
/// read can tell apart.
pub(in crate::server::store) fn attempts_and_refs_after(
    operation: &OperationRecord,
    change: &OperationChange,
    before: AttemptsAndRefs,
) -> Result<Option<AnswerBeforeWrite>, StoreError> {
    let AttemptsAndRefs { mut attempts, external_refs } = before;
    let mut external_ref = None;
    for event in &change.events {
        if let Some(row) = recorded_ref(operation, change, event) {
            if external_ref.is_some() {
                return Ok(None);
            }
            external_ref = Some(row.into_record()?);
        }
        if let Some(row) = started_attempt(operation, change, event) {
            attempts.push(row.into_record()?);
        }
        if let Some(finished) = finished_attempt(event, &change.report) {
            let open = attempts.iter_mut().find(|a| a.number == finished.number && a.outcome.is_none());
            if let Some(open) = open {
                open.finished_at = Some(time(micros(change.at))?);
                open.outcome = Some(finished.outcome);
                open.http_status = narrow(finished.http_status, "http status")?;
                open.latency_ms = narrow(finished.latency_ms, "latency")?;
                open.error = finished.error;
                open.retry_after_s = narrow(finished.retry_after_s, "retry-after")?;
            }
        }
    }
    Ok(Some(AnswerBeforeWrite { known: AttemptsAndRefs { attempts, external_refs }, external_ref }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::DateTime;

    #[test]
    fn an_answer_takes_the_external_id_only_when_the_write_says_it_recorded_it() {
        let at = |second| DateTime::from_timestamp(second, 0).unwrap();
        let external_ref = |id: &str, second| ExternalRef {
            provider: "stripe".into(),
            ref_type: "refund".into(),
            external_id: id.into(),
            recorded_at: at(second),
        };
        let held = AttemptsAndRefs {
            attempts: Vec::new(),
            external_refs: vec![external_ref("re_a", 10), external_ref("re_c", 20)],
        };
        let answer =
            |recorded: Option<ExternalRef>| AnswerBeforeWrite { known: held.clone(), external_ref: recorded };
        let ids = |answered: Option<AttemptsAndRefs>| -> Option<Vec<String>> {
            answered.map(|a| a.external_refs.into_iter().map(|r| r.external_id).collect())
        };
        assert_eq!(
            ids(answer(Some(external_ref("re_b", 20))).given(Some(true))),
            Some(vec!["re_a".into(), "re_b".into(), "re_c".into()]),
            "in the read's order: time, then id"
        );
        assert_eq!(
            ids(answer(Some(external_ref("re_d", 30))).given(Some(true))),
            Some(vec!["re_a".into(), "re_c".into(), "re_d".into()])
        );
        assert_eq!(
            ids(answer(Some(external_ref("re_d", 30))).given(Some(false))),
            Some(vec!["re_a".into(), "re_c".into()]),
            "skipped: held already"
        );
        assert_eq!(
            ids(answer(Some(external_ref("re_d", 30))).given(None)),
            None,
            "the write could not tell: read it"
        );
        assert_eq!(
            ids(answer(None).given(None)),
            Some(vec!["re_a".into(), "re_c".into()]),
            "nothing to record, nothing to tell"
        );
    }
}
