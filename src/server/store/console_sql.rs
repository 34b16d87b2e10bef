//! The SQL behind the console: users, sessions, and the reads that the pages need (the filtered
//! operations list with keyset pagination, counts, chart series, orders and conflicts). Like
//! [`super::sql`], it is shared by both engines; [`console_store_methods!`] writes the methods
//! into each backend's `Store` implementation.

use super::records::{
    ApprovalRuleRecord, AuditQuery, BulkItemRecord, OperationListItem, OperationQuery, StateChange,
    UserRecord,
};
use super::sql::{corrupt, micros, time, AttemptRow, AUDIT_COLUMNS};
use super::StoreError;
use crate::domain::{
    ids::{OpId, TenantId},
    machine::State,
    money::{Currency, Money},
    policy::{ApprovalRule, Role},
};

/// A value bound to a query whose shape depends on the filters given.
pub(super) enum SqlValue {
    Text(String),
    Int(i64),
}

/// A query's text with its `$n` parameters, built one condition at a time.
pub(super) struct QueryText {
    pub sql: String,
    pub values: Vec<SqlValue>,
}

impl QueryText {
    fn new(sql: &str) -> Self {
        QueryText { sql: sql.to_owned(), values: Vec::new() }
    }

    /// Adds the next parameter and returns its placeholder.
    fn param(&mut self, value: SqlValue) -> String {
        self.values.push(value);
        format!("${}", self.values.len())
    }

    fn push(&mut self, text: &str) {
        self.sql.push_str(text);
    }
}

pub(super) const LIST_COLUMNS: &str =
    "op_id, kind, subject, provider, state, amount_minor, amount_currency, \
    last_attempt, compensates, created_at_us, updated_at_us";

