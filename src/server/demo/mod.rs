//! Demo data for `serve --demo`: tenant `demo` with one console user per role, an API token, and
//! operations driven through the executor and the mounted sandbox with injected faults, so that
//! every state the console shows is one the real protocol produced: two legitimate refunds of one
//! order, a refused conflicting request, a timeout, a cached 500 that ends in review, a retried
//! rate limit, a business rejection, a cancellation, a sender that stopped between `submitted`
//! and the send, one whose key expired before it was found (needs review), a stop requested while
//! a result is unknown, refunds waiting for a manager (one asked for by the manager herself) and
//! one denied, one approved and sent, three refunds whose answers were lost (for a bulk lookup), one
//! lost answer that support settled by asking the provider, and after-sale orders whose
//! pickup failed, one of them compensated by cancelling its ticket (a cancellation whose first
//! answer is lost). `serve --demo` runs it through the mounted sandbox; `opledger demo` (in
//! `app::cli`) through a sandbox of its own, with a progress bar. `serve --demo` also seeds a
//! second tenant with its own shop and Stripe account, whose op ids are the demo's, and two more
//! on Adyen and PayPal (see [`accounts`]), and connects tenant `demo` to an identity provider
//! when one is named (see [`sso`]).

pub mod accounts;
pub mod notifications;
pub mod sso;
pub mod taiwan;

use serde_json::json;

use super::clock::now;
use super::ledger::accounts::AccountError;
use super::ledger::connections::NewConnection;
use super::ledger::executor::Executor;
use super::ledger::reconciler::Reconciler;
use super::ledger::{Ledger, LedgerError, RegisterRequest};
use super::providers::orders::{refund_params, LineItem, Order};
use super::sandbox::stripe::orders::demo_order;
use super::sandbox::{Fault, FaultKind, Sandbox, SandboxConfig};
use super::store::records::ApprovalRuleRecord;
use crate::domain::{
    connection::{ProviderKind, REFUNDS_PROVIDER},
    ids::{Actor, OpId, TenantId},
    machine::Command,
    operation::AttemptReport,
    params::CanonicalParams,
    policy::{ApprovalRule, Role},
};

pub const DEMO_TENANT: &str = "demo";

/// The demo's console users, one per role, all with [`DEMO_PASSWORD`].
pub const DEMO_USERS: [(&str, Role); 4] = [
    ("sam.support", Role::Support),
    ("maria.manager", Role::Manager),
    ("ada.auditor", Role::Auditor),
    ("alex.admin", Role::Admin),
];

pub const DEMO_PASSWORD: &str = "opledger-demo";

/// Adds the demo users that do not exist yet.
pub async fn add_demo_users(ledger: &Ledger, tenant: &TenantId) -> Result<(), LedgerError> {
    for (name, role) in DEMO_USERS {
        match ledger.add_user(tenant, name, role, DEMO_PASSWORD, "demo").await {
            Ok(()) | Err(AccountError::NameTaken(_)) => {}
            Err(AccountError::Store(error)) => return Err(error.into()),
            Err(other) => return Err(LedgerError::Invalid(other.to_string())),
        }
    }
    let names: Vec<&str> = DEMO_USERS.iter().map(|(name, _)| *name).collect();
    tracing::info!(users = ?names, "demo console users; password: {DEMO_PASSWORD}");
    Ok(())
}

/// What happens to one demo refund.
enum Script {
    Send,
    SendWith(FaultKind, u64),
    SendTwiceWithOtherAmount,
    RegisterAndCancel,
    SubmitAndStop,
}

