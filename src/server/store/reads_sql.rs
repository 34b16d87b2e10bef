//! The store's reads, shared by both engines: what the [`Reads`](super::Reads) handle answers
//! (operations and their histories, the console's lists, counts and chart series, the audit trail,
//! tokens, users, approval rules, console request answers and bulk runs). Reads never open a write
//! transaction.

/// Writes the [`Reads`](super::Reads) implementation for one engine, inside [`super::sql::sql_store!`].

macro_rules! store_reads {
    ($store:ty, $db:ty, $backend:expr, $migrations:literal, begin = $begin:path, lock_tenant = $lock_tenant:literal, skip_locked = $skip_locked:literal) => {
        #[async_trait::async_trait]
        impl Reads for $store {
            fn backend(&self) -> Backend {
                $backend
            }

            async fn check_health(&self) -> Result<(), StoreError> {
                sqlx::query("select 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn find_api_token(&self, secret_hash: &str) -> Result<Option<ApiTokenRecord>, StoreError> {
                // Two lookups of one unique index each (an `or` of two columns would scan).
                for column in ["secret_hash", "previous_secret_hash"] {
                    let row: Option<ApiTokenRow> = sqlx::query_as(&format!(
                        "select {API_TOKEN_COLUMNS} from api_tokens where {column} = $1 and revoked_at_us is null"
                    ))
                    .bind(secret_hash)
                    .fetch_optional(&self.pool)
                    .await?;
                    if let Some(row) = row {
                        return row.into_record(secret_hash).map(Some);
                    }
                }
                Ok(None)
            }

            async fn api_tokens(&self, tenant: &TenantId) -> Result<Vec<ApiTokenListing>, StoreError> {
                let rows: Vec<ApiTokenListingRow> = sqlx::query_as(&format!(
                    "select {API_TOKEN_LISTING_COLUMNS} from api_tokens where tenant = $1 order by name"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(ApiTokenListingRow::into_listing).collect()
            }

            async fn load_operation(&self, tenant: &TenantId, op_id: &OpId) -> Result<Option<OperationRecord>, StoreError> {
                let row: Option<OperationRow> = sqlx::query_as(&format!(
                    "select {OPERATION_COLUMNS} from operations where tenant = $1 and op_id = $2"
                ))
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_optional(&self.pool)
                .await?;
                row.map(OperationRow::into_record).transpose()
            }

            async fn operation_by_key(&self, tenant: &TenantId, key: &str) -> Result<Option<OperationRecord>, StoreError> {
                let row: Option<OperationRow> = sqlx::query_as(&format!(
                    "select {OPERATION_COLUMNS} from operations where tenant = $1 and idempotency_key = $2"
                ))
                .bind(tenant.as_str())
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
                row.map(OperationRow::into_record).transpose()
            }

            async fn operation_history(&self, tenant: &TenantId, op_id: &OpId) -> Result<Option<OperationHistory>, StoreError> {
                let mut connection = self.pool.acquire().await?;
                history_in(&mut connection, tenant, op_id).await
            }

            async fn operation_histories(&self, tenant: &TenantId, op_ids: &[OpId]) -> Result<Vec<OperationHistory>, StoreError> {
                let mut connection = self.pool.acquire().await?;
                histories_in(&mut connection, tenant, op_ids).await
            }

            async fn matching_operations(
                &self,
                tenant: &TenantId,
                query: &OperationQuery,
            ) -> Result<Vec<OperationRecord>, StoreError> {
                let text = matching_query(tenant, query);
                let rows: Vec<OperationRow> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                rows.into_iter().map(OperationRow::into_record).collect()
            }

            async fn subject_operations(&self, tenant: &TenantId, subject: &str) -> Result<Vec<OperationHistory>, StoreError> {
                let ids: Vec<(String,)> = sqlx::query_as(
                    "select op_id from operations where tenant = $1 and subject = $2 order by created_at_us, op_id",
                )
                .bind(tenant.as_str())
                .bind(subject)
                .fetch_all(&self.pool)
                .await?;
                let op_ids = ids
                    .into_iter()
                    .map(|(op_id,)| OpId::parse(&op_id).map_err(|e| StoreError::Corrupt(e.to_string())))
                    .collect::<Result<Vec<_>, _>>()?;
                self.operation_histories(tenant, &op_ids).await
            }

            async fn conflicts_of(&self, tenant: &TenantId, op_id: &OpId) -> Result<Vec<ConflictRecord>, StoreError> {
                let rows: Vec<ConflictRow> = sqlx::query_as(
                    "select id, op_id, requested_params, requested_fingerprint, stored_fingerprint, diff, requested_by, \
                     received_at_us from conflicts where tenant = $1 and op_id = $2 order by id",
                )
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(ConflictRow::into_record).collect()
            }

            async fn audit_chain(&self, tenant: &TenantId) -> Result<Vec<AuditRecord>, StoreError> {
                let rows: Vec<AuditRow> =
                    sqlx::query_as(&format!("select {AUDIT_COLUMNS} from audit_events where tenant = $1 order by seq"))
                        .bind(tenant.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter().map(AuditRow::into_record).collect()
            }

            async fn users_named(&self, name: &str, tenant: Option<&TenantId>) -> Result<Vec<UserRecord>, StoreError> {
                let rows: Vec<UserRow> = sqlx::query_as(&format!(
                    "select {USER_COLUMNS} from users where name = $1 and ($2 is null or tenant = $2) limit 2"
                ))
                .bind(name)
                .bind(tenant.map(TenantId::as_str))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(UserRow::into_record).collect()
            }

            async fn tenant_users(&self, tenant: &TenantId) -> Result<Vec<UserRecord>, StoreError> {
                let rows: Vec<UserRow> =
                    sqlx::query_as(&format!("select {USER_COLUMNS} from users where tenant = $1 order by name"))
                        .bind(tenant.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter().map(UserRow::into_record).collect()
            }

            async fn password_reset(
                &self,
                secret_hash: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<PasswordResetRecord>, StoreError> {
                let row: Option<(String, String, String, i64)> = sqlx::query_as(
                    "select r.tenant, r.user_id, u.name, r.expires_at_us from password_resets r \
                     join users u on u.tenant = r.tenant and u.id = r.user_id \
                     where r.secret_hash = $1 and r.used_at_us is null and r.expires_at_us > $2 and u.status = 'active'",
                )
                .bind(secret_hash)
                .bind(micros(now))
                .fetch_optional(&self.pool)
                .await?;
                row.map(|(tenant, user_id, user_name, expires_at_us)| {
                    Ok(PasswordResetRecord {
                        tenant: TenantId::parse(&tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        user_id,
                        user_name,
                        expires_at: time(expires_at_us)?,
                    })
                })
                .transpose()
            }

            async fn two_factor_required(&self, tenant: &TenantId) -> Result<bool, StoreError> {
                let required: Option<i64> = sqlx::query_scalar("select two_factor_required from tenants where id = $1")
                    .bind(tenant.as_str())
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(required.unwrap_or(0) != 0)
            }

            async fn recovery_codes_left(&self, tenant: &TenantId, user_id: &str) -> Result<u64, StoreError> {
                let left: i64 = sqlx::query_scalar(
                    "select count(*) from recovery_codes where tenant = $1 and user_id = $2 and used_at_us is null",
                )
                .bind(tenant.as_str())
                .bind(user_id)
                .fetch_one(&self.pool)
                .await?;
                Ok(u64::try_from(left).unwrap_or(0))
            }

            async fn tenant_language(&self, tenant: &TenantId) -> Result<Option<Language>, StoreError> {
                let language: Option<Option<String>> = sqlx::query_scalar("select language from tenants where id = $1")
                    .bind(tenant.as_str())
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(language.flatten().as_deref().and_then(Language::parse))
            }

            async fn list_operations(
                &self,
                tenant: &TenantId,
                query: &OperationQuery,
            ) -> Result<Vec<OperationListItem>, StoreError> {
                let text = list_query(tenant, query);
                let rows: Vec<ListRow> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                let mut items = rows.into_iter().map(ListRow::into_item).collect::<Result<Vec<_>, _>>()?;
                fill_external_ids(&self.pool, tenant, &mut items).await?;
                Ok(items)
            }

            async fn count_by_state(&self, tenant: &TenantId) -> Result<Vec<(State, u64)>, StoreError> {
                let rows: Vec<(String, i64)> =
                    sqlx::query_as("select state, cast(sum(operations) as bigint) from hourly_outcomes \
                     where tenant = $1 and hour_us = $2 group by state having sum(operations) > 0")
                        .bind(tenant.as_str())
                        .bind(EVERY_HOUR)
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter()
                    .map(|(state, count)| {
                        let state = State::parse(&state).ok_or_else(|| StoreError::Corrupt(format!("state {state}")))?;
                        Ok((state, u64::try_from(count).unwrap_or(0)))
                    })
                    .collect()
            }

            async fn latest_change(&self, tenant: &TenantId) -> Result<Option<chrono::DateTime<chrono::Utc>>, StoreError> {
                let row: (Option<i64>,) = sqlx::query_as("select max(updated_at_us) from operations where tenant = $1")
                    .bind(tenant.as_str())
                    .fetch_one(&self.pool)
                    .await?;
                row.0.map(time).transpose()
            }

            async fn outcomes_per_hour(
                &self,
                tenant: &TenantId,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<(chrono::DateTime<chrono::Utc>, State, u64)>, StoreError> {
                let rows: Vec<(i64, String, i64)> = sqlx::query_as(
                    "select hour_us, state, cast(sum(operations) as bigint) from hourly_outcomes \
                     where tenant = $1 and hour_us >= $2 group by hour_us, state having sum(operations) > 0 order by hour_us",
                )
                .bind(tenant.as_str())
                .bind(hour_of(micros(since)))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter()
                    .map(|(hour, state, count)| {
                        let state = State::parse(&state).ok_or_else(|| StoreError::Corrupt(format!("state {state}")))?;
                        Ok((time(hour)?, state, u64::try_from(count).unwrap_or(0)))
                    })
                    .collect()
            }

            async fn operations_in_states(
                &self,
                tenant: &TenantId,
                states: &[State],
                limit: u32,
            ) -> Result<Vec<OperationListItem>, StoreError> {
                // One index range per state: a query over all of them in order of change would
                // walk the tenant's operations of every state until it found `limit`.
                let mut items = Vec::new();
                for state in states {
                    let text = state_by_age_query(tenant, *state, limit);
                    let rows: Vec<ListRow> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                    for row in rows {
                        items.push(row.into_item()?);
                    }
                }
                items.sort_by(|a, b| (a.updated_at, a.op_id.as_str()).cmp(&(b.updated_at, b.op_id.as_str())));
                items.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
                Ok(items)
            }

            async fn changed_at_in_state(
                &self,
                tenant: &TenantId,
                state: State,
                limit: u32,
            ) -> Result<Vec<chrono::DateTime<chrono::Utc>>, StoreError> {
                let text = changed_at_query(tenant, state, limit);
                let rows: Vec<(i64,)> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                rows.into_iter().map(|(us,)| time(us)).collect()
            }

            async fn settle_times(&self, tenant: &TenantId, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<u64>, StoreError> {
                let rows: Vec<(i64, i64)> = sqlx::query_as(
                    "select cast(bucket as bigint), cast(sum(operations) as bigint) from settle_times \
                     where tenant = $1 and hour_us >= $2 group by bucket",
                )
                .bind(tenant.as_str())
                .bind(hour_of(micros(since)))
                .fetch_all(&self.pool)
                .await?;
                let mut counts = vec![0; $crate::domain::operation::SETTLE_BOUNDS_S.len() + 1];
                for (bucket, operations) in rows {
                    let slot = usize::try_from(bucket).ok().and_then(|bucket| counts.get_mut(bucket));
                    *slot.ok_or_else(|| StoreError::Corrupt(format!("settle bucket {bucket}")))? += u64::try_from(operations).unwrap_or(0);
                }
                Ok(counts)
            }

            async fn subjects(&self, tenant: &TenantId, attention_only: bool, limit: u32) -> Result<Vec<String>, StoreError> {
                let text = subjects_activity_query(tenant, attention_only, limit);
                let rows: Vec<(String,)> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                Ok(rows.into_iter().map(|(subject,)| subject).collect())
            }

            async fn subjects_operations(
                &self,
                tenant: &TenantId,
                subjects: &[String],
            ) -> Result<Vec<OperationListItem>, StoreError> {
                if subjects.is_empty() {
                    return Ok(Vec::new());
                }
                let text = subjects_query(tenant, subjects);
                let rows: Vec<ListRow> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                let mut items = rows.into_iter().map(ListRow::into_item).collect::<Result<Vec<_>, _>>()?;
                items.sort_by(|a, b| (a.created_at, a.op_id.as_str()).cmp(&(b.created_at, b.op_id.as_str())));
                fill_external_ids(&self.pool, tenant, &mut items).await?;
                Ok(items)
            }

            async fn recent_conflicts(&self, tenant: &TenantId, limit: u32) -> Result<Vec<ConflictWithStored>, StoreError> {
                let rows: Vec<ConflictRow> = sqlx::query_as(
                    "select id, op_id, requested_params, requested_fingerprint, stored_fingerprint, diff, requested_by, \
                     received_at_us from conflicts where tenant = $1 order by received_at_us desc, id desc limit $2",
                )
                .bind(tenant.as_str())
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                let mut conflicts = Vec::with_capacity(rows.len());
                for row in rows {
                    let conflict = row.into_record()?;
                    let operation = self.load_operation(tenant, &conflict.op_id).await?.ok_or(StoreError::NotFound)?;
                    conflicts.push(ConflictWithStored {
                        stored_params: serde_json::from_str(operation.params.canonical_text())
                            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        stored_state: operation.snapshot.state,
                        conflict,
                    });
                }
                Ok(conflicts)
            }

            async fn list_audit(&self, tenant: &TenantId, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
                let text = audit_query(tenant, query);
                let rows: Vec<AuditRow> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                rows.into_iter().map(AuditRow::into_record).collect()
            }

            async fn audit_json_lines(
                &self,
                tenant: &TenantId,
                query: &AuditQuery,
            ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
                if let Backend::Sqlite = $backend {
                    let text = audit_json_lines_query(tenant, query);
                    let (lines, last): (Option<String>, Option<i64>) =
                        sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_one(&self.pool).await?;
                    let (Some(lines), Some(last)) = (lines, last) else { return Ok(None) };
                    let mut lines = lines.into_bytes();
                    lines.push(b'\n');
                    let last = u64::try_from(last).map_err(|e| StoreError::Corrupt(format!("audit seq: {e}")))?;
                    return Ok(Some((lines, last)));
                }
                let records = self.list_audit(tenant, query).await?;
                let Some(last) = records.last().map(|record| record.seq) else { return Ok(None) };
                let mut lines = Vec::with_capacity(records.len() * 512);
                for record in &records {
                    serde_json::to_writer(&mut lines, record).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                    lines.push(b'\n');
                }
                Ok(Some((lines, last)))
            }

            async fn attempts_of(
                &self,
                tenant: &TenantId,
                op_ids: &[OpId],
            ) -> Result<Vec<(OpId, AttemptRecord)>, StoreError> {
                if op_ids.is_empty() {
                    return Ok(Vec::new());
                }
                let ids: Vec<String> = op_ids.iter().map(|id| id.as_str().to_owned()).collect();
                let text = in_list(
                    "select op_id, number, idempotency_key, sent_by, started_at_us, finished_at_us, outcome, http_status, \
                     latency_ms, error, retry_after_s, send_budget, deadline_at_us from attempts",
                    tenant,
                    "op_id",
                    &ids,
                    "order by op_id, number",
                );
                let rows: Vec<AttemptOfRow> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                rows.into_iter()
                    .map(|row| {
                        let op_id = OpId::parse(&row.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?;
                        Ok((op_id, row.attempt.into_record()?))
                    })
                    .collect()
            }

            async fn starting_with(
                &self,
                tenant: &TenantId,
                prefix: &str,
                subject_prefixes: &[&str],
                limit: u32,
            ) -> Result<PrefixHits, StoreError> {
                let limit = i64::from(limit);
                let range = |table: &str, columns: &str, column: &str| {
                    format!(
                        "select {columns} from {table} where tenant = $1 and {column} >= $2 and {column} < $3 \
                         and substr({column}, 1, $4) = $5 order by {column} limit $6"
                    )
                };
                // Every value from the prefix up to the prefix followed by the last code point, and
                // (should a collation order otherwise) checked to start with it.
                macro_rules! read {
                    ($row:ty, $sql:expr, $prefix:expr) => {{
                        let prefix: &str = $prefix;
                        sqlx::query_as::<_, $row>(&$sql)
                            .bind(tenant.as_str())
                            .bind(prefix)
                            .bind(format!("{prefix}\u{10FFFF}"))
                            .bind(i32::try_from(prefix.chars().count()).unwrap_or(i32::MAX))
                            .bind(prefix)
                            .bind(limit)
                            .fetch_all(&self.pool)
                            .await?
                    }};
                }
                let mut subjects = Vec::new();
                for subject_prefix in subject_prefixes {
                    subjects.extend(read!((String,), range("subject_activity", "subject", "subject"), subject_prefix));
                }
                let operations = read!((String, String, String), range("operations", "op_id, state, kind", "op_id"), prefix);
                let external_ids = read!((String, String), range("external_refs", "external_id, op_id", "external_id"), prefix);
                let people = read!((String,), range("users", "name", "name"), prefix);
                Ok(PrefixHits {
                    subjects: subjects.into_iter().map(|(subject,)| subject).collect(),
                    operations: operations
                        .into_iter()
                        .map(|(op_id, state, kind)| {
                            let op_id = OpId::parse(&op_id).map_err(|e| corrupt("op_id")(e.to_string()))?;
                            let state = State::parse(&state).ok_or_else(|| corrupt("state")(state.clone()))?;
                            Ok((op_id, state, kind))
                        })
                        .collect::<Result<_, StoreError>>()?,
                    external_ids: external_ids
                        .into_iter()
                        .map(|(external_id, op_id)| {
                            Ok((external_id, OpId::parse(&op_id).map_err(|e| corrupt("op_id")(e.to_string()))?))
                        })
                        .collect::<Result<_, StoreError>>()?,
                    people: people.into_iter().map(|(name,)| name).collect(),
                })
            }

            async fn operation_kinds_and_providers(
                &self,
                tenant: &TenantId,
            ) -> Result<(Vec<String>, Vec<String>), StoreError> {
                let distinct = |column: &str| {
                    format!(
                        "with recursive found(value) as ( \
                           select min({column}) from operations where tenant = $1 \
                           union all \
                           select (select min(o.{column}) from operations o where o.tenant = $1 and o.{column} > found.value) \
                           from found where found.value is not null) \
                         select value from found where value is not null"
                    )
                };
                let mut found = Vec::with_capacity(2);
                for column in ["kind", "provider"] {
                    let rows: Vec<(String,)> =
                        sqlx::query_as(&distinct(column)).bind(tenant.as_str()).fetch_all(&self.pool).await?;
                    found.push(rows.into_iter().map(|(value,)| value).collect::<Vec<_>>());
                }
                let providers = found.pop().unwrap_or_default();
                let kinds = found.pop().unwrap_or_default();
                Ok((kinds, providers))
            }

            async fn approval_rules(&self, tenant: &TenantId) -> Result<Vec<ApprovalRuleRecord>, StoreError> {
                let rows: Vec<ApprovalRuleRow> = sqlx::query_as(&format!(
                    "select {APPROVAL_RULE_COLUMNS} from approval_rules where tenant = $1 order by created_at_us, id"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(ApprovalRuleRow::into_record).collect()
            }

            async fn provider_connections(&self, tenant: &TenantId) -> Result<Vec<ProviderConnectionRecord>, StoreError> {
                let rows: Vec<ProviderConnectionRow> = sqlx::query_as(&format!(
                    "select {PROVIDER_CONNECTION_READ} from provider_connections where tenant = $1 order by name"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(ProviderConnectionRow::into_record).collect()
            }

            async fn email_templates(&self, tenant: &TenantId) -> Result<Vec<EmailTemplateRecord>, StoreError> {
                let rows: Vec<EmailTemplateRow> = sqlx::query_as(
                    "select tenant, name, subject, body, updated_by, updated_at_us from email_templates where tenant = $1 order by name",
                )
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(EmailTemplateRow::into_record).collect()
            }

            async fn email_template(&self, tenant: &TenantId, name: &str) -> Result<Option<EmailTemplateRecord>, StoreError> {
                let row: Option<EmailTemplateRow> = sqlx::query_as(
                    "select tenant, name, subject, body, updated_by, updated_at_us from email_templates where tenant = $1 and name = $2",
                )
                .bind(tenant.as_str())
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
                row.map(EmailTemplateRow::into_record).transpose()
            }

            async fn provider_connection(
                &self,
                tenant: &TenantId,
                name: &str,
            ) -> Result<Option<ProviderConnectionRecord>, StoreError> {
                let row: Option<ProviderConnectionRow> = sqlx::query_as(&format!(
                    "select {PROVIDER_CONNECTION_READ} from provider_connections where tenant = $1 and name = $2"
                ))
                .bind(tenant.as_str())
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
                row.map(ProviderConnectionRow::into_record).transpose()
            }

            async fn any_provider_connection(&self) -> Result<Option<ProviderConnectionRecord>, StoreError> {
                let row: Option<ProviderConnectionRow> = sqlx::query_as(&format!(
                    "select {PROVIDER_CONNECTION_READ} from provider_connections order by tenant, name limit 1"
                ))
                .fetch_optional(&self.pool)
                .await?;
                row.map(ProviderConnectionRow::into_record).transpose()
            }

            async fn approvals_expired(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<(TenantId, OpId)>, StoreError> {
                let rows: Vec<(String, String)> = sqlx::query_as(
                    "select tenant, op_id from operations where state = 'approved' and approval_expires_at_us <= $1 \
                     order by approval_expires_at_us limit $2",
                )
                .bind(micros(now))
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter()
                    .map(|(tenant, op_id)| {
                        Ok((
                            TenantId::parse(&tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
                            OpId::parse(&op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
                        ))
                    })
                    .collect()
            }

            async fn request_answer(
                &self,
                tenant: &TenantId,
                key: &str,
                requested_by: &str,
            ) -> Result<Option<String>, StoreError> {
                let row: Option<(Option<String>,)> = sqlx::query_as(
                    "select response from console_requests where tenant = $1 and request_key = $2 and requested_by = $3 and answered",
                )
                .bind(tenant.as_str())
                .bind(key)
                .bind(requested_by)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.and_then(|(response,)| response))
            }

            async fn bulk_run(&self, tenant: &TenantId, id: &str) -> Result<Option<BulkRunRecord>, StoreError> {
                let run: Option<(String, String, String, i64, Option<i64>)> = sqlx::query_as(
                    "select action, filter, requested_by, created_at_us, finished_at_us from bulk_runs where tenant = $1 and id = $2",
                )
                .bind(tenant.as_str())
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                let Some((action, filter, requested_by, created_at_us, finished_at_us)) = run else {
                    return Ok(None);
                };
                let items: Vec<BulkItemRow> = sqlx::query_as(
                    "select position, op_id, outcome, message from bulk_items where tenant = $1 and run_id = $2 order by position",
                )
                .bind(tenant.as_str())
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
                Ok(Some(BulkRunRecord {
                    id: id.to_owned(),
                    action,
                    filter,
                    requested_by,
                    created_at: time(created_at_us)?,
                    finished_at: finished_at_us.map(time).transpose()?,
                    items: items.into_iter().map(BulkItemRow::into_record).collect::<Result<_, _>>()?,
                }))
            }

            async fn tenants(&self) -> Result<Vec<TenantId>, StoreError> {
                let ids: Vec<(String,)> = sqlx::query_as("select id from tenants order by id").fetch_all(&self.pool).await?;
                ids.into_iter()
                    .map(|(id,)| TenantId::parse(&id).map_err(|e| StoreError::Corrupt(e.to_string())))
                    .collect()
            }

            async fn operation_counts(&self) -> Result<Vec<OperationCount>, StoreError> {
                let rows: Vec<(String, String, String, String, i64)> = sqlx::query_as(
                    "select tenant, kind, provider, state, cast(sum(operations) as bigint) from operation_counts \
                     group by tenant, kind, provider, state order by tenant, kind, provider, state",
                )
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter()
                    .map(|(tenant, kind, provider, state, operations)| {
                        Ok(OperationCount {
                            tenant: TenantId::parse(&tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
                            state: State::parse(&state).ok_or_else(|| corrupt("state")(state.clone()))?,
                            kind,
                            provider,
                            operations: u64::try_from(operations).unwrap_or(0),
                        })
                    })
                    .collect()
            }

            async fn webhook_endpoints(&self, tenant: &TenantId) -> Result<Vec<WebhookEndpointRecord>, StoreError> {
                let rows: Vec<WebhookEndpointRow> = sqlx::query_as(&format!(
                    "select {WEBHOOK_ENDPOINT_COLUMNS} from webhook_endpoints where tenant = $1 order by created_at_us, id"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(WebhookEndpointRow::into_record).collect()
            }

            async fn webhook_deliveries(
                &self,
                tenant: &TenantId,
                endpoint_id: &str,
                limit: u32,
            ) -> Result<Vec<WebhookDeliveryRecord>, StoreError> {
                let rows: Vec<WebhookDeliveryRow> = sqlx::query_as(&format!(
                    "select {WEBHOOK_DELIVERY_COLUMNS} from webhook_deliveries where tenant = $1 and endpoint_id = $2 \
                     order by created_at_us desc, id desc limit $3"
                ))
                .bind(tenant.as_str())
                .bind(endpoint_id)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(WebhookDeliveryRow::into_record).collect()
            }

            async fn webhook_delivery(
                &self,
                tenant: &TenantId,
                id: &str,
            ) -> Result<Option<(WebhookDeliveryRecord, Option<WebhookEndpointRecord>)>, StoreError> {
                let delivery: Option<WebhookDeliveryRow> = sqlx::query_as(&format!(
                    "select {WEBHOOK_DELIVERY_COLUMNS} from webhook_deliveries where tenant = $1 and id = $2"
                ))
                .bind(tenant.as_str())
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                let Some(delivery) = delivery.map(WebhookDeliveryRow::into_record).transpose()? else {
                    return Ok(None);
                };
                let endpoint: Option<WebhookEndpointRow> = sqlx::query_as(&format!(
                    "select {WEBHOOK_ENDPOINT_COLUMNS} from webhook_endpoints where tenant = $1 and id = $2"
                ))
                .bind(tenant.as_str())
                .bind(&delivery.endpoint_id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(Some((delivery, endpoint.map(WebhookEndpointRow::into_record).transpose()?)))
            }

            async fn pending_webhook_deliveries(&self) -> Result<u64, StoreError> {
                let (count,): (i64,) =
                    sqlx::query_as("select count(*) from webhook_deliveries where status = 'pending'")
                        .fetch_one(&self.pool)
                        .await?;
                Ok(u64::try_from(count).unwrap_or(0))
            }
        }
    };
}

pub(super) use store_reads;
