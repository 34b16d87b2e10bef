//! API tokens: `opl_<id>_<secret>`, shown once at creation (and at each rotation) and stored only
//! as a SHA-256 hash. The secret carries 122 random bits, so a fast hash is enough (no password
//! stretching needed). A token has scopes and an expiry; a rotation gives it a new secret and may
//! let the old one work for a grace period; its last use (time and client address) is written at
//! most once a minute per token by each instance. Every change is audited, never with a secret.

use chrono::{DateTime, Utc};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::{Ledger, LedgerError};
use crate::domain::api_token::{self, check_name, grace_until, Expiry, Scopes};
use crate::domain::{audit::AuditEntry, ids::Actor, ids::TenantId};
use crate::server::clock::now;
use crate::server::store::records::{ApiTokenListing, ApiTokenRecord, NewApiToken, TouchedToken};
use crate::server::store::StoreError;

/// The hash under which a token is stored and looked up.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A new token's text for the token `id`: `opl_<id>_<secret>`.
fn token_text(id: &str) -> String {
    format!("opl_{id}_{}", uuid::Uuid::new_v4().simple())
}

/// The id in a token's text (`opl_<id>_<secret>`), if it has that shape.
fn id_in(token: &str) -> Option<&str> {
    token.strip_prefix("opl_")?.split_once('_').map(|(id, _)| id)
}

/// What a new token may do and for how long.
#[derive(Debug, Clone)]
pub struct TokenSpec {
    pub name: String,
    pub scopes: Scopes,
    pub expiry: Expiry,
}

/// A token just made: its text, shown this once, and when it expires.
#[derive(Debug, Clone)]
pub struct CreatedToken {
    pub token: String,
    pub expires_at: Option<DateTime<Utc>>,
}

/// When each token's last use was last written by this instance, so that a burst of calls makes
/// one write a minute, not one per call. Shared by the clones of the ledger.
#[derive(Clone, Default)]
pub(super) struct TokenUses {
    written: Arc<Mutex<HashMap<String, DateTime<Utc>>>>,
}

/// How many tokens' last writes are kept before the ones older than a minute are dropped.
const MOST_USES_KEPT: usize = 10_000;

impl TokenUses {
    /// Whether a use of token `id` at `at` is to be written; if so, it counts as written.
    fn due(&self, id: &str, at: DateTime<Utc>) -> bool {
        let mut written = self.written.lock().expect("the last uses' lock is never poisoned");
        if !api_token::last_use_due(at, written.get(id).copied()) {
            return false;
        }
        if written.len() >= MOST_USES_KEPT {
            written.retain(|_, last| !api_token::last_use_due(at, Some(*last)));
        }
        written.insert(id.to_owned(), at);
        true
    }
}

impl Ledger {
    /// Creates a token named `name` for `tenant` (creating the tenant if it is new) with every
    /// scope and the default expiry, audits it, and returns the token text, which is not stored
    /// anywhere. `created_by` names who asked (a command, a test).
    pub async fn create_token(
        &self,
        tenant: &TenantId,
        name: &str,
        created_by: &str,
    ) -> Result<String, StoreError> {
        let spec = TokenSpec { name: name.to_owned(), scopes: Scopes::ALL, expiry: Expiry::default() };
        match self
            .create_token_with(
                tenant,
                &spec,
                &Actor::human(created_by, crate::domain::policy::Role::Admin),
                None,
            )
            .await
        {
            Ok(created) => Ok(created.token),
            Err(LedgerError::Store(error)) => Err(error),
            Err(other) => Err(StoreError::Conflict(other.to_string())),
        }
    }

