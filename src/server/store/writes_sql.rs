//! The store's writes, shared by both engines: what only the ledger service calls (register,
//! refuse a conflict, commit a decided change with its projection and audit, lease for the
//! reconciler, tokens, users, approval rules, console requests, bulk runs, audit entries). Every
//! write runs in one transaction and records its audit entries for the sealer; only the sealer
//! (and an entry that must know its place at once, such as an export's) takes the tenant's chain
//! lock.

/// Writes the [`Store`](super::Store) implementation for one engine, inside [`super::sql::sql_store!`].

macro_rules! store_writes {
    ($store:ty, $db:ty, $backend:expr, $migrations:literal, begin = $begin:path, lock_tenant = $lock_tenant:literal, skip_locked = $skip_locked:literal) => {
        #[async_trait::async_trait]
        impl Store for $store {
            async fn migrate(&self) -> Result<(), StoreError> {
                sqlx::migrate!($migrations).run(&self.pool).await.map_err(StoreError::Migration)
            }

            async fn create_api_token(&self, token: NewApiToken, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = begin_write_creating(self, &token.tenant, token.at).await?;
                sqlx::query(
                    "insert into api_tokens (id, tenant, name, secret_hash, created_at_us, scopes, expires_at_us, \
                     created_by, created_by_user_id) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(&token.id)
                .bind(token.tenant.as_str())
                .bind(&token.name)
                .bind(&token.secret_hash)
                .bind(micros(token.at))
                .bind(token.scopes.as_text())
                .bind(token.expires_at.map(micros))
                .bind(&token.created_by)
                .bind(&token.created_by_user_id)
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, "an API token with this name already exists for the tenant"))?;
                append_audit(&mut tx, &token.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn revoke_api_token(&self, tenant: &TenantId, name: &str, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let revoked = sqlx::query(
                    "update api_tokens set revoked_at_us = $1 where tenant = $2 and name = $3 and revoked_at_us is null",
                )
                .bind(micros(audit.at))
                .bind(tenant.as_str())
                .bind(name)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if revoked == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn rotate_api_token(
                &self,
                tenant: &TenantId,
                name: &str,
                secret_hash: &str,
                previous_valid_until: Option<chrono::DateTime<chrono::Utc>>,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                // The right-hand sides read the row as it was: the old secret becomes the previous one.
                let rotated = sqlx::query(
                    "update api_tokens set \
                     previous_secret_hash = case when $1 is null then null else secret_hash end, \
                     previous_valid_until_us = $1, secret_hash = $2, rotated_at_us = $3 \
                     where tenant = $4 and name = $5 and revoked_at_us is null \
                     and (expires_at_us is null or expires_at_us > $3)",
                )
                .bind(previous_valid_until.map(micros))
                .bind(secret_hash)
                .bind(micros(audit.at))
                .bind(tenant.as_str())
                .bind(name)
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, "the new secret is in use already"))?
                .rows_affected();
                if rotated == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn record_token_use(
                &self,
                id: &str,
                at: chrono::DateTime<chrono::Utc>,
                address: &str,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query("update api_tokens set last_used_at_us = $1, last_used_from = $2 where id = $3")
                    .bind(micros(at))
                    .bind(address)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn revoke_api_tokens_created_by(
                &self,
                tenant: &TenantId,
                user_id: &str,
                audit: AuditEntry,
            ) -> Result<Vec<TouchedToken>, StoreError> {
                let mut tx = $begin(self).await?;
                let rows: Vec<(String, String)> = sqlx::query_as(
                    "update api_tokens set revoked_at_us = $1 \
                     where tenant = $2 and created_by_user_id = $3 and revoked_at_us is null returning id, name",
                )
                .bind(micros(audit.at))
                .bind(tenant.as_str())
                .bind(user_id)
                .fetch_all(&mut *tx)
                .await?;
                let touched = touched_tokens(rows);
                append_audit(&mut tx, tenant, audit_per_token(&audit, &touched)).await?;
                tx.commit().await?;
                Ok(touched)
            }

            async fn reassign_api_tokens(
                &self,
                tenant: &TenantId,
                from_user_id: &str,
                to_user_id: &str,
                audit: AuditEntry,
            ) -> Result<Vec<TouchedToken>, StoreError> {
                let mut tx = $begin(self).await?;
                let to: Option<(String,)> =
                    sqlx::query_as("select name from users where tenant = $1 and id = $2 and status = 'active'")
                        .bind(tenant.as_str())
                        .bind(to_user_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let Some((to_name,)) = to else {
                    return Err(StoreError::NotFound);
                };
                let rows: Vec<(String, String)> = sqlx::query_as(
                    "update api_tokens set created_by_user_id = $1, created_by = $2 \
                     where tenant = $3 and created_by_user_id = $4 and revoked_at_us is null returning id, name",
                )
                .bind(to_user_id)
                .bind(&to_name)
                .bind(tenant.as_str())
                .bind(from_user_id)
                .fetch_all(&mut *tx)
                .await?;
                let touched = touched_tokens(rows);
                append_audit(&mut tx, tenant, audit_per_token(&audit, &touched)).await?;
                tx.commit().await?;
                Ok(touched)
            }

            async fn register_operation(&self, new: NewOperation, audit: AuditEntry) -> Result<Registered, StoreError> {
                let operation = new.record();
                let mut rest: Vec<QueryText> =
                    new.answers.as_ref().map(|answer| answer_update(&new.tenant, answer)).into_iter().collect();
                rest.extend(activity_statements(&operation, None, new.at));
                rest.extend(audit_pending_insert(&new.tenant, std::slice::from_ref(&audit)));
                let Some(GuardedRow { row: inserted, .. }) = write_guarded(self, operation_insert(&new), rest).await? else {
                    let mut connection = self.pool.acquire().await?;
                    if let Some(existing) = history_in(&mut connection, &new.tenant, &new.op_id).await? {
                        return Ok(Registered::Existing(existing));
                    }
                    drop(connection);
                    use $crate::server::store::archive::ArchiveStore;
                    let key = self.archived_key(&new.tenant, &new.op_id).await?.ok_or(StoreError::NotFound)?;
                    return Ok(Registered::Archived(key));
                };
                // A new operation has no attempts and no external ids yet; its trail is the entry
                // just recorded, waiting for the sealer.
                Ok(Registered::Created(OperationHistory {
                    operation: inserted.into_record()?,
                    attempts: Vec::new(),
                    external_refs: Vec::new(),
                    audit: vec![TrailEvent { seq: None, entry: audit, hash: None }],
                }))
            }

            async fn record_conflict(&self, conflict: NewConflict, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "insert into conflicts (tenant, op_id, requested_params, requested_fingerprint, stored_fingerprint, \
                     diff, requested_by, received_at_us) values ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(conflict.tenant.as_str())
                .bind(conflict.op_id.as_str())
                .bind(conflict.requested.canonical_text())
                .bind(conflict.requested.fingerprint().as_str())
                .bind(conflict.stored_fingerprint.as_str())
                .bind(serde_json::to_string(&conflict.diff).map_err(|e| StoreError::Corrupt(e.to_string()))?)
                .bind(&conflict.requested_by)
                .bind(micros(conflict.at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, &conflict.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn apply_change(&self, mut change: OperationChange) -> Result<CommittedOperation, StoreError> {
                let operation = change.before.changed_to(change.after.clone(), change.at);
                let known_after = match change.before_attempts_and_refs.take() {
                    Some(before) => attempts_and_refs_after(&operation, &change, before)?,
                    None => None,
                };
                let tenant = &change.before.tenant;
                let mut rest: Vec<QueryText> =
                    change.answers.as_ref().map(|answer| answer_update(tenant, answer)).into_iter().collect();
                rest.extend(change.events.iter().flat_map(|event| projection(&operation, &change, event)));
                rest.extend(activity_statements(&operation, Some(change.before.snapshot.state), change.at));
                rest.extend(audit_pending_insert(tenant, &change.audit));
                let Some(GuardedRow { row, external_id_recorded }) =
                    write_guarded(self, operation_update(&change), rest).await?
                else {
                    // Gone or changed since it was read: the ledger reads it again and decides anew.
                    return Err(StoreError::Conflict("the operation changed since it was read".into()));
                };
                let operation = row.into_record()?;
                if let Some(AttemptsAndRefs { attempts, external_refs }) =
                    known_after.and_then(|answer| answer.given(external_id_recorded))
                {
                    return Ok(CommittedOperation { operation, attempts, external_refs });
                }
                let mut connection = self.pool.acquire().await?;
                committed_after(&mut connection, operation).await
            }

            async fn lease_due_for_reconcile(
                &self,
                settled_before: chrono::DateTime<chrono::Utc>,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<(TenantId, OpId)>, StoreError> {
                let due = concat!(
                    "state in ('submitted', 'unknown', 'accepted') and updated_at_us <= $2 ",
                    "and (state = 'unknown' ",
                    "or (state = 'accepted' and coalesce(next_check_at_us, 0) <= $3) ",
                    "or (state = 'submitted' and coalesce((select max(a.deadline_at_us) from attempts a ",
                    "where a.tenant = o.tenant and a.op_id = o.op_id), 0) <= $2))"
                );
                lease_operations(self, due, settled_before, now, lease_until, limit).await
            }

            async fn schedule_check(
                &self,
                tenant: &TenantId,
                op_id: &OpId,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query("update operations set next_check_at_us = $1, lease_until_us = null where tenant = $2 and op_id = $3")
                    .bind(micros(at))
                    .bind(tenant.as_str())
                    .bind(op_id.as_str())
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn lease_due_for_dispatch(
                &self,
                idle_before: chrono::DateTime<chrono::Utc>,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<(TenantId, OpId)>, StoreError> {
                let due = "(state = 'approved' or (state = 'planned' and server_sends = 1)) and updated_at_us <= $2";
                lease_operations(self, due, idle_before, now, lease_until, limit).await
            }

            async fn add_tenant(&self, tenant: &TenantId, audit: AuditEntry) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
                let added = sqlx::query(
                    "insert into tenants (id, name, created_at_us) values ($1, $1, $2) on conflict (id) do nothing",
                )
                .bind(tenant.as_str())
                .bind(micros(audit.at))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if added == 0 {
                    return Ok(false);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn create_user(&self, user: NewUser, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = begin_write_creating(self, &user.tenant, user.at).await?;
                sqlx::query(&format!("insert into users ({NEW_USER_COLUMNS}) values ($1, $2, $3, $4, $5, $6)"))
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

            async fn change_person(
                &self,
                change: PersonChange,
                audit: AuditEntry,
            ) -> Result<Result<PersonChangeDone, $crate::domain::people::PeopleRefusal>, StoreError> {
                use $crate::domain::people::{check_change, PeopleChange, PeopleRefusal, Target, UserStatus};
                let tenant = &change.tenant;
                let mut tx = $begin(self).await?;
                sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
                let row: Option<UserRow> =
                    sqlx::query_as(&format!("select {USER_COLUMNS} from users where tenant = $1 and id = $2"))
                        .bind(tenant.as_str())
                        .bind(&change.user_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let user = row.ok_or(StoreError::NotFound)?.into_record()?;
                let active_admins: i64 = sqlx::query_scalar(
                    "select count(*) from users where tenant = $1 and role = 'admin' and status = 'active'",
                )
                .bind(tenant.as_str())
                .fetch_one(&mut *tx)
                .await?;
                let target = Target {
                    is_self: change.by_user_id.as_deref() == Some(user.id.as_str()),
                    role: user.role,
                    status: user.status,
                    source: user.source,
                };
                if let Err(refusal) = check_change(change.change, target, usize::try_from(active_admins).unwrap_or(0)) {
                    return Ok(Err(refusal));
                }
                let set_user = |assignment: &str| format!("update users set {assignment} where tenant = $2 and id = $3");
                let mut done = PersonChangeDone::default();
                let mut entries = vec![audit.clone()];
                let ends_sessions = match change.change {
                    PeopleChange::SetRole(role) => {
                        sqlx::query(&set_user("role = $1")).bind(role.as_str()).bind(tenant.as_str()).bind(&user.id)
                            .execute(&mut *tx).await?;
                        true
                    }
                    PeopleChange::Deactivate | PeopleChange::Reactivate => {
                        let status = if change.change == PeopleChange::Deactivate { UserStatus::Deactivated } else { UserStatus::Active };
                        sqlx::query(&set_user("status = $1")).bind(status.as_str()).bind(tenant.as_str()).bind(&user.id)
                            .execute(&mut *tx).await?;
                        if status == UserStatus::Deactivated {
                            let heir = match &change.tokens_to {
                                None => None,
                                Some(heir_id) => {
                                    let heir: Option<(String,)> = sqlx::query_as(
                                        "select name from users where tenant = $1 and id = $2 and status = 'active' and id <> $3",
                                    )
                                    .bind(tenant.as_str())
                                    .bind(heir_id)
                                    .bind(&user.id)
                                    .fetch_optional(&mut *tx)
                                    .await?;
                                    let Some((heir_name,)) = heir else { return Ok(Err(PeopleRefusal::NoTokenHeir)) };
                                    Some((heir_id, heir_name))
                                }
                            };
                            let token_audit = |action: &str, evidence: serde_json::Value| {
                                let mut entry = AuditEntry::action(change.at, tenant.as_str(), &audit.actor, &audit.role, action, evidence);
                                entry.reason = audit.reason.clone();
                                entry
                            };
                            if let Some((heir_id, heir_name)) = heir {
                                let rows: Vec<(String, String)> = sqlx::query_as(
                                    "update api_tokens set created_by_user_id = $1, created_by = $2 \
                                     where tenant = $3 and created_by_user_id = $4 and revoked_at_us is null returning id, name",
                                )
                                .bind(heir_id)
                                .bind(&heir_name)
                                .bind(tenant.as_str())
                                .bind(&user.id)
                                .fetch_all(&mut *tx)
                                .await?;
                                done.tokens_reassigned = touched_tokens(rows);
                                let evidence = serde_json::json!({"from_user_id": user.id, "to_user_id": heir_id});
                                entries.extend(audit_per_token(&token_audit("reassign_api_token", evidence), &done.tokens_reassigned));
                            } else {
                                let rows: Vec<(String, String)> = sqlx::query_as(
                                    "update api_tokens set revoked_at_us = $1 \
                                     where tenant = $2 and created_by_user_id = $3 and revoked_at_us is null returning id, name",
                                )
                                .bind(micros(change.at))
                                .bind(tenant.as_str())
                                .bind(&user.id)
                                .fetch_all(&mut *tx)
                                .await?;
                                done.tokens_revoked = touched_tokens(rows);
                                let evidence = serde_json::json!({"created_by_user_id": user.id, "with_its_creator": true});
                                entries.extend(audit_per_token(&token_audit("revoke_api_token", evidence), &done.tokens_revoked));
                            }
                            let released: Vec<(String, String)> = sqlx::query_as(
                                "delete from claims where tenant = $1 and holder_id = $2 returning item_kind, item_id",
                            )
                            .bind(tenant.as_str())
                            .bind(&user.id)
                            .fetch_all(&mut *tx)
                            .await?;
                            done.claims_released = released.len();
                            for (item_kind, item_id) in released {
                                let evidence = serde_json::json!({
                                    "item_kind": &item_kind, "item_id": &item_id, "holder": user.name,
                                    "holder_user_id": user.id, "because": "deactivated",
                                });
                                let mut entry = token_audit("release", evidence);
                                if item_kind == "operation" {
                                    entry.op_id = Some(item_id);
                                }
                                entries.push(entry);
                            }
                        }
                        status == UserStatus::Deactivated
                    }
                    PeopleChange::SignOutEverywhere => true,
                    PeopleChange::ResetTwoFactor => {
                        sqlx::query(&set_user("two_factor_secret = null, two_factor_pending = null, two_factor_step = $1"))
                            .bind(None::<i64>).bind(tenant.as_str()).bind(&user.id)
                            .execute(&mut *tx).await?;
                        sqlx::query("delete from recovery_codes where tenant = $1 and user_id = $2")
                            .bind(tenant.as_str())
                            .bind(&user.id)
                            .execute(&mut *tx)
                            .await?;
                        true
                    }
                    PeopleChange::ResetPassword => {
                        let reset = change.password_reset.as_ref().ok_or_else(|| {
                            StoreError::Corrupt("a password reset without its link".into())
                        })?;
                        sqlx::query(
                            "insert into password_resets (secret_hash, tenant, user_id, created_by, created_at_us, expires_at_us) \
                             values ($1, $2, $3, $4, $5, $6)",
                        )
                        .bind(&reset.secret_hash)
                        .bind(tenant.as_str())
                        .bind(&user.id)
                        .bind(&reset.created_by)
                        .bind(micros(reset.at))
                        .bind(micros(reset.expires_at))
                        .execute(&mut *tx)
                        .await?;
                        false
                    }
                };
                done.sessions_ended = if ends_sessions {
                    sqlx::query("delete from sessions where tenant = $1 and user_id = $2")
                        .bind(tenant.as_str())
                        .bind(&user.id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected()
                } else {
                    0
                };
                append_audit(&mut tx, tenant, entries).await?;
                tx.commit().await?;
                Ok(Ok(done))
            }

            async fn use_password_reset(
                &self,
                secret_hash: &str,
                password_hash: &str,
                now: chrono::DateTime<chrono::Utc>,
                audit: &(dyn for<'u> Fn(&'u UserRecord) -> AuditEntry + Send + Sync),
            ) -> Result<UserRecord, StoreError> {
                let mut tx = $begin(self).await?;
                let used: Option<(String, String)> = sqlx::query_as(
                    "update password_resets set used_at_us = $2 where secret_hash = $1 and used_at_us is null \
                     and expires_at_us > $2 returning tenant, user_id",
                )
                .bind(secret_hash)
                .bind(micros(now))
                .fetch_optional(&mut *tx)
                .await?;
                let (tenant, user_id) = used.ok_or(StoreError::NotFound)?;
                let row: Option<UserRow> = sqlx::query_as(&format!(
                    "update users set password_hash = $1 where tenant = $2 and id = $3 and status = 'active' \
                     returning {USER_COLUMNS}"
                ))
                .bind(password_hash)
                .bind(&tenant)
                .bind(&user_id)
                .fetch_optional(&mut *tx)
                .await?;
                let user = row.ok_or(StoreError::NotFound)?.into_record()?;
                sqlx::query("delete from sessions where tenant = $1 and user_id = $2")
                    .bind(&tenant)
                    .bind(&user_id)
                    .execute(&mut *tx)
                    .await?;
                append_audit(&mut tx, &user.tenant, vec![audit(&user)]).await?;
                tx.commit().await?;
                Ok(user)
            }

            async fn start_two_factor(&self, tenant: &TenantId, user_id: &str, sealed_secret: &str) -> Result<(), StoreError> {
                let started = sqlx::query(
                    "update users set two_factor_pending = $1 where tenant = $2 and id = $3 and two_factor_secret is null",
                )
                .bind(sealed_secret)
                .bind(tenant.as_str())
                .bind(user_id)
                .execute(&self.writes)
                .await?
                .rows_affected();
                if started == 0 {
                    return Err(StoreError::NotFound);
                }
                Ok(())
            }

            async fn confirm_two_factor(
                &self,
                tenant: &TenantId,
                user_id: &str,
                step: i64,
                recovery_hashes: &[String],
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let confirmed = sqlx::query(
                    "update users set two_factor_secret = two_factor_pending, two_factor_pending = null, two_factor_step = $1 \
                     where tenant = $2 and id = $3 and two_factor_pending is not null and two_factor_secret is null",
                )
                .bind(step)
                .bind(tenant.as_str())
                .bind(user_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if confirmed == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query("delete from recovery_codes where tenant = $1 and user_id = $2")
                    .bind(tenant.as_str())
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                for hash in recovery_hashes {
                    sqlx::query("insert into recovery_codes (tenant, user_id, code_hash) values ($1, $2, $3)")
                        .bind(tenant.as_str())
                        .bind(user_id)
                        .bind(hash)
                        .execute(&mut *tx)
                        .await?;
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn use_two_factor_step(&self, tenant: &TenantId, user_id: &str, step: i64) -> Result<bool, StoreError> {
                let used = sqlx::query(
                    "update users set two_factor_step = $1 where tenant = $2 and id = $3 and two_factor_secret is not null \
                     and (two_factor_step is null or two_factor_step < $1)",
                )
                .bind(step)
                .bind(tenant.as_str())
                .bind(user_id)
                .execute(&self.writes)
                .await?
                .rows_affected();
                Ok(used == 1)
            }

            async fn use_recovery_code(
                &self,
                tenant: &TenantId,
                user_id: &str,
                code_hash: &str,
                audit: AuditEntry,
            ) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
                let used = sqlx::query(
                    "update recovery_codes set used_at_us = $1 where tenant = $2 and user_id = $3 and code_hash = $4 \
                     and used_at_us is null",
                )
                .bind(micros(audit.at))
                .bind(tenant.as_str())
                .bind(user_id)
                .bind(code_hash)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if used == 0 {
                    return Ok(false);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn turn_off_two_factor(&self, tenant: &TenantId, user_id: &str, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let off = sqlx::query(
                    "update users set two_factor_secret = null, two_factor_pending = null, two_factor_step = null \
                     where tenant = $1 and id = $2 and two_factor_secret is not null",
                )
                .bind(tenant.as_str())
                .bind(user_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if off == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query("delete from recovery_codes where tenant = $1 and user_id = $2")
                    .bind(tenant.as_str())
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn set_two_factor_required(&self, tenant: &TenantId, required: bool, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = begin_write_creating(self, tenant, audit.at).await?;
                sqlx::query("update tenants set two_factor_required = $1 where id = $2")
                    .bind(i64::from(required))
                    .bind(tenant.as_str())
                    .execute(&mut *tx)
                    .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn record_sign_in(
                &self,
                tenant: &TenantId,
                user_id: &str,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                sqlx::query("update users set last_sign_in_at_us = $1 where tenant = $2 and id = $3")
                    .bind(micros(at))
                    .bind(tenant.as_str())
                    .bind(user_id)
                    .execute(&self.writes)
                    .await?;
                Ok(())
            }

            async fn set_user_language(
                &self,
                tenant: &TenantId,
                user_id: &str,
                language: Option<Language>,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let changed = sqlx::query("update users set language = $1 where tenant = $2 and id = $3")
                    .bind(language.map(Language::tag))
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

            async fn set_tenant_language(
                &self,
                tenant: &TenantId,
                language: Language,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write_creating(self, tenant, audit.at).await?;
                sqlx::query("update tenants set language = $1 where id = $2")
                    .bind(language.tag())
                    .bind(tenant.as_str())
                    .execute(&mut *tx)
                    .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn record_audit(&self, tenant: &TenantId, entry: AuditEntry) -> Result<AuditRecord, StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
                // Everything waiting comes first, so that an export's own entry closes what it exports.
                loop {
                    let (_, sealed) = seal_in(&mut tx, tenant, SEAL_BATCH, None).await?;
                    if sealed < u64::from(SEAL_BATCH) {
                        break;
                    }
                }
                let (record, _) = seal_in(&mut tx, tenant, 0, Some(entry)).await?;
                tx.commit().await?;
                record.ok_or(StoreError::NotFound)
            }

            async fn seal_audit(&self, tenant: Option<&TenantId>) -> Result<u64, StoreError> {
                let tenants: Vec<String> = match tenant {
                    Some(tenant) => vec![tenant.as_str().to_owned()],
                    None => sqlx::query_scalar("select distinct tenant from audit_pending").fetch_all(&self.pool).await?,
                };
                let mut total = 0;
                for tenant in tenants {
                    let tenant = TenantId::parse(&tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                    loop {
                        let mut tx = $begin(self).await?;
                        sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
                        let (_, sealed) = seal_in(&mut tx, &tenant, SEAL_BATCH, None).await?;
                        tx.commit().await?;
                        total += sealed;
                        if sealed < u64::from(SEAL_BATCH) {
                            break;
                        }
                    }
                }
                Ok(total)
            }

            async fn add_approval_rule(
                &self,
                tenant: &TenantId,
                rule: ApprovalRuleRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
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
                delete_audited(self, tenant, "delete from approval_rules where tenant = $1 and id = $2", id, audit).await
            }

            async fn set_provider_connection(
                &self,
                connection: ProviderConnectionRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let tenant = &connection.tenant;
                let mut tx = begin_write_creating(self, &tenant, connection.updated_at).await?;
                sqlx::query(&format!(
                    "insert into provider_connections ({PROVIDER_CONNECTION_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                     on conflict (tenant, name) do update set kind = excluded.kind, base_url = excluded.base_url, \
                     sealed_secret = excluded.sealed_secret, secret_last4 = excluded.secret_last4, \
                     updated_by = excluded.updated_by, updated_at_us = excluded.updated_at_us, \
                     account = excluded.account, key_retention_s = excluded.key_retention_s, \
                     description = excluded.description"
                ))
                .bind(tenant.as_str())
                .bind(&connection.name)
                .bind(connection.kind.as_str())
                .bind(&connection.base_url)
                .bind(&connection.sealed_secret)
                .bind(&connection.secret_last4)
                .bind(&connection.updated_by)
                .bind(micros(connection.updated_at))
                .bind(&connection.account)
                .bind(connection.key_retention.map(|retention| retention.num_seconds()))
                .bind(&connection.description)
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn set_provider_webhook_secret(
                &self,
                tenant: &TenantId,
                name: &str,
                sealed_secret: &str,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let updated = sqlx::query(
                    "update provider_connections set sealed_webhook_secret = $1 where tenant = $2 and name = $3",
                )
                .bind(sealed_secret)
                .bind(tenant.as_str())
                .bind(name)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if updated == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn receive_provider_event(&self, event: NewProviderEvent) -> Result<EventReceipt, StoreError> {
                let mut tx = $begin(self).await?;
                let inserted = sqlx::query(
                    "insert into provider_events (tenant, connection, event_id, event_type, object_id, payload, received_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7) on conflict (tenant, connection, event_id) do nothing",
                )
                .bind(event.tenant.as_str())
                .bind(&event.connection)
                .bind(&event.event_id)
                .bind(&event.event_type)
                .bind(&event.object_id)
                .bind(&event.payload)
                .bind(micros(event.received_at))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                let receipt = if inserted == 1 {
                    EventReceipt::New
                } else {
                    let outcome: Option<String> = sqlx::query_scalar(
                        "select outcome from provider_events where tenant = $1 and connection = $2 and event_id = $3",
                    )
                    .bind(event.tenant.as_str())
                    .bind(&event.connection)
                    .bind(&event.event_id)
                    .fetch_one(&mut *tx)
                    .await?;
                    match outcome {
                        Some(outcome) => EventReceipt::Processed { outcome },
                        None => EventReceipt::Unfinished,
                    }
                };
                tx.commit().await?;
                Ok(receipt)
            }

            async fn finish_provider_event(
                &self,
                tenant: &TenantId,
                connection: &str,
                event_id: &str,
                outcome: &str,
                op_id: Option<&OpId>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "update provider_events set outcome = $1, op_id = $2 where tenant = $3 and connection = $4 and event_id = $5",
                )
                .bind(outcome)
                .bind(op_id.map(OpId::as_str))
                .bind(tenant.as_str())
                .bind(connection)
                .bind(event_id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn set_email_template(&self, record: EmailTemplateRecord, audit: AuditEntry) -> Result<(), StoreError> {
                let tenant = &record.tenant;
                let mut tx = begin_write_creating(self, &tenant, record.updated_at).await?;
                sqlx::query(
                    "insert into email_templates (tenant, name, subject, body, updated_by, updated_at_us) values ($1, $2, $3, $4, $5, $6) \
                     on conflict (tenant, name) do update set subject = excluded.subject, body = excluded.body, \
                     updated_by = excluded.updated_by, updated_at_us = excluded.updated_at_us",
                )
                .bind(tenant.as_str())
                .bind(&record.template.name)
                .bind(&record.template.subject)
                .bind(&record.template.body)
                .bind(&record.updated_by)
                .bind(micros(record.updated_at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_email_template(&self, tenant: &TenantId, name: &str, audit: AuditEntry) -> Result<(), StoreError> {
                delete_audited(self, tenant, "delete from email_templates where tenant = $1 and name = $2", name, audit).await
            }

            async fn remove_provider_connection(&self, tenant: &TenantId, name: &str, audit: AuditEntry) -> Result<(), StoreError> {
                delete_audited(self, tenant, "delete from provider_connections where tenant = $1 and name = $2", name, audit).await
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
                    .execute(&self.writes)
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
                    .execute(&self.writes)
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
                    .execute(&self.writes)
                    .await?,
                    None => sqlx::query("delete from console_requests where tenant = $1 and request_key = $2")
                        .bind(tenant.as_str())
                        .bind(key)
                        .execute(&self.writes)
                        .await?,
                };
                Ok(())
            }

            async fn create_bulk_run(&self, run: NewBulkRun, audit: AuditEntry) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
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

            async fn record_bulk_item(
                &self,
                tenant: &TenantId,
                run_id: &str,
                position: u32,
                outcome: &str,
                message: &str,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "update bulk_items set outcome = $1, message = $2 where tenant = $3 and run_id = $4 and position = $5",
                )
                .bind(outcome)
                .bind(message)
                .bind(tenant.as_str())
                .bind(run_id)
                .bind(i64::from(position))
                .execute(&mut *tx)
                .await?;
                sqlx::query("update bulk_runs set progressed_at_us = $1 where tenant = $2 and id = $3")
                    .bind(micros(at))
                    .bind(tenant.as_str())
                    .bind(run_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn lease_stalled_bulk_runs(
                &self,
                idle_before: chrono::DateTime<chrono::Utc>,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<(TenantId, String)>, StoreError> {
                let due = "finished_at_us is null and coalesce(progressed_at_us, created_at_us) <= $2";
                lease(self, ("bulk_runs", "id", "created_at_us"), due, idle_before, now, lease_until, limit).await
            }

            async fn renew_leases(
                &self,
                rows: LeasedRows,
                keys: &[(TenantId, String)],
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                let renew = match rows {
                    LeasedRows::Operations => "update operations set lease_until_us = $1 where tenant = $2 and op_id = $3 and lease_until_us > $4",
                    LeasedRows::BulkRuns => "update bulk_runs set lease_until_us = $1 where tenant = $2 and id = $3 and lease_until_us > $4",
                };
                for (tenant, key) in keys {
                    sqlx::query(renew)
                        .bind(micros(lease_until))
                        .bind(tenant.as_str())
                        .bind(key)
                        .bind(micros(now))
                        .execute(&self.writes)
                        .await?;
                }
                Ok(())
            }

            async fn add_webhook_endpoint(&self, endpoint: WebhookEndpointRecord, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = begin_write_creating(self, &endpoint.tenant, endpoint.created_at).await?;
                sqlx::query(&format!(
                    "insert into webhook_endpoints ({WEBHOOK_ENDPOINT_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7)"
                ))
                .bind(endpoint.tenant.as_str())
                .bind(&endpoint.id)
                .bind(&endpoint.url)
                .bind($crate::domain::webhook::stored_event_types(&endpoint.event_types))
                .bind(&endpoint.sealed_secret)
                .bind(&endpoint.created_by)
                .bind(micros(endpoint.created_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, "a webhook endpoint with this id exists already"))?;
                append_audit(&mut tx, &endpoint.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_webhook_endpoint(&self, tenant: &TenantId, id: &str, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query("delete from webhook_deliveries where tenant = $1 and endpoint_id = $2")
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                let removed = sqlx::query("delete from webhook_endpoints where tenant = $1 and id = $2")
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

            async fn lease_due_webhook_deliveries(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<(TenantId, String)>, StoreError> {
                let due = concat!(
                    "status = 'pending' and next_attempt_at_us <= $2 and not exists (",
                    "select 1 from webhook_deliveries p where p.tenant = o.tenant and p.endpoint_id = o.endpoint_id ",
                    "and p.stream = o.stream and p.status = 'pending' and p.position < o.position)"
                );
                lease(self, ("webhook_deliveries", "id", "next_attempt_at_us, created_at_us"), due, now, now, lease_until, limit).await
            }

            async fn record_delivery_attempt(&self, tenant: &TenantId, id: &str, attempt: DeliveryAttempt) -> Result<(), StoreError> {
                let status = match (attempt.delivered, attempt.next_attempt_at) {
                    (true, _) => DeliveryStatus::Delivered,
                    (false, Some(_)) => DeliveryStatus::Pending,
                    (false, None) => DeliveryStatus::Failed,
                };
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "update webhook_deliveries set status = $1, attempts = attempts + 1, last_attempt_at_us = $2, \
                     last_status = $3, last_error = $4, next_attempt_at_us = $5, lease_until_us = null \
                     where tenant = $6 and id = $7 and lease_until_us = $8",
                )
                .bind(status.as_str())
                .bind(micros(attempt.at))
                .bind(attempt.http_status.map(i32::from))
                .bind(attempt.error)
                .bind(micros(attempt.next_attempt_at.unwrap_or(attempt.at)))
                .bind(tenant.as_str())
                .bind(id)
                .bind(micros(attempt.leased_until))
                .execute(&mut *tx)
                .await?;
                if status == DeliveryStatus::Failed {
                    let endpoint: Option<(String,)> =
                        sqlx::query_as("select endpoint_id from webhook_deliveries where tenant = $1 and id = $2")
                            .bind(tenant.as_str())
                            .bind(id)
                            .fetch_optional(&mut *tx)
                            .await?;
                    if let Some((endpoint,)) = endpoint {
                        let event = $crate::domain::notification::NotifyEvent::ConnectionFailing;
                        let hour = hour_of(micros(attempt.at));
                        let subject = format!("webhook:{endpoint}");
                        let watch = watch_insert(tenant.as_str(), &subject, event, "", hour);
                        execute_all(&mut tx, vec![watch]).await?;
                    }
                }
                tx.commit().await?;
                Ok(())
            }

            async fn resend_webhook_delivery(&self, tenant: &TenantId, id: &str, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let status: Option<(String,)> =
                    sqlx::query_as("select status from webhook_deliveries where tenant = $1 and id = $2")
                        .bind(tenant.as_str())
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await?;
                match status {
                    None => return Err(StoreError::NotFound),
                    Some((status,)) if status == DeliveryStatus::Pending.as_str() => {
                        return Err(StoreError::Conflict("it is still being sent".into()))
                    }
                    Some(_) => {}
                }
                sqlx::query(
                    "update webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at_us = $1, \
                     lease_until_us = null where tenant = $2 and id = $3",
                )
                .bind(micros(audit.at))
                .bind(tenant.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn finish_bulk_run(&self, tenant: &TenantId, id: &str, at: chrono::DateTime<chrono::Utc>) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let finished = sqlx::query(
                    "update bulk_runs set finished_at_us = $1 where tenant = $2 and id = $3 and finished_at_us is null",
                )
                .bind(micros(at))
                .bind(tenant.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if finished > 0 {
                    let event = $crate::domain::notification::NotifyEvent::BulkRunFinished;
                    let watch = watch_insert(tenant.as_str(), &format!("bulk:{id}"), event, "", micros(at));
                    execute_all(&mut tx, vec![watch]).await?;
                }
                tx.commit().await?;
                Ok(())
            }
        }
    };
}

pub(super) use store_writes;
