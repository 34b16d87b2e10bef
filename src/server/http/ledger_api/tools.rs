//! Tools for agents, over the ledger API. Each takes business keys (an order, a line item), derives
//! the op id and the parameters from the order's data, records the operation, runs the executor,
//! and answers in the console's words (`domain::wording`): how the operation stands ("… did not
//! answer in time; we are checking whether it happened. Do not refund it again.") and one sentence
//! to tell the customer.
//!
//! - `refund_item {order_id, line_item_id}`: op `refund-<order>-<line item>`, the item's amount;
//!   after that refund failed at the provider, `{…, retry_after_failure: true, failed_op_id}` makes
//!   it again on purpose under the op id derived from the failed one (`…-retry-2`, see
//!   `OpId::retry`), never by itself;
//! - `create_aftersale {order_id, line_item_id}`: op `aftersale-<order>-<line item>`, at the
//!   tenant's helpdesk (its after-sale service, or its own helpdesk described as an HTTP API),
//!   whose name and capabilities the answer speaks of;
//! - `schedule_pickup {order_id, line_item_id, date}`: op `pickup-<order>-<line item>-<date>` for
//!   the item's after-sale ticket (another date is another intent), at the tenant's helpdesk too;
//! - `send_customer_email {order_id, template}`: op `email-<order>-<template>` (`customer_email`).

use axum::{extract::State, http::HeaderMap, Json};

use crate::server::http::listed::ListedRouter;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorEnvelope};
use super::extract::{ApiJson, Caller};
use super::locale::customer_language;
use crate::domain::{
    connection::{Settles, SERVICES_PROVIDER},
    ids::{OpId, TenantId},
    language::Language,
    machine::State as OpState,
    money::{Currency, Money},
    operation::{ExternalRef, OperationRecord},
    params::CanonicalParams,
    wording::{concerns_line_item, tell, tell_unanswerable, Described},
};
use crate::server::http::state::AppState;
use crate::server::ledger::{RegisterRequest, Registration};
use crate::server::providers::orders::{refund_params, LineItem, Order};

pub fn routes() -> ListedRouter<AppState> {
    ListedRouter::default()
        .post("/refund_item", refund_item)
        .post("/create_aftersale", create_aftersale)
        .post("/schedule_pickup", schedule_pickup)
}

/// What the tool tells the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Succeeded,
    AlreadyDone,
    PendingApproval,
    /// The provider accepted it and has not settled it: not done, and not to be sent again.
    Accepted,
    Rejected,
    /// The provider accepted it, then it failed there: nothing moved. It is made again only when
    /// asked for explicitly.
    FailedAtProvider,
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
    /// For the model, in English, with the customer sentence quoted in the customer's language.
    pub message: String,
    /// The one sentence to tell the customer, alone, in the customer's language.
    pub for_customer: String,
    /// The customer's language: the call's `locale`, its `Accept-Language`, or the tenant's.
    pub locale: String,
}

/// Words for a model about an operation that `ran_now` (or was found as it stands): how it stands,
/// as the console says it (`wording::tell`), and what to tell the customer.
fn answer(
    operation: &OperationRecord,
    external_refs: &[ExternalRef],
    ran_now: bool,
    subject: &Subject<'_>,
) -> ToolAnswer {
    let op_id = operation.op_id.to_string();
    let external_id = external_refs.last().map(|r| r.external_id.clone());
    let state = operation.snapshot.state;
    let failure_reason = operation.snapshot.failure_reason.as_deref();
    let unanswerable = subject.at_most_once && matches!(state, OpState::Unknown | OpState::NeedsReview);
    let told_in = |language| {
        if unanswerable {
            tell_unanswerable(&subject.described, language)
        } else {
            tell(&subject.described, state, failure_reason, language)
        }
    };
    let told = told_in(Language::En);
    let for_customer = told_in(subject.customer_language).for_customer;
    let status = match state {
        OpState::Succeeded if ran_now => ToolStatus::Succeeded,
        OpState::Succeeded => ToolStatus::AlreadyDone,
        OpState::PendingApproval => ToolStatus::PendingApproval,
        OpState::Accepted => ToolStatus::Accepted,
        OpState::Submitted | OpState::Unknown | OpState::NeedsReview => ToolStatus::Unknown,
        OpState::Rejected if failure_reason.is_some() => ToolStatus::FailedAtProvider,
        OpState::Rejected | OpState::Denied => ToolStatus::Rejected,
        OpState::Cancelled => ToolStatus::Cancelled,
        OpState::Planned | OpState::Approved => ToolStatus::NotSent,
    };
    let earlier = if status == ToolStatus::AlreadyDone { "Already done earlier. " } else { "" };
    let reference = external_id.as_deref().map(|id| format!(" ({id})")).unwrap_or_default();
    let again = match (status, subject.described.kind) {
        (ToolStatus::FailedAtProvider, "refund") => format!(
            " To refund it again, call refund_item with retry_after_failure: true and failed_op_id: \"{op_id}\"; it is never made again by itself."
        ),
        _ => String::new(),
    };
    let message = format!(
        "{earlier}{} Order {}{reference}.{again} Tell the customer: \u{201c}{for_customer}\u{201d}",
        told.status, subject.order_id
    );
    let locale = subject.customer_language.tag().to_owned();
    ToolAnswer { status, op_id, external_id, message, for_customer, locale }
}

