//! Bulk queries: preview how many operations the operations list's filter matches and how many can
//! be queried now, start a run over them, and follow its progress item by item.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::operations::OperationFilter;
use super::AppError;

/// A bulk query before it runs: how many operations the filter matches and how many of them this
/// viewer may query now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkPreview {
    pub filter: OperationFilter,
    pub matching: usize,
    pub actionable: usize,
    /// The filter matches more than one run may touch; only the first ones are counted.
    pub capped: bool,
    pub limit: u32,
    pub form_key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkItemView {
    pub op_id: String,
    /// `confirmed`, `not found`, `unavailable` or `refused`; `None` while waiting its turn.
    pub outcome: Option<String>,
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkRunView {
    pub id: String,
    pub action: String,
    /// The operations list's URL query it was started from.
    pub filter: String,
    /// That filter in words.
    pub filter_description: String,
    pub requested_by: String,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub items: Vec<BulkItemView>,
}

impl BulkRunView {
    pub fn done(&self) -> usize {
        self.items.iter().filter(|item| item.outcome.is_some()).count()
    }
}

#[server(prefix = "/rpc", endpoint = "preview_bulk")]
pub async fn preview_bulk(#[server(default)] filter: OperationFilter) -> Result<BulkPreview, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Operations).await?;
    ssr::bulk_preview(&user, filter).await.inspect_err(crate::console::guard::set_error_status)
}

/// Starts a bulk query of the provider over the operations that `filter` (an operations list URL
/// query) matches, and sends the browser to its progress page.
#[server(prefix = "/rpc", endpoint = "start_bulk")]
pub async fn start_bulk(
    csrf: String,
    key: String,
    #[server(default)] filter: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let id =
        ssr::start_bulk(&user, &key, &filter).await.inspect_err(crate::console::guard::set_error_status)?;
    leptos_axum::redirect(&format!("/bulk/{id}"));
    Ok(id)
}

#[server(prefix = "/rpc", endpoint = "bulk_run")]
pub async fn bulk_run(id: String) -> Result<BulkRunView, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Operations).await?;
    ssr::bulk_run(&user, &id).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::forms::ssr::valid_key;
    use crate::console::guard::{actor, reads, refused, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::console::operations::ssr::operation_query;
    use crate::domain::ids::OpId;
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::requests::form_key;
    use crate::server::ledger::workflows::{self, BULK_LIMIT};
    use crate::server::store::records::NewBulkRun;
    use crate::server::telemetry::cause_chain;
    use crate::t;

    /// The operations a bulk query over `filter` would touch: how many match (up to the limit) and
    /// which of them this viewer may query now.
    pub async fn bulk_candidates(
        user: &SignedIn,
        filter: &OperationFilter,
    ) -> Result<(usize, bool, Vec<OpId>), AppError> {
        let mut query = operation_query(&OperationFilter { after: None, ..filter.clone() }, &user.user_id)?;
        query.limit = BULK_LIMIT + 1;
        let state = expect_context::<AppState>();
        let mut matching =
            state.ledger.reads().matching_operations(&user.tenant, &query).await.map_err(unavailable)?;
        let capped = matching.len() > BULK_LIMIT as usize;
        matching.truncate(BULK_LIMIT as usize);
        let allowed =
            workflows::queryable(&actor(user), &matching).map_err(|error| refused(error, "of the filter", user))?;
        Ok((matching.len(), capped, allowed))
    }

    pub async fn bulk_preview(user: &SignedIn, filter: OperationFilter) -> Result<BulkPreview, AppError> {
        let (matching, capped, allowed) = bulk_candidates(user, &filter).await?;
        Ok(BulkPreview {
            filter: OperationFilter { after: None, ..filter },
            matching,
            actionable: allowed.len(),
            capped,
            limit: BULK_LIMIT,
            form_key: form_key(),
        })
    }

    /// Records a bulk query over the operations list's filter (its URL query) and starts it in the
    /// background; a second request with the same key finds the first run. Returns the run's id.
    pub async fn start_bulk(user: &SignedIn, key: &str, filter_query: &str) -> Result<String, AppError> {
        let language = current_language();
        let key = valid_key(key)?;
        let filter: OperationFilter = serde_urlencoded::from_str(filter_query)
            .map_err(|_| AppError::Invalid(t!(language, "bulk-damaged-filter")))?;
        let (_, _, allowed) = bulk_candidates(user, &filter).await?;
        if allowed.is_empty() {
            return Err(AppError::Invalid(t!(language, "bulk-nothing-started")));
        }
        let state = expect_context::<AppState>();
        let run = NewBulkRun {
            tenant: user.tenant.clone(),
            id: key.to_owned(),
            action: "query the provider".into(),
            filter: filter.query_string(false),
            requested_by: user.name.clone(),
            op_ids: allowed,
            at: now(),
        };
        let created = state.ledger.start_bulk_run(run, &actor(user)).await.map_err(unavailable)?;
        if created {
            let (executor, tenant, id, actor) =
                (state.executor.clone(), user.tenant.clone(), key.to_owned(), actor(user));
            tokio::spawn(async move {
                if let Err(error) = workflows::run_bulk_query(executor, tenant, id, actor).await {
                    tracing::error!(error = %cause_chain(&error), "a bulk query could not record its results");
                }
            });
        }
        Ok(key.to_owned())
    }

    pub async fn bulk_run(user: &SignedIn, id: &str) -> Result<BulkRunView, AppError> {
        let language = current_language();
        let run = reads()
            .bulk_run(&user.tenant, id)
            .await
            .map_err(unavailable)?
            .ok_or_else(|| AppError::NotFound(t!(language, "bulk-run-not-found", id = id)))?;
        let filter: OperationFilter = serde_urlencoded::from_str(&run.filter).unwrap_or_default();
        Ok(BulkRunView {
            id: run.id,
            action: run.action,
            filter_description: filter.describe(),
            filter: run.filter,
            requested_by: run.requested_by,
            created_at: run.created_at,
            finished_at: run.finished_at,
            items: run
                .items
                .into_iter()
                .map(|item| BulkItemView { op_id: item.op_id, outcome: item.outcome, message: item.message })
                .collect(),
        })
    }
}
