//! Audit records and their hash chain. Every state change and every human or API action is one
//! record; each tenant's records form a chain in which a record's hash covers the previous hash and
//! the record's own canonical content, so an edited, deleted or reordered record breaks the chain
//! and can be found offline.
//!
//! `hash = hex(SHA-256(prev_hash + "\n" + canonical JSON of the record without prev_hash and hash))`,
//! the canonical JSON being the one of [`super::params`] (sorted keys, no whitespace). The first
//! record of a tenant has `prev_hash` = 64 zeros.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::params::canonical_json;

/// Every action the audit trail records besides the state machine's commands
/// ([`super::machine::CommandKind`]): an operation registered, a conflicting request refused, and
/// the admin's changes.
pub const OTHER_AUDIT_ACTIONS: [&str; 17] = [
    "register",
    "refuse_conflict",
    "add_user",
    "create_api_token",
    "revoke_api_token",
    "rotate_api_token",
    "reassign_api_token",
    "add_approval_rule",
    "remove_approval_rule",
    "set_provider_connection",
    "set_provider_webhook_secret",
    "remove_provider_connection",
    "set_email_template",
    "remove_email_template",
    "set_retention",
    "remove_retention",
    "archive_operations",
];

/// The `prev_hash` of a tenant's first record.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Times in audit records: RFC 3339 in UTC with exactly six fractional digits, the form the hash
/// covers, so that an exported line can be re-hashed as it stands.
mod rfc3339_micros {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&at.to_rfc3339_opts(SecondsFormat::Micros, true))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(deserializer)?;
        DateTime::parse_from_rfc3339(&text).map(|at| at.with_timezone(&Utc)).map_err(D::Error::custom)
    }
}

/// What happened, before it takes its place in the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    #[serde(with = "rfc3339_micros")]
    pub at: DateTime<Utc>,
    pub tenant: String,
    pub actor: String,
    pub role: String,
    pub action: String,
    pub op_id: Option<String>,
    pub from_state: Option<String>,
    pub to_state: Option<String>,
    pub reason: Option<String>,
    pub evidence: Value,
}

/// An entry in its place in the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub seq: u64,
    #[serde(flatten)]
    pub entry: AuditEntry,
    pub prev_hash: String,
    pub hash: String,
}

/// An entry as an operation's trail shows it: with its place in the chain once the sealer has given
/// it one (within the sealing delay of its recording), and without while it waits for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrailEvent {
    pub seq: Option<u64>,
    #[serde(flatten)]
    pub entry: AuditEntry,
    pub hash: Option<String>,
}

fn content(seq: u64, entry: &AuditEntry) -> Value {
    json!({
        "seq": seq,
        "at": entry.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        "tenant": entry.tenant,
        "actor": entry.actor,
        "role": entry.role,
        "action": entry.action,
        "op_id": entry.op_id,
        "from_state": entry.from_state,
        "to_state": entry.to_state,
        "reason": entry.reason,
        "evidence": entry.evidence,
    })
}

/// The hash of the record `seq` with `entry`, following `prev_hash`.
pub fn chain_hash(prev_hash: &str, seq: u64, entry: &AuditEntry) -> String {
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(b"\n");
    hasher.update(canonical_json(&content(seq, entry)).as_bytes());
    hex::encode(hasher.finalize())
}

impl AuditEntry {
    /// An action that changes no operation (a user added, a token made, an export, a rule set),
    /// with what it concerned as `evidence`.
    pub fn action(
        at: DateTime<Utc>,
        tenant: &str,
        actor: &str,
        role: &str,
        action: &str,
        evidence: Value,
    ) -> Self {
        AuditEntry {
            at,
            tenant: tenant.to_owned(),
            actor: actor.to_owned(),
            role: role.to_owned(),
            action: action.to_owned(),
            op_id: None,
            from_state: None,
            to_state: None,
            reason: None,
            evidence,
        }
    }

