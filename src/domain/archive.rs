//! Retention and the archive, as rules: how long a tenant keeps closed operations hot, which
//! operations may leave (closed ones only, by the time they closed), where an archive may live, what
//! an archived operation carries (everything recorded about it, its audit trail included), and the
//! manifest that describes each archive file: its rows, the span of the audit chain its trails
//! cover and the file's SHA-256, in the canonical form a signature covers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::audit::TrailEvent;
use super::audit::{chain_hash, AuditRecord, ChainVerifier};
use super::ids::{OpId, TenantId};
use super::language::Language;
use super::machine::{Snapshot, State};
use super::operation::{AttemptRecord, ExternalRef, OperationHistory, OperationRecord};
use super::params::{canonical_json, CanonicalParams, InvalidParams};
use crate::t;

/// The longest retention a tenant can set: a hundred years.
pub const MAX_RETENTION_DAYS: i64 = 36_500;

/// The format every manifest names, so that a reader knows what it reads.
pub const MANIFEST_FORMAT: &str = "opledger-archive/1";

/// The number of days a tenant keeps closed operations hot, checked: a whole number of days from 1
/// to [`MAX_RETENTION_DAYS`]. Zero would archive an operation the moment it closed, while a
/// provider's late answer may still reach it.
pub fn check_retention_days(days: i64) -> Result<u32, String> {
    if (1..=MAX_RETENTION_DAYS).contains(&days) {
        return u32::try_from(days).map_err(|_| "too many days".to_owned());
    }
    Err(format!(
        "retention must be 1 to {MAX_RETENTION_DAYS} days: a closed operation is kept hot at least a day after it closed"
    ))
}

/// Whether an operation in `state` may leave the hot tables: only once it is closed (succeeded,
/// rejected, denied or cancelled). An operation waiting for approval, sent, unknown, accepted or
/// in review is never archived, however old.
pub fn archivable(state: State) -> bool {
    state.is_terminal()
}

/// Where a tenant's archive lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveLocation {
    /// A folder on the server's disk (`file:///var/lib/opledger/archive` or an absolute path).
    Folder(String),
    /// An S3-compatible bucket: `s3://bucket/prefix`, with `?endpoint=https://…` for a store other
    /// than AWS and `&region=…`.
    Bucket { bucket: String, prefix: String, endpoint: Option<String>, region: Option<String> },
}

impl ArchiveLocation {
    /// Reads an archive URL; why not in words.
    pub fn parse(text: &str) -> Result<ArchiveLocation, String> {
        let text = text.trim();
        if text.chars().any(char::is_control) {
            return Err("an archive URL has no control characters".to_owned());
        }
        if let Some(path) = text.strip_prefix("file://") {
            return Self::folder(path);
        }
        if text.starts_with('/') {
            return Self::folder(text);
        }
        let Some(rest) = text.strip_prefix("s3://") else {
            return Err(format!(
                "{text:?} is not an archive URL: use an absolute folder (file:///var/lib/opledger/archive) or s3://bucket/prefix"
            ));
        };
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (bucket, prefix) = path.split_once('/').unwrap_or((path, ""));
        let valid_bucket = (3..=63).contains(&bucket.len())
            && bucket.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.');
        if !valid_bucket {
            return Err(format!(
                "{bucket:?} is not a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens"
            ));
        }
        let (mut endpoint, mut region) = (None, None);
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            match pair.split_once('=') {
                Some(("endpoint", value))
                    if value.starts_with("http://") || value.starts_with("https://") =>
                {
                    endpoint = Some(value.to_owned())
                }
                Some(("endpoint", _)) => return Err("the endpoint is an http:// or https:// URL".to_owned()),
                Some(("region", value)) if !value.is_empty() => region = Some(value.to_owned()),
                _ => return Err(format!("{pair:?}: an archive URL takes endpoint= and region= only")),
            }
        }
        Ok(ArchiveLocation::Bucket {
            bucket: bucket.to_owned(),
            prefix: prefix.trim_matches('/').to_owned(),
            endpoint,
            region,
        })
    }

    fn folder(path: &str) -> Result<ArchiveLocation, String> {
        if !path.starts_with('/') || path.split('/').any(|part| part == "..") {
            return Err(format!("{path:?} is not an absolute folder"));
        }
        Ok(ArchiveLocation::Folder(path.to_owned()))
    }

    /// The URL the egress policy checks before anything is sent to this archive: a bucket's
    /// endpoint (AWS's own when none is named); nothing for a folder.
    pub fn endpoint(&self) -> Option<String> {
        match self {
            ArchiveLocation::Folder(_) => None,
            ArchiveLocation::Bucket { endpoint: Some(endpoint), .. } => Some(endpoint.clone()),
            ArchiveLocation::Bucket { bucket, region, .. } => Some(format!(
                "https://{bucket}.s3.{}.amazonaws.com",
                region.as_deref().unwrap_or("us-east-1")
            )),
        }
    }
}

