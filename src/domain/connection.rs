//! Provider connections: which kind of API a tenant's provider speaks, what each kind can answer
//! (how long it remembers an idempotency key and how long a key may be, what a re-send under the
//! key gets after a server error, whether an operation can be looked up, whether outcomes come
//! later), the key each kind is sent, and the rules for a provider's name. The state machine and the reconciler read these capabilities, never a
//! provider's name. The secret itself never enters the domain.

use chrono::Duration;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
    /// Adyen's Checkout API (refunds of a payment by its pspReference), or its sandbox.
    Adyen,
    /// PayPal's Payments v2 API (refunds of a capture), or its sandbox.
    PayPal,
    /// A tenant's own HTTP API, as its description says it works (`domain::http_api`).
    Http,
    /// An email API in Resend's shape (`POST /emails` under `Idempotency-Key`, remembered 24 h).
    Email,
    /// Plain SMTP: neither a key nor a lookup, so every message is sent at most once.
    Smtp,
    /// ECPay's AIO credit card API (綠界): refunds through `CreditDetail/DoAction` under
    /// CheckMacValue, no key at all, looked up in `CreditDetail/QueryTrade/V2` (`domain::ecpay`).
    Ecpay,
    /// LINE Pay's Online API v3: refunds of a transaction under an HMAC signature, no key at all,
    /// looked up in the payment's `refundList` (`domain::linepay`).
    LinePay,
}

/// What a kind of provider can answer, which the state machine and the reconciler go by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// How long the provider remembers an idempotency key: within it a re-send with the same key
    /// is answered with the first result; past it a re-send could do the thing twice.
    pub key_retention: Duration,
    /// The longest idempotency key it takes.
    pub key_max_len: usize,
    /// What a re-send under the same key gets after the downstream answered a server error (5xx).
    pub after_5xx: After5xx,
    /// Whether an operation can be looked up at the provider by what it wrote there.
    pub lookup: bool,
    /// Whether the provider's payment can be read before a refund (the amount left to refund);
    /// without it the shop's order and the ledger's own refunds say what is left.
    pub payment_read: bool,
    /// Whether the business result may come later than the answer (pending, then a webhook).
    pub outcomes_later: bool,
    /// How long after a send its lookup may still miss what the send did: an empty lookup within
    /// it proves nothing, and one after it goes to people (for a downstream without a key).
    pub lookup_lag: Duration,
}

/// What a downstream that honours a key does with a re-send under that key after it answered a
/// server error (5xx): `after_5xx` in a description (`domain::http_api`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum After5xx {
    /// It replays its first answer to the key, the 5xx included (Stripe's cached 500): a re-send
    /// under the key is pointless, and only a lookup or a person settles the operation.
    SameKey,
    /// It runs a re-send under the same key again: the operation is re-sent once with the same
    /// key within the key's window.
    Retry,
    /// Not known: treated as `same_key`, since a re-send is never assumed to be run again.
    #[default]
    Unknown,
}

impl After5xx {
    pub const ALL: [After5xx; 3] = [After5xx::SameKey, After5xx::Retry, After5xx::Unknown];

    pub fn as_str(self) -> &'static str {
        match self {
            After5xx::SameKey => "same_key",
            After5xx::Retry => "retry",
            After5xx::Unknown => "unknown",
        }
    }

    pub fn parse(text: &str) -> Option<After5xx> {
        After5xx::ALL.into_iter().find(|value| value.as_str() == text)
    }

    /// Whether a re-send under the same key after a 5xx would only get the 5xx again, as far as
    /// anyone can tell: unless the downstream is known to run it again, it is taken to.
    pub fn replays(self) -> bool {
        match self {
            After5xx::SameKey | After5xx::Unknown => true,
            After5xx::Retry => false,
        }
    }
}

/// How a lost answer can be settled at a downstream, from what it honours: the four cases of a
/// request whose result is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Settles {
    /// It honours a key and can be asked: look it up, and re-send with the same key while it is
    /// remembered.
    KeyAndLookup,
    /// It honours a key and cannot be asked: re-send with the same key within its window, then
    /// people.
    KeyOnly,
    /// It can be asked and honours no key: look it up, never re-send; an empty lookup after the
    /// settle window goes to people.
    LookupOnly,
    /// Neither: it is sent at most once, and a lost answer goes straight to people.
    AtMostOnce,
}

