//! `opledger demo`: seeds the tenant "demo" through a sandbox provider of its own, then prints how
//! to sign in.

use anyhow::Context;

use super::options::{open_store, DatabaseArgs};
use crate::domain::ids::TenantId;
use crate::server::app::wiring::{self, ProviderSettings};
use crate::server::demo;
use crate::server::ledger::Ledger;
use crate::server::sandbox::{Sandbox, SandboxConfig};

/// Seeds the demo tenant in the database `database` names through a sandbox provider of its own
/// (on a free local port, gone when the command ends), showing a progress bar, then prints how to
/// sign in.
pub(super) async fn run(database: DatabaseArgs) -> anyhow::Result<()> {
    let store = open_store(&database).await?;
    let config = SandboxConfig::default();
    let secret_key = config.secret_key.clone();
    let sandbox = Sandbox::seeded(config);
    let listener =
        tokio::net::TcpListener::bind("127.0.0.1:0").await.context("could not start the sandbox")?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let providers = ProviderSettings {
        tenants: vec![TenantId::parse(demo::DEMO_TENANT)?],
        stripe_base_url: Some(base_url.clone()),
        services_base_url: Some(base_url),
        secret_key,
        timeout: std::time::Duration::from_secs(2),
    };
    let ledger = Ledger::new(store);
    let executor = wiring::executor(ledger.clone(), &providers);
    let bar = indicatif::ProgressBar::new(demo::SEED_STEPS).with_style(
        indicatif::ProgressStyle::with_template("{bar:32.cyan/blue} {pos:>2}/{len} {wide_msg}")
            .expect("a valid template"),
    );
    let token = demo::seed(executor, sandbox, &|step: &str| {
        bar.inc(1);
        bar.set_message(step.to_owned());
    })
    .await
    .context("the demo traffic failed")?;
    ledger.seal_audit(None).await?;
    bar.finish_and_clear();
    match token {
        Some(token) => {
            println!("Seeded tenant {}. API token of demo-agent (shown once): {token}", demo::DEMO_TENANT)
        }
        None => println!("Tenant {} already has its demo operations; users checked.", demo::DEMO_TENANT),
    }
    println!("Sign in with the password {} as:", demo::DEMO_PASSWORD);
    for (name, role) in demo::DEMO_USERS {
        println!("  {name:<14} {}", role.as_str());
    }
    println!(
        "Then run `opledger serve --sandbox` on the same database. This command's sandbox is gone, so the\n\
         reconciler settles the unknown results against a fresh one (a lookup finds nothing; a re-send\n\
         with the same key does it once there)."
    );
    Ok(())
}
