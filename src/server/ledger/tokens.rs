//! API tokens: `opl_<id>_<secret>`, shown once at creation and stored only as a SHA-256 hash. The
//! secret carries 122 random bits, so a fast hash is enough (no password stretching needed).

use serde_json::json;
use sha2::{Digest, Sha256};

use super::Ledger;
use crate::domain::{audit::AuditEntry, ids::TenantId};
use crate::server::clock::now;
use crate::server::store::records::{ApiTokenRecord, NewApiToken};
use crate::server::store::StoreError;

/// The hash under which a token is stored and looked up.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Ledger {
    /// Creates a token named `name` for `tenant` (creating the tenant if it is new), audits it, and
    /// returns the token text, which is not stored anywhere.
    pub async fn create_token(
        &self,
        tenant: &TenantId,
        name: &str,
        created_by: &str,
    ) -> Result<String, StoreError> {
        let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_owned();
        let secret = uuid::Uuid::new_v4().simple().to_string();
        let token = format!("opl_{id}_{secret}");
        let at = now();
        let evidence = json!({"token_id": id, "name": name});
        let audit =
            AuditEntry::action(at, tenant.as_str(), created_by, "admin", "create_api_token", evidence);
        let new = NewApiToken {
            id,
            tenant: tenant.clone(),
            name: name.to_owned(),
            secret_hash: hash_token(&token),
            at,
        };
        let hash = new.secret_hash.clone();
        self.store.create_api_token(new, audit).await?;
        self.recent.tokens.forget_where(|kept, _| *kept == hash);
        Ok(token)
    }

    /// Revokes the tenant's token named `name`; calls with it are refused from now on.
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
        self.recent.tokens.forget_where(|_, record| {
            record.as_ref().is_some_and(|record| record.tenant == *tenant && record.name == name)
        });
        revoked
    }

    /// The token that `token` names, if it exists and is not revoked: as read within the last
    /// [`FRESH_FOR`](super::recent::FRESH_FOR) at most, so a token revoked by another instance or
    /// the command line is refused here within that bound (at once when revoked here).
    pub async fn authenticate(&self, token: &str) -> Result<Option<ApiTokenRecord>, StoreError> {
        if !token.starts_with("opl_") {
            return Ok(None);
        }
        let hash = hash_token(token);
        let read = self.store.find_api_token(&hash);
        self.recent.tokens.get_or_read(hash.clone(), read).await
    }
}
