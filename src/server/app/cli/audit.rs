//! `opledger audit export` and `audit verify`: a tenant's audit chain written out as JSON Lines,
//! and an exported chain checked offline.

use anyhow::Context;
use clap::Subcommand;

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::audit::{AuditRecord, ChainVerifier, GENESIS_HASH};
use crate::domain::ids::TenantId;
use crate::server::ledger::Ledger;
use crate::server::store::records::AuditQuery;

/// How many audit events `audit export` reads at a time: its memory stays flat whatever the chain's length.
const AUDIT_EXPORT_PAGE: u32 = 1000;

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Write a tenant's whole audit chain as JSON Lines on standard output, a page at a time.
    Export {
        #[command(flatten)]
        database: DatabaseArgs,
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
}

pub(super) async fn run(command: AuditCommand) -> anyhow::Result<()> {
    match command {
        AuditCommand::Export { database, tenant } => {
            use std::io::Write;
            let ledger = Ledger::new(open_store(&database).await?);
            ledger.seal_audit(Some(&tenant)).await?;
            let reads = ledger.reads();
            let mut out = std::io::BufWriter::new(std::io::stdout());
            let mut page = AuditQuery {
                oldest_first: true,
                after_seq: Some(0),
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
