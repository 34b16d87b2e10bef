//! opledger: a ledger for side-effecting operations. Every operation is recorded before it is
//! sent, under an id derived from its business intent; unknown results are settled by lookups,
//! never by doing the thing twice.
//!
//! Three zones:
//! - [`domain`]: pure types and rules, compiled for the server and the browser;
//! - [`api`] (server functions) and [`ui`] (pages and components), also on both sides, with
//!   [`app`] holding the route table;
//! - `server` (only with the `ssr` feature): configuration, startup, the store and HTTP handlers.

pub mod api;
pub mod app;
pub mod domain;
#[cfg(feature = "ssr")]
pub mod server;
pub mod ui;

/// Entry point of the browser bundle: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
