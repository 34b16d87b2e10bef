//! `opledger reconcile`: settles unknown results, in one pass or a pass every 10 seconds until a
//! shutdown signal.

use clap::Args;

use super::options::{open_ledger, DatabaseArgs, EgressArgs, ProviderArgs, SecretArgs, SettleArgs};
use crate::server::app::startup::{reconciler, shutdown_signal};
use crate::server::app::wiring;

#[derive(Debug, Args)]
pub struct ReconcileArgs {
    #[command(flatten)]
    database: DatabaseArgs,
    #[command(flatten)]
    provider: ProviderArgs,
    #[command(flatten)]
    secret: SecretArgs,
    #[command(flatten)]
    settle: SettleArgs,
    #[command(flatten)]
    egress: EgressArgs,
    /// One pass, then exit (for scripts and cron); without it, a pass every 10 seconds until stopped.
    #[arg(long)]
    once: bool,
}

/// Runs the reconciler (and the audit sealer and the change feed's relay beside it) with the
/// server's and tenants' providers.
pub(super) async fn run(args: ReconcileArgs) -> anyhow::Result<()> {
    let ReconcileArgs { database, provider, secret, settle, egress, once } = args;
    settle.at_least(provider.provider_timeout)?;
    let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
    let providers = provider.settings();
    let own_connections = ledger.reads().any_provider_connection().await?.is_some();
    anyhow::ensure!(
        providers.any() || own_connections,
        "--stripe-base-url or --services-base-url (or OPLEDGER_STRIPE_BASE_URL, OPLEDGER_SERVICES_BASE_URL) is needed to look operations up"
    );
    let executor = wiring::executor(ledger.clone(), &providers);
    let reconciler = reconciler(executor, settle.duration()?, &settle.pending_limit, &settle.lookup_lag);
    if once {
        let pass = reconciler.reconcile_once().await?;
        ledger.seal_audit(None).await?;
        ledger.announce_changes().await;
        for (op_id, state) in &pass.settled {
            println!("{op_id}\t{}", state.as_str());
        }
        println!("{} operation(s) examined.", pass.settled.len());
    } else {
        let stop = tokio_util::sync::CancellationToken::new();
        let worker = tokio::spawn(reconciler.run_until(std::time::Duration::from_secs(10), stop.clone()));
        let sealer = tokio::spawn(ledger.clone().seal_until(stop.clone()));
        let relay = tokio::spawn(ledger.relay_changes(stop.clone()));
        shutdown_signal().await;
        stop.cancel();
        worker.await?;
        sealer.await?;
        relay.await?;
    }
    Ok(())
}
