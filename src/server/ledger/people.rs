//! What admins do to the people of their tenant, from the console and the command line: change a
//! role, deactivate and reactivate, sign out everywhere, make a one-time link to set a new
//! password (and a person using it), and reset a person's two-factor sign-in. Each change keeps the rules of
//! [`crate::domain::people::check_change`], carries the admin's reason into the hash-chained audit
//! trail, and ends the person's sessions on every instance in the same transaction when it takes
//! access away. A sign-in is noted on the user.

use chrono::{DateTime, Utc};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::accounts::{hash_password, MIN_PASSWORD_CHARS};
use super::Ledger;
use crate::domain::audit::AuditEntry;
use crate::domain::ids::TenantId;
use crate::domain::people::{check_reason, PeopleChange, PeopleRefusal};
use crate::server::clock::now;
use crate::server::store::records::{NewPasswordReset, PasswordResetRecord, PersonChange, UserRecord};
use crate::server::store::StoreError;

/// How long a password reset link works.
pub const PASSWORD_RESET_VALID_MINUTES: i64 = 30;

/// The path of the page a password reset link opens; the link's secret follows as `?token=`.
pub const PASSWORD_RESET_PATH: &str = "/password-reset";

/// Who makes a change to a person: an admin of the tenant (their name and user id), or the
/// command line (`cli`, no user id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedBy {
    pub name: String,
    pub user_id: Option<String>,
}

