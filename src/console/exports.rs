//! Exports of the audit trail and the operations list, for the filters of their pages:
//! `/audit/export.csv`, `/audit/export.jsonl`, `/operations/export.csv`, `/operations/export.jsonl`.
//! Each is streamed from the database a page at a time by keyset (the server holds one page, never
//! the whole result), UTF-8, with a file name that says the tenant and the range. CSV is RFC 4180
//! and cells that a spreadsheet would run as a formula are neutralised with a leading `'`; the
//! audit's JSON Lines carry each event's `prev_hash` and `hash`, so `opledger audit verify` can
//! check them offline. Every export is itself recorded in the audit trail (who exported what).

use axum::{
    body::{Body, Bytes},
    extract::{Extension, Query, State},
    http::header,
    response::{IntoResponse, Response},
};
use futures::stream::{self, Stream, StreamExt};
use serde_json::json;
use std::sync::Arc;
use tower_sessions::Session;

use super::audit::{ssr::audit_query, AuditFilter};
use super::guard::{actor, allowed, status_of, SignedIn};
use super::operations::{ssr::operation_query, OperationFilter};
use super::AppError;
use crate::domain::{
    audit::AuditRecord,
    ids::{OpId, TenantId},
    language::Language,
    operation::AttemptRecord,
    policy::Section,
};
use crate::server::http::listed::ListedRouter;
use crate::server::http::state::AppState;
use crate::server::ledger::retention::RetentionError;
use crate::server::ledger::Ledger;
use crate::server::store::archive::ArchiveRecord;
use crate::server::store::records::{AuditQuery, OperationListItem, OperationQuery};
use crate::server::store::{Reads, StoreError};
use crate::server::telemetry::cause_chain;
use crate::t;

/// Rows read from the database per page of an export.
pub const EXPORT_PAGE: u32 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    JsonLines,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::JsonLines => "jsonl",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::JsonLines => "application/x-ndjson; charset=utf-8",
        }
    }
}

pub fn routes() -> ListedRouter<AppState> {
    ListedRouter::default()
        .get("/audit/export.csv", |s, session, language, q| audit(s, session, language, q, Format::Csv))
        .get("/audit/export.jsonl", |s, session, language, q| {
            audit(s, session, language, q, Format::JsonLines)
        })
        .get("/operations/export.csv", |s, session, q| operations(s, session, q, Format::Csv))
        .get("/operations/export.jsonl", |s, session, q| operations(s, session, q, Format::JsonLines))
}

fn refusal(error: AppError) -> Response {
    let headers = [(header::CONTENT_TYPE, "text/plain; charset=utf-8")];
    (status_of(&error), headers, error.to_string()).into_response()
}

/// `opledger-audit-acme-2026-11-01_to_2026-11-30-filtered.csv`: what, whose, which range.
fn file_name(
    what: &str,
    tenant: &TenantId,
    from: Option<&str>,
    to: Option<&str>,
    filtered: bool,
    format: Format,
) -> String {
    let day = |t: Option<&str>, open: &str| t.map_or(open.to_owned(), |t| t.chars().take(10).collect());
    let range = match (from, to) {
        (None, None) => "all".to_owned(),
        (from, to) => format!("{}_to_{}", day(from, "start"), day(to, "now")),
    };
    let name = format!(
        "opledger-{what}-{tenant}-{range}{}.{}",
        if filtered { "-filtered" } else { "" },
        format.extension()
    );
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

/// Records the export in the audit trail before anything is sent; returns its sequence number.
async fn record_export(
    ledger: &Ledger,
    user: &SignedIn,
    what: &str,
    format: Format,
    filter: &str,
) -> Result<u64, AppError> {
    let evidence = json!({"what": what, "format": format.extension(), "filter": filter});
    let recorded = ledger.record_action(&user.tenant, &actor(user), "export", evidence).await;
    recorded.map(|record| record.seq).map_err(|error| {
        tracing::error!(error = %cause_chain(&error), "could not record an export");
        AppError::Unavailable
    })
}

fn download(
    name: &str,
    format: Format,
    body: impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static,
) -> Response {
    (
        [
            (header::CONTENT_TYPE, format.content_type().to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        // Fused: a layer that reads on after the end (the compression) gets the end again, not a panic.
        Body::from_stream(body.fuse()),
    )
        .into_response()
}

/// A page read failed mid-stream: the download is cut (the client sees an incomplete transfer),
/// and the cause is logged.
fn cut(error: StoreError) -> std::io::Error {
    tracing::error!(error = %cause_chain(&error), "an export stopped: a page could not be read");
    std::io::Error::other("the export stopped")
}

/// What a spreadsheet would run as a formula, made inert with a leading `'`.
pub fn neutralised(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}").into(),
        _ => cell.into(),
    }
}

fn csv_line<'a>(cells: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
    let cells: Vec<std::borrow::Cow<'_, str>> = cells.into_iter().map(neutralised).collect();
    let written = writer.write_record(cells.iter().map(|c| c.as_bytes()));
    written.and_then(|()| writer.into_inner().map_err(|e| e.into_error().into())).unwrap_or_default()
}

