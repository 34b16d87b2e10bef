//! The ECPay (綠界) AIO credit card refunds connector. ECPay takes no idempotency key, so a refund is
//! sent once and found again in the payment's list of refunds:
//!
//! - `POST /CreditDetail/QueryTrade/V2` (`MerchantID`, `CreditRefundId` = the payment's `gwsr`,
//!   `CreditAmount` = what was paid, `CreditCheckCode`, `CheckMacValue`) answers the payment's
//!   `status` and its `close_data` rows (`sno`, `amount`, `status`): read before the send, for the
//!   list the ledger keeps and the verb to send, and after it, to find the refund
//!   (developers.ecpay.com.tw/?p=16589). ECPay's stage answers it `RtnValue: null`: it exists only
//!   in production.
//! - `POST /CreditDetail/DoAction` (`MerchantID`, `MerchantTradeNo`, `TradeNo`, `Action`,
//!   `TotalAmount` = the refund, `CheckMacValue`) answers an unsigned URL-encoded form
//!   `MerchantID&MerchantTradeNo&TradeNo&RtnCode&RtnMsg` (developers.ecpay.com.tw/?p=9242). The
//!   verb follows the payment's state: 已授權 (authorised) `N`, for the whole amount only; 要關帳
//!   (to close tonight) `R` for a part, `E` then `N` for the whole; 已關帳 (closed) `R`.
//! - Every form is signed with CheckMacValue (developers.ecpay.com.tw/?p=2902).
//! - No call from 20:15 to 20:30 Taiwan time, while ECPay closes the day's card payments (?p=9242),
//!   and none for 30 minutes after any call answered HTTP 403, ECPay's answer to calls too fast
//!   (developers.ecpay.com.tw/?p=29070).
//!
//! `RtnCode=1` is accepted: the bank refund happens at the nightly close, when the row turns 已關帳.
//! ECPay publishes no table of DoAction's error codes, so any other answer is read against the
//! list again: nothing new is a failure at ECPay, a new refund of the amount is this one, and a
//! list that cannot be read leaves the result unknown. A timeout, a dropped answer or a 5xx is
//! unknown, never failed.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use tracing::Instrument;

use super::http::{failed, Endpoint};
use super::{Checked, Connector, Lookup, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::ecpay::{check_mac_value, refund_params, Credentials, RefundParams};
use crate::domain::failure::{classify_http_answer, FailureClass};
use crate::domain::gateway::{
    blackout_until, listed, match_new_refund, taipei, Baseline, Matched, SeenRefund, Window,
};
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::money::{Currency, Money};
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::clock::now;
use crate::server::egress::EgressPolicy;

const QUERY_TRADE: &str = "/CreditDetail/QueryTrade/V2";
const DO_ACTION: &str = "/CreditDetail/DoAction";

/// How long ECPay wants no calls after it answered HTTP 403, when its offer does not say.
const RATE_LIMIT_WAIT: Duration = Duration::minutes(30);

/// Where the connector reads the time: the server's clock, or one a test sets.
type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

pub struct EcpayConnector {
    endpoint: Endpoint,
    merchant_id: String,
    credentials: Credentials,
    clock: Clock,
    /// Until when no call is made, after ECPay answered HTTP 403.
    quiet_until: Mutex<Option<DateTime<Utc>>>,
    /// The payment as QueryTrade/V2 listed it just before each send, by the operation's key: what
    /// the verb is chosen from.
    read_before_send: Mutex<HashMap<String, Trade>>,
}

/// One DoAction verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// 退刷: refunds part or all of a closed (or to-be-closed) payment.
    Refund,
    /// 取消: cancels a close not yet done; the payment is authorised again.
    CancelClose,
    /// 放棄: abandons an authorisation, which releases the whole amount.
    Abandon,
}

impl Action {
    pub fn code(self) -> &'static str {
        match self {
            Action::Refund => "R",
            Action::CancelClose => "E",
            Action::Abandon => "N",
        }
    }
}

/// What to do with a refund of a payment in the state ECPay lists it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Send these verbs, in order.
    Send(&'static [Action]),
    /// Not now: the payment's state must change first (in words).
    Wait(String),
    /// Never: ECPay holds nothing left to refund this way (in words).
    Never(String),
}

