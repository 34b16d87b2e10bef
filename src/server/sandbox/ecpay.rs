//! The ECPay (綠界) AIO credit card sandbox: the part of ECPay's API a refund needs, as ECPay's
//! reference describes it (developers.ecpay.com.tw ?p=9242 DoAction, ?p=16589 QueryTrade/V2,
//! ?p=2890 QueryTradeInfo/V5, ?p=2902 CheckMacValue, and the payment notification ECPay posts to an
//! order's `ReturnURL`, with `NeedExtraPaidInfo=Y`'s fields). Every request is a form signed with
//! CheckMacValue under the account's HashKey and HashIV, checked as ECPay checks it; no request
//! carries a key.
//!
//! - `POST /CreditDetail/DoAction` (`MerchantID, MerchantTradeNo, TradeNo, Action, TotalAmount`,
//!   optional `PlatformID`) answers the unsigned URL-encoded form
//!   `MerchantID&MerchantTradeNo&TradeNo&RtnCode&RtnMsg`, with the verb the payment's state allows:
//!   `C` closes an authorised payment (已授權 → 要關帳); `N` abandons an authorised payment's whole
//!   amount; `E` cancels a close not yet done (要關帳 → 已授權); `R` refunds a payment to close (in
//!   part: a whole one there is `更新失敗.(error_amount_R)`) or closed. Refunds add up to at most
//!   the payment; an installment or bonus-redemption order is refunded in full only; an unknown
//!   order is `RtnCode=0&RtnMsg=訂單不存在`.
//! - `POST /CreditDetail/QueryTrade/V2` (`MerchantID, CreditRefundId` = gwsr, `CreditAmount,
//!   CreditCheckCode`) answers `{RtnMsg, RtnValue: {TradeID, amount, clsamt, authtime, status,
//!   close_data: [{status, amount, sno, datetime}]}}`, `RtnValue: null` when it finds nothing. Its
//!   `close_data` lists the payment's refunds: an `R` as 要關帳 until the nightly close makes it
//!   已關帳; an abandoned authorisation (`N`) as one row of the whole amount, 已關帳 at once, since
//!   nothing is left to close (the reference shows no row for it; this is the stand-in's reading).
//! - `POST /Cashier/QueryTradeInfo/V5` (`MerchantID, MerchantTradeNo, TimeStamp` within 3 minutes)
//!   answers the signed, not URL-encoded form `TradeNo, TradeAmt, PaymentType, TradeStatus, …`
//!   (`TradeStatus=10200047` for an order it does not know).
//!
//! Its control API (see [`super::control`]), with the HashKey as a bearer token:
//! `POST /_sandbox/payments` pays an order (`merchant_trade_no`, `amount`, `state`: `authorised`,
//! `to_close` or `closed`, `installments`, `red_dan`; with `return_url`, ECPay's signed payment
//! notification, with `NeedExtraPaidInfo=Y`'s `gwsr`, `stage` and `red_dan`, is posted there),
//! and `POST /_sandbox/nightly_close` runs the daily automatic close (authorised and to-close
//! payments, and refunds to close, become 已關帳). Faults are matched on `MerchantTradeNo`:
//! DoAction takes `drop_response` (done, answer never sent), `error_500_after` (done, then 500),
//! `error_500_before` (500, nothing done), `rate_limit` (HTTP 403, ECPay's answer to calls too
//! fast, nothing done) and `delay`; QueryTrade/V2 takes `lookup_lag` (refunds hidden for `ms` after
//! they were made).

