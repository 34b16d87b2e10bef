//! The agent tools over the ledger API (`/api/v1/tools/…`): each reads the tool's arguments as its
//! JSON body, calls the tool (`ledger::tools`) for the token's tenant in the token's name, with the
//! language the call's `Accept-Language` asks for, and answers with what the tool answered or its
//! refusal as an API error.

use axum::{extract::State, Json};

use super::error::{ApiError, ErrorEnvelope};
use super::extract::{ApiJson, Caller};
use crate::server::http::listed::ListedRouter;
use crate::server::http::state::AppState;
use crate::server::ledger::tools::{
    EmailArgs, LineItemArgs, PickupArgs, RefundArgs, ToolAnswer, ToolError, Tools,
};

pub fn routes() -> ListedRouter<AppState> {
    ListedRouter::default()
        .post("/refund_item", refund_item)
        .post("/create_aftersale", create_aftersale)
        .post("/schedule_pickup", schedule_pickup)
        .post("/send_customer_email", send_customer_email)
}

/// The tools for `caller`, in the language its `Accept-Language` asks for.
fn tools_for<'a>(state: &'a AppState, caller: &'a Caller) -> Tools<'a> {
    Tools::new(&state.executor, &caller.tenant, &caller.actor, caller.language)
}

/// A tool's refusal as the API answers it, in `caller`'s language where it has one.
fn told(caller: &Caller) -> impl Fn(ToolError) -> ApiError + '_ {
    move |error| ApiError::from(error).told_in(caller.language)
}

/// Refund one line item of an order: the op id and the amount come from the order, never from
/// the caller. After a refund of the item failed at the provider, it is made again only when the
/// caller asks for it with the failed op id.
#[utoipa::path(post, path = "/api/v1/tools/refund_item", request_body = RefundArgs, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item, or a retry that is not of a failed refund of this item", body = ErrorEnvelope),
))]
pub async fn refund_item(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(args): ApiJson<RefundArgs>,
) -> Result<Json<ToolAnswer>, ApiError> {
    Ok(Json(tools_for(&state, &caller).refund_item(args).await.map_err(told(&caller))?))
}

/// Open an after-sale ticket for one line item of an order.
#[utoipa::path(post, path = "/api/v1/tools/create_aftersale", request_body = LineItemArgs, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item", body = ErrorEnvelope),
))]
pub async fn create_aftersale(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(args): ApiJson<LineItemArgs>,
) -> Result<Json<ToolAnswer>, ApiError> {
    Ok(Json(tools_for(&state, &caller).create_aftersale(args).await.map_err(told(&caller))?))
}

/// Schedule a pickup for a line item's after-sale ticket.
#[utoipa::path(post, path = "/api/v1/tools/schedule_pickup", request_body = PickupArgs, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item, a malformed date, or no after-sale ticket yet", body = ErrorEnvelope),
))]
pub async fn schedule_pickup(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(args): ApiJson<PickupArgs>,
) -> Result<Json<ToolAnswer>, ApiError> {
    Ok(Json(tools_for(&state, &caller).schedule_pickup(args).await.map_err(told(&caller))?))
}

/// Send one of the tenant's email templates to the customer of an order: the message is filled
/// from the order and recorded before it is sent; the same template about the same order is sent
/// once.
#[utoipa::path(post, path = "/api/v1/tools/send_customer_email", request_body = EmailArgs, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or template, or the message could never be sent as filled in (the shop's customer address is not exactly one address, a header would hold a line break); `field` names the field at fault and nothing is recorded", body = ErrorEnvelope),
))]
pub async fn send_customer_email(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(args): ApiJson<EmailArgs>,
) -> Result<Json<ToolAnswer>, ApiError> {
    Ok(Json(tools_for(&state, &caller).send_customer_email(args).await.map_err(told(&caller))?))
}
