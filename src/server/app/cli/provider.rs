//! `opledger provider set`, `list`, `webhook-secret` and `remove`: a tenant's own accounts at
//! providers, their secrets read from standard input and stored sealed; and `payment-add`: the ids
//! of an ECPay payment its refunds are sent and looked up with, entered by the shop.

use anyhow::Context;
use clap::Subcommand;

use super::options::{open_ledger, open_store, parse_tenant, DatabaseArgs, EgressArgs, SecretArgs};
use crate::domain::connection::ProviderKind;
use crate::domain::ecpay;
use crate::domain::gateway::SavedPayment;
use crate::domain::ids::{Actor, TenantId};
use crate::server::ledger::connections::NewConnection;
use crate::server::ledger::{Ledger, LedgerError};
use crate::server::store::StoreError;

#[derive(Debug, Subcommand)]
pub enum ProviderCommand {
    /// Connect a tenant to its own account at a provider, replacing an earlier one. The secret key
    /// is read from standard input (one line) and stored sealed under OPLEDGER_SECRET_KEY:
    /// `printf '%s\n' "$STRIPE_KEY" | opledger provider set --tenant acme --name stripe --kind stripe --base-url https://api.stripe.com`.
    Set {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        /// The tenant whose account this is.
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The provider name its operations carry: stripe, adyen or paypal (refunds), sandbox
        /// (after-sale and pickups), orders (the shop's orders endpoint).
        #[arg(long)]
        name: String,
        /// The API it speaks: stripe, adyen (Checkout API), paypal (Payments v2), ecpay (ECPay's
        /// AIO card API: --account is the MerchantID, the secret HashKey:HashIV:CreditCheckCode),
        /// linepay (LINE Pay Online v3: --account is the Channel ID, the secret the channel
        /// secret), services,
        /// orders (the shop's `GET /orders/{id}`), email (an API in Resend's shape), smtp (a mail
        /// server: smtp://host:587 or smtps://host:465), or http (a system of the shop's own, as
        /// --description says it works).
        #[arg(long, value_parser = ["stripe", "adyen", "paypal", "ecpay", "linepay", "services", "orders", "email", "smtp", "http"])]
        kind: String,
        /// Where the API is: https://api.stripe.com, https://checkout-test.adyen.com/v71,
        /// https://api-m.sandbox.paypal.com, or the shop's address.
        #[arg(long)]
        base_url: String,
        /// The account the secret belongs to, where the provider names one: Adyen's merchant
        /// account, PayPal's REST app client id (its secret is the line read), the sender an email
        /// or smtp account sends as (`Shop <support@shop.example>`).
        #[arg(long)]
        account: Option<String>,
        /// How long the provider remembers an idempotency key, when the account's contract says
        /// otherwise than the provider's published window (Stripe 24h, Adyen 31 days, PayPal 45
        /// days), e.g. 7d.
        #[arg(long, value_parser = humantime::parse_duration)]
        key_retention: Option<std::time::Duration>,
        /// For --kind http: the file holding the API's description (JSON, format
        /// opledger/http-api/1): the operation kinds it serves, the request of each, the key
        /// header it honours and its lookup, if any. Checked before it is saved;
        /// docs/any-downstream.md has an example.
        #[arg(long)]
        description: Option<std::path::PathBuf>,
    },
    /// List a tenant's own provider accounts (the secrets show only their last four characters).
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Set the signing secret of the provider's webhooks to a tenant's own account, read from
    /// standard input (one line) and stored sealed: `printf '%s\n' "$WHSEC" | opledger provider
    /// webhook-secret --tenant acme --name stripe`. The provider posts its events to
    /// /webhooks/providers/<tenant>/<name> on the console's address.
    WebhookSecret {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The connection's provider name, as `provider list` shows it.
        #[arg(long)]
        name: String,
    },
    /// Save the ids of an ECPay card payment that its refunds need (what ECPay's payment
    /// notification carries when the order was made with NeedExtraPaidInfo=Y): `opledger provider
    /// payment-add --tenant tw-shop --name ecpay --payment TW1043A --trade-no 2601011200000001
    /// --gwsr 11943361 --paid 1200`. A refund of a payment without them is refused before it is
    /// recorded.
    PaymentAdd {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The ECPay connection's provider name, as `provider list` shows it.
        #[arg(long)]
        name: String,
        /// The payment's MerchantTradeNo (what the shop's order names as its payment).
        #[arg(long)]
        payment: String,
        /// ECPay's TradeNo of the payment.
        #[arg(long)]
        trade_no: String,
        /// ECPay's gwsr of the card authorisation (the lookup's CreditRefundId).
        #[arg(long)]
        gwsr: String,
        /// What was paid, in whole New Taiwan dollars.
        #[arg(long)]
        paid: u32,
        /// An installment or bonus-redemption order: refunded in full only.
        #[arg(long)]
        full_refund_only: bool,
    },
    /// Remove a tenant's own account at a provider; its operations go back to the server's.
    Remove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(long)]
        name: String,
    },
}

