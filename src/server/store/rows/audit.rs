//! The audit chain's rows: entries waiting for the sealer and sealed ones, an operation's trail
//! (both together), the inserts of each, and the filtered pages of the chain (also as JSON Lines).

use super::{corrupt, micros, time};
use crate::domain::{
    audit::{AuditEntry, AuditRecord, TrailEvent},
    ids::TenantId,
};
use crate::server::store::query::{Opening, QueryText, SqlValue};
use crate::server::store::records::AuditQuery;
use crate::server::store::StoreError;

pub(in crate::server::store) const AUDIT_COLUMNS: &str =
    "tenant, seq, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, prev_hash, hash";

/// An operation's trail: its sealed events in chain order, then those waiting for the sealer in the
/// order they were recorded (`$1` tenant, `$2` op id).
pub(in crate::server::store) static TRAIL_QUERY: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| trails_where("$1", "= $2"));

/// [`TRAIL_QUERY`] for the operations `op_ids` at once, grouped by op id.
pub(in crate::server::store) fn trails_of(tenant: &TenantId, op_ids: &[String]) -> QueryText {
    let mut text = QueryText::new("");
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let list: Vec<String> = op_ids.iter().map(|op_id| text.param(SqlValue::Text(op_id.clone()))).collect();
    text.push(&trails_where(&tenant, &format!("in ({})", list.join(", "))));
    text
}

fn trails_where(tenant: &str, op_ids: &str) -> String {
    format!(
        "select at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, \
         seq, hash, 0 as waiting, seq as place from audit_events where tenant = {tenant} and op_id {op_ids} \
         union all \
         select at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, \
         cast(null as bigint), cast(null as text), 1, id from audit_pending where tenant = {tenant} and op_id {op_ids} \
         order by op_id, waiting, place"
    )
}

/// The columns every stored audit entry has, whatever table holds it.
#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct EntryColumns {
    at_us: i64,
    actor: String,
    role: String,
    action: String,
    op_id: Option<String>,
    from_state: Option<String>,
    to_state: Option<String>,
    reason: Option<String>,
    evidence: String,
}

