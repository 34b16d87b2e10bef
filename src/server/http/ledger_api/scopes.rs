//! Which scope each route that takes an API token needs: one table for the ledger API
//! (`/api/v1/…`) and the MCP server (`/mcp`), read by the bearer-token extractor on every call
//! with the route it matched. A route missing here is refused (and a test walks every route of
//! the router against this table, so that none can be added without a rule).

use axum::http::Method;

use crate::domain::api_token::Scope;

/// What a route asks of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Nothing: no token is read (the OpenAPI document).
    Public,
    /// A token with this scope.
    Scope(Scope),
}

/// Every route that agents call, by method and path as the router lists them, with what it needs.
pub const ROUTE_SCOPES: &[(&str, &str, Need)] = &[
    ("GET", "/api/v1/openapi.json", Need::Public),
    ("POST", "/api/v1/operations", Need::Scope(Scope::Write)),
    ("GET", "/api/v1/operations/{op_id}", Need::Scope(Scope::Read)),
    ("POST", "/api/v1/operations/{op_id}/attempts", Need::Scope(Scope::Write)),
    ("POST", "/api/v1/operations/{op_id}/attempts/{attempt}/outcome", Need::Scope(Scope::Write)),
    ("POST", "/api/v1/operations/{op_id}/cancel", Need::Scope(Scope::Write)),
    ("GET", "/api/v1/subjects/{subject}/operations", Need::Scope(Scope::Read)),
    ("POST", "/api/v1/tools/refund_item", Need::Scope(Scope::Tools)),
    ("POST", "/api/v1/tools/create_aftersale", Need::Scope(Scope::Tools)),
    ("POST", "/api/v1/tools/schedule_pickup", Need::Scope(Scope::Tools)),
    ("POST", "/api/v1/tools/send_customer_email", Need::Scope(Scope::Tools)),
    // MCP's streamable HTTP: every method of its one path is the agent tools (its read and cancel
    // tools included, as an agent sees them all through one connection).
    ("POST", "/mcp", Need::Scope(Scope::Tools)),
    ("GET", "/mcp", Need::Scope(Scope::Tools)),
    ("DELETE", "/mcp", Need::Scope(Scope::Tools)),
];

/// What the route `method path` (as the router lists it, `{param}` and all) needs; `None` for a
/// route missing from [`ROUTE_SCOPES`].
pub fn need_of(method: &Method, path: &str) -> Option<Need> {
    ROUTE_SCOPES
        .iter()
        .find(|(listed_method, listed_path, _)| *listed_method == method.as_str() && *listed_path == path)
        .map(|(_, _, need)| *need)
}

/// Whether `path` is a route that agents call with a token (and so needs a row in [`ROUTE_SCOPES`]).
pub fn is_for_tokens(path: &str) -> bool {
    path.starts_with("/api/") || path == "/mcp"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_writes_and_tools_each_have_their_routes() {
        assert_eq!(need_of(&Method::GET, "/api/v1/operations/{op_id}"), Some(Need::Scope(Scope::Read)));
        assert_eq!(need_of(&Method::POST, "/api/v1/operations"), Some(Need::Scope(Scope::Write)));
        assert_eq!(need_of(&Method::POST, "/mcp"), Some(Need::Scope(Scope::Tools)));
        assert_eq!(need_of(&Method::PUT, "/api/v1/operations"), None);
        for scope in Scope::ALL {
            assert!(
                ROUTE_SCOPES.iter().any(|(_, _, need)| *need == Need::Scope(scope)),
                "{scope:?} has routes"
            );
        }
    }

    #[test]
    fn no_route_is_listed_twice() {
        for (i, (method, path, _)) in ROUTE_SCOPES.iter().enumerate() {
            assert!(
                !ROUTE_SCOPES[..i].iter().any(|(m, p, _)| m == method && p == path),
                "{method} {path} is listed twice"
            );
        }
    }
}
