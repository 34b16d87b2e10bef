//! The LINE Pay refunds connector, on LINE Pay's Online API v3 (developers-pay.line.me/online-api-v3:
//! `refund`, `retrieve-payment-details`; the request headers and signature in
//! developers-pay.line.me/online/pre-requisites; the return codes in
//! developers.line.biz/en/docs/line-pay/appendix). A refund is
//! `POST /v3/payments/{transactionId}/refund` with `{"refundAmount": N}` in whole New Taiwan
//! dollars; a payment and its refunds are read with `GET /v3/payments?transactionId=…`, whose
//! `info[].payInfo[]` say what was paid and `info[].refundList[]` every refund made of it. Every
//! request carries `X-LINE-ChannelId`, a fresh `X-LINE-Authorization-Nonce` and
//! `X-LINE-Authorization`, signed over the exact body bytes sent (or the query string of a
//! `GET`). LINE Pay asks for a read timeout of at least 20 seconds.
//!
//! LINE Pay takes no idempotency key, so a refund is sent once: the payment's `refundList` is read
//! just before (the ledger keeps it before anything leaves), and a refund whose answer was lost is
//! found afterwards as the one refund of its amount that list did not hold. `0000` is done;
//! `1198` (still processing), `1199`, `9000`, a 5xx, a timeout or a dropped answer are unknown, never
//! done and never failed; `1165` (already refunded) is read against the list kept before the send:
//! a new refund of the amount there is this one, none means the payment was refunded before this
//! operation; `1164` and the other refusals moved nothing. Ids run past 2^53: they are read from
//! JSON numbers as `u64` or from strings, never through a double, and kept as text. LINE Pay's
//! recorded answers list a `refundAmount` as negative while its formula subtracts it from what was
//! paid: an amount is read as its magnitude.

use async_trait::async_trait;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use super::http::{failed, Answers, Body, Credentials, Endpoint, Request};
use super::{Checked, Connector, Lookup, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::failure::{classify_http_answer, FailureClass};
use crate::domain::gateway::{listed, match_new_refund, Baseline, Matched, SeenRefund};
use crate::domain::linepay::{
    code_words, refund_answer, refund_params, signature, RefundAnswer, RefundParams,
};
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::money::{Currency, Money};
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

/// LINE Pay's reference: "Set the read timeout to at least 20 seconds."
pub const MIN_READ_TIMEOUT: Duration = Duration::from_secs(20);

/// Where payments and their refunds are read.
const PAYMENTS_PATH: &str = "/v3/payments";

/// The reason a `1165` answer is recorded under until the refunds listed after it say whose
/// refund the payment's is.
const ANSWERED_ALREADY_REFUNDED: &str = "LINE Pay answered 1165: the transaction was already refunded";

pub struct LinePayConnector {
    endpoint: Endpoint,
    channel_id: String,
    /// The refunds listed just before each send, by the operation's key, until its send is read.
    listed_before_send: Mutex<HashMap<String, Vec<SeenRefund>>>,
}

/// A LINE Pay payment as `GET /v3/payments` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    /// Σ `payInfo[].amount`, in whole units of `currency`.
    pub paid: i64,
    pub currency: String,
    pub refunds: Vec<SeenRefund>,
}

impl Payment {
    /// What is left to refund, in whole units.
    pub fn left(&self) -> i64 {
        self.paid - self.refunds.iter().map(|refund| refund.amount_minor / 100).sum::<i64>()
    }
}

/// Why a payment could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentUnread {
    /// `1150`: LINE Pay has no such transaction.
    NoSuchTransaction,
    /// LINE Pay could not be asked, or its answer did not read.
    Unavailable(String),
}

impl PaymentUnread {
    fn words(&self, transaction_id: &str) -> String {
        match self {
            PaymentUnread::NoSuchTransaction => {
                format!("{} {transaction_id} (1150)", code_words("1150"))
            }
            PaymentUnread::Unavailable(reason) => reason.clone(),
        }
    }
}

/// A LINE Pay id as text: from a JSON number only when it is a whole number that fits `u64` (a
/// number serde_json had to read as a double is not trusted to its last digit), or from a string
/// of digits.
pub fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::Number(number) => number.as_u64().map(|id| id.to_string()),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Some(text.clone())
        }
        _ => None,
    }
}