const AUDIT_CSV_HEADER: [&str; 13] = [
    "seq",
    "at",
    "tenant",
    "actor",
    "role",
    "action",
    "op_id",
    "from_state",
    "to_state",
    "reason",
    "evidence",
    "prev_hash",
    "hash",
];

fn audit_csv_lines(records: &[AuditRecord]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * 400);
    for record in records {
        let entry = &record.entry;
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let cells = [
            record.seq.to_string(),
            entry.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            entry.tenant.clone(),
            entry.actor.clone(),
            entry.role.clone(),
            entry.action.clone(),
            text(&entry.op_id),
            text(&entry.from_state),
            text(&entry.to_state),
            text(&entry.reason),
            entry.evidence.to_string(),
            record.prev_hash.clone(),
            record.hash.clone(),
        ];
        out.extend(csv_line(cells.iter().map(String::as_str)));
    }
    out
}

/// The audit events of `query` in the sealed segments of the chain the tenant's retention
/// archived, read back from the archive a segment at a time and checked against its manifest.
fn archived_audit(
    ledger: Ledger,
    segments: Vec<ArchiveRecord>,
    query: AuditQuery,
    format: Format,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> {
    stream::iter(segments).then(move |segment| {
        let (ledger, query) = (ledger.clone(), query.clone());
        async move {
            let records = ledger.read_audit_segment(&segment).await.map_err(|error| {
                tracing::error!(error = %cause_chain(&error), "an export stopped: an archived segment could not be read");
                std::io::Error::other("the export stopped")
            })?;
            let records: Vec<AuditRecord> = records.into_iter().filter(|record| query.matches(record)).collect();
            let lines = match format {
                Format::Csv => audit_csv_lines(&records),
                Format::JsonLines => records.iter().fold(Vec::new(), |mut lines, record| {
                    serde_json::to_writer(&mut lines, record).expect("an audit record is plain data");
                    lines.push(b'\n');
                    lines
                }),
            };
            Ok(Bytes::from(lines))
        }
    })
}

/// Checks that every segment of `segments` is in the archive as it was signed, before an export
/// begins: one that is not refuses the export, saying which and why, rather than cutting it.
async fn archived_as_signed(
    ledger: &Ledger,
    segments: &[ArchiveRecord],
    language: Language,
) -> Result<(), AppError> {
    for segment in segments {
        match ledger.read_audit_segment(segment).await {
            Ok(_) => {}
            Err(RetentionError::Untrusted(file)) => {
                let why = file.why.words(language);
                let object = file.object.as_str();
                return Err(AppError::ArchiveUntrusted(t!(
                    language,
                    "archive-untrusted-export",
                    why = why,
                    object = object
                )));
            }
            Err(error) => {
                tracing::error!(error = %cause_chain(&error), "an export did not start: an archived segment could not be read");
                return Err(AppError::Unavailable);
            }
        }
    }
    Ok(())
}

/// The audit events of `query` in the hot table, oldest first, after `archived_to` (the last
/// position sealed in a segment) up to and including `last_seq`, a page at a time.
fn audit_pages(
    store: Arc<dyn Reads>,
    tenant: TenantId,
    query: AuditQuery,
    archived_to: u64,
    last_seq: u64,
    format: Format,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> {
    stream::unfold(Some(archived_to), move |after| {
        let (store, tenant, mut query) = (store.clone(), tenant.clone(), query.clone());
        async move {
            query.after_seq = Some(after?);
            query.before_seq = Some(last_seq + 1);
            query.oldest_first = true;
            query.limit = EXPORT_PAGE;
            let page = match format {
                Format::JsonLines => store.audit_json_lines(&tenant, &query).await,
                Format::Csv => store
                    .list_audit(&tenant, &query)
                    .await
                    .map(|records| records.last().map(|last| (audit_csv_lines(&records), last.seq))),
            };
            match page {
                Ok(None) => None,
                Ok(Some((lines, last))) => Some((Ok(Bytes::from(lines)), Some(last))),
                Err(error) => Some((Err(cut(error)), None)),
            }
        }
    })
}

async fn audit(
    State(state): State<AppState>,
    session: Session,
    Extension(language): Extension<Language>,
    Query(filter): Query<AuditFilter>,
    format: Format,
) -> Response {
    let user = match allowed(&session, Section::Audit).await {
        Ok(user) => user,
        Err(error) => return refusal(error),
    };
    let query = match audit_query(&AuditFilter { before: None, ..filter.clone() }) {
        Ok(query) => query,
        Err(error) => return refusal(error),
    };
    let segments = match state.ledger.audit_segments(&user.tenant).await {
        Ok(segments) => segments,
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "could not list the archived segments of the audit chain");
            return refusal(AppError::Unavailable);
        }
    };
    if let Err(error) = archived_as_signed(&state.ledger, &segments, language).await {
        return refusal(error);
    }
    let store = state.ledger.reads();
    let described = filter.query_string(false);
    let last_seq = match record_export(&state.ledger, &user, "audit", format, &described).await {
        Ok(seq) => seq,
        Err(error) => return refusal(error),
    };
    let name = file_name(
        "audit",
        &user.tenant,
        filter.from.as_deref().filter(|v| !v.is_empty()),
        filter.to.as_deref().filter(|v| !v.is_empty()),
        filter.leaves_events_out(),
        format,
    );
    let header = match format {
        Format::Csv => csv_line(AUDIT_CSV_HEADER),
        Format::JsonLines => Vec::new(),
    };
    let archived_to = segments.last().and_then(|segment| segment.audit_span).map_or(0, |(_, last)| last);
    let archived = archived_audit(
        state.ledger.clone(),
        segments,
        AuditQuery { before_seq: Some(last_seq + 1), ..query.clone() },
        format,
    );
    let body = stream::once(async move { Ok(Bytes::from(header)) }).chain(archived).chain(audit_pages(
        store,
        user.tenant,
        query,
        archived_to,
        last_seq,
        format,
    ));
    download(&name, format, body)
}