/// Everything recorded about one operation, as its archive file keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchivedOperation {
    pub tenant: TenantId,
    pub op_id: OpId,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    /// The canonical parameters.
    pub params: Value,
    pub idempotency_key: String,
    pub compensates: Option<OpId>,
    pub retry_of: Option<OpId>,
    pub action: Option<String>,
    pub server_sends: bool,
    pub snapshot: Snapshot,
    pub accepted_at: Option<DateTime<Utc>>,
    pub version: i64,
    pub created_at: DateTime<Utc>,
    /// When it closed: its last change.
    pub closed_at: DateTime<Utc>,
    pub attempts: Vec<AttemptRecord>,
    pub external_refs: Vec<ExternalRef>,
    /// Its approval decisions, as the approvals table kept them.
    pub approvals: Vec<Value>,
    /// The conflicting requests refused under its op id.
    pub conflicts: Vec<Value>,
    /// Its audit trail, each entry in its place in the tenant's chain.
    pub trail: Vec<AuditRecord>,
}

impl ArchivedOperation {
    /// The state it closed in.
    pub fn state(&self) -> State {
        self.snapshot.state
    }

    /// The operation as the ledger answers with it: as it was when it closed, with its attempts,
    /// external ids and sealed trail.
    pub fn history(&self) -> Result<OperationHistory, InvalidParams> {
        let operation = OperationRecord {
            tenant: self.tenant.clone(),
            op_id: self.op_id.clone(),
            kind: self.kind.clone(),
            subject: self.subject.clone(),
            provider: self.provider.clone(),
            params: CanonicalParams::from_value(self.params.clone())?,
            idempotency_key: self.idempotency_key.clone(),
            compensates: self.compensates.clone(),
            retry_of: self.retry_of.clone(),
            action: self.action.clone(),
            server_sends: self.server_sends,
            snapshot: self.snapshot.clone(),
            accepted_at: self.accepted_at,
            version: self.version,
            created_at: self.created_at,
            updated_at: self.closed_at,
        };
        Ok(OperationHistory {
            operation,
            attempts: self.attempts.clone(),
            external_refs: self.external_refs.clone(),
            audit: self
                .trail
                .iter()
                .map(|record| TrailEvent {
                    seq: Some(record.seq),
                    entry: record.entry.clone(),
                    hash: Some(record.hash.clone()),
                })
                .collect(),
        })
    }

    /// Checks that each entry of its trail is about it and that its hash matches its content; the
    /// first that does not, in words.
    pub fn check_trail(&self) -> Result<(), String> {
        for record in &self.trail {
            if record.entry.op_id.as_deref() != Some(self.op_id.as_str()) {
                return Err(format!("{}: audit record {} is not about it", self.op_id, record.seq));
            }
            if chain_hash(&record.prev_hash, record.seq, &record.entry) != record.hash {
                return Err(format!(
                    "{}: audit record {} was changed: its hash does not match",
                    self.op_id, record.seq
                ));
            }
        }
        Ok(())
    }
}

/// The span of a tenant's audit chain that the trails of a file's operations cover: the first and
/// last positions, the chain's hash before the first and after the last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainSpan {
    pub first_seq: u64,
    pub last_seq: u64,
    pub hash_before: String,
    pub hash_after: String,
    /// How many audit records the file carries.
    pub records: u64,
}

/// The span the trails of `operations` cover; `None` when they carry no record.
pub fn chain_span(operations: &[ArchivedOperation]) -> Option<ChainSpan> {
    let records = operations.iter().flat_map(|operation| operation.trail.iter());
    let first = records.clone().min_by_key(|record| record.seq)?;
    let last = records.clone().max_by_key(|record| record.seq)?;
    Some(ChainSpan {
        first_seq: first.seq,
        last_seq: last.seq,
        hash_before: first.prev_hash.clone(),
        hash_after: last.hash.clone(),
        records: records.count() as u64,
    })
}

/// What an archive file holds: closed operations, one row each, or a segment of the tenant's audit
/// chain, one row for each record from the span's first position to its last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveContents {
    #[default]
    Operations,
    AuditChain,
}

