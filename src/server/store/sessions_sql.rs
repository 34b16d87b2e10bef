//! The console's sessions, shared by both engines: one row per session, keyed by a hash of the
//! id the browser holds, with its expiry.

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
            ) -> Result<bool, StoreError> {
                let inserted = sqlx::query(
                    "insert into sessions (id_hash, data, expires_at_us) values ($1, $2, $3) on conflict (id_hash) do nothing",
                )
                .bind(id_hash)
                .bind(data)
                .bind(micros(expires_at))
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
            ) -> Result<(), StoreError> {
                sqlx::query(
                    "insert into sessions (id_hash, data, expires_at_us) values ($1, $2, $3) \
                     on conflict (id_hash) do update set data = excluded.data, expires_at_us = excluded.expires_at_us",
                )
                .bind(id_hash)
                .bind(data)
                .bind(micros(expires_at))
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
                    sqlx::query_as("select data from sessions where id_hash = $1 and expires_at_us > $2")
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