/// A whole amount from a JSON number (LINE Pay's amounts carry no fraction in TWD).
fn whole(value: &Value) -> Option<i64> {
    value.as_i64()
}

/// One `refundList[]` entry as a refund seen: its id, its amount (as a magnitude) in minor units,
/// its `transactionType`.
fn seen_refund(entry: &Value) -> Option<SeenRefund> {
    let id = entry.get("refundTransactionId").and_then(id_text)?;
    let amount = entry.get("refundAmount").and_then(whole)?;
    let status = entry.get("transactionType").and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(SeenRefund { id, amount_minor: amount.abs() * 100, status })
}

/// Reads the answer of `GET /v3/payments?transactionId=<transaction_id>`.
pub fn read_payment(answer: &Value, transaction_id: &str) -> Result<Payment, PaymentUnread> {
    let code = answer.get("returnCode").and_then(Value::as_str);
    match code {
        Some("0000") => {}
        Some("1150") => return Err(PaymentUnread::NoSuchTransaction),
        Some(code) => {
            let message = answer.get("returnMessage").and_then(Value::as_str).unwrap_or_default();
            return Err(PaymentUnread::Unavailable(format!(
                "LINE Pay answered {code} to the payment's details ({message})"
            )));
        }
        None => {
            return Err(PaymentUnread::Unavailable("LINE Pay's payment details hold no returnCode".into()));
        }
    }
    let unreadable = |what: &str| PaymentUnread::Unavailable(format!("LINE Pay's payment details {what}"));
    let entries = answer.get("info").and_then(Value::as_array).ok_or_else(|| unreadable("hold no info"))?;
    let Some(entry) = entries
        .iter()
        .find(|entry| entry.get("transactionId").and_then(id_text).as_deref() == Some(transaction_id))
    else {
        return Err(PaymentUnread::NoSuchTransaction);
    };
    let pay_info =
        entry.get("payInfo").and_then(Value::as_array).ok_or_else(|| unreadable("hold no payInfo"))?;
    let paid = pay_info
        .iter()
        .map(|pay| pay.get("amount").and_then(whole))
        .sum::<Option<i64>>()
        .ok_or_else(|| unreadable("hold a payInfo amount that is not a whole number"))?;
    let listed = entry.get("refundList").and_then(Value::as_array).cloned().unwrap_or_default();
    let refunds = listed
        .iter()
        .map(seen_refund)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| unreadable("list a refund without a readable id or amount"))?;
    let currency = entry.get("currency").and_then(Value::as_str).unwrap_or("TWD").to_owned();
    Ok(Payment { paid, currency, refunds })
}

/// How a refund's answer is read: LINE Pay answers HTTP 200 with a `returnCode`; `0000` and the
/// refusals are what the request came to, `1198`, `1199` and `9000` leave it unknown.
struct RefundAnswers;

fn return_code(body: &Value) -> Option<&str> {
    body.get("returnCode").and_then(Value::as_str)
}

impl Answers for RefundAnswers {
    fn classify(&self, status: u16, body: &Value, retry_after_s: Option<u32>) -> Option<FailureClass> {
        if !(200..=299).contains(&status) {
            return classify_http_answer(status, None, retry_after_s);
        }
        let Some(code) = return_code(body) else { return Some(FailureClass::Timeout) };
        match refund_answer(code) {
            RefundAnswer::Refunded | RefundAnswer::AlreadyRefunded | RefundAnswer::Refused { .. } => None,
            RefundAnswer::StillProcessing => Some(FailureClass::Timeout),
            RefundAnswer::InternalError { .. } => Some(FailureClass::ServerError),
        }
    }

    fn outcome(&self, body: &Value) -> AttemptOutcome {
        let code = return_code(body).unwrap_or_default();
        match refund_answer(code) {
            RefundAnswer::Refunded => AttemptOutcome::Succeeded {
                external_id: body.pointer("/info/refundTransactionId").and_then(id_text),
            },
            RefundAnswer::AlreadyRefunded => AttemptOutcome::FailedAtProvider {
                external_id: None,
                reason: ANSWERED_ALREADY_REFUNDED.into(),
            },
            RefundAnswer::Refused { code } => AttemptOutcome::FailedAtProvider {
                external_id: None,
                reason: format!("{} (LINE Pay {code})", code_words(&code)),
            },
            RefundAnswer::StillProcessing | RefundAnswer::InternalError { .. } => {
                AttemptOutcome::Failed { failure: FailureClass::Timeout }
            }
        }
    }

