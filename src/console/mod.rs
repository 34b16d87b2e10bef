//! The console's slices, one file per page: each holds its page's data (plain serialisable DTOs),
//! its server functions (thin: check the role through [`guard`], call the ledger or a read, map
//! failures to [`AppError`]) and a `#[cfg(feature = "ssr")]` part that builds them. No internal
//! error text ever reaches the browser. The pages' exports and live updates are plain HTTP
//! handlers beside them.

pub mod account;
pub mod admin;
pub mod api_tokens;
pub mod approvals;
pub mod audit;
pub mod bulk;
pub mod conflicts;
pub mod connections;
pub mod desk;
pub mod email_templates;
mod error;
#[cfg(feature = "ssr")]
pub mod exports;
pub mod forms;
#[cfg(feature = "ssr")]
pub mod guard;
pub mod language;
#[cfg(feature = "ssr")]
pub mod live;
pub mod notifications;
pub mod operation;
pub mod operations;
pub mod orders;
pub mod overview;
pub mod people;
pub mod reconcile;
pub mod retention;
pub mod saved_views;
pub mod search;
pub mod shell;
pub mod sso;
pub mod two_factor;
pub mod webhooks;

pub use error::AppError;
