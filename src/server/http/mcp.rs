//! The agent tools as a Model Context Protocol server: `/mcp`, streamable HTTP (`rmcp`), answered
//! by this process beside the ledger API. Every request carries the tenant's API token as
//! `Authorization: Bearer <token>` (within the token's rate limit); without a valid one it gets 401
//! with `WWW-Authenticate`, and a token without the `tools` scope gets 403. The side-effecting
//! tools are the ledger's (`ledger::tools`), with the same arguments as over the ledger API; the
//! others read and cancel through the same functions as the ledger API's operation calls. So an
//! MCP call and an HTTP call do the same thing, answer in the same words, and leave the same audit
//! events under the token's name:
//!
//! - `refund_item`, `create_aftersale`, `schedule_pickup`, `send_customer_email`: side effects,
//!   derived from the order (a model never passes an amount, an address or a key), safe to call
//!   again (`idempotentHint`);
//! - `get_operation` (which can wait up to a minute for the operation's state to change, as the
//!   ledger API's read does), `order_operations`: read only;
//! - `cancel_operation`: stops an operation not sent yet; on one in flight it records the stop.
//!
//! Sessions are not kept (every request stands alone), so any instance answers any request.

use axum::{
    body::Body,
    extract::{FromRequestParts, Request, State},
    http::{header, request::Parts, HeaderValue},
    response::{IntoResponse, Response},
};
use rmcp::{
    handler::server::{router::tool::ToolRouter, tool::Extension, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    schemars::{self, JsonSchema},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        session::never::NeverSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    },
    ErrorData, ServerHandler,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower::ServiceExt;

use super::ledger_api::error::ApiError;
use super::ledger_api::extract::Caller;
use super::ledger_api::operations;
use super::state::{AppState, Endpoint};
use crate::server::ledger::tools::{
    EmailArgs, LineItemArgs, PickupArgs, RefundArgs, ToolAnswer, ToolError, Tools,
};

/// The `/mcp` service, accepting requests whose `Host` is one of `allowed_hosts` (host names or
/// `host:port`); the loopback names when there are none.
pub fn service(allowed_hosts: &[String]) -> Endpoint {
    let mut config =
        StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true);
    if !allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(allowed_hosts.iter().cloned());
    }
    let service: StreamableHttpService<LedgerTools, NeverSessionManager> = StreamableHttpService::new(
        || Ok(LedgerTools::new()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let answered = ServiceExt::<Request>::map_response(service, |response: axum::http::Response<_>| {
        response.map(Body::new)
    });
    Endpoint::new(answered)
}

/// `/mcp`: checks the bearer token, then hands the request, with its caller and the application,
/// to the MCP service.
pub async fn endpoint(State(state): State<AppState>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    match Caller::from_request_parts(&mut parts, &state).await {
        Ok(caller) => {
            parts.extensions.insert(caller);
            parts.extensions.insert(state.clone());
            let request = Request::from_parts(parts, body);
            match state.mcp.clone().oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        }
        Err(ApiError::Unauthorized) => {
            let mut response = ApiError::Unauthorized.into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(r#"Bearer realm="opledger", error="invalid_token""#),
            );
            response
        }
        Err(ApiError::MissingScope(scope)) => {
            let mut response = ApiError::MissingScope(scope).into_response();
            let challenge =
                format!(r#"Bearer realm="opledger", error="insufficient_scope", scope="{}""#, scope.as_str());
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            }
            response
        }
        Err(refused) => refused.into_response(),
    }
}

/// One operation, by its op id.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OperationArgs {
    /// The op id a tool answered with, e.g. "refund-1043-li_2".
    pub op_id: String,
    /// Wait up to this many seconds (0 to 60) for the operation's state to change, e.g. 30 while a
    /// refund waits for a manager's approval: the answer comes as soon as the state changes, else
    /// after the wait with the state unchanged. Left out or 0, the answer comes at once.
    #[schemars(range(max = 60))]
    pub wait_seconds: Option<u32>,
    /// The state you last saw, e.g. "pending_approval": with wait_seconds, the answer comes at once
    /// if the state already differs from it.
    pub state: Option<String>,
}

/// One order.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OrderArgs {
    /// The order's id in the shop, e.g. "1043".
    pub order_id: String,
}

/// The stop of one operation.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CancelArgs {
    /// The op id to stop, e.g. "refund-1043-li_2".
    pub op_id: String,
    /// Why, in a few words, for the people who read the audit trail.
    pub reason: Option<String>,
}

/// The tools an agent sees.
#[derive(Clone)]
pub struct LedgerTools {
    tool_router: ToolRouter<Self>,
}

impl Default for LedgerTools {
    fn default() -> Self {
        Self::new()
    }
}

/// The caller and the application `endpoint` put into the request.
fn context(parts: &Parts) -> Result<(Caller, AppState), ErrorData> {
    let caller = parts.extensions.get::<Caller>().cloned();
    let state = parts.extensions.get::<AppState>().cloned();
    caller
        .zip(state)
        .ok_or_else(|| ErrorData::internal_error("the request reached the tools without its token", None))
}

/// The side-effecting tools for `caller`, in the language the request's headers ask for.
fn tools_for<'a>(state: &'a AppState, caller: &'a Caller) -> Tools<'a> {
    Tools::new(&state.executor, &caller.tenant, &caller.actor, caller.language)
}

/// A tool's answer to `caller` as a tool result, its refusal in the ledger API's words.
fn tool_result(caller: &Caller, answer: Result<ToolAnswer, ToolError>) -> CallToolResult {
    result(answer.map_err(|error| ApiError::from(error).told_in(caller.language)))
}

