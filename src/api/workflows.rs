//! The console's changes and the pages behind them: the approval queue, actions on one operation,
//! compensations, bulk queries over a filter, and the approval policy. Every change carries the
//! session's CSRF token; every change to operations also carries an idempotency key made by the
//! server for its form, so a resent form gets its first answer back instead of acting twice.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::{AppError, OperationFilter, OperationRow};

/// An operation waiting for a manager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingApproval {
    pub row: OperationRow,
    pub requested_by: String,
    /// When an earlier approval expired before the operation was sent.
    pub approval_expired_at: Option<DateTime<Utc>>,
    /// The order's other operations, oldest first.
    pub order_history: Vec<OperationRow>,
    /// Why this viewer cannot decide on it, when they cannot (their own request, their role).
    pub refusal: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalsPage {
    pub items: Vec<PendingApproval>,
    /// How long an approval given now lets the operation be sent, in words.
    pub valid_for: String,
    /// The idempotency key prefix of this page's forms.
    pub form_key: String,
}

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRuleView {
    pub id: String,
    /// The rule in words.
    pub summary: String,
    pub kind: String,
    pub provider: Option<String>,
    /// `TWD 1,000.00`, or `None` for every amount.
    pub threshold: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

#[server(prefix = "/rpc", endpoint = "approvals")]
pub async fn approvals() -> Result<ApprovalsPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Approvals).await?;
    crate::server::views::approvals(&user).await.inspect_err(crate::server::auth::set_error_status)
}

/// Carries out one action on one operation (`action` is a command's name, e.g. `approve`,
/// `confirm_found` for a query of the provider, `resend_same_key`) and answers in words.
#[server(prefix = "/rpc", endpoint = "act")]
pub async fn act(
    csrf: String,
    key: String,
    op_id: String,
    action: String,
    #[server(default)] reason: String,
    #[server(default)] external_id: String,
    #[server(default)] evidence: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require_for_change(Section::Operations, &csrf).await?;
    let form = crate::server::actions::ActionForm { op_id, action, reason, external_id, evidence };
    let answer = crate::server::actions::act(&user, &key, form)
        .await
        .inspect_err(crate::server::auth::set_error_status)?;
    crate::server::actions::show_answer_after_form_post(&key);
    Ok(answer)
}

/// Records a compensation of one operation (`compensation` is e.g. `cancel_ticket`) and sends it.
#[server(prefix = "/rpc", endpoint = "compensate")]
pub async fn compensate(
    csrf: String,
    key: String,
    op_id: String,
    compensation: String,
    #[server(default)] date: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require_for_change(Section::Orders, &csrf).await?;
    let answer = crate::server::actions::compensate(&user, &key, &op_id, &compensation, &date)
        .await
        .inspect_err(crate::server::auth::set_error_status)?;
    crate::server::actions::show_answer_after_form_post(&key);
    Ok(answer)
}

/// The answer to one of the signed-in user's earlier requests, by the key its form carried: what
/// a page shows after a form was sent without JavaScript.
#[server(prefix = "/rpc", endpoint = "request_answer")]
pub async fn request_answer(key: String) -> Result<Option<String>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Overview).await?;
    crate::server::actions::answer_of(&user, &key).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "preview_bulk")]
pub async fn preview_bulk(#[server(default)] filter: OperationFilter) -> Result<BulkPreview, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Operations).await?;
    crate::server::actions::bulk_preview(&user, filter)
        .await
        .inspect_err(crate::server::auth::set_error_status)
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
    let user = crate::server::auth::require_for_change(Section::Operations, &csrf).await?;
    let id = crate::server::actions::start_bulk(&user, &key, &filter)
        .await
        .inspect_err(crate::server::auth::set_error_status)?;
    leptos_axum::redirect(&format!("/bulk/{id}"));
    Ok(id)
}

#[server(prefix = "/rpc", endpoint = "bulk_run")]
pub async fn bulk_run(id: String) -> Result<BulkRunView, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Operations).await?;
    crate::server::views::bulk_run(&user, &id).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "approval_rules")]
pub async fn approval_rules() -> Result<Vec<ApprovalRuleView>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Admin).await?;
    crate::server::views::approval_rules(&user).await.inspect_err(crate::server::auth::set_error_status)
}

/// Adds a rule to the approval policy: operations of `kind` (at `provider`, if given) from
/// `threshold` (e.g. `1000.00`, in `currency`) up need a manager's approval.
#[server(prefix = "/rpc", endpoint = "add_approval_rule")]
pub async fn add_approval_rule(
    csrf: String,
    kind: String,
    #[server(default)] provider: String,
    #[server(default)] threshold: String,
    #[server(default)] currency: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::server::auth::require_for_change(Section::Admin, &csrf).await?;
    crate::server::actions::add_approval_rule(&admin, &kind, &provider, &threshold, &currency)
        .await
        .inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "remove_approval_rule")]
pub async fn remove_approval_rule(csrf: String, id: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::server::auth::require_for_change(Section::Admin, &csrf).await?;
    crate::server::actions::remove_approval_rule(&admin, &id)
        .await
        .inspect_err(crate::server::auth::set_error_status)
}
