//! `opledger retention set`, `show`, `off` and `sweep`: how long a tenant keeps closed operations
//! hot, where its archive is, and the sweep that moves what is due there.

use clap::Subcommand;

use super::options::{open_ledger, open_store, parse_tenant, DatabaseArgs, EgressArgs, SecretArgs};
use crate::domain::ids::{Actor, TenantId};
use crate::server::ledger::retention::DEFAULT_BATCH;

#[derive(Debug, Subcommand)]
pub enum RetentionCommand {
    /// Archive a tenant's closed operations DAYS after they closed:
    /// `opledger retention set --tenant acme --days 400 --archive file:///var/lib/opledger/archive`
    /// or `--archive 's3://acme-ledger/archive?region=ap-northeast-1'` (credentials from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; `&endpoint=https://…` for another S3-compatible store).
    Set {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// Days after an operation closed (succeeded, rejected, denied, cancelled) that it is archived: 1 to 36500.
        #[arg(long, allow_negative_numbers = true)]
        days: i64,
        /// The archive: an absolute folder (file:///…) or s3://bucket/prefix.
        #[arg(long)]
        archive: String,
    },
    /// Show a tenant's retention, its last sweep and its archive files.
    Show {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// End a tenant's retention: nothing more is archived; what was archived stays archived.
    Off {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Archive what is due now, a file at a time, printing the progress; safe to stop and run
    /// again, and another instance's sweep of the same tenant waits. Needs OPLEDGER_SECRET_KEY
    /// (the manifests are signed with a key derived from it).
    Sweep {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// Operations per archive file.
        #[arg(long, default_value_t = DEFAULT_BATCH, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        batch: u32,
        /// Take the lease of a sweep that stopped without releasing it (a crash) instead of waiting
        /// the five minutes it lasts. Safe even if that sweep still runs: an operation is sealed in
        /// one file only.
        #[arg(long)]
        take_over: bool,
    },
}

pub(super) async fn run(command: RetentionCommand) -> anyhow::Result<()> {
    match command {
        RetentionCommand::Set { database, secret, egress, tenant, days, archive } => {
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let policy = ledger.set_retention(&tenant, &Actor::system("cli"), days, &archive).await?;
            println!(
                "Tenant {tenant} archives operations {} after they closed, to {}.",
                counted(u64::from(policy.days), "day"),
                policy.archive_url
            );
            println!(
                "`opledger retention sweep --tenant {tenant}` (or `serve`, hourly) archives what is due."
            );
            Ok(())
        }
        RetentionCommand::Show { database, tenant } => {
            let store = open_store(&database).await?;
            match store.retention_policy(&tenant).await? {
                Some(policy) => println!(
                    "Tenant {tenant}: archived {} after closing, to {} (set by {} at {}).",
                    counted(u64::from(policy.days), "day"),
                    policy.archive_url,
                    policy.updated_by,
                    policy.updated_at
                ),
                None => println!("Tenant {tenant} keeps every operation hot; set a retention with `opledger retention set`."),
            }
            if let Some(status) = store.sweep_status(&tenant).await? {
                match (&status.holder, status.finished_at) {
                    (Some(holder), _) => {
                        println!("A sweep by {holder} is running: {} archived so far.", status.archived)
                    }
                    (None, Some(at)) => {
                        println!("The last sweep ended at {at}, archiving {}.", status.archived)
                    }
                    (None, None) => {}
                }
                if let Some(error) = status.last_error {
                    println!("It stopped: {error}");
                }
            }
            for file in store.archives(&tenant).await? {
                let state = if file.sealed { "sealed" } else { "being written" };
                let holds = match file.audit_span {
                    Some((first, last)) => format!("audit records {first}-{last}"),
                    None => counted(file.operations, "operation"),
                };
                println!("{}\t{}\t{holds}\t{state}\t{}", file.id, file.object_path, file.location);
            }
            Ok(())
        }
        RetentionCommand::Off { database, tenant } => {
            let ledger = crate::server::ledger::Ledger::new(open_store(&database).await?);
            ledger.remove_retention(&tenant, &Actor::system("cli")).await?;
            println!("Tenant {tenant} no longer archives; what was archived stays archived.");
            Ok(())
        }
        RetentionCommand::Sweep { database, secret, egress, tenant, batch, take_over } => {
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let holder = format!("cli-{}", std::process::id());
            let report = ledger
                .sweep(&tenant, &holder, crate::server::clock::now(), batch, take_over, |archived| {
                    eprintln!("archived {} so far…", counted(archived, "operation"));
                })
                .await?;
            if report.abandoned_files > 0 {
                println!(
                    "Removed {} that a stopped sweep had left unsealed.",
                    counted(report.abandoned_files, "file")
                );
            }
            println!(
                "Archived {} of tenant {tenant} in {}.",
                counted(report.archived, "operation"),
                counted(report.files, "file")
            );
            if report.audit_files > 0 || report.audit_pruned > 0 || report.audit_months_detached > 0 {
                println!(
                    "Archived {} of its audit chain in {}; {} left the database, besides {} of archived records detached.",
                    counted(report.audit_records, "record"),
                    counted(report.audit_files, "segment"),
                    counted(report.audit_pruned, "record"),
                    counted(report.audit_months_detached, "month")
                );
            }
            Ok(())
        }
    }
}

/// `1 operation`, `2 operations`.
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