/// A ledger API answer as a tool result: its words first (a tool's `message`, else the JSON), the
/// JSON as structured content; a refusal as a tool error in its words.
fn result<T: Serialize>(answer: Result<T, ApiError>) -> CallToolResult {
    match answer {
        Ok(value) => {
            let value = serde_json::to_value(value).unwrap_or_default();
            let words = value.get("message").and_then(|m| m.as_str()).map(str::to_owned);
            let mut result = CallToolResult::structured(value);
            if let Some(words) = words {
                result.content = vec![ContentBlock::text(words)];
            }
            result
        }
        Err(refusal) => CallToolResult::error(vec![ContentBlock::text(refusal_words(refusal))]),
    }
}

/// What the ledger API would answer for `refusal`, as a sentence; another tenant's operation is
/// no such operation, as over HTTP.
fn refusal_words(refusal: ApiError) -> String {
    let (_, code, message, _) = refusal.described();
    format!("{message} ({code})")
}

#[tool_router]
impl LedgerTools {
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(
        description = "Refund one line item of a customer's order, for the amount the customer paid for it (read from the shop; never pass an amount). Recorded before it is sent, under an id derived from the order and the line item, so calling again for the same item is safe: it never refunds twice and answers \"already done\". If the answer says the result is unknown, or that the provider accepted it and the bank has not confirmed it, do not call again: it is being followed, and you can tell the customer it is being processed. Only if the answer's status is \"failed_at_provider\" (nothing moved) may you refund it again, with retry_after_failure: true and failed_op_id.",
        annotations(
            title = "Refund a line item",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn refund_item(
        &self,
        Parameters(args): Parameters<RefundArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        Ok(tool_result(&caller, tools_for(&state, &caller).refund_item(args).await))
    }

    #[tool(
        description = "Open an after-sale ticket for one line item of a customer's order. Calling again for the same item is safe: it opens one ticket and answers \"already done\". If the result is unknown, do not call again: it is being checked.",
        annotations(
            title = "Open an after-sale ticket",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn create_aftersale(
        &self,
        Parameters(args): Parameters<LineItemArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        Ok(tool_result(&caller, tools_for(&state, &caller).create_aftersale(args).await))
    }

    #[tool(
        description = "Schedule the pickup of one line item whose after-sale ticket is open, on a date (YYYY-MM-DD). Calling again with the same date is safe: one pickup; another date is another pickup. If the result is unknown, do not call again: it is being checked.",
        annotations(
            title = "Schedule a pickup",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn schedule_pickup(
        &self,
        Parameters(args): Parameters<PickupArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        Ok(tool_result(&caller, tools_for(&state, &caller).schedule_pickup(args).await))
    }

    #[tool(
        description = "Send one of the shop's email templates (by name, e.g. \"refund_issued\") to the customer of an order: the address and the text come from the shop and the template, never from you. Calling again for the same order and template is safe: one email. If the answer says nobody can tell whether it arrived, do not call again: a person checks.",
        annotations(
            title = "Email a customer",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn send_customer_email(
        &self,
        Parameters(args): Parameters<EmailArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        Ok(tool_result(&caller, tools_for(&state, &caller).send_customer_email(args).await))
    }

    #[tool(
        description = "Read one operation as the ledger records it: its state (succeeded, unknown: being checked, pending_approval, ...), parameters, every attempt and external id. Changes nothing. To hear a decision without calling again and again (a refund pending_approval waits for a manager), pass wait_seconds (at most 60): the answer comes as soon as the state changes, within about a second, or after the wait with the state unchanged; then you may call again.",
        annotations(title = "Read an operation", read_only_hint = true, open_world_hint = false)
    )]
    async fn get_operation(
        &self,
        Parameters(args): Parameters<OperationArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        let view = async {
            let seconds = args.wait_seconds.unwrap_or(0);
            let wait = operations::Wait::new(seconds, args.state.as_deref(), "wait_seconds")?;
            operations::operation_view(&state, &caller.tenant, &args.op_id, wait).await
        };
        Ok(result(view.await.map_err(|error| error.told_in(caller.language))))
    }

    #[tool(
        description = "Read every operation of one order with the order's roll-up: whether it is done, partly done or waiting for a confirmation, and what was refunded in fact. Changes nothing.",
        annotations(title = "Read an order's operations", read_only_hint = true, open_world_hint = false)
    )]
    async fn order_operations(
        &self,
        Parameters(args): Parameters<OrderArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        let subject = format!("order:{}", args.order_id);
        Ok(result(operations::subject_view(&state, &caller.tenant, subject).await))
    }

    #[tool(
        description = "Stop an operation. One not sent yet is cancelled and never sent; on one already sent the stop is recorded, but what may have happened is not undone: the answer says so. Calling again is safe.",
        annotations(
            title = "Stop an operation",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn cancel_operation(
        &self,
        Parameters(args): Parameters<CancelArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        let (caller, state) = context(&parts)?;
        let reason = args.reason.unwrap_or_default();
        let op_id = operations::op_id_of(&args.op_id);
        Ok(result(async { operations::cancel_operation(&state, &caller, &op_id?, reason).await }.await))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LedgerTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("opledger", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Side-effecting tools for a shop's support work: refunds, after-sale tickets and pickups. \
                 Each is recorded before it is sent and can be called again safely: it never happens twice. \
                 When an answer says the result is unknown, do not call again; it is being checked. \
                 Tell the customer what the answer's message suggests.",
            )
    }
}
