//! Tenants and console users: adding a tenant (`opledger tenant add`), adding a user (from
//! `opledger user add`, the admin page or the demo) and checking a password at sign-in. A name is unique within its tenant; other tenants may use it too. Passwords are hashed with Argon2id; only the PHC string is stored.

use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use serde_json::json;
use std::sync::LazyLock;

use super::Ledger;
use crate::domain::{audit::AuditEntry, ids::TenantId, language::Language, people::UserStatus, policy::Role};
use crate::server::clock::now;
use crate::server::store::records::{NewUser, UserRecord};
use crate::server::store::{Reads, StoreError};

/// The shortest password accepted.
pub const MIN_PASSWORD_CHARS: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("a user name is 1 to 64 letters, digits, '.', '-', '_' or '@'")]
    InvalidName,
    #[error("a password needs at least {MIN_PASSWORD_CHARS} characters")]
    WeakPassword,
    #[error("a user named {0} exists already in this tenant")]
    NameTaken(String),
    #[error(transparent)]
    Store(StoreError),
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'))
}

/// The Argon2id hash of `password` with a fresh salt, as a PHC string.
pub fn hash_password(password: &str) -> String {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("Argon2 with default parameters hashes any password")
        .to_string()
}

/// Compared against when the user does not exist, so that a wrong name costs as much time as a
/// wrong password and does not reveal which names exist.
static DECOY_HASH: LazyLock<String> = LazyLock::new(|| hash_password("decoy password never used"));

fn password_matches(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash)
        .is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

impl Ledger {
    /// Adds the tenant `tenant`, audited as done by `by`; `false`, changing nothing, when it exists.
    pub async fn add_tenant(
        &self,
        tenant: &TenantId,
        by: &crate::domain::ids::Actor,
    ) -> Result<bool, StoreError> {
        let audit = Self::action_entry(tenant, by, "add_tenant", json!({"tenant": tenant.as_str()}));
        self.store.add_tenant(tenant, audit).await
    }

    /// Adds a user to `tenant` (creating the tenant if it is new) and audits it as done by `added_by`.
    pub async fn add_user(
        &self,
        tenant: &TenantId,
        name: &str,
        role: Role,
        password: &str,
        added_by: &str,
    ) -> Result<(), AccountError> {
        if !valid_name(name) {
            return Err(AccountError::InvalidName);
        }
        if password.chars().count() < MIN_PASSWORD_CHARS {
            return Err(AccountError::WeakPassword);
        }
        let at = now();
        let evidence = json!({"name": name, "role": role.as_str()});
        let audit = AuditEntry::action(at, tenant.as_str(), added_by, "admin", "add_user", evidence);
        let user = NewUser {
            id: uuid::Uuid::new_v4().simple().to_string(),
            tenant: tenant.clone(),
            name: name.to_owned(),
            role,
            password_hash: hash_password(password),
            at,
        };
        self.store.create_user(user, audit).await.map_err(|error| match error {
            StoreError::Conflict(_) => AccountError::NameTaken(name.to_owned()),
            other => AccountError::Store(other),
        })
    }

    /// Sets the console language of the tenant's user `user_id` (`None`: their browser's),
    /// audited as done by `by` in `role`; `NotFound` when the tenant has no such user.
    pub async fn set_user_language(
        &self,
        tenant: &TenantId,
        user_id: &str,
        language: Option<Language>,
        by: &str,
        role: Role,
    ) -> Result<(), StoreError> {
        let evidence = json!({"user_id": user_id, "language": language.map(Language::tag)});
        let audit =
            AuditEntry::action(now(), tenant.as_str(), by, role.as_str(), "set_user_language", evidence);
        self.store.set_user_language(tenant, user_id, language, audit).await
    }

    /// Sets the language the tenant's customers are told things in when a tool's caller names none,
    /// audited as done by the admin `by`.
    pub async fn set_tenant_language(
        &self,
        tenant: &TenantId,
        language: Language,
        by: &str,
    ) -> Result<(), StoreError> {
        let evidence = json!({"language": language.tag()});
        let audit = AuditEntry::action(now(), tenant.as_str(), by, "admin", "set_tenant_language", evidence);
        self.store.set_tenant_language(tenant, language, audit).await
    }
}

/// The user `name` of `tenant` (or of the one tenant that has a user of that name, when no
/// tenant is given) whose password is `password`, if they are active. A name that several tenants use, without its
/// tenant, matches nobody, and costs the same time as a wrong password.
pub async fn check_password(
    store: &dyn Reads,
    tenant: Option<&TenantId>,
    name: &str,
    password: &str,
) -> Result<Option<UserRecord>, StoreError> {
    let mut named = store.users_named(name, tenant).await?;
    let user = if named.len() == 1 { named.pop() } else { None };
    let hash = user.as_ref().map_or(DECOY_HASH.as_str(), |user| user.password_hash.as_str());
    let hash = hash.to_owned();
    let password = password.to_owned();
    let matches =
        tokio::task::spawn_blocking(move || password_matches(&hash, &password)).await.unwrap_or(false);
    Ok(user.filter(|user| matches && user.status == UserStatus::Active))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_matches_its_own_hash_only() {
        let hash = hash_password("correct horse battery");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(password_matches(&hash, "correct horse battery"));
        assert!(!password_matches(&hash, "correct horse battery "));
        assert!(!password_matches("not a hash", "correct horse battery"));
        assert_ne!(hash, hash_password("correct horse battery"), "every hash has its own salt");
    }

    #[test]
    fn names_are_short_and_plain() {
        assert!(valid_name("maria.manager@acme"));
        assert!(!valid_name(""));
        assert!(!valid_name("two words"));
        assert!(!valid_name(&"x".repeat(65)));
    }
}
