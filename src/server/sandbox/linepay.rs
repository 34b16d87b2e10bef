//! The LINE Pay sandbox: the part of LINE Pay's Online API v3 a refund needs, as LINE Pay's
//! reference describes it (developers-pay.line.me/online-api-v3: `refund`,
//! `retrieve-payment-details`; the request headers in developers-pay.line.me/online/pre-requisites;
//! the return codes in developers.line.biz/en/docs/line-pay/appendix). Not to be confused with
//! [`super::line`], LINE's Messaging API that notifications go to.
//!
//! Every request must carry `X-LINE-ChannelId` (the channel's id, or `1104`),
//! `X-LINE-Authorization-Nonce` and `X-LINE-Authorization`, the Base64 HMAC-SHA256 under the
//! channel secret of the secret, the API path, the body as sent (or the query string of a `GET`)
//! and the nonce (missing or wrong: `1106`, a header information error). Answers are HTTP 200 with
//! a `returnCode` and a `returnMessage`, as LINE Pay's are.
//!
//! `POST /v3/payments/{transactionId}/refund` with `{"refundAmount": N}` (without it, what is left
//! is refunded) answers `0000` with `info.refundTransactionId` and `info.refundTransactionDate`;
//! `1164` for more than is left, `1165` when the payment is already refunded in full, `1150` for a
//! transaction it does not have. `GET /v3/payments?transactionId=…&orderId=…` answers `info[]`, each
//! payment with its `payInfo[]` and `refundList[]` (each refund's `refundAmount` negative, as LINE
//! Pay's recorded answers show it). Transaction ids are 19 digits, above 2^53, and go out as JSON
//! numbers, as LINE Pay sends them.
//!
//! Payments are made through the control API (`POST /_sandbox/payments` with `{"orderId",
//! "amount"}`, answered `201` with the `transactionId` as a string), beside `…/faults` and
//! `…/ledger` (see [`super::control`]), all behind the channel secret as a bearer token. Faults
//! match the payment's `transactionId` or `orderId`: `drop_response` (refund, then no answer for
//! `ms`), `error_500_after` (refund, then HTTP 500), `error_500_before`, `processing_after`
//! (refund, then `1198`), `processing_before` (`1198`, nothing done), `delay`, `rate_limit`, and
//! `lookup_lag` (a refund is left out of `refundList` for `ms` after it was made).

use axum::{
    body::Bytes,
    extract::{Path, Query, RawQuery, State},
    http::{HeaderMap, HeaderValue, StatusCode},
    response::Response,
    routing::{get, post},
    Json, Router,
};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::account::{bearer_is, respond, Account, CreatedObject, Provider, Refusal};
use super::control;
use super::faults::{Fault, FaultKind};
use super::keyed::Answer;
use super::pipeline::AROUND_THE_WORK;
use crate::domain::linepay::signature;

/// How long a dropped answer keeps the caller waiting when the fault sets no `ms`.
const DEFAULT_DROP_MS: u64 = 120_000;

/// The first transaction id the sandbox gives; later ones step by an odd number, so that none is
/// a number a double holds exactly.
const FIRST_TRANSACTION_ID: u64 = 2_026_120_500_698_700_001;
const TRANSACTION_ID_STEP: u64 = 7_919;

/// Where payments and their refunds are read.
const PAYMENTS_PATH: &str = "/v3/payments";

/// How a LINE Pay sandbox channel is set up.
#[derive(Debug, Clone)]
pub struct LinePayConfig {
    pub channel_id: String,
    pub channel_secret: String,
}

#[derive(Debug, Clone)]
struct Refund {
    id: u64,
    /// In whole units of the payment's currency.
    amount: i64,
    /// `PAYMENT_REFUND` for a refund of the whole payment, `PARTIAL_REFUND` otherwise.
    transaction_type: &'static str,
    at: DateTime<Utc>,
}

#[derive(Debug, Clone)]
struct Payment {
    transaction_id: u64,
    order_id: String,
    /// In whole units of `currency`.
    amount: i64,
    currency: String,
    at: DateTime<Utc>,
    refunds: Vec<Refund>,
}

