//! The audit page's data: the tenant's audit events, newest first, filtered by time range, actor,
//! action, operation and order (all kept in the URL), a page at a time. The exports of the same
//! filters are plain HTTP downloads (`/audit/export.csv`, `/audit/export.jsonl`), streamed by the
//! server.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// The audit page's filters, exactly as they stand in its URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditFilter {
    /// At or after this time (RFC 3339 or `YYYY-MM-DDTHH:MM`, UTC).
    pub from: Option<String>,
    /// Before this time.
    pub to: Option<String>,
    pub actor: Option<String>,
    pub action: Option<String>,
    pub op_id: Option<String>,
    /// An order (an operation's subject), e.g. `order:1043`.
    pub subject: Option<String>,
    /// The cursor of the page: the seq of the last event of the previous one.
    pub before: Option<String>,
}

impl AuditFilter {
    /// The URL query of these filters (without the cursor when `with_cursor` is false).
    pub fn query_string(&self, with_cursor: bool) -> String {
        let pairs = [
            ("from", &self.from),
            ("to", &self.to),
            ("actor", &self.actor),
            ("action", &self.action),
            ("op_id", &self.op_id),
            ("subject", &self.subject),
            ("before", if with_cursor { &self.before } else { &None }),
        ];
        super::operations::encode_query(&pairs)
    }

    /// Whether the filters leave events out of the chain (anything but an end time; an export
    /// that ends early is still a whole chain up to its end): then only each event's own hash and
    /// the links it keeps can be checked.
    pub fn leaves_events_out(&self) -> bool {
        [&self.from, &self.actor, &self.action, &self.op_id, &self.subject]
            .iter()
            .any(|value| value.as_deref().is_some_and(|v| !v.trim().is_empty()))
    }
}

/// One audit event as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEventView {
    pub seq: u64,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub role: String,
    pub action: String,
    pub op_id: Option<String>,
    pub from_state: Option<String>,
    pub to_state: Option<String>,
    pub reason: Option<String>,
    pub evidence: String,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditPage {
    pub events: Vec<AuditEventView>,
    /// The cursor of the next (older) page, when there is one.
    pub next: Option<String>,
}

#[server(prefix = "/rpc", endpoint = "audit_events")]
pub async fn audit_events(#[server(default)] filter: AuditFilter) -> Result<AuditPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Audit).await?;
    ssr::audit_events(&user, &filter).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::console::operations::ssr::{given, parse_time};
    use crate::server::http::state::AppState;
    use crate::server::store::records::AuditQuery;
    use crate::t;

    /// Audit events per page of the audit page.
    pub const AUDIT_PAGE_SIZE: u32 = 100;

    /// The store query for the audit page's filter from the URL; bad values are refused with a
    /// sentence.
    pub fn audit_query(filter: &AuditFilter) -> Result<AuditQuery, AppError> {
        let before_seq = given(&filter.before)
            .map(|c| {
                c.parse::<u64>().map_err(|_| AppError::Invalid(t!(current_language(), "audit-damaged-link")))
            })
            .transpose()?;
        Ok(AuditQuery {
            at_from: given(&filter.from).map(|t| parse_time("from", &t)).transpose()?,
            at_before: given(&filter.to).map(|t| parse_time("to", &t)).transpose()?,
            actor: given(&filter.actor),
            actions: crate::console::operations::ssr::values(&filter.action),
            op_id: given(&filter.op_id),
            subject: given(&filter.subject),
            oldest_first: false,
            before_seq,
            after_seq: None,
            limit: AUDIT_PAGE_SIZE + 1,
        })
    }

    pub async fn audit_events(user: &SignedIn, filter: &AuditFilter) -> Result<AuditPage, AppError> {
        let query = audit_query(filter)?;
        // The page shows the chain with every entry committed so far in it, not as of the last seal.
        let ledger = expect_context::<AppState>().ledger.clone();
        ledger.seal_audit(Some(&user.tenant)).await.map_err(unavailable)?;
        let mut records = ledger.reads().list_audit(&user.tenant, &query).await.map_err(unavailable)?;
        let next = if records.len() > AUDIT_PAGE_SIZE as usize {
            records.truncate(AUDIT_PAGE_SIZE as usize);
            records.last().map(|r| r.seq.to_string())
        } else {
            None
        };
        let events = records
            .into_iter()
            .map(|record| AuditEventView {
                seq: record.seq,
                at: record.entry.at,
                actor: record.entry.actor,
                role: record.entry.role,
                action: record.entry.action,
                op_id: record.entry.op_id,
                from_state: record.entry.from_state,
                to_state: record.entry.to_state,
                reason: record.entry.reason,
                evidence: record.entry.evidence.to_string(),
                hash: record.hash,
            })
            .collect();
        Ok(AuditPage { events, next })
    }
}
