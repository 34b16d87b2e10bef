//! `opledger webhook add`, `list` and `remove`: the endpoints a tenant's signed events are sent to.

use clap::Subcommand;

use super::options::{open_ledger, open_store, parse_tenant, DatabaseArgs, EgressArgs, SecretArgs};
use crate::domain::ids::{Actor, TenantId};
use crate::server::ledger::Ledger;
use crate::server::store::StoreError;

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Add an endpoint and print its signing secret once (it is stored sealed under OPLEDGER_SECRET_KEY):
    /// `opledger webhook add --tenant acme --url https://hooks.example.com/opledger --events operation.unknown,operation.needs_review`.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// Where the events are POSTed: a public https address, or one --allow-egress allows.
        #[arg(long)]
        url: String,
        /// The event types, comma-separated, or * for all: operation.<state> (operation.pending_approval,
        /// operation.unknown, operation.needs_review, operation.succeeded, operation.rejected, …) and
        /// order.partial_success.
        #[arg(long, default_value = "*")]
        events: String,
    },
    /// List a tenant's endpoints with their event types and their deliveries' latest status.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Remove an endpoint and what was still to be delivered to it.
    Remove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The endpoint's id (wh_…), as `webhook list` shows it.
        #[arg(long)]
        id: String,
    },
}

pub(super) async fn run(command: WebhookCommand) -> anyhow::Result<()> {
    match command {
        WebhookCommand::Add { database, secret, egress, tenant, url, events } => {
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let added = ledger.add_webhook_endpoint(&tenant, &Actor::system("cli"), &url, &events).await?;
            println!("Added endpoint {} of tenant {tenant}: {}", added.endpoint.id, added.endpoint.url);
            println!("Events: {}", added.endpoint.event_types.join(", "));
            println!(
                "Signing secret (shown once; verify the webhook-signature header with it): {}",
                added.secret
            );
            Ok(())
        }
        WebhookCommand::List { database, tenant } => {
            let store = open_store(&database).await?;
            let endpoints = store.webhook_endpoints(&tenant).await?;
            if endpoints.is_empty() {
                println!("Tenant {tenant} has no webhook endpoint; add one with `opledger webhook add`.");
            }
            for endpoint in endpoints {
                let latest = store.webhook_deliveries(&tenant, &endpoint.id, 1).await?;
                let latest = latest.first().map_or("nothing sent yet".to_owned(), |delivery| {
                    format!("latest {} {}", delivery.event_type, delivery.status.as_str())
                });
                println!(
                    "{}\t{}\t{}\tadded by {} at {}\t{latest}",
                    endpoint.id,
                    endpoint.url,
                    endpoint.event_types.join(","),
                    endpoint.created_by,
                    endpoint.created_at.to_rfc3339()
                );
            }
            Ok(())
        }
        WebhookCommand::Remove { database, tenant, id } => {
            match Ledger::new(open_store(&database).await?)
                .remove_webhook_endpoint(&tenant, &Actor::system("cli"), id.trim())
                .await
            {
                Ok(()) => {
                    println!(
                        "Removed endpoint {} of tenant {tenant}; nothing more is sent to it.",
                        id.trim()
                    );
                    Ok(())
                }
                Err(StoreError::NotFound) => {
                    anyhow::bail!("tenant {tenant} has no webhook endpoint {}", id.trim())
                }
                Err(error) => Err(error.into()),
            }
        }
    }
}
