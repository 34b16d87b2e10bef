//! ECPay (綠界) AIO credit card, as its public reference describes it: the CheckMacValue that signs
//! every form it takes and every notification it sends (SHA-256 over the parameters sorted by
//! name, between `HashKey` and `HashIV`, URL-encoded the way .NET does it and lower-cased;
//! developers.ecpay.com.tw/?p=2902), the parameters a refund must carry to be sent and looked up
//! (`MerchantTradeNo`, `TradeNo`, `gwsr`, whole New Taiwan dollars, installment orders in full
//! only), and the payment notification that saves those ids (`ReturnURL`, `NeedExtraPaidInfo=Y`).

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

use super::gateway::SavedPayment;

/// ECPay's CheckMacValue of `params` (every parameter sent but `CheckMacValue`, values as sent):
/// sorted by name without regard to case, joined `k=v` with `&` between `HashKey=<key>&` and
/// `&HashIV=<iv>`, encoded as PHP's `urlencode` (space as `+`, `~` as `%7E`), lower-cased, with
/// `%2d %5f %2e %21 %2a %28 %29` turned back into `- _ . ! * ( )`; SHA-256, upper-case hex.
pub fn check_mac_value<K: AsRef<str>, V: AsRef<str>>(
    params: &[(K, V)],
    hash_key: &str,
    hash_iv: &str,
) -> String {
    let mut sorted: Vec<(&str, &str)> = params
        .iter()
        .map(|(name, value)| (name.as_ref(), value.as_ref()))
        .filter(|(name, _)| *name != "CheckMacValue")
        .collect();
    sorted.sort_by(|(a, _), (b, _)| a.to_ascii_lowercase().cmp(&b.to_ascii_lowercase()).then(a.cmp(b)));
    let joined = sorted.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join("&");
    let raw = format!("HashKey={hash_key}&{joined}&HashIV={hash_iv}");
    let encoded = dotnet_url_encode(&raw).to_lowercase();
    let digest = Sha256::digest(encoded.as_bytes());
    hex::encode_upper(digest)
}

/// PHP's `urlencode` of `text` followed by ECPay's .NET undo: letters, digits and `-_.!*()` kept,
/// space as `+`, every other byte of the UTF-8 as `%XX`.
fn dotnet_url_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len() * 3);
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'*' | b'(' | b')' => {
                encoded.push(byte as char)
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// Whether `given` is the CheckMacValue of `params` under the key and IV (compared without regard
/// to case, as ECPay's own SDKs do).
pub fn signed_by(params: &[(String, String)], given: &str, hash_key: &str, hash_iv: &str) -> bool {
    check_mac_value(params, hash_key, hash_iv).eq_ignore_ascii_case(given.trim())
}

/// A connection's secret: `HashKey:HashIV:CreditCheckCode`, as the vendor console shows them
/// (系統開發管理 › 系統介接設定, and the card acquiring check code).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub hash_key: String,
    pub hash_iv: String,
    pub credit_check_code: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(…)")
    }
}

impl Credentials {
    /// Reads `HashKey:HashIV:CreditCheckCode`, or says what is wrong with it.
    pub fn parse(secret: &str) -> Result<Credentials, String> {
        let parts: Vec<&str> = secret.trim().split(':').collect();
        let [hash_key, hash_iv, code] = parts.as_slice() else {
            return Err(
                "an ECPay secret is HashKey:HashIV:CreditCheckCode, the three values of the vendor console"
                    .into(),
            );
        };
        let plain = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric());
        if !plain(hash_key) || !plain(hash_iv) || !code.chars().all(|c| c.is_ascii_digit()) || code.is_empty()
        {
            return Err("HashKey and HashIV are letters and digits, CreditCheckCode digits".into());
        }
        Ok(Credentials {
            hash_key: (*hash_key).to_owned(),
            hash_iv: (*hash_iv).to_owned(),
            credit_check_code: (*code).to_owned(),
        })
    }
}

