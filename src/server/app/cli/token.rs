//! `opledger token create`, `list`, `revoke` and `rotate`: the API tokens agents and tools call
//! the ledger API and the MCP server with, each with its scopes and expiry.

use chrono::{DateTime, SecondsFormat, Utc};
use clap::{Args, Subcommand};

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::api_token::{
    Expiry, Scopes, TokenStatus, DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, MAX_GRACE_HOURS,
};
use crate::domain::ids::{Actor, TenantId};
use crate::domain::policy::Role;
use crate::server::clock::now;
use crate::server::ledger::tokens::TokenSpec;
use crate::server::ledger::{Ledger, LedgerError};
use crate::server::store::records::ApiTokenListing;
use crate::server::store::StoreError;

/// Who the command line acts as in the audit trail.
const CLI: &str = "cli";

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token for a tenant (created if new) and print it once; only its hash is stored.
    /// It expires in 90 days unless told otherwise.
    #[command(after_help = "Examples:\n  \
        opledger token create --tenant acme --name support-agent\n  \
        opledger token create --tenant acme --name reporting --scope read --expires-in-days 30\n  \
        opledger token create --tenant acme --name pipeline --scope read,write --no-expiry")]
    Create(CreateArgs),
    /// List a tenant's tokens: name, scopes, who created it and when, last use (time and client
    /// address), expiry and status. Secrets are never shown.
    List(ListArgs),
    /// Revoke a tenant's token by name: calls with it are refused within a second on every
    /// instance.
    Revoke(NamedArgs),
    /// Give a token a new secret, printed once. The old secret keeps working for the grace
    /// period, then is refused; give the new one to the agent meanwhile.
    Rotate(RotateArgs),
}

#[derive(Debug, Args)]
pub struct NamedArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// The tenant the token acts for: lowercase letters, digits, '-' and '_'.
    #[arg(long, value_parser = parse_tenant)]
    pub tenant: TenantId,
    /// The token's name, unique within the tenant, shown in the audit trail (for example support-agent).
    #[arg(long)]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub named: NamedArgs,
    /// What the token may call, comma-separated: tools (the agent tools over /api/v1/tools and
    /// MCP at /mcp), read (ledger reads), write (ledger writes: register, attempts, outcomes,
    /// cancel). A call outside them is refused with 403.
    #[arg(long, default_value = "tools,read,write", value_parser = parse_scopes)]
    pub scope: Scopes,
    /// Days until the token expires (1 to 730); an expired token is refused like an unknown one.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_EXPIRY_DAYS, conflicts_with = "no_expiry",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_EXPIRY_DAYS)))]
    pub expires_in_days: u32,
    /// Make a token that never expires (until revoked). Prefer an expiry and rotate it.
    #[arg(long)]
    pub no_expiry: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// The tenant whose tokens to list.
    #[arg(long, value_parser = parse_tenant)]
    pub tenant: TenantId,
}

#[derive(Debug, Args)]
pub struct RotateArgs {
    #[command(flatten)]
    pub named: NamedArgs,
    /// How many hours the old secret keeps working (0 to 168; 0 stops it at once).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_GRACE_HOURS)))]
    pub grace_hours: u32,
}

fn parse_scopes(text: &str) -> Result<Scopes, String> {
    Scopes::parse(text).map_err(|e| e.to_string())
}

/// The command line as an actor in the audit trail.
fn cli() -> Actor {
    Actor::human(CLI, Role::Admin)
}

