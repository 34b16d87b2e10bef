//! The SQL both backends share: [`sql_store!`] opens a backend's module with the shared imports and
//! the write-transaction helpers (the projection of events onto rows, the audit chain's sealing), then
//! writes its three trait implementations from `reads_sql`, `writes_sql` and `sessions_sql`. Each
//! backend adds only how it opens a write transaction and locks a tenant's chain for sealing.

/// Writes the store for one engine, whose `pool` serves reads and `writes` every write outside a
/// transaction. `$begin` opens a write transaction (a `$tx`) given the store;
/// `$lock_tenant` is a query on `$1` = tenant id that serialises the sealers of one tenant's audit
/// chain until the transaction ends; `$skip_locked` ends a query that claims rows so that
/// concurrent claimers skip each other's rows.
macro_rules! sql_store {
    ($store:ty, $db:ty, $backend:expr, $migrations:literal, begin = $begin:path, lock_tenant = $lock_tenant:literal, skip_locked = $skip_locked:literal, tx = $tx:ty) => {
        use $crate::domain::audit::{AuditEntry, AuditRecord, TrailEvent};
        use $crate::domain::ids::{OpId, TenantId};
        use $crate::domain::machine::{Event, State};
        use $crate::domain::operation::{AttemptRecord, AttemptReport, CommittedOperation, OperationHistory, OperationRecord};
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

        /// Marks the console request that `answer` names answered, inside the transaction of the
        /// change it asked for; only the claim of the same person is answered.
        async fn record_answer(tx: &mut Tx, tenant: &TenantId, answer: Option<&RequestAnswer>) -> Result<(), StoreError> {
            let Some(answer) = answer else { return Ok(()) };
            sqlx::query(
                "update console_requests set answered = $1, response = $2 \
                 where tenant = $3 and request_key = $4 and requested_by = $5",
            )
            .bind(true)
            .bind(&answer.answer)
            .bind(tenant.as_str())
            .bind(&answer.key)
            .bind(&answer.requested_by)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        /// Keeps the summaries the overview and the orders pages read, in the transaction of a
        /// change that left `operation` as it is at `at`, coming from state `from` (none for a new
        /// one): moves it between the counts per state and between those of the hour it was
        /// created in, marks its subject changed and moves it within the subject's tally, and,
        /// when the change settles it after it had become unknown at `unknown_since_us`, counts
        /// how long that took.
        async fn record_activity(
            tx: &mut Tx,
            operation: &OperationRecord,
            from: Option<State>,
            unknown_since_us: Option<i64>,
            at: chrono::DateTime<chrono::Utc>,
        ) -> Result<(), StoreError> {
            let (tenant, to) = (&operation.tenant, operation.snapshot.state);
            let stripe = count_stripe(&operation.op_id);
            move_counts(tx, tenant, stripe, hour_of(micros(operation.created_at)), from, to).await?;
            let tally = $crate::domain::rollup::OrderTally::moved(&operation.kind, operation.compensates.is_some(), from, to);
            sqlx::query(
                "insert into subject_activity (tenant, subject, changed_at_us, uncertain, unsent, failed_originals, \
                 succeeded_originals, undone) values ($1, $2, $3, $4, $5, $6, $7, $8) \
                 on conflict (tenant, subject) do update set changed_at_us = excluded.changed_at_us, \
                 uncertain = subject_activity.uncertain + excluded.uncertain, \
                 unsent = subject_activity.unsent + excluded.unsent, \
                 failed_originals = subject_activity.failed_originals + excluded.failed_originals, \
                 succeeded_originals = subject_activity.succeeded_originals + excluded.succeeded_originals, \
                 undone = subject_activity.undone + excluded.undone",
            )
            .bind(tenant.as_str())
            .bind(&operation.subject)
            .bind(micros(at))
            .bind(tally.uncertain)
            .bind(tally.unsent)
            .bind(tally.failed_originals)
            .bind(tally.succeeded_originals)
            .bind(tally.undone)
            .execute(&mut **tx)
            .await?;
            let settles = to.is_terminal() && from.is_some_and(|from| !from.is_terminal());
            if let (true, Some(since)) = (settles, unknown_since_us) {
                let bucket = $crate::domain::operation::settle_bucket((micros(at) - since) / 1_000_000);
                sqlx::query(
                    "insert into settle_times (tenant, hour_us, bucket, stripe, operations) values ($1, $2, $3, $4, 1) \
                     on conflict (tenant, hour_us, bucket, stripe) do update set operations = settle_times.operations + 1",
                )
                .bind(tenant.as_str())
                .bind(hour_of(micros(at)))
                .bind(i16::try_from(bucket).unwrap_or(i16::MAX))
                .bind(stripe)
                .execute(&mut **tx)
                .await?;
            }
            Ok(())
        }

        /// Moves one operation counted in `stripe` from the count of state `from` (none for a new
        /// one) to that of `to`, both among the counts of every hour ([`EVERY_HOUR`]) and among
        /// those of `created_hour`, the hour it was created in: one statement (never the same row
        /// twice), its rows in the order of their hours and states' names, so that two changes
        /// lock their rows in one order.
        async fn move_counts(
            tx: &mut Tx,
            tenant: &TenantId,
            stripe: i16,
            created_hour: i64,
            from: Option<State>,
            to: State,
        ) -> Result<(), StoreError> {
            let moves = match from {
                None => vec![(to, 1_i64)],
                Some(from) if from == to => return Ok(()),
                Some(from) if from.as_str() < to.as_str() => vec![(from, -1), (to, 1)],
                Some(from) => vec![(to, 1), (from, -1)],
            };
            let rows: Vec<(i64, State, i64)> = [EVERY_HOUR, created_hour]
                .into_iter()
                .flat_map(|hour| moves.iter().map(move |&(state, delta)| (hour, state, delta)))
                .collect();
            let values: Vec<String> =
                (0..rows.len()).map(|i| format!("($1, $2, ${}, ${}, ${})", 3 + 3 * i, 4 + 3 * i, 5 + 3 * i)).collect();
            let sql = format!(
                "insert into hourly_outcomes (tenant, stripe, hour_us, state, operations) values {} \
                 on conflict (tenant, hour_us, state, stripe) do update set operations = hourly_outcomes.operations + excluded.operations",
                values.join(", ")
            );
            let mut query = sqlx::query(&sql).bind(tenant.as_str()).bind(stripe);
            for (hour, state, delta) in rows {
                query = query.bind(hour).bind(state.as_str()).bind(delta);
            }
            query.execute(&mut **tx).await?;
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

        /// Binds the snapshot's columns, in the order of [`SnapshotColumns`], after `query`'s own.
        fn bind_snapshot<'q, O>(
            query: sqlx::query::QueryAs<'q, $db, O, <$db as sqlx::Database>::Arguments<'q>>,
            columns: SnapshotColumns,
        ) -> sqlx::query::QueryAs<'q, $db, O, <$db as sqlx::Database>::Arguments<'q>> {
            query
                .bind(columns.state)
                .bind(columns.key_first_sent_at_us)
                .bind(columns.approved_by)
                .bind(columns.approved_fingerprint)
                .bind(columns.approval_granted_at_us)
                .bind(columns.approval_expires_at_us)
                .bind(columns.open_attempt)
                .bind(columns.last_attempt)
                .bind(columns.last_failure)
                .bind(columns.cancel_requested)
        }

        /// Binds the values of a query built from optional filters, in order.
        fn bind_values<'q, O>(
            mut query: sqlx::query::QueryAs<'q, $db, O, <$db as sqlx::Database>::Arguments<'q>>,
            values: Vec<SqlValue>,
        ) -> sqlx::query::QueryAs<'q, $db, O, <$db as sqlx::Database>::Arguments<'q>> {
            for value in values {
                query = match value {
                    SqlValue::Text(text) => query.bind(text),
                    SqlValue::Int(number) => query.bind(number),
                };
            }
            query
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
            let rows: Vec<(String, String)> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(pool).await?;
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
            let rows: Vec<AttemptOrRefRow> = sqlx::query_as(ATTEMPTS_AND_REFS_QUERY)
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
                sqlx::query_as(TRAIL_QUERY).bind(&tenant).bind(operation.op_id.as_str()).fetch_all(&mut *connection).await?;
            let audit = trail.into_iter().map(|row| row.into_event(&tenant)).collect::<Result<_, _>>()?;
            Ok(OperationHistory { operation, attempts, external_refs, audit })
        }

        /// Records `entries` for the sealer, in this order, in the transaction of the change they
        /// describe: no read of the chain, no lock of the tenant.
        async fn append_audit(tx: &mut Tx, tenant: &TenantId, entries: Vec<AuditEntry>) -> Result<(), StoreError> {
            for entry in entries {
                sqlx::query(
                    "insert into audit_pending (tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(tenant.as_str())
                .bind(micros(entry.at))
                .bind(&entry.actor)
                .bind(&entry.role)
                .bind(&entry.action)
                .bind(&entry.op_id)
                .bind(&entry.from_state)
                .bind(&entry.to_state)
                .bind(&entry.reason)
                .bind(entry.evidence.to_string())
                .execute(&mut **tx)
                .await?;
            }
            Ok(())
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
            let mut previous: Option<(u64, String)> = head.map(|(seq, hash)| (seq as u64, hash));
            let mut last = None;
            let sealed = waiting.len() as u64;
            // Exactly the rows read: one recorded under a smaller id may have committed since.
            let sealed_ids = waiting.iter().map(|row| row.id.to_string()).collect::<Vec<_>>().join(", ");
            let entries = waiting.into_iter().map(PendingRow::into_entry).chain(extra.map(Ok));
            for entry in entries {
                let record = entry?.chain_after(previous.as_ref().map(|(seq, hash)| (*seq, hash.as_str())));
                sqlx::query(&format!(
                    "insert into audit_events ({AUDIT_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
                ))
                .bind(tenant.as_str())
                .bind(record.seq as i64)
                .bind(micros(record.entry.at))
                .bind(&record.entry.actor)
                .bind(&record.entry.role)
                .bind(&record.entry.action)
                .bind(&record.entry.op_id)
                .bind(&record.entry.from_state)
                .bind(&record.entry.to_state)
                .bind(&record.entry.reason)
                .bind(record.entry.evidence.to_string())
                .bind(&record.prev_hash)
                .bind(&record.hash)
                .execute(&mut **tx)
                .await?;
                previous = Some((record.seq, record.hash.clone()));
                last = Some(record);
            }
            if sealed > 0 {
                sqlx::query(&format!("delete from audit_pending where id in ({sealed_ids})")).execute(&mut **tx).await?;
            }
            Ok((last, sealed))
        }

        async fn insert_external_ref(
            tx: &mut Tx,
            operation: &OperationRecord,
            external_id: &str,
            at: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "insert into external_refs (tenant, op_id, provider, ref_type, external_id, recorded_at_us) \
                 values ($1, $2, $3, $4, $5, $6) on conflict (tenant, provider, external_id) do nothing",
            )
            .bind(operation.tenant.as_str())
            .bind(operation.op_id.as_str())
            .bind(&operation.provider)
            .bind(&operation.kind)
            .bind(external_id)
            .bind(at)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        async fn finish_attempt(
            tx: &mut Tx,
            operation: &OperationRecord,
            number: u32,
            outcome: &str,
            report: &AttemptReport,
            at: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "update attempts set finished_at_us = $1, outcome = $2, http_status = $3, latency_ms = $4, \
                 error = $5, retry_after_s = $6 where tenant = $7 and op_id = $8 and number = $9 and outcome is null",
            )
            .bind(at)
            .bind(outcome)
            .bind(report.http_status.map(i64::from))
            .bind(report.latency_ms.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)))
            .bind(&report.error)
            .bind(report.retry_after_s.map(i64::from))
            .bind(operation.tenant.as_str())
            .bind(operation.op_id.as_str())
            .bind(i64::from(number))
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        /// Projects one event onto attempts, external references and approvals.
        async fn project(tx: &mut Tx, operation: &OperationRecord, change: &OperationChange, event: &Event) -> Result<(), StoreError> {
            let at = micros(change.at);
            match event {
                Event::AttemptStarted { attempt, at: started, .. } => {
                    sqlx::query(
                        "insert into attempts (tenant, op_id, number, idempotency_key, sent_by, started_at_us, \
                         send_budget, deadline_at_us) values ($1, $2, $3, $4, $5, $6, $7, $8)",
                    )
                    .bind(operation.tenant.as_str())
                    .bind(operation.op_id.as_str())
                    .bind(i64::from(attempt.0))
                    .bind(&operation.idempotency_key)
                    .bind(format!("{} ({})", change.actor.name, change.actor.role_label()))
                    .bind(micros(*started))
                    .bind(change.report.budget.map(|b| i64::from(b.max_sends)))
                    .bind(change.report.budget.map(|b| micros(b.deadline)))
                    .execute(&mut **tx)
                    .await?;
                }
                Event::AttemptSucceeded { attempt, external_id } => {
                    finish_attempt(tx, operation, attempt.0, "succeeded", &change.report, at).await?;
                    if let Some(id) = external_id.as_deref().or(change.report.external_id.as_deref()) {
                        insert_external_ref(tx, operation, id, at).await?;
                    }
                }
                Event::AttemptFailed { attempt, class } => {
                    let mut report = change.report.clone();
                    if let $crate::domain::failure::FailureClass::TransientUnavailable { retry_after_s: Some(s) } = class {
                        report.retry_after_s.get_or_insert(*s);
                    }
                    finish_attempt(tx, operation, attempt.0, class.as_str(), &report, at).await?;
                }
                Event::MarkedUnknown { attempt: Some(attempt), reason } => {
                    let report = AttemptReport { error: Some(reason.clone()), ..AttemptReport::default() };
                    finish_attempt(tx, operation, attempt.0, "no_report", &report, at).await?;
                }
                Event::FoundDownstream { external_id, .. } | Event::MarkedSucceeded { external_id, .. } => {
                    insert_external_ref(tx, operation, external_id, at).await?;
                }
                Event::ApprovalGranted { approval, reason } => {
                    sqlx::query(
                        "insert into approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us, expires_at_us) \
                         values ($1, $2, 'approved', $3, $4, $5, $6, $7)",
                    )
                    .bind(operation.tenant.as_str())
                    .bind(operation.op_id.as_str())
                    .bind(&approval.approver)
                    .bind(approval.fingerprint.as_str())
                    .bind(reason)
                    .bind(micros(approval.granted_at))
                    .bind(micros(approval.expires_at))
                    .execute(&mut **tx)
                    .await?;
                }
                Event::ApprovalDenied { by, reason } => {
                    sqlx::query(
                        "insert into approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us) \
                         values ($1, $2, 'denied', $3, $4, $5, $6)",
                    )
                    .bind(operation.tenant.as_str())
                    .bind(operation.op_id.as_str())
                    .bind(by)
                    .bind(operation.snapshot.fingerprint.as_str())
                    .bind(reason)
                    .bind(at)
                    .execute(&mut **tx)
                    .await?;
                }
                Event::MarkedUnknown { attempt: None, .. }
                | Event::ApprovalExpired { .. }
                | Event::Escalated { .. }
                | Event::MarkedNotHappened { .. }
                | Event::CancelRequested { .. }
                | Event::Cancelled { .. } => {}
            }
            Ok(())
        }

        $crate::server::store::reads_sql::store_reads!($store, $db, $backend, $migrations, begin = $begin, lock_tenant = $lock_tenant, skip_locked = $skip_locked);
        $crate::server::store::writes_sql::store_writes!($store, $db, $backend, $migrations, begin = $begin, lock_tenant = $lock_tenant, skip_locked = $skip_locked);
        $crate::server::store::sessions_sql::store_sessions!($store, $db, $backend, $migrations, begin = $begin, lock_tenant = $lock_tenant, skip_locked = $skip_locked);
    };
}

pub(super) use sql_store;