impl Capabilities {
    /// What a downstream honouring nothing can do: be sent to once.
    pub const NOTHING: Capabilities = Capabilities {
        key_retention: Duration::zero(),
        key_max_len: 255,
        after_5xx: After5xx::Unknown,
        lookup: false,
        payment_read: true,
        outcomes_later: false,
        lookup_lag: Duration::zero(),
    };

    /// Whether a re-send with the same key is recognised downstream at all.
    pub fn honours_keys(&self) -> bool {
        self.key_retention > Duration::zero()
    }

    /// Which of the four cases a lost answer falls into.
    pub fn settles(&self) -> Settles {
        match (self.honours_keys(), self.lookup) {
            (true, true) => Settles::KeyAndLookup,
            (true, false) => Settles::KeyOnly,
            (false, true) => Settles::LookupOnly,
            (false, false) => Settles::AtMostOnce,
        }
    }
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 10] = [
        ProviderKind::Stripe,
        ProviderKind::Adyen,
        ProviderKind::PayPal,
        ProviderKind::Ecpay,
        ProviderKind::LinePay,
        ProviderKind::Services,
        ProviderKind::Email,
        ProviderKind::Smtp,
        ProviderKind::Http,
        ProviderKind::Orders,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Stripe => "stripe",
            ProviderKind::Services => "services",
            ProviderKind::Orders => "orders",
            ProviderKind::Adyen => "adyen",
            ProviderKind::PayPal => "paypal",
            ProviderKind::Http => "http",
            ProviderKind::Email => "email",
            ProviderKind::Smtp => "smtp",
            ProviderKind::Ecpay => "ecpay",
            ProviderKind::LinePay => "linepay",
        }
    }

    /// What this kind of provider remembers, takes and answers, from its published documentation:
    /// Stripe keeps a key at least 24 h (255 characters) and replays its first answer to it, "500
    /// errors" included; Adyen at least 31 days (64 characters), and has no lookup in its Checkout
    /// API, so outcomes come by webhook; PayPal 45 days, with `PayPal-Request-Id` of up to 108
    /// characters, and calls that failed with a 5xx may be retried under it; the email API in
    /// Resend's shape 24 h (256 characters). What Adyen and Resend do with a re-send after their
    /// 5xx is not established from their pages, so it is not known. The services are this
    /// project's own after-sale API, which replays its first answer to a key as Stripe does. A
    /// described HTTP API honours what its description declares, per operation kind
    /// (`HttpApi::capabilities`); the kind alone promises nothing.
    pub fn capabilities(self) -> Capabilities {
        match self {
            ProviderKind::Stripe => Capabilities {
                key_retention: Duration::hours(24),
                key_max_len: 255,
                after_5xx: After5xx::SameKey,
                lookup: true,
                payment_read: true,
                outcomes_later: true,
                lookup_lag: Duration::zero(),
            },
            ProviderKind::Adyen => Capabilities {
                key_retention: Duration::days(31),
                key_max_len: 64,
                after_5xx: After5xx::Unknown,
                lookup: false,
                payment_read: false,
                outcomes_later: true,
                lookup_lag: Duration::zero(),
            },
            ProviderKind::PayPal => Capabilities {
                key_retention: Duration::days(45),
                key_max_len: 108,
                after_5xx: After5xx::Retry,
                lookup: true,
                payment_read: true,
                outcomes_later: true,
                lookup_lag: Duration::zero(),
            },
            ProviderKind::Ecpay => Capabilities {
                key_retention: Duration::zero(),
                key_max_len: 255,
                after_5xx: After5xx::Unknown,
                lookup: true,
                payment_read: true,
                outcomes_later: true,
                lookup_lag: Duration::minutes(10),
            },
            ProviderKind::LinePay => Capabilities {
                key_retention: Duration::zero(),
                key_max_len: 255,
                after_5xx: After5xx::Unknown,
                lookup: true,
                payment_read: true,
                outcomes_later: false,
                lookup_lag: Duration::minutes(5),
            },
            ProviderKind::Http | ProviderKind::Smtp => Capabilities::NOTHING,
            ProviderKind::Email => Capabilities {
                key_retention: Duration::hours(24),
                key_max_len: 256,
                after_5xx: After5xx::Unknown,
                lookup: false,
                payment_read: true,
                outcomes_later: false,
                lookup_lag: Duration::zero(),
            },
            ProviderKind::Services | ProviderKind::Orders => Capabilities {
                key_retention: Duration::hours(24),
                key_max_len: 255,
                after_5xx: After5xx::SameKey,
                lookup: true,
                payment_read: true,
                outcomes_later: false,
                lookup_lag: Duration::zero(),
            },
        }
    }

    /// Whether a connection of this kind names an account besides its secret: Adyen's merchant
    /// account, PayPal's client id, the sender an email is sent from.
    pub fn needs_account(self) -> bool {
        matches!(
            self,
            ProviderKind::Adyen
                | ProviderKind::PayPal
                | ProviderKind::Email
                | ProviderKind::Smtp
                | ProviderKind::Ecpay
                | ProviderKind::LinePay
        )
    }

    pub fn parse(text: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    /// The kinds of operation a connector of this kind performs when the server sends one: the
    /// actions an operation can be bound to. Anything else it is asked to send is refused. A
    /// described HTTP API performs the kinds its description serves.
    pub fn performs(self) -> &'static [&'static str] {
        match self {
            ProviderKind::Stripe
            | ProviderKind::Adyen
            | ProviderKind::PayPal
            | ProviderKind::Ecpay
            | ProviderKind::LinePay => &["refund"],
            ProviderKind::Services => &["create_aftersale", "cancel_aftersale", "schedule_pickup"],
            ProviderKind::Email | ProviderKind::Smtp => &["send_email"],
            ProviderKind::Orders | ProviderKind::Http => &[],
        }
    }

    /// The action an operation of `kind` is bound to at a provider of this kind, or `None` when
    /// this kind of provider performs nothing of the sort (the server then never sends it).
    pub fn action_for(self, kind: &str) -> Option<&'static str> {
        self.performs().iter().copied().find(|action| *action == kind)
    }

    /// How long an operation the provider accepted may stay pending there before people are
    /// asked to look at it (the reconciler follows it meanwhile). Stripe holds a refund pending
    /// while its balance cannot cover it or the payment has not settled, and PayPal an eCheck's:
    /// three days is long past the usual; a described API's pending operation, a day. Adyen sends a refund's outcome by webhook, usually
    /// within hours: a day without one needs a person. The services answer once done, so nothing
    /// of theirs is pending.
    pub fn pending_limit(self) -> Duration {
        match self {
            ProviderKind::Stripe | ProviderKind::PayPal => Duration::days(3),
            ProviderKind::Adyen => Duration::days(1),
            ProviderKind::Services | ProviderKind::Orders | ProviderKind::Email | ProviderKind::Smtp => {
                Duration::hours(1)
            }
            ProviderKind::Http => Duration::days(1),
            ProviderKind::Ecpay => Duration::days(2),
            ProviderKind::LinePay => Duration::hours(1),
        }
    }
}

