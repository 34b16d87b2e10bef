//! Two more demo tenants for `serve --demo`, each with its own shop and a payment provider other
//! than Stripe, mounted on the console's address like the second tenant's account: `nl-shop`
//! refunds through an Adyen account (every refund is answered `received`; its `REFUND` webhook
//! settles it, one of them as a failure), `tw-shop` through a PayPal account (one refund
//! `COMPLETED` at once, one `PENDING` that the reconciler follows by the refund's id until PayPal
//! completes it). Each reads its orders from its shop's endpoint on the same account, and each
//! order is 1043, the op id the other tenants use too. `tw-shop` also writes to its customers
//! through an email account in Resend's shape (its template `refund_issued`, sent once for order
//! 1043, the first answer lost and the re-send under the same key answered with the same message).
//! `tw-shop` speaks Traditional Chinese: its users read the console in it and its customers are
//! told things in it.
//! A third, `tw-ecpay`, refunds through ECPay and LINE Pay, which take no key ([`taiwan`]).
//! Like the second tenant, they need `OPLEDGER_SECRET_KEY` to seal their secrets.

use axum::Router;
use chrono::Duration;

use super::taiwan::{self, TaiwanAccounts};
use super::DEMO_PASSWORD;
use crate::domain::{
    connection::{ProviderKind, ORDERS_PROVIDER},
    email::{EmailFacts, EmailTemplate},
    ids::{Actor, OpId, TenantId},
    language::Language,
    params::CanonicalParams,
    policy::Role,
};
use crate::server::ledger::accounts::AccountError;
use crate::server::ledger::connections::NewConnection;
use crate::server::ledger::executor::Executor;
use crate::server::ledger::{LedgerError, RegisterRequest};
use crate::server::providers::orders::{refund_params, LineItem, Order};
use crate::server::sandbox::adyen::{AdyenConfig, AdyenSandbox};
use crate::server::sandbox::mail::{MailConfig, MailSandbox};
use crate::server::sandbox::paypal::{PayPalConfig, PayPalSandbox};
use crate::server::sandbox::{new_secret_key, Fault, FaultKind};

/// The tenant that refunds through Adyen, and where its account is mounted.
pub const ADYEN_TENANT: &str = "nl-shop";
pub const ADYEN_ACCOUNT_PATH: &str = "/sandbox-adyen";
/// The tenant that refunds through PayPal, and where its account is mounted.
pub const PAYPAL_TENANT: &str = "tw-shop";
pub const PAYPAL_ACCOUNT_PATH: &str = "/sandbox-paypal";
/// Where `tw-shop`'s email account is mounted.
pub const MAIL_ACCOUNT_PATH: &str = "/sandbox-mail";

/// Their console users, with [`DEMO_PASSWORD`].
pub const ADYEN_USERS: [(&str, Role); 2] = [("nina.admin", Role::Admin), ("noah.support", Role::Support)];
pub const PAYPAL_USERS: [(&str, Role); 2] = [("ting.admin", Role::Admin), ("wei.support", Role::Support)];

/// The Adyen and PayPal accounts of a `serve --demo`, made anew at every start with new secrets.
pub struct DemoAccounts {
    adyen: AdyenSandbox,
    adyen_config: AdyenConfig,
    paypal: PayPalSandbox,
    paypal_config: PayPalConfig,
    mail: MailSandbox,
    mail_config: MailConfig,
    /// `tw-ecpay`'s ECPay, LINE Pay and shop accounts.
    taiwan: TaiwanAccounts,
}

/// `nl-shop`'s order 1043, paid through Adyen.
pub fn adyen_orders() -> Vec<Order> {
    vec![Order {
        id: "1043".into(),
        currency: "EUR".into(),
        payment_intent: "8816178952380553".into(),
        line_items: vec![
            LineItem { id: "li_1".into(), name: "Bicycle lamp set".into(), amount_minor: 4_950 },
            LineItem { id: "li_2".into(), name: "Pannier bag".into(), amount_minor: 8_900 },
        ],
        customer_email: Some("customer-1043@example.com".into()),
        gateway: None,
    }]
}

