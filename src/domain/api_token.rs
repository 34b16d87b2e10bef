//! What an API token may do and for how long: its scopes (agent tools, ledger reads, ledger
//! writes), its expiry (90 days unless said otherwise, two years at most, never only when asked
//! for on the command line), the grace during which a rotated token's old secret still works, and
//! its status at a given time. Pure: the time is passed in.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// What a token may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The agent tools: `/api/v1/tools/…` and the MCP server at `/mcp`.
    Tools,
    /// Ledger reads: an operation, an order's operations.
    Read,
    /// Ledger writes: register, begin an attempt, record its outcome, cancel.
    Write,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Tools, Scope::Read, Scope::Write];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Tools => "tools",
            Scope::Read => "read",
            Scope::Write => "write",
        }
    }

    pub fn parse(text: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == text.trim())
    }

    fn bit(self) -> u8 {
        match self {
            Scope::Tools => 1,
            Scope::Read => 2,
            Scope::Write => 4,
        }
    }
}

/// A token's scopes: one or more of [`Scope`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scopes(u8);

/// Why a list of scopes was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopesError {
    #[error("choose at least one scope (tools, read, write)")]
    Empty,
    #[error("{0:?} is not a scope; the scopes are tools, read and write")]
    Unknown(String),
}

impl Scopes {
    /// Every scope: what tokens made before scopes existed keep.
    pub const ALL: Scopes = Scopes(7);

    /// The scopes named in `names`, in any order, each once or more; at least one.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Scopes, ScopesError> {
        let mut bits = 0;
        for name in names {
            let name = name.as_ref().trim();
            if name.is_empty() {
                continue;
            }
            let scope = Scope::parse(name).ok_or_else(|| ScopesError::Unknown(name.to_owned()))?;
            bits |= scope.bit();
        }
        if bits == 0 {
            return Err(ScopesError::Empty);
        }
        Ok(Scopes(bits))
    }

    /// The scopes of a comma-separated list, as the command line and the database hold them:
    /// `tools,read`.
    pub fn parse(text: &str) -> Result<Scopes, ScopesError> {
        Scopes::from_names(&text.split(',').collect::<Vec<_>>())
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// The scopes, in the order of [`Scope::ALL`].
    pub fn list(self) -> Vec<Scope> {
        Scope::ALL.into_iter().filter(|scope| self.contains(*scope)).collect()
    }

    /// The comma-separated list, in the order of [`Scope::ALL`]: `tools,read,write`.
    pub fn as_text(self) -> String {
        self.list().iter().map(|scope| scope.as_str()).collect::<Vec<_>>().join(",")
    }
}

/// The most characters a token's name has.
pub const MAX_NAME_CHARS: usize = 64;

/// Why a token's name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a token's name is 1 to {MAX_NAME_CHARS} characters, without line breaks or control characters")]
    Invalid,
}

/// A token's name, trimmed: 1 to [`MAX_NAME_CHARS`] characters, none of them a control character.
pub fn check_name(name: &str) -> Result<&str, NameError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(NameError::Invalid);
    }
    Ok(name)
}

/// How long a new token works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// For this many days (1 to [`MAX_EXPIRY_DAYS`]).
    Days(u32),
    /// Until it is revoked: only the command line, and only when asked to explicitly.
    Never,
}

impl Default for Expiry {
    fn default() -> Self {
        Expiry::Days(DEFAULT_EXPIRY_DAYS)
    }
}

impl Expiry {
    /// When a token made at `now` expires (`None`: never), checked.
    pub fn from(self, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>, ExpiryError> {
        match self {
            Expiry::Days(days) => expiry_after(now, days).map(Some),
            Expiry::Never => Ok(None),
        }
    }
}

/// How long a new token works when its creator says nothing.
pub const DEFAULT_EXPIRY_DAYS: u32 = 90;

/// The longest expiry a token can be given in days (two years); only the command line can make a
/// token that never expires, and only when asked to explicitly.
pub const MAX_EXPIRY_DAYS: u32 = 730;

/// Why an expiry was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpiryError {
    #[error("the expiry must be a whole number of days from 1 to {MAX_EXPIRY_DAYS}")]
    OutOfRange,
}

