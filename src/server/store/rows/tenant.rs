//! The rows of what a tenant sets up and runs besides operations: API tokens, console users,
//! approval rules, provider connections, email templates, webhook endpoints and their deliveries,
//! and the items of a bulk run.

use super::{corrupt, time};
use crate::domain::{
    api_token::Scopes,
    audit::AuditEntry,
    connection::ProviderKind,
    ids::TenantId,
    language::Language,
    money::{Currency, Money},
    people::{UserSource, UserStatus},
    policy::{ApprovalRule, Role},
};
use crate::server::store::records::{
    ApiTokenListing, ApiTokenRecord, ApprovalRuleRecord, BulkItemRecord, DeliveryStatus, EmailTemplateRecord,
    ProviderConnectionRecord, TouchedToken, UserRecord, WebhookDeliveryRecord, WebhookEndpointRecord,
};
use crate::server::store::StoreError;

/// The columns an [`ApiTokenRow`] reads.
pub(in crate::server::store) const API_TOKEN_COLUMNS: &str =
    "id, tenant, name, secret_hash, scopes, expires_at_us, previous_valid_until_us";

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct ApiTokenRow {
    id: String,
    tenant: String,
    name: String,
    secret_hash: String,
    scopes: String,
    expires_at_us: Option<i64>,
    previous_valid_until_us: Option<i64>,
}

impl ApiTokenRow {
    /// The token as found by the secret that hashes to `presented_hash` (its current one, or
    /// the one its last rotation replaced).
    pub(in crate::server::store) fn into_record(
        self,
        presented_hash: &str,
    ) -> Result<ApiTokenRecord, StoreError> {
        Ok(ApiTokenRecord {
            id: self.id,
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            name: self.name,
            scopes: Scopes::parse(&self.scopes).map_err(|e| corrupt("scopes")(e.to_string()))?,
            expires_at: self.expires_at_us.map(time).transpose()?,
            by_previous_secret: self.secret_hash != presented_hash,
            previous_valid_until: self.previous_valid_until_us.map(time).transpose()?,
        })
    }
}

/// The columns an [`ApiTokenListingRow`] reads.
pub(in crate::server::store) const API_TOKEN_LISTING_COLUMNS: &str = "id, name, scopes, created_by, \
     created_by_user_id, created_at_us, expires_at_us, revoked_at_us, last_used_at_us, last_used_from, \
     rotated_at_us, previous_valid_until_us";

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct ApiTokenListingRow {
    id: String,
    name: String,
    scopes: String,
    created_by: String,
    created_by_user_id: Option<String>,
    created_at_us: i64,
    expires_at_us: Option<i64>,
    revoked_at_us: Option<i64>,
    last_used_at_us: Option<i64>,
    last_used_from: Option<String>,
    rotated_at_us: Option<i64>,
    previous_valid_until_us: Option<i64>,
}

impl ApiTokenListingRow {
    pub(in crate::server::store) fn into_listing(self) -> Result<ApiTokenListing, StoreError> {
        Ok(ApiTokenListing {
            id: self.id,
            name: self.name,
            scopes: Scopes::parse(&self.scopes).map_err(|e| corrupt("scopes")(e.to_string()))?,
            created_by: self.created_by,
            created_by_user_id: self.created_by_user_id,
            created_at: time(self.created_at_us)?,
            expires_at: self.expires_at_us.map(time).transpose()?,
            revoked_at: self.revoked_at_us.map(time).transpose()?,
            last_used_at: self.last_used_at_us.map(time).transpose()?,
            last_used_from: self.last_used_from,
            rotated_at: self.rotated_at_us.map(time).transpose()?,
            previous_valid_until: self.previous_valid_until_us.map(time).transpose()?,
        })
    }
}

/// The tokens a change about many tokens touched, from its `returning id, name`, by name.
pub(in crate::server::store) fn touched_tokens(rows: Vec<(String, String)>) -> Vec<TouchedToken> {
    let mut touched: Vec<TouchedToken> =
        rows.into_iter().map(|(id, name)| TouchedToken { id, name }).collect();
    touched.sort_by(|a, b| a.name.cmp(&b.name));
    touched
}