    fn error_words(&self, body: &Value) -> Option<String> {
        let Some(code) = return_code(body) else {
            return Some("LINE Pay's answer holds no returnCode".into());
        };
        let message = body.get("returnMessage").and_then(Value::as_str).unwrap_or_default();
        let words = match code {
            "1199" | "9000" => "LINE Pay's own error: whether it refunded is not known",
            other => code_words(other),
        };
        Some(format!("LINE Pay answered {code}: {words} ({message})"))
    }
}

/// The refund the ledger recorded, or why it cannot be sent as recorded.
fn refund_of(operation: &OperationRecord) -> Result<RefundParams, String> {
    if operation.action.as_deref() != Some("refund") {
        return Err(format!(
            "the LINE Pay connection performs refunds, and {} was not recorded as one",
            operation.op_id
        ));
    }
    refund_params(operation.params.as_value()).map_err(|(field, problem)| format!("params.{field} {problem}"))
}

fn twd() -> Currency {
    Currency::parse("TWD").expect("TWD is a currency")
}

/// `amount` whole New Taiwan dollars, as money.
fn dollars(amount: i64) -> Money {
    Money::new(amount * 100, twd())
}

fn unknown(report: AttemptReport, words: String) -> Sent {
    failed(FailureClass::Timeout, AttemptReport { error: Some(words), ..report })
}

impl LinePayConnector {
    /// A connector to `base_url` (`https://sandbox-api-pay.line.me`, `https://api-pay.line.me`, or
    /// a stand-in's address) for the channel `channel_id` with `channel_secret`, waiting for an
    /// answer `timeout` but never less than [`MIN_READ_TIMEOUT`].
    pub fn new(
        base_url: &str,
        channel_secret: &str,
        channel_id: &str,
        timeout: Duration,
        egress: &EgressPolicy,
    ) -> Self {
        let endpoint = Endpoint::new(
            ProviderKind::LinePay,
            base_url,
            channel_secret,
            timeout.max(MIN_READ_TIMEOUT),
            egress,
        );
        Self { endpoint, channel_id: channel_id.to_owned(), listed_before_send: Mutex::new(HashMap::new()) }
    }