/// The idempotency key `full` (`<tenant>:<op id>`, see `OpId::downstream_key`) as a provider
/// that takes keys of at most `max_len` characters is sent it: `full` itself when it fits;
/// otherwise its first `max_len - 43` characters, `~`, and the first 42 hexadecimal digits of the
/// SHA-256 of `full` (168 bits, so two intents never share a key), exactly `max_len` characters.
/// The same intent always makes the same key.
pub fn fitted_key(full: &str, max_len: usize) -> String {
    if full.chars().count() <= max_len {
        return full.to_owned();
    }
    let digest = hex::encode(Sha256::digest(full.as_bytes()));
    let kept: String = full.chars().take(max_len.saturating_sub(43)).collect();
    format!("{kept}~{}", &digest[..42])
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

/// The longest window a key is taken to be remembered for where the downstream declares none:
/// PayPal's 45 days, the longest any provider here declares.
pub const KEY_RETENTION_MAX: Duration = Duration::days(45);

/// Checks the window a caller `claimed` its downstream remembers a key for against what the
/// downstream `declared` (its connection's window, or its kind's; none when opledger does not know
/// it): never more than declared, nothing at all for a downstream that honours no key, and never
/// more than [`KEY_RETENTION_MAX`] for one unknown. A longer claim would let a re-send under the
/// same key pass for safe after the downstream forgot the key.
pub fn check_claimed_key_retention(claimed: Duration, declared: Option<Duration>) -> Result<(), String> {
    let most =
        match declared {
            Some(declared) if declared <= Duration::zero() => return Err(
                "the downstream honours no idempotency key, so it remembers none: leave key_retention_s out"
                    .into(),
            ),
            Some(declared) => declared,
            None => KEY_RETENTION_MAX,
        };
    if claimed <= Duration::zero() || claimed > most {
        let whose = if declared.is_some() {
            "the window its downstream declares"
        } else {
            "the longest window opledger takes for a downstream it does not know"
        };
        return Err(format!("must be 1 to {} seconds, {whose}", most.num_seconds()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_key_window_is_never_longer_than_the_downstream_declares() {
        let day = Duration::hours(24);
        assert_eq!(check_claimed_key_retention(day, Some(day)), Ok(()));
        assert!(check_claimed_key_retention(day + Duration::seconds(1), Some(day))
            .unwrap_err()
            .contains("1 to 86400 seconds"));
        assert!(check_claimed_key_retention(Duration::seconds(1), Some(Duration::zero()))
            .unwrap_err()
            .contains("honours no idempotency key"));
        assert_eq!(check_claimed_key_retention(KEY_RETENTION_MAX, None), Ok(()));
        assert!(check_claimed_key_retention(Duration::seconds(4_294_967_295), None).is_err());
        assert!(check_claimed_key_retention(Duration::zero(), None).is_err());
    }

    #[test]
    fn kinds_and_names_are_read_strictly() {
        for kind in ProviderKind::ALL {
            assert_eq!(ProviderKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ProviderKind::parse("paypal"), Some(ProviderKind::PayPal));
        assert_eq!(ProviderKind::parse("braintree"), None);
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
    fn what_a_downstream_honours_says_how_a_lost_answer_is_settled() {
        assert_eq!(ProviderKind::Stripe.capabilities().settles(), Settles::KeyAndLookup);
        assert_eq!(ProviderKind::Adyen.capabilities().settles(), Settles::KeyOnly);
        assert_eq!(ProviderKind::Http.capabilities().settles(), Settles::AtMostOnce);
        assert_eq!(ProviderKind::Email.capabilities().settles(), Settles::KeyOnly);
        assert_eq!(ProviderKind::Smtp.capabilities().settles(), Settles::AtMostOnce);
        let lookup_only =
            Capabilities { key_retention: Duration::zero(), ..ProviderKind::PayPal.capabilities() };
        assert_eq!(lookup_only.settles(), Settles::LookupOnly);
    }

    #[test]
    fn what_a_re_send_after_a_5xx_gets_is_each_kinds_own_and_never_assumed_safe() {
        for value in After5xx::ALL {
            assert_eq!(After5xx::parse(value.as_str()), Some(value));
        }
        assert_eq!(After5xx::parse("same-key"), None);
        assert_eq!(After5xx::default(), After5xx::Unknown);
        assert!(After5xx::Unknown.replays() && After5xx::SameKey.replays() && !After5xx::Retry.replays());
        let after_5xx = |kind: ProviderKind| kind.capabilities().after_5xx;
        assert_eq!(after_5xx(ProviderKind::Stripe), After5xx::SameKey, "Stripe: including 500 errors");
        assert_eq!(after_5xx(ProviderKind::PayPal), After5xx::Retry, "PayPal: 5xx may be retried");
        assert_eq!(after_5xx(ProviderKind::Adyen), After5xx::Unknown);
        assert_eq!(after_5xx(ProviderKind::Email), After5xx::Unknown);
        assert_eq!(after_5xx(ProviderKind::Services), After5xx::SameKey);
        assert_eq!(Capabilities::NOTHING.after_5xx, After5xx::Unknown);
    }

    #[test]
    fn each_provider_gets_a_key_within_its_length_from_one_rule() {
        let short = "acme:refund-1043-li_2";
        assert_eq!(fitted_key(short, 64), short, "a key that fits is sent as it is");
        let longest = format!("{}:{}", "t".repeat(64), "o".repeat(128));
        assert_eq!(longest.len(), 193);
        let adyen = fitted_key(&longest, ProviderKind::Adyen.capabilities().key_max_len);
        assert_eq!(adyen.len(), 64);
        assert!(adyen.starts_with(&"t".repeat(21)) && adyen.chars().nth(21) == Some('~'), "{adyen}");
        assert_eq!(fitted_key(&longest, 64), adyen, "the same intent, the same key");
        let other = format!("{}:{}", "t".repeat(64), "o".repeat(127) + "p");
        assert_ne!(fitted_key(&other, 64), adyen, "another intent, another key");
        assert_eq!(fitted_key(&longest, ProviderKind::PayPal.capabilities().key_max_len).len(), 108);
        assert_eq!(fitted_key(&longest, ProviderKind::Stripe.capabilities().key_max_len), longest);
    }

    #[test]
    fn only_the_last_four_characters_of_a_secret_are_kept() {
        assert_eq!(last_four("sk_test_51Habc9f2"), "c9f2");
        assert_eq!(last_four("ab"), "ab");
    }
}