/// The operations list for `query`, newest first; external ids are filled in afterwards.
pub(super) fn list_query(tenant: &TenantId, query: &OperationQuery) -> QueryText {
    let mut text = QueryText::new(&format!("select {LIST_COLUMNS} from operations where tenant = "));
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    text.push(&tenant);
    let exact = [
        ("state", query.state.map(|s| s.as_str().to_owned())),
        ("kind", query.kind.clone()),
        ("provider", query.provider.clone()),
        ("subject", query.subject.clone()),
    ];
    for (column, value) in exact {
        if let Some(value) = value {
            let p = text.param(SqlValue::Text(value));
            text.push(&format!(" and {column} = {p}"));
        }
    }
    if let Some(from) = query.created_from {
        let p = text.param(SqlValue::Int(micros(from)));
        text.push(&format!(" and created_at_us >= {p}"));
    }
    if let Some(before) = query.created_before {
        let p = text.param(SqlValue::Int(micros(before)));
        text.push(&format!(" and created_at_us < {p}"));
    }
    if let Some(search) = &query.search {
        let a = text.param(SqlValue::Text(search.clone()));
        let b = text.param(SqlValue::Text(search.clone()));
        text.push(&format!(
            " and (op_id = {a} or op_id in (select op_id from external_refs where tenant = {tenant} and external_id = {b}))"
        ));
    }
    if let Some((created, op_id)) = &query.after {
        let c = text.param(SqlValue::Int(micros(*created)));
        let o = text.param(SqlValue::Text(op_id.as_str().to_owned()));
        text.push(&format!(" and (created_at_us, op_id) < ({c}, {o})"));
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    text.push(&format!(" order by created_at_us desc, op_id desc limit {limit}"));
    text
}

/// One page of audit events for `query`, by `seq` in the direction it asks.
pub(super) fn audit_query(tenant: &TenantId, query: &AuditQuery) -> QueryText {
    let mut text = QueryText::new(&format!("select {AUDIT_COLUMNS} from audit_events where tenant = "));
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    text.push(&tenant);
    for (column, value) in [("actor", &query.actor), ("action", &query.action), ("op_id", &query.op_id)] {
        if let Some(value) = value {
            let p = text.param(SqlValue::Text(value.clone()));
            text.push(&format!(" and {column} = {p}"));
        }
    }
    if let Some(subject) = &query.subject {
        let p = text.param(SqlValue::Text(subject.clone()));
        text.push(&format!(
            " and op_id in (select op_id from operations where tenant = {tenant} and subject = {p})"
        ));
    }
    for (condition, at) in [("at_us >=", query.at_from), ("at_us <", query.at_before)] {
        if let Some(at) = at {
            let p = text.param(SqlValue::Int(micros(at)));
            text.push(&format!(" and {condition} {p}"));
        }
    }
    for (condition, seq) in [("seq <", query.before_seq), ("seq >", query.after_seq)] {
        if let Some(seq) = seq {
            let p = text.param(SqlValue::Int(i64::try_from(seq).unwrap_or(i64::MAX)));
            text.push(&format!(" and {condition} {p}"));
        }
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    let order = if query.oldest_first { "asc" } else { "desc" };
    text.push(&format!(" order by seq {order} limit {limit}"));
    text
}

/// An attempt with the op id it belongs to.
#[derive(sqlx::FromRow)]
pub(super) struct AttemptOfRow {
    pub op_id: String,
    #[sqlx(flatten)]
    pub attempt: AttemptRow,
}

/// `select … where tenant = $1 and <column> in ($2, $3, …)` for a list of values.
pub(super) fn in_list(
    select: &str,
    tenant: &TenantId,
    column: &str,
    values: &[String],
    order: &str,
) -> QueryText {
    let mut text = QueryText::new(select);
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let placeholders: Vec<String> = values.iter().map(|v| text.param(SqlValue::Text(v.clone()))).collect();
    text.push(&format!(" where tenant = {tenant} and {column} in ({}) {order}", placeholders.join(", ")));
    text
}

#[derive(sqlx::FromRow)]
pub(super) struct ListRow {
    op_id: String,
    kind: String,
    subject: String,
    provider: String,
    state: String,
    amount_minor: Option<i64>,
    amount_currency: Option<String>,
    last_attempt: Option<i64>,
    compensates: Option<String>,
    created_at_us: i64,
    updated_at_us: i64,
}

impl ListRow {
    pub(super) fn into_item(self) -> Result<OperationListItem, StoreError> {
        let amount = match (self.amount_minor, self.amount_currency) {
            (Some(minor), Some(currency)) => Some(Money::new(
                minor,
                Currency::parse(&currency).map_err(|e| corrupt("currency")(e.to_string()))?,
            )),
            _ => None,
        };
        Ok(OperationListItem {
            op_id: OpId::parse(&self.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
            kind: self.kind,
            subject: self.subject,
            provider: self.provider,
            state: State::parse(&self.state).ok_or_else(|| corrupt("state")(self.state.clone()))?,
            amount,
            attempts: self
                .last_attempt
                .map_or(Ok(0), |n| u32::try_from(n).map_err(|e| corrupt("attempts")(e.to_string())))?,
            external_ids: Vec::new(),
            compensates: self
                .compensates
                .map(|c| OpId::parse(&c).map_err(|e| corrupt("compensates")(e.to_string())))
                .transpose()?,
            created_at: time(self.created_at_us)?,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct UserRow {
    id: String,
    tenant: String,
    name: String,
    role: String,
    password_hash: String,
    created_at_us: i64,
}

pub(super) const USER_COLUMNS: &str = "id, tenant, name, role, password_hash, created_at_us";

impl UserRow {
    pub(super) fn into_record(self) -> Result<UserRecord, StoreError> {
        Ok(UserRecord {
            id: self.id,
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            name: self.name,
            role: Role::parse(&self.role).ok_or_else(|| corrupt("role")(self.role.clone()))?,
            password_hash: self.password_hash,
            created_at: time(self.created_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct StateChangeRow {
    op_id: Option<String>,
    at_us: i64,
    from_state: Option<String>,
    to_state: Option<String>,
}

impl StateChangeRow {
    pub(super) fn into_change(self) -> Result<Option<StateChange>, StoreError> {
        let Some(op_id) = self.op_id else { return Ok(None) };
        Ok(Some(StateChange {
            op_id,
            at: time(self.at_us)?,
            from_state: self.from_state,
            to_state: self.to_state,
        }))
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ApprovalRuleRow {
    id: String,
    kind: String,
    provider: Option<String>,
    threshold_minor: Option<i64>,
    threshold_currency: Option<String>,
    created_by: String,
    created_at_us: i64,
}

pub(super) const APPROVAL_RULE_COLUMNS: &str =
    "id, kind, provider, threshold_minor, threshold_currency, created_by, created_at_us";

impl ApprovalRuleRow {
    pub(super) fn into_record(self) -> Result<ApprovalRuleRecord, StoreError> {
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
pub(super) struct BulkItemRow {
    position: i64,
    op_id: String,
    outcome: Option<String>,
    message: Option<String>,
}

impl BulkItemRow {
    pub(super) fn into_record(self) -> Result<BulkItemRecord, StoreError> {
        Ok(BulkItemRecord {
            position: u32::try_from(self.position).map_err(|e| corrupt("position")(e.to_string()))?,
            op_id: self.op_id,
            outcome: self.outcome,
            message: self.message,
        })
    }
}

/// Writes [`ConsoleStore`](super::ConsoleStore) for one backend, where `$begin` opens a write
/// transaction and `$lock_tenant` serialises a tenant's writers.
macro_rules! console_store {
    ($store:ty, $db:ty, begin = $begin:path, lock_tenant = $lock_tenant:literal) => {
        #[async_trait::async_trait]
        impl $crate::server::store::ConsoleStore for $store {
        async fn create_user(&self, user: NewUser, audit: AuditEntry) -> Result<(), StoreError> {
            let mut tx = $begin(&self.pool).await?;
            sqlx::query("insert into tenants (id, name, created_at_us) values ($1, $1, $2) on conflict (id) do nothing")
                .bind(user.tenant.as_str())
                .bind(micros(user.at))
                .execute(&mut *tx)
                .await?;
            sqlx::query($lock_tenant).bind(user.tenant.as_str()).execute(&mut *tx).await?;
            sqlx::query(&format!("insert into users ({USER_COLUMNS}) values ($1, $2, $3, $4, $5, $6)"))
                .bind(&user.id)
                .bind(user.tenant.as_str())
                .bind(&user.name)
                .bind(user.role.as_str())
                .bind(&user.password_hash)
                .bind(micros(user.at))
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, "a user with this name already exists"))?;
            append_audit(&mut tx, &user.tenant, vec![audit]).await?;
            tx.commit().await?;
            Ok(())
        }

        async fn find_user(&self, name: &str) -> Result<Option<UserRecord>, StoreError> {
            let row: Option<UserRow> = sqlx::query_as(&format!("select {USER_COLUMNS} from users where name = $1"))
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
            row.map(UserRow::into_record).transpose()
        }

        async fn tenant_users(&self, tenant: &TenantId) -> Result<Vec<UserRecord>, StoreError> {
            let rows: Vec<UserRow> =
                sqlx::query_as(&format!("select {USER_COLUMNS} from users where tenant = $1 order by name"))
                    .bind(tenant.as_str())
                    .fetch_all(&self.pool)
                    .await?;
            rows.into_iter().map(UserRow::into_record).collect()
        }

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
            .execute(&self.pool)
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
            .execute(&self.pool)
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
            sqlx::query("delete from sessions where id_hash = $1").bind(id_hash).execute(&self.pool).await?;
            Ok(())
        }

        async fn delete_expired_sessions(&self, now: chrono::DateTime<chrono::Utc>) -> Result<u64, StoreError> {
            Ok(sqlx::query("delete from sessions where expires_at_us <= $1")
                .bind(micros(now))
                .execute(&self.pool)
                .await?
                .rows_affected())
        }

        async fn list_operations(
            &self,
            tenant: &TenantId,
            query: &OperationQuery,
        ) -> Result<Vec<OperationListItem>, StoreError> {
            let text = list_query(tenant, query);
            let rows: Vec<ListRow> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(&self.pool).await?;
            let mut items = rows.into_iter().map(ListRow::into_item).collect::<Result<Vec<_>, _>>()?;
            fill_external_ids(&self.pool, tenant, &mut items).await?;
            Ok(items)
        }

        async fn count_by_state(&self, tenant: &TenantId) -> Result<Vec<(State, u64)>, StoreError> {
            let rows: Vec<(String, i64)> =
                sqlx::query_as("select state, count(*) from operations where tenant = $1 group by state")
                    .bind(tenant.as_str())
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
                "select created_at_us / 3600000000 as hour, state, count(*) from operations \
                 where tenant = $1 and created_at_us >= $2 group by created_at_us / 3600000000, state order by hour",
            )
            .bind(tenant.as_str())
            .bind(micros(since))
            .fetch_all(&self.pool)
            .await?;
            rows.into_iter()
                .map(|(hour, state, count)| {
                    let state = State::parse(&state).ok_or_else(|| StoreError::Corrupt(format!("state {state}")))?;
                    Ok((time(hour * 3_600_000_000)?, state, u64::try_from(count).unwrap_or(0)))
                })
                .collect()
        }

        async fn operations_in_states(
            &self,
            tenant: &TenantId,
            states: &[State],
            limit: u32,
        ) -> Result<Vec<OperationListItem>, StoreError> {
            let states: Vec<String> = states.iter().map(|s| s.as_str().to_owned()).collect();
            let mut text = in_list(
                &format!("select {LIST_COLUMNS} from operations"),
                tenant,
                "state",
                &states,
                "order by updated_at_us",
            );
            text.sql.push_str(&format!(" limit {limit}"));
            let rows: Vec<ListRow> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(&self.pool).await?;
            rows.into_iter().map(ListRow::into_item).collect()
        }

        async fn state_changes(
            &self,
            tenant: &TenantId,
            since: chrono::DateTime<chrono::Utc>,
        ) -> Result<Vec<StateChange>, StoreError> {
            let rows: Vec<StateChangeRow> = sqlx::query_as(
                "select op_id, at_us, from_state, to_state from audit_events where tenant = $1 and at_us >= $2 \
                 and from_state is not null and to_state is not null and from_state <> to_state order by seq",
            )
            .bind(tenant.as_str())
            .bind(micros(since))
            .fetch_all(&self.pool)
            .await?;
            Ok(rows.into_iter().map(StateChangeRow::into_change).collect::<Result<Vec<_>, _>>()?.into_iter().flatten().collect())
        }

        async fn subjects(&self, tenant: &TenantId, unsettled_only: bool, limit: u32) -> Result<Vec<String>, StoreError> {
            let filter = if unsettled_only { "and state <> 'succeeded' " } else { "" };
            let rows: Vec<(String,)> = sqlx::query_as(&format!(
                "select subject from operations where tenant = $1 {filter}group by subject \
                 order by max(updated_at_us) desc limit $2"
            ))
            .bind(tenant.as_str())
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
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
            let text = in_list(
                &format!("select {LIST_COLUMNS} from operations"),
                tenant,
                "subject",
                subjects,
                "order by created_at_us, op_id",
            );
            let rows: Vec<ListRow> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(&self.pool).await?;
            let mut items = rows.into_iter().map(ListRow::into_item).collect::<Result<Vec<_>, _>>()?;
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

        async fn record_audit(&self, tenant: &TenantId, entry: AuditEntry) -> Result<AuditRecord, StoreError> {
            let mut tx = $begin(&self.pool).await?;
            sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
            append_audit(&mut tx, tenant, vec![entry]).await?;
            let row: AuditRow = sqlx::query_as(&format!(
                "select {AUDIT_COLUMNS} from audit_events where tenant = $1 order by seq desc limit 1"
            ))
            .bind(tenant.as_str())
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            row.into_record()
        }

        async fn list_audit(&self, tenant: &TenantId, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
            let text = audit_query(tenant, query);
            let rows: Vec<AuditRow> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(&self.pool).await?;
            rows.into_iter().map(AuditRow::into_record).collect()
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
            let rows: Vec<AttemptOfRow> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(&self.pool).await?;
            rows.into_iter()
                .map(|row| {
                    let op_id = OpId::parse(&row.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?;
                    Ok((op_id, row.attempt.into_record()?))
                })
                .collect()
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

        async fn add_approval_rule(
            &self,
            tenant: &TenantId,
            rule: ApprovalRuleRecord,
            audit: AuditEntry,
        ) -> Result<(), StoreError> {
            let mut tx = $begin(&self.pool).await?;
            sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
            sqlx::query(&format!(
                "insert into approval_rules (tenant, {APPROVAL_RULE_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8)"
            ))
            .bind(tenant.as_str())
            .bind(&rule.id)
            .bind(&rule.rule.kind)
            .bind(&rule.rule.provider)
            .bind(rule.rule.threshold.map(|m| m.minor))
            .bind(rule.rule.threshold.map(|m| m.currency.as_str().to_owned()))
            .bind(&rule.created_by)
            .bind(micros(rule.created_at))
            .execute(&mut *tx)
            .await?;
            append_audit(&mut tx, tenant, vec![audit]).await?;
            tx.commit().await?;
            Ok(())
        }

        async fn remove_approval_rule(&self, tenant: &TenantId, id: &str, audit: AuditEntry) -> Result<(), StoreError> {
            let mut tx = $begin(&self.pool).await?;
            sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
            let removed = sqlx::query("delete from approval_rules where tenant = $1 and id = $2")
                .bind(tenant.as_str())
                .bind(id)
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

        async fn claim_request(
            &self,
            tenant: &TenantId,
            key: &str,
            requested_by: &str,
            request: &str,
            at: chrono::DateTime<chrono::Utc>,
        ) -> Result<RequestClaim, StoreError> {
            // A claim whose request neither answered nor failed within this time was abandoned
            // (its server stopped mid-request): the next request with its key takes it over.
            let abandoned_before = micros(at - chrono::Duration::minutes(5));
            for _ in 0..3 {
                let inserted = sqlx::query(
                    "insert into console_requests (tenant, request_key, requested_by, request, answered, created_at_us) \
                     values ($1, $2, $3, $4, $5, $6) on conflict (tenant, request_key) do nothing",
                )
                .bind(tenant.as_str())
                .bind(key)
                .bind(requested_by)
                .bind(request)
                .bind(false)
                .bind(micros(at))
                .execute(&self.pool)
                .await?
                .rows_affected();
                if inserted == 1 {
                    return Ok(RequestClaim::Claimed);
                }
                let row: Option<(String, String, bool, Option<String>, i64)> = sqlx::query_as(
                    "select requested_by, request, answered, response, created_at_us from console_requests \
                     where tenant = $1 and request_key = $2",
                )
                .bind(tenant.as_str())
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
                let Some((by, stored, answered, response, claimed_at)) = row else {
                    continue;
                };
                if by != requested_by || stored != request {
                    return Ok(RequestClaim::OtherRequest);
                }
                if answered {
                    return Ok(RequestClaim::Answered(response.unwrap_or_default()));
                }
                if claimed_at >= abandoned_before {
                    return Ok(RequestClaim::InProgress);
                }
                let taken = sqlx::query(
                    "update console_requests set created_at_us = $1 where tenant = $2 and request_key = $3 \
                     and not answered and created_at_us = $4",
                )
                .bind(micros(at))
                .bind(tenant.as_str())
                .bind(key)
                .bind(claimed_at)
                .execute(&self.pool)
                .await?
                .rows_affected();
                if taken == 1 {
                    return Ok(RequestClaim::Claimed);
                }
            }
            Ok(RequestClaim::InProgress)
        }

        async fn answer_request(&self, tenant: &TenantId, key: &str, answer: Option<&str>) -> Result<(), StoreError> {
            match answer {
                Some(response) => sqlx::query(
                    "update console_requests set answered = $1, response = $2 where tenant = $3 and request_key = $4",
                )
                .bind(true)
                .bind(response)
                .bind(tenant.as_str())
                .bind(key)
                .execute(&self.pool)
                .await?,
                None => sqlx::query("delete from console_requests where tenant = $1 and request_key = $2")
                    .bind(tenant.as_str())
                    .bind(key)
                    .execute(&self.pool)
                    .await?,
            };
            Ok(())
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

        async fn create_bulk_run(&self, run: NewBulkRun, audit: AuditEntry) -> Result<bool, StoreError> {
            let mut tx = $begin(&self.pool).await?;
            sqlx::query($lock_tenant).bind(run.tenant.as_str()).execute(&mut *tx).await?;
            let inserted = sqlx::query(
                "insert into bulk_runs (tenant, id, action, filter, requested_by, created_at_us) \
                 values ($1, $2, $3, $4, $5, $6) on conflict (tenant, id) do nothing",
            )
            .bind(run.tenant.as_str())
            .bind(&run.id)
            .bind(&run.action)
            .bind(&run.filter)
            .bind(&run.requested_by)
            .bind(micros(run.at))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if inserted == 0 {
                return Ok(false);
            }
            for (position, op_id) in run.op_ids.iter().enumerate() {
                sqlx::query("insert into bulk_items (tenant, run_id, position, op_id) values ($1, $2, $3, $4)")
                    .bind(run.tenant.as_str())
                    .bind(&run.id)
                    .bind(position as i64)
                    .bind(op_id.as_str())
                    .execute(&mut *tx)
                    .await?;
            }
            append_audit(&mut tx, &run.tenant, vec![audit]).await?;
            tx.commit().await?;
            Ok(true)
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

        async fn record_bulk_item(
            &self,
            tenant: &TenantId,
            run_id: &str,
            position: u32,
            outcome: &str,
            message: &str,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "update bulk_items set outcome = $1, message = $2 where tenant = $3 and run_id = $4 and position = $5",
            )
            .bind(outcome)
            .bind(message)
            .bind(tenant.as_str())
            .bind(run_id)
            .bind(i64::from(position))
            .execute(&self.pool)
            .await?;
            Ok(())
        }

        async fn finish_bulk_run(&self, tenant: &TenantId, id: &str, at: chrono::DateTime<chrono::Utc>) -> Result<(), StoreError> {
            sqlx::query("update bulk_runs set finished_at_us = $1 where tenant = $2 and id = $3")
                .bind(micros(at))
                .bind(tenant.as_str())
                .bind(id)
                .execute(&self.pool)
                .await?;
            Ok(())
        }
        }
    };
}

pub(super) use console_store;