    /// Places the entry after the record with `prev` = (seq, hash), or first when `prev` is `None`.
    pub fn chain_after(self, prev: Option<(u64, &str)>) -> AuditRecord {
        let (seq, prev_hash) = match prev {
            Some((seq, hash)) => (seq + 1, hash.to_owned()),
            None => (1, GENESIS_HASH.to_owned()),
        };
        let hash = chain_hash(&prev_hash, seq, &self);
        AuditRecord { seq, entry: self, prev_hash, hash }
    }
}

/// Where and why a chain does not hold. `position` counts records from 1 in the order given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("record {position} (seq {seq}): {problem}")]
pub struct ChainBreak {
    pub position: usize,
    pub seq: u64,
    pub problem: String,
}

/// What checking an export found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainCheck {
    pub events: usize,
    /// Links between consecutive events that were checked.
    pub links: usize,
    /// Places where the export leaves events out: the link across them cannot be checked.
    pub gaps: usize,
}

/// Checks exported records one at a time, holding only the previous one's seq and hash, so that
/// a file of any length is checked in constant memory.
#[derive(Debug, Clone)]
pub struct ChainVerifier {
    /// Whether events may be left out (a filtered export).
    partial: bool,
    previous: Option<(u64, String)>,
    check: ChainCheck,
}

impl ChainVerifier {
    /// For a whole chain: sequence numbers 1, 2, 3…, each `prev_hash` equal to the previous
    /// record's hash, each hash matching its content.
    pub fn whole() -> Self {
        Self { partial: false, previous: None, check: ChainCheck { events: 0, links: 0, gaps: 0 } }
    }

    /// For the rest of a whole chain, after the record at `seq` whose hash is `hash` (`0` and
    /// [`GENESIS_HASH`] for the chain from its start): the next record is `seq + 1` and links to
    /// `hash`.
    pub fn after(seq: u64, hash: &str) -> Self {
        let previous = (seq > 0).then(|| (seq, hash.to_owned()));
        Self { previous, ..Self::whole() }
    }

    /// For an export that may leave events out: sequence numbers only increase, each hash matches
    /// its content, and wherever two records are consecutive in the chain the later one's
    /// `prev_hash` is the earlier one's hash. Whether events were left out cannot be told.
    pub fn partial() -> Self {
        Self { partial: true, ..Self::whole() }
    }

    /// Checks the next record.
    pub fn push(&mut self, record: &AuditRecord) -> Result<(), ChainBreak> {
        let position = self.check.events + 1;
        let broken = |problem: String| ChainBreak { position, seq: record.seq, problem };
        let previous_seq = self.previous.as_ref().map(|(seq, _)| *seq);
        match (previous_seq, self.partial) {
            (None, false) if record.seq != 1 => {
                return Err(broken("expected seq 1: a record is missing or out of order".into()));
            }
            (Some(seq), false) if record.seq != seq + 1 => {
                return Err(broken(format!("expected seq {}: a record is missing or out of order", seq + 1)));
            }
            (Some(seq), true) if record.seq <= seq => {
                return Err(broken(format!(
                    "seq {} does not come after seq {seq}: out of order",
                    record.seq
                )));
            }
            _ => {}
        }
        let expected_prev = match &self.previous {
            Some((seq, hash)) if record.seq == seq + 1 => Some(hash.as_str()),
            None if record.seq == 1 => Some(GENESIS_HASH),
            _ => None,
        };
        match expected_prev {
            Some(expected) if record.prev_hash != expected => {
                return Err(broken("prev_hash does not match the previous record's hash".into()));
            }
            Some(_) if previous_seq.is_some() => self.check.links += 1,
            None if previous_seq.is_some() => self.check.gaps += 1,
            _ => {}
        }
        if chain_hash(&record.prev_hash, record.seq, &record.entry) != record.hash {
            return Err(broken("hash does not match the record's content: it was changed".into()));
        }
        self.previous = Some((record.seq, record.hash.clone()));
        self.check.events = position;
        Ok(())
    }

    pub fn finish(self) -> ChainCheck {
        self.check
    }
}