/// `tw-shop`'s order 1043, paid through PayPal in TWD (which PayPal takes in whole units).
pub fn paypal_orders() -> Vec<Order> {
    vec![Order {
        id: "1043".into(),
        currency: "TWD".into(),
        payment_intent: "3C679366HH908993F".into(),
        line_items: vec![
            LineItem { id: "li_1".into(), name: "Oolong tea, 150 g".into(), amount_minor: 68_000 },
            LineItem { id: "li_2".into(), name: "Clay teapot".into(), amount_minor: 152_000 },
        ],
        customer_email: Some("customer-1043@example.com".into()),
        gateway: None,
    }]
}

impl DemoAccounts {
    pub fn new() -> Self {
        let adyen_config = AdyenConfig {
            api_key: format!("AQE{}", uuid::Uuid::new_v4().simple()),
            merchant_account: "NLShopECOM".into(),
            hmac_key: format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
                .to_uppercase(),
            key_retention: Duration::days(31),
        };
        let paypal_config = PayPalConfig {
            client_id: format!("AZ{}", uuid::Uuid::new_v4().simple()),
            client_secret: new_secret_key(),
            key_retention: Duration::days(45),
        };
        let mail_config = MailConfig {
            api_key: format!("re_{}", uuid::Uuid::new_v4().simple()),
            key_retention: Duration::hours(24),
        };
        Self {
            adyen: AdyenSandbox::new(adyen_config.clone(), adyen_orders()),
            adyen_config,
            paypal: PayPalSandbox::new(paypal_config.clone(), paypal_orders()),
            paypal_config,
            mail: MailSandbox::new(mail_config.clone()),
            mail_config,
            taiwan: TaiwanAccounts::new(),
        }
    }

    /// The accounts' HTTP surfaces, each with the path it is mounted at.
    pub fn routers(&self) -> Vec<(&'static str, Router)> {
        let mut routers = vec![
            (ADYEN_ACCOUNT_PATH, self.adyen.router()),
            (PAYPAL_ACCOUNT_PATH, self.paypal.router()),
            (MAIL_ACCOUNT_PATH, self.mail.router()),
        ];
        routers.extend(self.taiwan.routers());
        routers
    }

    /// `tw-shop`'s email account and template, and the template sent once for its order 1043
    /// (its first answer lost: the reconciler re-sends it under the same key).
    async fn email(&self, executor: &Executor, tenant: &Tenant, console: &str) -> Result<(), LedgerError> {
        let ledger = executor.ledger();
        let system = Actor::system("demo");
        let sender = "Cha Wu Tea House <service@tw-shop.example>";
        let account = NewConnection {
            name: "email".into(),
            kind: ProviderKind::Email,
            base_url: format!("{console}{MAIL_ACCOUNT_PATH}"),
            secret: self.mail_config.api_key.clone(),
            account: Some(sender.into()),
            key_retention: None,
            description: None,
        };
        ledger.set_provider_connection(&tenant.id, &system, account).await?;
        let template = EmailTemplate {
            name: "refund_issued".into(),
            subject: "Your refund for order {order}".into(),
            body: "Hello,\n\nwe have refunded your order {order}; your bank shows it within a few days.\n\n{shop}\n".into(),
        };
        ledger.set_email_template(&tenant.id, &system, template.clone()).await?;
        let op_id = OpId::parse(&template.op_id(&tenant.order.id))
            .map_err(|e| LedgerError::Invalid(e.to_string()))?;
        if ledger.reads().load_operation(&tenant.id, &op_id).await?.is_some() {
            return Ok(());
        }
        let customer = tenant.order.customer_email.clone().unwrap_or_default();
        let facts =
            EmailFacts { order: &tenant.order.id, shop: tenant.id.as_str(), customer_email: &customer };
        let request = by_the_shop_agent(
            op_id.clone(),
            "send_email",
            &tenant.order.id,
            "email",
            template.message(&facts, sender).map_err(|problem| LedgerError::Invalid(problem.to_string()))?,
        )?;
        self.mail.inject(Fault::once(&format!("{}:{op_id}", tenant.id), FaultKind::DropResponse, 15_000));
        ledger.register(&tenant.id, &Actor::agent("shop-agent"), request).await?;
        executor.run(&tenant.id, &op_id).await?;
        Ok(())
    }

