//! Integration tests: the real application on a real socket, on a fresh SQLite file or a fresh
//! PostgreSQL database per test, and the real binary for the command line. A file is named after
//! the docs page whose promises it tests (`any_downstream.rs` tests `docs/any-downstream.md`).

mod adyen_paypal;
mod any_downstream;
mod assets;
mod audit;
mod authorization;
mod boundaries;
mod cli;
mod console_words;
mod demo;
mod desk;
mod ecpay;
mod email;
mod exports;
mod group_commit;
mod health;
mod instances;
mod keyless;
mod languages;
mod ledger_api;
mod linepay;
mod mcp;
mod notifications;
mod notify_channels;
mod notify_console;
mod operating;
mod orders;
mod pages;
mod people;
mod provider_outcomes;
mod reconcile;
mod retention;
mod retention_reads;
mod sandbox;
mod security;
mod sso;
mod store;
mod support;
mod tenant_accounts;
mod tokens;
mod tools;
mod traces;
mod two_factor;
mod workflows;
