//! Two-factor sign-in for local passwords: TOTP (RFC 6238: SHA-1, six digits, 30-second steps,
//! one step either side) with the secret sealed under the server's key and bound to its tenant and
//! user, a code used once (the last used step is kept), and ten single-use recovery codes stored
//! as hashes. Enrolment starts with a secret shown once (its `otpauth://` URI as a QR code drawn
//! as SVG), is confirmed by a first code and gives the recovery codes; turning it off takes a
//! current code. The tenant's switch that requires it of managers and admins. Every change is
//! audited; no secret or code ever is.

use argon2::password_hash::rand_core::{OsRng, RngCore};
use serde_json::json;
use sha2::{Digest, Sha256};
use totp_rs::{Algorithm, Secret, TOTP};

use super::Ledger;
use crate::domain::audit::AuditEntry;
use crate::domain::ids::TenantId;
use crate::domain::people::UserStatus;
use crate::domain::policy::Role;
use crate::domain::two_factor::{
    self, may_turn_off, offered, read_code, recovery_code_from, step_at, step_is_fresh, window, TypedCode,
    DIGITS, ISSUER, RECOVERY_CODES, RECOVERY_CODE_CHARS, STEP_SECONDS,
};
use crate::server::clock::now;
use crate::server::store::records::UserRecord;
use crate::server::store::StoreError;

/// The bytes of a new TOTP secret (160 bits, RFC 4226's recommendation).
const SECRET_BYTES: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum TwoFactorError {
    #[error("no OPLEDGER_SECRET_KEY is set: the server cannot keep a second factor's secret")]
    NoSecretKey,
    #[error("this user signs in through the tenant's identity provider, which does their second factor")]
    NotOffered,
    #[error("two-factor sign-in is on already")]
    AlreadyOn,
    #[error("two-factor sign-in is not on")]
    NotOn,
    #[error("start the set-up again: no secret is waiting for its first code")]
    NotStarted,
    #[error("the code is not right, or was used already")]
    WrongCode,
    #[error("the tenant requires two-factor sign-in of managers and admins")]
    Required,
    #[error("no such user")]
    NoSuchUser,
    #[error("the stored secret does not open with this server's key")]
    Sealed,
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for TwoFactorError {
    fn from(error: StoreError) -> Self {
        TwoFactorError::Store(error)
    }
}

/// A secret to enrol with, shown once: written out for manual entry, as an `otpauth://` URI, and
/// as the URI's QR code (SVG, with no inline style).
#[derive(Clone, PartialEq, Eq)]
pub struct Enrolment {
    pub secret: String,
    pub uri: String,
    pub qr_svg: String,
}

impl std::fmt::Debug for Enrolment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Enrolment(..)")
    }
}

/// Where a user's two-factor sign-in stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwoFactorState {
    /// Whether they may use it (a local user).
    pub offered: bool,
    pub on: bool,
    /// Whether their tenant requires it of managers and admins.
    pub tenant_requires: bool,
    pub may_turn_off: bool,
    /// The secret they are enrolling with, until they confirm a first code.
    pub enrolling: Option<Enrolment>,
    pub recovery_codes_left: u64,
}

/// Who acts on their own second factor.
#[derive(Debug, Clone, Copy)]
pub struct Holder<'a> {
    pub tenant: &'a TenantId,
    pub user_id: &'a str,
    pub name: &'a str,
    pub role: Role,
}

/// What a code at the second step of a sign-in was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactor {
    Totp,
    /// A recovery code, now used; `left` are still unused.
    Recovery {
        left: u64,
    },
}

/// The name a user's secret is sealed under, beside the tenant: it binds it to the user.
fn sealed_name(user_id: &str) -> String {
    format!("two-factor:{user_id}")
}

fn code_hash(plain: &str) -> String {
    hex::encode(Sha256::digest(format!("opledger recovery code\n{plain}").as_bytes()))
}

fn totp(secret: Vec<u8>) -> Option<TOTP> {
    TOTP::new(Algorithm::SHA1, DIGITS, 1, STEP_SECONDS.unsigned_abs(), secret).ok()
}

