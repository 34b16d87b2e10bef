//! Adyen's webhooks (standard notifications) as Adyen sends them: a JSON body of
//! `notificationItems`, each a `NotificationRequestItem` with its own HMAC signature in
//! `additionalData.hmacSignature`: the base64 HMAC-SHA256, under the hex-decoded HMAC key of the
//! webhook, of `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`.
//! The refund's outcome arrives as `REFUND` (`success` "true" or "false", with a `reason`), and a
//! refund that succeeded may still fail later (`REFUND_FAILED`). Adyen expects `[accepted]` in
//! answer. Each item is one event, identified by its merchant account, pspReference, event code and
//! success.

use base64::{engine::general_purpose::STANDARD as BASE64, Engine};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// What Adyen expects in answer to a notification it may stop sending.
pub const ACCEPTED: &str = "[accepted]";

/// One notification item, as far as opledger reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdyenItem {
    /// `REFUND`, `REFUND_FAILED`, …
    pub event_code: String,
    /// The refund's own pspReference.
    pub psp_reference: String,
    /// The payment's pspReference.
    pub original_reference: String,
    pub merchant_account: String,
    /// The refund's reference: the operation's key.
    pub merchant_reference: String,
    pub value: i64,
    pub currency: String,
    pub success: bool,
    pub reason: String,
    signature: String,
    signed: String,
}

impl AdyenItem {
    /// The event's identity: the same notification sent twice is one event, and one about another
    /// merchant account (which the connection refuses) is not this account's.
    pub fn event_id(&self) -> String {
        format!("{}:{}:{}:{}", self.merchant_account, self.psp_reference, self.event_code, self.success)
    }

    /// Whether its HMAC signature is the one `hmac_key` (hexadecimal) makes, compared in constant
    /// time.
    pub fn verifies(&self, hmac_key: &str) -> bool {
        let Ok(key) = hex::decode(hmac_key.trim()) else { return false };
        let Ok(signature) = BASE64.decode(&self.signature) else { return false };
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&key) else { return false };
        mac.update(self.signed.as_bytes());
        mac.verify_slice(&signature).is_ok()
    }
}

/// The string an item's HMAC signature is made over.
fn signing_string(item: &Value) -> String {
    let text = |name: &str| match item.get(name) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Bool(flag)) => flag.to_string(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let amount = |name: &str| {
        item.get("amount")
            .and_then(|amount| amount.get(name))
            .map_or_else(String::new, |value| value.as_str().map_or_else(|| value.to_string(), str::to_owned))
    };
    [
        text("pspReference"),
        text("originalReference"),
        text("merchantAccountCode"),
        text("merchantReference"),
        amount("value"),
        amount("currency"),
        text("eventCode"),
        text("success"),
    ]
    .join(":")
}

/// The signature of `item` under `hmac_key` (hexadecimal), as Adyen computes it: the sandbox
/// signs its notifications with it.
pub fn sign(item: &Value, hmac_key: &str) -> Result<String, String> {
    let key = hex::decode(hmac_key.trim()).map_err(|_| "the HMAC key is not hexadecimal".to_owned())?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|error| error.to_string())?;
    mac.update(signing_string(item).as_bytes());
    Ok(BASE64.encode(mac.finalize().into_bytes()))
}

/// The items of the notification in `payload`, or why it is not one.
pub fn parse(payload: &[u8]) -> Result<Vec<AdyenItem>, String> {
    let body: Value = serde_json::from_slice(payload).map_err(|e| format!("the body is not JSON: {e}"))?;
    let items = body
        .get("notificationItems")
        .and_then(Value::as_array)
        .ok_or("the body is not an Adyen notification (no notificationItems)")?;
    items
        .iter()
        .map(|wrapped| {
            let item =
                wrapped.get("NotificationRequestItem").ok_or("an item has no NotificationRequestItem")?;
            let text = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
            let amount = item.get("amount");
            Ok(AdyenItem {
                event_code: text("eventCode"),
                psp_reference: text("pspReference"),
                original_reference: text("originalReference"),
                merchant_account: text("merchantAccountCode"),
                merchant_reference: text("merchantReference"),
                value: amount.and_then(|a| a.get("value")).and_then(Value::as_i64).unwrap_or_default(),
                currency: amount
                    .and_then(|a| a.get("currency"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                success: matches!(item.get("success"), Some(Value::String(s)) if s == "true")
                    || item.get("success") == Some(&Value::Bool(true)),
                reason: text("reason"),
                signature: item
                    .pointer("/additionalData/hmacSignature")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                signed: signing_string(item),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";

    fn item() -> Value {
        json!({
            "amount": {"currency": "TWD", "value": 38000},
            "eventCode": "REFUND",
            "merchantAccountCode": "ShopTW",
            "merchantReference": "acme:refund-1043-li_2",
            "originalReference": "8816178914079738",
            "pspReference": "8816178914080001",
            "reason": "",
            "success": "true",
        })
    }

    #[test]
    fn an_item_verifies_under_its_key_and_not_once_changed() {
        let mut signed = item();
        signed["additionalData"] = json!({"hmacSignature": sign(&item(), KEY).unwrap()});
        let body =
            json!({"live": "false", "notificationItems": [{"NotificationRequestItem": signed.clone()}]});
        let items = parse(body.to_string().as_bytes()).unwrap();
        assert!(items[0].verifies(KEY));
        assert!(!items[0].verifies("00"), "another key");
        assert_eq!(items[0].event_id(), "ShopTW:8816178914080001:REFUND:true");
        assert!(items[0].success && items[0].value == 38000);
        signed["amount"]["value"] = json!(99000);
        let changed = json!({"notificationItems": [{"NotificationRequestItem": signed}]});
        assert!(!parse(changed.to_string().as_bytes()).unwrap()[0].verifies(KEY), "a changed amount");
        assert!(parse(b"{}").is_err());
    }
}
