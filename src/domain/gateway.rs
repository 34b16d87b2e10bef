//! What each payment gateway really offers, as data: its key (a header remembered for a window, or
//! none at all), its lookup (by what the operation wrote there, or a list of a payment's refunds
//! keyed by ids saved when the payment was made), its windows (a nightly blackout, a rate limit
//! that closes the door for half an hour, orders refunded in full only) and its outcome model
//! (final on the answer, or accepted and settled later). The executor, the reconciler, the console
//! and the README read these, never a gateway's name.
//!
//! For a gateway without a key, the rule: send once; a timeout, a dropped answer or a 5xx is
//! `unknown`; the reconciler lists the payment's refunds and matches this one by amount against
//! the list taken just before the send ([`Baseline`], kept before anything leaves), so that an
//! older refund of the same amount is never taken for it; found is succeeded (or accepted) with the
//! gateway's id; nothing new after the gateway's lookup lag goes to a person, with what the lookup
//! saw. Never a blind re-send.

use chrono::{DateTime, Duration, FixedOffset, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::connection::ProviderKind;
use super::ids::AttemptNumber;
use super::language::Language;
use super::wording::retention_words;
use crate::t;

/// What a gateway does with a second request for the same refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOffer {
    /// An idempotency key in `header`, of at most `max_len` characters, remembered for
    /// `retention`: a re-send under it within the window gets the first result.
    Header { header: &'static str, max_len: usize, retention: Duration },
    /// No key at all: a re-sent partial refund is a second refund.
    None,
}

/// How the gateway can be asked what became of a refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupOffer {
    /// By what the operation wrote into the refund it created (its op id in metadata or a
    /// reference field).
    ByWhatItWrote { field: &'static str },
    /// A list of the payment's refunds, read with ids saved when the payment was made
    /// (`saved`); `in_sandbox` says whether the gateway's own test environment answers it.
    PerRefundList { call: &'static str, saved: &'static [&'static str], in_sandbox: bool },
    /// It cannot be asked; outcomes come by webhook.
    None,
}

/// A rule of time or shape the gateway imposes on refunds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// No calls from `from` to `to` in UTC+8 (Asia/Taipei, which keeps no summer time), while the
    /// account closes its day automatically.
    NightlyBlackout { from: (u32, u32), to: (u32, u32) },
    /// Too many calls answer HTTP 403 and close the door for `minutes`.
    RateLimitWait { minutes: u32 },
    /// Installment and bonus-redemption orders are refunded in full only.
    FullRefundOnlyForInstallments,
    /// The answer may take this long: the read timeout is at least `seconds`.
    ReadTimeoutAtLeast { seconds: u32 },
}

/// When a refund's result is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeModel {
    /// The answer is the result.
    FinalOnAnswer,
    /// The answer accepts it; the gateway settles it later (`settles` says when).
    AcceptedThenSettles { settles: &'static str },
}

/// What a gateway offers, for refunds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub key: KeyOffer,
    pub lookup: LookupOffer,
    pub windows: &'static [Window],
    pub outcome: OutcomeModel,
}

/// Asia/Taipei: UTC+8, without summer time.
pub fn taipei() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

impl ProviderKind {
    /// What this kind of gateway offers for refunds, from its published reference; `None` for
    /// kinds that refund nothing.
    pub fn offer(self) -> Option<Offer> {
        let capabilities = self.capabilities();
        Some(match self {
            ProviderKind::Stripe => Offer {
                key: KeyOffer::Header {
                    header: "Idempotency-Key",
                    max_len: capabilities.key_max_len,
                    retention: capabilities.key_retention,
                },
                lookup: LookupOffer::ByWhatItWrote { field: "metadata[op_id]" },
                windows: &[],
                outcome: OutcomeModel::AcceptedThenSettles { settles: "stripe" },
            },
            ProviderKind::Adyen => Offer {
                key: KeyOffer::Header {
                    header: "Idempotency-Key",
                    max_len: capabilities.key_max_len,
                    retention: capabilities.key_retention,
                },
                lookup: LookupOffer::None,
                windows: &[],
                outcome: OutcomeModel::AcceptedThenSettles { settles: "adyen" },
            },
            ProviderKind::PayPal => Offer {
                key: KeyOffer::Header {
                    header: "PayPal-Request-Id",
                    max_len: capabilities.key_max_len,
                    retention: capabilities.key_retention,
                },
                lookup: LookupOffer::ByWhatItWrote { field: "custom_id" },
                windows: &[],
                outcome: OutcomeModel::AcceptedThenSettles { settles: "paypal" },
            },
            ProviderKind::Ecpay => Offer {
                key: KeyOffer::None,
                lookup: LookupOffer::PerRefundList {
                    call: "CreditDetail/QueryTrade/V2 close_data",
                    saved: &["TradeNo", "gwsr", "CreditCheckCode"],
                    in_sandbox: false,
                },
                windows: &[
                    Window::NightlyBlackout { from: (20, 15), to: (20, 30) },
                    Window::RateLimitWait { minutes: 30 },
                    Window::FullRefundOnlyForInstallments,
                ],
                outcome: OutcomeModel::AcceptedThenSettles { settles: "ecpay" },
            },
            ProviderKind::LinePay => Offer {
                key: KeyOffer::None,
                lookup: LookupOffer::PerRefundList {
                    call: "GET /v3/payments refundList",
                    saved: &["transactionId"],
                    in_sandbox: true,
                },
                windows: &[Window::ReadTimeoutAtLeast { seconds: 20 }],
                outcome: OutcomeModel::FinalOnAnswer,
            },
            ProviderKind::Services
            | ProviderKind::Orders
            | ProviderKind::Http
            | ProviderKind::Email
            | ProviderKind::Smtp => return None,
        })
    }
}

/// What `kind` offers, as lines a person reads (the admin and operation pages): its key (remembered
/// for `key_retention` where the account's contract says so, the kind's window otherwise), its
/// lookup, its windows and its outcome model, each with its label; none for a kind that refunds
/// nothing.
pub fn offer_lines(
    kind: ProviderKind,
    key_retention: Option<Duration>,
    language: Language,
) -> Vec<(String, String)> {
    let Some(offer) = kind.offer() else { return Vec::new() };
    let key = match offer.key {
        KeyOffer::Header { header, max_len, retention } => t!(
            language,
            "gateway-key-header",
            header = header,
            max = max_len,
            window = retention_words(key_retention.unwrap_or(retention), language)
        ),
        KeyOffer::None => t!(language, "gateway-key-none"),
    };
    let lookup = match offer.lookup {
        LookupOffer::ByWhatItWrote { field } => {
            t!(language, "gateway-lookup-by-what-it-wrote", field = field)
        }
        LookupOffer::PerRefundList { call, saved, in_sandbox: true } => {
            t!(language, "gateway-lookup-list", call = call, saved = saved.join(", "))
        }
        LookupOffer::PerRefundList { call, saved, in_sandbox: false } => {
            t!(language, "gateway-lookup-list-production", call = call, saved = saved.join(", "))
        }
        LookupOffer::None => t!(language, "gateway-lookup-none"),
    };
    let windows = if offer.windows.is_empty() {
        t!(language, "gateway-windows-none")
    } else {
        offer.windows.iter().map(|window| window_words(*window, language)).collect::<Vec<_>>().join(" ")
    };
    let outcome = match offer.outcome {
        OutcomeModel::FinalOnAnswer => t!(language, "gateway-outcome-final"),
        OutcomeModel::AcceptedThenSettles { settles } => match settles {
            "stripe" => t!(language, "gateway-outcome-stripe"),
            "adyen" => t!(language, "gateway-outcome-adyen"),
            "paypal" => t!(language, "gateway-outcome-paypal"),
            _ => t!(language, "gateway-outcome-ecpay"),
        },
    };
    vec![
        (t!(language, "gateway-key"), key),
        (t!(language, "gateway-lookup"), lookup),
        (t!(language, "gateway-windows"), windows),
        (t!(language, "gateway-outcome"), outcome),
    ]
}

fn window_words(window: Window, language: Language) -> String {
    let clock = |(hour, minute): (u32, u32)| format!("{hour:02}:{minute:02}");
    match window {
        Window::NightlyBlackout { from, to } => {
            t!(language, "gateway-window-blackout", from = clock(from), to = clock(to))
        }
        Window::RateLimitWait { minutes } => t!(language, "gateway-window-rate-limit", minutes = minutes),
        Window::FullRefundOnlyForInstallments => t!(language, "gateway-window-installments"),
        Window::ReadTimeoutAtLeast { seconds } => {
            t!(language, "gateway-window-read-timeout", seconds = seconds)
        }
    }
}

/// When the nightly blackout of `window` that `at` falls in ends, or `None` when `at` is outside it.
pub fn blackout_until(window: Window, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let Window::NightlyBlackout { from, to } = window else { return None };
    let local = at.with_timezone(&taipei());
    let time = |(hour, minute): (u32, u32)| NaiveTime::from_hms_opt(hour, minute, 0);
    let (start, end) = (time(from)?, time(to)?);
    let now = local.time();
    if now < start || now >= end {
        return None;
    }
    let ends = local.date_naive().and_time(end);
    taipei().from_local_datetime(&ends).single().map(|ends| ends.with_timezone(&Utc))
}

/// The ids a payment's refunds are looked up with, saved when the payment became known (ECPay's
/// signed payment notification, or entered by the shop).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedPayment {
    /// The shop's reference of the payment (ECPay's `MerchantTradeNo`), which refunds name.
    pub payment: String,
    /// The gateway's ids of it, by the gateway's names (ECPay's `TradeNo` and `gwsr`).
    pub ids: BTreeMap<String, String>,
    /// What was paid, in minor units of `currency`.
    pub paid_minor: i64,
    pub currency: String,
    /// An installment or bonus-redemption order: refunded in full only.
    pub full_refund_only: bool,
}