impl ChangedBy {
    pub fn command_line() -> Self {
        ChangedBy { name: "cli".into(), user_id: None }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PeopleError {
    #[error("the tenant has no user named {0}")]
    NoSuchUser(String),
    #[error(transparent)]
    Refused(#[from] PeopleRefusal),
    #[error("{0}")]
    Invalid(&'static str),
    #[error(transparent)]
    Store(StoreError),
}

/// What a change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonChanged {
    /// How many of the person's sessions ended.
    pub sessions_ended: u64,
    /// How many of the API tokens the person made a deactivation revoked, or handed over.
    pub tokens_revoked: usize,
    pub tokens_reassigned: usize,
    /// The secret of a password reset link, shown once (only for [`PeopleChange::ResetPassword`]).
    pub reset_secret: Option<String>,
    pub reset_expires_at: Option<DateTime<Utc>>,
}

fn secret_hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The audit action and the evidence of a change, without any secret.
fn action_of(change: PeopleChange, user: &UserRecord) -> (&'static str, serde_json::Value) {
    let who = json!({"user_id": user.id, "name": user.name});
    match change {
        PeopleChange::SetRole(role) => (
            "set_user_role",
            json!({"user_id": user.id, "name": user.name, "role": role.as_str(), "previous_role": user.role.as_str()}),
        ),
        PeopleChange::Deactivate => ("deactivate_user", who),
        PeopleChange::Reactivate => ("reactivate_user", who),
        PeopleChange::SignOutEverywhere => ("sign_out_everywhere", who),
        PeopleChange::ResetPassword => ("reset_password", who),
        PeopleChange::ResetTwoFactor => ("reset_two_factor", who),
    }
}

impl Ledger {
    /// The tenant's user named `name`.
    async fn person_named(&self, tenant: &TenantId, name: &str) -> Result<UserRecord, PeopleError> {
        let mut named = self.store.users_named(name, Some(tenant)).await.map_err(PeopleError::Store)?;
        named.pop().ok_or_else(|| PeopleError::NoSuchUser(name.to_owned()))
    }

    /// Makes `change` to the tenant's user `name` for `reason`, as `by`. A deactivation, a new role
    /// and a sign-out everywhere end the person's sessions at once, on every instance. A
    /// deactivation also revokes the API tokens the person made, in the same transaction, unless
    /// `tokens_to` names the active user of the tenant who takes them over. A two-factor reset
    /// forgets the person's second factor and ends their sessions.
    pub async fn change_person(
        &self,
        tenant: &TenantId,
        name: &str,
        change: PeopleChange,
        reason: &str,
        tokens_to: Option<&str>,
        by: &ChangedBy,
    ) -> Result<PersonChanged, PeopleError> {
        let reason = check_reason(reason).map_err(PeopleError::Invalid)?;
        let user = self.person_named(tenant, name).await?;
        let tokens_to = match tokens_to.map(str::trim).filter(|heir| !heir.is_empty()) {
            Some(heir) if change == PeopleChange::Deactivate => {
                Some(self.person_named(tenant, heir).await?.id)
            }
            _ => None,
        };
        let at = now();
        let (action, evidence) = action_of(change, &user);
        let mut audit = AuditEntry::action(at, tenant.as_str(), &by.name, "admin", action, evidence);
        audit.reason = Some(reason.to_owned());
        let reset_secret = (change == PeopleChange::ResetPassword)
            .then(|| format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple()));
        let reset_expires_at =
            reset_secret.as_ref().map(|_| at + chrono::Duration::minutes(PASSWORD_RESET_VALID_MINUTES));
        let password_reset =
            reset_secret.as_ref().zip(reset_expires_at).map(|(secret, expires_at)| NewPasswordReset {
                secret_hash: secret_hash(secret),
                tenant: tenant.clone(),
                user_id: user.id.clone(),
                created_by: by.name.clone(),
                at,
                expires_at,
            });
        let person = PersonChange {
            tenant: tenant.clone(),
            user_id: user.id.clone(),
            by_user_id: by.user_id.clone(),
            change,
            password_reset,
            tokens_to,
            at,
        };
        let done = self.store.change_person(person, audit).await.map_err(|error| match error {
            StoreError::NotFound => PeopleError::NoSuchUser(name.to_owned()),
            other => PeopleError::Store(other),
        })??;
        if !done.tokens_revoked.is_empty() {
            self.forget_tokens(tenant, |token| {
                done.tokens_revoked.iter().any(|revoked| revoked.name == token)
            });
        }
        tracing::info!(
            %tenant, user = %user.name, action, by = %by.name, sessions_ended = done.sessions_ended,
            tokens_revoked = done.tokens_revoked.len(), tokens_reassigned = done.tokens_reassigned.len(),
            "changed a person"
        );
        Ok(PersonChanged {
            sessions_ended: done.sessions_ended,
            tokens_revoked: done.tokens_revoked.len(),
            tokens_reassigned: done.tokens_reassigned.len(),
            reset_secret,
            reset_expires_at,
        })
    }

    /// The unused, unexpired password reset link whose secret is `secret`.
    pub async fn password_reset(&self, secret: &str) -> Result<Option<PasswordResetRecord>, StoreError> {
        self.store.password_reset(&secret_hash(secret), now()).await
    }

    /// Sets a new password through the reset link whose secret is `secret`, once: the person's
    /// other sessions end. `Ok(None)` when the link is unknown, used or expired.
    pub async fn use_password_reset(
        &self,
        secret: &str,
        password: &str,
    ) -> Result<Option<UserRecord>, PeopleError> {
        if password.chars().count() < MIN_PASSWORD_CHARS {
            return Err(PeopleError::Invalid("a password needs at least 10 characters"));
        }
        let hash = hash_password(password);
        let at = now();
        let audit = move |user: &UserRecord| {
            let evidence = json!({"user_id": user.id, "name": user.name});
            AuditEntry::action(
                at,
                user.tenant.as_str(),
                &user.name,
                user.role.as_str(),
                "use_password_reset",
                evidence,
            )
        };
        match self.store.use_password_reset(&secret_hash(secret), &hash, at, &audit).await {
            Ok(user) => Ok(Some(user)),
            Err(StoreError::NotFound) => Ok(None),
            Err(error) => Err(PeopleError::Store(error)),
        }
    }

    /// Notes that the tenant's user `user_id` signed in now.
    pub async fn record_sign_in(&self, tenant: &TenantId, user_id: &str) -> Result<(), StoreError> {
        self.store.record_sign_in(tenant, user_id, now()).await
    }

    /// Ends every session of the tenant's user `user_id` on every instance (the identity
    /// provider said they signed out); returns how many.
    pub async fn end_sessions_of(&self, tenant: &TenantId, user_id: &str) -> Result<u64, StoreError> {
        self.store.end_sessions_of(tenant, user_id).await
    }
}