impl Payment {
    fn left(&self) -> i64 {
        self.amount - self.refunds.iter().map(|refund| refund.amount).sum::<i64>()
    }

    /// The payment as `GET /v3/payments` lists it at `now`, leaving out refunds made less than
    /// `lag` ago.
    fn to_json(&self, now: DateTime<Utc>, lag: Duration) -> Value {
        let refunds: Vec<Value> = self
            .refunds
            .iter()
            .filter(|refund| now - refund.at >= lag)
            .map(|refund| {
                json!({
                    "refundTransactionId": refund.id,
                    "transactionType": refund.transaction_type,
                    "refundAmount": -refund.amount,
                    "refundTransactionDate": date(refund.at),
                })
            })
            .collect();
        let mut payment = json!({
            "transactionId": self.transaction_id,
            "transactionDate": date(self.at),
            "transactionType": "PAYMENT",
            "productName": format!("Order {}", self.order_id),
            "currency": self.currency,
            "payInfo": [{"method": "CREDIT_CARD", "amount": self.amount}],
            "orderId": self.order_id,
            "payStatus": "CAPTURE",
        });
        if !refunds.is_empty() {
            payment["refundList"] = Value::Array(refunds);
        }
        payment
    }
}

fn date(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// What only a LINE Pay channel keeps.
#[derive(Debug, Default)]
pub(super) struct LinePayObjects {
    payments: Vec<Payment>,
}

/// A running LINE Pay sandbox channel.
#[derive(Clone)]
pub struct LinePaySandbox {
    config: Arc<LinePayConfig>,
    account: Account<LinePayObjects>,
}

/// LINE Pay's answer: HTTP 200, its `returnCode` and `returnMessage`.
fn answer(code: &str, message: &str) -> Answer {
    (StatusCode::OK, json!({"returnCode": code, "returnMessage": message}))
}

fn no_such_transaction() -> Answer {
    answer("1150", "Transaction record not found.")
}

fn still_processing() -> Answer {
    answer("1198", "Processing the request.")
}

fn server_error() -> Answer {
    (StatusCode::INTERNAL_SERVER_ERROR, json!({"returnCode": "9000", "returnMessage": "Internal error."}))
}

impl LinePaySandbox {
    /// A channel with no payments yet.
    pub fn new(config: LinePayConfig) -> Self {
        Self { account: Account::new([], Duration::zero()), config: Arc::new(config) }
    }

    /// Sets a fault, as `POST /_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.account.inject(fault);
    }

    /// Every refund the channel really made.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.account.created_objects()
    }

    /// A payment of `amount` whole New Taiwan dollars for the order `order_id`, captured now: its
    /// transaction id, as text.
    pub fn pay(&self, order_id: &str, amount: i64) -> String {
        let mut books = self.account.lock();
        let transaction_id = FIRST_TRANSACTION_ID + books.next_number() * TRANSACTION_ID_STEP;
        books.own.payments.push(Payment {
            transaction_id,
            order_id: order_id.to_owned(),
            amount,
            currency: "TWD".into(),
            at: Utc::now(),
            refunds: Vec::new(),
        });
        transaction_id.to_string()
    }

    /// Refunds `amount` of the payment `transaction_id` as a person in LINE Pay's merchant center
    /// would: the refund's id, or LINE Pay's return code when it refuses.
    pub fn refund(&self, transaction_id: &str, amount: i64) -> Result<String, String> {
        let made = make_refund(self, transaction_id, Some(amount), Utc::now());
        let code = made.1.get("returnCode").and_then(Value::as_str).unwrap_or_default().to_owned();
        match made.1.pointer("/info/refundTransactionId").and_then(Value::as_u64) {
            Some(id) if code == "0000" => Ok(id.to_string()),
            _ => Err(code),
        }
    }

    /// The HTTP surface: LINE Pay's refund and payment details, and the control API under
    /// `/_sandbox`.
    pub fn router(&self) -> Router {
        let guarded = Router::new().route("/_sandbox/payments", post(add_payment));
        control::guarded(self, guarded)
            .route(PAYMENTS_PATH, get(payment_details))
            .route("/v3/payments/{transaction_id}/refund", post(refund))
            .with_state(self.clone())
    }

    /// Whether `headers` prove the request to `path` carrying `content` comes from the channel:
    /// `None` when they do, LINE Pay's refusal otherwise.
    fn refusal(&self, headers: &HeaderMap, path: &str, content: &str) -> Option<Answer> {
        let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
        if header("x-line-channelid") != Some(self.config.channel_id.as_str()) {
            return Some(answer("1104", "Merchant not found."));
        }
        let (Some(nonce), Some(given)) =
            (header("x-line-authorization-nonce"), header("x-line-authorization"))
        else {
            return Some(answer("1106", "Header information error."));
        };
        if nonce.is_empty() || given != signature(&self.config.channel_secret, path, content, nonce) {
            return Some(answer("1106", "Header information error."));
        }
        None
    }

    /// The names faults about `transaction_id` match: the id and its payment's order id.
    fn fault_names(&self, transaction_id: &str) -> Vec<String> {
        let order = self
            .account
            .lock()
            .own
            .payments
            .iter()
            .find(|payment| payment.transaction_id.to_string() == transaction_id)
            .map(|payment| payment.order_id.clone());
        std::iter::once(transaction_id.to_owned()).chain(order).collect()
    }
}