/// One refund of a payment as its gateway lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenRefund {
    /// The gateway's id of the refund (LINE Pay's refundTransactionId, ECPay's close_data `sno`).
    pub id: String,
    /// In minor units of the payment's currency.
    pub amount_minor: i64,
    /// The gateway's words for its state (`要關帳`, `PARTIAL_REFUND`), as listed.
    pub status: String,
}

/// The payment's refunds as the gateway listed them just before a send, kept before anything left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    pub attempt: AttemptNumber,
    pub taken_at: DateTime<Utc>,
    pub refunds: Vec<SeenRefund>,
}

/// What a lookup of a keyless refund found, against the list taken before the send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matched {
    /// Exactly one refund of the amount that was not listed before: this operation's.
    One(SeenRefund),
    /// No refund of the amount that was not listed before.
    None,
    /// Several: which is this operation's cannot be told.
    Several(Vec<SeenRefund>),
}

/// The refunds of `amount_minor` in `now` that `before` did not list. A refund is told by its id,
/// so an older refund of the same amount (listed before) is never taken for this one.
pub fn match_new_refund(before: &[SeenRefund], now: &[SeenRefund], amount_minor: i64) -> Matched {
    let mut new: Vec<SeenRefund> = now
        .iter()
        .filter(|refund| refund.amount_minor == amount_minor)
        .filter(|refund| !before.iter().any(|old| old.id == refund.id))
        .cloned()
        .collect();
    match new.len() {
        0 => Matched::None,
        1 => Matched::One(new.remove(0)),
        _ => Matched::Several(new),
    }
}