    /// Connects both tenants to their accounts on the console at `console` (`http://host:port`),
    /// points each account's webhooks at the console, and seeds their users and refunds once.
    pub async fn seed(&self, executor: &Executor, console: &str) -> Result<(), LedgerError> {
        if !executor.ledger().seals_secrets() {
            tracing::info!(
                tenants = ?[ADYEN_TENANT, PAYPAL_TENANT],
                "not seeded: their own provider accounts need OPLEDGER_SECRET_KEY"
            );
            return Ok(());
        }
        let adyen = Tenant {
            id: tenant(ADYEN_TENANT)?,
            users: &ADYEN_USERS,
            kind: ProviderKind::Adyen,
            shop_url: format!("{console}{ADYEN_ACCOUNT_PATH}"),
            api_url: format!("{console}{ADYEN_ACCOUNT_PATH}/v71"),
            secret: self.adyen_config.api_key.clone(),
            account: self.adyen_config.merchant_account.clone(),
            webhook_secret: self.adyen_config.hmac_key.clone(),
            order: adyen_orders().remove(0),
        };
        adyen.connect(executor).await?;
        self.adyen.notify(&adyen.webhook_url(console));
        let failing = Fault::settling(&adyen.key_of("li_2"), 8_000, "failed", Some("Refused by the issuer"));
        self.adyen.inject(failing);
        adyen.refund_both(executor).await?;

        let webhook_id = format!("WH-{}", uuid::Uuid::new_v4().simple()).to_uppercase();
        let paypal = Tenant {
            id: tenant(PAYPAL_TENANT)?,
            users: &PAYPAL_USERS,
            kind: ProviderKind::PayPal,
            shop_url: format!("{console}{PAYPAL_ACCOUNT_PATH}"),
            api_url: format!("{console}{PAYPAL_ACCOUNT_PATH}"),
            secret: self.paypal_config.client_secret.clone(),
            account: self.paypal_config.client_id.clone(),
            webhook_secret: webhook_id.clone(),
            order: paypal_orders().remove(0),
        };
        paypal.connect(executor).await?;
        paypal.speak(executor, Language::ZhTw).await?;
        self.paypal.send_events_to(&paypal.webhook_url(console), &webhook_id);
        self.paypal.inject(Fault::settling(&paypal.key_of("li_2"), 20_000, "succeeded", None));
        paypal.refund_both(executor).await?;
        self.email(executor, &paypal, console).await?;
        self.taiwan.seed(executor, console).await?;
        tracing::info!(
            tenants = ?[ADYEN_TENANT, PAYPAL_TENANT, taiwan::TENANT],
            "Adyen, PayPal, ECPay and LINE Pay demo tenants seeded"
        );
        Ok(())
    }
}

impl Default for DemoAccounts {
    fn default() -> Self {
        Self::new()
    }
}

/// What the shop's agent asks the server to send: `kind` at `provider` about `order`.
fn by_the_shop_agent(
    op_id: OpId,
    kind: &str,
    order: &str,
    provider: &str,
    params: serde_json::Value,
) -> Result<RegisterRequest, LedgerError> {
    Ok(RegisterRequest {
        op_id,
        kind: kind.into(),
        subject: format!("order:{order}"),
        provider: provider.into(),
        params: CanonicalParams::from_value(params).map_err(|e| LedgerError::Invalid(e.to_string()))?,
        requested_by: "shop-agent".into(),
        compensates: None,
        on_behalf_of: None,
        server_sends: true,
        key_retention: None,
    })
}