/// Whether `text` is one of ECPay's references: letters and digits, at most 20 (MerchantTradeNo,
/// TradeNo) or 64 characters.
fn reference(text: &str, longest: usize) -> bool {
    (1..=longest).contains(&text.len()) && text.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A refund's parameters, read: what DoAction and QueryTrade/V2 are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundParams {
    pub merchant_trade_no: String,
    pub trade_no: String,
    pub gwsr: String,
    /// Whole New Taiwan dollars.
    pub amount: i64,
    pub paid: i64,
    pub full_refund_only: bool,
}

/// Reads an ECPay refund's parameters (`payment`, `trade_no`, `gwsr`, `amount`, `paid`,
/// `full_refund_only`), or names the field at fault and what it must be: a refund that could never
/// be sent is refused before it is recorded.
pub fn refund_params(params: &Value) -> Result<RefundParams, (&'static str, String)> {
    let text = |field: &'static str, longest: usize, what: &str| {
        params
            .get(field)
            .and_then(Value::as_str)
            .filter(|value| reference(value, longest))
            .map(str::to_owned)
            .ok_or((field, what.to_owned()))
    };
    let merchant_trade_no =
        text("payment", 20, "must be the payment's MerchantTradeNo: 1 to 20 letters and digits")?;
    let trade_no =
        text("trade_no", 20, "must be ECPay's TradeNo of the payment, as its payment notification gave it")?;
    let gwsr = text(
        "gwsr",
        64,
        "is missing: ECPay's refunds are looked up by the payment's gwsr, which its payment notification carries when the order was made with NeedExtraPaidInfo=Y; save it with the payment (`opledger provider payment-add`) before refunding",
    )?;
    let dollars = |field: &'static str| -> Result<i64, (&'static str, String)> {
        let money = params.get(field);
        let currency = money.and_then(|m| m.get("currency")).and_then(Value::as_str);
        let minor = money.and_then(|m| m.get("minor")).and_then(Value::as_i64);
        match (currency, minor) {
            (Some("TWD"), Some(minor)) if minor > 0 && minor % 100 == 0 => Ok(minor / 100),
            (Some("TWD"), Some(_)) => {
                Err((field, "must be a positive whole number of New Taiwan dollars".into()))
            }
            _ => {
                Err((field, "must be an amount in TWD, the only currency ECPay's card payments take".into()))
            }
        }
    };
    let amount = dollars("amount")?;
    let paid = dollars("paid")?;
    let full_refund_only = params.get("full_refund_only").and_then(Value::as_bool).unwrap_or(false);
    if amount > paid {
        return Err(("amount", format!("NT${amount} is more than the NT${paid} the payment was for")));
    }
    if full_refund_only && amount != paid {
        return Err((
            "amount",
            format!("an installment or bonus-redemption order is refunded in full only (NT${paid}), never in part"),
        ));
    }
    Ok(RefundParams { merchant_trade_no, trade_no, gwsr, amount, paid, full_refund_only })
}

/// The refund parameters of a line item of a payment whose ids were saved: what a tool records.
pub fn refund_value(saved: &SavedPayment, amount_minor: i64, order: &str, line_item: &str) -> Value {
    serde_json::json!({
        "payment": saved.payment,
        "trade_no": saved.ids.get("TradeNo"),
        "gwsr": saved.ids.get("gwsr"),
        "amount": {"minor": amount_minor, "currency": saved.currency},
        "paid": {"minor": saved.paid_minor, "currency": saved.currency},
        "full_refund_only": saved.full_refund_only,
        "order": order,
        "line_item": line_item,
        "reason": "requested_by_customer",
    })
}

