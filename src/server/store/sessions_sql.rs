//! The console's sessions, shared by both engines: one row per session, keyed by a hash of the
//! id the browser holds, with its expiry and its user (so that a person's sessions can be ended
//! at once, and a deactivated person's never load).

/// Writes the [`Sessions`](super::Sessions) implementation for one engine, inside [`super::sql::sql_store!`].

macro_rules! store_sessions {
    ($store:ty, $db:ty, $backend:expr, $migrations:literal, begin = $begin:path, lock_tenant = $lock_tenant:literal, skip_locked = $skip_locked:literal) => {
        #[async_trait::async_trait]
        impl Sessions for $store {
            async fn create_session(
                &self,
                id_hash: &str,
                data: &str,
                expires_at: chrono::DateTime<chrono::Utc>,
                owner: Option<&SessionOwner>,
            ) -> Result<bool, StoreError> {
                let inserted = sqlx::query(
                    "insert into sessions (id_hash, data, expires_at_us, tenant, user_id) values ($1, $2, $3, $4, $5) \
                     on conflict (id_hash) do nothing",
                )
                .bind(id_hash)
                .bind(data)
                .bind(micros(expires_at))
                .bind(owner.map(|owner| owner.tenant.as_str()))
                .bind(owner.map(|owner| owner.user_id.as_str()))
                .execute(&self.writes)
                .await?
                .rows_affected();
                Ok(inserted == 1)
            }

            async fn save_session(
                &self,
                id_hash: &str,
                data: &str,
                expires_at: chrono::DateTime<chrono::Utc>,
                owner: Option<&SessionOwner>,
            ) -> Result<(), StoreError> {
                sqlx::query(
                    "insert into sessions (id_hash, data, expires_at_us, tenant, user_id) values ($1, $2, $3, $4, $5) \
                     on conflict (id_hash) do update set data = excluded.data, expires_at_us = excluded.expires_at_us, \
                     tenant = excluded.tenant, user_id = excluded.user_id",
                )
                .bind(id_hash)
                .bind(data)
                .bind(micros(expires_at))
                .bind(owner.map(|owner| owner.tenant.as_str()))
                .bind(owner.map(|owner| owner.user_id.as_str()))
                .execute(&self.writes)
                .await?;
                Ok(())
            }

            async fn load_session(
                &self,
                id_hash: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<String>, StoreError> {
                let row: Option<(String,)> =
                    sqlx::query_as(
                        "select s.data from sessions s where s.id_hash = $1 and s.expires_at_us > $2 \
                         and (s.user_id is null or exists (select 1 from users u \
                         where u.tenant = s.tenant and u.id = s.user_id and u.status = 'active'))",
                    )
                        .bind(id_hash)
                        .bind(micros(now))
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(|(data,)| data))
            }

            async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
                sqlx::query("delete from sessions where id_hash = $1").bind(id_hash).execute(&self.writes).await?;
                Ok(())
            }

            async fn end_sessions_of(&self, tenant: &TenantId, user_id: &str) -> Result<u64, StoreError> {
                Ok(sqlx::query("delete from sessions where tenant = $1 and user_id = $2")
                    .bind(tenant.as_str())
                    .bind(user_id)
                    .execute(&self.writes)
                    .await?
                    .rows_affected())
            }

            async fn delete_expired_sessions(&self, now: chrono::DateTime<chrono::Utc>) -> Result<u64, StoreError> {
                Ok(sqlx::query("delete from sessions where expires_at_us <= $1")
                    .bind(micros(now))
                    .execute(&self.writes)
                    .await?
                    .rows_affected())
            }
        }
    };
}

pub(super) use store_sessions;