fn refund_request(
    order_id: &str,
    line_item_id: &str,
    minor_override: Option<i64>,
) -> Result<RegisterRequest, LedgerError> {
    let order =
        demo_order(order_id).ok_or_else(|| LedgerError::Invalid(format!("no demo order {order_id}")))?;
    let item = order
        .line_item(line_item_id)
        .ok_or_else(|| LedgerError::Invalid(format!("no line item {line_item_id}")))?;
    let mut params = refund_params(ProviderKind::Stripe, &order, item);
    if let Some(minor) = minor_override {
        params["amount"]["minor"] = json!(minor);
    }
    let params = CanonicalParams::from_value(params).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    Ok(RegisterRequest {
        op_id: OpId::for_line_item("refund", &order.id, &item.id)
            .map_err(|e| LedgerError::Invalid(e.to_string()))?,
        kind: "refund".into(),
        subject: format!("order:{}", order.id),
        provider: "stripe".into(),
        params,
        requested_by: "demo-agent".into(),
        compensates: None,
        on_behalf_of: None,
        server_sends: false,
        key_retention: None,
    })
}

/// How many steps [`seed`] reports to its progress callback.
pub const SEED_STEPS: u64 = 20;

/// The demo's refunds that Stripe accepts and settles later, on order 1101: one that succeeds
/// after 90 s, one whose card turns out to be expired after 60 s, one that stays pending. The
/// reconciler follows them; the console shows them accepted until it learns the outcome.
const ACCEPTED_REFUNDS: [(&str, Option<(&str, Option<&str>)>, u64); 3] = [
    ("li_1", Some(("succeeded", None)), 90_000),
    ("li_2", Some(("failed", Some("expired_or_canceled_card"))), 60_000),
    ("li_3", None, 0),
];

/// Refunds of TWD 1,000.00 or more need a manager in the demo, so that some wait for approval.
async fn add_demo_approval_rule(ledger: &Ledger, tenant: &TenantId) -> Result<(), LedgerError> {
    let twd = crate::domain::money::Currency::parse("TWD").expect("TWD is a currency");
    let rule = ApprovalRule {
        kind: "refund".into(),
        provider: Some("stripe".into()),
        threshold: Some(crate::domain::money::Money::new(100_000, twd)),
    };
    let record =
        ApprovalRuleRecord { id: "demo-refunds".into(), rule, created_by: "demo".into(), created_at: now() };
    Ok(ledger.add_approval_rule(tenant, &Actor::system("demo"), record).await?)
}

/// A new API token of the demo's agent, for an agent to connect with (tokens are shown once, so
/// every start with the demo makes one).
pub async fn agent_token(ledger: &Ledger) -> Result<String, LedgerError> {
    let tenant = TenantId::parse(DEMO_TENANT).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    Ok(ledger.create_token(&tenant, "demo-agent", "demo").await?)
}

