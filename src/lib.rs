//! opledger: a ledger for side-effecting operations. Every operation is recorded before it is
//! sent, under an id derived from its business intent; unknown results are settled by lookups,
//! never by doing the thing twice.
//!
//! Three zones:
//! - [`domain`]: pure types and rules, compiled for the server and the browser;
//! - [`console`] (one slice per page: its data, server functions and the server part that builds
//!   them) and [`ui`] (pages and components), also on both sides, with [`app`] holding the route
//!   table;
//! - `server` (only with the `ssr` feature): the store, providers, the ledger service, HTTP, and
//!   the application's wiring.

pub mod app;
pub mod console;
pub mod domain;
#[cfg(feature = "ssr")]
pub mod server;

/// The server's allocator (and that of its tests and benches, so that they measure what runs):
/// mimalloc, which spends less of the write path's CPU than the system's malloc and free.
#[cfg(feature = "ssr")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
pub mod ui;

/// Entry point of the browser bundle: takes the page's words, then hydrates the islands of the
/// server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    let words = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id(domain::language::page_words::ELEMENT_ID))
        .and_then(|element| element.text_content());
    domain::language::page_words::install(words.as_deref().unwrap_or("{}"));
    leptos::mount::hydrate_islands();
}