use axum::{
    extract::State,
    http::{header::CONTENT_TYPE, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
    Form, Json, Router,
};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::account::{bearer_is, respond, Account, CreatedObject, Provider, Refusal};
use super::control;
use super::faults::{Fault, FaultKind};
use super::keyed::Answer;
use super::pipeline::AROUND_THE_WORK;
use crate::domain::ecpay::{check_mac_value, signed_by};
use crate::domain::gateway::taipei;

/// How long a dropped answer keeps the caller waiting when the fault sets no `ms`.
const DEFAULT_DROP_MS: u64 = 120_000;

/// How far a QueryTradeInfo/V5 `TimeStamp` may be from now.
const TIMESTAMP_WINDOW_S: i64 = 180;

/// How an ECPay sandbox account is set up: the merchant and its console's three values.
#[derive(Debug, Clone)]
pub struct EcpayConfig {
    pub merchant_id: String,
    pub hash_key: String,
    pub hash_iv: String,
    pub credit_check_code: String,
}

impl EcpayConfig {
    /// ECPay's public stage merchant 3002607 (developers.ecpay.com.tw/?p=16447) with a
    /// CreditCheckCode of its own.
    pub fn stage() -> Self {
        Self {
            merchant_id: "3002607".into(),
            hash_key: "pwFHCqoQZGmho4w6".into(),
            hash_iv: "EkRm7iFT261dpevs".into(),
            credit_check_code: "59997889".into(),
        }
    }

    /// The secret an opledger connection to this account holds: `HashKey:HashIV:CreditCheckCode`.
    pub fn secret(&self) -> String {
        format!("{}:{}:{}", self.hash_key, self.hash_iv, self.credit_check_code)
    }
}

/// Where a payment stands at ECPay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TradeState {
    /// 已授權: authorised, not yet to be closed.
    Authorised,
    /// 要關帳: closes at the nightly close.
    ToClose,
    /// 已關帳: closed; the money went to the bank.
    Closed,
    /// 已取消: its authorisation was abandoned.
    Cancelled,
}

impl TradeState {
    fn words(self) -> &'static str {
        match self {
            TradeState::Authorised => "已授權",
            TradeState::ToClose => "要關帳",
            TradeState::Closed => "已關帳",
            TradeState::Cancelled => "已取消",
        }
    }
}

/// One close_data row: a refund of the payment.
#[derive(Debug, Clone)]
struct CloseRow {
    sno: String,
    amount: i64,
    closed: bool,
    at: DateTime<Utc>,
}

/// One card payment.
#[derive(Debug, Clone)]
struct Trade {
    merchant_trade_no: String,
    trade_no: String,
    gwsr: String,
    amount: i64,
    state: TradeState,
    installments: u32,
    red_dan: i64,
    paid_at: DateTime<Utc>,
    refunds: Vec<CloseRow>,
}

impl Trade {
    fn refunded(&self) -> i64 {
        self.refunds.iter().map(|row| row.amount).sum()
    }

    fn full_refund_only(&self) -> bool {
        self.installments > 0 || self.red_dan > 0
    }
}

/// What only an ECPay account keeps.
#[derive(Debug, Default)]
pub(super) struct EcpayObjects {
    trades: Vec<Trade>,
    /// The path of every API call, in order.
    calls: Vec<String>,
}

/// A running ECPay sandbox account.
#[derive(Clone)]
pub struct EcpaySandbox {
    config: Arc<EcpayConfig>,
    account: Account<EcpayObjects>,
}

/// ECPay's time, as its forms write it: `2026/12/05 20:15:00` in Taiwan.
fn ecpay_time(at: DateTime<Utc>) -> String {
    at.with_timezone(&taipei()).format("%Y/%m/%d %H:%M:%S").to_string()
}

/// A form's field.
fn field<'a>(form: &'a [(String, String)], name: &str) -> Option<&'a str> {
    form.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

fn pairs(list: &[(&str, String)]) -> Vec<(String, String)> {
    list.iter().map(|(name, value)| ((*name).to_owned(), value.clone())).collect()
}

