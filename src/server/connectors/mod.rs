//! Connectors: how opledger sends an operation to its provider with the operation's idempotency
//! key and stored parameters, how it looks the operation up again by its op id, and how every
//! answer maps onto the domain's failure classes.

mod http;
mod services;
mod stripe;

use async_trait::async_trait;

pub use services::ServicesConnector;
pub use stripe::StripeConnector;

use super::store::records::{AttemptReport, OperationRecord};
use crate::domain::machine::AttemptOutcome;

/// What one send produced: the outcome for the state machine and what was observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub outcome: AttemptOutcome,
    pub report: AttemptReport,
}

/// What a lookup downstream found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found {
        external_id: String,
        evidence: String,
    },
    /// The provider answered and has no object for the op id (which, right after a send, proves
    /// nothing: indexes lag).
    NotFound {
        evidence: String,
    },
    /// The provider could not be asked or did not answer clearly.
    Unavailable {
        reason: String,
    },
}

#[async_trait]
pub trait Connector: Send + Sync {
    /// Sends the operation once, with its idempotency key and stored parameters.
    async fn send(&self, operation: &OperationRecord) -> Sent;

    /// Looks the operation up at the provider by its op id (written into the object's metadata).
    async fn look_up(&self, operation: &OperationRecord) -> Lookup;
}