const OPERATIONS_CSV_HEADER: [&str; 13] = [
    "op_id",
    "kind",
    "subject",
    "provider",
    "state",
    "amount",
    "currency",
    "compensates",
    "attempts",
    "attempt_outcomes",
    "external_ids",
    "created_at",
    "updated_at",
];

async fn operation_lines(
    store: &dyn Reads,
    tenant: &TenantId,
    items: &[OperationListItem],
    format: Format,
) -> Result<Vec<u8>, StoreError> {
    let ids: Vec<_> = items.iter().map(|item| item.op_id.clone()).collect();
    let mut attempts: std::collections::HashMap<OpId, Vec<AttemptRecord>> = std::collections::HashMap::new();
    for (op_id, attempt) in store.attempts_of(tenant, &ids).await? {
        attempts.entry(op_id).or_default().push(attempt);
    }
    let mut out = Vec::with_capacity(items.len() * 600);
    let time = |at: chrono::DateTime<chrono::Utc>| at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    for item in items {
        let own = attempts.get(&item.op_id).map_or(&[][..], Vec::as_slice);
        match format {
            Format::JsonLines => {
                let line = json!({
                    "op_id": item.op_id, "kind": item.kind, "subject": item.subject, "provider": item.provider,
                    "state": item.state,
                    "amount": item.amount.map(|m| json!({"minor": m.minor, "currency": m.currency})),
                    "compensates": item.compensates,
                    "external_ids": item.external_ids,
                    "attempts": own,
                    "created_at": time(item.created_at), "updated_at": time(item.updated_at),
                });
                serde_json::to_writer(&mut out, &line).expect("operations serialise");
                out.push(b'\n');
            }
            Format::Csv => {
                let outcomes: Vec<String> = own
                    .iter()
                    .map(|a| {
                        format!(
                            "{} {} {}",
                            a.number,
                            a.outcome.as_deref().unwrap_or("open"),
                            time(a.started_at)
                        )
                    })
                    .collect();
                let cells = [
                    item.op_id.to_string(),
                    item.kind.clone(),
                    item.subject.clone(),
                    item.provider.clone(),
                    item.state.as_str().to_owned(),
                    item.amount.map(|m| m.minor.to_string()).unwrap_or_default(),
                    item.amount.map(|m| m.currency.to_string()).unwrap_or_default(),
                    item.compensates.as_ref().map(ToString::to_string).unwrap_or_default(),
                    own.len().to_string(),
                    outcomes.join("; "),
                    item.external_ids.join(" "),
                    time(item.created_at),
                    time(item.updated_at),
                ];
                out.extend(csv_line(cells.iter().map(String::as_str)));
            }
        }
    }
    Ok(out)
}