/// The expiry of a token made `days` from `now`, checked against [`MAX_EXPIRY_DAYS`].
pub fn expiry_after(now: DateTime<Utc>, days: u32) -> Result<DateTime<Utc>, ExpiryError> {
    if days == 0 || days > MAX_EXPIRY_DAYS {
        return Err(ExpiryError::OutOfRange);
    }
    Ok(now + Duration::days(i64::from(days)))
}

/// The expiry in days a form sent (blank: the default), checked.
pub fn expiry_days_from_form(text: &str) -> Result<u32, ExpiryError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(DEFAULT_EXPIRY_DAYS);
    }
    let days: u32 = text.parse().map_err(|_| ExpiryError::OutOfRange)?;
    if days == 0 || days > MAX_EXPIRY_DAYS {
        return Err(ExpiryError::OutOfRange);
    }
    Ok(days)
}

/// The grace periods the console offers when a token is rotated, in hours: none, an hour, a day,
/// a week.
pub const GRACE_CHOICES_HOURS: [u32; 4] = [0, 1, 24, 168];

/// The longest grace a rotated token's old secret can be given, in hours (a week).
pub const MAX_GRACE_HOURS: u32 = 168;

/// Why a grace period was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraceError {
    #[error("the grace period must be a whole number of hours from 0 to {MAX_GRACE_HOURS}")]
    OutOfRange,
}

/// Until when the old secret of a token rotated at `now` keeps working with a grace of `hours`;
/// `None` for no grace (the old secret stops at once).
pub fn grace_until(now: DateTime<Utc>, hours: u32) -> Result<Option<DateTime<Utc>>, GraceError> {
    if hours > MAX_GRACE_HOURS {
        return Err(GraceError::OutOfRange);
    }
    Ok((hours > 0).then(|| now + Duration::hours(i64::from(hours))))
}

/// The grace a form sent, in hours (blank: none), checked.
pub fn grace_hours_from_form(text: &str) -> Result<u32, GraceError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(0);
    }
    let hours: u32 = text.parse().map_err(|_| GraceError::OutOfRange)?;
    if hours > MAX_GRACE_HOURS {
        return Err(GraceError::OutOfRange);
    }
    Ok(hours)
}

/// Where a token stands at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenStatus {
    Active,
    /// Past its expiry: refused like an unknown token.
    Expired,
    /// Revoked by an admin, the command line, or the deactivation of the person who created it.
    Revoked,
}

impl TokenStatus {
    /// The status at `now` of a token revoked at `revoked_at` (if ever) that expires at
    /// `expires_at` (if ever). A revoked token is revoked, whatever its expiry.
    pub fn at(
        now: DateTime<Utc>,
        revoked_at: Option<DateTime<Utc>>,
        expires_at: Option<DateTime<Utc>>,
    ) -> Self {
        if revoked_at.is_some_and(|revoked_at| revoked_at <= now) {
            TokenStatus::Revoked
        } else if expires_at.is_some_and(|expires_at| expires_at <= now) {
            TokenStatus::Expired
        } else {
            TokenStatus::Active
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TokenStatus::Active => "active",
            TokenStatus::Expired => "expired",
            TokenStatus::Revoked => "revoked",
        }
    }
}

/// Whether a call presenting a token's secret is let in at `now`: the token is active, and the
/// secret is its current one, or its previous one within the grace that its rotation gave.
pub fn accepts(
    now: DateTime<Utc>,
    expires_at: Option<DateTime<Utc>>,
    presented_previous_secret: bool,
    previous_valid_until: Option<DateTime<Utc>>,
) -> bool {
    if TokenStatus::at(now, None, expires_at) != TokenStatus::Active {
        return false;
    }
    !presented_previous_secret || previous_valid_until.is_some_and(|until| now < until)
}

/// How often at most the last use of one token is written by one instance: calls in between are
/// counted as that use.
pub const LAST_USE_EVERY_SECONDS: i64 = 60;

