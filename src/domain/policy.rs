//! Roles and what they open: the console's sections each role may see, who may approve, what an
//! approval is bound to, when it expires, and which operations need one.

use crate::t;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::language::Language;
use super::money::Money;
use super::params::Fingerprint;

/// The roles of people in the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Views everything; reconciles, compensates, cancels and escalates.
    Support,
    /// Everything support does, plus approving and denying other people's requests.
    Manager,
    /// Reads and exports; changes nothing.
    Auditor,
    /// Manages users, API tokens and approval policies; does not act on operations.
    Admin,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Support, Role::Manager, Role::Auditor, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Support => "support",
            Role::Manager => "manager",
            Role::Auditor => "auditor",
            Role::Admin => "admin",
        }
    }

    /// The role's name for people reading `language`.
    pub fn label_in(self, language: Language) -> String {
        match self {
            Role::Support => t!(language, "role-support"),
            Role::Manager => t!(language, "role-manager"),
            Role::Auditor => t!(language, "role-auditor"),
            Role::Admin => t!(language, "role-admin"),
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == text)
    }

    /// Whether people of this role change operations (reconcile, compensate, cancel, bulk
    /// actions). Auditors and admins never do.
    pub fn acts_on_operations(self) -> bool {
        matches!(self, Role::Support | Role::Manager)
    }
}

/// The console's sections. Each is open to some roles; the server checks this on every page and
/// every server function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Overview,
    Operations,
    Orders,
    Conflicts,
    Approvals,
    Reconcile,
    Audit,
    Admin,
}

impl Section {
    pub const ALL: [Section; 8] = [
        Section::Overview,
        Section::Operations,
        Section::Orders,
        Section::Conflicts,
        Section::Approvals,
        Section::Reconcile,
        Section::Audit,
        Section::Admin,
    ];

    /// Whether `role` may open this section. Everyone sees the operations; approvals are for
    /// managers (and auditors, who read everything); the audit trail is for auditors and managers;
    /// the admin page is the admin's alone.
    pub fn allows(self, role: Role) -> bool {
        match self {
            Section::Overview
            | Section::Operations
            | Section::Orders
            | Section::Conflicts
            | Section::Reconcile => true,
            Section::Approvals | Section::Audit => {
                matches!(role, Role::Manager | Role::Auditor | Role::Admin)
            }
            Section::Admin => role == Role::Admin,
        }
    }

    pub fn path(self) -> &'static str {
        match self {
            Section::Overview => "/",
            Section::Operations => "/operations",
            Section::Orders => "/orders",
            Section::Conflicts => "/conflicts",
            Section::Approvals => "/approvals",
            Section::Reconcile => "/reconcile",
            Section::Audit => "/audit",
            Section::Admin => "/admin",
        }
    }

    pub fn label(self, language: Language) -> String {
        match self {
            Section::Overview => t!(language, "section-overview"),
            Section::Operations => t!(language, "section-operations"),
            Section::Orders => t!(language, "section-orders"),
            Section::Conflicts => t!(language, "section-conflicts"),
            Section::Approvals => t!(language, "section-approvals"),
            Section::Reconcile => t!(language, "section-reconcile"),
            Section::Audit => t!(language, "section-audit"),
            Section::Admin => t!(language, "section-admin"),
        }
    }
}

/// A manager's approval of one operation, bound to the fingerprint of the parameters they saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Approval {
    pub approver: String,
    #[cfg_attr(feature = "ssr", schema(value_type = String))]
    pub fingerprint: Fingerprint,
    pub granted_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Why an approval does not allow a send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalProblem {
    /// The parameters are not the ones that were approved.
    OtherFingerprint,
    Expired,
}

impl Approval {
    /// Whether this approval still covers parameters with `fingerprint` at `now`.
    pub fn covers(&self, fingerprint: &Fingerprint, now: DateTime<Utc>) -> Result<(), ApprovalProblem> {
        if &self.fingerprint != fingerprint {
            return Err(ApprovalProblem::OtherFingerprint);
        }
        if now >= self.expires_at {
            return Err(ApprovalProblem::Expired);
        }
        Ok(())
    }
}

/// Four-eyes: nobody approves what they requested themselves.
pub fn is_own_request(requested_by: &str, approver: &str) -> bool {
    requested_by == approver
}

/// One rule of an approval policy: operations of `kind` ([`ANY_KIND`] for every kind) at
/// `provider`, if set, need a manager's approval when their `amount` reaches `threshold`. The kind
/// is what the server does when it sends the operation (`refund`), as it was bound when the
/// operation was recorded, never a label the caller chose. A threshold applies to amounts in its
/// own currency only; a rule without a threshold applies to every amount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRule {
    pub kind: String,
    pub provider: Option<String>,
    pub threshold: Option<Money>,
}

/// The kind of a rule that applies to operations of every kind.
pub const ANY_KIND: &str = "*";