/// Reads ECPay's payment notification (its form posted to `ReturnURL`): the CheckMacValue must
/// be the form's under the key and IV, the payment must have succeeded (`RtnCode=1`) by card, and
/// the ids saved are `TradeNo` and `gwsr` (sent with `NeedExtraPaidInfo=Y`). Installments
/// (`stage` above 0) and bonus redemption (`red_dan` above 0) make it a full-refund-only order.
pub fn payment_notice(
    form: &[(String, String)],
    hash_key: &str,
    hash_iv: &str,
) -> Result<SavedPayment, String> {
    let fields: BTreeMap<&str, &str> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let given = fields.get("CheckMacValue").ok_or("it carries no CheckMacValue")?;
    if !signed_by(form, given, hash_key, hash_iv) {
        return Err("its CheckMacValue does not match the connection's HashKey and HashIV".into());
    }
    let field = |name: &str| fields.get(name).copied().filter(|value| !value.is_empty());
    if field("RtnCode") != Some("1") {
        return Err(format!(
            "it reports a payment that did not succeed (RtnCode {})",
            field("RtnCode").unwrap_or("missing")
        ));
    }
    let payment =
        field("MerchantTradeNo").filter(|no| reference(no, 20)).ok_or("it names no MerchantTradeNo")?;
    let trade_no = field("TradeNo").filter(|no| reference(no, 20)).ok_or("it names no TradeNo")?;
    let paid: i64 = field("TradeAmt")
        .and_then(|amount| amount.parse().ok())
        .filter(|amount| *amount > 0)
        .ok_or("it names no TradeAmt")?;
    let mut ids = BTreeMap::from([("TradeNo".to_owned(), trade_no.to_owned())]);
    if let Some(gwsr) = field("gwsr").filter(|gwsr| reference(gwsr, 64)) {
        ids.insert("gwsr".into(), gwsr.to_owned());
    }
    let above_zero = |name: &str| field(name).and_then(|v| v.parse::<i64>().ok()).is_some_and(|n| n > 0);
    Ok(SavedPayment {
        payment: payment.to_owned(),
        ids,
        paid_minor: paid * 100,
        currency: "TWD".into(),
        full_refund_only: above_zero("stage") || above_zero("red_dan"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    /// developers.ecpay.com.tw/?p=2902, the AioCheckOut example.
    #[test]
    fn the_published_aio_checkout_example_signs_as_ecpay_says() {
        let params = pairs(&[
            ("TradeDesc", "促銷方案"),
            ("PaymentType", "aio"),
            ("MerchantTradeDate", "2023/03/12 15:30:23"),
            ("MerchantTradeNo", "ecpay20230312153023"),
            ("MerchantID", "3002607"),
            ("ReturnURL", "https://www.ecpay.com.tw/receive.php"),
            ("ItemName", "Apple iphone 15"),
            ("TotalAmount", "30000"),
            ("ChoosePayment", "ALL"),
            ("EncryptType", "1"),
        ]);
        assert_eq!(
            check_mac_value(&params, "pwFHCqoQZGmho4w6", "EkRm7iFT261dpevs"),
            "6C51C9E6888DE861FD62FB1DD17029FC742634498FD813DC43D4243B5685B840"
        );
    }

    /// ECPay/ECPay-API-Skill test-vectors/checkmacvalue.json: the baseline order, and a space
    /// written `+`.
    #[test]
    fn the_vendor_vectors_for_an_order_and_for_spaces_sign_as_published() {
        let order = pairs(&[
            ("MerchantID", "3002607"),
            ("MerchantTradeNo", "Test1234567890"),
            ("MerchantTradeDate", "2025/01/01 12:00:00"),
            ("PaymentType", "aio"),
            ("TotalAmount", "100"),
            ("TradeDesc", "測試"),
            ("ItemName", "測試商品"),
            ("ReturnURL", "https://example.com/notify"),
            ("ChoosePayment", "ALL"),
            ("EncryptType", "1"),
        ]);
        assert_eq!(
            check_mac_value(&order, "pwFHCqoQZGmho4w6", "EkRm7iFT261dpevs"),
            "291CBA324D31FB5A4BBBFDF2CFE5D32598524753AFD4959C3BF590C5B2F57FB2"
        );
        let spaces =
            pairs(&[("MerchantID", "3002607"), ("ItemName", "My Test Product"), ("TotalAmount", "300")]);
        assert_eq!(
            check_mac_value(&spaces, "pwFHCqoQZGmho4w6", "EkRm7iFT261dpevs"),
            "7712A5E6EDC3B57086063C88568084C66CE882A21D40E74DE5ACA3B478C6F316"
        );
    }

    /// ECPay/ECPay-API-Skill test-vectors/checkmacvalue.json: `~` is `%7e`, `'` is `%27`.
    #[test]
    fn the_vendor_vectors_for_tilde_and_apostrophe_sign_as_published() {
        let key = ("pwFHCqoQZGmho4w6", "EkRm7iFT261dpevs");
        let tilde = pairs(&[("MerchantID", "3002607"), ("ItemName", "Test~Product"), ("TotalAmount", "200")]);
        assert_eq!(
            check_mac_value(&tilde, key.0, key.1),
            "CEEAE01D2F9A8E74D4AC0DCE7735B046D73F35A5EC99558A31A2EE03159DA1C9"
        );
        let apostrophe =
            pairs(&[("MerchantID", "3002607"), ("ItemName", "Tom's Shop"), ("TotalAmount", "100")]);
        assert_eq!(
            check_mac_value(&apostrophe, key.0, key.1),
            "CF0A3D4901D99459D8641516EC57210700E8A5C9AB26B1D021301E9CB93EF78D"
        );
    }

    #[test]
    fn a_refund_of_nt380_signs_as_python_and_the_official_node_client_agree() {
        let params = pairs(&[
            ("MerchantID", "3002607"),
            ("MerchantTradeNo", "TW1043A"),
            ("TradeNo", "2601011200000001"),
            ("Action", "R"),
            ("TotalAmount", "380"),
        ]);
        assert_eq!(
            check_mac_value(&params, "pwFHCqoQZGmho4w6", "EkRm7iFT261dpevs"),
            "7939B8C322B71A3A70E2445AC787530489E75299EB30B809D5E63C7DFB4B42AF"
        );
    }

    fn refund(amount: i64, paid: i64, full_only: bool) -> Value {
        json!({
            "payment": "TW1043A", "trade_no": "2601011200000001", "gwsr": "11943361",
            "amount": {"minor": amount, "currency": "TWD"}, "paid": {"minor": paid, "currency": "TWD"},
            "full_refund_only": full_only,
        })
    }

    #[test]
    fn a_refund_that_could_never_be_sent_is_named_by_its_field() {
        assert!(refund_params(&refund(38_000, 120_000, false)).is_ok());
        assert_eq!(refund_params(&refund(38_000, 120_000, true)).unwrap_err().0, "amount");
        assert!(refund_params(&refund(120_000, 120_000, true)).is_ok(), "in full it may be");
        assert_eq!(refund_params(&refund(130_000, 120_000, false)).unwrap_err().0, "amount");
        assert_eq!(refund_params(&refund(38_050, 120_000, false)).unwrap_err().0, "amount");
        let mut no_gwsr = refund(38_000, 120_000, false);
        no_gwsr.as_object_mut().unwrap().remove("gwsr");
        let (field, problem) = refund_params(&no_gwsr).unwrap_err();
        assert_eq!(field, "gwsr");
        assert!(problem.contains("NeedExtraPaidInfo=Y"), "{problem}");
    }

    #[test]
    fn a_payment_notice_is_read_only_under_a_matching_check_mac_value() {
        let (key, iv) = ("pwFHCqoQZGmho4w6", "EkRm7iFT261dpevs");
        let mut form = pairs(&[
            ("MerchantID", "3002607"),
            ("MerchantTradeNo", "TW1043A"),
            ("RtnCode", "1"),
            ("RtnMsg", "交易成功"),
            ("TradeNo", "2601011200000001"),
            ("TradeAmt", "1200"),
            ("PaymentType", "Credit_CreditCard"),
            ("gwsr", "11943361"),
            ("stage", "0"),
            ("red_dan", "0"),
        ]);
        let mac = check_mac_value(&form, key, iv);
        form.push(("CheckMacValue".into(), mac));
        let saved = payment_notice(&form, key, iv).unwrap();
        assert_eq!(saved.ids.get("gwsr").map(String::as_str), Some("11943361"));
        assert_eq!((saved.paid_minor, saved.full_refund_only), (120_000, false));
        let last = form.len() - 1;
        form[last].1 = "0".repeat(64);
        assert!(payment_notice(&form, key, iv).unwrap_err().contains("does not match"));
    }

    #[test]
    fn a_secret_is_the_three_values_of_the_vendor_console() {
        let credentials = Credentials::parse("pwFHCqoQZGmho4w6:EkRm7iFT261dpevs:59997889").unwrap();
        assert_eq!(credentials.credit_check_code, "59997889");
        assert!(Credentials::parse("pwFHCqoQZGmho4w6").is_err());
        assert!(!format!("{credentials:?}").contains("pwFH"), "never shown");
    }
}