/// Seeds the demo tenant once (the users are made on every run); does nothing more when it
/// already has operations. `progress` hears the start of each of the [`SEED_STEPS`] steps.
/// Returns the new API token of the demo's agent, or `None` when the data was there already.
pub async fn seed(
    executor: Executor,
    sandbox: Sandbox,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Option<String>, LedgerError> {
    let ledger = executor.ledger().clone();
    let tenant = TenantId::parse(DEMO_TENANT).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    progress("console users");
    add_demo_users(&ledger, &tenant).await?;
    let marker = OpId::parse("refund-A1042-li_1").map_err(|e| LedgerError::Invalid(e.to_string()))?;
    if ledger.reads().load_operation(&tenant, &marker).await?.is_some() {
        tracing::info!("demo data already present");
        return Ok(None);
    }
    progress("API token");
    let token = agent_token(&ledger).await?;
    let agent = Actor::agent("demo-agent");

    progress("a sender that stopped, found only after its key expired");
    let mut expiring = refund_request("1060", "li_3", None)?;
    expiring.key_retention = Some(chrono::Duration::seconds(1));
    let expiring_id = expiring.op_id.clone();
    ledger.register(&tenant, &agent, expiring).await?;
    ledger.execute(&tenant, &expiring_id, Command::BeginAttempt, &agent, AttemptReport::default()).await?;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    Reconciler::new(executor.clone(), chrono::Duration::zero()).reconcile_once().await?;

    let scripts = [
        ("A1042", "li_1", Script::Send),
        ("A1042", "li_2", Script::Send),
        ("A1042", "li_1", Script::SendTwiceWithOtherAmount),
        ("1051", "li_2", Script::SendWith(FaultKind::RateLimit, 0)),
        ("2002", "li_1", Script::SendWith(FaultKind::BusinessReject, 0)),
        ("1051", "li_1", Script::RegisterAndCancel),
        ("A1042", "li_3", Script::SubmitAndStop),
        ("1043", "li_1", Script::SendWith(FaultKind::Error500Before, 0)),
        ("1043", "li_2", Script::SendWith(FaultKind::DropResponse, 60_000)),
    ];
    for (order, item, script) in scripts {
        progress(&format!("refund of {item} on order {order}"));
        let request = refund_request(order, item, None)?;
        let op_id = request.op_id.clone();
        match script {
            Script::Send => {
                ledger.register(&tenant, &agent, request).await?;
                executor.run(&tenant, &op_id).await?;
            }
            Script::SendWith(fault, ms) => {
                sandbox.inject(Fault::once(op_id.as_str(), fault, ms));
                ledger.register(&tenant, &agent, request).await?;
                executor.run(&tenant, &op_id).await?;
            }
            Script::SendTwiceWithOtherAmount => {
                ledger.register(&tenant, &agent, refund_request(order, item, Some(20_000))?).await?;
            }
            Script::RegisterAndCancel => {
                ledger.register(&tenant, &agent, request).await?;
                let cancel = Command::Cancel { reason: "the customer kept the keyboard".into() };
                ledger.execute(&tenant, &op_id, cancel, &agent, AttemptReport::default()).await?;
            }
            Script::SubmitAndStop => {
                ledger.register(&tenant, &agent, request).await?;
                ledger
                    .execute(&tenant, &op_id, Command::BeginAttempt, &agent, AttemptReport::default())
                    .await?;
            }
        }
    }

    progress("a stop requested while a result is still unknown");
    let stop = Command::Cancel { reason: "the customer withdrew the request".into() };
    let unknown = OpId::parse("refund-1043-li_1").map_err(|e| LedgerError::Invalid(e.to_string()))?;
    ledger.execute(&tenant, &unknown, stop, &agent, AttemptReport::default()).await?;

    progress("refunds that need a manager, one of them denied, one asked for by a manager");
    add_demo_approval_rule(&ledger, &tenant).await?;
    ledger.register(&tenant, &agent, refund_request("1060", "li_1", None)?).await?;
    let denied = refund_request("1060", "li_2", None)?;
    let denied_id = denied.op_id.clone();
    ledger.register(&tenant, &agent, denied).await?;
    let deny = Command::Deny { reason: "the dock was returned damaged; refund refused".into() };
    let manager = Actor::human("maria.manager", Role::Manager);
    ledger.execute(&tenant, &denied_id, deny, &manager, AttemptReport::default()).await?;
    let mut own = refund_request("1077", "li_1", None)?;
    own.requested_by = manager.name.clone();
    ledger.register(&tenant, &manager, own).await?;

    progress("refunds whose answers were lost, for a bulk lookup");
    let mut lost = Vec::new();
    for item in ["li_2", "li_3", "li_4"] {
        let request = refund_request("1077", item, None)?;
        let op_id = request.op_id.clone();
        sandbox.inject(Fault::once(op_id.as_str(), FaultKind::DropResponse, 60_000));
        ledger.register(&tenant, &agent, request).await?;
        lost.push(op_id);
    }
    let sends = lost.iter().map(|op_id| executor.run(&tenant, op_id));
    for sent in futures::future::join_all(sends).await {
        sent?;
    }

    progress("a refund a manager approved, then sent");
    let approved = refund_request("1088", "li_1", None)?;
    let approved_id = approved.op_id.clone();
    ledger.register(&tenant, &agent, approved).await?;
    let approve = Command::Approve {
        reason: "regular customer; the speaker came back unopened".into(),
        valid_for: chrono::Duration::hours(24),
    };
    ledger.execute(&tenant, &approved_id, approve, &manager, AttemptReport::default()).await?;
    executor.run(&tenant, &approved_id).await?;

    progress("a lost answer that support settled by asking the provider");
    let settled = refund_request("1092", "li_1", None)?;
    let settled_id = settled.op_id.clone();
    sandbox.inject(Fault::once(settled_id.as_str(), FaultKind::DropResponse, 60_000));
    ledger.register(&tenant, &agent, settled).await?;
    executor.run(&tenant, &settled_id).await?;
    let support = Actor::human("sam.support", Role::Support);
    super::ledger::workflows::query_provider(&executor, &tenant, &settled_id, &support, None).await?;

    progress("refunds Stripe accepted: one settles, one fails at the bank, one stays pending");
    for (item, settles, ms) in ACCEPTED_REFUNDS {
        let request = refund_request("1101", item, None)?;
        let op_id = request.op_id.clone();
        let fault = match settles {
            Some((then, reason)) => Fault::settling(op_id.as_str(), ms, then, reason),
            None => Fault::once(op_id.as_str(), FaultKind::Pending, 0),
        };
        sandbox.inject(fault);
        ledger.register(&tenant, &agent, request).await?;
        executor.run(&tenant, &op_id).await?;
    }

    for (order, item, compensate) in [("2002", "li_1", false), ("1051", "li_2", true)] {
        progress(&format!("after-sale and pickup for {item} on order {order}"));
        seed_failed_pickup(&executor, &sandbox, &tenant, order, item, compensate).await?;
    }
    tracing::info!("demo data seeded");
    Ok(Some(token))
}

fn service_request(
    op_id: &str,
    kind: &str,
    order: &str,
    params: serde_json::Value,
) -> Result<RegisterRequest, LedgerError> {
    let invalid = |e: &dyn std::fmt::Display| LedgerError::Invalid(e.to_string());
    Ok(RegisterRequest {
        op_id: OpId::parse(op_id).map_err(|e| invalid(&e))?,
        kind: kind.into(),
        subject: format!("order:{order}"),
        provider: "sandbox".into(),
        params: CanonicalParams::from_value(params).map_err(|e| invalid(&e))?,
        requested_by: "demo-agent".into(),
        compensates: None,
        on_behalf_of: None,
        server_sends: false,
        key_retention: None,
    })
}

/// An after-sale ticket that is created, and a pickup for it that the provider refuses: a partial
/// success. With `compensate`, the ticket is then cancelled by a compensation whose first answer
/// is lost, so that the reconciler has to confirm it.
async fn seed_failed_pickup(
    executor: &Executor,
    sandbox: &Sandbox,
    tenant: &TenantId,
    order: &str,
    item: &str,
    compensate: bool,
) -> Result<(), LedgerError> {
    let ledger = executor.ledger();
    let agent = Actor::agent("demo-agent");
    let ticket_op = format!("aftersale-{order}-{item}");
    let request =
        service_request(&ticket_op, "create_aftersale", order, json!({"order": order, "line_item": item}))?;
    let ticket_id = request.op_id.clone();
    ledger.register(tenant, &agent, request).await?;
    let ticket = executor
        .run(tenant, &ticket_id)
        .await?
        .external_refs
        .last()
        .map(|r| r.external_id.clone())
        .ok_or_else(|| LedgerError::Invalid(format!("{ticket_op} created no ticket")))?;
    let pickup_op = format!("pickup-{order}-{item}-2026-12-02");
    sandbox.inject(Fault::once(&pickup_op, FaultKind::BusinessReject, 0));
    let pickup = service_request(
        &pickup_op,
        "schedule_pickup",
        order,
        json!({"ticket": ticket, "date": "2026-12-02", "order": order, "line_item": item}),
    )?;
    let pickup_id = pickup.op_id.clone();
    ledger.register(tenant, &agent, pickup).await?;
    executor.run(tenant, &pickup_id).await?;
    if compensate {
        let cancel_op = format!("cancel-aftersale-{order}-{item}");
        sandbox.inject(Fault::once(&cancel_op, FaultKind::DropResponse, 60_000));
        let mut cancel = service_request(&cancel_op, "cancel_aftersale", order, json!({"ticket": ticket}))?;
        cancel.compensates = Some(ticket_id);
        cancel.requested_by = "sam.support".into();
        let cancel_id = cancel.op_id.clone();
        ledger.register(tenant, &Actor::human("sam.support", Role::Support), cancel).await?;
        executor.run(tenant, &cancel_id).await?;
    }
    Ok(())
}

/// The second demo tenant: a shop of its own, with its own Stripe account, whose order ids are the
/// demo's (its order 1043 is other goods, in EUR), so that the console shows two tenants with the
/// same op ids never seeing each other's operations and never sharing a downstream key.
pub const SECOND_TENANT: &str = "eu-shop";

/// The second tenant's console users, with [`DEMO_PASSWORD`].
pub const SECOND_USERS: [(&str, Role); 2] = [("erik.admin", Role::Admin), ("elsa.support", Role::Support)];

/// The second tenant's own sandbox account, holding its shop's orders, answering `secret_key`;
/// mounted at [`SECOND_ACCOUNT_PATH`] by `serve --demo`.
pub fn second_account(secret_key: &str) -> Sandbox {
    let account = Sandbox::empty(SandboxConfig { secret_key: secret_key.into(), ..SandboxConfig::default() });
    for order in second_tenant_orders() {
        account.add_order(order);
    }
    account
}

/// Where `serve --demo` mounts the second tenant's account.
pub const SECOND_ACCOUNT_PATH: &str = "/sandbox-eu";

/// The second tenant's shop: its order 1043.
pub fn second_tenant_orders() -> Vec<Order> {
    vec![Order {
        id: "1043".into(),
        currency: "EUR".into(),
        payment_intent: "pi_eu_1043".into(),
        line_items: vec![
            LineItem { id: "li_1".into(), name: "Espresso machine".into(), amount_minor: 34_900 },
            LineItem { id: "li_2".into(), name: "Milk jug".into(), amount_minor: 1_990 },
        ],
        customer_email: Some("customer-1043@example.com".into()),
        gateway: None,
    }]
}

/// Seeds the second tenant: its own Stripe account at every start (the sandbox at `base_url`,
/// answering `secret_key`, made anew each start; the secret is sealed, so the ledger needs
/// `OPLEDGER_SECRET_KEY`) with the account's webhooks signed by a new secret and posted to the
/// console, and once its users, a refund of its order 1043's line item 2 under the same op id as
/// the demo tenant's, and a refund of line item 1 that Stripe accepts and settles 20 s later,
/// which its webhook settles in the ledger. Without a secret key it only says what it would need.
pub async fn seed_second_tenant(
    executor: &Executor,
    base_url: &str,
    secret_key: &str,
) -> Result<(), LedgerError> {
    let ledger = executor.ledger();
    if !ledger.seals_secrets() {
        tracing::info!(
            tenant = SECOND_TENANT,
            "not seeded: its own provider account needs OPLEDGER_SECRET_KEY"
        );
        return Ok(());
    }
    let tenant = TenantId::parse(SECOND_TENANT).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    for (name, role) in SECOND_USERS {
        match ledger.add_user(&tenant, name, role, DEMO_PASSWORD, "demo").await {
            Ok(()) | Err(AccountError::NameTaken(_)) => {}
            Err(AccountError::Store(error)) => return Err(error.into()),
            Err(other) => return Err(LedgerError::Invalid(other.to_string())),
        }
    }
    let connection = NewConnection {
        name: REFUNDS_PROVIDER.into(),
        kind: ProviderKind::Stripe,
        base_url: base_url.into(),
        secret: secret_key.into(),
        account: None,
        key_retention: None,
        description: None,
    };
    ledger.set_provider_connection(&tenant, &Actor::system("demo"), connection).await?;
    send_account_events_to_console(ledger, &tenant, base_url, secret_key).await?;
    let order = &second_tenant_orders()[0];
    let refund = |item: &LineItem| -> Result<RegisterRequest, LedgerError> {
        Ok(RegisterRequest {
            op_id: OpId::for_line_item("refund", &order.id, &item.id)
                .map_err(|e| LedgerError::Invalid(e.to_string()))?,
            kind: "refund".into(),
            subject: format!("order:{}", order.id),
            provider: REFUNDS_PROVIDER.into(),
            params: CanonicalParams::from_value(refund_params(ProviderKind::Stripe, order, item))
                .map_err(|e| LedgerError::Invalid(e.to_string()))?,
            requested_by: "eu-agent".into(),
            compensates: None,
            on_behalf_of: None,
            server_sends: false,
            key_retention: None,
        })
    };
    let same_op_id = refund(&order.line_items[1])?;
    if ledger.reads().load_operation(&tenant, &same_op_id.op_id).await?.is_some() {
        return Ok(());
    }
    let agent = Actor::agent("eu-agent");
    let op_id = same_op_id.op_id.clone();
    ledger.register(&tenant, &agent, same_op_id).await?;
    executor.run(&tenant, &op_id).await?;
    let accepted = refund(&order.line_items[0])?;
    let accepted_id = accepted.op_id.clone();
    let account = reqwest::Client::new();
    let fault = json!({"match": accepted_id.as_str(), "fault": "pending", "then": "succeeded", "ms": 20_000});
    account
        .post(format!("{base_url}/v1/_sandbox/faults"))
        .bearer_auth(secret_key)
        .json(&fault)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| LedgerError::Invalid(format!("the second account's fault could not be set: {e}")))?;
    ledger.register(&tenant, &agent, accepted).await?;
    executor.run(&tenant, &accepted_id).await?;
    tracing::info!(tenant = SECOND_TENANT, "second demo tenant seeded");
    Ok(())
}