impl Provider for LinePaySandbox {
    type Own = LinePayObjects;
    const CONTROL: &'static str = "/_sandbox";
    /// LINE Pay takes no idempotency key: its refunds are not kept or replayed by key.
    const KEY_HEADER: &'static str = "x-no-idempotency-key";
    const OUTCOMES: &'static [FaultKind] =
        &[FaultKind::ProcessingBefore, FaultKind::ProcessingAfter, FaultKind::LookupLag];
    const REPLAYS_5XX: bool = false;

    fn account(&self) -> &Account<LinePayObjects> {
        &self.account
    }

    /// The channel secret as a bearer token (the control API only).
    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.config.channel_secret)
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                json!({"returnCode": "1106", "returnMessage": "Header information error."}),
            ),
            Refusal::KeyInUse => still_processing(),
            Refusal::RateLimited => (
                StatusCode::TOO_MANY_REQUESTS,
                json!({"returnCode": "9000", "returnMessage": "Too many requests."}),
            ),
            Refusal::ServerError => server_error(),
        }
    }

    fn key_reused() -> Option<Answer> {
        None
    }
}

/// `GET /v3/payments?transactionId=…&orderId=…`.
async fn payment_details(
    State(sandbox): State<LinePaySandbox>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Response {
    let query = raw.unwrap_or_default();
    if let Some(refused) = sandbox.refusal(&headers, PAYMENTS_PATH, &query) {
        return respond(refused);
    }
    let asked = |name: &str| -> Vec<String> {
        pairs
            .iter()
            .filter(|(key, _)| key == name)
            .flat_map(|(_, value)| value.split(','))
            .map(str::to_owned)
            .collect()
    };
    let (transactions, orders) = (asked("transactionId"), asked("orderId"));
    if transactions.is_empty() && orders.is_empty() {
        return respond(answer("2101", "Parameter error."));
    }
    let now = Utc::now();
    let payments: Vec<Payment> = sandbox
        .account
        .lock()
        .own
        .payments
        .iter()
        .filter(|payment| {
            transactions.contains(&payment.transaction_id.to_string()) || orders.contains(&payment.order_id)
        })
        .cloned()
        .collect();
    if payments.is_empty() {
        return respond(no_such_transaction());
    }
    let info: Vec<Value> = payments
        .iter()
        .map(|payment| {
            let id = payment.transaction_id.to_string();
            let lag = sandbox.account.lookup_lag_ms(&[id.as_str(), payment.order_id.as_str()]);
            payment.to_json(now, Duration::milliseconds(i64::try_from(lag).unwrap_or(i64::MAX)))
        })
        .collect();
    respond((StatusCode::OK, json!({"returnCode": "0000", "returnMessage": "Success.", "info": info})))
}

/// `POST /v3/payments/{transactionId}/refund`: checked, then done in a task of its own (a refund
/// LINE Pay started is finished whether or not the caller still waits) with the faults set for the
/// payment acting around it.
async fn refund(
    State(sandbox): State<LinePaySandbox>,
    Path(transaction_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = format!("{PAYMENTS_PATH}/{transaction_id}/refund");
    let Ok(text) = std::str::from_utf8(&body) else {
        return respond(answer("2102", "JSON data format error."));
    };
    if let Some(refused) = sandbox.refusal(&headers, &path, text) {
        return respond(refused);
    }
    let amount = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(request)) => match request.get("refundAmount") {
            None => None,
            Some(amount) => match amount.as_i64() {
                Some(amount) => Some(amount),
                None => return respond(answer("1124", "Amount info error (scale).")),
            },
        },
        _ if text.trim().is_empty() => None,
        _ => return respond(answer("2102", "JSON data format error.")),
    };
    let handled = tokio::spawn(with_faults(sandbox, transaction_id, amount));
    handled.await.unwrap_or_else(|_| respond(server_error()))
}