/// Checks a tenant's whole chain in order (see [`ChainVerifier::whole`]). Returns the number of
/// records.
pub fn verify_chain<'a>(records: impl IntoIterator<Item = &'a AuditRecord>) -> Result<usize, ChainBreak> {
    let mut verifier = ChainVerifier::whole();
    for record in records {
        verifier.push(record)?;
    }
    Ok(verifier.finish().events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn entry(action: &str, minute: u32) -> AuditEntry {
        AuditEntry {
            at: Utc.with_ymd_and_hms(2026, 11, 2, 10, minute, 0).unwrap(),
            tenant: "acme".into(),
            actor: "agent-7".into(),
            role: "agent".into(),
            action: action.into(),
            op_id: Some("refund-1043-li_2".into()),
            from_state: None,
            to_state: Some("planned".into()),
            reason: None,
            evidence: json!({"http_status": 201}),
        }
    }

    fn chain() -> Vec<AuditRecord> {
        let mut records: Vec<AuditRecord> = Vec::new();
        for (minute, action) in
            ["register", "begin_attempt", "record_outcome", "confirm_found"].iter().enumerate()
        {
            let prev = records.last().map(|r| (r.seq, r.hash.as_str()));
            let record = entry(action, minute as u32).chain_after(prev);
            records.push(record);
        }
        records
    }

    #[test]
    fn times_are_written_as_the_hash_covers_them() {
        let record = entry("register", 0).chain_after(None);
        let line = serde_json::to_value(&record).unwrap();
        assert_eq!(line["at"], "2026-11-02T10:00:00.000000Z");
        let back: AuditRecord = serde_json::from_value(line).unwrap();
        assert_eq!(back, record);
    }

    #[test]
    fn an_untouched_chain_verifies() {
        let records = chain();
        assert_eq!(records[0].prev_hash, GENESIS_HASH);
        assert_eq!(records[1].prev_hash, records[0].hash);
        assert_eq!(verify_chain(&records), Ok(4));
    }

    #[test]
    fn an_edited_record_is_named() {
        let mut records = chain();
        records[2].entry.reason = Some("edited later".into());
        let broken = verify_chain(&records).unwrap_err();
        assert_eq!((broken.position, broken.seq), (3, 3));
        assert!(broken.problem.contains("changed"));
    }

    #[test]
    fn a_deleted_or_reordered_record_is_named() {
        let mut deleted = chain();
        deleted.remove(1);
        assert_eq!(verify_chain(&deleted).unwrap_err().position, 2);
        let mut reordered = chain();
        reordered.swap(1, 2);
        assert_eq!(verify_chain(&reordered).unwrap_err().position, 2);
        let mut truncated_head = chain();
        truncated_head.remove(0);
        assert_eq!(verify_chain(&truncated_head).unwrap_err().position, 1);
    }

    fn verify_partial(records: &[AuditRecord]) -> Result<ChainCheck, ChainBreak> {
        let mut verifier = ChainVerifier::partial();
        for record in records {
            verifier.push(record)?;
        }
        Ok(verifier.finish())
    }

    #[test]
    fn a_filtered_export_checks_each_hash_and_the_links_it_keeps() {
        let records = chain();
        let filtered = vec![records[0].clone(), records[2].clone(), records[3].clone()];
        assert!(verify_chain(&filtered).is_err(), "a whole-chain check refuses gaps");
        assert_eq!(verify_partial(&filtered), Ok(ChainCheck { events: 3, links: 1, gaps: 1 }));
        let mut edited = filtered.clone();
        edited[1].entry.reason = Some("edited".into());
        assert_eq!(verify_partial(&edited).unwrap_err().position, 2);
        let reordered = vec![records[2].clone(), records[0].clone()];
        assert!(verify_partial(&reordered).unwrap_err().problem.contains("out of order"));
    }

    #[test]
    fn a_record_rehashed_after_an_edit_breaks_the_link_to_the_next() {
        let mut records = chain();
        records[1].entry.actor = "someone-else".into();
        records[1].hash = chain_hash(&records[1].prev_hash, records[1].seq, &records[1].entry);
        let broken = verify_chain(&records).unwrap_err();
        assert_eq!(broken.position, 3);
    }
}
