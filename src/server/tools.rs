//! Tools for agents, over the ledger API: `POST /api/v1/tools/refund_item` takes an order and a
//! line item, derives the op id (`refund-<order>-<line item>`) and the amount from the order's data,
//! runs the executor, and answers in words written for a model: done, already done, awaiting
//! approval, or "result unknown; do not send again; it is being checked".

use axum::{extract::State, routing::post, Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::catalogue::find_order;
use super::ledger::{RegisterRequest, Registration, DEFAULT_KEY_RETENTION};
use super::ledger_api::{ApiError, ApiJson, Caller};
use super::state::AppState;
use super::store::records::OperationRecord;
use crate::domain::{
    ids::OpId,
    machine::State as OpState,
    money::{Currency, Money},
    params::CanonicalParams,
};

pub fn routes() -> Router<AppState> {
    Router::new().route("/refund_item", post(refund_item))
}

/// Refund one line item of an order.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundItem {
    pub order_id: String,
    pub line_item_id: String,
}

/// What the tool tells the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Succeeded,
    AlreadyDone,
    PendingApproval,
    Rejected,
    Unknown,
    Cancelled,
    /// Nothing was sent (the provider could not be reached); it is safe to try again later.
    NotSent,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ToolAnswer {
    pub status: ToolStatus,
    pub op_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    pub message: String,
}

async fn external_id(state: &AppState, operation: &OperationRecord) -> Result<Option<String>, ApiError> {
    let history = state.ledger.store().operation_history(&operation.tenant, &operation.op_id).await?;
    Ok(history.and_then(|h| h.external_refs.last().map(|r| r.external_id.clone())))
}

/// Words for a model about an operation that `ran_now` (or was found as it stands).
async fn answer(
    state: &AppState,
    operation: &OperationRecord,
    ran_now: bool,
    what: &str,
) -> Result<ToolAnswer, ApiError> {
    let op_id = operation.op_id.to_string();
    let external_id = external_id(state, operation).await?;
    let reference = external_id.as_deref().map(|id| format!(" (refund {id})")).unwrap_or_default();
    let (status, message) = match operation.snapshot.state {
        OpState::Succeeded if ran_now => (ToolStatus::Succeeded, format!("Done: {what}{reference}.")),
        OpState::Succeeded => (
            ToolStatus::AlreadyDone,
            format!("Already done earlier: {what}{reference}. Do not send it again."),
        ),
        OpState::PendingApproval => (
            ToolStatus::PendingApproval,
            format!("{what} needs a manager's approval; it will be sent once approved. Tell the customer it is being reviewed."),
        ),
        OpState::Submitted | OpState::Unknown | OpState::NeedsReview => (
            ToolStatus::Unknown,
            format!(
                "The request for {what} was sent but its result is unknown; do not send again; it is being checked. \
                 Tell the customer it is being confirmed."
            ),
        ),
        OpState::Rejected | OpState::Denied => (
            ToolStatus::Rejected,
            format!("{what} was not done: the provider declined it or a manager denied it. Nothing was refunded."),
        ),
        OpState::Cancelled => (ToolStatus::Cancelled, format!("{what} was cancelled before anything was sent.")),
        OpState::Planned | OpState::Approved => (
            ToolStatus::NotSent,
            format!("{what} could not be sent (the provider did not take it); nothing was refunded. It is safe to try again later."),
        ),
    };
    Ok(ToolAnswer { status, op_id, external_id, message })
}

/// Refund one line item of an order: the op id and the amount come from the order, never from
/// the caller.
#[utoipa::path(post, path = "/api/v1/tools/refund_item", request_body = RefundItem, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item", body = super::ledger_api::ErrorEnvelope),
))]
pub async fn refund_item(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(request): ApiJson<RefundItem>,
) -> Result<Json<ToolAnswer>, ApiError> {
    let order = find_order(&request.order_id)
        .ok_or_else(|| ApiError::Invalid(format!("order_id: there is no order {:?}", request.order_id)))?;
    let item = order.line_item(&request.line_item_id).ok_or_else(|| {
        ApiError::Invalid(format!(
            "line_item_id: order {} has no line item {:?}",
            order.id, request.line_item_id
        ))
    })?;
    let op_id =
        OpId::for_line_item("refund", order.id, item.id).map_err(|e| ApiError::Invalid(e.to_string()))?;
    let currency = Currency::parse(order.currency).map_err(|e| ApiError::Invalid(e.to_string()))?;
    let what = format!(
        "the refund of {} ({}) on order {}",
        item.name,
        Money::new(item.amount_minor, currency),
        order.id
    );
    let params = CanonicalParams::from_value(json!({
        "payment_intent": order.payment_intent,
        "amount": {"minor": item.amount_minor, "currency": order.currency},
        "order": order.id,
        "line_item": item.id,
        "reason": "requested_by_customer",
    }))
    .map_err(|e| ApiError::Invalid(e.to_string()))?;
    let registration = RegisterRequest {
        op_id: op_id.clone(),
        kind: "refund".into(),
        subject: format!("order:{}", order.id),
        provider: "stripe".into(),
        params,
        requested_by: caller.actor.name.clone(),
        compensates: None,
        key_retention: DEFAULT_KEY_RETENTION,
    };
    let operation = match state.ledger.register(&caller.tenant, &caller.actor, registration).await? {
        Registration::Created(operation) | Registration::Existing(operation) => operation,
        Registration::Conflict { .. } => {
            return Err(ApiError::Invalid(format!(
                "{op_id} is recorded with other parameters than the order now has; a person must review it"
            )))
        }
    };
    if !matches!(operation.snapshot.state, OpState::Planned | OpState::Approved) {
        return Ok(Json(answer(&state, &operation, false, &what).await?));
    }
    let after = state.executor.run(&caller.tenant, &op_id).await?;
    Ok(Json(answer(&state, &after, true, &what).await?))
}
