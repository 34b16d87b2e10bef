//! Identifiers: tenants, operation ids derived from business intent, attempt numbers and actors.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why an identifier was refused, in words that name the rule it broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} {problem}")]
pub struct InvalidId {
    pub field: &'static str,
    pub problem: String,
}

fn check_token(
    field: &'static str,
    value: &str,
    max_len: usize,
    allowed: impl Fn(char) -> bool,
    allowed_text: &str,
) -> Result<(), InvalidId> {
    if value.is_empty() {
        return Err(InvalidId { field, problem: "must not be empty".into() });
    }
    if value.chars().count() > max_len {
        return Err(InvalidId { field, problem: format!("must be at most {max_len} characters") });
    }
    if let Some(bad) = value.chars().find(|c| !allowed(*c)) {
        return Err(InvalidId {
            field,
            problem: format!("contains {bad:?}; only {allowed_text} are allowed"),
        });
    }
    Ok(())
}

/// A tenant: the scope of every operation id, token, user and audit chain.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TenantId(String);

impl TenantId {
    pub fn parse(value: &str) -> Result<Self, InvalidId> {
        check_token(
            "tenant",
            value,
            64,
            |c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_',
            "lowercase letters, digits, '-' and '_'",
        )?;
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The id of an operation, derived from the business intent (`refund-1043-li_2`), never from a
/// call. A retry of the same intent carries the same id, and so the same downstream key (see
/// [`OpId::downstream_key`]). Unique within a tenant.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct OpId(String);

impl OpId {
    pub const MAX_LEN: usize = 128;

    pub fn parse(value: &str) -> Result<Self, InvalidId> {
        check_token(
            "op_id",
            value,
            Self::MAX_LEN,
            |c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'),
            "letters, digits, '-', '_', '.' and ':'",
        )?;
        Ok(Self(value.to_owned()))
    }

    /// The op id of refunding one line item of one order: `refund-<order>-<line item>`.
    pub fn for_line_item(action: &str, order_id: &str, line_item_id: &str) -> Result<Self, InvalidId> {
        Self::parse(&format!("{action}-{order_id}-{line_item_id}"))
    }

    /// The op id of making this operation again on purpose after it failed at the provider:
    /// `<op id>-retry-2` for a first operation, and `<base>-retry-<n + 1>` for `<base>-retry-<n>`.
    /// Derived from the failed operation alone, so asking twice to retry the same failure is one
    /// intent with one op id, and each retry has a downstream key of its own.
    pub fn retry(&self) -> Result<Self, InvalidId> {
        let numbered = self.0.rsplit_once("-retry-").and_then(|(base, text)| {
            let n: u32 = text.parse().ok()?;
            (n >= 2 && n.to_string() == text).then_some((base, n))
        });
        match numbered {
            Some((base, n)) => Self::parse(&format!("{base}-retry-{}", n + 1)),
            None => Self::parse(&format!("{}-retry-2", self.0)),
        }
    }

    /// The idempotency key sent to providers for this operation of `tenant`: `<tenant>:<op id>`,
    /// e.g. `acme:refund-1043-li_2`. Two tenants' operations with the same op id never share a key
    /// at a provider. A tenant id has no `:`, so the key splits back at its first `:`; it is at most
    /// 64 + 1 + 128 = 193 characters, within Stripe's 255.
    pub fn downstream_key(&self, tenant: &TenantId) -> String {
        format!("{tenant}:{}", self.0)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The business object an operation concerns, e.g. `order:1043`: 1 to 200 letters (any script),
/// digits, spaces and `-_.:/#@+`. Nothing that means something in HTML, a URL's structure aside,
/// or a terminal (no `<`, `>`, `&`, quotes, backslashes or control characters), so a subject is
/// safe in a page title, a link and a log line however it is written out.
pub fn check_subject(value: &str) -> Result<String, InvalidId> {
    let trimmed = value.trim();
    check_token(
        "subject",
        trimmed,
        200,
        |c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ':' | '/' | '#' | '@' | '+'),
        "letters, digits, spaces and '-', '_', '.', ':', '/', '#', '@', '+'",
    )?;
    Ok(trimmed.to_owned())
}

/// The number of one send of an operation, starting at 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AttemptNumber(pub u32);

impl AttemptNumber {
    pub const FIRST: AttemptNumber = AttemptNumber(1);

    pub fn next(self) -> AttemptNumber {
        AttemptNumber(self.0 + 1)
    }
}

/// Who acts: a person of the console with a role, an agent behind an API token, or opledger's
/// own executor and reconciler.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Actor {
    /// The person's user name, the API token's name or the worker's name.
    pub name: String,
    pub kind: ActorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "role")]
pub enum ActorKind {
    Human(crate::domain::policy::Role),
    Agent,
    System,
}

impl Actor {
    pub fn human(name: &str, role: crate::domain::policy::Role) -> Self {
        Self { name: name.to_owned(), kind: ActorKind::Human(role) }
    }