impl ArchiveContents {
    /// Operations files leave the field out of their manifest, as they did before segments existed,
    /// so that the signatures of earlier manifests still hold.
    pub fn is_operations(&self) -> bool {
        *self == ArchiveContents::Operations
    }
}

/// The span of a segment of the audit chain, checked: `records` follow one another from the
/// position after `(seq, hash)` (`(0, GENESIS_HASH)` for the chain's start), each linked to the one
/// before and its hash matching its content.
pub fn segment_span(after: (u64, &str), records: &[AuditRecord]) -> Result<ChainSpan, String> {
    let (first, last) = match (records.first(), records.last()) {
        (Some(first), Some(last)) => (first, last),
        _ => return Err("a segment of the audit chain holds at least one record".to_owned()),
    };
    let mut verifier = ChainVerifier::after(after.0, after.1);
    for record in records {
        verifier.push(record).map_err(|broken| format!("audit record {}: {}", broken.seq, broken.problem))?;
    }
    Ok(ChainSpan {
        first_seq: first.seq,
        last_seq: last.seq,
        hash_before: first.prev_hash.clone(),
        hash_after: last.hash.clone(),
        records: records.len() as u64,
    })
}

/// What an archive file holds and how to know it is the one written: signed by the server's key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    #[serde(default, skip_serializing_if = "ArchiveContents::is_operations")]
    pub contents: ArchiveContents,
    pub tenant: TenantId,
    pub archive_id: String,
    /// The file's path within the archive.
    pub object: String,
    /// The operations it holds; none for a segment of the audit chain.
    pub operations: u64,
    /// For operations, the span their trails cover; for a segment, exactly the records it holds.
    pub chain: Option<ChainSpan>,
    /// When its first and last operation closed, or its first and last record was made.
    pub closed_from: DateTime<Utc>,
    pub closed_to: DateTime<Utc>,
    /// SHA-256 of the file, in hex.
    pub sha256: String,
    pub created_at: DateTime<Utc>,
    /// The Ed25519 public key the signature verifies with, in hex.
    pub public_key: String,
}

impl Manifest {
    /// The bytes the signature covers: the manifest's canonical JSON.
    pub fn signed_bytes(&self) -> Vec<u8> {
        let value = serde_json::to_value(self).expect("a manifest is plain data");
        canonical_json(&value).into_bytes()
    }
}

/// Why an archive file sealed by the ledger is not what it signed: nothing of it may be shown or
/// used. Kept with the file's record until a read finds it as it was signed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveDistrust {
    /// The file is gone from the archive.
    FileMissing,
    /// The file's bytes are not those its sealed manifest states.
    FileChanged,
    /// The manifest beside the file is gone.
    ManifestMissing,
    /// The manifest beside the file is not the one the ledger sealed (edited, signed by another
    /// key, or another file's).
    ManifestChanged,
    /// The file or its manifest is of another tenant.
    OtherTenant,
}

impl ArchiveDistrust {
    pub const ALL: [ArchiveDistrust; 5] = [
        ArchiveDistrust::FileMissing,
        ArchiveDistrust::FileChanged,
        ArchiveDistrust::ManifestMissing,
        ArchiveDistrust::ManifestChanged,
        ArchiveDistrust::OtherTenant,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ArchiveDistrust::FileMissing => "file_missing",
            ArchiveDistrust::FileChanged => "file_changed",
            ArchiveDistrust::ManifestMissing => "manifest_missing",
            ArchiveDistrust::ManifestChanged => "manifest_changed",
            ArchiveDistrust::OtherTenant => "other_tenant",
        }
    }

    pub fn parse(text: &str) -> Option<ArchiveDistrust> {
        ArchiveDistrust::ALL.into_iter().find(|distrust| distrust.as_str() == text)
    }

    /// What was found, in words.
    pub fn words(self, language: Language) -> String {
        match self {
            ArchiveDistrust::FileMissing => t!(language, "archive-distrust-file-missing"),
            ArchiveDistrust::FileChanged => t!(language, "archive-distrust-file-changed"),
            ArchiveDistrust::ManifestMissing => t!(language, "archive-distrust-manifest-missing"),
            ArchiveDistrust::ManifestChanged => t!(language, "archive-distrust-manifest-changed"),
            ArchiveDistrust::OtherTenant => t!(language, "archive-distrust-other-tenant"),
        }
    }
}