/// The operations of `query`, newest first, a page at a time, each with its attempts.
fn operation_pages(
    store: Arc<dyn Reads>,
    tenant: TenantId,
    query: OperationQuery,
    format: Format,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> {
    stream::unfold(Some(None), move |cursor| {
        let (store, tenant, mut query) = (store.clone(), tenant.clone(), query.clone());
        async move {
            query.after = cursor?;
            query.limit = EXPORT_PAGE;
            let items = match store.list_operations(&tenant, &query).await {
                Ok(items) if items.is_empty() => return None,
                Ok(items) => items,
                Err(error) => return Some((Err(cut(error)), None)),
            };
            let next = items.last().map(|item| Some((item.created_at, item.op_id.clone())));
            match operation_lines(store.as_ref(), &tenant, &items, format).await {
                Ok(lines) => Some((Ok(Bytes::from(lines)), next)),
                Err(error) => Some((Err(cut(error)), None)),
            }
        }
    })
}

async fn operations(
    State(state): State<AppState>,
    session: Session,
    Query(filter): Query<OperationFilter>,
    format: Format,
) -> Response {
    let user = match allowed(&session, Section::Operations).await {
        Ok(user) => user,
        Err(error) => return refusal(error),
    };
    let filter = OperationFilter { after: None, ..filter };
    let query = match operation_query(&filter, &user.user_id) {
        Ok(query) => query,
        Err(error) => return refusal(error),
    };
    let store = state.ledger.reads();
    let described = filter.query_string(false);
    if let Err(error) = record_export(&state.ledger, &user, "operations", format, &described).await {
        return refusal(error);
    }
    let filtered = [&filter.state, &filter.kind, &filter.provider, &filter.subject, &filter.q]
        .iter()
        .any(|v| v.as_deref().is_some_and(|v| !v.is_empty()));
    let name = file_name(
        "operations",
        &user.tenant,
        filter.from.as_deref().filter(|v| !v.is_empty()),
        filter.to.as_deref().filter(|v| !v.is_empty()),
        filtered,
        format,
    );
    let header = match format {
        Format::Csv => csv_line(OPERATIONS_CSV_HEADER),
        Format::JsonLines => Vec::new(),
    };
    let body = stream::once(async move { Ok(Bytes::from(header)) }).chain(operation_pages(
        store,
        user.tenant,
        query,
        format,
    ));
    download(&name, format, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_a_spreadsheet_would_run_are_neutralised_and_quoting_follows_rfc_4180() {
        let line = csv_line([
            "=HYPERLINK(\"x\")",
            "+1",
            "-2",
            "@SUM(A1)",
            "plain",
            "a,b",
            "say \"hi\"",
            "line\nbreak",
        ]);
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@SUM(A1),plain,\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\"\r\n"
        );
        assert_eq!(csv_line(["résumé 退款"]), "résumé 退款\r\n".as_bytes());
    }

    #[test]
    fn file_names_say_what_whose_and_which_range() {
        let acme = TenantId::parse("acme").unwrap();
        assert_eq!(
            file_name("audit", &acme, None, None, false, Format::JsonLines),
            "opledger-audit-acme-all.jsonl"
        );
        assert_eq!(
            file_name("audit", &acme, Some("2026-11-01T00:00"), None, true, Format::Csv),
            "opledger-audit-acme-2026-11-01_to_now-filtered.csv"
        );
        assert_eq!(
            file_name("operations", &acme, Some("2026/11/01"), Some("2026-12-01T08:00"), false, Format::Csv),
            "opledger-operations-acme-2026_11_01_to_2026-12-01.csv"
        );
    }
}