/// A payment as QueryTrade/V2 lists it: its state, what it was for (whole dollars), its refunds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trade {
    pub status: String,
    pub amount: i64,
    pub refunds: Vec<SeenRefund>,
}

impl Trade {
    /// What is left to refund: the amount less every refund that holds money.
    pub fn left(&self) -> i64 {
        let refunded: i64 = self
            .refunds
            .iter()
            .filter(|refund| holds_money(refund))
            .map(|refund| refund.amount_minor / 100)
            .sum();
        self.amount - refunded
    }
}

/// Whether a close_data row holds money back: all but cancelled ones.
fn holds_money(refund: &SeenRefund) -> bool {
    !matches!(refund.status.as_str(), "已取消" | "操作取消")
}

/// The verbs that refund `amount` (whole dollars) of `trade` (ECPay's rules, ?p=9242): 已授權, the
/// whole amount by `N` (a part waits for the nightly close); 要關帳, a part by `R` and the whole by
/// `E` then `N`; 已關帳, `R`.
pub fn plan(trade: &Trade, amount: i64) -> Plan {
    let whole = amount == trade.amount && trade.refunds.iter().all(|refund| !holds_money(refund));
    match (trade.status.as_str(), whole) {
        ("已授權", true) => Plan::Send(&[Action::Abandon]),
        ("已授權", false) => Plan::Wait(
            "ECPay refunds an authorised payment only in full (action N); this partial refund is sent once ECPay closes the authorisation at its nightly close".into(),
        ),
        ("要關帳", true) => Plan::Send(&[Action::CancelClose, Action::Abandon]),
        ("要關帳" | "已關帳", _) => Plan::Send(&[Action::Refund]),
        (status @ ("已取消" | "操作取消"), _) => {
            Plan::Never(format!("ECPay lists the payment as {status}: its authorisation is gone, and nothing is left to refund"))
        }
        (status, _) => Plan::Wait(format!("ECPay lists the payment as {status:?}, a state opledger does not refund from")),
    }
}

/// What a close_data row's status says of the refund: 要關帳 waits for the nightly close, 已關帳
/// is done, 已取消 and 操作取消 were cancelled; a status this connector does not know is never done.
pub fn refund_status(status: &str) -> ProviderStatus {
    match status {
        "要關帳" => ProviderStatus::Pending { needs_action: false },
        "已關帳" => ProviderStatus::Succeeded,
        "已取消" | "操作取消" => {
            ProviderStatus::Failed { reason: format!("ECPay lists it as {status}") }
        }
        _ => ProviderStatus::Pending { needs_action: true },
    }
}

/// A whole number as ECPay writes it: a JSON number or digits in a string.
fn whole(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
}