impl ApprovalRule {
    /// The rule in words: `refund operations at stripe from TWD 1,000.00 up need a manager's approval`.
    pub fn sentence(&self) -> String {
        let at = self.provider.as_deref().map(|p| format!(" at {p}")).unwrap_or_default();
        let from = self.threshold.map(|t| format!(" from {t} up")).unwrap_or_default();
        let kind = if self.kind == ANY_KIND {
            "Operations of any kind"
        } else {
            &format!("{} operations", self.kind)
        };
        format!("{kind}{at}{from} need a manager's approval")
    }

    pub fn applies_to(&self, kind: &str, provider: &str, amount: Option<Money>) -> bool {
        let kind_matches = self.kind == ANY_KIND || self.kind == kind;
        if !kind_matches || self.provider.as_deref().is_some_and(|p| p != provider) {
            return false;
        }
        match (self.threshold, amount) {
            (None, _) => true,
            (Some(threshold), Some(amount)) => {
                amount.currency == threshold.currency && amount.minor >= threshold.minor
            }
            (Some(_), None) => false,
        }
    }
}

/// Whether an operation needs approval under `rules`: when any rule applies. No rules, no approvals.
pub fn requires_approval(rules: &[ApprovalRule], kind: &str, provider: &str, amount: Option<Money>) -> bool {
    rule_requiring_approval(rules, kind, provider, amount).is_some()
}

/// The first of `rules` that asks a manager to approve an operation of `kind` at `provider`
/// moving `amount`, to say why it needs one.
pub fn rule_requiring_approval<'a>(
    rules: &'a [ApprovalRule],
    kind: &str,
    provider: &str,
    amount: Option<Money>,
) -> Option<&'a ApprovalRule> {
    rules.iter().find(|rule| rule.applies_to(kind, provider, amount))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Currency;
    use crate::domain::params::CanonicalParams;
    use chrono::TimeZone;

    fn twd(minor: i64) -> Money {
        Money::new(minor, Currency::parse("TWD").unwrap())
    }

    #[test]
    fn thresholds_apply_per_kind_provider_and_currency() {
        let rules = vec![ApprovalRule {
            kind: "refund".into(),
            provider: Some("stripe".into()),
            threshold: Some(twd(100_000)),
        }];
        assert!(requires_approval(&rules, "refund", "stripe", Some(twd(120_000))));
        assert!(requires_approval(&rules, "refund", "stripe", Some(twd(100_000))));
        assert!(!requires_approval(&rules, "refund", "stripe", Some(twd(38_000))));
        assert!(!requires_approval(&rules, "refund", "adyen", Some(twd(120_000))));
        assert!(!requires_approval(&rules, "create_aftersale", "stripe", Some(twd(120_000))));
        let cny = Money::new(120_000, Currency::parse("CNY").unwrap());
        assert!(!requires_approval(&rules, "refund", "stripe", Some(cny)));
        assert!(!requires_approval(&[], "refund", "stripe", Some(twd(1_000_000))));
    }

    #[test]
    fn a_rule_by_provider_only_catches_every_kind_there() {
        let rules = vec![ApprovalRule {
            kind: ANY_KIND.into(),
            provider: Some("stripe".into()),
            threshold: Some(twd(100_000)),
        }];
        assert!(requires_approval(&rules, "refund_manual", "stripe", Some(twd(150_000))));
        assert!(requires_approval(&rules, "refund", "stripe", Some(twd(150_000))));
        assert!(!requires_approval(&rules, "refund", "sandbox", Some(twd(150_000))));
        assert_eq!(
            rules[0].sentence(),
            "Operations of any kind at stripe from TWD 1000.00 up need a manager's approval"
        );
    }

    #[test]
    fn only_admins_open_the_admin_page_and_support_stays_out_of_approvals_and_audit() {
        for section in Section::ALL {
            assert!(section.allows(Role::Admin), "{section:?}");
        }
        assert_eq!(Section::ALL.iter().filter(|s| s.allows(Role::Support)).count(), 5);
        for role in [Role::Support, Role::Manager, Role::Auditor] {
            assert!(!Section::Admin.allows(role), "{role:?}");
        }
        assert!(!Section::Approvals.allows(Role::Support));
        assert!(!Section::Audit.allows(Role::Support));
        assert!(Section::Audit.allows(Role::Auditor));
    }

    #[test]
    fn an_approval_covers_only_its_fingerprint_until_it_expires() {
        let params = CanonicalParams::from_json(r#"{"amount":{"minor":38000,"currency":"TWD"}}"#).unwrap();
        let other = CanonicalParams::from_json(r#"{"amount":{"minor":76000,"currency":"TWD"}}"#).unwrap();
        let granted_at = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap();
        let approval = Approval {
            approver: "mei".into(),
            fingerprint: params.fingerprint(),
            granted_at,
            expires_at: granted_at + chrono::Duration::hours(1),
        };
        assert_eq!(approval.covers(&params.fingerprint(), granted_at), Ok(()));
        assert_eq!(approval.covers(&other.fingerprint(), granted_at), Err(ApprovalProblem::OtherFingerprint));
        assert_eq!(
            approval.covers(&params.fingerprint(), granted_at + chrono::Duration::hours(1)),
            Err(ApprovalProblem::Expired)
        );
    }

    #[test]
    fn roles_round_trip_through_their_names() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("root"), None);
    }
}