    /// Creates a token for `tenant` (creating the tenant if it is new) as `spec` says, made by
    /// `by` (the console user `user_id`, or `None` from the command line), and audits it (its
    /// name, scopes and expiry; never its secret). `Invalid` for a name or an expiry out of
    /// bounds; a `Conflict` from the store when the tenant has a token of that name.
    pub async fn create_token_with(
        &self,
        tenant: &TenantId,
        spec: &TokenSpec,
        by: &Actor,
        user_id: Option<&str>,
    ) -> Result<CreatedToken, LedgerError> {
        let name = check_name(&spec.name)
            .map_err(|e| LedgerError::InvalidField { field: "name", problem: e.to_string() })?;
        let at = now();
        let expires_at = spec
            .expiry
            .from(at)
            .map_err(|e| LedgerError::InvalidField { field: "expires_in_days", problem: e.to_string() })?;
        let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_owned();
        let token = token_text(&id);
        let evidence = json!({
            "token_id": id,
            "name": name,
            "scopes": spec.scopes.as_text(),
            "expires_at": expires_at,
        });
        let audit =
            AuditEntry::action(at, tenant.as_str(), &by.name, by.role_label(), "create_api_token", evidence);
        let new = NewApiToken {
            id,
            tenant: tenant.clone(),
            name: name.to_owned(),
            secret_hash: hash_token(&token),
            scopes: spec.scopes,
            expires_at,
            created_by: by.name.clone(),
            created_by_user_id: user_id.map(str::to_owned),
            at,
        };
        let hash = new.secret_hash.clone();
        self.store.create_api_token(new, audit).await?;
        self.recent.tokens.forget_where(|kept, _| *kept == hash);
        Ok(CreatedToken { token, expires_at })
    }

    /// Revokes the tenant's token named `name`; calls with it are refused from now on here, and
    /// within [`FRESH_FOR`](super::recent::FRESH_FOR) on every other instance.
    pub async fn revoke_token(
        &self,
        tenant: &TenantId,
        name: &str,
        revoked_by: &str,
    ) -> Result<(), StoreError> {
        let evidence = json!({"name": name});
        let audit =
            AuditEntry::action(now(), tenant.as_str(), revoked_by, "admin", "revoke_api_token", evidence);
        let revoked = self.store.revoke_api_token(tenant, name, audit).await;
        self.forget_tokens(tenant, |token| token == name);
        revoked
    }

    /// Gives the tenant's active token named `name` a new secret, returned this once; the old
    /// secret keeps working for `grace_hours` (0: it stops at once; at most a week), after which it
    /// is refused like an unknown token. Audited with the grace, never a secret. `NotFound` (from
    /// the store) when the tenant has no such active token.
    pub async fn rotate_token(
        &self,
        tenant: &TenantId,
        name: &str,
        grace_hours: u32,
        by: &Actor,
    ) -> Result<String, LedgerError> {
        let at = now();
        let previous_valid_until = grace_until(at, grace_hours)
            .map_err(|e| LedgerError::InvalidField { field: "grace_hours", problem: e.to_string() })?;
        let id = self
            .store
            .api_tokens(tenant)
            .await?
            .into_iter()
            .find(|token| token.name == name)
            .map(|token| token.id)
            .ok_or(LedgerError::Store(StoreError::NotFound))?;
        let token = token_text(&id);
        let hash = hash_token(&token);
        let evidence = json!({
            "token_id": id,
            "name": name,
            "grace_hours": grace_hours,
            "previous_valid_until": previous_valid_until,
        });
        let audit =
            AuditEntry::action(at, tenant.as_str(), &by.name, by.role_label(), "rotate_api_token", evidence);
        let rotated = self.store.rotate_api_token(tenant, name, &hash, previous_valid_until, audit).await;
        self.forget_tokens(tenant, |token| token == name);
        self.recent.tokens.forget_where(|kept, _| *kept == hash);
        rotated?;
        Ok(token)
    }

    /// Revokes every active token of the tenant that its user `user_id` created (what deactivating
    /// that user does unless an admin reassigns them first), each with its own audit entry naming
    /// `by`; refused everywhere within [`FRESH_FOR`](super::recent::FRESH_FOR). Answers the
    /// tokens revoked.
    pub async fn revoke_tokens_created_by(
        &self,
        tenant: &TenantId,
        user_id: &str,
        by: &Actor,
    ) -> Result<Vec<TouchedToken>, StoreError> {
        let evidence = json!({"created_by_user_id": user_id, "with_its_creator": true});
        let audit = Ledger::action_entry(tenant, by, "revoke_api_token", evidence);
        let revoked = self.store.revoke_api_tokens_created_by(tenant, user_id, audit).await;
        if let Ok(tokens) = &revoked {
            self.forget_tokens(tenant, |name| tokens.iter().any(|token| token.name == name));
        }
        revoked
    }

