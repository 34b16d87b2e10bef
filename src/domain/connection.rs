//! Provider connections: which kind of API a tenant's provider speaks, and the rules for a
//! provider's name. The secret itself never enters the domain.

use serde::{Deserialize, Serialize};

/// The provider name of refunds (a Stripe account).
pub const REFUNDS_PROVIDER: &str = "stripe";
/// The provider name of after-sale tickets and pickups.
pub const SERVICES_PROVIDER: &str = "sandbox";
/// The provider name of a shop's own orders endpoint, when its orders are not on Stripe Checkout.
pub const ORDERS_PROVIDER: &str = "orders";

/// The API a provider connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// Stripe's refunds API (Stripe itself, or the sandbox).
    Stripe,
    /// The after-sale and pickup services.
    Services,
    /// A shop's own orders endpoint (`GET {base}/orders/{id}`), for shops not on Stripe Checkout.
    Orders,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 3] = [ProviderKind::Stripe, ProviderKind::Services, ProviderKind::Orders];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Stripe => "stripe",
            ProviderKind::Services => "services",
            ProviderKind::Orders => "orders",
        }
    }

    pub fn parse(text: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    /// The kinds of operation a connector of this kind performs when the server sends one: the
    /// actions an operation can be bound to. Anything else it is asked to send is refused.
    pub fn performs(self) -> &'static [&'static str] {
        match self {
            ProviderKind::Stripe => &["refund"],
            ProviderKind::Services => &["create_aftersale", "cancel_aftersale", "schedule_pickup"],
            ProviderKind::Orders => &[],
        }
    }

    /// The action an operation of `kind` is bound to at a provider of this kind, or `None` when
    /// this kind of provider performs nothing of the sort (the server then never sends it).
    pub fn action_for(self, kind: &str) -> Option<&'static str> {
        self.performs().iter().copied().find(|action| *action == kind)
    }

    /// How long an operation the provider accepted may stay pending there before people are
    /// asked to look at it (the reconciler follows it meanwhile). Stripe holds a refund pending
    /// while its balance cannot cover it or the payment has not settled: three days is long past
    /// the usual. The services answer once done, so nothing of theirs is pending.
    pub fn pending_limit(self) -> chrono::Duration {
        match self {
            ProviderKind::Stripe => chrono::Duration::days(3),
            ProviderKind::Services | ProviderKind::Orders => chrono::Duration::hours(1),
        }
    }
}

/// The kind of the server's own connection for `provider`, which a tenant it serves uses when it
/// has none of its own: refunds at `stripe`, after-sale tickets and pickups at `sandbox`.
pub fn server_kind_of(provider: &str) -> Option<ProviderKind> {
    match provider {
        REFUNDS_PROVIDER => Some(ProviderKind::Stripe),
        SERVICES_PROVIDER => Some(ProviderKind::Services),
        _ => None,
    }
}

/// A provider's name as operations carry it (`stripe`, `sandbox`, `stripe-eu`): 1 to 32
/// lowercase letters, digits, '-' or '_'.
pub fn valid_provider_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// The last four characters of a secret, all that is ever shown of it again.
pub fn last_four(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    chars[chars.len().saturating_sub(4)..].iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_names_are_read_strictly() {
        for kind in ProviderKind::ALL {
            assert_eq!(ProviderKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ProviderKind::parse("paypal"), None);
        assert!(valid_provider_name("stripe-eu"));
        assert!(!valid_provider_name("Stripe"));
        assert!(!valid_provider_name(""));
        assert!(!valid_provider_name(&"x".repeat(33)));
    }

    #[test]
    fn an_operation_is_bound_only_to_what_its_provider_performs_never_to_a_label() {
        assert_eq!(ProviderKind::Stripe.action_for("refund"), Some("refund"));
        assert_eq!(ProviderKind::Stripe.action_for("refund_manual"), None);
        assert_eq!(ProviderKind::Stripe.action_for("create_aftersale"), None);
        assert_eq!(ProviderKind::Services.action_for("schedule_pickup"), Some("schedule_pickup"));
        assert_eq!(ProviderKind::Services.action_for("refund"), None);
        assert_eq!(ProviderKind::Orders.action_for("refund"), None);
        assert_eq!(server_kind_of("stripe"), Some(ProviderKind::Stripe));
        assert_eq!(server_kind_of("stripe-eu"), None);
    }

    #[test]
    fn only_the_last_four_characters_of_a_secret_are_kept() {
        assert_eq!(last_four("sk_test_51Habc9f2"), "c9f2");
        assert_eq!(last_four("ab"), "ab");
    }
}
