//! Demo data for `serve --demo`: tenant `demo` with an API token, and operations driven through
//! the executor and the mounted sandbox with injected faults, so that every state the console shows
//! is one the real protocol produced: two legitimate refunds of one order, a refused conflicting
//! request, a timeout, a cached 500 that ends in review, a retried rate limit, a business
//! rejection, a cancellation, and a sender that stopped between `submitted` and the send.

use serde_json::json;

use super::catalogue::find_order;
use super::executor::Executor;
use super::ledger::{LedgerError, RegisterRequest, DEFAULT_KEY_RETENTION};
use super::sandbox::{Fault, FaultKind, Sandbox};
use super::store::records::AttemptReport;
use super::tokens::create_token;
use crate::domain::{
    ids::{Actor, OpId, TenantId},
    machine::Command,
    params::CanonicalParams,
};

pub const DEMO_TENANT: &str = "demo";

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
        find_order(order_id).ok_or_else(|| LedgerError::Invalid(format!("no demo order {order_id}")))?;
    let item = order
        .line_item(line_item_id)
        .ok_or_else(|| LedgerError::Invalid(format!("no line item {line_item_id}")))?;
    let params = CanonicalParams::from_value(json!({
        "payment_intent": order.payment_intent,
        "amount": {"minor": minor_override.unwrap_or(item.amount_minor), "currency": order.currency},
        "order": order.id,
        "line_item": item.id,
        "reason": "requested_by_customer",
    }))
    .map_err(|e| LedgerError::Invalid(e.to_string()))?;
    Ok(RegisterRequest {
        op_id: OpId::for_line_item("refund", order.id, item.id)
            .map_err(|e| LedgerError::Invalid(e.to_string()))?,
        kind: "refund".into(),
        subject: format!("order:{}", order.id),
        provider: "stripe".into(),
        params,
        requested_by: "demo-agent".into(),
        compensates: None,
        key_retention: DEFAULT_KEY_RETENTION,
    })
}

/// Seeds the demo tenant once; does nothing when it already has operations.
pub async fn seed(executor: Executor, sandbox: Sandbox) -> Result<(), LedgerError> {
    let ledger = executor.ledger().clone();
    let tenant = TenantId::parse(DEMO_TENANT).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    let marker = OpId::parse("refund-A1042-li_1").map_err(|e| LedgerError::Invalid(e.to_string()))?;
    if ledger.store().load_operation(&tenant, &marker).await?.is_some() {
        tracing::info!("demo data already present");
        return Ok(());
    }
    let token = create_token(ledger.store().as_ref(), &tenant, "demo-agent", "demo").await?;
    tracing::info!(tenant = DEMO_TENANT, "demo API token: {token}");
    let agent = Actor::agent("demo-agent");
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
        let request = refund_request(order, item, None)?;
        let op_id = request.op_id.clone();
        match script {
            Script::Send => {
                ledger.register(&tenant, &agent, request).await?;
                executor.run(&tenant, &op_id).await?;
            }
            Script::SendWith(fault, ms) => {
                sandbox.inject(Fault { pattern: op_id.to_string(), fault, times: 1, ms });
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
    tracing::info!("demo data seeded");
    Ok(())
}