fn text(status: StatusCode, body: String) -> Response {
    (status, [(CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

impl EcpaySandbox {
    pub fn new(config: EcpayConfig) -> Self {
        Self { config: Arc::new(config), account: Account::new(Vec::new(), Duration::zero()) }
    }

    /// Sets a fault, as `POST /_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.account.inject(fault);
    }

    /// Every refund the account really made.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.account.created_objects()
    }

    /// The path of every API call the account was sent, in order.
    pub fn calls(&self) -> Vec<String> {
        self.account.lock().own.calls.clone()
    }

    /// The HTTP surface: DoAction, QueryTrade/V2 and QueryTradeInfo/V5, and the control API under
    /// `/_sandbox`.
    pub fn router(&self) -> Router {
        let guarded = Router::new()
            .route("/_sandbox/payments", post(pay))
            .route("/_sandbox/nightly_close", post(nightly_close));
        control::guarded(self, guarded)
            .route("/CreditDetail/DoAction", post(do_action))
            .route("/CreditDetail/QueryTrade/V2", post(query_trade))
            .route("/Cashier/QueryTradeInfo/V5", post(query_trade_info))
            .with_state(self.clone())
    }

    /// Pays an order: a card payment of `amount` in `state`; what ECPay's payment notification for
    /// it says.
    pub fn pay(&self, order: &NewPayment) -> Vec<(String, String)> {
        let mut books = self.account.lock();
        let number = books.next_number();
        let trade = Trade {
            merchant_trade_no: order.merchant_trade_no.clone(),
            trade_no: format!("{}", 2_612_051_200_000_000_u64 + number),
            gwsr: format!("{}", 11_943_360 + number),
            amount: order.amount,
            state: order.state,
            installments: order.installments,
            red_dan: order.red_dan,
            paid_at: Utc::now(),
            refunds: Vec::new(),
        };
        let notice = self.payment_notice(&trade);
        books.own.trades.retain(|kept| kept.merchant_trade_no != trade.merchant_trade_no);
        books.own.trades.push(trade);
        notice
    }

    /// ECPay's payment notification for `trade`, signed: what it posts to the order's `ReturnURL`,
    /// with the fields `NeedExtraPaidInfo=Y` adds.
    fn payment_notice(&self, trade: &Trade) -> Vec<(String, String)> {
        let paid = ecpay_time(trade.paid_at);
        let stage = trade.installments;
        let form = pairs(&[
            ("MerchantID", self.config.merchant_id.clone()),
            ("MerchantTradeNo", trade.merchant_trade_no.clone()),
            ("StoreID", String::new()),
            ("RtnCode", "1".into()),
            ("RtnMsg", "交易成功".into()),
            ("TradeNo", trade.trade_no.clone()),
            ("TradeAmt", trade.amount.to_string()),
            ("PaymentDate", paid.clone()),
            ("PaymentType", "Credit_CreditCard".into()),
            ("PaymentTypeChargeFee", "0".into()),
            ("TradeDate", paid.clone()),
            ("SimulatePaid", "0".into()),
            ("CustomField1", String::new()),
            ("CustomField2", String::new()),
            ("CustomField3", String::new()),
            ("CustomField4", String::new()),
            ("gwsr", trade.gwsr.clone()),
            ("process_date", paid),
            ("auth_code", "777777".into()),
            ("amount", trade.amount.to_string()),
            ("stage", stage.to_string()),
            ("stast", if stage > 0 { (trade.amount / i64::from(stage)).to_string() } else { "0".into() }),
            ("staed", if stage > 0 { (trade.amount / i64::from(stage)).to_string() } else { "0".into() }),
            ("eci", "0".into()),
            ("card4no", "2222".into()),
            ("card6no", "431195".into()),
            ("red_dan", trade.red_dan.to_string()),
            ("red_de_amt", trade.red_dan.to_string()),
            ("red_ok_amt", trade.red_dan.to_string()),
            ("red_yet", "0".into()),
        ]);
        self.signed(form)
    }

    fn signed(&self, mut form: Vec<(String, String)>) -> Vec<(String, String)> {
        let mac = check_mac_value(&form, &self.config.hash_key, &self.config.hash_iv);
        form.push(("CheckMacValue".into(), mac));
        form
    }

    /// Whether `form` comes from this merchant, signed as ECPay checks it.
    fn genuine(&self, form: &[(String, String)]) -> Result<(), &'static str> {
        let mac = field(form, "CheckMacValue").unwrap_or_default();
        if !signed_by(form, mac, &self.config.hash_key, &self.config.hash_iv) {
            return Err("CheckMacValue Error");
        }
        if field(form, "MerchantID") != Some(self.config.merchant_id.as_str()) {
            return Err("MerchantID Error");
        }
        Ok(())
    }

    /// The daily automatic close: authorised and to-close payments, and refunds to close, are
    /// closed. How many payments it touched.
    pub fn nightly_close(&self) -> usize {
        let mut books = self.account.lock();
        let mut touched = 0;
        for trade in &mut books.own.trades {
            let open_refunds = trade.refunds.iter().any(|row| !row.closed);
            if matches!(trade.state, TradeState::Authorised | TradeState::ToClose) || open_refunds {
                touched += 1;
            }
            if matches!(trade.state, TradeState::Authorised | TradeState::ToClose) {
                trade.state = TradeState::Closed;
            }
            for row in &mut trade.refunds {
                row.closed = true;
            }
        }
        touched
    }

    fn note_call(&self, path: &str) {
        self.account.lock().own.calls.push(path.to_owned());
    }

    /// Does what a DoAction form asks, when the payment's state allows it: `RtnCode` and `RtnMsg`.
    fn act(&self, form: &[(String, String)], now: DateTime<Utc>) -> (&'static str, &'static str) {
        if let Err(refusal) = self.genuine(form) {
            return ("0", refusal);
        }
        let mut books = self.account.lock();
        let sno = 2_500_000 + books.next_number();
        let merchant_trade_no = field(form, "MerchantTradeNo").unwrap_or_default();
        let trade_no = field(form, "TradeNo").unwrap_or_default();
        let Some(trade) = books
            .own
            .trades
            .iter_mut()
            .find(|trade| trade.merchant_trade_no == merchant_trade_no && trade.trade_no == trade_no)
        else {
            return ("0", "訂單不存在");
        };
        let Some(amount) =
            field(form, "TotalAmount").and_then(|text| text.parse::<i64>().ok()).filter(|n| *n > 0)
        else {
            return ("0", "TotalAmount Error");
        };
        let whole = amount == trade.amount;
        let refund = match (field(form, "Action").unwrap_or_default(), trade.state) {
            ("C", TradeState::Authorised) if amount <= trade.amount => {
                trade.state = TradeState::ToClose;
                None
            }
            ("E", TradeState::ToClose) if whole && trade.refunds.is_empty() => {
                trade.state = TradeState::Authorised;
                None
            }
            ("N", TradeState::Authorised) if whole => {
                trade.state = TradeState::Cancelled;
                Some(CloseRow { sno: sno.to_string(), amount, closed: true, at: now })
            }
            ("R", TradeState::ToClose | TradeState::Closed) => {
                if trade.full_refund_only() && !whole {
                    return ("0", "更新失敗.(error_installment_R)");
                }
                if trade.state == TradeState::ToClose && whole {
                    return ("0", "更新失敗.(error_amount_R)");
                }
                if trade.refunded() + amount > trade.amount {
                    return ("0", "更新失敗.(error_amount_R)");
                }
                Some(CloseRow { sno: sno.to_string(), amount, closed: false, at: now })
            }
            ("C" | "E" | "N" | "R", _) => return ("0", "更新失敗.(error_status)"),
            _ => return ("0", "Action Error"),
        };
        if let Some(row) = refund {
            let object = CreatedObject {
                object_type: "refund".into(),
                id: row.sno.clone(),
                amount: Some(row.amount * 100),
                currency: Some("TWD".into()),
                idempotency_key: None,
                metadata: BTreeMap::from([
                    ("MerchantTradeNo".to_owned(), trade.merchant_trade_no.clone()),
                    ("Action".to_owned(), field(form, "Action").unwrap_or_default().to_owned()),
                ]),
                created_at: now,
            };
            trade.refunds.push(row);
            books.created.push(object);
        }
        ("1", "成功")
    }

    /// The answer to a DoAction form: its ids with `RtnCode` and `RtnMsg`, URL-encoded, unsigned.
    fn action_answer(&self, form: &[(String, String)], (code, message): (&str, &str)) -> String {
        let answer = [
            ("MerchantID", field(form, "MerchantID").unwrap_or_default()),
            ("MerchantTradeNo", field(form, "MerchantTradeNo").unwrap_or_default()),
            ("TradeNo", field(form, "TradeNo").unwrap_or_default()),
            ("RtnCode", code),
            ("RtnMsg", message),
        ];
        serde_urlencoded::to_string(answer).unwrap_or_default()
    }

    /// QueryTrade/V2's answer to `form` at `now`.
    fn trade_listing(&self, form: &[(String, String)], now: DateTime<Utc>) -> Value {
        let nothing = |message: &str| json!({"RtnMsg": message, "RtnValue": null});
        if let Err(refusal) = self.genuine(form) {
            return nothing(refusal);
        }
        if field(form, "CreditCheckCode") != Some(self.config.credit_check_code.as_str()) {
            return nothing("error");
        }
        let gwsr = field(form, "CreditRefundId").unwrap_or_default();
        let amount = field(form, "CreditAmount").and_then(|text| text.parse::<i64>().ok());
        let trade = {
            let books = self.account.lock();
            books.own.trades.iter().find(|trade| trade.gwsr == gwsr && Some(trade.amount) == amount).cloned()
        };
        let Some(trade) = trade else { return nothing("error") };
        let lag = Duration::milliseconds(
            i64::try_from(self.account.lookup_lag_ms(&[trade.merchant_trade_no.as_str()]))
                .unwrap_or(i64::MAX),
        );
        let rows: Vec<Value> = trade
            .refunds
            .iter()
            .filter(|row| row.at + lag <= now)
            .map(|row| {
                json!({
                    "status": if row.closed { "已關帳" } else { "要關帳" },
                    "amount": row.amount,
                    "sno": row.sno,
                    "datetime": ecpay_time(row.at),
                })
            })
            .collect();
        let closed = if trade.state == TradeState::Closed { trade.amount } else { 0 };
        json!({"RtnMsg": "", "RtnValue": {
            "TradeID": trade.gwsr,
            "amount": trade.amount,
            "clsamt": closed,
            "authtime": ecpay_time(trade.paid_at),
            "status": trade.state.words(),
            "close_data": rows,
        }})
    }

    /// QueryTradeInfo/V5's answer to `form` at `now`: the signed form, written raw.
    fn trade_info(&self, form: &[(String, String)], now: DateTime<Utc>) -> Result<String, &'static str> {
        self.genuine(form)?;
        let stamp =
            field(form, "TimeStamp").and_then(|text| text.parse::<i64>().ok()).ok_or("TimeStamp Error")?;
        if (stamp - now.timestamp()).abs() > TIMESTAMP_WINDOW_S {
            return Err("TimeStamp Error");
        }
        let merchant_trade_no = field(form, "MerchantTradeNo").unwrap_or_default();
        let trade =
            self.account.lock().own.trades.iter().find(|t| t.merchant_trade_no == merchant_trade_no).cloned();
        let (trade_no, amount, paid, status) = match &trade {
            Some(trade) => (trade.trade_no.clone(), trade.amount.to_string(), ecpay_time(trade.paid_at), "1"),
            None => (String::new(), "0".to_owned(), String::new(), "10200047"),
        };
        let answer = self.signed(pairs(&[
            ("MerchantID", self.config.merchant_id.clone()),
            ("MerchantTradeNo", merchant_trade_no.to_owned()),
            ("StoreID", String::new()),
            ("TradeNo", trade_no),
            ("TradeAmt", amount),
            ("PaymentDate", paid.clone()),
            ("PaymentType", if trade.is_some() { "Credit_CreditCard".into() } else { String::new() }),
            ("HandlingCharge", "0".into()),
            ("PaymentTypeChargeFee", "0".into()),
            ("TradeDate", paid),
            ("TradeStatus", status.into()),
            ("ItemName", String::new()),
            ("CustomField1", String::new()),
            ("CustomField2", String::new()),
            ("CustomField3", String::new()),
            ("CustomField4", String::new()),
        ]));
        Ok(answer.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join("&"))
    }
}