/// A list of refunds in words, for the evidence a person reads: `#3 NT$380 (要關帳), #4 NT$120`.
pub fn listed(refunds: &[SeenRefund], currency: super::money::Currency) -> String {
    if refunds.is_empty() {
        return "none".to_owned();
    }
    refunds
        .iter()
        .map(|refund| {
            let amount = super::money::Money::new(refund.amount_minor, currency);
            if refund.status.is_empty() {
                format!("{} {amount}", refund.id)
            } else {
                format!("{} {amount} ({})", refund.id, refund.status)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn refund(id: &str, amount_minor: i64) -> SeenRefund {
        SeenRefund { id: id.into(), amount_minor, status: String::new() }
    }

    #[test]
    fn an_older_refund_of_the_same_amount_is_never_taken_for_this_one() {
        let before = [refund("1", 38_000)];
        let now = [refund("1", 38_000), refund("2", 38_000)];
        assert_eq!(match_new_refund(&before, &now, 38_000), Matched::One(refund("2", 38_000)));
        assert_eq!(match_new_refund(&before, &before, 38_000), Matched::None);
        assert_eq!(match_new_refund(&[], &[refund("9", 12_000)], 38_000), Matched::None);
        let twice = [refund("1", 38_000), refund("2", 38_000), refund("3", 38_000)];
        assert!(
            matches!(match_new_refund(&before, &twice, 38_000), Matched::Several(found) if found.len() == 2)
        );
    }

    #[test]
    fn the_blackout_is_20_15_to_20_30_in_taipei_whatever_the_server_zone() {
        let Some(window) = ProviderKind::Ecpay.offer().and_then(|offer| offer.windows.first().copied())
        else {
            panic!("ECPay declares its blackout");
        };
        let utc = |h, m| Utc.with_ymd_and_hms(2026, 12, 5, h, m, 0).unwrap();
        assert_eq!(blackout_until(window, utc(12, 14)), None, "20:14 in Taipei");
        assert_eq!(blackout_until(window, utc(12, 15)), Some(utc(12, 30)));
        assert_eq!(blackout_until(window, utc(12, 29)), Some(utc(12, 30)));
        assert_eq!(blackout_until(window, utc(12, 30)), None, "20:30 in Taipei, open again");
        assert_eq!(blackout_until(Window::FullRefundOnlyForInstallments, utc(12, 20)), None);
    }

    #[test]
    fn keyless_gateways_offer_no_key_and_a_list_and_keyed_ones_a_header() {
        for kind in ProviderKind::ALL {
            let (Some(offer), capabilities) = (kind.offer(), kind.capabilities()) else { continue };
            assert_eq!(matches!(offer.key, KeyOffer::None), !capabilities.honours_keys(), "{kind:?}");
            assert_eq!(!matches!(offer.lookup, LookupOffer::None), capabilities.lookup, "{kind:?}");
        }
        assert!(matches!(
            ProviderKind::Ecpay.offer().map(|offer| offer.lookup),
            Some(LookupOffer::PerRefundList { in_sandbox: false, .. })
        ));
    }
}
