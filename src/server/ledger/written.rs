//! The operations this process wrote last, as their write committed them, with their attempts and
//! external ids: the ledger decides the next change of one from here instead of reading it again
//! (an agent's begin follows its register, its outcome follows its begin), and the store builds
//! the change's answer from it instead of reading the attempts back. A copy is only a guess: the write is guarded by the
//! operation's version, so a decision made from a copy another instance has since outdated is
//! refused by the store, and a refusal by the domain made from a copy is not answered; in both
//! cases the ledger reads the operation and decides anew. Operations are never deleted, so one
//! version of one operation names one content.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::domain::ids::{OpId, TenantId};
use crate::domain::operation::CommittedOperation;

/// How many operations are kept; past it, the oldest half is dropped.
const MOST_KEPT: usize = 10_000;

/// Recently written operations as last committed, by tenant and op id; shared by the clones of
/// the ledger.
#[derive(Clone, Default)]
pub struct Written {
    kept: Arc<Mutex<Kept>>,
}

#[derive(Default)]
struct Kept {
    records: HashMap<(TenantId, OpId), (u64, CommittedOperation)>,
    /// Counts the records kept, to tell the oldest apart.
    kept_count: u64,
}

impl Written {
    /// Keeps `committed` as its operation's last committed state.
    pub fn keep(&self, committed: CommittedOperation) {
        let mut kept = self.kept.lock().expect("the copies' lock is never poisoned");
        if kept.records.len() >= MOST_KEPT {
            let oldest_kept = kept.kept_count.saturating_sub((MOST_KEPT / 2) as u64);
            kept.records.retain(|_, (order, _)| *order >= oldest_kept);
        }
        kept.kept_count += 1;
        let order = kept.kept_count;
        let key = (committed.operation.tenant.clone(), committed.operation.op_id.clone());
        kept.records.insert(key, (order, committed));
    }

    /// Takes the kept copy of `op_id`, if any: a change decided from it keeps its result, and a
    /// concurrent change of the same operation reads the store.
    pub fn take(&self, tenant: &TenantId, op_id: &OpId) -> Option<CommittedOperation> {
        let mut kept = self.kept.lock().expect("the copies' lock is never poisoned");
        kept.records.remove(&(tenant.clone(), op_id.clone())).map(|(_, record)| record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::machine::Snapshot;
    use crate::domain::operation::OperationRecord;
    use crate::domain::params::CanonicalParams;

    fn committed(tenant: &str, op_id: &str) -> CommittedOperation {
        let params = CanonicalParams::from_value(serde_json::json!({"payment_intent": "pi_1"})).unwrap();
        let snapshot = Snapshot::new("agent-7", params.fingerprint(), false, chrono::Duration::hours(24));
        let operation = OperationRecord {
            tenant: TenantId::parse(tenant).unwrap(),
            op_id: OpId::parse(op_id).unwrap(),
            kind: "refund".into(),
            subject: "order:1".into(),
            provider: "stripe".into(),
            params,
            idempotency_key: format!("{tenant}:{op_id}"),
            compensates: None,
            retry_of: None,
            action: None,
            server_sends: false,
            snapshot,
            accepted_at: None,
            version: 1,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        };
        CommittedOperation { operation, attempts: Vec::new(), external_refs: Vec::new() }
    }

    #[test]
    fn a_copy_is_taken_once_and_only_by_its_own_tenant() {
        let written = Written::default();
        written.keep(committed("acme", "op-1"));
        let (acme, globex, op) = (
            TenantId::parse("acme").unwrap(),
            TenantId::parse("globex").unwrap(),
            OpId::parse("op-1").unwrap(),
        );
        assert_eq!(written.take(&globex, &op), None, "another tenant's operation of the same id");
        assert_eq!(written.take(&acme, &op).map(|kept| kept.operation.version), Some(1));
        assert_eq!(written.take(&acme, &op), None, "taken: a concurrent change reads the store");
    }

    #[test]
    fn the_number_kept_is_bounded_and_the_latest_stay() {
        let written = Written::default();
        for n in 0..MOST_KEPT + 5 {
            written.keep(committed("acme", &format!("op-{n}")));
        }
        let acme = TenantId::parse("acme").unwrap();
        assert!(written.kept.lock().unwrap().records.len() <= MOST_KEPT);
        let latest = OpId::parse(&format!("op-{}", MOST_KEPT + 4)).unwrap();
        assert!(written.take(&acme, &latest).is_some(), "the latest copy is kept");
        assert!(written.take(&acme, &OpId::parse("op-0").unwrap()).is_none(), "the oldest went first");
    }
}
