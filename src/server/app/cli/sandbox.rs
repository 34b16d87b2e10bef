//! `opledger sandbox`: one sandbox provider (Stripe, Adyen, PayPal, ECPay, LINE Pay or an email
//! API) served alone, with fault injection, until a shutdown signal.

use anyhow::Context;
use clap::Args;
use std::net::SocketAddr;

use crate::domain::ecpay::Credentials;
use crate::server::app::startup::shutdown_signal;
use crate::server::demo;
use crate::server::sandbox::adyen::{AdyenConfig, AdyenSandbox};
use crate::server::sandbox::ecpay::{EcpayConfig, EcpaySandbox};
use crate::server::sandbox::linepay::{LinePayConfig, LinePaySandbox};
use crate::server::sandbox::mail::{MailConfig, MailSandbox};
use crate::server::sandbox::paypal::{PayPalConfig, PayPalSandbox};
use crate::server::sandbox::{Sandbox, SandboxConfig};

#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:12111")]
    addr: SocketAddr,
    /// Which provider's API it speaks: stripe, adyen, paypal, ecpay (ECPay's AIO card API),
    /// linepay (LINE Pay Online v3), or email (an email API in Resend's shape, with an SMTP sink at
    /// --smtp-addr delivering into the same mailbox).
    #[arg(long, value_parser = ["stripe", "adyen", "paypal", "ecpay", "linepay", "email"], default_value = "stripe")]
    kind: String,
    /// For --kind email: where the SMTP sink listens.
    #[arg(long, default_value = "127.0.0.1:2525")]
    smtp_addr: SocketAddr,
    /// The secret callers must send, to the API and to its control API under `_sandbox`: Stripe's
    /// secret key, Adyen's API key (`X-API-Key`), PayPal's client secret, ECPay's
    /// `HashKey:HashIV:CreditCheckCode` (the HashKey is the control API's bearer token), LINE Pay's
    /// channel secret, the email API's key.
    #[arg(long, default_value = "sk_test_sandbox")]
    secret_key: String,
    /// The account: Adyen's merchant account, PayPal's client id, ECPay's MerchantID, LINE Pay's
    /// channel id.
    #[arg(long, default_value = "SandboxECOM")]
    account: String,
    /// Adyen's webhook HMAC key (hexadecimal) that notifications are signed with.
    #[arg(long, default_value = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056")]
    hmac_key: String,
    /// How long idempotency keys are remembered (default: the provider's own window).
    #[arg(long, value_parser = humantime::parse_duration)]
    key_retention: Option<std::time::Duration>,
}

/// Serves the sandbox of `--kind` on `--addr` (and, for email, its SMTP sink on `--smtp-addr`).
pub(super) async fn run(args: SandboxArgs) -> anyhow::Result<()> {
    let SandboxArgs { addr, kind, smtp_addr, secret_key, account, hmac_key, key_retention } = args;
    let retention = |default: chrono::Duration| {
        key_retention
            .map(chrono::Duration::from_std)
            .transpose()
            .map(|retention| retention.unwrap_or(default))
            .context("--key-retention is too long")
    };
    let router = match kind.as_str() {
        "adyen" => {
            let config = AdyenConfig {
                api_key: secret_key,
                merchant_account: account,
                hmac_key,
                key_retention: retention(chrono::Duration::days(31))?,
            };
            AdyenSandbox::new(config, demo::accounts::adyen_orders()).router()
        }
        "paypal" => {
            let config = PayPalConfig {
                client_id: account,
                client_secret: secret_key,
                key_retention: retention(chrono::Duration::days(45))?,
            };
            PayPalSandbox::new(config, demo::accounts::paypal_orders()).router()
        }
        "ecpay" => {
            let credentials = Credentials::parse(&secret_key).map_err(anyhow::Error::msg)?;
            anyhow::ensure!(
                account.chars().all(|c| c.is_ascii_digit()),
                "--account is ECPay's MerchantID, digits such as 3002607"
            );
            let config = EcpayConfig {
                merchant_id: account,
                hash_key: credentials.hash_key,
                hash_iv: credentials.hash_iv,
                credit_check_code: credentials.credit_check_code,
            };
            EcpaySandbox::new(config).router()
        }
        "linepay" => {
            LinePaySandbox::new(LinePayConfig { channel_id: account, channel_secret: secret_key }).router()
        }
        "email" => {
            let config =
                MailConfig { api_key: secret_key, key_retention: retention(chrono::Duration::hours(24))? };
            let mail = MailSandbox::new(config);
            let smtp = tokio::net::TcpListener::bind(smtp_addr)
                .await
                .with_context(|| format!("could not listen on {smtp_addr}"))?;
            tracing::info!(%smtp_addr, "SMTP sink at smtp://{smtp_addr}");
            tokio::spawn(mail.clone().serve_smtp(smtp));
            mail.router()
        }
        _ => Sandbox::seeded(SandboxConfig {
            secret_key,
            key_retention: retention(chrono::Duration::hours(24))?,
        })
        .router(),
    };
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("could not listen on {addr}"))?;
    tracing::info!(%addr, kind, "sandbox provider at http://{addr}");
    axum::serve(listener, router).with_graceful_shutdown(shutdown_signal()).await?;
    Ok(())
}
