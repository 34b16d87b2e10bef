//! LINE Pay Online API v3, as its reference describes it (developers-pay.line.me/online): the
//! `X-LINE-Authorization` signature (Base64 of HMAC-SHA256 under the channel secret over the
//! secret, the API path, the body or the query string, and the nonce), the return codes a refund
//! is read by, and the parameters a refund must carry: the transaction id as a string (LINE Pay's
//! ids run past 2^53, which a double cannot hold) and a positive whole amount.

use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// `X-LINE-Authorization` for a request to `path` carrying `content` (the exact body bytes of a
/// POST, or the query string without `?` of a GET) under `nonce`.
pub fn signature(channel_secret: &str, path: &str, content: &str, nonce: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(channel_secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(channel_secret.as_bytes());
    mac.update(path.as_bytes());
    mac.update(content.as_bytes());
    mac.update(nonce.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// What a refund's `returnCode` says happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundAnswer {
    /// `0000`: refunded.
    Refunded,
    /// `1165`: the transaction was already refunded in full.
    AlreadyRefunded,
    /// `1198`: LINE Pay is still processing the request: not known yet.
    StillProcessing,
    /// `1164`, `1150`, `1155`, `1163` and the others: refused, nothing moved.
    Refused { code: String },
    /// `1199`, `9000`: LINE Pay's own error; whether it moved money is not known.
    InternalError { code: String },
}

/// Reads a refund's `returnCode`.
pub fn refund_answer(code: &str) -> RefundAnswer {
    match code {
        "0000" => RefundAnswer::Refunded,
        "1165" => RefundAnswer::AlreadyRefunded,
        "1198" => RefundAnswer::StillProcessing,
        "1199" | "9000" => RefundAnswer::InternalError { code: code.to_owned() },
        other => RefundAnswer::Refused { code: other.to_owned() },
    }
}

/// The words of LINE Pay's refund codes (the Online API's appendix).
pub fn code_words(code: &str) -> &'static str {
    match code {
        "1150" => "LINE Pay has no such transaction",
        "1155" => "the transaction cannot be refunded",
        "1163" => "the refund period of the transaction is over",
        "1164" => "the amount is more than is left to refund",
        "1165" => "the transaction was already refunded",
        "1179" => "the transaction cannot be processed now",
        "1198" => "LINE Pay is still processing the request",
        _ => "LINE Pay refused the request",
    }
}

/// A LINE Pay refund's parameters, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundParams {
    /// The payment's `transactionId`, digits kept as text.
    pub transaction_id: String,
    /// In whole units of `currency` (TWD).
    pub amount: i64,
    pub currency: String,
}

/// Reads a LINE Pay refund's parameters (`transaction`, `amount`), or names the field at fault.
pub fn refund_params(params: &Value) -> Result<RefundParams, (&'static str, String)> {
    let transaction_id = match params.get("transaction") {
        Some(Value::String(id)) if (1..=32).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit()) => id.clone(),
        Some(Value::Number(_)) => {
            return Err((
                "transaction",
                "must be the transactionId as a string of digits: LINE Pay's ids are larger than a JSON number holds exactly".into(),
            ))
        }
        _ => return Err(("transaction", "must be the payment's LINE Pay transactionId, digits".into())),
    };
    let money = params.get("amount");
    let currency = money.and_then(|m| m.get("currency")).and_then(Value::as_str).unwrap_or_default();
    let minor = money.and_then(|m| m.get("minor")).and_then(Value::as_i64);
    match (currency, minor) {
        ("TWD", Some(minor)) if minor > 0 && minor % 100 == 0 => {
            Ok(RefundParams { transaction_id, amount: minor / 100, currency: "TWD".into() })
        }
        ("TWD", _) => Err(("amount", "must be a positive whole number of New Taiwan dollars".into())),
        _ => Err(("amount", "must be an amount in TWD".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Computed with Python's hmac and Node's crypto, which agree; LINE Pay publishes no vector.
    #[test]
    fn requests_are_signed_over_secret_path_content_and_nonce() {
        let secret = "a917ab6a2367b536f8e5a6e2977e06f4";
        let nonce = "00000000-0000-0000-0000-000000000000";
        assert_eq!(
            signature(secret, "/v3/payments/2021121300698360310/refund", r#"{"refundAmount":380}"#, nonce),
            "JsDo6bXFL9iA2tLRrhLXk5R6wIBmq8ina459Z7FQ9kI="
        );
        assert_eq!(
            signature(secret, "/v3/payments", "transactionId=2021121300698360310", nonce),
            "CLaFZ+rKS3dt+NmD1RiDllluNH6fXNWCmT217aypFOc="
        );
    }

    #[test]
    fn return_codes_never_make_processing_a_success() {
        assert_eq!(refund_answer("0000"), RefundAnswer::Refunded);
        assert_eq!(refund_answer("1198"), RefundAnswer::StillProcessing);
        assert_eq!(refund_answer("1165"), RefundAnswer::AlreadyRefunded);
        assert_eq!(refund_answer("1164"), RefundAnswer::Refused { code: "1164".into() });
        assert_eq!(refund_answer("9000"), RefundAnswer::InternalError { code: "9000".into() });
    }

    #[test]
    fn a_transaction_id_is_text_because_it_is_larger_than_a_double() {
        let params =
            json!({"transaction": "2021121300698360310", "amount": {"minor": 38_000, "currency": "TWD"}});
        assert_eq!(refund_params(&params).unwrap().transaction_id, "2021121300698360310");
        let number =
            json!({"transaction": 2021121300698360310_u64, "amount": {"minor": 38_000, "currency": "TWD"}});
        assert_eq!(refund_params(&number).unwrap_err().0, "transaction");
        let cents = json!({"transaction": "1", "amount": {"minor": 38_050, "currency": "TWD"}});
        assert_eq!(refund_params(&cents).unwrap_err().0, "amount");
    }
}
