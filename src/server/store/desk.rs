//! What the support desk keeps, on both engines: who holds which item (an operation, or an order),
//! since when and by whose assignment; the items' internal notes, every version of each; and the
//! saved views of the operations list. A change of holding is made only from the holding it was
//! decided on, so that of two people claiming one item at once, one wins and the other is told
//! who holds it; a note's version is written once, with the notifications of its mentions in the
//! same transaction.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::notify::NewNotifyDelivery;
use super::StoreError;
use crate::domain::audit::AuditEntry;
use crate::domain::desk::{Holder, Item};
use crate::domain::ids::TenantId;

/// Who holds one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRecord {
    pub item: Item,
    pub holder: Holder,
    /// The manager who assigned it; `None` when the holder claimed it.
    pub assigned_by: Option<String>,
    pub held_since: DateTime<Utc>,
}

/// A change of one item's holding, made only if the item is held as `expected` says (by that
/// user id, or by nobody).
#[derive(Debug, Clone)]
pub struct HoldingChange {
    pub tenant: TenantId,
    pub item: Item,
    pub expected: Option<String>,
    /// The holding after it: the holder and who assigned it, or nobody.
    pub next: Option<(Holder, Option<String>)>,
    pub at: DateTime<Utc>,
}

/// One version of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteRecord {
    pub note_id: String,
    /// 1 for the note as first written, then one more for each edit.
    pub version: u32,
    pub item: Item,
    pub body: String,
    pub author_id: String,
    pub author: String,
    /// The names of the people it mentions.
    pub mentions: Vec<String>,
    pub at: DateTime<Utc>,
}

/// A saved view of the operations list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewRecord {
    pub id: String,
    /// Its maker's user id for a personal view; empty for one shared with the tenant.
    pub scope: String,
    pub name: String,
    /// The list's URL query.
    pub filter: String,
    /// The role whose default it is (shared views only).
    pub default_for: Option<crate::domain::policy::Role>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

#[async_trait]
pub trait DeskStore: Send + Sync {
    /// Who holds each of `items` that someone holds.
    async fn holders_of(&self, tenant: &TenantId, items: &[Item]) -> Result<Vec<ClaimRecord>, StoreError>;

    /// Every item the tenant's people hold, the longest held first.
    async fn tenant_claims(&self, tenant: &TenantId) -> Result<Vec<ClaimRecord>, StoreError>;

    /// Makes `change` with its audit entry when the item is still held as it expects; whether it
    /// was.
    async fn change_holding(&self, change: HoldingChange, audit: AuditEntry) -> Result<bool, StoreError>;

    /// The views the person with `user_id` sees: their own and the tenant's shared ones, by name.
    async fn saved_views(&self, tenant: &TenantId, user_id: &str) -> Result<Vec<ViewRecord>, StoreError>;

    /// Keeps `view` with its audit entry, making it the only default of its role when it is one;
    /// `Conflict` when its scope has a view of that name.
    async fn save_view(&self, tenant: &TenantId, view: ViewRecord, audit: AuditEntry) -> Result<(), StoreError>;

    /// Removes the view `id` if its scope is one of `scopes`, with its audit entry; `NotFound` when
    /// there is no such view.
    async fn remove_view(&self, tenant: &TenantId, id: &str, scopes: &[String], audit: AuditEntry) -> Result<(), StoreError>;

    /// Every version of the notes on `item`, by note (the first written first), then version.
    async fn notes_of(&self, tenant: &TenantId, item: &Item) -> Result<Vec<NoteRecord>, StoreError>;

    /// Every version of the note `note_id`, the first first.
    async fn note_versions(&self, tenant: &TenantId, note_id: &str) -> Result<Vec<NoteRecord>, StoreError>;

    /// Writes `note` (a new note, or the next version of one) with the notifications of its
    /// mentions and its audit entry; `false`, writing nothing, when that version exists already.
    async fn add_note_version(
        &self,
        tenant: &TenantId,
        note: NoteRecord,
        deliveries: Vec<NewNotifyDelivery>,
        audit: AuditEntry,
    ) -> Result<bool, StoreError>;
}

