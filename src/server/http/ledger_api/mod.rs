//! The ledger API (`/api/v1`): JSON over HTTP for agents and tool wrappers. Every call carries
//! `Authorization: Bearer <token>` and sees only the token's tenant: another tenant's operation
//! is a 404, with no hint that it exists. A token calls only the routes its scopes open
//! ([`scopes`]: tools, read, write); another route answers 403 naming the scope it lacks. Errors are `{"error": {"code", "message", ...}}` with
//! stable codes; internal causes go to the log, never into the answer.

use axum::{extract::DefaultBodyLimit, Json};
use utoipa::OpenApi;

use crate::domain::operation::AttemptRecord;
use crate::server::http::limits::{limit_api_by_address, Limits};
use crate::server::http::listed::ListedRouter;
use crate::server::http::state::AppState;
use crate::server::ledger::tools::{EmailArgs, LineItemArgs, PickupArgs, RefundArgs, ToolAnswer, ToolStatus};
use error::{ApiError, ErrorDetail, ErrorDetails, ErrorEnvelope};
use operations::*;
use std::sync::Arc;
use views::{KeyView, OperationView};

pub mod error;
pub mod extract;
pub mod locale;
pub mod operations;
pub mod scopes;
pub mod tools;
pub mod views;

/// Request bodies larger than this are refused with 413.
pub const BODY_LIMIT_BYTES: usize = 64 * 1024;

/// The API's routes, each call within the per-address limit of `limits` (the per-token one is
/// checked with the token).
pub fn routes(limits: Arc<Limits>) -> ListedRouter<AppState> {
    ListedRouter::default()
        .post("/operations", register)
        .get("/operations/{op_id}", read_operation)
        .post("/operations/{op_id}/attempts", begin_attempt)
        .post("/operations/{op_id}/attempts/{attempt}/outcome", record_outcome)
        .post("/operations/{op_id}/cancel", cancel)
        .get("/subjects/{subject}/operations", subject_operations)
        .get("/openapi.json", openapi)
        .nest("/tools", tools::routes())
        .map(|router| {
            router
                .fallback(|| async { ApiError::NoSuchRoute })
                .layer(DefaultBodyLimit::max(BODY_LIMIT_BYTES))
                .layer(axum::middleware::from_fn_with_state(limits, limit_api_by_address))
        })
}

#[derive(OpenApi)]
#[openapi(
    info(title = "opledger ledger API", version = "1", description = "Record side-effecting operations before they are sent, report every attempt, and never do a thing twice."),
    paths(operations::register, operations::read_operation, operations::begin_attempt, operations::record_outcome, operations::cancel, operations::subject_operations, tools::refund_item, tools::create_aftersale, tools::schedule_pickup, tools::send_customer_email),
    components(schemas(crate::domain::machine::State, crate::domain::params::FieldDiff, crate::domain::money::Money, crate::domain::policy::Approval, ErrorEnvelope, ErrorDetail, ErrorDetails, RegisterBody, OutcomeBody, OutcomeName, CancelBody, OperationView, AttemptRecord, KeyView, AttemptStarted, BeginBody, OperationAnswer, SubjectView,
        ToolAnswer, ToolStatus, LineItemArgs, RefundArgs, PickupArgs, EmailArgs)),
    modifiers(&BearerToken, &ScopeResponses),
    security(("bearer" = [])),
)]
struct LedgerApiDoc;

struct BearerToken;

impl utoipa::Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// Says on every operation of the document which scope its token needs (from
/// [`scopes::ROUTE_SCOPES`], the table the server enforces) and adds the answers every call that
/// takes a token may get: 401, 403, 429 and 503 (for a tool, also its provider's absence), and
/// 413 for those with a body.
struct ScopeResponses;

impl utoipa::Modify for ScopeResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use axum::http::Method;
        use scopes::{need_of, Need};
        use crate::domain::api_token::Scope;
        use utoipa::openapi::{content::Content, HeaderBuilder, ObjectBuilder, Ref, RefOr, ResponseBuilder, Type};
        let answer = |description: &str| {
            let envelope = Content::new(Some(RefOr::Ref(Ref::from_schema_name("ErrorEnvelope"))));
            ResponseBuilder::new().description(description).content("application/json", envelope)
        };
        let error = |description: &str| RefOr::T(answer(description).build());
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in [(Method::GET, item.get.as_mut()), (Method::POST, item.post.as_mut())]
            {
                let (Some(operation), Some(Need::Scope(scope))) = (operation, need_of(&method, path)) else {
                    continue;
                };
                let needs = format!("Needs a token with the `{}` scope.", scope.as_str());
                operation.description = Some(match operation.description.take() {
                    Some(description) => format!("{description}\n\n{needs}"),
                    None => needs,
                });
                let responses = &mut operation.responses.responses;
                responses.entry("401".into()).or_insert_with(|| {
                    error("No valid token: unknown, revoked, expired, or an old secret past its rotation's grace (`unauthorized`)")
                });
                responses.entry("403".into()).or_insert_with(|| {
                    error("The token lacks the scope this call needs (`insufficient_scope`, with `scope`)")
                });
                responses.entry("429".into()).or_insert_with(|| {
                    let seconds = HeaderBuilder::new()
                        .schema(ObjectBuilder::new().schema_type(Type::Integer))
                        .description(Some("Seconds to wait before calling again"))
                        .build();
                    let limited = answer("Over the calls this token or address may make (`rate_limited`); `Retry-After` says when to come back");
                    RefOr::T(limited.header("Retry-After", seconds).build())
                });
                responses.entry("503".into()).or_insert_with(|| match scope {
                    Scope::Tools => error("Nothing was recorded or sent: the tenant has no connection for what the tool needs (`provider_not_connected`), its shop could not be asked (`provider_unavailable`), the operation is changing too often right now (`contended`), or the database cannot be reached (`internal`); the same call goes through once that is mended"),
                    _ => error("Nothing was done; try again: the operation is changing too often right now (`contended`), or the database cannot be reached (`internal`)"),
                });
                if method == Method::POST {
                    responses.entry("413".into()).or_insert_with(|| {
                        error("The body is larger than 64 KiB (`body_too_large`)")
                    });
                }
            }
        }
    }
}

/// The OpenAPI 3 document of this API, generated from the handlers and types above.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    LedgerApiDoc::openapi()
}

async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(openapi_document())
}
