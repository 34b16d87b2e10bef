//! Stripe's webhook events as Stripe sends them: the `Stripe-Signature` header (`t=<unix time>`
//! and one or more `v1=<hex HMAC-SHA256 of "<t>.<payload>" under the endpoint's signing secret>`,
//! several while a secret is being rolled), checked within a tolerance of the signing time so that
//! an old event cannot be replayed; and the few fields of an event opledger reads (its id, its type
//! and the id of the object it is about). The events followed are those about refunds; the
//! refund's status is always read again from Stripe, since events arrive late, twice and out of
//! order.

use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// How far the signing time may lie from now: Stripe's libraries default to 5 minutes.
pub const SIGNATURE_TOLERANCE: Duration = Duration::minutes(5);

/// The event types about a refund: its creation, every change of its status, and its failure.
/// (`charge.refund.updated` is the older name Stripe sends for some payment methods; its object is
/// a refund too.)
pub const REFUND_EVENTS: [&str; 4] =
    ["refund.created", "refund.updated", "refund.failed", "charge.refund.updated"];

/// Why a signature was not accepted; nothing is read from an event that is not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the request has no Stripe-Signature header")]
    Missing,
    #[error("the Stripe-Signature header has no timestamp and v1 signature")]
    Malformed,
    #[error("the event was signed at {signed_at}, more than 5 minutes from now; it is not accepted again")]
    OutsideTolerance { signed_at: DateTime<Utc> },
    #[error("no v1 signature matches the payload under this connection's signing secret")]
    Mismatch,
}

/// The fields of an event opledger reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StripeEvent {
    /// `evt_…`: each is processed once.
    pub id: String,
    /// `refund.updated`, …
    pub event_type: String,
    /// The id of the object in `data.object` (`re_…` for the refund events).
    pub object_id: Option<String>,
}

impl StripeEvent {
    /// Whether opledger follows this type of event.
    pub fn is_about_a_refund(&self) -> bool {
        REFUND_EVENTS.contains(&self.event_type.as_str())
    }
}

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &str, signed_at: i64, payload: &[u8]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(signed_at.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    mac
}

/// The `Stripe-Signature` header Stripe would send with `payload` signed at `signed_at` under
/// `secret` (the sandbox signs its events with it).
pub fn signature_header(payload: &[u8], secret: &str, signed_at: DateTime<Utc>) -> String {
    let t = signed_at.timestamp();
    format!("t={t},v1={}", hex::encode(mac(secret, t, payload).finalize().into_bytes()))
}

/// Checks `header` (the `Stripe-Signature` value, if any) for `payload` under `secret` at `now`:
/// a timestamp within [`SIGNATURE_TOLERANCE`] of now and at least one `v1` signature that
/// matches, compared in constant time.
pub fn verify(
    payload: &[u8],
    header: Option<&str>,
    secret: &str,
    now: DateTime<Utc>,
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Missing)?;
    let mut signed_at = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => signed_at = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.extend(hex::decode(value).ok()),
            _ => {}
        }
    }
    let signed_at = signed_at.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    let at = DateTime::from_timestamp(signed_at, 0).ok_or(SignatureError::Malformed)?;
    if (now - at).abs() > SIGNATURE_TOLERANCE {
        return Err(SignatureError::OutsideTolerance { signed_at: at });
    }
    let matches =
        signatures.iter().any(|signature| mac(secret, signed_at, payload).verify_slice(signature).is_ok());
    if matches {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// The event in `payload`, or why it is not one.
pub fn parse(payload: &[u8]) -> Result<StripeEvent, String> {
    let event: Value = serde_json::from_slice(payload).map_err(|e| format!("the body is not JSON: {e}"))?;
    let text = |pointer: &str| event.pointer(pointer).and_then(Value::as_str).map(str::to_owned);
    if text("/object").as_deref() != Some("event") {
        return Err("the body is not a Stripe event (object is not \"event\")".into());
    }
    Ok(StripeEvent {
        id: text("/id").filter(|id| !id.is_empty()).ok_or("the event has no id")?,
        event_type: text("/type").ok_or("the event has no type")?,
        object_id: text("/data/object/id"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(seconds, 0).unwrap()
    }

    #[test]
    fn a_signature_is_accepted_only_for_its_payload_its_secret_and_within_the_tolerance() {
        let payload = br#"{"id":"evt_1","object":"event","type":"refund.updated"}"#;
        let header = signature_header(payload, "whsec_test", at(1_800_000_000));
        let now = at(1_800_000_100);
        assert_eq!(verify(payload, Some(&header), "whsec_test", now), Ok(()));
        assert_eq!(verify(payload, Some(&header), "whsec_other", now), Err(SignatureError::Mismatch));
        assert_eq!(verify(b"{}", Some(&header), "whsec_test", now), Err(SignatureError::Mismatch));
        assert!(matches!(
            verify(payload, Some(&header), "whsec_test", at(1_800_000_000 + 301)),
            Err(SignatureError::OutsideTolerance { .. })
        ));
        assert_eq!(verify(payload, None, "whsec_test", now), Err(SignatureError::Missing));
        assert_eq!(verify(payload, Some("v1=abc"), "whsec_test", now), Err(SignatureError::Malformed));
        assert_eq!(verify(payload, Some("t=1800000000"), "whsec_test", now), Err(SignatureError::Malformed));
    }

    #[test]
    fn any_one_of_several_v1_signatures_may_match_while_a_secret_is_rolled() {
        let payload = br#"{"id":"evt_2"}"#;
        let new = signature_header(payload, "whsec_new", at(1_800_000_000));
        let old = signature_header(payload, "whsec_old", at(1_800_000_000));
        let old_v1 = old.split_once(",v1=").unwrap().1;
        let both = format!("{new},v1={old_v1},v0=ignored");
        assert_eq!(verify(payload, Some(&both), "whsec_old", at(1_800_000_001)), Ok(()));
        assert_eq!(verify(payload, Some(&both), "whsec_new", at(1_800_000_001)), Ok(()));
    }

    #[test]
    fn an_event_is_read_for_its_id_type_and_object() {
        let event = parse(br#"{"id":"evt_3","object":"event","type":"refund.failed","data":{"object":{"id":"re_9","object":"refund"}}}"#).unwrap();
        assert_eq!(
            event,
            StripeEvent {
                id: "evt_3".into(),
                event_type: "refund.failed".into(),
                object_id: Some("re_9".into())
            }
        );
        assert!(event.is_about_a_refund());
        assert!(parse(br#"{"id":"evt_4","object":"charge"}"#).is_err());
        assert!(parse(b"not json").is_err());
    }
}
