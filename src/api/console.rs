//! What the console's pages show, as plain serialisable data, and the server functions that
//! return it. Each function first checks the caller's role for its section on the server
//! ([`require`](crate::server::auth::require)), then asks the server's view builders; none of
//! them returns a database error's text.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::{
    compensation::Compensation,
    machine::{CommandKind, State},
    params::FieldDiff,
    policy::Role,
    rollup::OrderStatus,
};

/// The signed-in user as the pages see them, with the session's CSRF token for their forms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Viewer {
    pub name: String,
    pub tenant: String,
    pub role: Role,
    pub csrf: String,
}

/// One operation in a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationRow {
    pub op_id: String,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub state: State,
    /// Formatted with its currency, e.g. `TWD 380.00`.
    pub amount: Option<String>,
    pub attempts: u32,
    pub external_ids: Vec<String>,
    pub compensates: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The operations list's filters, exactly as they stand in the page's URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationFilter {
    pub state: Option<String>,
    pub kind: Option<String>,
    pub provider: Option<String>,
    pub subject: Option<String>,
    /// An op id or an external id.
    pub q: Option<String>,
    /// Created at or after this time (RFC 3339 or `YYYY-MM-DDTHH:MM`, UTC).
    pub from: Option<String>,
    /// Created before this time.
    pub to: Option<String>,
    /// The cursor of the page: the last row of the previous one.
    pub after: Option<String>,
}

impl OperationFilter {
    /// The URL query of these filters (without the cursor when `with_cursor` is false).
    pub fn query_string(&self, with_cursor: bool) -> String {
        let pairs = [
            ("state", &self.state),
            ("kind", &self.kind),
            ("provider", &self.provider),
            ("subject", &self.subject),
            ("q", &self.q),
            ("from", &self.from),
            ("to", &self.to),
            ("after", if with_cursor { &self.after } else { &None }),
        ];
        encode_query(&pairs)
    }

    pub fn is_filtered(&self) -> bool {
        !self.query_string(false).is_empty()
    }

