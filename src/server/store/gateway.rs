//! What keyless gateways need kept, on both engines: the ids a payment's refunds are looked up
//! with, saved when the payment became known (ECPay's payment notification, or entered by the
//! shop), and the list of a payment's refunds taken just before an operation was sent to a gateway
//! without a key, kept before anything left so that a later lookup tells its refund from an older
//! one of the same amount.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::audit::AuditEntry;
use crate::domain::gateway::{Baseline, SavedPayment};
use crate::domain::ids::{OpId, TenantId};

/// A payment's saved ids, as kept for one of a tenant's connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedPaymentRecord {
    pub tenant: TenantId,
    pub connection: String,
    pub payment: SavedPayment,
    /// `notification` (the gateway said so, signed) or `entered` (a person or the shop).
    pub source: String,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

#[async_trait]
pub trait GatewayStore: Send + Sync {
    /// Keeps a payment's ids (replacing what was kept for it), with its audit entry.
    async fn save_payment(&self, record: SavedPaymentRecord, audit: AuditEntry) -> Result<(), StoreError>;

    /// The ids kept for `payment` at `tenant`'s connection `connection`.
    async fn saved_payment(
        &self,
        tenant: &TenantId,
        connection: &str,
        payment: &str,
    ) -> Result<Option<SavedPaymentRecord>, StoreError>;

    /// Keeps the list of refunds read just before `op_id`'s send (replacing an earlier attempt's).
    async fn keep_baseline(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        baseline: &Baseline,
    ) -> Result<(), StoreError>;

    /// The list kept before `op_id`'s latest send, if one was kept.
    async fn baseline(&self, tenant: &TenantId, op_id: &OpId) -> Result<Option<Baseline>, StoreError>;
}

macro_rules! store_gateway {
    ($store:ty, $begin:path) => {
        #[async_trait::async_trait]
        impl $crate::server::store::gateway::GatewayStore for $store {
            async fn save_payment(
                &self,
                record: $crate::server::store::gateway::SavedPaymentRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let facts = serde_json::to_string(&record.payment)
                    .map_err(|error| StoreError::Corrupt(format!("a saved payment: {error}")))?;
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "insert into gateway_payments (tenant, connection, payment, facts, source, recorded_by, recorded_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7) \
                     on conflict (tenant, connection, payment) do update set facts = excluded.facts, \
                     source = excluded.source, recorded_by = excluded.recorded_by, recorded_at_us = excluded.recorded_at_us",
                )
                .bind(record.tenant.as_str())
                .bind(&record.connection)
                .bind(&record.payment.payment)
                .bind(facts)
                .bind(&record.source)
                .bind(&record.recorded_by)
                .bind(micros(record.recorded_at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, &record.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn saved_payment(
                &self,
                tenant: &TenantId,
                connection: &str,
                payment: &str,
            ) -> Result<Option<$crate::server::store::gateway::SavedPaymentRecord>, StoreError> {
                let row: Option<(String, String, String, i64)> = sqlx::query_as(
                    "select facts, source, recorded_by, recorded_at_us from gateway_payments \
                     where tenant = $1 and connection = $2 and payment = $3",
                )
                .bind(tenant.as_str())
                .bind(connection)
                .bind(payment)
                .fetch_optional(&self.pool)
                .await?;
                let Some((facts, source, recorded_by, at)) = row else { return Ok(None) };
                let payment = serde_json::from_str(&facts)
                    .map_err(|error| StoreError::Corrupt(format!("a saved payment: {error}")))?;
                Ok(Some($crate::server::store::gateway::SavedPaymentRecord {
                    tenant: tenant.clone(),
                    connection: connection.to_owned(),
                    payment,
                    source,
                    recorded_by,
                    recorded_at: $crate::server::store::notify::time(at)?,
                }))
            }

            async fn keep_baseline(
                &self,
                tenant: &TenantId,
                op_id: &OpId,
                baseline: &$crate::domain::gateway::Baseline,
            ) -> Result<(), StoreError> {
                let refunds = serde_json::to_string(&baseline.refunds)
                    .map_err(|error| StoreError::Corrupt(format!("a list of refunds: {error}")))?;
                sqlx::query(
                    "insert into send_baselines (tenant, op_id, attempt, taken_at_us, refunds) values ($1, $2, $3, $4, $5) \
                     on conflict (tenant, op_id) do update set attempt = excluded.attempt, \
                     taken_at_us = excluded.taken_at_us, refunds = excluded.refunds",
                )
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .bind(i64::from(baseline.attempt.0))
                .bind(micros(baseline.taken_at))
                .bind(refunds)
                .execute(&self.writes)
                .await?;
                Ok(())
            }

            async fn baseline(
                &self,
                tenant: &TenantId,
                op_id: &OpId,
            ) -> Result<Option<$crate::domain::gateway::Baseline>, StoreError> {
                let row: Option<(i64, i64, String)> = sqlx::query_as(
                    "select attempt, taken_at_us, refunds from send_baselines where tenant = $1 and op_id = $2",
                )
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_optional(&self.pool)
                .await?;
                let Some((attempt, taken_at, refunds)) = row else { return Ok(None) };
                Ok(Some($crate::domain::gateway::Baseline {
                    attempt: $crate::domain::ids::AttemptNumber(
                        u32::try_from(attempt).map_err(|_| StoreError::Corrupt("an attempt number".into()))?,
                    ),
                    taken_at: $crate::server::store::notify::time(taken_at)?,
                    refunds: serde_json::from_str(&refunds)
                        .map_err(|error| StoreError::Corrupt(format!("a list of refunds: {error}")))?,
                }))
            }
        }
    };
}

pub(super) use store_gateway;
