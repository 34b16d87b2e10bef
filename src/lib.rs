//! opledger: a ledger for side-effecting operations.
pub mod domain;
