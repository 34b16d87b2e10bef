//! The pure domain of opledger: ids, money, API tokens' scopes and expiry, canonical parameters, the operation state machine, who holds what on the support desk and its internal notes, saved views of the operations list,
//! failure classes, the declarative description of a tenant's own HTTP API, roles and approval rules, the rules of signing in through a tenant's identity provider, the order roll-up, webhook events, and operations in
//! plain words, notification rules and what a notification says on each channel, and retention's
//! rules with the archive's manifests.
//!
//! Nothing here performs I/O or reads a clock: time is always passed in. The module compiles for
//! the server and for the browser, so the console and the ledger ask the same functions.

pub mod api_token;
pub mod archive;
pub mod audit;
pub mod compensation;
pub mod connection;
pub mod desk;
pub mod ecpay;
pub mod email;
pub mod failure;
pub mod gateway;
pub mod http_api;
pub mod ids;
pub mod language;
#[cfg(feature = "ssr")]
pub mod linepay;
pub mod machine;
pub mod money;
pub mod note;
pub mod notice;
pub mod notification;
pub mod operation;
pub mod params;
pub mod people;
pub mod policy;
pub mod rollup;
#[cfg(feature = "ssr")]
pub mod saved_view;
pub mod sso;
pub mod two_factor;
pub mod webhook;
pub mod wording;