    /// Makes the tenant's active user `to_user_id` the creator of every active token that its user
    /// `from_user_id` created, so that they outlive the deactivation of `from_user_id`; each with
    /// its own audit entry naming `by`. `NotFound` when the tenant has no active user `to_user_id`.
    pub async fn reassign_tokens(
        &self,
        tenant: &TenantId,
        from_user_id: &str,
        to_user_id: &str,
        by: &Actor,
    ) -> Result<Vec<TouchedToken>, StoreError> {
        let evidence = json!({"from_user_id": from_user_id, "to_user_id": to_user_id});
        let audit = Ledger::action_entry(tenant, by, "reassign_api_token", evidence);
        self.store.reassign_api_tokens(tenant, from_user_id, to_user_id, audit).await
    }

    /// Every token of the tenant, revoked ones too, by name (never a secret).
    pub async fn tokens(&self, tenant: &TenantId) -> Result<Vec<ApiTokenListing>, StoreError> {
        self.store.api_tokens(tenant).await
    }

    /// Forgets the kept tokens of `tenant` whose name `matches`, after a change made here.
    pub(super) fn forget_tokens(&self, tenant: &TenantId, matches: impl Fn(&str) -> bool) {
        self.recent.tokens.forget_where(|_, record| {
            record.as_ref().is_some_and(|record| record.tenant == *tenant && matches(&record.name))
        });
    }

    /// The token that `token` names, if it exists, is not revoked, has not expired, and `token` is
    /// its current secret or its previous one within the rotation's grace: as read within the
    /// last [`FRESH_FOR`](super::recent::FRESH_FOR) at most, so a token revoked by another
    /// instance or the command line is refused here within that bound (at once when revoked
    /// here); expiry and grace are checked against the clock on every call.
    pub async fn authenticate(&self, token: &str) -> Result<Option<ApiTokenRecord>, StoreError> {
        if id_in(token).is_none() {
            return Ok(None);
        }
        let hash = hash_token(token);
        let read = self.store.find_api_token(&hash);
        let found = self.recent.tokens.get_or_read(hash.clone(), read).await?;
        Ok(found.filter(|record| {
            api_token::accepts(
                now(),
                record.expires_at,
                record.by_previous_secret,
                record.previous_valid_until,
            )
        }))
    }

    /// Notes a call with the token `record` from `address`: written at most once a minute per
    /// token by this instance, in the background (a failure is logged, the call goes on).
    pub fn note_token_use(&self, record: &ApiTokenRecord, address: IpAddr) {
        let at = now();
        if !self.recent.token_uses.due(&record.id, at) {
            return;
        }
        let store = self.store.clone();
        let id = record.id.clone();
        tokio::spawn(async move {
            if let Err(error) = store.record_token_use(&id, at, &address.to_string()).await {
                tracing::warn!(token = %id, error = %crate::server::telemetry::cause_chain(&error), "could not record a token's last use");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_id() {
        let token = token_text("0123456789ab");
        assert_eq!(id_in(&token), Some("0123456789ab"));
        assert_eq!(id_in("opl_"), None);
        assert_eq!(id_in("Bearer x"), None);
    }

    #[test]
    fn a_burst_of_uses_is_written_once_a_minute() {
        let uses = TokenUses::default();
        let start = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let written = (0..500).filter(|n| uses.due("t1", start + chrono::Duration::milliseconds(*n))).count();
        assert_eq!(written, 1, "one write for a burst within a minute");
        assert!(uses.due("t2", start), "each token on its own");
        assert!(!uses.due("t1", start + chrono::Duration::seconds(59)));
        assert!(uses.due("t1", start + chrono::Duration::seconds(60)), "written again after a minute");
    }
}
