//! Integration tests: the real application on a real socket, on a fresh SQLite file or a fresh
//! PostgreSQL database per test, and the real binary for the command line.

mod adyen_paypal;
mod assets;
mod audit;
mod authorization;
mod boundaries;
mod cli;
mod connections;
mod console_words;
mod demo;
mod described;
mod email;
mod exports;
mod group_commit;
mod health;
mod instances;
mod languages;
mod ledger_api;
mod mcp;
mod operating;
mod orders;
mod outcomes;
mod pages;
mod sandbox;
mod scenarios;
mod security;
mod store;
mod support;
mod tools;
mod traces;
mod workflows;