/// What a tool's operation is about, for its answer: where its downstream can neither recognise
/// a repeat nor be asked (`at_most_once`), a lost answer is told as such; the customer is told in
/// `customer_language`.
pub(super) struct Subject<'a> {
    pub(super) described: Described<'a>,
    pub(super) order_id: &'a str,
    pub(super) at_most_once: bool,
    pub(super) customer_language: Language,
}

/// Refund one line item of an order.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundRequest {
    pub order_id: String,
    pub line_item_id: String,
    /// Make the refund again on purpose, after the refund `failed_op_id` of this line item failed
    /// at the provider. Never needed otherwise, and never done without it.
    #[serde(default)]
    pub retry_after_failure: bool,
    /// The op id of the refund that failed, as a tool answered it.
    #[serde(default)]
    pub failed_op_id: Option<String>,
    /// The language to tell the customer in (`en`, `zh-TW`, `zh-CN`); see [`customer_language`].
    #[serde(default)]
    pub locale: Option<String>,
}

/// Refund one line item of an order: the op id and the amount come from the order, never from
/// the caller. After a refund of the item failed at the provider, it is made again only when the
/// caller asks for it with the failed op id.
#[utoipa::path(post, path = "/api/v1/tools/refund_item", request_body = RefundRequest, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item, or a retry that is not of a failed refund of this item", body = ErrorEnvelope),
))]
pub async fn refund_item(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(request): ApiJson<RefundRequest>,
) -> Result<Json<ToolAnswer>, ApiError> {
    let customer_language =
        customer_language(&state, &caller.tenant, request.locale.as_deref(), &headers).await?;
    let Some((provider, kind)) = state.executor.directory().refund_provider(&caller.tenant).await? else {
        return Err(ApiError::NotConnected(format!(
            "no refund provider is connected for tenant {}; nothing was recorded or sent",
            caller.tenant
        )));
    };
    let (order, item) = order_and_item(
        &state,
        &caller.tenant,
        (&provider, "refund"),
        &request.order_id,
        &request.line_item_id,
    )
    .await?;
    let first = OpId::for_line_item("refund", &order.id, &item.id).map_err(ApiError::invalid)?;
    let currency = Currency::parse(&order.currency).map_err(ApiError::invalid)?;
    let subject = Subject {
        described: Described {
            kind: "refund",
            amount: Some(Money::new(item.amount_minor, currency)),
            item: Some(&item.name),
            provider: &provider,
        },
        order_id: &order.id,
        at_most_once: false,
        customer_language,
    };
    if request.retry_after_failure {
        let failed = request.failed_op_id.as_deref().ok_or_else(|| {
            ApiError::Invalid("failed_op_id: a retry after a failure names the refund that failed".into())
        })?;
        let failed = OpId::parse(failed).map_err(ApiError::invalid)?;
        if !concerns_line_item(failed.as_str(), &order.id, &item.id) {
            return Err(ApiError::Invalid(format!(
                "failed_op_id: {failed} is not a refund of line item {} of order {}",
                item.id, order.id
            )));
        }
        let retry = state.ledger.register_retry(&caller.tenant, &caller.actor, &failed, None, None).await?;
        return Ok(Json(run_registered(&state, &caller, retry, &subject).await?));
    }
    if request.failed_op_id.is_some() {
        return Err(ApiError::Invalid(
            "failed_op_id is read only with retry_after_failure: true; nothing was recorded or sent".into(),
        ));
    }
    let op_id = latest_retry(&state, &caller.tenant, first).await?;
    let params =
        CanonicalParams::from_value(refund_params(kind, &order, &item)).map_err(ApiError::invalid)?;
    let registration = registration(&caller, op_id, "refund", &provider, &order.id, params);
    Ok(Json(run(&state, &caller, registration, &subject).await?))
}

/// The last operation of the chain that starts at `first` and goes on through its retries after
/// failures (`…-retry-2`, `…-retry-3`): the one a new call about the same line item is about.
async fn latest_retry(state: &AppState, tenant: &TenantId, first: OpId) -> Result<OpId, ApiError> {
    let reads = state.ledger.reads();
    let mut latest = first;
    loop {
        let next = latest.retry().map_err(ApiError::invalid)?;
        match reads.load_operation(tenant, &next).await? {
            Some(retry) if retry.retry_of.as_ref() == Some(&latest) => latest = next,
            _ => return Ok(latest),
        }
    }
}