    /// The nonce and signature headers of a request to `path` carrying `content`.
    fn signed(&self, path: &str, content: &str) -> [(&'static str, String); 2] {
        let nonce = uuid::Uuid::new_v4().to_string();
        let signature = signature(self.endpoint.secret(), path, content, &nonce);
        [("X-LINE-Authorization-Nonce", nonce), ("X-LINE-Authorization", signature)]
    }

    /// `GET /v3/payments?transactionId=…`: the payment and its refunds.
    async fn payment(&self, transaction_id: &str) -> Result<Payment, PaymentUnread> {
        let unavailable = PaymentUnread::Unavailable;
        let client = self.endpoint.client().map_err(unavailable)?;
        let query = format!("transactionId={transaction_id}");
        let url = self.endpoint.url(&format!("{PAYMENTS_PATH}?{query}"));
        let call = self.endpoint.call_span("GET", &url, None);
        let mut request = client
            .get(&url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("X-LINE-ChannelId", &self.channel_id);
        for (name, value) in self.signed(PAYMENTS_PATH, &query) {
            request = request.header(name, value);
        }
        let answer = async {
            let response = request.send().await.map_err(|error| format!("the lookup failed: {error}"))?;
            let status = response.status();
            tracing::Span::current().record("http.response.status_code", status.as_u16());
            if !status.is_success() {
                return Err(format!("LINE Pay answered {status} to the payment's details"));
            }
            let text =
                response.text().await.map_err(|error| format!("the lookup's answer was cut: {error}"))?;
            serde_json::from_str::<Value>(&text).map_err(|_| "the lookup's answer is not JSON".to_owned())
        };
        let answer = tracing::Instrument::instrument(answer, call.clone()).await;
        call.record("outcome", if answer.is_ok() { "answered" } else { "failed" });
        read_payment(&answer.map_err(unavailable)?, transaction_id)
    }

    /// After `1165`: the refunds listed now against those listed before the send (`before`), for
    /// the refund of `params`: a new one of its amount is this refund; none means the payment was
    /// refunded before this operation.
    async fn already_refunded(
        &self,
        params: &RefundParams,
        before: Option<Vec<SeenRefund>>,
        report: AttemptReport,
    ) -> Sent {
        let Some(before) = before else {
            let words = format!(
                "{ANSWERED_ALREADY_REFUNDED}, and no list was kept before the send to tell whether the refund is this one"
            );
            return unknown(report, words);
        };
        let payment = match self.payment(&params.transaction_id).await {
            Ok(payment) => payment,
            Err(unread) => {
                let words = format!(
                    "{ANSWERED_ALREADY_REFUNDED}, and its refunds could not be listed again: {}",
                    unread.words(&params.transaction_id)
                );
                return unknown(report, words);
            }
        };
        match match_new_refund(&before, &payment.refunds, params.amount * 100) {
            Matched::One(refund) => {
                let external_id = Some(refund.id);
                Sent {
                    outcome: AttemptOutcome::Succeeded { external_id: external_id.clone() },
                    report: AttemptReport { external_id, error: None, ..report },
                }
            }
            Matched::None => {
                let reason = format!(
                    "{ANSWERED_ALREADY_REFUNDED} before this operation (listed before the send: {}; now: {})",
                    listed(&before, twd()),
                    listed(&payment.refunds, twd())
                );
                Sent {
                    outcome: AttemptOutcome::FailedAtProvider { external_id: None, reason: reason.clone() },
                    report: AttemptReport { error: Some(reason), ..report },
                }
            }
            Matched::Several(new) => {
                let words = format!(
                    "{ANSWERED_ALREADY_REFUNDED}, and {} new refunds of {} are listed since the send: {}",
                    new.len(),
                    dollars(params.amount),
                    listed(&new, twd())
                );
                unknown(report, words)
            }
        }
    }
}

#[async_trait]
impl Connector for LinePayConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::LinePay
    }

    /// Reads the payment: the refund must be in its currency and at most what is left of it.
    async fn check(&self, operation: &OperationRecord) -> Checked {
        let params = match refund_of(operation) {
            Ok(params) => params,
            Err(reason) => return Checked::Invalid { reason },
        };
        let id = &params.transaction_id;
        let payment = match self.payment(id).await {
            Ok(payment) => payment,
            Err(PaymentUnread::NoSuchTransaction) => {
                return Checked::Invalid { reason: PaymentUnread::NoSuchTransaction.words(id) }
            }
            Err(PaymentUnread::Unavailable(reason)) => return Checked::Unavailable { reason },
        };
        if payment.currency != params.currency {
            return Checked::Invalid {
                reason: format!(
                    "the refund is recorded in {} but transaction {id} was paid in {}",
                    params.currency, payment.currency
                ),
            };
        }
        let left = payment.left();
        if params.amount > left {
            return Checked::Invalid {
                reason: format!(
                    "the refund of {} is more than the {} left to refund of transaction {id}",
                    dollars(params.amount),
                    dollars(left.max(0))
                ),
            };
        }
        Checked::Valid { amount: Some(dollars(params.amount)) }
    }