fn tenant(id: &str) -> Result<TenantId, LedgerError> {
    TenantId::parse(id).map_err(|e| LedgerError::Invalid(e.to_string()))
}

/// One of these tenants: who works there, its account and its order.
struct Tenant {
    id: TenantId,
    users: &'static [(&'static str, Role)],
    kind: ProviderKind,
    /// Where the shop's orders endpoint is, and where the provider's API is (Adyen's Checkout
    /// API is versioned: `/v71`).
    shop_url: String,
    api_url: String,
    secret: String,
    account: String,
    webhook_secret: String,
    order: Order,
}

impl Tenant {
    fn connection_name(&self) -> &'static str {
        self.kind.as_str()
    }

    fn webhook_url(&self, console: &str) -> String {
        format!("{console}/webhooks/providers/{}/{}", self.id, self.connection_name())
    }

    fn op_id(&self, item: &str) -> Result<OpId, LedgerError> {
        OpId::for_line_item("refund", &self.order.id, item).map_err(|e| LedgerError::Invalid(e.to_string()))
    }

    /// The downstream key of the refund of `item`: what the accounts' faults match.
    fn key_of(&self, item: &str) -> String {
        format!("{}:refund-{}-{item}", self.id, self.order.id)
    }

    /// Makes `language` the tenant's language for its customers and its users' for the console.
    async fn speak(&self, executor: &Executor, language: Language) -> Result<(), LedgerError> {
        let ledger = executor.ledger();
        ledger.set_tenant_language(&self.id, language, "demo").await?;
        for user in ledger.reads().tenant_users(&self.id).await? {
            ledger.set_user_language(&self.id, &user.id, Some(language), "demo", Role::Admin).await?;
        }
        Ok(())
    }

    /// Its users, its refunds account, its shop's orders endpoint on the same account, and the
    /// signing secret (Adyen's HMAC key, PayPal's webhook id) of the account's webhooks.
    async fn connect(&self, executor: &Executor) -> Result<(), LedgerError> {
        let ledger = executor.ledger();
        for (name, role) in self.users {
            match ledger.add_user(&self.id, name, *role, DEMO_PASSWORD, "demo").await {
                Ok(()) | Err(AccountError::NameTaken(_)) => {}
                Err(AccountError::Store(error)) => return Err(error.into()),
                Err(other) => return Err(LedgerError::Invalid(other.to_string())),
            }
        }
        let system = Actor::system("demo");
        let refunds = NewConnection {
            name: self.connection_name().into(),
            kind: self.kind,
            base_url: self.api_url.clone(),
            secret: self.secret.clone(),
            account: Some(self.account.clone()),
            key_retention: None,
            description: None,
        };
        ledger.set_provider_connection(&self.id, &system, refunds).await?;
        let orders = NewConnection {
            name: ORDERS_PROVIDER.into(),
            kind: ProviderKind::Orders,
            base_url: self.shop_url.clone(),
            secret: self.secret.clone(),
            account: None,
            key_retention: None,
            description: None,
        };
        ledger.set_provider_connection(&self.id, &system, orders).await?;
        ledger.set_webhook_secret(&self.id, &system, self.connection_name(), &self.webhook_secret).await
    }

    /// Registers and sends the refunds of both line items, unless they were seeded before.
    async fn refund_both(&self, executor: &Executor) -> Result<(), LedgerError> {
        let ledger = executor.ledger();
        if ledger.reads().load_operation(&self.id, &self.op_id("li_1")?).await?.is_some() {
            return Ok(());
        }
        let agent = Actor::agent("shop-agent");
        for item in &self.order.line_items {
            let params = refund_params(self.kind, &self.order, item);
            let request = by_the_shop_agent(
                self.op_id(&item.id)?,
                "refund",
                &self.order.id,
                self.connection_name(),
                params,
            )?;
            let op_id = request.op_id.clone();
            ledger.register(&self.id, &agent, request).await?;
            executor.run(&self.id, &op_id).await?;
        }
        Ok(())
    }
}