pub(super) fn registration(
    caller: &Caller,
    op_id: OpId,
    kind: &str,
    provider: &str,
    order_id: &str,
    params: CanonicalParams,
) -> RegisterRequest {
    RegisterRequest {
        op_id,
        kind: kind.into(),
        subject: format!("order:{order_id}"),
        provider: provider.into(),
        params,
        requested_by: caller.actor.name.clone(),
        compensates: None,
        on_behalf_of: None,
        server_sends: true,
        key_retention: None,
    }
}

/// Records the operation (or finds it), sends it unless it was already sent, and says how it
/// stands.
pub(super) async fn run(
    state: &AppState,
    caller: &Caller,
    registration: RegisterRequest,
    subject: &Subject<'_>,
) -> Result<ToolAnswer, ApiError> {
    let registered = state.ledger.register(&caller.tenant, &caller.actor, registration).await?;
    run_registered(state, caller, registered, subject).await
}

/// Sends what `registered` recorded unless it was already sent, and says how it stands.
async fn run_registered(
    state: &AppState,
    caller: &Caller,
    registered: Registration,
    subject: &Subject<'_>,
) -> Result<ToolAnswer, ApiError> {
    let recorded = match registered {
        Registration::Created(recorded) | Registration::Existing(recorded) => recorded,
        Registration::Conflict { stored, .. } => {
            return Err(ApiError::Invalid(format!(
                "{} is recorded with other parameters than the order now has; a person must review it",
                stored.operation.op_id
            )))
        }
    };
    let op_id = recorded.operation.op_id.clone();
    if !matches!(recorded.operation.snapshot.state, OpState::Planned | OpState::Approved) {
        return Ok(answer(&recorded.operation, &recorded.external_refs, false, subject));
    }
    let after = state.executor.run(&caller.tenant, &op_id).await?;
    Ok(answer(&after.operation, &after.external_refs, true, subject))
}

/// Work on one line item of an order.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineItemRequest {
    pub order_id: String,
    pub line_item_id: String,
    /// The language to tell the customer in (`en`, `zh-TW`, `zh-CN`).
    #[serde(default)]
    pub locale: Option<String>,
}

/// The order and line item a tool names, read from the tenant's own shop, once it is known that
/// the `provider` the tool sends to (its `service` in words: `refund`) is connected for the tenant.
async fn order_and_item(
    state: &AppState,
    tenant: &TenantId,
    (provider, service): (&str, &str),
    order_id: &str,
    line_item_id: &str,
) -> Result<(Order, LineItem), ApiError> {
    if state.executor.directory().connector(tenant, provider).await?.is_err() {
        return Err(ApiError::NotConnected(format!(
            "no {service} provider is connected for tenant {tenant}; nothing was recorded or sent"
        )));
    }
    let order = shop_order(state, tenant, order_id).await?;
    let item = order.line_item(line_item_id).cloned().ok_or_else(|| {
        ApiError::Invalid(format!("line_item_id: order {} has no line item {line_item_id:?}", order.id))
    })?;
    Ok((order, item))
}

/// The order a tool names, read from the tenant's own shop.
pub(super) async fn shop_order(
    state: &AppState,
    tenant: &TenantId,
    order_id: &str,
) -> Result<Order, ApiError> {
    let orders = state
        .executor
        .directory()
        .orders(tenant)
        .await?
        .map_err(|reason| ApiError::NotConnected(format!("{reason}; nothing was recorded or sent")))?;
    let order = orders
        .order(order_id)
        .await
        .map_err(|reason| {
            ApiError::Unavailable(format!(
                "the shop's orders could not be read ({reason}); nothing was recorded or sent"
            ))
        })?
        .ok_or_else(|| {
            ApiError::Invalid(format!("order_id: no such order {order_id:?} in this tenant's shop"))
        })?;
    Ok(order)
}

/// The tenant's helpdesk for operations of `kind` (`create_aftersale`, `schedule_pickup`): its own
/// connection named `sandbox`, else another of its own that performs `kind` (a helpdesk described
/// as an HTTP API), else the server's after-sale service when it serves the tenant. Its name, and
/// whether it can neither recognise a repeat nor be asked what it did for `kind`, so that a lost
/// answer is told as such (sent at most once, a person checks).
async fn helpdesk(state: &AppState, tenant: &TenantId, kind: &str) -> Result<(String, bool), ApiError> {
    let mut names: Vec<String> =
        state.ledger.reads().provider_connections(tenant).await?.into_iter().map(|c| c.name).collect();
    names.sort_by_key(|name| name != SERVICES_PROVIDER);
    names.push(SERVICES_PROVIDER.to_owned());
    for name in names {
        if let Ok(connector) = state.executor.directory().connector(tenant, &name).await? {
            if connector.action_for(kind).is_some() {
                let at_most_once = connector.capabilities(kind).settles() == Settles::AtMostOnce;
                return Ok((name, at_most_once));
            }
        }
    }
    Err(ApiError::NotConnected(format!(
        "no after-sale and pickup provider is connected for tenant {tenant}; nothing was recorded or sent"
    )))
}

