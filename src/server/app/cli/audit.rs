//! `opledger audit export`, `audit verify`, `audit verify-archive` and `audit public-key`: a
//! tenant's audit chain written out as JSON Lines, an exported chain or an archive folder checked
//! offline, and the key the archive's manifests are signed with.

use anyhow::Context;
use clap::Subcommand;

use super::options::{open_store, parse_tenant, DatabaseArgs, EgressArgs, SecretArgs};
use crate::domain::audit::{AuditRecord, ChainVerifier, GENESIS_HASH};
use crate::domain::ids::TenantId;
use crate::server::ledger::Ledger;
use crate::server::store::records::AuditQuery;

/// How many audit events `audit export` reads at a time: its memory stays flat whatever the chain's length.
const AUDIT_EXPORT_PAGE: u32 = 1000;

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Write a tenant's whole audit chain as JSON Lines on standard output, a page at a time: the
    /// segments its retention archived first, each read from the archive and checked against its
    /// manifest, then the records still in the database.
    Export {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Check an exported JSON Lines history: sequence, links and hashes. Exits 0 when the chain
    /// holds, 1 naming the first line where it breaks. Needs no database.
    Verify {
        /// The exported file (`-` for standard input).
        file: std::path::PathBuf,
        /// The file is a filtered export that leaves events out: check each event's hash and the
        /// links between consecutive events, not the whole chain from its first event.
        #[arg(long)]
        partial: bool,
    },
    /// Check an archive folder offline (a bucket once copied down with `aws s3 sync`): each
    /// manifest's signature, each file's SHA-256 and row count, each audit record's hash and the
    /// span of the chain the manifest states, and that each tenant's segments of the audit chain
    /// join from its first record. Exits 0 when everything holds, 1 naming the first
    /// file that does not. Needs no database.
    VerifyArchive {
        /// The archive folder.
        folder: std::path::PathBuf,
        /// The server's archive signing key (`opledger audit public-key`): every manifest must be
        /// signed by it. Without it, each manifest is checked against the key it names.
        #[arg(long)]
        public_key: Option<String>,
    },
    /// Print the public key the archive's manifests are signed with, derived from OPLEDGER_SECRET_KEY.
    PublicKey {
        #[command(flatten)]
        secret: SecretArgs,
    },
}

pub(super) async fn run(command: AuditCommand) -> anyhow::Result<()> {
    match command {
        AuditCommand::Export { database, egress, tenant } => {
            use std::io::Write;
            let ledger = Ledger::new(open_store(&database).await?).with_egress(egress.policy());
            ledger.seal_audit(Some(&tenant)).await?;
            let reads = ledger.reads();
            let mut out = std::io::BufWriter::new(std::io::stdout());
            let mut archived_to = 0;
            for segment in ledger.audit_segments(&tenant).await? {
                for record in ledger.read_audit_segment(&segment).await? {
                    serde_json::to_writer(&mut out, &record)?;
                    out.write_all(b"\n")?;
                    archived_to = record.seq;
                }
            }
            let mut page = AuditQuery {
                oldest_first: true,
                after_seq: Some(archived_to),
                limit: AUDIT_EXPORT_PAGE,
                ..AuditQuery::default()
            };
            while let Some((lines, last)) = reads.audit_json_lines(&tenant, &page).await? {
                page.after_seq = Some(last);
                out.write_all(&lines)?;
            }
            out.flush()?;
            Ok(())
        }
        AuditCommand::VerifyArchive { folder, public_key } => {
            let check = crate::server::archive::verify::verify_folder(&folder, public_key.as_deref())
                .map_err(|why| anyhow::anyhow!("the archive does not hold: {why}"))?;
            println!(
                "OK: {} files, {} operations with {} audit records, {} segments of the audit chain with {} records; signed by {}",
                check.files,
                check.operations,
                check.audit_records,
                check.segments,
                check.segment_records,
                if check.keys.is_empty() {
                    "no key (the archive is empty)".to_owned()
                } else {
                    check.keys.join(", ")
                }
            );
            Ok(())
        }
        AuditCommand::PublicKey { secret } => {
            let key = secret
                .secret_key
                .context("no OPLEDGER_SECRET_KEY is set: the archive's key is derived from it")?;
            let secrets = crate::server::ledger::secrets::SecretBox::from_hex(&key)?;
            println!("{}", secrets.archive_signer().public_key());
            Ok(())
        }
        AuditCommand::Verify { file, partial } => {
            use std::io::BufRead;
            let input: Box<dyn BufRead> = if file.as_os_str() == "-" {
                Box::new(std::io::stdin().lock())
            } else {
                let opened = std::fs::File::open(&file)
                    .with_context(|| format!("could not read {}", file.display()))?;
                Box::new(std::io::BufReader::new(opened))
            };
            let mut verifier = if partial { ChainVerifier::partial() } else { ChainVerifier::whole() };
            let mut last_hash = GENESIS_HASH.to_owned();
            for (index, line) in input.lines().enumerate() {
                let line = line.with_context(|| format!("line {}: could not be read", index + 1))?;
                let record = serde_json::from_str::<AuditRecord>(&line)
                    .with_context(|| format!("line {}: not an audit record", index + 1))?;
                if let Err(broken) = verifier.push(&record) {
                    let hint = if partial { "" } else { " (for a filtered export, use --partial)" };
                    anyhow::bail!("the chain breaks at line {}: {}{hint}", broken.position, broken.problem);
                }
                last_hash = record.hash;
            }
            let check = verifier.finish();
            if partial {
                println!(
                    "OK: {} events, each hash holds; {} links checked, {} gaps where the export leaves events out",
                    check.events, check.links, check.gaps
                );
            } else {
                println!("OK: {} events, the chain holds; last hash {last_hash}", check.events);
            }
            Ok(())
        }
    }
}
