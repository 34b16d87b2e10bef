//! Everything that runs only on the server, arranged by role, with dependencies running one way:
//! [`store`], [`providers`] and [`archive`] (the Parquet files retention writes) know only the
//! domain; [`ledger`] (the one service every audited
//! write passes through, with the executor and the reconciler) builds on them; [`http`] (sessions,
//! the shared request state, the agents' API) and [`demo`] build on the ledger; the console's
//! server functions (in `crate::console`) build on those; [`app`] wires everything together.
//! [`clock`], [`egress`] (which addresses tenants' URLs may reach), [`metrics`] and [`telemetry`]
//! are leaves that anything may use.

pub mod app;
pub mod archive;
pub mod clock;
pub mod demo;
pub mod egress;
pub mod http;
pub mod ledger;
pub mod metrics;
pub mod notify;
pub mod providers;
pub mod sandbox;
pub mod store;
pub mod telemetry;
