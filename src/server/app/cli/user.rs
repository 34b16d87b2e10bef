//! `opledger user`: the people who sign in to the review console, as the admin's people page
//! shows and changes them: add one (the password read from standard input), list them, give one a
//! new role, deactivate or reactivate one, sign one out everywhere, or make a one-time password
//! link, reset their two-factor sign-in; and require two-factor sign-in of a tenant's managers
//! and admins. Each change carries a reason into the audit trail.

use anyhow::Context;
use clap::{Args, Subcommand};

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::ids::TenantId;
use crate::domain::people::{PeopleChange, UserSource, UserStatus};
use crate::domain::policy::Role;
use crate::server::ledger::people::{
    ChangedBy, PeopleError, PASSWORD_RESET_PATH, PASSWORD_RESET_VALID_MINUTES,
};
use crate::server::ledger::Ledger;

/// The roles, as the command line takes them.
const ROLES: [&str; 4] = ["support", "manager", "auditor", "admin"];

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user to a tenant (created if new). The password is read from standard input (one
    /// line), so it stays out of the shell history: `printf '%s\n' "$PASSWORD" | opledger user add …`.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
        /// The tenant the user works in: lowercase letters, digits, '-' and '_'.
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The name to sign in with, unique in the tenant: letters, digits, '.', '-', '_', '@'.
        #[arg(long)]
        name: String,
        /// support: sees everything, settles unknowns; manager: also approves; auditor: reads and
        /// exports only; admin: manages people, access and policies.
        #[arg(long, value_parser = ROLES)]
        role: String,
    },
    /// List a tenant's users: role, status, how they sign in, last sign-in.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Give a user a new role; their open sessions end, and they sign in again with it.
    SetRole {
        #[command(flatten)]
        person: PersonArgs,
        #[arg(long, value_parser = ROLES)]
        role: String,
    },
    /// Deactivate a user who left: they cannot sign in, their sessions end at once on every
    /// server, and the API tokens they made are revoked (or handed to --tokens-to). Their audit
    /// entries stay theirs.
    Deactivate {
        #[command(flatten)]
        person: PersonArgs,
        /// The active user of the tenant who takes over the API tokens the person made, instead of
        /// revoking them.
        #[arg(long)]
        tokens_to: Option<String>,
    },
    /// Let a deactivated user sign in again.
    Reactivate(PersonArgs),
    /// End every open session of a user, on every server.
    SignOut(PersonArgs),
    /// Print a one-time link that sets a new password for a local user (valid 30 minutes).
    ResetPassword {
        #[command(flatten)]
        person: PersonArgs,
        /// The console's address as people reach it, which starts the link.
        #[arg(long, env = "OPLEDGER_PUBLIC_URL", default_value = "http://127.0.0.1:3000")]
        public_url: String,
    },
    /// Turn off a local user's two-factor sign-in (they lost their phone): their secret and
    /// recovery codes are forgotten, their sessions end, and they set it up again after their
    /// next sign-in.
    ResetTwoFactor(PersonArgs),
    /// Require two-factor sign-in of a tenant's managers and admins (on), or not (off). When it
    /// is on, a manager or admin without it can do nothing but set it up after signing in.
    RequireTwoFactor {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(value_parser = ["on", "off"])]
        switch: String,
    },
}

/// The user a change is about, and why.
#[derive(Debug, Args)]
pub struct PersonArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[arg(long, value_parser = parse_tenant)]
    pub tenant: TenantId,
    /// The user's sign-in name.
    #[arg(long)]
    pub name: String,
    /// Why, in one line; kept in the audit trail.
    #[arg(long)]
    pub reason: String,
}

