//! Console requests done once: every form carries an idempotency key made by the server; the
//! first request with a key claims it, a resent form gets the first answer back, and a refused
//! request frees its key so that the corrected form can be sent again. The change a request asks
//! for records its answer in its own transaction, so a crash after the change leaves an answer,
//! never a claim in progress.

use super::Ledger;
use crate::domain::ids::TenantId;
use crate::server::clock::now;
use crate::server::store::records::{RequestAnswer, RequestClaim};
use crate::server::store::StoreError;

/// A console request being carried out: the key its form carried and who sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleRequest {
    pub key: String,
    pub requested_by: String,
}

impl ConsoleRequest {
    /// `answer` to this request, to record with the change it asked for.
    pub fn answered(&self, answer: impl Into<String>) -> RequestAnswer {
        RequestAnswer {
            key: self.key.clone(),
            requested_by: self.requested_by.clone(),
            answer: answer.into(),
        }
    }
}

/// A fresh idempotency key for the forms of one page.
pub fn form_key() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

impl Ledger {
    /// Claims `key` for `requested_by`'s console request (`request` says what it asks, so a key
    /// cannot be replayed for something else), or says what became of the request that claimed it.
    pub async fn claim_request(
        &self,
        tenant: &TenantId,
        key: &str,
        requested_by: &str,
        request: &str,
    ) -> Result<RequestClaim, StoreError> {
        self.store.claim_request(tenant, key, requested_by, request, now()).await
    }

    /// Records the answer to a claimed request, or, with `None`, frees its key.
    pub async fn answer_request(
        &self,
        tenant: &TenantId,
        key: &str,
        answer: Option<&str>,
    ) -> Result<(), StoreError> {
        self.store.answer_request(tenant, key, answer).await
    }
}
