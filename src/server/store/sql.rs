//! The SQL both backends share: [`sql_store!`] opens a backend's module with the shared imports and
//! the write-transaction helpers (the projection of events onto rows, the audit chain's sealing), then
//! writes its three trait implementations from `reads_sql`, `writes_sql` and `sessions_sql`. Each
//! backend adds only how it opens a write transaction, locks a tenant's chain for sealing, and runs
//! a guarded write (`write_guarded`: a write that returns an operation's row or nothing, and the
//! statements that follow it only when it returned one).

/// Writes the store for one engine, whose `pool` serves reads and `writes` the writes outside a
/// transaction that are not guarded writes. `$begin` opens a write transaction (a `$tx`) given the store;
/// `$lock_tenant` is a query on `$1` = tenant id that serialises the sealers of one tenant's audit
/// chain until the transaction ends; `$skip_locked` ends a query that claims rows so that
/// concurrent claimers skip each other's rows.
macro_rules! sql_store {
    ($store:ty, $db:ty, $backend:expr, $migrations:literal, begin = $begin:path, lock_tenant = $lock_tenant:literal, skip_locked = $skip_locked:literal, tx = $tx:ty) => {
        use $crate::domain::audit::{AuditEntry, AuditRecord, TrailEvent};
        use $crate::domain::ids::{OpId, TenantId};
        use $crate::domain::language::Language;
        use $crate::domain::machine::State;
        use $crate::domain::operation::{AttemptRecord, CommittedOperation, OperationHistory, OperationRecord};
        use $crate::server::store::query::*;
        use $crate::server::store::records::*;
        use $crate::server::store::rows::*;
        use $crate::server::store::{Backend, Reads, Sessions, Store, StoreError, SEAL_BATCH};

        type Tx = $tx;

        /// Opens a write transaction, creating the tenant first (at `at`) when it is new.
        async fn begin_write_creating(
            store: &$store,
            tenant: &TenantId,
            at: chrono::DateTime<chrono::Utc>,
        ) -> Result<Tx, StoreError> {
            let mut tx = $begin(store).await?;
            sqlx::query("insert into tenants (id, name, created_at_us) values ($1, $1, $2) on conflict (id) do nothing")
                .bind(tenant.as_str())
                .bind(micros(at))
                .execute(&mut *tx)
                .await?;
            Ok(tx)
        }

        /// Leases until `lease_until` up to `limit` rows of `table` (as `o`, keyed by tenant and
        /// `key`) for which `due` holds (`$2` is `before`) and whose lease has run out by `now`,
        /// in `order`; the rows other claimers hold are skipped. Answers their tenants and keys.
        async fn lease(
            store: &$store,
            (table, key, order): (&str, &str, &str),
            due: &str,
            before: chrono::DateTime<chrono::Utc>,
            now: chrono::DateTime<chrono::Utc>,
            lease_until: chrono::DateTime<chrono::Utc>,
            limit: u32,
        ) -> Result<Vec<(TenantId, String)>, StoreError> {
            let mut tx = $begin(store).await?;
            let rows: Vec<(String, String)> = sqlx::query_as(&format!(
                "update {table} set lease_until_us = $1 where (tenant, {key}) in (\
                 select tenant, {key} from {table} o where {due} \
                 and (lease_until_us is null or lease_until_us <= $3) \
                 order by {order} limit $4 {}) returning tenant, {key}",
                $skip_locked
            ))
            .bind(micros(lease_until))
            .bind(micros(before))
            .bind(micros(now))
            .bind(i64::from(limit))
            .fetch_all(&mut *tx)
            .await?;
            tx.commit().await?;
            rows.into_iter()
                .map(|(tenant, key)| Ok((TenantId::parse(&tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?, key)))
                .collect()
        }

        /// [`lease`] over operations, oldest change first.
        async fn lease_operations(
            store: &$store,
            due: &str,
            before: chrono::DateTime<chrono::Utc>,
            now: chrono::DateTime<chrono::Utc>,
            lease_until: chrono::DateTime<chrono::Utc>,
            limit: u32,
        ) -> Result<Vec<(TenantId, OpId)>, StoreError> {
            let leased = lease(store, ("operations", "op_id", "updated_at_us"), due, before, now, lease_until, limit).await?;
            leased
                .into_iter()
                .map(|(tenant, op_id)| Ok((tenant, OpId::parse(&op_id).map_err(|e| StoreError::Corrupt(e.to_string()))?)))
                .collect()
        }

        /// The statements that keep the summaries the overview, the orders pages and the metrics
        /// read, for a change that left `operation` as it is at `at`, coming from state `from`
        /// (none for a new one): move it between the counts per state, per kind and provider, and
        /// between those of the hour it was created in, mark its subject changed and move it within
        /// the subject's tally (writing to the webhook outbox that its order fell into partial
        /// success, when it did), write its own event to the outbox, start or end the notification
        /// watches of the state it enters or leaves, and, when
        /// the change settles it after it had become unknown, count how long that took.
        fn activity_statements(
            operation: &OperationRecord,
            from: Option<State>,
            at: chrono::DateTime<chrono::Utc>,
        ) -> Vec<QueryText> {
            let (tenant, to) = (&operation.tenant, operation.snapshot.state);
            let stripe = count_stripe(&operation.op_id);
            let tally = $crate::domain::rollup::OrderTally::moved(&operation.kind, operation.compensates.is_some(), from, to);
            let mut statements: Vec<QueryText> =
                counts_move(tenant, stripe, hour_of(micros(operation.created_at)), from, to).into_iter().collect();
            statements.extend(kind_counts_move(operation, stripe, from));
            statements.push(activity_upsert(tenant, &operation.subject, micros(at), tally));
            if from.is_some_and(|from| from != to) && to.is_terminal() {
                let after = match $backend {
                    Backend::Postgres => ORDER_TALLY_AFTER,
                    Backend::Sqlite => "subject_activity",
                };
                statements.extend(partial_success_outbox(operation, tally, micros(at), after));
            }
            statements.extend(operation_outbox(operation, from, micros(at)));
            statements.extend(notify_watch_statements(operation, from, micros(at)));
            if to.is_terminal() && from.is_some_and(|from| !from.is_terminal()) {
                statements.push(settle_time_count(operation, micros(at), stripe));
            }
            statements
        }

        /// Runs `statements` in `tx` with one call: on PostgreSQL as one statement (one round
        /// trip), on SQLite as one text of statements that its connection's thread runs one after
        /// the other.
        async fn execute_all(tx: &mut Tx, statements: Vec<QueryText>) -> Result<(), StoreError> {
            let text = match $backend {
                Backend::Postgres => QueryText::together(statements),
                Backend::Sqlite => QueryText::in_order(statements),
            };
            if let Some(text) = text {
                sqlx::query_with(&text.sql, arguments::<$db>(text.values)?).execute(&mut **tx).await?;
            }
            Ok(())
        }

        /// Which of a state's 16 count rows a change of `op_id` adds to: spread by the id, so that
        /// concurrent changes of one tenant rarely wait for the same row.
        fn count_stripe(op_id: &OpId) -> i16 {
            let spread = op_id.as_str().bytes().fold(0u32, |hash, byte| hash.wrapping_mul(31).wrapping_add(u32::from(byte)));
            (spread % 16) as i16
        }

        /// Deletes the tenant's row that `delete` names (`$1` the tenant, `$2` the key), with its
        /// audit entry, in one transaction; `NotFound` when there is no such row.
        async fn delete_audited(
            store: &$store,
            tenant: &TenantId,
            delete: &str,
            key: &str,
            audit: AuditEntry,
        ) -> Result<(), StoreError> {
            let mut tx = $begin(store).await?;
            let removed = sqlx::query(delete).bind(tenant.as_str()).bind(key).execute(&mut *tx).await?.rows_affected();
            if removed == 0 {
                return Err(StoreError::NotFound);
            }
            append_audit(&mut tx, tenant, vec![audit]).await?;
            tx.commit().await?;
            Ok(())
        }

        /// Fills in the external ids of the listed operations with one query.
        async fn fill_external_ids(
            pool: &sqlx::Pool<$db>,
            tenant: &TenantId,
            items: &mut [OperationListItem],
        ) -> Result<(), StoreError> {
            if items.is_empty() {
                return Ok(());
            }
            let ids: Vec<String> = items.iter().map(|item| item.op_id.as_str().to_owned()).collect();
            let text = in_list(
                "select op_id, external_id from external_refs",
                tenant,
                "op_id",
                &ids,
                "order by recorded_at_us, external_id",
            );
            let rows: Vec<(String, String)> = sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(pool).await?;
            for (op_id, external_id) in rows {
                if let Some(item) = items.iter_mut().find(|item| item.op_id.as_str() == op_id) {
                    item.external_ids.push(external_id);
                }
            }
            Ok(())
        }

        /// An operation with its attempts, external references and audit trail, read on `connection`
        /// (a pool's, or an open transaction's, which then sees its own writes).
        async fn history_in(
            connection: &mut <$db as sqlx::Database>::Connection,
            tenant: &TenantId,
            op_id: &OpId,
        ) -> Result<Option<OperationHistory>, StoreError> {
            let row: Option<OperationRow> = sqlx::query_as(&format!(
                "select {OPERATION_COLUMNS} from operations where tenant = $1 and op_id = $2"
            ))
            .bind(tenant.as_str())
            .bind(op_id.as_str())
            .fetch_optional(&mut *connection)
            .await?;
            let Some(operation) = row.map(OperationRow::into_record).transpose()? else {
                return Ok(None);
            };
            history_after(connection, operation).await.map(Some)
        }

        /// `operation` with its attempts and external references, read on `connection`.
        async fn committed_after(
            connection: &mut <$db as sqlx::Database>::Connection,
            operation: OperationRecord,
        ) -> Result<CommittedOperation, StoreError> {
            let rows: Vec<AttemptOrRefRow> = sqlx::query_as(ATTEMPTS_AND_REFS_QUERY.as_str())
                .bind(operation.tenant.as_str())
                .bind(operation.op_id.as_str())
                .fetch_all(&mut *connection)
                .await?;
            let (mut attempts, mut external_refs) = (Vec::new(), Vec::new());
            for row in rows {
                match row.into_record()? {
                    AttemptOrRef::Attempt(attempt) => attempts.push(attempt),
                    AttemptOrRef::Ref(reference) => external_refs.push(reference),
                }
            }
            Ok(CommittedOperation { operation, attempts, external_refs })
        }

        /// `operation` with its attempts, external references and audit trail, read on `connection`.
        async fn history_after(
            connection: &mut <$db as sqlx::Database>::Connection,
            operation: OperationRecord,
        ) -> Result<OperationHistory, StoreError> {
            let CommittedOperation { operation, attempts, external_refs } = committed_after(connection, operation).await?;
            let tenant = operation.tenant.as_str().to_owned();
            let trail: Vec<TrailRow> =
                sqlx::query_as(TRAIL_QUERY.as_str()).bind(&tenant).bind(operation.op_id.as_str()).fetch_all(&mut *connection).await?;
            let audit = trail.into_iter().map(|row| row.into_event(&tenant)).collect::<Result<_, _>>()?;
            Ok(OperationHistory { operation, attempts, external_refs, audit })
        }

        /// The operations `op_ids` with their attempts, external references and audit trails, in
        /// the order of `op_ids` (those not found left out), read on `connection`: three round
        /// trips for each thousand of them, whatever their number.
        async fn histories_in(
            connection: &mut <$db as sqlx::Database>::Connection,
            tenant: &TenantId,
            op_ids: &[OpId],
        ) -> Result<Vec<OperationHistory>, StoreError> {
            let mut found = std::collections::HashMap::with_capacity(op_ids.len());
            for chunk in op_ids.chunks(1000) {
                let ids: Vec<String> = chunk.iter().map(|op_id| op_id.as_str().to_owned()).collect();
                let text = in_list(&format!("select {OPERATION_COLUMNS} from operations"), tenant, "op_id", &ids, "");
                let rows: Vec<OperationRow> =
                    sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&mut *connection).await?;
                for row in rows {
                    let operation = row.into_record()?;
                    let history =
                        OperationHistory { operation, attempts: Vec::new(), external_refs: Vec::new(), audit: Vec::new() };
                    found.insert(history.operation.op_id.as_str().to_owned(), history);
                }
                let text = attempts_and_refs_of(tenant, &ids);
                let parts: Vec<OperationPartRow> =
                    sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&mut *connection).await?;
                for OperationPartRow { op_id, part } in parts {
                    if let Some(history) = found.get_mut(&op_id) {
                        match part.into_record()? {
                            AttemptOrRef::Attempt(attempt) => history.attempts.push(attempt),
                            AttemptOrRef::Ref(reference) => history.external_refs.push(reference),
                        }
                    }
                }
                let text = trails_of(tenant, &ids);
                let trail: Vec<TrailRow> =
                    sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&mut *connection).await?;
                for row in trail {
                    let event = row.into_event(tenant.as_str())?;
                    if let Some(history) = event.entry.op_id.as_ref().and_then(|op_id| found.get_mut(op_id)) {
                        history.audit.push(event);
                    }
                }
            }
            Ok(op_ids.iter().filter_map(|op_id| found.remove(op_id.as_str())).collect())
        }

        /// Records `entries` for the sealer, in this order, in the transaction of the change they
        /// describe: no read of the chain, no lock of the tenant.
        async fn append_audit(tx: &mut Tx, tenant: &TenantId, entries: Vec<AuditEntry>) -> Result<(), StoreError> {
            execute_all(tx, audit_pending_insert(tenant, &entries).into_iter().collect()).await
        }

        /// Seals up to `limit` of `tenant`'s waiting entries into its chain, in the order they were
        /// recorded, within `tx`, which holds the tenant's lock; then chains `extra` after them.
        /// Answers the last record chained and how many were sealed.
        async fn seal_in(
            tx: &mut Tx,
            tenant: &TenantId,
            limit: u32,
            extra: Option<AuditEntry>,
        ) -> Result<(Option<AuditRecord>, u64), StoreError> {
            let waiting: Vec<PendingRow> = sqlx::query_as(&format!(
                "select {PENDING_COLUMNS} from audit_pending where tenant = $1 order by id limit $2"
            ))
            .bind(tenant.as_str())
            .bind(i64::from(limit))
            .fetch_all(&mut **tx)
            .await?;
            if waiting.is_empty() && extra.is_none() {
                return Ok((None, 0));
            }
            let head: Option<(i64, String)> =
                sqlx::query_as("select seq, hash from audit_events where tenant = $1 order by seq desc limit 1")
                    .bind(tenant.as_str())
                    .fetch_optional(&mut **tx)
                    .await?;
            let head = head.as_ref().map(|(seq, hash)| (*seq as u64, hash.as_str()));
            let sealed = waiting.len() as u64;
            // Exactly the rows read: one recorded under a smaller id may have committed since.
            let sealed_ids = waiting.iter().map(|row| row.id.to_string()).collect::<Vec<_>>().join(", ");
            let entries = waiting.into_iter().map(PendingRow::into_entry).chain(extra.map(Ok));
            let mut records: Vec<AuditRecord> = Vec::new();
            for entry in entries {
                let previous = records.last().map(|record| (record.seq, record.hash.as_str())).or(head);
                let record = entry?.chain_after(previous);
                records.push(record);
            }
            if $backend == Backend::Postgres {
                // PostgreSQL keeps the chain in monthly partitions and has no default one: the
                // month of each record is made first, when it is not there.
                let mut months: Vec<i64> = records.iter().map(|record| month_start(record.entry.at)).collect();
                months.sort_unstable();
                months.dedup();
                for month in months {
                    sqlx::query("select audit_events_partition_for($1)").bind(month).execute(&mut **tx).await?;
                }
            }
            for chunk in records.chunks(SEALED_PER_INSERT) {
                let text = audit_events_insert(tenant, chunk);
                // Its text differs with the number of rows: not kept as a prepared statement.
                sqlx::query_with(&text.sql, arguments::<$db>(text.values)?).persistent(false).execute(&mut **tx).await?;
            }
            let last = records.pop();
            if sealed > 0 {
                sqlx::query(&format!("delete from audit_pending where id in ({sealed_ids})"))
                    .persistent(false)
                    .execute(&mut **tx)
                    .await?;
            }
            Ok((last, sealed))
        }

        $crate::server::store::reads_sql::store_reads!($store, $db, $backend, $migrations, begin = $begin, lock_tenant = $lock_tenant, skip_locked = $skip_locked);
        $crate::server::store::writes_sql::store_writes!($store, $db, $backend, $migrations, begin = $begin, lock_tenant = $lock_tenant, skip_locked = $skip_locked);
        $crate::server::store::sessions_sql::store_sessions!($store, $db, $backend, $migrations, begin = $begin, lock_tenant = $lock_tenant, skip_locked = $skip_locked);
        $crate::server::store::sso::store_sso!($store, $begin);
        $crate::server::store::notify::store_notify!($store, $begin);
        $crate::server::store::gateway::store_gateway!($store, $begin);
        $crate::server::store::desk::store_desk!($store, $db, $begin);
        $crate::server::store::archive::store_archive!($store, $db, $backend, $begin);
    };
}

pub(super) use sql_store;
