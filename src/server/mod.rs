//! Everything that runs only on the server: the command line, telemetry, startup and routing, the
//! shared state of request handlers, and the durable store.

pub mod accounts;
pub mod actions;
pub mod auth;
pub mod catalogue;
pub mod cli;
pub mod connectors;
pub mod demo;
pub mod executor;
pub mod export;
pub mod health;
pub mod ledger;
pub mod ledger_api;
pub mod live;
pub mod reconciler;
pub mod sandbox;
pub mod startup;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod tokens;
pub mod tools;
pub mod views;
pub mod workflows;