/// A stored row of `claims`.
#[derive(sqlx::FromRow)]
pub(super) struct ClaimRow {
    pub item_kind: String,
    pub item_id: String,
    pub holder_id: String,
    pub holder_name: String,
    pub assigned_by: Option<String>,
    pub held_since_us: i64,
}

pub(super) const CLAIM_COLUMNS: &str = "item_kind, item_id, holder_id, holder_name, assigned_by, held_since_us";

impl ClaimRow {
    pub(super) fn into_record(self) -> Result<ClaimRecord, StoreError> {
        Ok(ClaimRecord {
            item: Item::parse(&self.item_kind, &self.item_id)
                .ok_or_else(|| StoreError::Corrupt(format!("claim of {} {}", self.item_kind, self.item_id)))?,
            holder: Holder { user_id: self.holder_id, name: self.holder_name },
            assigned_by: self.assigned_by,
            held_since: DateTime::from_timestamp_micros(self.held_since_us)
                .ok_or_else(|| StoreError::Corrupt(format!("held_since_us: {}", self.held_since_us)))?,
        })
    }
}

/// A stored row of `saved_views`.
#[derive(sqlx::FromRow)]
pub(super) struct ViewRow {
    pub id: String,
    pub scope: String,
    pub name: String,
    pub filter: String,
    pub default_for: Option<String>,
    pub created_by: String,
    pub created_at_us: i64,
}

pub(super) const VIEW_COLUMNS: &str = "id, scope, name, filter, default_for, created_by, created_at_us";

impl ViewRow {
    pub(super) fn into_record(self) -> Result<ViewRecord, StoreError> {
        let default_for = match self.default_for.as_deref() {
            None => None,
            Some(role) => Some(
                crate::domain::policy::Role::parse(role)
                    .ok_or_else(|| StoreError::Corrupt(format!("view {} default_for {role}", self.id)))?,
            ),
        };
        Ok(ViewRecord {
            created_at: DateTime::from_timestamp_micros(self.created_at_us)
                .ok_or_else(|| StoreError::Corrupt(format!("view {} created_at_us", self.id)))?,
            id: self.id,
            scope: self.scope,
            name: self.name,
            filter: self.filter,
            default_for,
            created_by: self.created_by,
        })
    }
}

/// A stored row of `notes`.
#[derive(sqlx::FromRow)]
pub(super) struct NoteRow {
    pub note_id: String,
    pub version: i32,
    pub item_kind: String,
    pub item_id: String,
    pub body: String,
    pub author_id: String,
    pub author: String,
    pub mentions: String,
    pub at_us: i64,
}

pub(super) const NOTE_COLUMNS: &str = "note_id, version, item_kind, item_id, body, author_id, author, mentions, at_us";

impl NoteRow {
    pub(super) fn into_record(self) -> Result<NoteRecord, StoreError> {
        let corrupt = |what: &str| StoreError::Corrupt(format!("note {} {what}", self.note_id));
        Ok(NoteRecord {
            item: Item::parse(&self.item_kind, &self.item_id).ok_or_else(|| corrupt("item"))?,
            version: u32::try_from(self.version).map_err(|_| corrupt("version"))?,
            mentions: serde_json::from_str(&self.mentions).map_err(|_| corrupt("mentions"))?,
            at: DateTime::from_timestamp_micros(self.at_us).ok_or_else(|| corrupt("at_us"))?,
            note_id: self.note_id,
            body: self.body,
            author_id: self.author_id,
            author: self.author,
        })
    }
}

