//! The HTTP surface shared by everything on the server: the request state, console sessions (sign-in
//! and sign-out, CSRF tokens, sign-in through a tenant's identity provider), the security headers, the bundle's assets and their caching, abuse
//! limits, health, metrics, each tenant's changes for live pages, the ledger API and MCP server that
//! agents call with bearer tokens, and the intake of providers' own webhooks.

pub mod assets;
pub mod auth;
pub mod changes;
pub mod health;
pub mod ledger_api;
pub mod limits;
pub mod listed;
pub mod mcp;
pub mod metrics;
pub mod oidc;
pub mod password_reset;
pub mod provider_webhooks;
pub mod security;
pub mod state;