/// The time step of the window around `at` (Unix seconds) whose code is `code`, if any.
fn matching_step(secret: Vec<u8>, code: &str, at: i64) -> Option<i64> {
    let totp = totp(secret)?;
    window(step_at(at)).into_iter().find(|step| {
        let expected = totp.generate(u64::try_from(step * STEP_SECONDS).unwrap_or(0));
        constant_time_eq(expected.as_bytes(), code.as_bytes())
    })
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// The `otpauth://` URI authenticator apps read (Google Authenticator's key URI format).
pub fn otpauth_uri(tenant: &TenantId, name: &str, secret: &str) -> String {
    let label = format!("{ISSUER}:{name}@{tenant}");
    let query = serde_urlencoded::to_string([
        ("secret", secret),
        ("issuer", ISSUER),
        ("algorithm", "SHA1"),
        ("digits", "6"),
        ("period", "30"),
    ])
    .unwrap_or_default();
    let label =
        url::form_urlencoded::byte_serialize(label.as_bytes()).collect::<String>().replace('+', "%20");
    format!("otpauth://totp/{label}?{query}")
}

/// The QR code of `text` as an SVG element (no XML declaration, no inline style).
pub fn qr_svg(text: &str) -> String {
    let Ok(code) = qrcode::QrCode::new(text.as_bytes()) else { return String::new() };
    let svg = code.render::<qrcode::render::svg::Color<'_>>().min_dimensions(220, 220).build();
    svg.find("<svg").map_or(svg.clone(), |start| svg[start..].to_owned())
}

impl Ledger {
    async fn holder_record(&self, holder: Holder<'_>) -> Result<UserRecord, TwoFactorError> {
        let users = self.store.users_named(holder.name, Some(holder.tenant)).await?;
        users
            .into_iter()
            .find(|user| user.id == holder.user_id && user.status == UserStatus::Active)
            .ok_or(TwoFactorError::NoSuchUser)
    }

    fn open_two_factor(
        &self,
        tenant: &TenantId,
        user_id: &str,
        sealed: &str,
    ) -> Result<Vec<u8>, TwoFactorError> {
        let secrets = self.secrets.as_ref().ok_or(TwoFactorError::NoSecretKey)?;
        let encoded =
            secrets.open(tenant, &sealed_name(user_id), sealed).map_err(|_| TwoFactorError::Sealed)?;
        Secret::Encoded(encoded).to_bytes().map_err(|_| TwoFactorError::Sealed)
    }

    fn audit_of(&self, holder: Holder<'_>, action: &str) -> AuditEntry {
        let evidence = json!({"user_id": holder.user_id, "name": holder.name});
        AuditEntry::action(now(), holder.tenant.as_str(), holder.name, holder.role.as_str(), action, evidence)
    }

    /// Where the holder's two-factor sign-in stands, with the secret they are enrolling with
    /// opened for them to scan, while they have not confirmed it.
    pub async fn two_factor_state(&self, holder: Holder<'_>) -> Result<TwoFactorState, TwoFactorError> {
        let user = self.holder_record(holder).await?;
        let required = self.store.two_factor_required(holder.tenant).await?;
        let enrolling = match (&user.two_factor_secret, &user.two_factor_pending) {
            (None, Some(sealed)) => {
                let secret = self.open_two_factor(holder.tenant, holder.user_id, sealed)?;
                let Secret::Encoded(secret) = Secret::Raw(secret).to_encoded() else {
                    unreachable!("encoded")
                };
                let uri = otpauth_uri(holder.tenant, holder.name, &secret);
                let qr_svg = qr_svg(&uri);
                Some(Enrolment { secret, uri, qr_svg })
            }
            _ => None,
        };
        let recovery_codes_left = if user.has_two_factor() {
            self.store.recovery_codes_left(holder.tenant, holder.user_id).await?
        } else {
            0
        };
        Ok(TwoFactorState {
            offered: offered(user.source),
            on: user.has_two_factor(),
            tenant_requires: required,
            may_turn_off: may_turn_off(user.role, required),
            enrolling,
            recovery_codes_left,
        })
    }

    /// Starts the holder's enrolment: a new secret, sealed and kept until a first code confirms
    /// it, shown this once.
    pub async fn start_two_factor(&self, holder: Holder<'_>) -> Result<Enrolment, TwoFactorError> {
        let secrets = self.secrets.as_ref().ok_or(TwoFactorError::NoSecretKey)?;
        let user = self.holder_record(holder).await?;
        if !offered(user.source) {
            return Err(TwoFactorError::NotOffered);
        }
        if user.has_two_factor() {
            return Err(TwoFactorError::AlreadyOn);
        }
        let mut raw = [0u8; SECRET_BYTES];
        OsRng.fill_bytes(&mut raw);
        let Secret::Encoded(secret) = Secret::Raw(raw.to_vec()).to_encoded() else {
            unreachable!("to_encoded always encodes")
        };
        let sealed = secrets.seal(holder.tenant, &sealed_name(holder.user_id), &secret);
        match self.store.start_two_factor(holder.tenant, holder.user_id, &sealed).await {
            Err(StoreError::NotFound) => return Err(TwoFactorError::AlreadyOn),
            other => other?,
        }
        let uri = otpauth_uri(holder.tenant, holder.name, &secret);
        let qr_svg = qr_svg(&uri);
        Ok(Enrolment { secret, uri, qr_svg })
    }

    /// Confirms the holder's enrolment with a first `code`: two-factor sign-in is on, and the ten
    /// recovery codes are returned, to be shown this once.
    pub async fn confirm_two_factor(
        &self,
        holder: Holder<'_>,
        code: &str,
    ) -> Result<Vec<String>, TwoFactorError> {
        let user = self.holder_record(holder).await?;
        if user.has_two_factor() {
            return Err(TwoFactorError::AlreadyOn);
        }
        let sealed = user.two_factor_pending.as_deref().ok_or(TwoFactorError::NotStarted)?;
        let secret = self.open_two_factor(holder.tenant, holder.user_id, sealed)?;
        let Some(TypedCode::Totp(code)) = read_code(code) else { return Err(TwoFactorError::WrongCode) };
        let step = matching_step(secret, &code, now().timestamp()).ok_or(TwoFactorError::WrongCode)?;
        let codes: Vec<String> = (0..RECOVERY_CODES)
            .map(|_| {
                let mut random = [0u8; RECOVERY_CODE_CHARS];
                for byte in &mut random {
                    *byte = loop {
                        let candidate = OsRng.next_u32().to_le_bytes()[0];
                        if two_factor::unbiased(candidate) {
                            break candidate;
                        }
                    };
                }
                recovery_code_from(&random)
            })
            .collect();
        let hashes: Vec<String> = codes.iter().map(|code| code_hash(&code.replace('-', ""))).collect();
        let audit = self.audit_of(holder, "enrol_two_factor");
        match self.store.confirm_two_factor(holder.tenant, holder.user_id, step, &hashes, audit).await {
            Err(StoreError::NotFound) => return Err(TwoFactorError::NotStarted),
            other => other?,
        }
        tracing::info!(tenant = %holder.tenant, user = %holder.name, "two-factor sign-in turned on");
        Ok(codes)
    }

    /// Whether `code` is a current TOTP code of `user` not used before, using its step if so.
    async fn use_totp(&self, user: &UserRecord, code: &str) -> Result<bool, TwoFactorError> {
        let sealed = user.two_factor_secret.as_deref().ok_or(TwoFactorError::NotOn)?;
        let secret = self.open_two_factor(&user.tenant, &user.id, sealed)?;
        let Some(step) = matching_step(secret, code, now().timestamp()) else { return Ok(false) };
        if !step_is_fresh(step, user.two_factor_step) {
            return Ok(false);
        }
        Ok(self.store.use_two_factor_step(&user.tenant, &user.id, step).await?)
    }

    /// Turns the holder's two-factor sign-in off, with a current `code` (or a recovery code).
    pub async fn turn_off_two_factor(&self, holder: Holder<'_>, code: &str) -> Result<(), TwoFactorError> {
        let user = self.holder_record(holder).await?;
        if !user.has_two_factor() {
            return Err(TwoFactorError::NotOn);
        }
        if !may_turn_off(holder.role, self.store.two_factor_required(holder.tenant).await?) {
            return Err(TwoFactorError::Required);
        }
        if self.second_factor_of(&user, code).await?.is_none() {
            return Err(TwoFactorError::WrongCode);
        }
        let audit = self.audit_of(holder, "turn_off_two_factor");
        match self.store.turn_off_two_factor(holder.tenant, holder.user_id, audit).await {
            Err(StoreError::NotFound) => Err(TwoFactorError::NotOn),
            other => Ok(other?),
        }
    }

    /// Checks the second step of a sign-in: a current TOTP code not used before, or an unused
    /// recovery code (then used, and audited). `None` when the code is wrong.
    pub async fn second_factor(
        &self,
        tenant: &TenantId,
        user_id: &str,
        name: &str,
        code: &str,
    ) -> Result<Option<SecondFactor>, TwoFactorError> {
        let users = self.store.users_named(name, Some(tenant)).await?;
        let user = users
            .into_iter()
            .find(|user| user.id == user_id && user.status == UserStatus::Active)
            .ok_or(TwoFactorError::NoSuchUser)?;
        self.second_factor_of(&user, code).await
    }

    async fn second_factor_of(
        &self,
        user: &UserRecord,
        code: &str,
    ) -> Result<Option<SecondFactor>, TwoFactorError> {
        match read_code(code) {
            Some(TypedCode::Totp(code)) => {
                Ok(self.use_totp(user, &code).await?.then_some(SecondFactor::Totp))
            }
            Some(TypedCode::Recovery(plain)) => {
                let evidence = json!({"user_id": user.id, "name": user.name});
                let audit = AuditEntry::action(
                    now(),
                    user.tenant.as_str(),
                    &user.name,
                    user.role.as_str(),
                    "use_recovery_code",
                    evidence,
                );
                if !self.store.use_recovery_code(&user.tenant, &user.id, &code_hash(&plain), audit).await? {
                    return Ok(None);
                }
                let left = self.store.recovery_codes_left(&user.tenant, &user.id).await?;
                tracing::info!(tenant = %user.tenant, user = %user.name, left, "a recovery code was used");
                Ok(Some(SecondFactor::Recovery { left }))
            }
            None => Ok(None),
        }
    }

    /// Whether the tenant requires two-factor sign-in of its managers and admins.
    pub async fn two_factor_required(&self, tenant: &TenantId) -> Result<bool, StoreError> {
        self.store.two_factor_required(tenant).await
    }

    /// Sets whether the tenant requires two-factor sign-in of its managers and admins, as `by`
    /// (an admin, or `cli`).
    pub async fn set_two_factor_required(
        &self,
        tenant: &TenantId,
        required: bool,
        by: &str,
    ) -> Result<(), StoreError> {
        let evidence = json!({"required_for": ["manager", "admin"], "required": required});
        let audit =
            AuditEntry::action(now(), tenant.as_str(), by, "admin", "set_two_factor_required", evidence);
        self.store.set_two_factor_required(tenant, required, audit).await?;
        tracing::info!(%tenant, required, %by, "two-factor sign-in requirement set");
        Ok(())
    }

    /// Whether the user must enrol before anything else (see [`two_factor::must_enrol`]); the
    /// tenant's switch is read only when it could matter.
    pub async fn must_enrol(&self, user: &UserRecord) -> Result<bool, StoreError> {
        if !two_factor::must_enrol(user.role, user.source, true, user.has_two_factor()) {
            return Ok(false);
        }
        self.store.two_factor_required(&user.tenant).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238's SHA-1 test secret and two of its vectors (the last six digits).
    #[test]
    fn codes_match_rfc_6238_and_only_in_their_window() {
        let secret = b"12345678901234567890".to_vec();
        assert_eq!(matching_step(secret.clone(), "287082", 59), Some(1));
        assert_eq!(matching_step(secret.clone(), "081804", 1_111_111_109), Some(37_037_036));
        assert_eq!(
            matching_step(secret.clone(), "081804", 1_111_111_109 + 30),
            Some(37_037_036),
            "one step late"
        );
        assert_eq!(matching_step(secret.clone(), "081804", 1_111_111_109 + 90), None, "three steps late");
        assert_eq!(matching_step(secret, "000000", 59), None);
    }

    #[test]
    fn the_uri_names_the_issuer_and_the_account() {
        let acme = TenantId::parse("acme").unwrap();
        let uri = otpauth_uri(&acme, "maria", "JBSWY3DPEHPK3PXP");
        assert!(
            uri.starts_with("otpauth://totp/opledger%3Amaria%40acme?secret=JBSWY3DPEHPK3PXP&issuer=opledger"),
            "{uri}"
        );
        let svg = qr_svg(&uri);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
        assert!(!svg.contains("style"), "the Content-Security-Policy forbids inline styles");
    }

    #[test]
    fn recovery_codes_are_hashed_apart_from_their_shape() {
        assert_eq!(code_hash("abcdefghjkmnpqrs").len(), 64);
        assert_ne!(code_hash("abcdefghjkmnpqrs"), code_hash("abcdefghjkmnpqrt"));
    }
}