pub(super) async fn run(command: ProviderCommand) -> anyhow::Result<()> {
    match command {
        ProviderCommand::Set {
            database,
            secret,
            egress,
            tenant,
            name,
            kind,
            base_url,
            account,
            key_retention,
            description,
        } => {
            let kind = ProviderKind::parse(&kind).context(
                "--kind is stripe, adyen, paypal, ecpay, linepay, services, orders, email, smtp or http",
            )?;
            let description = description
                .map(|path| {
                    std::fs::read_to_string(&path)
                        .with_context(|| format!("could not read the description {}", path.display()))
                })
                .transpose()?;
            let key_retention = key_retention
                .map(chrono::Duration::from_std)
                .transpose()
                .context("--key-retention is too long")?;
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("could not read the secret key from standard input")?;
            let connection = NewConnection {
                name: name.trim().to_owned(),
                kind,
                base_url,
                secret: line.trim().to_owned(),
                account,
                key_retention,
                description,
            };
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            ledger.set_provider_connection(&tenant, &Actor::system("cli"), connection).await?;
            println!(
                "Tenant {tenant} now uses its own {} account ({kind}).",
                name.trim(),
                kind = kind.as_str()
            );
            Ok(())
        }
        ProviderCommand::WebhookSecret { database, secret, tenant, name } => {
            let name = name.trim();
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("could not read the signing secret from standard input")?;
            let ledger = open_ledger(&database, &secret).await?;
            match ledger.set_webhook_secret(&tenant, &Actor::system("cli"), name, &line).await {
                Ok(()) => {
                    println!(
                        "The {name} webhooks of tenant {tenant} are verified with the new signing secret; \
                         the provider posts them to /webhooks/providers/{tenant}/{name}."
                    );
                    Ok(())
                }
                Err(LedgerError::NotFound) => {
                    anyhow::bail!(
                        "tenant {tenant} has no {name} account of its own; set it first (provider set)"
                    )
                }
                Err(error) => Err(error.into()),
            }
        }
        ProviderCommand::List { database, tenant } => {
            let connections = open_store(&database).await?.provider_connections(&tenant).await?;
            if connections.is_empty() {
                println!("Tenant {tenant} has no provider account of its own; it uses the server's.");
            }
            for connection in connections {
                println!(
                    "{}\t{}\t{}\t…{}\tset by {} at {}\t{}",
                    connection.name,
                    connection.kind.as_str(),
                    connection.base_url,
                    connection.secret_last4,
                    connection.updated_by,
                    connection.updated_at.to_rfc3339(),
                    if connection.sealed_webhook_secret.is_some() {
                        "webhook signing secret set"
                    } else {
                        "no webhook signing secret"
                    }
                );
            }
            Ok(())
        }
        ProviderCommand::PaymentAdd {
            database,
            tenant,
            name,
            payment,
            trade_no,
            gwsr,
            paid,
            full_refund_only,
        } => {
            let saved = SavedPayment {
                payment: payment.trim().to_owned(),
                ids: [("TradeNo", trade_no), ("gwsr", gwsr)]
                    .into_iter()
                    .map(|(name, value)| (name.to_owned(), value.trim().to_owned()))
                    .collect(),
                paid_minor: i64::from(paid) * 100,
                currency: "TWD".into(),
                full_refund_only,
            };
            let probe = ecpay::refund_value(&saved, saved.paid_minor, "order", "item");
            if let Err((field, problem)) = ecpay::refund_params(&probe) {
                anyhow::bail!("--{}: {problem}", field.replace('_', "-"));
            }
            let ledger = Ledger::new(open_store(&database).await?);
            ledger
                .save_gateway_payment(&tenant, &Actor::system("cli"), name.trim(), saved, "entered")
                .await?;
            println!(
                "ECPay payment {} of tenant {tenant} can be refunded through {}: its TradeNo and gwsr are saved.",
                payment.trim(),
                name.trim()
            );
            Ok(())
        }
        ProviderCommand::Remove { database, tenant, name } => {
            match Ledger::new(open_store(&database).await?)
                .remove_provider_connection(&tenant, &Actor::system("cli"), name.trim())
                .await
            {
                Ok(()) => {
                    println!(
                        "Tenant {tenant} no longer has its own {} account; it uses the server's.",
                        name.trim()
                    );
                    Ok(())
                }
                Err(StoreError::NotFound) => {
                    anyhow::bail!("tenant {tenant} has no {} account of its own", name.trim())
                }
                Err(error) => Err(error.into()),
            }
        }
    }
}
