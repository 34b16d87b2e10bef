//! The webhook outbox rows a change writes, one per subscribed endpoint: for an operation entering
//! a state, and for its order falling into partial success.

use super::time;
use crate::domain::{ids::TenantId, machine::State, operation::OperationRecord, rollup::OrderTally};
use crate::server::store::query::{shift_params, QueryText, SqlValue};

/// One event for the outbox: what [`outbox_rows`] writes for every endpoint subscribed to it.
pub(in crate::server::store) struct OutboxEvent {
    pub event_type: String,
    pub stream: String,
    pub position: i64,
    pub payload: serde_json::Value,
    pub at_us: i64,
}

const OUTBOX_COLUMNS: &str =
    "insert into webhook_deliveries (tenant, id, endpoint_id, message_id, event_type, stream, \
    position, payload, created_at_us, next_attempt_at_us) ";

/// The outbox rows of `event`, one per endpoint of the tenant subscribed to its type (none when no
/// endpoint is), each to be delivered from now on; `condition` (on `e`, the endpoint, and whatever
/// `join` adds) narrows them further.
fn outbox_rows(
    tenant: &TenantId,
    event: OutboxEvent,
    join: &str,
    condition: (&str, Vec<SqlValue>),
) -> QueryText {
    let message_id =
        crate::domain::webhook::message_id(tenant.as_str(), &event.stream, event.position, &event.event_type);
    let mut text = QueryText::new(OUTBOX_COLUMNS);
    let values = [
        SqlValue::Text(message_id),
        SqlValue::Text(event.event_type.clone()),
        SqlValue::Text(event.stream),
        SqlValue::Int(event.position),
        SqlValue::Text(event.payload.to_string()),
        SqlValue::Int(event.at_us),
        SqlValue::Text(tenant.as_str().to_owned()),
        SqlValue::Text(crate::domain::webhook::subscribed_pattern(&event.event_type)),
        SqlValue::Text(format!(",{},", crate::domain::webhook::ALL_EVENTS)),
    ];
    let p: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
    text.push(&format!(
        "select e.tenant, cast({0} as text) || ':' || e.id, e.id, {0}, {1}, {2}, {3}, {4}, {5}, {5} \
         from webhook_endpoints e {join} where e.tenant = {6} and (e.event_types like {7} or e.event_types = {8})",
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
    ));
    let (sql, values) = condition;
    if !sql.is_empty() {
        let mut shifted = shift_params(sql, text.values.len());
        shifted.insert_str(0, " and ");
        text.push(&shifted);
        text.values.extend(values);
    }
    text.where_ends_here()
}

/// The outbox rows of `operation`'s entering its state from `from` (none for a new one) at `at_us`.
pub(in crate::server::store) fn operation_outbox(
    operation: &OperationRecord,
    from: Option<State>,
    at_us: i64,
) -> Option<QueryText> {
    use crate::domain::webhook::{event_type_of, operation_payload, operation_stream};
    if from == Some(operation.snapshot.state) {
        return None;
    }
    let at = time(at_us).ok()?;
    let event = OutboxEvent {
        event_type: event_type_of(operation.snapshot.state),
        stream: operation_stream(operation),
        position: operation.version,
        payload: operation_payload(operation, from, at),
        at_us,
    };
    Some(outbox_rows(&operation.tenant, event, "", ("", Vec::new())))
}

/// The outbox rows of the order of `operation` falling into partial success with this change,
/// which moved the order's tally by `moved`: written when the tally after the change says partial
/// success and the tally before it (after less the move) did not. `after` names where the tally
/// after the change is read: on PostgreSQL the row [`activity_upsert`] returned in the same
/// statement ([`ORDER_TALLY_AFTER`]), which its row lock ordered after any concurrent change of the
/// same order; on SQLite, whose changes run one at a time, `subject_activity` once it ran.
///
/// [`activity_upsert`]: super::summaries::activity_upsert
/// [`ORDER_TALLY_AFTER`]: super::summaries::ORDER_TALLY_AFTER
pub(in crate::server::store) fn partial_success_outbox(
    operation: &OperationRecord,
    moved: OrderTally,
    at_us: i64,
    after: &str,
) -> Option<QueryText> {
    use crate::domain::webhook::{order_stream, partial_success_payload, ORDER_PARTIAL_SUCCESS};
    let at = time(at_us).ok()?;
    let event = OutboxEvent {
        event_type: ORDER_PARTIAL_SUCCESS.to_owned(),
        stream: order_stream(&operation.subject),
        position: at_us,
        payload: partial_success_payload(
            operation.tenant.as_str(),
            &operation.subject,
            operation.op_id.as_str(),
            at,
        ),
        at_us,
    };
    let partial = |u: &str, s: &str, f: &str, g: &str, d: &str| {
        format!("{u} = 0 and {s} = 0 and {f} > 0 and {g} > {d}")
    };
    let now = partial("a.uncertain", "a.unsent", "a.failed_originals", "a.succeeded_originals", "a.undone");
    let before = partial(
        "a.uncertain - $2",
        "a.unsent - $3",
        "a.failed_originals - $4",
        "a.succeeded_originals - $5",
        "a.undone - $6",
    );
    let condition = format!("a.subject = $1 and {now} and not ({before})");
    let values = vec![
        SqlValue::Text(operation.subject.clone()),
        SqlValue::Int(moved.uncertain),
        SqlValue::Int(moved.unsent),
        SqlValue::Int(moved.failed_originals),
        SqlValue::Int(moved.succeeded_originals),
        SqlValue::Int(moved.undone),
    ];
    let join = format!("join {after} a on a.tenant = e.tenant");
    Some(outbox_rows(&operation.tenant, event, &join, (&condition, values)))
}