/// Whether a use at `now` of a token whose use was last written at `last_written` is written.
pub fn last_use_due(now: DateTime<Utc>, last_written: Option<DateTime<Utc>>) -> bool {
    last_written.is_none_or(|last| now - last >= Duration::seconds(LAST_USE_EVERY_SECONDS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    #[test]
    fn scopes_are_read_in_any_order_and_written_in_one() {
        let scopes = Scopes::parse("write, tools").unwrap();
        assert!(
            scopes.contains(Scope::Tools) && scopes.contains(Scope::Write) && !scopes.contains(Scope::Read)
        );
        assert_eq!(scopes.as_text(), "tools,write");
        assert_eq!(Scopes::parse(&Scopes::ALL.as_text()), Ok(Scopes::ALL));
        assert_eq!(Scopes::parse("read,read").unwrap().list(), vec![Scope::Read]);
    }

    #[test]
    fn a_token_needs_a_known_scope() {
        assert_eq!(Scopes::parse(""), Err(ScopesError::Empty));
        assert_eq!(Scopes::parse(" , "), Err(ScopesError::Empty));
        assert_eq!(Scopes::parse("read,admin"), Err(ScopesError::Unknown("admin".into())));
        assert_eq!(Scopes::from_names::<&str>(&[]), Err(ScopesError::Empty));
    }

    #[test]
    fn expiry_defaults_to_ninety_days_and_stops_at_two_years() {
        assert_eq!(expiry_days_from_form(""), Ok(DEFAULT_EXPIRY_DAYS));
        assert_eq!(expiry_days_from_form(" 30 "), Ok(30));
        assert_eq!(expiry_days_from_form("0"), Err(ExpiryError::OutOfRange));
        assert_eq!(expiry_days_from_form("731"), Err(ExpiryError::OutOfRange));
        assert_eq!(expiry_days_from_form("-1"), Err(ExpiryError::OutOfRange));
        assert_eq!(expiry_days_from_form("never"), Err(ExpiryError::OutOfRange));
        assert_eq!(expiry_after(at(0), 1), Ok(at(86_400)));
        assert_eq!(expiry_after(at(0), MAX_EXPIRY_DAYS + 1), Err(ExpiryError::OutOfRange));
    }

    #[test]
    fn a_name_is_short_and_on_one_line() {
        assert_eq!(check_name("  agent-7 "), Ok("agent-7"));
        assert_eq!(check_name(""), Err(NameError::Invalid));
        assert_eq!(check_name("a\nb"), Err(NameError::Invalid));
        assert_eq!(check_name(&"x".repeat(65)), Err(NameError::Invalid));
        assert_eq!(check_name(&"代".repeat(64)), Ok("代".repeat(64).as_str()));
        assert_eq!(Expiry::default().from(at(0)), Ok(Some(at(90 * 86_400))));
        assert_eq!(Expiry::Never.from(at(0)), Ok(None));
    }

    #[test]
    fn grace_is_none_or_up_to_a_week() {
        assert_eq!(grace_until(at(0), 0), Ok(None));
        assert_eq!(grace_until(at(0), 1), Ok(Some(at(3_600))));
        assert_eq!(grace_until(at(0), 169), Err(GraceError::OutOfRange));
        for hours in GRACE_CHOICES_HOURS {
            assert_eq!(grace_hours_from_form(&hours.to_string()), Ok(hours));
        }
        assert_eq!(grace_hours_from_form(""), Ok(0));
        assert_eq!(grace_hours_from_form("a week"), Err(GraceError::OutOfRange));
    }

    #[test]
    fn status_is_revoked_before_expired_before_active() {
        assert_eq!(TokenStatus::at(at(10), None, None), TokenStatus::Active);
        assert_eq!(TokenStatus::at(at(10), None, Some(at(11))), TokenStatus::Active);
        assert_eq!(TokenStatus::at(at(10), None, Some(at(10))), TokenStatus::Expired);
        assert_eq!(TokenStatus::at(at(10), Some(at(5)), Some(at(1))), TokenStatus::Revoked);
    }

    #[test]
    fn an_old_secret_works_only_within_its_grace() {
        assert!(accepts(at(0), None, false, None), "the current secret of a token that never expires");
        assert!(!accepts(at(0), Some(at(0)), false, None), "an expired token");
        assert!(!accepts(at(0), None, true, None), "an old secret rotated without grace");
        assert!(accepts(at(0), None, true, Some(at(1))), "an old secret within its grace");
        assert!(!accepts(at(1), None, true, Some(at(1))), "an old secret once its grace is over");
        assert!(!accepts(at(0), Some(at(0)), true, Some(at(9))), "an old secret of an expired token");
    }

    #[test]
    fn last_use_is_written_at_most_once_a_minute() {
        assert!(last_use_due(at(0), None));
        assert!(!last_use_due(at(59), Some(at(0))));
        assert!(last_use_due(at(60), Some(at(0))));
    }
}