pub(super) async fn run(command: TokenCommand) -> anyhow::Result<()> {
    match command {
        TokenCommand::Create(CreateArgs {
            named: NamedArgs { database, tenant, name },
            scope,
            expires_in_days,
            no_expiry,
        }) => {
            let expiry = if no_expiry { Expiry::Never } else { Expiry::Days(expires_in_days) };
            let spec = TokenSpec { name: name.trim().to_owned(), scopes: scope, expiry };
            let ledger = Ledger::new(open_store(&database).await?);
            let created = match ledger.create_token_with(&tenant, &spec, &cli(), None).await {
                Ok(created) => created,
                Err(LedgerError::Store(StoreError::Conflict(_))) => {
                    anyhow::bail!("a token named {:?} already exists in tenant {tenant}; choose another name, or rotate that one", spec.name)
                }
                Err(error) => return Err(error.into()),
            };
            ledger.seal_audit(Some(&tenant)).await?;
            let until =
                created.expires_at.map_or("never expires".to_owned(), |at| format!("expires {}", when(at)));
            eprintln!(
                "API token {:?} for tenant {tenant}, scopes {}, {until}. It is shown only now; keep it secret:",
                spec.name,
                scope.as_text()
            );
            println!("{}", created.token);
            Ok(())
        }
        TokenCommand::List(ListArgs { database, tenant }) => {
            let ledger = Ledger::new(open_store(&database).await?);
            let tokens = ledger.tokens(&tenant).await?;
            if tokens.is_empty() {
                println!("Tenant {tenant} has no API tokens. Create one: opledger token create --tenant {tenant} --name <name>");
                return Ok(());
            }
            print!("{}", table(&tokens, now()));
            Ok(())
        }
        TokenCommand::Revoke(NamedArgs { database, tenant, name }) => {
            let ledger = Ledger::new(open_store(&database).await?);
            match ledger.revoke_token(&tenant, name.trim(), CLI).await {
                Ok(()) => {
                    ledger.seal_audit(Some(&tenant)).await?;
                    println!("Revoked the API token {name:?} of tenant {tenant}.");
                    Ok(())
                }
                Err(StoreError::NotFound) => {
                    anyhow::bail!("tenant {tenant} has no active API token named {name:?}")
                }
                Err(error) => Err(error.into()),
            }
        }
        TokenCommand::Rotate(RotateArgs { named: NamedArgs { database, tenant, name }, grace_hours }) => {
            let ledger = Ledger::new(open_store(&database).await?);
            match ledger.rotate_token(&tenant, name.trim(), grace_hours, &cli()).await {
                Ok(token) => {
                    ledger.seal_audit(Some(&tenant)).await?;
                    let old = match grace_hours {
                        0 => "The old secret is refused from now on.".to_owned(),
                        hours => format!("The old secret keeps working for {hours} h."),
                    };
                    eprintln!("New secret of the API token {name:?} of tenant {tenant}. {old} It is shown only now; keep it secret:");
                    println!("{token}");
                    Ok(())
                }
                Err(LedgerError::Store(StoreError::NotFound)) => {
                    anyhow::bail!("tenant {tenant} has no active API token named {name:?} (a revoked or expired token cannot be rotated)")
                }
                Err(error) => Err(error.into()),
            }
        }
    }
}

/// A time as the command line prints it: UTC, to the minute.
fn when(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true).replace('T', " ")[..16].to_owned() + " UTC"
}

/// The tokens as a table with the console's columns, as seen at `now`.
fn table(tokens: &[ApiTokenListing], now: DateTime<Utc>) -> String {
    let header =
        ["NAME", "SCOPES", "CREATED BY", "CREATED", "LAST USE", "EXPIRES", "STATUS"].map(str::to_owned);
    let rows: Vec<[String; 7]> = tokens
        .iter()
        .map(|token| {
            let status = TokenStatus::at(now, token.revoked_at, token.expires_at);
            let mut status_words = status.as_str().to_owned();
            if let Some(until) =
                token.previous_valid_until.filter(|until| *until > now && status == TokenStatus::Active)
            {
                status_words.push_str(&format!(" (old secret until {})", when(until)));
            }
            [
                token.name.clone(),
                token.scopes.as_text(),
                if token.created_by.is_empty() { "-".to_owned() } else { token.created_by.clone() },
                when(token.created_at),
                match (token.last_used_at, &token.last_used_from) {
                    (Some(at), Some(from)) => format!("{} from {from}", when(at)),
                    (Some(at), None) => when(at),
                    (None, _) => "never used".to_owned(),
                },
                token.expires_at.map_or("never".to_owned(), when),
                status_words,
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..7)
        .map(|column| {
            std::iter::once(&header).chain(&rows).map(|row| row[column].chars().count()).max().unwrap_or(0)
        })
        .collect();
    std::iter::once(&header)
        .chain(&rows)
        .map(|row| {
            let cells: Vec<String> =
                row.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
            cells.join("  ").trim_end().to_owned() + "\n"
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    fn listing(name: &str) -> ApiTokenListing {
        ApiTokenListing {
            id: "0123456789ab".into(),
            name: name.into(),
            scopes: Scopes::parse("read").unwrap(),
            created_by: "alex".into(),
            created_by_user_id: Some("u1".into()),
            created_at: at(0),
            expires_at: Some(at(100)),
            revoked_at: None,
            last_used_at: None,
            last_used_from: None,
            rotated_at: None,
            previous_valid_until: None,
        }
    }

    #[test]
    fn the_table_has_the_consoles_columns_and_says_what_is_expired() {
        let mut used = listing("reporting");
        used.last_used_at = Some(at(60));
        used.last_used_from = Some("10.0.0.7".into());
        let text = table(&[listing("agent"), used], at(200));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("NAME") && lines[0].ends_with("STATUS"), "{text}");
        assert!(lines[1].contains("never used") && lines[1].ends_with("expired"), "{text}");
        assert!(lines[2].contains("from 10.0.0.7"), "{text}");
        assert_eq!(when(at(0)), "2027-01-15 08:00 UTC");
    }
}
