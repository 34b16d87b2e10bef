//! Two-factor sign-in for local passwords, as rules: who is offered it (local users; an SSO
//! user's provider does its own), who must enrol before doing anything else (managers and admins
//! of a tenant that requires it), who may turn it off, what a typed code is (a six-digit TOTP code
//! or a recovery code), which time step a TOTP code may use (one step either side of now, and
//! never one already used), and the shape of recovery codes. No clock: time steps are arguments.

use super::people::UserSource;
use super::policy::Role;

/// The seconds of one TOTP time step (RFC 6238's default).
pub const STEP_SECONDS: i64 = 30;
/// The digits of a TOTP code.
pub const DIGITS: usize = 6;
/// How many recovery codes an enrolment gives.
pub const RECOVERY_CODES: usize = 10;
/// How long the second step of a sign-in waits for its code after the password, in seconds.
pub const SECOND_STEP_SECONDS: i64 = 5 * 60;
/// The name authenticator apps show for the account.
pub const ISSUER: &str = "opledger";

/// Whether a user whose sign-in comes from `source` may use two-factor sign-in here.
pub fn offered(source: UserSource) -> bool {
    match source {
        UserSource::Local => true,
        UserSource::Sso => false,
    }
}

/// Whether a role falls under a tenant's "two-factor sign-in required" switch.
pub fn role_requires(role: Role) -> bool {
    match role {
        Role::Manager | Role::Admin => true,
        Role::Support | Role::Auditor => false,
    }
}

/// Whether a user must enrol before anything else: a local manager or admin without two-factor
/// sign-in, in a tenant that requires it.
pub fn must_enrol(role: Role, source: UserSource, tenant_requires: bool, enrolled: bool) -> bool {
    tenant_requires && !enrolled && offered(source) && role_requires(role)
}

/// Whether a user may turn their two-factor sign-in off: not when their tenant requires it of
/// their role.
pub fn may_turn_off(role: Role, tenant_requires: bool) -> bool {
    !(tenant_requires && role_requires(role))
}

/// The time step of Unix time `at` (seconds).
pub fn step_at(at: i64) -> i64 {
    at.div_euclid(STEP_SECONDS)
}

/// The steps a code typed at step `now` may belong to, the most likely first: now, the one
/// before (a code typed as it turned) and the one after (a clock a little ahead).
pub fn window(now: i64) -> [i64; 3] {
    [now, now - 1, now + 1]
}

/// Whether a code of `step` may be used when the last code used was of `last_used`: only a
/// later step, so a code works once and an older one never after it.
pub fn step_is_fresh(step: i64, last_used: Option<i64>) -> bool {
    last_used.is_none_or(|last| step > last)
}

/// A code as typed at the second step or to turn two-factor sign-in off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedCode {
    /// Six digits from the authenticator app.
    Totp(String),
    /// A recovery code, normalised (lowercase, no spaces or dashes).
    Recovery(String),
}

/// What `typed` is: six digits (spaces allowed, as apps show `123 456`) are a TOTP code; sixteen
/// letters and digits of the recovery alphabet (dashes and spaces allowed, any case) a recovery
/// code; anything else nothing.
pub fn read_code(typed: &str) -> Option<TypedCode> {
    let plain: String = typed.chars().filter(|c| !c.is_whitespace() && *c != '-').collect();
    if plain.len() == DIGITS && plain.chars().all(|c| c.is_ascii_digit()) {
        return Some(TypedCode::Totp(plain));
    }
    let plain = plain.to_ascii_lowercase();
    (plain.len() == RECOVERY_CODE_CHARS && plain.chars().all(|c| RECOVERY_ALPHABET.contains(c)))
        .then_some(TypedCode::Recovery(plain))
}

/// The letters a recovery code is made of: lowercase letters and digits without the ones people
/// confuse (0/o, 1/l/i).
pub const RECOVERY_ALPHABET: &str = "abcdefghjkmnpqrstuvwxyz23456789";
/// The characters of a recovery code: about 79 bits, so that a hash of one (which is all that is
/// stored) cannot be searched back.
pub const RECOVERY_CODE_CHARS: usize = 16;

