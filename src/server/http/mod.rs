//! The HTTP surface shared by everything on the server: the request state, console sessions (sign-in
//! and sign-out, CSRF tokens), the security headers, abuse limits, health, and the ledger API that agents call
//! with bearer tokens.

pub mod auth;
pub mod health;
pub mod ledger_api;
pub mod limits;
pub mod listed;
pub mod security;
pub mod state;