impl EntryColumns {
    fn into_entry(self, tenant: String) -> Result<AuditEntry, StoreError> {
        Ok(AuditEntry {
            at: time(self.at_us)?,
            tenant,
            actor: self.actor,
            role: self.role,
            action: self.action,
            op_id: self.op_id,
            from_state: self.from_state,
            to_state: self.to_state,
            reason: self.reason,
            evidence: serde_json::from_str(&self.evidence).map_err(|e| corrupt("evidence")(e.to_string()))?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct TrailRow {
    #[sqlx(flatten)]
    entry: EntryColumns,
    seq: Option<i64>,
    hash: Option<String>,
}

impl TrailRow {
    pub(in crate::server::store) fn into_event(self, tenant: &str) -> Result<TrailEvent, StoreError> {
        Ok(TrailEvent {
            seq: self
                .seq
                .map(|seq| u64::try_from(seq).map_err(|e| corrupt("audit seq")(e.to_string())))
                .transpose()?,
            entry: self.entry.into_entry(tenant.to_owned())?,
            hash: self.hash,
        })
    }
}

/// The columns of an entry waiting for the sealer, in `audit_pending`.
pub(in crate::server::store) const PENDING_COLUMNS: &str =
    "id, tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence";

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct PendingRow {
    pub(in crate::server::store) id: i64,
    tenant: String,
    #[sqlx(flatten)]
    entry: EntryColumns,
}

impl PendingRow {
    pub(in crate::server::store) fn into_entry(self) -> Result<AuditEntry, StoreError> {
        self.entry.into_entry(self.tenant)
    }
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct AuditRow {
    tenant: String,
    seq: i64,
    #[sqlx(flatten)]
    entry: EntryColumns,
    prev_hash: String,
    hash: String,
}

impl AuditRow {
    pub(in crate::server::store) fn into_record(self) -> Result<AuditRecord, StoreError> {
        Ok(AuditRecord {
            seq: u64::try_from(self.seq).map_err(|e| corrupt("audit seq")(e.to_string()))?,
            entry: self.entry.into_entry(self.tenant)?,
            prev_hash: self.prev_hash,
            hash: self.hash,
        })
    }
}

/// The values of an audit entry's columns that follow its tenant, in the order both audit tables
/// name them: at_us, actor, role, action, op_id, from_state, to_state, reason, evidence.
fn entry_values(entry: &AuditEntry) -> [SqlValue; 9] {
    [
        SqlValue::Int(micros(entry.at)),
        SqlValue::Text(entry.actor.clone()),
        SqlValue::Text(entry.role.clone()),
        SqlValue::Text(entry.action.clone()),
        SqlValue::MaybeText(entry.op_id.clone()),
        SqlValue::MaybeText(entry.from_state.clone()),
        SqlValue::MaybeText(entry.to_state.clone()),
        SqlValue::MaybeText(entry.reason.clone()),
        SqlValue::Text(entry.evidence.to_string()),
    ]
}

/// `insert into {into} values …` with one row for each of `rows`: the tenant's id (one parameter
/// that every row shares), then the row's values.
fn tenant_rows_insert(
    into: &str,
    tenant: &TenantId,
    rows: impl IntoIterator<Item = Vec<SqlValue>>,
) -> QueryText {
    let mut text = QueryText::new(&format!("insert into {into} values "));
    let start = text.sql.len() - "values ".len();
    let tenant_param = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    for (i, values) in rows.into_iter().enumerate() {
        let placeholders: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
        let separator = if i == 0 { "" } else { ", " };
        text.push(&format!("{separator}({tenant_param}, {})", placeholders.join(", ")));
    }
    text.rows_from(start)
}

/// Records `entries` for the sealer in this order: one insert of all of them.
pub(in crate::server::store) fn audit_pending_insert(
    tenant: &TenantId,
    entries: &[AuditEntry],
) -> Option<QueryText> {
    if entries.is_empty() {
        return None;
    }
    Some(tenant_rows_insert(
        "audit_pending (tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence)",
        tenant,
        entries.iter().map(|entry| Vec::from(entry_values(entry))),
    ))
}

/// The most sealed entries one insert into `audit_events` carries: 12 parameters each, well
/// within both engines' limit on a statement's parameters.
pub(in crate::server::store) const SEALED_PER_INSERT: usize = 500;

/// Adds `records`, sealed in this order, to the tenant's chain: one insert of all of them
/// (at most [`SEALED_PER_INSERT`]).
pub(in crate::server::store) fn audit_events_insert(tenant: &TenantId, records: &[AuditRecord]) -> QueryText {
    let rows = records.iter().map(|record| {
        let mut values = vec![SqlValue::Int(record.seq as i64)];
        values.extend(entry_values(&record.entry));
        values.extend([SqlValue::Text(record.prev_hash.clone()), SqlValue::Text(record.hash.clone())]);
        values
    });
    tenant_rows_insert(&format!("audit_events ({AUDIT_COLUMNS})"), tenant, rows)
}

/// One page of audit events for `query`, by `seq` in the direction it asks.
pub(in crate::server::store) fn audit_query(tenant: &TenantId, query: &AuditQuery) -> QueryText {
    let mut text = QueryText::new(&format!("select {AUDIT_COLUMNS} from audit_events where tenant = "));
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    text.push(&tenant);
    for (column, value) in [("actor", &query.actor), ("op_id", &query.op_id)] {
        if let Some(value) = value {
            let p = text.param(SqlValue::Text(value.clone()));
            text.push(&format!(" and {column} = {p}"));
        }
    }
    if !query.actions.is_empty() {
        let actions: Vec<String> =
            query.actions.iter().map(|action| text.param(SqlValue::Text(action.clone()))).collect();
        text.push(&format!(" and action in ({})", actions.join(", ")));
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

/// [`audit_query`]'s page as JSON Lines written by SQLite (its `json_object` and `string_agg`), each
/// line as `serde_json` writes an [`AuditRecord`]: the same keys in the same order, the time in
/// RFC 3339 with microseconds, the evidence as the JSON it is stored as. SQLite alone.
pub(in crate::server::store) fn audit_json_lines_query(tenant: &TenantId, query: &AuditQuery) -> QueryText {
    let page = audit_query(tenant, query);
    let line = "json_object('seq', seq, 'at', strftime('%Y-%m-%dT%H:%M:%S', at_us / 1000000, 'unixepoch') || '.' || \
        printf('%06d', at_us % 1000000) || 'Z', 'tenant', tenant, 'actor', actor, 'role', role, 'action', action, \
        'op_id', op_id, 'from_state', from_state, 'to_state', to_state, 'reason', reason, 'evidence', json(evidence), \
        'prev_hash', prev_hash, 'hash', hash)";
    QueryText {
        sql: format!(
            "select string_agg({line}, char(10) order by seq), max(seq) from ({}) as page",
            page.sql
        ),
        values: page.values,
        name: None,
        opening: Opening::None,
    }
}
