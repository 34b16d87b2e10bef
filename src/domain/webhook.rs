//! Webhook events in the ledger's terms: the event types a tenant can subscribe to (one per state an
//! operation enters, and an order falling into partial success), how a subscription is written and
//! read, the event's id and payload, and how long a failed delivery waits before its next attempt.
//! Signing and sending are the server's.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::machine::State;
use super::operation::OperationRecord;

/// The event of an order whose operations are all settled, some succeeded and some did not.
pub const ORDER_PARTIAL_SUCCESS: &str = "order.partial_success";

/// How a subscription to every event type is stored.
pub const ALL_EVENTS: &str = "*";

/// How many times a delivery is tried before it is given up (an admin can send it again).
pub const MOST_ATTEMPTS: u32 = 12;

/// The longest wait between two attempts of one delivery.
const LONGEST_WAIT_S: i64 = 3_600;

/// The event type of an operation entering `state`: `operation.unknown`.
pub fn event_type_of(state: State) -> String {
    format!("operation.{}", state.as_str())
}

/// Every event type, in the order the console offers them.
pub fn event_types() -> Vec<String> {
    let mut types: Vec<String> = State::ALL.into_iter().map(event_type_of).collect();
    types.push(ORDER_PARTIAL_SUCCESS.to_owned());
    types
}

/// The event types of `text` (separated by commas or spaces; `*` for all), in the order of
/// [`event_types`], or why not.
pub fn parse_event_types(text: &str) -> Result<Vec<String>, String> {
    let known = event_types();
    let mut chosen: Vec<String> = Vec::new();
    for word in text.split([',', ' ', '\n']).map(str::trim).filter(|word| !word.is_empty()) {
        if word == ALL_EVENTS {
            return Ok(vec![ALL_EVENTS.to_owned()]);
        }
        if !known.iter().any(|known| known == word) {
            return Err(format!(
                "{word:?} is not an event type; the types are {} (or * for all)",
                known.join(", ")
            ));
        }
        if !chosen.iter().any(|seen| seen == word) {
            chosen.push(word.to_owned());
        }
    }
    if chosen.is_empty() {
        return Err("Choose at least one event type (or * for all).".into());
    }
    chosen.sort_by_key(|chosen| known.iter().position(|known| known == chosen));
    Ok(chosen)
}

/// A subscription as the store keeps it: every type between commas, so that one `like` finds it.
pub fn stored_event_types(types: &[String]) -> String {
    format!(",{},", types.join(","))
}

/// A stored subscription read back.
pub fn read_event_types(stored: &str) -> Vec<String> {
    stored.split(',').filter(|word| !word.is_empty()).map(str::to_owned).collect()
}

/// The `like` pattern that finds the subscriptions to `event_type`.
pub fn subscribed_pattern(event_type: &str) -> String {
    format!("%,{event_type},%")
}

/// The event's id (`webhook-id`): the same for every attempt and every endpoint, so that a receiver
/// can tell a repeated delivery; derived from where it happened in the tenant's history.
pub fn message_id(tenant: &str, stream: &str, position: i64, event_type: &str) -> String {
    let digest = Sha256::digest(format!("{tenant}\n{stream}\n{position}\n{event_type}"));
    format!("msg_{}", &hex::encode(digest)[..32])
}

/// The stream an operation's events are delivered in order within.
pub fn operation_stream(operation: &OperationRecord) -> String {
    format!("op:{}", operation.op_id)
}

/// The stream an order's events are delivered in order within.
pub fn order_stream(subject: &str) -> String {
    format!("order:{subject}")
}

fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The payload of the event of `operation` entering its state from `from` (none when it was just
/// recorded), at `at`.
pub fn operation_payload(operation: &OperationRecord, from: Option<State>, at: DateTime<Utc>) -> Value {
    let amount = operation.params.money("amount");
    json!({
        "type": event_type_of(operation.snapshot.state),
        "timestamp": timestamp(at),
        "data": {
            "tenant": operation.tenant.as_str(),
            "op_id": operation.op_id.as_str(),
            "kind": operation.kind,
            "subject": operation.subject,
            "provider": operation.provider,
            "state": operation.snapshot.state.as_str(),
            "previous_state": from.map(State::as_str),
            "version": operation.version,
            "amount_minor": amount.map(|money| money.minor),
            "currency": amount.map(|money| money.currency.as_str().to_owned()),
            "compensates": operation.compensates.as_ref().map(|op_id| op_id.as_str()),
            "idempotency_key": operation.idempotency_key,
        }
    })
}

/// The payload of the event of the order `subject` falling into partial success when `caused_by`
/// settled, at `at`.
pub fn partial_success_payload(tenant: &str, subject: &str, caused_by: &str, at: DateTime<Utc>) -> Value {
    json!({
        "type": ORDER_PARTIAL_SUCCESS,
        "timestamp": timestamp(at),
        "data": { "tenant": tenant, "subject": subject, "caused_by": caused_by }
    })
}

/// How long a delivery waits after its `attempts`-th failed attempt: `first_wait_s` doubled per
/// attempt after the first, at most an hour; `None` when it has had [`MOST_ATTEMPTS`].
pub fn wait_after_failure(first_wait_s: i64, attempts: u32) -> Option<chrono::Duration> {
    if attempts >= MOST_ATTEMPTS {
        return None;
    }
    let doubled = first_wait_s.max(1).saturating_mul(1_i64 << attempts.saturating_sub(1).min(20));
    Some(chrono::Duration::seconds(doubled.min(LONGEST_WAIT_S)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_types_are_checked_and_kept_between_commas() {
        let chosen = parse_event_types("operation.unknown, operation.succeeded operation.unknown").unwrap();
        assert_eq!(chosen, ["operation.succeeded", "operation.unknown"], "in the states' order, once each");
        let stored = stored_event_types(&chosen);
        assert_eq!(stored, ",operation.succeeded,operation.unknown,");
        assert_eq!(read_event_types(&stored), chosen);
        assert_eq!(parse_event_types("*,operation.unknown").unwrap(), ["*"]);
        let refused = parse_event_types("operation.unknwon").unwrap_err();
        assert!(
            refused.contains("operation.needs_review") && refused.contains("order.partial_success"),
            "{refused}"
        );
        assert!(parse_event_types(" , ").is_err());
        assert!(event_types().contains(&"operation.pending_approval".to_owned()));
    }

    #[test]
    fn a_message_id_names_one_event_of_one_tenant() {
        let id = message_id("acme", "op:refund-1", 3, "operation.unknown");
        assert!(id.starts_with("msg_") && id.len() == 36);
        assert_eq!(id, message_id("acme", "op:refund-1", 3, "operation.unknown"));
        assert_ne!(id, message_id("globex", "op:refund-1", 3, "operation.unknown"));
        assert_ne!(id, message_id("acme", "op:refund-1", 4, "operation.unknown"));
    }

    #[test]
    fn waits_double_up_to_an_hour_then_the_delivery_is_given_up() {
        let waits: Vec<i64> =
            (1..MOST_ATTEMPTS).map(|n| wait_after_failure(5, n).unwrap().num_seconds()).collect();
        assert_eq!(&waits[..5], &[5, 10, 20, 40, 80]);
        assert!(waits.windows(2).all(|pair| pair[0] <= pair[1]));
        assert_eq!(*waits.last().unwrap(), 3_600);
        assert_eq!(wait_after_failure(5, MOST_ATTEMPTS), None);
    }
}