/// One audit entry per touched token: `audit` with the token's id and name in its evidence.
pub(in crate::server::store) fn audit_per_token(
    audit: &AuditEntry,
    touched: &[TouchedToken],
) -> Vec<AuditEntry> {
    touched
        .iter()
        .map(|token| {
            let mut entry = audit.clone();
            if let serde_json::Value::Object(evidence) = &mut entry.evidence {
                evidence.insert("token_id".into(), token.id.clone().into());
                evidence.insert("name".into(), token.name.clone().into());
            }
            entry
        })
        .collect()
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct UserRow {
    id: String,
    tenant: String,
    name: String,
    role: String,
    password_hash: String,
    created_at_us: i64,
    language: Option<String>,
    status: String,
    source: String,
    sso_subject: Option<String>,
    last_sign_in_at_us: Option<i64>,
    two_factor_secret: Option<String>,
    two_factor_pending: Option<String>,
    two_factor_step: Option<i64>,
}

/// The columns a new user is inserted with; [`USER_COLUMNS`] reads them back with the language,
/// status, source and last sign-in.
pub(in crate::server::store) const NEW_USER_COLUMNS: &str =
    "id, tenant, name, role, password_hash, created_at_us";
pub(in crate::server::store) const USER_COLUMNS: &str =
    "id, tenant, name, role, password_hash, created_at_us, language, status, source, sso_subject, last_sign_in_at_us, \
     two_factor_secret, two_factor_pending, two_factor_step";

impl UserRow {
    pub(in crate::server::store) fn into_record(self) -> Result<UserRecord, StoreError> {
        Ok(UserRecord {
            id: self.id,
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            name: self.name,
            role: Role::parse(&self.role).ok_or_else(|| corrupt("role")(self.role.clone()))?,
            password_hash: self.password_hash,
            created_at: time(self.created_at_us)?,
            language: self.language.as_deref().and_then(Language::parse),
            status: UserStatus::parse(&self.status).ok_or_else(|| corrupt("status")(self.status.clone()))?,
            source: UserSource::parse(&self.source).ok_or_else(|| corrupt("source")(self.source.clone()))?,
            sso_subject: self.sso_subject,
            last_sign_in_at: self.last_sign_in_at_us.map(time).transpose()?,
            two_factor_secret: self.two_factor_secret,
            two_factor_pending: self.two_factor_pending,
            two_factor_step: self.two_factor_step,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct ApprovalRuleRow {
    id: String,
    kind: String,
    provider: Option<String>,
    threshold_minor: Option<i64>,
    threshold_currency: Option<String>,
    created_by: String,
    created_at_us: i64,
}

pub(in crate::server::store) const APPROVAL_RULE_COLUMNS: &str =
    "id, kind, provider, threshold_minor, threshold_currency, created_by, created_at_us";

impl ApprovalRuleRow {
    pub(in crate::server::store) fn into_record(self) -> Result<ApprovalRuleRecord, StoreError> {
        let threshold = match (self.threshold_minor, self.threshold_currency) {
            (Some(minor), Some(currency)) => Some(Money::new(
                minor,
                Currency::parse(&currency).map_err(|e| corrupt("threshold_currency")(e.to_string()))?,
            )),
            _ => None,
        };
        Ok(ApprovalRuleRecord {
            id: self.id,
            rule: ApprovalRule { kind: self.kind, provider: self.provider, threshold },
            created_by: self.created_by,
            created_at: time(self.created_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct ProviderConnectionRow {
    tenant: String,
    name: String,
    kind: String,
    base_url: String,
    sealed_secret: String,
    secret_last4: String,
    updated_by: String,
    updated_at_us: i64,
    account: Option<String>,
    key_retention_s: Option<i64>,
    sealed_webhook_secret: Option<String>,
    description: Option<String>,
}

/// The columns a connection is written with; it is read with its webhook signing secret besides
/// ([`PROVIDER_CONNECTION_READ`]).
pub(in crate::server::store) const PROVIDER_CONNECTION_COLUMNS: &str =
    "tenant, name, kind, base_url, sealed_secret, secret_last4, updated_by, updated_at_us, account, key_retention_s, description";

pub(in crate::server::store) const PROVIDER_CONNECTION_READ: &str =
    "tenant, name, kind, base_url, sealed_secret, secret_last4, \
    updated_by, updated_at_us, account, key_retention_s, sealed_webhook_secret, description";

impl ProviderConnectionRow {
    pub(in crate::server::store) fn into_record(self) -> Result<ProviderConnectionRecord, StoreError> {
        Ok(ProviderConnectionRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            kind: ProviderKind::parse(&self.kind).ok_or_else(|| corrupt("kind")(self.kind.clone()))?,
            name: self.name,
            base_url: self.base_url,
            sealed_secret: self.sealed_secret,
            secret_last4: self.secret_last4,
            updated_by: self.updated_by,
            updated_at: time(self.updated_at_us)?,
            account: self.account,
            key_retention: self.key_retention_s.map(chrono::Duration::seconds),
            sealed_webhook_secret: self.sealed_webhook_secret,
            description: self.description,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct EmailTemplateRow {
    tenant: String,
    name: String,
    subject: String,
    body: String,
    updated_by: String,
    updated_at_us: i64,
}

impl EmailTemplateRow {
    pub(in crate::server::store) fn into_record(self) -> Result<EmailTemplateRecord, StoreError> {
        Ok(EmailTemplateRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            template: crate::domain::email::EmailTemplate {
                name: self.name,
                subject: self.subject,
                body: self.body,
            },
            updated_by: self.updated_by,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct WebhookEndpointRow {
    tenant: String,
    id: String,
    url: String,
    event_types: String,
    sealed_secret: String,
    created_by: String,
    created_at_us: i64,
}

pub(in crate::server::store) const WEBHOOK_ENDPOINT_COLUMNS: &str =
    "tenant, id, url, event_types, sealed_secret, created_by, created_at_us";

impl WebhookEndpointRow {
    pub(in crate::server::store) fn into_record(self) -> Result<WebhookEndpointRecord, StoreError> {
        Ok(WebhookEndpointRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            id: self.id,
            url: self.url,
            event_types: crate::domain::webhook::read_event_types(&self.event_types),
            sealed_secret: self.sealed_secret,
            created_by: self.created_by,
            created_at: time(self.created_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct WebhookDeliveryRow {
    tenant: String,
    id: String,
    endpoint_id: String,
    message_id: String,
    event_type: String,
    payload: String,
    created_at_us: i64,
    status: String,
    attempts: i32,
    next_attempt_at_us: i64,
    last_attempt_at_us: Option<i64>,
    last_status: Option<i32>,
    last_error: Option<String>,
}

pub(in crate::server::store) const WEBHOOK_DELIVERY_COLUMNS: &str =
    "tenant, id, endpoint_id, message_id, event_type, payload, \
    created_at_us, status, attempts, next_attempt_at_us, last_attempt_at_us, last_status, last_error";

impl WebhookDeliveryRow {
    pub(in crate::server::store) fn into_record(self) -> Result<WebhookDeliveryRecord, StoreError> {
        Ok(WebhookDeliveryRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            status: DeliveryStatus::parse(&self.status)
                .ok_or_else(|| corrupt("status")(self.status.clone()))?,
            id: self.id,
            endpoint_id: self.endpoint_id,
            message_id: self.message_id,
            event_type: self.event_type,
            payload: self.payload,
            created_at: time(self.created_at_us)?,
            attempts: u32::try_from(self.attempts).map_err(|e| corrupt("attempts")(e.to_string()))?,
            next_attempt_at: time(self.next_attempt_at_us)?,
            last_attempt_at: self.last_attempt_at_us.map(time).transpose()?,
            last_status: self.last_status.and_then(|status| u16::try_from(status).ok()),
            last_error: self.last_error,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct BulkItemRow {
    position: i64,
    op_id: String,
    outcome: Option<String>,
    message: Option<String>,
}

impl BulkItemRow {
    pub(in crate::server::store) fn into_record(self) -> Result<BulkItemRecord, StoreError> {
        Ok(BulkItemRecord {
            position: u32::try_from(self.position).map_err(|e| corrupt("position")(e.to_string()))?,
            op_id: self.op_id,
            outcome: self.outcome,
            message: self.message,
        })
    }
}