    pub fn agent(token_name: &str) -> Self {
        Self { name: token_name.to_owned(), kind: ActorKind::Agent }
    }

    pub fn system(worker: &str) -> Self {
        Self { name: worker.to_owned(), kind: ActorKind::System }
    }

    /// The label written in audit events: a role for people, `agent` or `system` otherwise.
    pub fn role_label(&self) -> &'static str {
        match self.kind {
            ActorKind::Human(role) => role.as_str(),
            ActorKind::Agent => "agent",
            ActorKind::System => "system",
        }
    }
}

macro_rules! string_id_impls {
    ($($ty:ty),*) => {$(
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl TryFrom<String> for $ty {
            type Error = InvalidId;
            fn try_from(value: String) -> Result<Self, Self::Error> {
                Self::parse(&value)
            }
        }
        impl From<$ty> for String {
            fn from(value: $ty) -> String {
                value.0
            }
        }
    )*};
}
string_id_impls!(TenantId, OpId);

impl fmt::Display for AttemptNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_and_op_ids_hold_no_markup_or_control_characters() {
        assert_eq!(check_subject(" order:1043 ").unwrap(), "order:1043");
        assert_eq!(check_subject("訂單 #1043/退款").unwrap(), "訂單 #1043/退款");
        for hostile in [
            "</title><script>alert(1)</script>",
            "a\"b",
            "a'b",
            "a&b",
            "line\nbreak",
            "tab\there",
            "a\\b",
            "",
        ] {
            assert!(check_subject(hostile).is_err(), "{hostile:?}");
        }
        assert!(OpId::parse("</title><script>").is_err());
        assert!(OpId::parse("refund-1043\n").is_err());
    }

    #[test]
    fn a_retry_after_a_failure_has_an_op_id_of_its_own_derived_from_the_failed_one() {
        let first = OpId::parse("refund-1043-li_2").unwrap();
        let second = first.retry().unwrap();
        assert_eq!(second.as_str(), "refund-1043-li_2-retry-2");
        assert_eq!(second.retry().unwrap().as_str(), "refund-1043-li_2-retry-3");
        assert_eq!(first.retry().unwrap(), second, "asking twice is one intent");
        let odd = OpId::parse("refund-1043-li_2-retry-x").unwrap();
        assert_eq!(odd.retry().unwrap().as_str(), "refund-1043-li_2-retry-x-retry-2");
        let padded = OpId::parse("refund-1043-li_2-retry-02").unwrap();
        assert_eq!(padded.retry().unwrap().as_str(), "refund-1043-li_2-retry-02-retry-2");
        assert!(OpId::parse(&"x".repeat(OpId::MAX_LEN)).unwrap().retry().is_err());
    }

    #[test]
    fn op_id_is_derived_from_the_intent_not_the_call() {
        let first = OpId::for_line_item("refund", "1043", "li_2").unwrap();
        let retry = OpId::for_line_item("refund", "1043", "li_2").unwrap();
        let other_item = OpId::for_line_item("refund", "1043", "li_1").unwrap();
        assert_eq!(first.as_str(), "refund-1043-li_2");
        assert_eq!(first, retry);
        assert_ne!(first, other_item);
    }

    #[test]
    fn downstream_keys_are_scoped_by_tenant_and_fit_stripes_limit() {
        let op_id = OpId::parse("refund-1043-li_2").unwrap();
        let acme = TenantId::parse("acme").unwrap();
        let globex = TenantId::parse("globex").unwrap();
        assert_eq!(op_id.downstream_key(&acme), "acme:refund-1043-li_2");
        assert_ne!(op_id.downstream_key(&acme), op_id.downstream_key(&globex));
        let longest = OpId::parse(&format!("a:{}", "b".repeat(OpId::MAX_LEN - 2))).unwrap();
        let key = longest.downstream_key(&TenantId::parse(&"t".repeat(64)).unwrap());
        assert!(key.len() <= 255, "{}", key.len());
        assert_eq!(key.split_once(':').unwrap().1, longest.as_str(), "the first ':' ends the tenant");
    }

    #[test]
    fn malformed_ids_are_refused_with_the_rule_they_broke() {
        assert_eq!(OpId::parse("").unwrap_err().problem, "must not be empty");
        let spaced = OpId::parse("refund 1043").unwrap_err();
        assert!(spaced.to_string().starts_with("op_id contains ' '"), "{spaced}");
        assert!(OpId::parse(&"x".repeat(129)).is_err());
        assert!(TenantId::parse("Acme").is_err());
        assert!(TenantId::parse("acme-shop").is_ok());
    }

    #[test]
    fn ids_deserialize_through_validation() {
        assert!(serde_json::from_str::<OpId>("\"refund-1043-li_2\"").is_ok());
        assert!(serde_json::from_str::<OpId>("\"bad id\"").is_err());
    }
}
