//! What signing in through a tenant's identity provider keeps, on both engines: the tenant's
//! settings (with its sign-in domains), the sign-ins on their way through the provider (used once),
//! and the people who came from it, found by the provider's issuer and subject within their tenant.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::audit::AuditEntry;
use crate::domain::ids::TenantId;
use crate::domain::language::Language;
use crate::domain::policy::Role;
use crate::domain::sso::GroupRole;

/// A tenant's identity provider, as stored: the client secret sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoSettingsRecord {
    pub tenant: TenantId,
    pub issuer: String,
    pub client_id: String,
    pub sealed_client_secret: String,
    pub secret_last4: String,
    pub display_name: String,
    pub groups_claim: String,
    pub group_roles: Vec<GroupRole>,
    pub allowed_domains: Vec<String>,
    /// Local passwords are off for the tenant, but for [`Self::break_glass_user`]'s.
    pub sso_only: bool,
    pub break_glass_user: Option<String>,
    /// The domains a person types (their e-mail's) to find this tenant on the sign-in page.
    pub sign_in_domains: Vec<String>,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
}

/// A sign-in on its way through the provider, stored under a hash of the id its browser holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoFlowRecord {
    pub id_hash: String,
    pub tenant: TenantId,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
    /// Where the person goes once signed in.
    pub next: String,
    pub expires_at: DateTime<Utc>,
}

/// A person who signs in through their tenant's provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoUserRecord {
    pub id: String,
    pub name: String,
    pub role: Role,
    /// `active` or `deactivated`.
    pub status: String,
    pub language: Option<Language>,
}

/// A person signing in through their tenant's provider for the first time.
#[derive(Debug, Clone)]
pub struct NewSsoUser {
    pub id: String,
    pub tenant: TenantId,
    /// Their e-mail address.
    pub name: String,
    pub role: Role,
    /// The provider's issuer and the person's subject there.
    pub subject: String,
    pub at: DateTime<Utc>,
}

/// The password hash of a person who signs in through a provider: no password ever matches it.
pub const NO_PASSWORD: &str = "!sso";

#[async_trait]
pub trait SsoStore: Send + Sync {
    /// The tenant's identity provider settings, if it has any.
    async fn sso_settings(&self, tenant: &TenantId) -> Result<Option<SsoSettingsRecord>, StoreError>;

    /// Whether any tenant signs in through an identity provider.
    async fn any_sso_settings(&self) -> Result<bool, StoreError>;

    /// The tenant whose sign-in domains include `domain`.
    async fn sso_tenant_of_domain(&self, domain: &str) -> Result<Option<TenantId>, StoreError>;