pub(super) async fn run(command: UserCommand) -> anyhow::Result<()> {
    match command {
        UserCommand::Add { database, tenant, name, role } => {
            let role = Role::parse(&role).context("unknown role")?;
            let mut password = String::new();
            std::io::stdin()
                .read_line(&mut password)
                .context("could not read the password from standard input")?;
            let password = password.trim_end_matches(['\n', '\r']);
            let store = open_store(&database).await?;
            let ledger = Ledger::new(store);
            ledger.add_user(&tenant, name.trim(), role, password, "cli").await?;
            ledger.seal_audit(Some(&tenant)).await?;
            println!("Added {} to tenant {tenant} as {}.", name.trim(), role.as_str());
            Ok(())
        }
        UserCommand::List { database, tenant } => list(&database, &tenant).await,
        UserCommand::SetRole { person, role } => {
            let role = Role::parse(&role).context("unknown role")?;
            change(person, PeopleChange::SetRole(role), None, None).await
        }
        UserCommand::Deactivate { person, tokens_to } => {
            change(person, PeopleChange::Deactivate, tokens_to.as_deref(), None).await
        }
        UserCommand::Reactivate(person) => change(person, PeopleChange::Reactivate, None, None).await,
        UserCommand::SignOut(person) => change(person, PeopleChange::SignOutEverywhere, None, None).await,
        UserCommand::ResetTwoFactor(person) => change(person, PeopleChange::ResetTwoFactor, None, None).await,
        UserCommand::RequireTwoFactor { database, tenant, switch } => {
            let required = switch == "on";
            let ledger = Ledger::new(open_store(&database).await?);
            ledger.set_two_factor_required(&tenant, required, "cli").await?;
            ledger.seal_audit(Some(&tenant)).await?;
            if required {
                println!("Tenant {tenant} now requires two-factor sign-in of its managers and admins.");
            } else {
                println!("Tenant {tenant} no longer requires two-factor sign-in.");
            }
            Ok(())
        }
        UserCommand::ResetPassword { person, public_url } => {
            change(person, PeopleChange::ResetPassword, None, Some(public_url.trim_end_matches('/'))).await
        }
    }
}

async fn list(database: &DatabaseArgs, tenant: &TenantId) -> anyhow::Result<()> {
    let store = open_store(database).await?;
    let users = store.tenant_users(tenant).await?;
    if users.is_empty() {
        println!("Tenant {tenant} has no users. Add one with `opledger user add --tenant {tenant} --name … --role admin`.");
        return Ok(());
    }
    println!("{:<24} {:<8} {:<12} {:<9} {:<4} LAST SIGN-IN", "NAME", "ROLE", "STATUS", "SIGN-IN", "2FA");
    for user in users {
        let status = match user.status {
            UserStatus::Active => "active",
            UserStatus::Deactivated => "deactivated",
        };
        let source = match user.source {
            UserSource::Local => "password",
            UserSource::Sso => "sso",
        };
        let last = user.last_sign_in_at.map_or_else(|| "never".to_owned(), |at| at.to_rfc3339());
        let two_factor = if user.has_two_factor() { "on" } else { "off" };
        println!(
            "{:<24} {:<8} {status:<12} {source:<9} {two_factor:<4} {last}",
            user.name,
            user.role.as_str()
        );
    }
    Ok(())
}

async fn change(
    person: PersonArgs,
    change: PeopleChange,
    tokens_to: Option<&str>,
    public_url: Option<&str>,
) -> anyhow::Result<()> {
    let PersonArgs { database, tenant, name, reason } = person;
    let name = name.trim();
    let store = open_store(&database).await?;
    let ledger = Ledger::new(store);
    let by = ChangedBy::command_line();
    let changed = match ledger.change_person(&tenant, name, change, &reason, tokens_to, &by).await {
        Ok(changed) => changed,
        Err(PeopleError::Store(error)) => return Err(error.into()),
        Err(refused) => anyhow::bail!("{refused}"),
    };
    ledger.seal_audit(Some(&tenant)).await?;
    let sessions = changed.sessions_ended;
    match change {
        PeopleChange::SetRole(role) => {
            println!("{name} is now {}; {sessions} open session(s) ended.", role.as_str())
        }
        PeopleChange::Deactivate => match tokens_to {
            Some(heir) => println!(
                "Deactivated {name}; {sessions} open session(s) ended; {} API token(s) now belong to {heir}.",
                changed.tokens_reassigned
            ),
            None => println!(
                "Deactivated {name}; {sessions} open session(s) ended; {} API token(s) revoked.",
                changed.tokens_revoked
            ),
        },
        PeopleChange::Reactivate => println!("Reactivated {name}; they can sign in again."),
        PeopleChange::SignOutEverywhere => println!("Signed {name} out: {sessions} open session(s) ended."),
        PeopleChange::ResetTwoFactor => println!(
            "Turned off {name}'s two-factor sign-in; {sessions} open session(s) ended. They set it up again after their next sign-in."
        ),
        PeopleChange::ResetPassword => {
            let secret = changed.reset_secret.unwrap_or_default();
            eprintln!(
                "A one-time link for {name}, valid {PASSWORD_RESET_VALID_MINUTES} minutes. Give it to them privately:"
            );
            println!("{}{PASSWORD_RESET_PATH}?token={secret}", public_url.unwrap_or_default());
        }
    }
    Ok(())
}
