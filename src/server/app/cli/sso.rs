//! `opledger sso set`, `show` and `remove`: a tenant's identity provider (OpenID Connect sign-in),
//! its client secret read from standard input and stored sealed; the provider is checked (through
//! the egress policy) before anything is saved.

use anyhow::Context;
use clap::Subcommand;

use super::options::{open_ledger, open_store, parse_tenant, DatabaseArgs, EgressArgs, SecretArgs};
use crate::domain::ids::{Actor, TenantId};
use crate::domain::sso::group_roles_text;
use crate::server::ledger::sso::SsoSettingsInput;
use crate::server::ledger::Ledger;
use crate::server::store::StoreError;

#[derive(Debug, Subcommand)]
pub enum SsoCommand {
    /// Set a tenant's identity provider, replacing earlier settings. The client secret is read
    /// from standard input (one line; an empty line keeps the stored one):
    /// `printf '%s\n' "$CLIENT_SECRET" | opledger sso set --tenant acme --issuer https://acme.okta.com
    /// --client-id 0oa1 --name Okta --group-role refund-managers=manager --sign-in-domain acme.example`.
    /// The provider must answer with its OpenID configuration; nothing is saved otherwise.
    Set {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The provider's issuer, exactly as it names itself (https://accounts.google.com,
        /// https://login.microsoftonline.com/<tenant id>/v2.0, https://<org>.okta.com,
        /// https://<host>/realms/<realm>).
        #[arg(long)]
        issuer: String,
        /// The id of the application registered at the provider.
        #[arg(long)]
        client_id: String,
        /// The name on the sign-in button: "Sign in with <name>".
        #[arg(long)]
        name: String,
        /// The claim that carries the person's groups.
        #[arg(long, default_value = "groups")]
        groups_claim: String,
        /// A group and the role it gives, `group=role` (support, manager, auditor or admin);
        /// repeat for each. Several groups give the highest of their roles.
        #[arg(long = "group-role")]
        group_roles: Vec<String>,
        /// An e-mail domain allowed to sign in; repeat for each (none: every domain).
        #[arg(long = "allowed-domain")]
        allowed_domains: Vec<String>,
        /// A domain people type on the sign-in page (their e-mail's) to find the tenant; repeat.
        #[arg(long = "sign-in-domain")]
        sign_in_domains: Vec<String>,
        /// Turn off local passwords for the tenant, but for --break-glass-admin's.
        #[arg(long)]
        sso_only: bool,
        /// The one admin who still signs in with a password (needed with --sso-only).
        #[arg(long)]
        break_glass_admin: Option<String>,
    },
    /// Show a tenant's identity provider (the secret shows only its last four characters).
    Show {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Remove a tenant's identity provider: its people sign in with passwords again.
    Remove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
}

pub(super) async fn run(command: SsoCommand) -> anyhow::Result<()> {
    match command {
        SsoCommand::Set {
            database,
            secret,
            egress,
            tenant,
            issuer,
            client_id,
            name,
            groups_claim,
            group_roles,
            allowed_domains,
            sign_in_domains,
            sso_only,
            break_glass_admin,
        } => {
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("could not read the client secret from standard input")?;
            let input = SsoSettingsInput {
                issuer,
                client_id,
                client_secret: Some(line.trim().to_owned()),
                display_name: name,
                groups_claim,
                group_roles: group_roles.join("\n"),
                allowed_domains: allowed_domains.join(","),
                sso_only,
                break_glass_user: break_glass_admin.unwrap_or_default(),
                sign_in_domains: sign_in_domains.join(","),
            };
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            ledger.set_sso_settings(&tenant, &Actor::system("cli"), input).await?;
            println!(
                "Tenant {tenant} signs in through its identity provider; register <console>/oidc/callback as its \
                 redirect URL and <console>/oidc/backchannel-logout/{tenant} as its back-channel logout URL."
            );
            Ok(())
        }
        SsoCommand::Show { database, tenant } => {
            let ledger = Ledger::new(open_store(&database).await?);
            let Some(settings) = ledger.sso_settings(&tenant).await? else {
                println!("Tenant {tenant} has no identity provider; its people sign in with passwords.");
                return Ok(());
            };
            println!("issuer\t{}", settings.issuer);
            println!("client id\t{}", settings.client_id);
            println!("client secret\t…{}", settings.secret_last4);
            println!("button\tSign in with {}", settings.display_name);
            println!("groups claim\t{}", settings.groups_claim);
            for line in group_roles_text(&settings.group_roles).lines() {
                println!("group → role\t{line}");
            }
            println!(
                "allowed e-mail domains\t{}",
                if settings.allowed_domains.is_empty() {
                    "any".to_owned()
                } else {
                    settings.allowed_domains.join(", ")
                }
            );
            println!("sign-in domains\t{}", settings.sign_in_domains.join(", "));
            println!(
                "SSO only\t{}",
                match (&settings.sso_only, &settings.break_glass_user) {
                    (true, Some(admin)) => format!("yes (break-glass admin: {admin})"),
                    (true, None) => "yes".to_owned(),
                    (false, _) => "no".to_owned(),
                }
            );
            println!("set by\t{} at {}", settings.updated_by, settings.updated_at.to_rfc3339());
            Ok(())
        }
        SsoCommand::Remove { database, tenant } => {
            match Ledger::new(open_store(&database).await?)
                .remove_sso_settings(&tenant, &Actor::system("cli"))
                .await
            {
                Ok(()) => {
                    println!("Tenant {tenant} no longer signs in through an identity provider.");
                    Ok(())
                }
                Err(StoreError::NotFound) => anyhow::bail!("tenant {tenant} has no identity provider"),
                Err(error) => Err(error.into()),
            }
        }
    }
}