impl Provider for EcpaySandbox {
    type Own = EcpayObjects;
    const CONTROL: &'static str = "/_sandbox";
    /// ECPay takes no idempotency key: no request carries one.
    const KEY_HEADER: &'static str = "";
    const OUTCOMES: &'static [FaultKind] = &[FaultKind::LookupLag];
    const REPLAYS_5XX: bool = false;

    fn account(&self) -> &Account<EcpayObjects> {
        &self.account
    }

    /// The control API takes the HashKey as a bearer token; ECPay's own routes are signed instead.
    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.config.hash_key)
    }

    fn refused(refusal: Refusal) -> Answer {
        let (status, message) = match refusal {
            Refusal::Unauthorized => (StatusCode::UNAUTHORIZED, "The HashKey is needed as a bearer token."),
            Refusal::KeyInUse => (StatusCode::CONFLICT, "ECPay takes no key."),
            Refusal::RateLimited => (StatusCode::FORBIDDEN, "Forbidden"),
            Refusal::ServerError => (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error"),
        };
        (status, json!({"error": {"message": message}}))
    }

    fn key_reused() -> Option<Answer> {
        None
    }
}

/// `POST /CreditDetail/DoAction`, with the faults set for its `MerchantTradeNo` acting around the
/// work; the work runs to its end whether or not the caller still waits.
async fn do_action(State(sandbox): State<EcpaySandbox>, Form(form): Form<Vec<(String, String)>>) -> Response {
    sandbox.note_call("/CreditDetail/DoAction");
    let handled = tokio::spawn(async move {
        let merchant_trade_no = field(&form, "MerchantTradeNo").unwrap_or_default().to_owned();
        let fault = sandbox.account.take_fault(&[merchant_trade_no.as_str()], &AROUND_THE_WORK);
        let kind = fault.as_ref().map(|fault| (fault.fault, fault.ms));
        match kind {
            Some((FaultKind::RateLimit, _)) => return text(StatusCode::FORBIDDEN, "Forbidden".into()),
            Some((FaultKind::Error500Before, _)) => {
                return text(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error".into())
            }
            Some((FaultKind::Delay, ms)) => tokio::time::sleep(std::time::Duration::from_millis(ms)).await,
            _ => {}
        }
        let done = sandbox.act(&form, Utc::now());
        let answer = sandbox.action_answer(&form, done);
        match kind {
            Some((FaultKind::Error500After, _)) => {
                text(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error".into())
            }
            Some((FaultKind::DropResponse, ms)) => {
                let ms = if ms == 0 { DEFAULT_DROP_MS } else { ms };
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                text(StatusCode::OK, answer)
            }
            _ => text(StatusCode::OK, answer),
        }
    });
    handled.await.unwrap_or_else(|_| text(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error".into()))
}

/// `POST /CreditDetail/QueryTrade/V2`.
async fn query_trade(
    State(sandbox): State<EcpaySandbox>,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    sandbox.note_call("/CreditDetail/QueryTrade/V2");
    (StatusCode::OK, Json(sandbox.trade_listing(&form, Utc::now()))).into_response()
}

/// `POST /Cashier/QueryTradeInfo/V5`.
async fn query_trade_info(
    State(sandbox): State<EcpaySandbox>,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    sandbox.note_call("/Cashier/QueryTradeInfo/V5");
    match sandbox.trade_info(&form, Utc::now()) {
        Ok(answer) => text(StatusCode::OK, answer),
        Err(refusal) => text(StatusCode::OK, refusal.to_owned()),
    }
}

/// A payment the control API makes.
#[derive(Debug, Clone, Deserialize)]
pub struct NewPayment {
    pub merchant_trade_no: String,
    /// Whole New Taiwan dollars.
    pub amount: i64,
    pub state: TradeState,
    #[serde(default)]
    pub installments: u32,
    /// Bonus points redeemed (紅利折抵), in dollars.
    #[serde(default)]
    pub red_dan: i64,
    /// Where ECPay's payment notification is posted, when given.
    #[serde(default)]
    pub return_url: Option<String>,
}

/// `POST /_sandbox/payments`.
async fn pay(State(sandbox): State<EcpaySandbox>, Json(order): Json<NewPayment>) -> Response {
    let reference_ok = (1..=20).contains(&order.merchant_trade_no.len())
        && order.merchant_trade_no.chars().all(|c| c.is_ascii_alphanumeric());
    if !reference_ok || order.amount <= 0 {
        let problem =
            "A payment needs a merchant_trade_no of 1 to 20 letters and digits and a positive amount.";
        return respond((StatusCode::BAD_REQUEST, json!({"error": {"message": problem}})));
    }
    let notice = sandbox.pay(&order);
    let notified = match &order.return_url {
        Some(url) => Some(post_notice(url, &notice).await),
        None => None,
    };
    let value = |name: &str| field(&notice, name).unwrap_or_default().to_owned();
    respond((
        StatusCode::CREATED,
        json!({
            "MerchantTradeNo": value("MerchantTradeNo"), "TradeNo": value("TradeNo"), "gwsr": value("gwsr"),
            "amount": order.amount, "notified": notified,
        }),
    ))
}

/// Posts ECPay's payment notification to `url`: the answer's status and body, or why it failed.
async fn post_notice(url: &str, notice: &[(String, String)]) -> Value {
    let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(10)).build();
    let sent = match client {
        Ok(client) => client.post(url).form(notice).send().await,
        Err(error) => return json!({"error": error.to_string()}),
    };
    match sent {
        Ok(response) => {
            let status = response.status().as_u16();
            json!({"status": status, "body": response.text().await.unwrap_or_default()})
        }
        Err(error) => json!({"error": error.to_string()}),
    }
}

/// `POST /_sandbox/nightly_close`.
async fn nightly_close(State(sandbox): State<EcpaySandbox>) -> Response {
    respond((StatusCode::OK, json!({"closed": sandbox.nightly_close()})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox_with(state: TradeState, installments: u32) -> (EcpaySandbox, Vec<(String, String)>) {
        let sandbox = EcpaySandbox::new(EcpayConfig::stage());
        let payment = NewPayment {
            merchant_trade_no: "TW1043A".into(),
            amount: 1200,
            state,
            installments,
            red_dan: 0,
            return_url: None,
        };
        let notice = sandbox.pay(&payment);
        (sandbox, notice)
    }

    fn action(
        sandbox: &EcpaySandbox,
        notice: &[(String, String)],
        verb: &str,
        amount: i64,
    ) -> (&'static str, &'static str) {
        let form = sandbox.signed(pairs(&[
            ("MerchantID", "3002607".into()),
            ("MerchantTradeNo", "TW1043A".into()),
            ("TradeNo", field(notice, "TradeNo").unwrap().to_owned()),
            ("Action", verb.into()),
            ("TotalAmount", amount.to_string()),
            ("PlatformID", String::new()),
        ]));
        sandbox.act(&form, Utc::now())
    }

    #[test]
    fn the_verbs_follow_the_payments_state_as_ecpay_documents() {
        let (sandbox, notice) = sandbox_with(TradeState::Authorised, 0);
        assert_eq!(action(&sandbox, &notice, "R", 380), ("0", "更新失敗.(error_status)"), "not closed yet");
        assert_eq!(
            action(&sandbox, &notice, "N", 380),
            ("0", "更新失敗.(error_status)"),
            "N is the whole amount"
        );
        assert_eq!(action(&sandbox, &notice, "N", 1200), ("1", "成功"));
        assert_eq!(sandbox.created_objects().len(), 1);

        let (sandbox, notice) = sandbox_with(TradeState::ToClose, 0);
        assert_eq!(
            action(&sandbox, &notice, "R", 1200),
            ("0", "更新失敗.(error_amount_R)"),
            "a whole R before the close"
        );
        assert_eq!(action(&sandbox, &notice, "E", 1200), ("1", "成功"));
        assert_eq!(action(&sandbox, &notice, "N", 1200), ("1", "成功"));

        let (sandbox, notice) = sandbox_with(TradeState::Closed, 0);
        assert_eq!(action(&sandbox, &notice, "R", 800), ("1", "成功"));
        assert_eq!(
            action(&sandbox, &notice, "R", 500),
            ("0", "更新失敗.(error_amount_R)"),
            "at most what was paid"
        );
        assert_eq!(action(&sandbox, &notice, "R", 400), ("1", "成功"));
        assert_eq!(action(&sandbox, &notice, "X", 1), ("0", "Action Error"));
    }

    #[test]
    fn an_installment_order_is_refunded_in_full_only() {
        let (sandbox, notice) = sandbox_with(TradeState::Closed, 6);
        assert_eq!(action(&sandbox, &notice, "R", 380), ("0", "更新失敗.(error_installment_R)"));
        assert_eq!(action(&sandbox, &notice, "R", 1200), ("1", "成功"));
        assert_eq!(field(&notice, "stage"), Some("6"));
    }

    #[test]
    fn a_form_is_taken_only_under_its_check_mac_value_and_for_a_known_order() {
        let (sandbox, notice) = sandbox_with(TradeState::Closed, 0);
        let mut form = sandbox.signed(pairs(&[
            ("MerchantID", "3002607".into()),
            ("MerchantTradeNo", "TW1043A".into()),
            ("TradeNo", field(&notice, "TradeNo").unwrap().to_owned()),
            ("Action", "R".into()),
            ("TotalAmount", "380".into()),
        ]));
        form[4].1 = "381".into();
        assert_eq!(sandbox.act(&form, Utc::now()), ("0", "CheckMacValue Error"));
        let unknown = sandbox.signed(pairs(&[
            ("MerchantID", "3002607".into()),
            ("MerchantTradeNo", "TW9999Z".into()),
            ("TradeNo", "2601011200000001".into()),
            ("Action", "R".into()),
            ("TotalAmount", "380".into()),
        ]));
        assert_eq!(sandbox.act(&unknown, Utc::now()), ("0", "訂單不存在"));
        let answer = sandbox.action_answer(&unknown, ("0", "訂單不存在"));
        assert!(
            answer.ends_with("&RtnCode=0&RtnMsg=%E8%A8%82%E5%96%AE%E4%B8%8D%E5%AD%98%E5%9C%A8"),
            "{answer}"
        );
        assert!(sandbox.created_objects().is_empty());
    }

    #[test]
    fn the_nightly_close_closes_the_payments_and_their_refunds() {
        let (sandbox, notice) = sandbox_with(TradeState::ToClose, 0);
        assert_eq!(action(&sandbox, &notice, "R", 380), ("1", "成功"));
        let query = sandbox.signed(pairs(&[
            ("MerchantID", "3002607".into()),
            ("CreditRefundId", field(&notice, "gwsr").unwrap().to_owned()),
            ("CreditAmount", "1200".into()),
            ("CreditCheckCode", "59997889".into()),
        ]));
        let before = sandbox.trade_listing(&query, Utc::now());
        assert_eq!(before["RtnValue"]["status"], "要關帳");
        assert_eq!(before["RtnValue"]["close_data"][0]["status"], "要關帳");
        assert_eq!(sandbox.nightly_close(), 1);
        let after = sandbox.trade_listing(&query, Utc::now());
        assert_eq!(after["RtnValue"]["status"], "已關帳");
        assert_eq!(after["RtnValue"]["close_data"][0]["status"], "已關帳");
        assert_eq!(after["RtnValue"]["close_data"][0]["amount"], 380);
        let mut wrong_code = query.clone();
        wrong_code[3].1 = "11111111".into();
        assert_eq!(
            sandbox.trade_listing(&sandbox.signed(wrong_code[..4].to_vec()), Utc::now())["RtnValue"],
            Value::Null
        );
    }

    #[test]
    fn query_trade_info_answers_a_signed_raw_form() {
        let (sandbox, notice) = sandbox_with(TradeState::Closed, 0);
        let now = Utc::now();
        let form = sandbox.signed(pairs(&[
            ("MerchantID", "3002607".into()),
            ("MerchantTradeNo", "TW1043A".into()),
            ("TimeStamp", now.timestamp().to_string()),
        ]));
        let answer = sandbox.trade_info(&form, now).unwrap();
        let fields: Vec<(String, String)> = answer
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        assert_eq!(field(&fields, "TradeNo"), field(&notice, "TradeNo"));
        assert_eq!(field(&fields, "TradeStatus"), Some("1"));
        assert!(signed_by(
            &fields,
            field(&fields, "CheckMacValue").unwrap(),
            "pwFHCqoQZGmho4w6",
            "EkRm7iFT261dpevs"
        ));
        let stale = sandbox.signed(pairs(&[
            ("MerchantID", "3002607".into()),
            ("MerchantTradeNo", "TW1043A".into()),
            ("TimeStamp", (now.timestamp() - 600).to_string()),
        ]));
        assert_eq!(sandbox.trade_info(&stale, now), Err("TimeStamp Error"));
    }
}