/// Sets a new signing secret for the provider's webhooks to the second tenant's connection, and
/// points its sandbox account (at `base_url`, `/sandbox-eu` on the console's address) at the
/// console's webhook address for it, signing with that secret, as one would in Stripe's dashboard.
async fn send_account_events_to_console(
    ledger: &Ledger,
    tenant: &TenantId,
    base_url: &str,
    secret_key: &str,
) -> Result<(), LedgerError> {
    let signing = format!("whsec_{}", uuid::Uuid::new_v4().simple());
    ledger.set_webhook_secret(tenant, &Actor::system("demo"), REFUNDS_PROVIDER, &signing).await?;
    let console = base_url.trim_end_matches(SECOND_ACCOUNT_PATH);
    let destination = json!({"url": format!("{console}/webhooks/providers/{tenant}/{REFUNDS_PROVIDER}"), "secret": signing});
    reqwest::Client::new()
        .post(format!("{base_url}/v1/_sandbox/event_destination"))
        .bearer_auth(secret_key)
        .json(&destination)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| {
            LedgerError::Invalid(format!("the second account's webhooks could not be set up: {e}"))
        })?;
    Ok(())
}

/// Points the demo tenant's webhooks at the sandbox's receiver at `receiver_url` (every event type),
/// unless an endpoint there exists already, so that the admin page shows deliveries. Like the
/// second tenant, it needs `OPLEDGER_SECRET_KEY` to seal the signing secret; without one it says so.
pub async fn add_demo_webhook(ledger: &Ledger, receiver_url: &str) -> Result<(), LedgerError> {
    if !ledger.seals_secrets() {
        tracing::info!(tenant = DEMO_TENANT, "no demo webhook: its signing secret needs OPLEDGER_SECRET_KEY");
        return Ok(());
    }
    let tenant = TenantId::parse(DEMO_TENANT).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    let endpoints = ledger.reads().webhook_endpoints(&tenant).await?;
    if endpoints.iter().any(|endpoint| endpoint.url == receiver_url) {
        return Ok(());
    }
    ledger.add_webhook_endpoint(&tenant, &Actor::system("demo"), receiver_url, "*").await?;
    Ok(())
}
