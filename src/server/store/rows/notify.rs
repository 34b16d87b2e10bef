//! The notification watches a change writes: an operation entering a state that someone waits on
//! (pending approval, needs review, unknown, accepted) starts a watch for every rule of its tenant
//! about that wait, due at the rule's first stage; leaving the state ends them. A provider that
//! refused the tenant's credentials starts one about its connection (once an hour at most).

use super::hour_of;
use crate::domain::{
    failure::FailureClass, machine::State, notification::NotifyEvent, operation::OperationRecord,
};
use crate::server::store::query::{QueryText, SqlValue};

/// The statements that keep `operation`'s watches when it moves from `from` (none for a new one)
/// to its state at `at_us`.
pub(in crate::server::store) fn notify_watch_statements(
    operation: &OperationRecord,
    from: Option<State>,
    at_us: i64,
) -> Vec<QueryText> {
    let to = operation.snapshot.state;
    if from == Some(to) {
        return Vec::new();
    }
    let mut statements = Vec::new();
    if let Some(from) = from.filter(|from| !NotifyEvent::watched_in(*from).is_empty()) {
        let mut text = QueryText::new("delete from notify_watches where tenant = ");
        let tenant = text.param(SqlValue::Text(operation.tenant.as_str().to_owned()));
        let subject = text.param(SqlValue::Text(operation.op_id.as_str().to_owned()));
        let waits_in = text.param(SqlValue::Text(from.as_str().to_owned()));
        text.push(&format!("{tenant} and subject = {subject} and waits_in = {waits_in}"));
        statements.push(text.where_ends_here());
    }
    for event in NotifyEvent::watched_in(to) {
        statements.push(watch_insert(
            operation.tenant.as_str(),
            operation.op_id.as_str(),
            event,
            to.as_str(),
            at_us,
        ));
    }
    if operation.snapshot.last_failure == Some(FailureClass::Forbidden) {
        let subject = format!("connection:{}", operation.provider);
        let event = NotifyEvent::ConnectionFailing;
        statements.push(watch_insert(operation.tenant.as_str(), &subject, event, "", hour_of(at_us)));
    }
    statements
}

/// Starts a watch of `subject` (waiting in `waits_in`, or `""`) since `at_us` for every rule of
/// `tenant` about `event`, due at each rule's first stage; one that watched the subject already
/// starts again.
pub(in crate::server::store) fn watch_insert(
    tenant: &str,
    subject: &str,
    event: NotifyEvent,
    waits_in: &str,
    at_us: i64,
) -> QueryText {
    let mut text = QueryText::new(
        "insert into notify_watches (tenant, rule_id, subject, since_us, waits_in, stage, next_at_us) select ",
    );
    let tenant = text.param(SqlValue::Text(tenant.to_owned()));
    let subject = text.param(SqlValue::Text(subject.to_owned()));
    let at = text.param(SqlValue::Int(at_us));
    let waits_in = text.param(SqlValue::Text(waits_in.to_owned()));
    let event = text.param(SqlValue::Text(event.as_str().to_owned()));
    text.push(&format!(
        "r.tenant, r.id, {subject}, {at}, {waits_in}, 'first', {at} + r.after_s * 1000000 \
         from notify_rules r where r.tenant = {tenant} and r.event = {event}"
    ));
    let mut text = text.where_ends_here();
    text.push(
        " on conflict (tenant, rule_id, subject) do update set since_us = excluded.since_us, \
         waits_in = excluded.waits_in, stage = excluded.stage, next_at_us = excluded.next_at_us",
    );
    text
}