/// Open an after-sale ticket for one line item of an order.
#[utoipa::path(post, path = "/api/v1/tools/create_aftersale", request_body = LineItemRequest, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item", body = ErrorEnvelope),
))]
pub async fn create_aftersale(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(request): ApiJson<LineItemRequest>,
) -> Result<Json<ToolAnswer>, ApiError> {
    let customer_language =
        customer_language(&state, &caller.tenant, request.locale.as_deref(), &headers).await?;
    let (provider, at_most_once) = helpdesk(&state, &caller.tenant, "create_aftersale").await?;
    let (order, item) = order_and_item(
        &state,
        &caller.tenant,
        (&provider, "after-sale and pickup"),
        &request.order_id,
        &request.line_item_id,
    )
    .await?;
    let op_id = OpId::for_line_item("aftersale", &order.id, &item.id).map_err(ApiError::invalid)?;
    let params = CanonicalParams::from_value(json!({"order": order.id, "line_item": item.id}))
        .map_err(ApiError::invalid)?;
    let subject = Subject {
        described: Described {
            kind: "create_aftersale",
            amount: None,
            item: Some(&item.name),
            provider: &provider,
        },
        order_id: &order.id,
        at_most_once,
        customer_language,
    };
    let registration = registration(&caller, op_id, "create_aftersale", &provider, &order.id, params);
    Ok(Json(run(&state, &caller, registration, &subject).await?))
}

/// Schedule the pickup of one line item whose after-sale ticket is open.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PickupRequest {
    pub order_id: String,
    pub line_item_id: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// The language to tell the customer in (`en`, `zh-TW`, `zh-CN`).
    #[serde(default)]
    pub locale: Option<String>,
}

/// Schedule a pickup for a line item's after-sale ticket.
#[utoipa::path(post, path = "/api/v1/tools/schedule_pickup", request_body = PickupRequest, tag = "tools", responses(
    (status = 200, body = ToolAnswer),
    (status = 422, description = "No such order or line item, a malformed date, or no after-sale ticket yet", body = ErrorEnvelope),
))]
pub async fn schedule_pickup(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(request): ApiJson<PickupRequest>,
) -> Result<Json<ToolAnswer>, ApiError> {
    let customer_language =
        customer_language(&state, &caller.tenant, request.locale.as_deref(), &headers).await?;
    let (provider, at_most_once) = helpdesk(&state, &caller.tenant, "schedule_pickup").await?;
    let (order, item) = order_and_item(
        &state,
        &caller.tenant,
        (&provider, "after-sale and pickup"),
        &request.order_id,
        &request.line_item_id,
    )
    .await?;
    let date = chrono::NaiveDate::parse_from_str(&request.date, "%Y-%m-%d")
        .map_err(|_| ApiError::Invalid(format!("date must be YYYY-MM-DD, got {:?}", request.date)))?;
    let ticket_op = OpId::for_line_item("aftersale", &order.id, &item.id).map_err(ApiError::invalid)?;
    let ticket = state
        .ledger
        .reads()
        .operation_history(&caller.tenant, &ticket_op)
        .await?
        .filter(|h| h.operation.snapshot.state == OpState::Succeeded)
        .and_then(|h| h.external_refs.last().map(|r| r.external_id.clone()))
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "{} on order {} has no after-sale ticket yet; create it first",
                item.name, order.id
            ))
        })?;
    let op_id = OpId::parse(&format!("pickup-{}-{}-{date}", order.id, item.id)).map_err(ApiError::invalid)?;
    let params = CanonicalParams::from_value(
        json!({"ticket": ticket, "date": date.to_string(), "order": order.id, "line_item": item.id}),
    )
    .map_err(ApiError::invalid)?;
    let item_on_date = format!("{} on {date}", item.name);
    let subject = Subject {
        described: Described {
            kind: "schedule_pickup",
            amount: None,
            item: Some(&item_on_date),
            provider: &provider,
        },
        order_id: &order.id,
        at_most_once,
        customer_language,
    };
    let registration = registration(&caller, op_id, "schedule_pickup", &provider, &order.id, params);
    Ok(Json(run(&state, &caller, registration, &subject).await?))
}
