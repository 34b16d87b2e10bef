//! The state shared by every request handler and server function.

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use std::sync::Arc;

use super::executor::Executor;
use super::ledger::Ledger;
use super::store::Store;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    /// The one service through which every change passes.
    pub ledger: Ledger,
    /// Sends operations to their providers (the agent tools use it).
    pub executor: Executor,
    pub leptos_options: LeptosOptions,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