async fn with_faults(sandbox: LinePaySandbox, transaction_id: String, amount: Option<i64>) -> Response {
    let names = sandbox.fault_names(&transaction_id);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let kinds = [&AROUND_THE_WORK[..], &[FaultKind::ProcessingBefore, FaultKind::ProcessingAfter]].concat();
    let fault = sandbox.account.take_fault(&names, &kinds);
    let work = || make_refund(&sandbox, &transaction_id, amount, Utc::now());
    let answered = match fault.as_ref().map(|fault| (fault.fault, fault.ms)) {
        Some((FaultKind::RateLimit, _)) => {
            let mut response = respond(LinePaySandbox::refused(Refusal::RateLimited));
            response.headers_mut().insert("retry-after", HeaderValue::from_static("1"));
            return response;
        }
        Some((FaultKind::Error500Before, _)) => server_error(),
        Some((FaultKind::ProcessingBefore, _)) => still_processing(),
        Some((FaultKind::Error500After, _)) => {
            work();
            server_error()
        }
        Some((FaultKind::ProcessingAfter, _)) => {
            work();
            still_processing()
        }
        Some((FaultKind::Delay, ms)) => {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            work()
        }
        Some((FaultKind::DropResponse, ms)) => {
            let made = work();
            let wait = if ms == 0 { DEFAULT_DROP_MS } else { ms };
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            made
        }
        _ => work(),
    };
    respond(answered)
}