    /// The filters in words: `state unknown, order order:1077`, or `every operation`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            ("state", &self.state),
            ("kind", &self.kind),
            ("provider", &self.provider),
            ("order", &self.subject),
            ("op id or external id", &self.q),
            ("created from", &self.from),
            ("created before", &self.to),
        ]
        .iter()
        .filter_map(|(label, value)| {
            value.as_deref().filter(|v| !v.is_empty()).map(|v| format!("{label} {v}"))
        })
        .collect();
        if parts.is_empty() {
            "every operation".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// `name=value&…` of the pairs that have a value, each value percent-encoded.
pub(super) fn encode_query(pairs: &[(&str, &Option<String>)]) -> String {
    pairs
        .iter()
        .filter_map(|(name, value)| value.as_deref().filter(|v| !v.is_empty()).map(|v| (*name, v)))
        .map(|(name, value)| format!("{name}={}", percent_encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One page of the operations list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationPage {
    pub rows: Vec<OperationRow>,
    /// The cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// One send of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptView {
    pub number: u32,
    pub started_at: DateTime<Utc>,
    pub duration_ms: Option<i64>,
    pub outcome: String,
    pub http_status: Option<u16>,
    pub idempotency_key: String,
    pub sent_by: String,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalView {
    pub provider: String,
    pub ref_type: String,
    pub external_id: String,
    /// The provider's dashboard page of this object, when the provider has one.
    pub link: Option<String>,
    pub recorded_at: DateTime<Utc>,
}

/// One audit event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditView {
    pub seq: u64,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub role: String,
    pub action: String,
    pub from_state: Option<String>,
    pub to_state: Option<String>,
    pub reason: Option<String>,
    pub evidence: String,
}

/// Another operation linked to this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkedOperation {
    pub op_id: String,
    pub kind: String,
    pub state: State,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalView {
    pub approver: String,
    pub granted_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// Whether it was given for the parameters stored now.
    pub matches_params: bool,
}

/// Everything recorded about one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationDetail {
    pub row: OperationRow,
    pub params: String,
    pub fingerprint: String,
    pub idempotency_key: String,
    pub requested_by: String,
    /// When the downstream forgets the key, once it has been sent.
    pub key_expires_at: Option<DateTime<Utc>>,
    /// The key's remaining validity in words, e.g. `23 h 12 min left` or `expired`.
    pub key_validity: String,
    pub last_failure: Option<String>,
    pub cancel_requested: bool,
    pub approval: Option<ApprovalView>,
    pub attempts: Vec<AttemptView>,
    pub external: Vec<ExternalView>,
    pub compensates: Option<LinkedOperation>,
    pub compensated_by: Vec<LinkedOperation>,
    pub conflicts: usize,
    pub audit: Vec<AuditView>,
    /// The actions the state machine allows this viewer now.
    pub actions: Vec<CommandKind>,
    /// The compensations this viewer may record for it.
    pub compensations: Vec<Compensation>,
    /// The idempotency key prefix of this page's forms.
    pub form_key: String,
}

/// A count shown on a bar of a chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub label: String,
    pub count: u64,
}

/// Operations created in one hour, by how they stand now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HourOutcomes {
    pub hour: DateTime<Utc>,
    pub succeeded: u64,
    pub not_done: u64,
    pub uncertain: u64,
    pub open: u64,
}

/// One order in a list, with its roll-up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderSummary {
    pub subject: String,
    pub status: OrderStatus,
    pub operations: usize,
    pub net_refunded: Vec<String>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewData {
    pub counts: Vec<(State, u64)>,
    pub total: u64,
    pub unknown_by_age: Vec<Bucket>,
    pub oldest_uncertain: Vec<OperationRow>,
    pub needs_review: Vec<OperationRow>,
    pub pending_approvals: u64,
    pub attention_orders: Vec<OrderSummary>,
    pub hourly: Vec<HourOutcomes>,
    pub time_to_settle: Vec<Bucket>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdersPage {
    /// Orders in partial success or pending confirmation.
    pub attention: Vec<OrderSummary>,
    pub recent: Vec<OrderSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderDetail {
    pub subject: String,
    pub status: OrderStatus,
    pub operations: Vec<OperationRow>,
    pub completed: Vec<String>,
    pub not_done: Vec<String>,
    pub uncertain: Vec<String>,
    pub effects_in_force: Vec<String>,
    pub net_refunded: Vec<String>,
    /// The compensations this viewer may record, per operation that offers any.
    pub compensations: Vec<CompensationOffer>,
    pub form_key: String,
}

/// The compensations one operation of an order offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompensationOffer {
    pub op_id: String,
    pub kind: String,
    pub state: State,
    pub offers: Vec<Compensation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConflictView {
    pub id: i64,
    pub op_id: String,
    pub requested_by: String,
    pub received_at: DateTime<Utc>,
    pub stored_state: State,
    pub diff: Vec<FieldDiff>,
    pub requested_params: String,
    pub stored_params: String,
}

/// An operation on the reconcile desk, with why it is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeskItem {
    pub row: OperationRow,
    pub why: String,
    pub key_validity: String,
    /// The actions this viewer may take on it now.
    pub actions: Vec<CommandKind>,
}

/// The reconcile desk's queue and the key prefix of its forms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconcileDesk {
    pub items: Vec<DeskItem>,
    pub form_key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
}

/// The signed-in user, or `None` when the session has nobody signed in.
#[server(prefix = "/rpc", endpoint = "who_am_i")]
pub async fn who_am_i() -> Result<Option<Viewer>, AppError> {
    crate::server::auth::current_viewer().await
}

/// The session's CSRF token for the sign-in form.
#[server(prefix = "/rpc", endpoint = "sign_in_token")]
pub async fn sign_in_token() -> Result<String, AppError> {
    crate::server::auth::session_csrf().await
}

#[server(prefix = "/rpc", endpoint = "overview")]
pub async fn overview() -> Result<OverviewData, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Overview).await?;
    crate::server::views::overview(&user).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "operations")]
pub async fn operations(#[server(default)] filter: OperationFilter) -> Result<OperationPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Operations).await?;
    crate::server::views::operations(&user, &filter).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "operation")]
pub async fn operation(op_id: String) -> Result<OperationDetail, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Operations).await?;
    crate::server::views::operation(&user, &op_id).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "orders")]
pub async fn orders() -> Result<OrdersPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Orders).await?;
    crate::server::views::orders(&user).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "order")]
pub async fn order(subject: String) -> Result<OrderDetail, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Orders).await?;
    crate::server::views::order(&user, &subject).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "conflicts")]
pub async fn conflicts() -> Result<Vec<ConflictView>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Conflicts).await?;
    crate::server::views::conflicts(&user).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "reconcile_queue")]
pub async fn reconcile_queue() -> Result<ReconcileDesk, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Reconcile).await?;
    crate::server::views::reconcile_queue(&user).await.inspect_err(crate::server::auth::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "users")]
pub async fn users() -> Result<Vec<UserView>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::server::auth::require(Section::Admin).await?;
    crate::server::views::users(&user).await.inspect_err(crate::server::auth::set_error_status)
}

/// Adds a user to the admin's tenant.
#[server(prefix = "/rpc", endpoint = "add_user")]
pub async fn add_user(
    csrf: String,
    name: String,
    role: String,
    password: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::server::auth::require_for_change(Section::Admin, &csrf).await?;
    crate::server::views::add_user(&admin, &name, &role, &password)
        .await
        .inspect_err(crate::server::auth::set_error_status)
}