/// A recovery code made of `random` bytes (one per character, each below 248 so that every
/// letter is as likely), as shown: `abcd-efgh-jkmn-pqrs`.
pub fn recovery_code_from(random: &[u8; RECOVERY_CODE_CHARS]) -> String {
    let alphabet = RECOVERY_ALPHABET.as_bytes();
    let chars: Vec<char> =
        random.iter().map(|byte| char::from(alphabet[usize::from(*byte) % alphabet.len()])).collect();
    chars.chunks(4).map(|group| group.iter().collect::<String>()).collect::<Vec<_>>().join("-")
}

/// Whether a random byte keeps the letters of a recovery code equally likely (248 = 8 × 31).
pub fn unbiased(byte: u8) -> bool {
    byte < 248
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_managers_and_admins_of_a_requiring_tenant_must_enrol() {
        assert!(must_enrol(Role::Admin, UserSource::Local, true, false));
        assert!(must_enrol(Role::Manager, UserSource::Local, true, false));
        assert!(!must_enrol(Role::Manager, UserSource::Local, true, true), "enrolled already");
        assert!(
            !must_enrol(Role::Manager, UserSource::Local, false, false),
            "the tenant does not require it"
        );
        assert!(!must_enrol(Role::Support, UserSource::Local, true, false));
        assert!(!must_enrol(Role::Auditor, UserSource::Local, true, false));
        assert!(!must_enrol(Role::Admin, UserSource::Sso, true, false), "their provider does it");
        assert!(!offered(UserSource::Sso) && offered(UserSource::Local));
    }

    #[test]
    fn a_required_second_factor_stays_on() {
        assert!(!may_turn_off(Role::Admin, true));
        assert!(may_turn_off(Role::Support, true));
        assert!(may_turn_off(Role::Admin, false));
    }

    #[test]
    fn a_code_is_good_for_one_step_either_side_and_once() {
        assert_eq!(step_at(59), 1);
        assert_eq!(step_at(60), 2);
        assert_eq!(window(100), [100, 99, 101]);
        assert!(step_is_fresh(100, None));
        assert!(step_is_fresh(101, Some(100)));
        assert!(!step_is_fresh(100, Some(100)), "a code used in its window cannot be used again");
        assert!(!step_is_fresh(99, Some(100)), "nor an older one after it");
    }

    #[test]
    fn typed_codes_are_told_apart() {
        assert_eq!(read_code(" 123 456 "), Some(TypedCode::Totp("123456".into())));
        assert_eq!(read_code("ABCD-EFGH-JKMN-PQRS"), Some(TypedCode::Recovery("abcdefghjkmnpqrs".into())));
        assert_eq!(read_code("abcd efgh jkmn pqrs"), Some(TypedCode::Recovery("abcdefghjkmnpqrs".into())));
        assert_eq!(read_code("12345"), None);
        assert_eq!(read_code("1234567"), None);
        assert_eq!(read_code("abcd-efgh-jkmn-pqr0"), None, "0 is not in the alphabet");
        assert_eq!(read_code("abcd-efgh-jkmn"), None, "too short");
        assert_eq!(read_code(""), None);
    }

    #[test]
    fn recovery_codes_read_back_as_recovery_codes() {
        let code = recovery_code_from(&[0, 1, 2, 3, 4, 30, 31, 32, 62, 100, 200, 240, 241, 245, 246, 247]);
        assert_eq!(code, "abcd-e9ab-ahr2-3789");
        assert_eq!(code.len(), 19);
        assert_eq!(code.matches('-').count(), 3);
        assert!(unbiased(247) && !unbiased(248));
        assert!(
            matches!(read_code(&code), Some(TypedCode::Recovery(plain)) if plain == code.replace('-', ""))
        );
    }
}