/// A manifest with its signature, as it is stored beside its file and in the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedManifest {
    pub manifest: Manifest,
    /// The Ed25519 signature of [`Manifest::signed_bytes`], in hex.
    pub signature: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(length: u64) -> Vec<AuditRecord> {
        let mut records: Vec<AuditRecord> = Vec::new();
        for n in 0..length {
            let entry = crate::domain::audit::AuditEntry {
                at: DateTime::from_timestamp(1_700_000_000 + n as i64, 0).unwrap(),
                tenant: "shop".into(),
                actor: "ada".into(),
                role: "admin".into(),
                action: format!("step-{n}"),
                op_id: None,
                from_state: None,
                to_state: None,
                reason: None,
                evidence: serde_json::json!({}),
            };
            let record = entry.chain_after(records.last().map(|last| (last.seq, last.hash.as_str())));
            records.push(record);
        }
        records
    }

    #[test]
    fn a_segment_holds_consecutive_records_linked_to_where_the_one_before_ended() {
        let records = chain(5);
        let start = segment_span((0, crate::domain::audit::GENESIS_HASH), &records[..2]).unwrap();
        assert_eq!((start.first_seq, start.last_seq, start.records), (1, 2, 2));
        let next = segment_span((2, &start.hash_after), &records[2..]).unwrap();
        assert_eq!((next.first_seq, next.last_seq, next.hash_before), (3, 5, records[1].hash.clone()));
        assert_eq!(next.hash_after, records[4].hash);

        assert!(
            segment_span((0, crate::domain::audit::GENESIS_HASH), &records[2..]).is_err(),
            "not the chain's start"
        );
        assert!(segment_span((1, &records[0].hash), &records[2..]).is_err(), "a record is missing before it");
        assert!(segment_span((2, &records[0].hash), &records[2..]).is_err(), "linked to another record");
        let mut gap = records[2..].to_vec();
        gap.remove(1);
        assert!(segment_span((2, &records[1].hash), &gap).is_err(), "a record is missing within it");
        let mut changed = records[2..].to_vec();
        changed[1].entry.action = "nothing happened".into();
        assert!(segment_span((2, &records[1].hash), &changed).unwrap_err().contains("it was changed"));
        assert!(segment_span((2, &records[1].hash), &[]).is_err(), "an empty segment");
    }

    #[test]
    fn a_distrust_reads_back_from_its_name() {
        for distrust in ArchiveDistrust::ALL {
            assert_eq!(ArchiveDistrust::parse(distrust.as_str()), Some(distrust));
        }
        assert_eq!(ArchiveDistrust::parse("fine"), None);
    }

    #[test]
    fn retention_is_a_day_to_a_hundred_years() {
        assert!(check_retention_days(0).is_err());
        assert!(check_retention_days(-3).is_err());
        assert_eq!(check_retention_days(1), Ok(1));
        assert_eq!(check_retention_days(MAX_RETENTION_DAYS), Ok(36_500));
        assert!(check_retention_days(MAX_RETENTION_DAYS + 1).is_err());
    }

    #[test]
    fn only_closed_operations_are_archivable() {
        let open = [
            State::Planned,
            State::PendingApproval,
            State::Approved,
            State::Submitted,
            State::Accepted,
            State::Unknown,
            State::NeedsReview,
        ];
        for state in State::ALL {
            assert_eq!(archivable(state), !open.contains(&state), "{state:?}");
        }
    }

    #[test]
    fn archive_urls_are_folders_or_buckets() {
        assert_eq!(
            ArchiveLocation::parse("file:///var/lib/opledger/archive"),
            Ok(ArchiveLocation::Folder("/var/lib/opledger/archive".into()))
        );
        assert_eq!(
            ArchiveLocation::parse("/srv/archive"),
            Ok(ArchiveLocation::Folder("/srv/archive".into()))
        );
        let bucket = ArchiveLocation::parse(
            "s3://shop-archive/ledger/?endpoint=http://127.0.0.1:9000&region=eu-west-1",
        )
        .unwrap();
        assert_eq!(
            bucket,
            ArchiveLocation::Bucket {
                bucket: "shop-archive".into(),
                prefix: "ledger".into(),
                endpoint: Some("http://127.0.0.1:9000".into()),
                region: Some("eu-west-1".into()),
            }
        );
        assert_eq!(bucket.endpoint().as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(
            ArchiveLocation::parse("s3://shop-archive").unwrap().endpoint().as_deref(),
            Some("https://shop-archive.s3.us-east-1.amazonaws.com")
        );
        for bad in [
            "relative/path",
            "file://../etc",
            "/srv/../etc",
            "s3://UPPER",
            "s3://ab",
            "s3://shop?endpoint=ftp://x",
            "s3://shop?acl=public",
            "https://example.com/archive",
            "/srv/arch\nive",
        ] {
            assert!(ArchiveLocation::parse(bad).is_err(), "{bad:?}");
        }
    }
}