    /// The payment's `refundList`, kept by the ledger before the send and by this connector until
    /// the send's answer is read.
    async fn before_send(&self, operation: &OperationRecord) -> Result<Option<Vec<SeenRefund>>, String> {
        let params = refund_of(operation)?;
        let payment = self
            .payment(&params.transaction_id)
            .await
            .map_err(|unread| unread.words(&params.transaction_id))?;
        self.listed_before_send
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(operation.idempotency_key.clone(), payment.refunds.clone());
        Ok(Some(payment.refunds))
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let before = self
            .listed_before_send
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&operation.idempotency_key);
        let params = match refund_of(operation) {
            Ok(params) => params,
            Err(reason) => {
                return failed(
                    FailureClass::InvalidParams,
                    AttemptReport { error: Some(reason), ..Default::default() },
                )
            }
        };
        let body = json!({"refundAmount": params.amount}).to_string();
        let path = format!("{PAYMENTS_PATH}/{}/refund", params.transaction_id);
        let signed = self.signed(&path, &body);
        let headers: Vec<(&str, &str)> = signed.iter().map(|(name, value)| (*name, value.as_str())).collect();
        let request = Request {
            method: reqwest::Method::POST,
            path: &path,
            key: None,
            body: Some(Body::JsonText(&body)),
        };
        let credentials = Credentials::Header("X-LINE-ChannelId", &self.channel_id);
        let sent = self.endpoint.send(request, credentials, &headers, &RefundAnswers).await;
        match &sent.outcome {
            AttemptOutcome::FailedAtProvider { reason, .. } if reason == ANSWERED_ALREADY_REFUNDED => {
                self.already_refunded(&params, before, sent.report).await
            }
            _ => sent,
        }
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        self.look_up_against(operation, None).await
    }

    /// The payment's `refundList` now against the one kept before the send: the one refund of the
    /// amount it did not hold is this operation's.
    async fn look_up_against(&self, operation: &OperationRecord, baseline: Option<&Baseline>) -> Lookup {
        let Some(baseline) = baseline else {
            return Lookup::NotFound {
                evidence: "no list was kept before a send, so opledger sent nothing to LINE Pay for it"
                    .into(),
            };
        };
        let params = match refund_of(operation) {
            Ok(params) => params,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let id = &params.transaction_id;
        let payment = match self.payment(id).await {
            Ok(payment) => payment,
            Err(unread) => return Lookup::Unavailable { reason: unread.words(id) },
        };
        let amount = dollars(params.amount);
        let lists = format!(
            "listed before the send at {}: {}; listed now: {}",
            baseline.taken_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            listed(&baseline.refunds, twd()),
            listed(&payment.refunds, twd())
        );
        match match_new_refund(&baseline.refunds, &payment.refunds, params.amount * 100) {
            Matched::One(refund) => Lookup::Found {
                evidence: format!(
                    "LINE Pay lists refund {} of {amount} on transaction {id}, which the list kept before the send did not ({lists})",
                    refund.id
                ),
                external_id: refund.id,
                status: ProviderStatus::Succeeded,
            },
            Matched::None => Lookup::NotFound {
                evidence: format!(
                    "LINE Pay lists no refund of {amount} on transaction {id} that the list kept before the send did not ({lists})"
                ),
            },
            Matched::Several(new) => Lookup::Ambiguous {
                evidence: format!(
                    "LINE Pay lists {} refunds of {amount} on transaction {id} that the list kept before the send did not: {} ({lists})",
                    new.len(),
                    listed(&new, twd())
                ),
            },
        }
    }

    /// The refund `external_id` in the payment's `refundList`.
    async fn follow(&self, operation: &OperationRecord, external_id: &str) -> Lookup {
        let params = match refund_of(operation) {
            Ok(params) => params,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let id = &params.transaction_id;
        let payment = match self.payment(id).await {
            Ok(payment) => payment,
            Err(unread) => return Lookup::Unavailable { reason: unread.words(id) },
        };
        match payment.refunds.iter().find(|refund| refund.id == external_id) {
            Some(refund) => Lookup::Found {
                evidence: format!(
                    "LINE Pay lists refund {external_id} of {} on transaction {id} ({})",
                    Money::new(refund.amount_minor, twd()),
                    refund.status
                ),
                external_id: refund.id.clone(),
                status: ProviderStatus::Succeeded,
            },
            None => Lookup::NotFound {
                evidence: format!(
                    "LINE Pay lists no refund {external_id} on transaction {id} (listed: {})",
                    listed(&payment.refunds, twd())
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSACTION: &str = "2021121600698709510";

    /// The payment-details answer of LINE Pay's reference, its ids as the JSON numbers LINE Pay
    /// sends.
    fn details(refund_list: &str) -> Value {
        serde_json::from_str(&format!(
            r#"{{"returnCode":"0000","returnMessage":"Success.","info":[{{"transactionId":2021121600698709510,
            "transactionDate":"2021-12-16T00:27:40Z","transactionType":"PAYMENT","productName":"Demo Product",
            "currency":"TWD","payInfo":[{{"method":"CREDIT_CARD","amount":1000}}],"refundList":{refund_list},
            "orderId":"20211216002","payStatus":"CAPTURE"}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn ids_above_two_to_the_53_are_read_to_the_last_digit() {
        let answer = details(
            r#"[{"refundTransactionId":2021121600698710312,"transactionType":"PARTIAL_REFUND","refundAmount":-20,"refundTransactionDate":"2021-12-16T00:50:15Z"}]"#,
        );
        let payment = read_payment(&answer, TRANSACTION).unwrap();
        assert_eq!(
            payment.refunds[0].id, "2021121600698710312",
            "not 2021121600698710300, as a double reads it"
        );
        assert_eq!(payment.refunds[0].amount_minor, 2_000, "a negative refundAmount is an amount refunded");
        assert_eq!(payment.refunds[0].status, "PARTIAL_REFUND");
        assert_eq!((payment.paid, payment.left()), (1_000, 980));
        assert_eq!(id_text(&json!("2021121600698710312")).as_deref(), Some("2021121600698710312"));
        assert_eq!(id_text(&json!(9_007_199_254_740_993_u64)).as_deref(), Some("9007199254740993"));
        let beyond_u64: Value = serde_json::from_str("20211216006987103120").unwrap();
        assert_eq!(id_text(&beyond_u64), None, "a number read as a double is not trusted");
        assert_eq!(id_text(&json!(2.5)), None);
    }

    #[test]
    fn a_positive_refund_amount_is_read_the_same() {
        let answer = details(
            r#"[{"refundTransactionId":"2021121600698710312","transactionType":"PAYMENT_REFUND","refundAmount":1000}]"#,
        );
        assert_eq!(read_payment(&answer, TRANSACTION).unwrap().left(), 0);
    }

    #[test]
    fn an_unknown_transaction_or_an_unreadable_list_is_said_so() {
        let missing = json!({"returnCode": "1150", "returnMessage": "Transaction record not found."});
        assert_eq!(read_payment(&missing, TRANSACTION), Err(PaymentUnread::NoSuchTransaction));
        assert_eq!(read_payment(&details("[]"), "1"), Err(PaymentUnread::NoSuchTransaction));
        let header = json!({"returnCode": "1106", "returnMessage": "Header information error."});
        assert!(matches!(read_payment(&header, TRANSACTION), Err(PaymentUnread::Unavailable(_))));
        let no_id = details(r#"[{"transactionType":"PARTIAL_REFUND","refundAmount":-20}]"#);
        assert!(matches!(read_payment(&no_id, TRANSACTION), Err(PaymentUnread::Unavailable(_))));
    }

    #[test]
    fn a_refund_answer_is_read_by_its_return_code() {
        let answers = RefundAnswers;
        let success: Value = serde_json::from_str(
            r#"{"returnCode":"0000","returnMessage":"Success.","info":{"refundTransactionId":2021121600698710312,"refundTransactionDate":"2021-12-16T00:50:15Z"}}"#,
        )
        .unwrap();
        assert_eq!(answers.classify(200, &success, None), None);
        assert_eq!(
            answers.outcome(&success),
            AttemptOutcome::Succeeded { external_id: Some("2021121600698710312".into()) }
        );
        let processing = json!({"returnCode": "1198", "returnMessage": "Processing the request"});
        assert_eq!(answers.classify(200, &processing, None), Some(FailureClass::Timeout), "never done");
        assert!(answers.error_words(&processing).unwrap().contains("still processing"));
        for internal in ["1199", "9000"] {
            let answer = json!({"returnCode": internal, "returnMessage": "Internal error"});
            assert_eq!(answers.classify(200, &answer, None), Some(FailureClass::ServerError), "{internal}");
        }
        let exceeded = json!({"returnCode": "1164", "returnMessage": "Exceeded refundable amount."});
        assert_eq!(answers.classify(200, &exceeded, None), None);
        assert_eq!(
            answers.outcome(&exceeded),
            AttemptOutcome::FailedAtProvider {
                external_id: None,
                reason: "the amount is more than is left to refund (LINE Pay 1164)".into()
            }
        );
        let refunded = json!({"returnCode": "1165", "returnMessage": "A transaction already been refunded."});
        assert!(
            matches!(answers.outcome(&refunded), AttemptOutcome::FailedAtProvider { reason, .. } if reason == ANSWERED_ALREADY_REFUNDED)
        );
        assert_eq!(answers.classify(500, &Value::Null, None), Some(FailureClass::ServerError));
        assert_eq!(
            answers.classify(200, &json!({}), None),
            Some(FailureClass::Timeout),
            "no code, not known"
        );
    }
}
