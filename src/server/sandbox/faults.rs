//! Fault injection: faults set at run time for requests whose idempotency key or op id (what the
//! request carries that names its operation: Stripe's `metadata[op_id]`, Adyen's `reference`,
//! PayPal's `custom_id`, a message's `X-Opledger-Op`; at LINE Pay and ECPay, which take no key, the
//! payment's `transactionId` or `orderId`, and its `MerchantTradeNo`) matches a glob, each used a
//! number of times.
//! Matching the op id lets one pattern (`refund-1043-*`) catch every tenant's key for those
//! operations.

use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Commit the request, then never answer: the caller times out.
    DropResponse,
    /// Wait `ms` before handling the request.
    Delay,
    /// Answer 500 without doing anything; the 500 is remembered for the key.
    #[serde(rename = "error_500_before")]
    Error500Before,
    /// Do the request, then answer 500; the 500 is remembered for the key.
    #[serde(rename = "error_500_after")]
    Error500After,
    /// Answer 429 with `Retry-After` without doing anything or remembering the key.
    RateLimit,
    /// Decline the request with a business error; remembered for the key.
    BusinessReject,
    /// Hide objects created under the key from lookups for `ms` after their creation.
    LookupLag,
    /// Create the refund `pending`; after `ms` it settles to `then` (`succeeded`, `failed` with
    /// `failure_reason`, or `canceled`), or stays pending without one.
    Pending,
    /// Create the refund `requires_action`, which it keeps.
    RequiresAction,
    /// Answer that the request is still being processed (LINE Pay's `1198`) without doing it.
    ProcessingBefore,
    /// Do the request, then answer that it is still being processed (LINE Pay's `1198`).
    ProcessingAfter,
}

/// One fault: what to do to requests whose idempotency key or op id matches `pattern`.
#[derive(Debug, Clone, Deserialize)]
pub struct Fault {
    #[serde(rename = "match")]
    pub pattern: String,
    pub fault: FaultKind,
    #[serde(default = "one")]
    pub times: u32,
    #[serde(default)]
    pub ms: u64,
    /// For `pending`: the status it settles to.
    #[serde(default)]
    pub then: Option<String>,
    /// For `pending` that settles `failed`: Stripe's reason (`expired_or_canceled_card`, …).
    #[serde(default)]
    pub failure_reason: Option<String>,
}

/// The status a `pending` fault's `then` names, or why it names none the sandbox knows.
pub(super) fn settled_status(then: Option<&str>) -> Result<Option<&'static str>, String> {
    match then {
        None => Ok(None),
        Some("succeeded") => Ok(Some("succeeded")),
        Some("failed") => Ok(Some("failed")),
        Some("canceled") => Ok(Some("canceled")),
        Some(other) => Err(format!("then must be succeeded, failed or canceled, not {other:?}")),
    }
}

fn one() -> u32 {
    1
}

impl Fault {
    /// One use of `fault` for requests matching `pattern`, with `ms` where the fault takes it.
    pub fn once(pattern: &str, fault: FaultKind, ms: u64) -> Fault {
        Fault { pattern: pattern.to_owned(), fault, times: 1, ms, then: None, failure_reason: None }
    }

    /// A refund matching `pattern` created `pending`, settling after `ms` to `then` (`succeeded`,
    /// `failed` for `failure_reason`, or `canceled`).
    pub fn settling(pattern: &str, ms: u64, then: &str, failure_reason: Option<&str>) -> Fault {
        Fault {
            then: Some(then.to_owned()),
            failure_reason: failure_reason.map(str::to_owned),
            ..Fault::once(pattern, FaultKind::Pending, ms)
        }
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters and `?` for one.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut p, mut t, mut star, mut resume) = (0, 0, None, 0);
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some(p);
            p += 1;
            resume = t;
        } else if let Some(star_at) = star {
            p = star_at + 1;
            resume += 1;
            t = resume;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

fn matches_any(pattern: &str, names: &[&str]) -> bool {
    names.iter().any(|name| glob_matches(pattern, name))
}

/// Takes one use of the first of `faults` of `kinds` whose pattern matches one of `names`.
pub(super) fn take(faults: &mut Vec<Fault>, names: &[&str], kinds: &[FaultKind]) -> Option<Fault> {
    let index = faults.iter().position(|f| kinds.contains(&f.fault) && matches_any(&f.pattern, names))?;
    let fault = faults[index].clone();
    faults[index].times -= 1;
    if faults[index].times == 0 {
        faults.remove(index);
    }
    Some(fault)
}

/// The lag set for one of `names`, without using the fault up (a lag applies to every lookup).
pub(super) fn lookup_lag_ms(faults: &[Fault], names: &[&str]) -> u64 {
    faults
        .iter()
        .filter(|f| f.fault == FaultKind::LookupLag && matches_any(&f.pattern, names))
        .map(|f| f.ms)
        .max()
        .unwrap_or(0)
}

/// Whether `fault` may be set where `known` faults are acted on: one of them, used at least once,
/// and a status to settle to that exists.
pub(super) fn check(fault: &Fault, known: &[FaultKind]) -> Result<(), String> {
    if !known.contains(&fault.fault) {
        let names: Vec<String> =
            known.iter().filter_map(|kind| json!(kind).as_str().map(str::to_owned)).collect();
        return Err(format!("this sandbox knows the faults {}", names.join(", ")));
    }
    if fault.times == 0 {
        return Err("times must be at least 1".into());
    }
    settled_status(fault.then.as_deref()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::glob_matches;

    #[test]
    fn globs_match_like_shell_patterns() {
        assert!(glob_matches("refund-1043-*", "refund-1043-li_2"));
        assert!(glob_matches("*", "anything"));
        assert!(glob_matches("refund-104?-li_2", "refund-1043-li_2"));
        assert!(glob_matches("*li_2", "refund-1043-li_2"));
        assert!(!glob_matches("refund-1043-*", "refund-1044-li_2"));
        assert!(!glob_matches("refund", "refund-1043"));
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(!glob_matches("a*b*c", "axxbyy"));
    }
}