/// Writes the [`DeskStore`] implementation for one engine, inside [`super::sql::sql_store!`].
macro_rules! store_desk {
    ($store:ty, $db:ty, $begin:path) => {
        #[async_trait::async_trait]
        impl $crate::server::store::desk::DeskStore for $store {
            async fn holders_of(
                &self,
                tenant: &TenantId,
                items: &[$crate::domain::desk::Item],
            ) -> Result<Vec<$crate::server::store::desk::ClaimRecord>, StoreError> {
                use $crate::server::store::desk::{ClaimRow, CLAIM_COLUMNS};
                let mut records = Vec::new();
                for kind in ["operation", "order"] {
                    let ids: Vec<String> =
                        items.iter().filter(|item| item.kind() == kind).map(|item| item.id().to_owned()).collect();
                    for chunk in ids.chunks(200) {
                        let mut text = QueryText::new(&format!("select {CLAIM_COLUMNS} from claims where tenant = "));
                        let t = text.param(SqlValue::Text(tenant.as_str().to_owned()));
                        let k = text.param(SqlValue::Text(kind.to_owned()));
                        text.push(&format!("{t} and item_kind = {k} and item_id in ("));
                        for (at, id) in chunk.iter().enumerate() {
                            let p = text.param(SqlValue::Text(id.clone()));
                            text.push(&if at == 0 { p } else { format!(", {p}") });
                        }
                        text.push(")");
                        let rows: Vec<ClaimRow> =
                            sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                        for row in rows {
                            records.push(row.into_record()?);
                        }
                    }
                }
                Ok(records)
            }

            async fn tenant_claims(
                &self,
                tenant: &TenantId,
            ) -> Result<Vec<$crate::server::store::desk::ClaimRecord>, StoreError> {
                use $crate::server::store::desk::{ClaimRow, CLAIM_COLUMNS};
                let rows: Vec<ClaimRow> = sqlx::query_as(&format!(
                    "select {CLAIM_COLUMNS} from claims where tenant = $1 order by held_since_us, item_kind, item_id"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(|row| row.into_record()).collect()
            }

            async fn change_holding(
                &self,
                change: $crate::server::store::desk::HoldingChange,
                audit: AuditEntry,
            ) -> Result<bool, StoreError> {
                let tenant = &change.tenant;
                let (kind, id) = (change.item.kind(), change.item.id());
                let mut tx = $begin(self).await?;
                let changed = match (&change.expected, &change.next) {
                    (None, None) => 0,
                    (None, Some((holder, assigned_by))) => sqlx::query(
                        "insert into claims (tenant, item_kind, item_id, holder_id, holder_name, assigned_by, held_since_us) \
                         values ($1, $2, $3, $4, $5, $6, $7) on conflict (tenant, item_kind, item_id) do nothing",
                    )
                    .bind(tenant.as_str())
                    .bind(kind)
                    .bind(id)
                    .bind(&holder.user_id)
                    .bind(&holder.name)
                    .bind(assigned_by)
                    .bind(micros(change.at))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected(),
                    (Some(expected), Some((holder, assigned_by))) => sqlx::query(
                        "update claims set holder_id = $1, holder_name = $2, assigned_by = $3, held_since_us = $4 \
                         where tenant = $5 and item_kind = $6 and item_id = $7 and holder_id = $8",
                    )
                    .bind(&holder.user_id)
                    .bind(&holder.name)
                    .bind(assigned_by)
                    .bind(micros(change.at))
                    .bind(tenant.as_str())
                    .bind(kind)
                    .bind(id)
                    .bind(expected)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected(),
                    (Some(expected), None) => sqlx::query(
                        "delete from claims where tenant = $1 and item_kind = $2 and item_id = $3 and holder_id = $4",
                    )
                    .bind(tenant.as_str())
                    .bind(kind)
                    .bind(id)
                    .bind(expected)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected(),
                };
                if changed != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn saved_views(
                &self,
                tenant: &TenantId,
                user_id: &str,
            ) -> Result<Vec<$crate::server::store::desk::ViewRecord>, StoreError> {
                use $crate::server::store::desk::{ViewRow, VIEW_COLUMNS};
                let rows: Vec<ViewRow> = sqlx::query_as(&format!(
                    "select {VIEW_COLUMNS} from saved_views where tenant = $1 and scope in ('', $2) order by name, id"
                ))
                .bind(tenant.as_str())
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(|row| row.into_record()).collect()
            }

            async fn save_view(
                &self,
                tenant: &TenantId,
                view: $crate::server::store::desk::ViewRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                if let Some(role) = view.default_for {
                    sqlx::query("update saved_views set default_for = null where tenant = $1 and default_for = $2")
                        .bind(tenant.as_str())
                        .bind(role.as_str())
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query(
                    "insert into saved_views (tenant, id, scope, name, filter, default_for, created_by, created_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(tenant.as_str())
                .bind(&view.id)
                .bind(&view.scope)
                .bind(&view.name)
                .bind(&view.filter)
                .bind(view.default_for.map(|role| role.as_str()))
                .bind(&view.created_by)
                .bind(micros(view.created_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, &format!("a view named {} exists already", view.name)))?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_view(
                &self,
                tenant: &TenantId,
                id: &str,
                scopes: &[String],
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let scope: Option<(String,)> = sqlx::query_as("select scope from saved_views where tenant = $1 and id = $2")
                    .bind(tenant.as_str())
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
                if !scope.is_some_and(|(scope,)| scopes.contains(&scope)) {
                    return Err(StoreError::NotFound);
                }
                sqlx::query("delete from saved_views where tenant = $1 and id = $2")
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn notes_of(
                &self,
                tenant: &TenantId,
                item: &$crate::domain::desk::Item,
            ) -> Result<Vec<$crate::server::store::desk::NoteRecord>, StoreError> {
                use $crate::server::store::desk::{NoteRow, NOTE_COLUMNS};
                let rows: Vec<NoteRow> = sqlx::query_as(&format!(
                    "select {NOTE_COLUMNS} from notes where tenant = $1 and item_kind = $2 and item_id = $3"
                ))
                .bind(tenant.as_str())
                .bind(item.kind())
                .bind(item.id())
                .fetch_all(&self.pool)
                .await?;
                let mut notes = rows.into_iter().map(|row| row.into_record()).collect::<Result<Vec<_>, _>>()?;
                // A note's place is when its first version was written.
                let mut firsts: std::collections::HashMap<String, chrono::DateTime<chrono::Utc>> =
                    std::collections::HashMap::new();
                for note in &notes {
                    let first = firsts.entry(note.note_id.clone()).or_insert(note.at);
                    *first = (*first).min(note.at);
                }
                notes.sort_by(|a, b| {
                    (firsts.get(&a.note_id), &a.note_id, a.version).cmp(&(firsts.get(&b.note_id), &b.note_id, b.version))
                });
                Ok(notes)
            }

            async fn note_versions(
                &self,
                tenant: &TenantId,
                note_id: &str,
            ) -> Result<Vec<$crate::server::store::desk::NoteRecord>, StoreError> {
                use $crate::server::store::desk::{NoteRow, NOTE_COLUMNS};
                let rows: Vec<NoteRow> = sqlx::query_as(&format!(
                    "select {NOTE_COLUMNS} from notes where tenant = $1 and note_id = $2 order by version"
                ))
                .bind(tenant.as_str())
                .bind(note_id)
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(|row| row.into_record()).collect()
            }

            async fn add_note_version(
                &self,
                tenant: &TenantId,
                note: $crate::server::store::desk::NoteRecord,
                deliveries: Vec<$crate::server::store::notify::NewNotifyDelivery>,
                audit: AuditEntry,
            ) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
                let written = sqlx::query(
                    "insert into notes (tenant, note_id, version, item_kind, item_id, body, author_id, author, mentions, at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (tenant, note_id, version) do nothing",
                )
                .bind(tenant.as_str())
                .bind(&note.note_id)
                .bind(i32::try_from(note.version).unwrap_or(i32::MAX))
                .bind(note.item.kind())
                .bind(note.item.id())
                .bind(&note.body)
                .bind(&note.author_id)
                .bind(&note.author)
                .bind(serde_json::to_string(&note.mentions).unwrap_or_else(|_| "[]".into()))
                .bind(micros(note.at))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if written != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                insert_notify_deliveries(&mut tx, tenant.as_str(), deliveries, micros(note.at)).await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(true)
            }
        }
    };
}

pub(super) use store_desk;