    /// Sets (or replaces) the tenant's settings and its sign-in domains, with the audit entry;
    /// `Conflict` when another tenant has one of the domains.
    async fn set_sso_settings(
        &self,
        settings: SsoSettingsRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Removes the tenant's settings and sign-in domains; `NotFound` when it has none.
    async fn remove_sso_settings(&self, tenant: &TenantId, audit: AuditEntry) -> Result<(), StoreError>;

    /// Keeps a sign-in on its way to the provider (and forgets those that expired by `now`).
    async fn start_sso_flow(&self, flow: SsoFlowRecord, now: DateTime<Utc>) -> Result<(), StoreError>;

    /// Takes the sign-in stored under `id_hash` (it can be taken once), unless it expired by `now`.
    async fn take_sso_flow(
        &self,
        id_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SsoFlowRecord>, StoreError>;

    /// The tenant's user known to its provider as `subject` (issuer and subject).
    async fn sso_user(&self, tenant: &TenantId, subject: &str) -> Result<Option<SsoUserRecord>, StoreError>;

    /// Creates a user who came from the provider, with the audit entry; `Conflict` when the name
    /// or the subject is taken in the tenant.
    async fn create_sso_user(&self, user: NewSsoUser, audit: AuditEntry) -> Result<(), StoreError>;

    /// Sets the role of the tenant's user `user_id`, with the audit entry.
    async fn set_sso_user_role(
        &self,
        tenant: &TenantId,
        user_id: &str,
        role: Role,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// The names of the tenant's active admins (whom a person without a role should ask).
    async fn tenant_admin_names(&self, tenant: &TenantId) -> Result<Vec<String>, StoreError>;
}

/// A stored row of `tenant_sso`.
#[derive(sqlx::FromRow)]
pub(super) struct SsoSettingsRow {
    pub tenant: String,
    pub issuer: String,
    pub client_id: String,
    pub sealed_client_secret: String,
    pub secret_last4: String,
    pub display_name: String,
    pub groups_claim: String,
    pub group_roles: String,
    pub allowed_domains: String,
    pub sso_only: i64,
    pub break_glass_user: Option<String>,
    pub updated_by: String,
    pub updated_at_us: i64,
}

pub(super) const SSO_SETTINGS_COLUMNS: &str = "tenant, issuer, client_id, sealed_client_secret, secret_last4, \
     display_name, groups_claim, group_roles, allowed_domains, sso_only, break_glass_user, updated_by, updated_at_us";

impl SsoSettingsRow {
    pub(super) fn into_record(self, sign_in_domains: Vec<String>) -> Result<SsoSettingsRecord, StoreError> {
        let corrupt = |what: &str, problem: String| StoreError::Corrupt(format!("{what}: {problem}"));
        Ok(SsoSettingsRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant", e.to_string()))?,
            issuer: self.issuer,
            client_id: self.client_id,
            sealed_client_secret: self.sealed_client_secret,
            secret_last4: self.secret_last4,
            display_name: self.display_name,
            groups_claim: self.groups_claim,
            group_roles: serde_json::from_str(&self.group_roles)
                .map_err(|e| corrupt("group_roles", e.to_string()))?,
            allowed_domains: serde_json::from_str(&self.allowed_domains)
                .map_err(|e| corrupt("allowed_domains", e.to_string()))?,
            sso_only: self.sso_only != 0,
            break_glass_user: self.break_glass_user,
            sign_in_domains,
            updated_by: self.updated_by,
            updated_at: DateTime::from_timestamp_micros(self.updated_at_us)
                .ok_or_else(|| corrupt("updated_at_us", self.updated_at_us.to_string()))?,
        })
    }
}

/// A stored row of `sso_flows`.
#[derive(sqlx::FromRow)]
pub(super) struct SsoFlowRow {
    pub id_hash: String,
    pub tenant: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
    pub next: String,
    pub expires_at_us: i64,
}

impl SsoFlowRow {
    pub(super) fn into_record(self) -> Result<SsoFlowRecord, StoreError> {
        Ok(SsoFlowRecord {
            id_hash: self.id_hash,
            tenant: TenantId::parse(&self.tenant).map_err(|e| StoreError::Corrupt(format!("tenant: {e}")))?,
            state: self.state,
            nonce: self.nonce,
            pkce_verifier: self.pkce_verifier,
            next: self.next,
            expires_at: DateTime::from_timestamp_micros(self.expires_at_us)
                .ok_or_else(|| StoreError::Corrupt(format!("expires_at_us: {}", self.expires_at_us)))?,
        })
    }
}

/// Writes the [`SsoStore`] implementation for one engine, inside [`super::sql::sql_store!`].
macro_rules! store_sso {
    ($store:ty, $begin:path) => {
        #[async_trait::async_trait]
        impl $crate::server::store::sso::SsoStore for $store {
            async fn sso_settings(
                &self,
                tenant: &TenantId,
            ) -> Result<Option<$crate::server::store::sso::SsoSettingsRecord>, StoreError> {
                use $crate::server::store::sso::{SsoSettingsRow, SSO_SETTINGS_COLUMNS};
                let row: Option<SsoSettingsRow> =
                    sqlx::query_as(&format!("select {SSO_SETTINGS_COLUMNS} from tenant_sso where tenant = $1"))
                        .bind(tenant.as_str())
                        .fetch_optional(&self.pool)
                        .await?;
                let Some(row) = row else { return Ok(None) };
                let domains: Vec<(String,)> =
                    sqlx::query_as("select domain from sso_domains where tenant = $1 order by domain")
                        .bind(tenant.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                row.into_record(domains.into_iter().map(|(domain,)| domain).collect()).map(Some)
            }

            async fn any_sso_settings(&self) -> Result<bool, StoreError> {
                let row: Option<(String,)> =
                    sqlx::query_as("select tenant from tenant_sso limit 1").fetch_optional(&self.pool).await?;
                Ok(row.is_some())
            }

            async fn sso_tenant_of_domain(&self, domain: &str) -> Result<Option<TenantId>, StoreError> {
                let row: Option<(String,)> = sqlx::query_as("select tenant from sso_domains where domain = $1")
                    .bind(domain)
                    .fetch_optional(&self.pool)
                    .await?;
                row.map(|(tenant,)| TenantId::parse(&tenant).map_err(|e| StoreError::Corrupt(format!("tenant: {e}"))))
                    .transpose()
            }

            async fn set_sso_settings(
                &self,
                settings: $crate::server::store::sso::SsoSettingsRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                use $crate::server::store::sso::SSO_SETTINGS_COLUMNS;
                let tenant = &settings.tenant;
                let mut tx = begin_write_creating(self, tenant, settings.updated_at).await?;
                sqlx::query(&format!(
                    "insert into tenant_sso ({SSO_SETTINGS_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
                     on conflict (tenant) do update set issuer = excluded.issuer, client_id = excluded.client_id, \
                     sealed_client_secret = excluded.sealed_client_secret, secret_last4 = excluded.secret_last4, \
                     display_name = excluded.display_name, groups_claim = excluded.groups_claim, \
                     group_roles = excluded.group_roles, allowed_domains = excluded.allowed_domains, \
                     sso_only = excluded.sso_only, break_glass_user = excluded.break_glass_user, \
                     updated_by = excluded.updated_by, updated_at_us = excluded.updated_at_us"
                ))
                .bind(tenant.as_str())
                .bind(&settings.issuer)
                .bind(&settings.client_id)
                .bind(&settings.sealed_client_secret)
                .bind(&settings.secret_last4)
                .bind(&settings.display_name)
                .bind(&settings.groups_claim)
                .bind(serde_json::to_string(&settings.group_roles).unwrap_or_else(|_| "[]".into()))
                .bind(serde_json::to_string(&settings.allowed_domains).unwrap_or_else(|_| "[]".into()))
                .bind(i64::from(settings.sso_only))
                .bind(&settings.break_glass_user)
                .bind(&settings.updated_by)
                .bind(micros(settings.updated_at))
                .execute(&mut *tx)
                .await?;
                sqlx::query("delete from sso_domains where tenant = $1").bind(tenant.as_str()).execute(&mut *tx).await?;
                for domain in &settings.sign_in_domains {
                    sqlx::query("insert into sso_domains (domain, tenant) values ($1, $2)")
                        .bind(domain)
                        .bind(tenant.as_str())
                        .execute(&mut *tx)
                        .await
                        .map_err(|e| {
                            StoreError::from_unique(e, &format!("the sign-in domain {domain} belongs to another tenant"))
                        })?;
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_sso_settings(&self, tenant: &TenantId, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query("delete from sso_domains where tenant = $1").bind(tenant.as_str()).execute(&mut *tx).await?;
                let removed = sqlx::query("delete from tenant_sso where tenant = $1")
                    .bind(tenant.as_str())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if removed == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn start_sso_flow(
                &self,
                flow: $crate::server::store::sso::SsoFlowRecord,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                sqlx::query("delete from sso_flows where expires_at_us <= $1").bind(micros(now)).execute(&self.writes).await?;
                sqlx::query(
                    "insert into sso_flows (id_hash, tenant, state, nonce, pkce_verifier, next, expires_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(&flow.id_hash)
                .bind(flow.tenant.as_str())
                .bind(&flow.state)
                .bind(&flow.nonce)
                .bind(&flow.pkce_verifier)
                .bind(&flow.next)
                .bind(micros(flow.expires_at))
                .execute(&self.writes)
                .await?;
                Ok(())
            }

            async fn take_sso_flow(
                &self,
                id_hash: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::server::store::sso::SsoFlowRecord>, StoreError> {
                let row: Option<$crate::server::store::sso::SsoFlowRow> = sqlx::query_as(
                    "delete from sso_flows where id_hash = $1 \
                     returning id_hash, tenant, state, nonce, pkce_verifier, next, expires_at_us",
                )
                .bind(id_hash)
                .fetch_optional(&self.writes)
                .await?;
                let flow = row.map(|row| row.into_record()).transpose()?;
                Ok(flow.filter(|flow| flow.expires_at > now))
            }

            async fn sso_user(
                &self,
                tenant: &TenantId,
                subject: &str,
            ) -> Result<Option<$crate::server::store::sso::SsoUserRecord>, StoreError> {
                let row: Option<(String, String, String, String, Option<String>)> = sqlx::query_as(
                    "select id, name, role, status, language from users where tenant = $1 and sso_subject = $2",
                )
                .bind(tenant.as_str())
                .bind(subject)
                .fetch_optional(&self.pool)
                .await?;
                row.map(|(id, name, role, status, language)| {
                    Ok($crate::server::store::sso::SsoUserRecord {
                        id,
                        name,
                        role: $crate::domain::policy::Role::parse(&role)
                            .ok_or_else(|| StoreError::Corrupt(format!("role: {role}")))?,
                        status,
                        language: language.as_deref().and_then(Language::parse),
                    })
                })
                .transpose()
            }

            async fn create_sso_user(
                &self,
                user: $crate::server::store::sso::NewSsoUser,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "insert into users (id, tenant, name, role, password_hash, created_at_us, status, source, sso_subject) \
                     values ($1, $2, $3, $4, $5, $6, 'active', 'sso', $7)",
                )
                .bind(&user.id)
                .bind(user.tenant.as_str())
                .bind(&user.name)
                .bind(user.role.as_str())
                .bind($crate::server::store::sso::NO_PASSWORD)
                .bind(micros(user.at))
                .bind(&user.subject)
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, &format!("a user named {} exists already in this tenant", user.name)))?;
                append_audit(&mut tx, &user.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn set_sso_user_role(
                &self,
                tenant: &TenantId,
                user_id: &str,
                role: $crate::domain::policy::Role,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let changed = sqlx::query("update users set role = $1 where tenant = $2 and id = $3")
                    .bind(role.as_str())
                    .bind(tenant.as_str())
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn tenant_admin_names(&self, tenant: &TenantId) -> Result<Vec<String>, StoreError> {
                let rows: Vec<(String,)> = sqlx::query_as(
                    "select name from users where tenant = $1 and role = 'admin' and status = 'active' order by name",
                )
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(|(name,)| name).collect())
            }
        }
    };
}

pub(super) use store_sso;