/// Refunds `amount` (what is left, when none) of the payment `transaction_id` at `now`, or answers
/// why not.
fn make_refund(
    sandbox: &LinePaySandbox,
    transaction_id: &str,
    amount: Option<i64>,
    now: DateTime<Utc>,
) -> Answer {
    let mut books = sandbox.account.lock();
    let number = books.next_number();
    let Some(payment) =
        books.own.payments.iter_mut().find(|payment| payment.transaction_id.to_string() == transaction_id)
    else {
        return no_such_transaction();
    };
    let left = payment.left();
    if left <= 0 {
        return answer("1165", "A transaction already been refunded.");
    }
    let amount = amount.unwrap_or(left);
    if amount <= 0 {
        return answer("1124", "Amount info error (scale).");
    }
    if amount > left {
        return answer("1164", "Exceeded refundable amount.");
    }
    let id = FIRST_TRANSACTION_ID + 500_000_000 + number * TRANSACTION_ID_STEP;
    let transaction_type = if amount == payment.amount { "PAYMENT_REFUND" } else { "PARTIAL_REFUND" };
    payment.refunds.push(Refund { id, amount, transaction_type, at: now });
    let (currency, order_id) = (payment.currency.clone(), payment.order_id.clone());
    let metadata = BTreeMap::from([
        ("transactionId".to_owned(), transaction_id.to_owned()),
        ("orderId".to_owned(), order_id),
    ]);
    books.created.push(CreatedObject {
        object_type: "refund".into(),
        id: id.to_string(),
        amount: Some(amount * 100),
        currency: Some(currency),
        idempotency_key: None,
        metadata,
        created_at: now,
    });
    let info = json!({"refundTransactionId": id, "refundTransactionDate": date(now)});
    (StatusCode::OK, json!({"returnCode": "0000", "returnMessage": "Success.", "info": info}))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NewPayment {
    order_id: String,
    amount: i64,
}

/// `POST /_sandbox/payments` with `{"orderId", "amount"}` (whole New Taiwan dollars): a captured
/// payment, answered `201` with its `transactionId` as a string.
async fn add_payment(State(sandbox): State<LinePaySandbox>, Json(payment): Json<NewPayment>) -> Response {
    if payment.amount <= 0 || payment.order_id.is_empty() {
        let problem = "A payment needs an orderId and a positive amount in whole New Taiwan dollars.";
        return respond((StatusCode::BAD_REQUEST, json!({"error": {"message": problem}})));
    }
    let transaction_id = sandbox.pay(&payment.order_id, payment.amount);
    respond((
        StatusCode::CREATED,
        json!({"transactionId": transaction_id, "orderId": payment.order_id, "amount": payment.amount, "currency": "TWD"}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> LinePaySandbox {
        LinePaySandbox::new(LinePayConfig {
            channel_id: "1234567890".into(),
            channel_secret: "secret".into(),
        })
    }

    #[test]
    fn a_payment_is_refunded_up_to_what_was_paid_then_refused() {
        let sandbox = sandbox();
        let transaction = sandbox.pay("order-1", 1_000);
        assert!(transaction.parse::<u64>().unwrap() > 1 << 53, "{transaction}");
        let first = sandbox.refund(&transaction, 380).unwrap();
        assert_ne!(
            first.parse::<u64>().unwrap() as f64 as u64,
            first.parse::<u64>().unwrap(),
            "beyond a double"
        );
        assert_eq!(sandbox.refund(&transaction, 700), Err("1164".into()));
        sandbox.refund(&transaction, 620).unwrap();
        assert_eq!(sandbox.refund(&transaction, 1), Err("1165".into()));
        assert_eq!(sandbox.refund("2026120500000000000", 1), Err("1150".into()));
        assert_eq!(sandbox.created_objects().len(), 2);
    }

    #[test]
    fn a_refund_is_listed_as_a_negative_amount_with_its_id_as_a_number() {
        let sandbox = sandbox();
        let transaction = sandbox.pay("order-2", 1_000);
        let id = sandbox.refund(&transaction, 1_000).unwrap();
        let payment = sandbox.account.lock().own.payments[0].clone();
        let listed = payment.to_json(Utc::now(), Duration::zero());
        let text = listed.to_string();
        assert!(text.contains(&format!("\"refundTransactionId\":{id}")), "{text}");
        assert!(text.contains(&format!("\"transactionId\":{transaction}")), "{text}");
        assert_eq!(listed["refundList"][0]["refundAmount"], -1_000);
        assert_eq!(listed["refundList"][0]["transactionType"], "PAYMENT_REFUND");
        assert!(payment.to_json(Utc::now(), Duration::minutes(1)).get("refundList").is_none(), "lagging");
    }

    #[test]
    fn a_request_is_refused_without_the_channels_signature() {
        let sandbox = sandbox();
        let mut headers = HeaderMap::new();
        let path = "/v3/payments/1/refund";
        let body = r#"{"refundAmount":1}"#;
        assert_eq!(sandbox.refusal(&headers, path, body).unwrap().1["returnCode"], "1104");
        headers.insert("x-line-channelid", HeaderValue::from_static("1234567890"));
        headers.insert("x-line-authorization-nonce", HeaderValue::from_static("nonce-1"));
        headers.insert(
            "x-line-authorization",
            HeaderValue::from_str(&signature("other", path, body, "nonce-1")).unwrap(),
        );
        assert_eq!(sandbox.refusal(&headers, path, body).unwrap().1["returnCode"], "1106");
        headers.insert(
            "x-line-authorization",
            HeaderValue::from_str(&signature("secret", path, body, "nonce-1")).unwrap(),
        );
        assert_eq!(sandbox.refusal(&headers, path, body), None);
        assert!(
            sandbox.refusal(&headers, path, r#"{"refundAmount": 1}"#).is_some(),
            "other bytes, other signature"
        );
    }
}