/// Reads QueryTrade/V2's answer: the payment, or in words why there is none (`RtnValue: null`,
/// which is all ECPay's stage answers).
pub fn read_trade(answer: &Value) -> Result<Trade, String> {
    let message = answer.get("RtnMsg").and_then(Value::as_str).unwrap_or_default();
    let Some(trade) = answer.get("RtnValue").filter(|value| value.is_object()) else {
        let said = if message.is_empty() { String::new() } else { format!(" (RtnMsg {message})") };
        return Err(format!(
            "ECPay's QueryTrade/V2 answered no payment{said}: ECPay answers it in production only, and never on its stage, so the payment's refunds cannot be listed"
        ));
    };
    let status =
        trade.get("status").and_then(Value::as_str).ok_or("ECPay's QueryTrade/V2 answer names no status")?;
    let amount = trade.get("amount").and_then(whole).ok_or("ECPay's QueryTrade/V2 answer names no amount")?;
    let rows = trade.get("close_data").and_then(Value::as_array).cloned().unwrap_or_default();
    let refunds =
        rows.iter()
            .map(|row| {
                let id = row.get("sno").and_then(|sno| {
                    sno.as_str().map(str::to_owned).or_else(|| sno.as_i64().map(|n| n.to_string()))
                });
                match (id, row.get("amount").and_then(whole)) {
                    (Some(id), Some(amount)) => Ok(SeenRefund {
                        id,
                        amount_minor: amount * 100,
                        status: row.get("status").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    }),
                    _ => Err("ECPay's QueryTrade/V2 answer lists a close_data row without sno or amount"
                        .to_owned()),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
    Ok(Trade { status: status.to_owned(), amount, refunds })
}

/// DoAction's answer: `RtnCode` and `RtnMsg`, from its URL-encoded form (or the `1|OK` shape some
/// of ECPay's guides show); `None` when it is neither.
pub fn read_action_answer(body: &str) -> Option<(String, String)> {
    let body = body.trim();
    if let Ok(fields) = serde_urlencoded::from_str::<Vec<(String, String)>>(body) {
        let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
        if let Some(code) = field("RtnCode") {
            return Some((code, field("RtnMsg").unwrap_or_default()));
        }
    }
    let (code, message) = body.split_once('|')?;
    code.chars().all(|c| c.is_ascii_digit()).then(|| (code.to_owned(), message.to_owned()))
}

/// How one exchange with ECPay ended.
enum Exchange {
    /// The request never left.
    NotSent(String),
    /// It was sent and no answer came back whole.
    NoAnswer(String),
    Answered {
        status: u16,
        body: String,
    },
}

/// New Taiwan dollars as people write them.
fn dollars(amount: i64) -> String {
    format!("NT${amount}")
}

impl EcpayConnector {
    /// A connector to `base_url` (`https://payment.ecpay.com.tw`, or a stand-in's address) for the
    /// merchant `merchant_id`, with the secret `HashKey:HashIV:CreditCheckCode`; or why the secret
    /// does not read.
    pub fn new(
        base_url: &str,
        secret: &str,
        merchant_id: &str,
        timeout: std::time::Duration,
        egress: &EgressPolicy,
    ) -> Result<Self, String> {
        let credentials = Credentials::parse(secret)?;
        if merchant_id.is_empty() || !merchant_id.chars().all(|c| c.is_ascii_digit()) {
            return Err("an ECPay connection names its MerchantID, digits such as 3002607".into());
        }
        Ok(Self {
            endpoint: Endpoint::new(ProviderKind::Ecpay, base_url, secret, timeout, egress),
            merchant_id: merchant_id.to_owned(),
            credentials,
            clock: Arc::new(now),
            quiet_until: Mutex::new(None),
            read_before_send: Mutex::new(HashMap::new()),
        })
    }

    /// The connector reading the time from `clock` (for its blackout and its wait after a 403).
    pub fn with_clock(self, clock: impl Fn() -> DateTime<Utc> + Send + Sync + 'static) -> Self {
        Self { clock: Arc::new(clock), ..self }
    }

    fn now(&self) -> DateTime<Utc> {
        (self.clock)()
    }

    /// ECPay's windows, as its offer declares them.
    fn windows() -> &'static [Window] {
        ProviderKind::Ecpay.offer().map_or(&[], |offer| offer.windows)
    }

    /// Why no call may be made now, in words: the nightly blackout, or the wait after a 403.
    fn door_shut(&self) -> Option<String> {
        let at = self.now();
        let taiwan = |time: DateTime<Utc>| time.with_timezone(&taipei()).format("%Y-%m-%d %H:%M").to_string();
        for window in Self::windows() {
            if let (Some(until), Window::NightlyBlackout { from, to }) = (blackout_until(*window, at), window)
            {
                return Some(format!(
                    "ECPay takes no calls from {:02}:{:02} to {:02}:{:02} Taiwan time while it closes the day's card payments: not before {} Taiwan time (UTC+8)",
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    taiwan(until)
                ));
            }
        }
        let quiet = *self.quiet_until.lock().unwrap_or_else(PoisonError::into_inner);
        quiet.filter(|until| at < *until).map(|until| {
            format!(
                "ECPay answered HTTP 403 (too many calls) and takes none for {} minutes: not before {} Taiwan time (UTC+8)",
                Self::quiet_for().num_minutes(),
                taiwan(until)
            )
        })
    }

    /// Starts the wait ECPay asks for after an HTTP 403.
    fn keep_quiet(&self) {
        *self.quiet_until.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(self.now() + Self::quiet_for());
    }

    /// How long ECPay wants no calls after an HTTP 403, as its offer declares it.
    fn quiet_for() -> Duration {
        Self::windows()
            .iter()
            .find_map(|window| match window {
                Window::RateLimitWait { minutes } => Some(Duration::minutes(i64::from(*minutes))),
                _ => None,
            })
            .unwrap_or(RATE_LIMIT_WAIT)
    }

    /// `fields` with their CheckMacValue.
    fn signed(&self, mut fields: Vec<(String, String)>) -> Vec<(String, String)> {
        let mac = check_mac_value(&fields, &self.credentials.hash_key, &self.credentials.hash_iv);
        fields.push(("CheckMacValue".into(), mac));
        fields
    }

    /// Posts the signed `fields` to `path` once, in a `provider_call` span.
    async fn post(&self, path: &str, fields: Vec<(String, String)>) -> (Exchange, Option<u64>) {
        let client = match self.endpoint.client() {
            Ok(client) => client,
            Err(refused) => return (Exchange::NotSent(refused), None),
        };
        let url = self.endpoint.url(path);
        let call = self.endpoint.call_span("POST", &url, None);
        let form = self.signed(fields);
        let started = Instant::now();
        let exchange = async {
            match client.post(&url).form(&form).send().await {
                Err(error) if error.is_connect() => Exchange::NotSent(error.to_string()),
                Err(error) => Exchange::NoAnswer(error.to_string()),
                Ok(response) => {
                    let status = response.status().as_u16();
                    match response.text().await {
                        Ok(body) => Exchange::Answered { status, body },
                        Err(error) => {
                            Exchange::NoAnswer(format!("HTTP {status}, and the answer broke off: {error}"))
                        }
                    }
                }
            }
        }
        .instrument(call.clone())
        .await;
        let latency = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let outcome = match &exchange {
            Exchange::NotSent(_) => "not_sent",
            Exchange::NoAnswer(_) => "timeout",
            Exchange::Answered { status, .. } => {
                call.record("http.response.status_code", *status);
                "answered"
            }
        };
        call.record("outcome", outcome);
        (exchange, Some(latency))
    }

    /// The payment as QueryTrade/V2 lists it now, or in words why it could not be read.
    async fn read(&self, params: &RefundParams) -> Result<Trade, String> {
        if let Some(shut) = self.door_shut() {
            return Err(shut);
        }
        let fields = vec![
            ("MerchantID".to_owned(), self.merchant_id.clone()),
            ("CreditRefundId".to_owned(), params.gwsr.clone()),
            ("CreditAmount".to_owned(), params.paid.to_string()),
            ("CreditCheckCode".to_owned(), self.credentials.credit_check_code.clone()),
        ];
        match self.post(QUERY_TRADE, fields).await.0 {
            Exchange::NotSent(error) | Exchange::NoAnswer(error) => {
                Err(format!("ECPay's QueryTrade/V2 could not be read: {error}"))
            }
            Exchange::Answered { status: 403, .. } => {
                self.keep_quiet();
                Err(self.door_shut().unwrap_or_else(|| "ECPay answered HTTP 403".into()))
            }
            Exchange::Answered { status, .. } if !(200..300).contains(&status) => {
                Err(format!("ECPay's QueryTrade/V2 answered HTTP {status}"))
            }
            Exchange::Answered { body, .. } => {
                let answer: Value = serde_json::from_str(&body).map_err(|_| {
                    "ECPay's QueryTrade/V2 answer is not the JSON its reference describes".to_owned()
                })?;
                read_trade(&answer)
            }
        }
    }

    /// DoAction `action` for the refund.
    async fn act(&self, params: &RefundParams, action: Action) -> (Exchange, Option<u64>) {
        let fields = vec![
            ("MerchantID".to_owned(), self.merchant_id.clone()),
            ("MerchantTradeNo".to_owned(), params.merchant_trade_no.clone()),
            ("TradeNo".to_owned(), params.trade_no.clone()),
            ("Action".to_owned(), action.code().to_owned()),
            ("TotalAmount".to_owned(), params.amount.to_string()),
        ];
        self.post(DO_ACTION, fields).await
    }

    /// The refund's parameters, or why it cannot be sent as recorded.
    fn params(operation: &OperationRecord) -> Result<RefundParams, String> {
        if operation.action.as_deref() != Some("refund") {
            return Err(format!(
                "the ECPay connection performs refunds, and {} was not recorded as one",
                operation.op_id
            ));
        }
        refund_params(operation.params.as_value())
            .map_err(|(field, problem)| format!("params.{field} {problem}"))
    }

    /// After DoAction refused `action` with `code` and `message`: the list read again against
    /// `before`. A new refund of the amount is this one (accepted); nothing new means ECPay did
    /// nothing; a list that cannot be read, or several new refunds, leave it unknown.
    async fn after_refusal(
        &self,
        params: &RefundParams,
        before: &Trade,
        done: &[Action],
        refusal: String,
        mut report: AttemptReport,
    ) -> Sent {
        let earlier = if done.is_empty() {
            String::new()
        } else {
            let codes: Vec<&str> = done.iter().map(|action| action.code()).collect();
            format!(" after it took {}", codes.join(", "))
        };
        let now = match self.read(params).await {
            Ok(now) => now,
            Err(reason) => {
                report.error =
                    Some(format!("{refusal}{earlier}, and its refunds could not be listed again to see whether it did anything: {reason}"));
                return failed(FailureClass::Timeout, report);
            }
        };
        match match_new_refund(&before.refunds, &now.refunds, params.amount * 100) {
            Matched::One(refund) => {
                report.external_id = Some(refund.id.clone());
                report.error = Some(format!(
                    "{refusal}{earlier}, yet it lists a new refund {} of {}",
                    refund.id,
                    dollars(params.amount)
                ));
                Sent { outcome: AttemptOutcome::Accepted { external_id: Some(refund.id) }, report }
            }
            Matched::None => {
                let reason =
                    format!("{refusal}{earlier}, and lists no new refund of {}", dollars(params.amount));
                report.error = Some(reason.clone());
                Sent { outcome: AttemptOutcome::FailedAtProvider { external_id: None, reason }, report }
            }
            Matched::Several(found) => {
                report.error = Some(format!(
                    "{refusal}{earlier}, and lists several new refunds of {}: {}",
                    dollars(params.amount),
                    listed(&found, twd())
                ));
                failed(FailureClass::Timeout, report)
            }
        }
    }
}

fn twd() -> Currency {
    Currency::parse("TWD").expect("TWD is a currency")
}

fn not_sent(reason: String) -> Sent {
    failed(
        FailureClass::NotSent,
        AttemptReport { error: Some(format!("not sent: {reason}")), ..Default::default() },
    )
}

#[async_trait]
impl Connector for EcpayConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Ecpay
    }

    /// Outside ECPay's blackout and its wait after a 403, reads the payment (QueryTrade/V2): the
    /// refund must be at most what is left of it, and the payment in a state that takes it now.
    async fn check(&self, operation: &OperationRecord) -> Checked {
        let params = match Self::params(operation) {
            Ok(params) => params,
            Err(reason) => return Checked::Invalid { reason },
        };
        let trade = match self.read(&params).await {
            Ok(trade) => trade,
            Err(reason) => return Checked::Unavailable { reason },
        };
        if trade.amount != params.paid {
            return Checked::Invalid {
                reason: format!(
                    "ECPay's payment {} was for {}, and the refund records {} paid",
                    params.merchant_trade_no,
                    dollars(trade.amount),
                    dollars(params.paid)
                ),
            };
        }
        let left = trade.left();
        if params.amount > left {
            return Checked::Invalid {
                reason: format!(
                    "the refund of {} is more than the {} left to refund of ECPay payment {} (ECPay lists {})",
                    dollars(params.amount),
                    dollars(left.max(0)),
                    params.merchant_trade_no,
                    listed(&trade.refunds, twd())
                ),
            };
        }
        match plan(&trade, params.amount) {
            Plan::Send(_) => Checked::Valid { amount: Some(Money::new(params.amount * 100, twd())) },
            Plan::Wait(reason) => Checked::Unavailable { reason },
            Plan::Never(reason) => Checked::Invalid { reason },
        }
    }

    /// The payment's refunds (close_data), read just before the send; the state read with them
    /// chooses the verb.
    async fn before_send(&self, operation: &OperationRecord) -> Result<Option<Vec<SeenRefund>>, String> {
        let params = Self::params(operation)?;
        let trade = self.read(&params).await?;
        let refunds = trade.refunds.clone();
        self.read_before_send
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(operation.idempotency_key.clone(), trade);
        Ok(Some(refunds))
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let params = match Self::params(operation) {
            Ok(params) => params,
            Err(reason) => {
                return failed(
                    FailureClass::InvalidParams,
                    AttemptReport { error: Some(reason), ..Default::default() },
                )
            }
        };
        if let Some(shut) = self.door_shut() {
            return not_sent(shut);
        }
        let kept = self
            .read_before_send
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&operation.idempotency_key);
        let before = match kept {
            Some(trade) => trade,
            None => match self.read(&params).await {
                Ok(trade) => trade,
                Err(reason) => return not_sent(reason),
            },
        };
        let actions = match plan(&before, params.amount) {
            Plan::Send(actions) => actions,
            Plan::Wait(reason) => return not_sent(reason),
            Plan::Never(reason) => {
                return failed(
                    FailureClass::InvalidParams,
                    AttemptReport { error: Some(reason), ..Default::default() },
                )
            }
        };
        let mut report = AttemptReport::default();
        let mut done: Vec<Action> = Vec::new();
        for action in actions {
            let (exchange, latency) = self.act(&params, *action).await;
            report.latency_ms = match (report.latency_ms, latency) {
                (Some(so_far), Some(this)) => Some(so_far.saturating_add(this)),
                (so_far, this) => so_far.or(this),
            };
            let taken = if done.is_empty() {
                String::new()
            } else {
                format!(
                    "ECPay took {} first; ",
                    done.iter().map(|action| action.code()).collect::<Vec<_>>().join(", ")
                )
            };
            match exchange {
                Exchange::NotSent(error) => {
                    report.error =
                        Some(format!("not sent: {taken}DoAction {} never left: {error}", action.code()));
                    return failed(FailureClass::NotSent, report);
                }
                Exchange::NoAnswer(error) => {
                    report.error = Some(format!("{taken}DoAction {} got no answer: {error}", action.code()));
                    return failed(FailureClass::Timeout, report);
                }
                Exchange::Answered { status: 403, .. } => {
                    self.keep_quiet();
                    report.http_status = Some(403);
                    report.retry_after_s = u32::try_from(Self::quiet_for().num_seconds()).ok();
                    report.error = Some(format!(
                        "{taken}ECPay answered DoAction {} with HTTP 403 (too many calls) and did nothing; it takes no calls for {} minutes",
                        action.code(),
                        Self::quiet_for().num_minutes()
                    ));
                    let retry_after_s = report.retry_after_s;
                    return failed(FailureClass::TransientUnavailable { retry_after_s }, report);
                }
                Exchange::Answered { status, .. } if !(200..300).contains(&status) => {
                    report.http_status = Some(status);
                    report.error =
                        Some(format!("{taken}ECPay answered DoAction {} with HTTP {status}", action.code()));
                    let class = classify_http_answer(status, None, None).unwrap_or(FailureClass::ServerError);
                    return failed(class, report);
                }
                Exchange::Answered { status, body } => {
                    report.http_status = Some(status);
                    match read_action_answer(&body) {
                        Some((code, _)) if code == "1" => done.push(*action),
                        Some((code, message)) => {
                            let refusal = format!(
                                "ECPay refused DoAction {} (RtnCode {code}: {message})",
                                action.code()
                            );
                            return self.after_refusal(&params, &before, &done, refusal, report).await;
                        }
                        None => {
                            report.error = Some(format!(
                                "{taken}ECPay's answer to DoAction {} is not the form its reference describes",
                                action.code()
                            ));
                            return failed(FailureClass::Timeout, report);
                        }
                    }
                }
            }
        }
        let external_id = match self.read(&params).await {
            Ok(now) => match match_new_refund(&before.refunds, &now.refunds, params.amount * 100) {
                Matched::One(refund) => Some(refund.id),
                Matched::None | Matched::Several(_) => None,
            },
            Err(reason) => {
                tracing::info!(%reason, "ECPay took the refund; its id is read at the next lookup");
                None
            }
        };
        report.external_id = external_id.clone();
        Sent { outcome: AttemptOutcome::Accepted { external_id }, report }
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        self.look_up_against(operation, None).await
    }

    /// The payment's refunds read again and matched by amount against the list kept before the
    /// send: one new refund is this one, none is not found, several only a person can tell apart.
    async fn look_up_against(&self, operation: &OperationRecord, baseline: Option<&Baseline>) -> Lookup {
        let params = match Self::params(operation) {
            Ok(params) => params,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let Some(baseline) = baseline else {
            return Lookup::NotFound {
                evidence: "no list was kept before a send, so opledger sent nothing to ECPay for it".into(),
            };
        };
        let trade = match self.read(&params).await {
            Ok(trade) => trade,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let amount = dollars(params.amount);
        let payment = &params.merchant_trade_no;
        let lists = format!(
            "ECPay lists for payment {payment} now: {}; before the send it listed: {}",
            listed(&trade.refunds, twd()),
            listed(&baseline.refunds, twd())
        );
        match match_new_refund(&baseline.refunds, &trade.refunds, params.amount * 100) {
            Matched::One(refund) => Lookup::Found {
                evidence: format!(
                    "ECPay lists refund {} of {amount} ({}) for payment {payment}, not listed before the send (QueryTrade/V2 close_data)",
                    refund.id, refund.status
                ),
                status: refund_status(&refund.status),
                external_id: refund.id,
            },
            Matched::None => Lookup::NotFound { evidence: format!("no new refund of {amount}. {lists}") },
            Matched::Several(found) => Lookup::Ambiguous {
                evidence: format!("several new refunds of {amount}: {}. {lists}", listed(&found, twd())),
            },
        }
    }

    /// The close_data row `sno` as it stands now.
    async fn follow(&self, operation: &OperationRecord, external_id: &str) -> Lookup {
        let params = match Self::params(operation) {
            Ok(params) => params,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let trade = match self.read(&params).await {
            Ok(trade) => trade,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        match trade.refunds.iter().find(|refund| refund.id == external_id) {
            Some(refund) => Lookup::Found {
                evidence: format!(
                    "ECPay lists refund {external_id} of payment {} as {} (QueryTrade/V2 close_data)",
                    params.merchant_trade_no, refund.status
                ),
                status: refund_status(&refund.status),
                external_id: refund.id.clone(),
            },
            None => Lookup::NotFound {
                evidence: format!(
                    "ECPay lists no refund {external_id} for payment {}: {}",
                    params.merchant_trade_no,
                    listed(&trade.refunds, twd())
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn trade(status: &str, amount: i64, refunds: &[(&str, i64, &str)]) -> Trade {
        Trade {
            status: status.into(),
            amount,
            refunds: refunds
                .iter()
                .map(|(id, dollars, status)| SeenRefund {
                    id: (*id).into(),
                    amount_minor: dollars * 100,
                    status: (*status).into(),
                })
                .collect(),
        }
    }

    #[test]
    fn the_verb_follows_the_state_ecpay_lists() {
        assert_eq!(plan(&trade("已授權", 1200, &[]), 1200), Plan::Send(&[Action::Abandon]));
        assert!(
            matches!(plan(&trade("已授權", 1200, &[]), 380), Plan::Wait(words) if words.contains("nightly close"))
        );
        assert_eq!(
            plan(&trade("要關帳", 1200, &[]), 1200),
            Plan::Send(&[Action::CancelClose, Action::Abandon])
        );
        assert_eq!(plan(&trade("要關帳", 1200, &[]), 380), Plan::Send(&[Action::Refund]));
        assert_eq!(plan(&trade("已關帳", 1200, &[]), 1200), Plan::Send(&[Action::Refund]));
        assert_eq!(plan(&trade("已關帳", 1200, &[]), 380), Plan::Send(&[Action::Refund]));
        assert_eq!(
            plan(&trade("要關帳", 1200, &[("7", 300, "要關帳")]), 900),
            Plan::Send(&[Action::Refund]),
            "the rest after a partial refund is a refund, not an abandoned authorisation"
        );
        assert!(matches!(plan(&trade("已取消", 1200, &[]), 1200), Plan::Never(_)));
        assert!(matches!(plan(&trade("授權失敗", 1200, &[]), 1200), Plan::Wait(_)));
    }

    #[test]
    fn what_is_left_counts_only_refunds_that_hold_money() {
        let listed = trade(
            "已關帳",
            1200,
            &[("1", 380, "已關帳"), ("2", 100, "要關帳"), ("3", 500, "已取消"), ("4", 20, "操作取消")],
        );
        assert_eq!(listed.left(), 720);
    }

    #[test]
    fn a_query_trade_answer_is_read_with_numbers_as_numbers_or_strings() {
        let answer = json!({"RtnMsg": "", "RtnValue": {
            "TradeID": "11943361", "amount": "1200", "clsamt": 1200, "authtime": "2026/12/05 12:00:00", "status": "已關帳",
            "close_data": [{"status": "要關帳", "amount": 380, "sno": "2501", "datetime": "2026/12/05 13:00:00"}, {"status": "已關帳", "amount": "100", "sno": 2502}],
        }});
        let read = read_trade(&answer).unwrap();
        assert_eq!(read, trade("已關帳", 1200, &[("2501", 380, "要關帳"), ("2502", 100, "已關帳")]));
        let stage = read_trade(&json!({"RtnMsg": "", "RtnValue": null})).unwrap_err();
        assert!(stage.contains("production only"), "{stage}");
        let refused = read_trade(&json!({"RtnMsg": "error_nopay", "RtnValue": null})).unwrap_err();
        assert!(refused.contains("error_nopay"), "{refused}");
        let broken = json!({"RtnMsg": "", "RtnValue": {"status": "已關帳", "amount": 1200, "close_data": [{"amount": 1}]}});
        assert!(read_trade(&broken).is_err(), "a row without its sno cannot be told apart");
    }

    #[test]
    fn a_do_action_answer_is_read_from_its_form() {
        let answer = "MerchantID=3002607&MerchantTradeNo=TW1043A&TradeNo=2601011200000001&RtnCode=1&RtnMsg=%E6%88%90%E5%8A%9F";
        assert_eq!(read_action_answer(answer), Some(("1".into(), "成功".into())));
        assert_eq!(
            read_action_answer("RtnCode=0&RtnMsg=訂單不存在"),
            Some(("0".into(), "訂單不存在".into()))
        );
        assert_eq!(read_action_answer("1|OK"), Some(("1".into(), "OK".into())));
        assert_eq!(read_action_answer("<html>busy</html>"), None);
    }

    #[test]
    fn a_close_data_status_says_where_the_refund_stands() {
        assert_eq!(refund_status("要關帳"), ProviderStatus::Pending { needs_action: false });
        assert_eq!(refund_status("已關帳"), ProviderStatus::Succeeded);
        assert!(matches!(refund_status("已取消"), ProviderStatus::Failed { .. }));
        assert!(matches!(refund_status("操作取消"), ProviderStatus::Failed { .. }));
        assert_eq!(refund_status("?"), ProviderStatus::Pending { needs_action: true });
    }

    #[test]
    fn no_call_inside_the_nightly_blackout_and_the_words_say_until_when() {
        use chrono::TimeZone;
        let egress = EgressPolicy::unrestricted();
        let at = |hour, minute| {
            let local = taipei().with_ymd_and_hms(2026, 12, 5, hour, minute, 0).single().unwrap();
            local.with_timezone(&Utc)
        };
        let connector = |time: DateTime<Utc>| {
            EcpayConnector::new(
                "http://127.0.0.1:9",
                "pwFHCqoQZGmho4w6:EkRm7iFT261dpevs:59997889",
                "3002607",
                std::time::Duration::from_secs(1),
                &egress,
            )
            .unwrap()
            .with_clock(move || time)
        };
        let words = connector(at(20, 20)).door_shut().expect("shut at 20:20");
        assert!(words.contains("2026-12-05 20:30 Taiwan time"), "{words}");
        assert_eq!(connector(at(20, 14)).door_shut(), None);
        assert_eq!(connector(at(20, 30)).door_shut(), None);
        let after_403 = connector(at(10, 0));
        after_403.keep_quiet();
        let words = after_403.door_shut().expect("30 minutes without calls");
        assert!(words.contains("10:30 Taiwan time") && words.contains("403"), "{words}");
    }

    #[test]
    fn a_secret_or_merchant_that_does_not_read_builds_no_connector() {
        let egress = EgressPolicy::unrestricted();
        let timeout = std::time::Duration::from_secs(1);
        assert!(EcpayConnector::new("http://127.0.0.1:9", "pwFHCqoQZGmho4w6", "3002607", timeout, &egress)
            .is_err());
        assert!(EcpayConnector::new("http://127.0.0.1:9", "a:b:1", "ShopECOM", timeout, &egress).is_err());
    }
}
