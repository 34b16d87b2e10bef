//! The `send_customer_email {order_id, template}` tool: one of the tenant's email templates,
//! filled from the order, to the customer the shop has for it, through the tenant's email account.
//! Op `email-<order>-<template>`: the same message about the same order is one intent. The message
//! as written (sender, recipient, subject, text) is the operation's parameters, so what is sent is
//! what was recorded. Through SMTP, which can neither recognise a repeat nor be asked, a lost
//! answer is told to the model as such: nobody can tell, and a person checks.

use axum::{extract::State, http::HeaderMap, Json};
use serde::Deserialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorEnvelope};
use super::extract::{ApiJson, Caller};
use super::locale::customer_language;
use super::tools::{registration, run, shop_order, Subject, ToolAnswer};
use crate::domain::connection::Settles;
use crate::domain::email::{EmailFacts, MessageProblem};
use crate::domain::ids::{OpId, TenantId};
use crate::domain::params::CanonicalParams;
use crate::domain::wording::Described;
use crate::server::http::state::AppState;

/// Send one of the tenant's email templates to an order's customer.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailRequest {
    pub order_id: String,
    /// The template's name, as the admin page lists it (`refund_issued`).
    pub template: String,
    /// The language to tell the customer in (`en`, `zh-TW`, `zh-CN`).
    #[serde(default)]
    pub locale: Option<String>,
}

/// The tenant's own connection that sends email (kind `email` or `smtp`), preferring the one
/// named `email`: its name and the sender it sends as.
async fn email_account(state: &AppState, tenant: &TenantId) -> Result<(String, String), ApiError> {
    let mut accounts: Vec<(String, String)> = state
        .ledger
        .reads()
        .provider_connections(tenant)
        .await?
        .into_iter()
        .filter(|connection| connection.kind.action_for("send_email").is_some())
        .filter_map(|connection| Some((connection.name, connection.account?)))
        .collect();
    accounts.sort_by_key(|(name, _)| name != "email");
    accounts.into_iter().next().ok_or_else(|| {
        ApiError::NotConnected(format!(
            "no email account (kind email or smtp) is connected for tenant {tenant}; nothing was recorded or sent"
        ))
    })
}

/// Why a message about `order` could never be sent as filled in, named by the field at fault, with
/// nothing recorded: the same call goes through once the shop's address (or the template, or the
/// connection's sender) is put right.
fn message_refused(order: &str, problem: &MessageProblem) -> ApiError {
    let why = &problem.problem;
    match problem.field {
        "to" => ApiError::invalid_field(
            "order_id",
            format!("the shop's customer email address for order {order} cannot be sent to: {why}; nothing was recorded or sent"),
        ),
        "from" => ApiError::NotConnected(format!(
            "the email account's sender cannot be sent from: {why}; an admin fixes it on the admin page; nothing was recorded or sent"
        )),
        field => ApiError::invalid_field(
            "template",
            format!("the template's {field}, filled in for order {order}, cannot be sent: {why}; nothing was recorded or sent"),
        ),
    }
}

/// Send one of the tenant's email templates to the customer of an order: the message is filled
/// from the order and recorded before it is sent; the same template about the same order is sent
/// once.
#[utoipa::path(post, path = "/api/v1/tools/send_customer_email", request_body = EmailRequest, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or template, or the message could never be sent as filled in (the shop's customer address is not exactly one address, a header would hold a line break); `field` names the field at fault and nothing is recorded", body = ErrorEnvelope),
))]
pub async fn send_customer_email(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(request): ApiJson<EmailRequest>,
) -> Result<Json<ToolAnswer>, ApiError> {
    let tenant = &caller.tenant;
    let customer_language = customer_language(&state, tenant, request.locale.as_deref(), &headers).await?;
    let (provider, sender) = email_account(&state, tenant).await?;
    let template = state
        .ledger
        .reads()
        .email_template(tenant, request.template.trim())
        .await?
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "template: tenant {tenant} has no email template {:?}; an admin adds them on the admin page",
                request.template
            ))
        })?
        .template;
    let order = shop_order(&state, tenant, &request.order_id).await?;
    let to = order.customer_email.as_deref().unwrap_or_default();
    let facts = EmailFacts { order: &order.id, shop: tenant.as_str(), customer_email: to };
    let op_id = OpId::parse(&template.op_id(&order.id)).map_err(ApiError::invalid)?;
    let message =
        template.message(&facts, &sender).map_err(|problem| message_refused(&order.id, &problem))?;
    let params = CanonicalParams::from_value(message).map_err(ApiError::invalid)?;
    let at_most_once = match state.executor.directory().connector(tenant, &provider).await? {
        Ok(connector) => connector.capabilities("send_email").settles() == Settles::AtMostOnce,
        Err(_) => true,
    };
    let subject = Subject {
        described: Described { kind: "send_email", amount: None, item: None, provider: &provider },
        order_id: &order.id,
        at_most_once,
        customer_language,
    };
    let registration = registration(&caller, op_id, "send_email", &provider, &order.id, params);
    Ok(Json(run(&state, &caller, registration, &subject).await?))
}
