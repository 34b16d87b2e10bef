//! The `refund_item` tool: the refund of one line item of an order, through the connection the
//! tenant's refunds go through, for the amount the order says; after it failed at the provider, its
//! retry on purpose under an op id of its own.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use utoipa::ToSchema;

use super::answer::Subject;
use super::{invalid, ToolAnswer, ToolError, Tools};
use crate::domain::{
    ids::OpId,
    money::{Currency, Money},
    params::CanonicalParams,
    wording::{concerns_line_item, Described},
};

/// The refund of one line item; after a refund of it failed at the provider, its retry on purpose.
#[derive(Debug, Deserialize, ToSchema, JsonSchema)]
#[schema(as = RefundRequest)]
#[serde(deny_unknown_fields)]
pub struct RefundArgs {
    /// The order's id in the shop, e.g. "1043".
    pub order_id: String,
    /// The line item's id in that order, e.g. "li_2".
    pub line_item_id: String,
    /// Only after an answer with status "failed_at_provider": true to refund the item again, on
    /// purpose. Leave it out otherwise: it is never done without it.
    #[serde(default)]
    pub retry_after_failure: bool,
    /// With retry_after_failure: the op_id of the refund that failed, as the answer gave it.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$")]
    pub failed_op_id: Option<String>,
    /// The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-CN"
    /// (Simplified Chinese). Leave it out to use the shop's own.
    #[serde(default)]
    #[schema(pattern = "^(en|zh-TW|zh-CN)$")]
    pub locale: Option<String>,
}

impl Tools<'_> {
    /// Refund one line item of an order: the op id and the amount come from the order, never from
    /// the caller. After a refund of the item failed at the provider, it is made again only when
    /// the caller asks for it with the failed op id.
    pub async fn refund_item(&self, args: RefundArgs) -> Result<ToolAnswer, ToolError> {
        let customer_language = self.customer_language(args.locale.as_deref()).await?;
        let tenant = self.tenant;
        let not_connected = || {
            ToolError::NotConnected(format!(
                "no refund provider is connected for tenant {tenant}; nothing was recorded or sent"
            ))
        };
        if self.executor.directory().refund_provider(tenant).await?.is_none() {
            return Err(not_connected());
        }
        let (order, item) = self.order_and_item(&args.order_id, &args.line_item_id).await?;
        let directory = self.executor.directory();
        let (provider, kind) =
            directory.refund_provider_for(tenant, &order).await?.ok_or_else(not_connected)?;
        let connector = self.connected(&provider, "refund").await?;
        let first = OpId::for_line_item("refund", &order.id, &item.id).map_err(invalid)?;
        let currency = Currency::parse(&order.currency).map_err(invalid)?;
        let subject = Subject {
            described: Described {
                kind: "refund",
                amount: Some(Money::new(item.amount_minor, currency)),
                item: Some(&item.name),
                provider: &provider,
            },
            order_id: &order.id,
            at_most_once: false,
            customer_language,
        };
        if args.retry_after_failure {
            let failed = args.failed_op_id.as_deref().ok_or_else(|| {
                invalid("failed_op_id: a retry after a failure names the refund that failed")
            })?;
            let failed = OpId::parse(failed).map_err(invalid)?;
            if !concerns_line_item(failed.as_str(), &order.id, &item.id) {
                return Err(invalid(format!(
                    "failed_op_id: {failed} is not a refund of line item {} of order {}",
                    item.id, order.id
                )));
            }
            let retry =
                self.executor.ledger().register_retry(tenant, self.actor, &failed, None, None).await?;
            return self.run_registered(retry, Ok(connector), &subject).await;
        }
        if args.failed_op_id.is_some() {
            return Err(invalid(
                "failed_op_id is read only with retry_after_failure: true; nothing was recorded or sent",
            ));
        }
        let op_id = self.latest_retry(first).await?;
        let refund = self.executor.ledger().line_item_refund(tenant, &provider, kind, &order, &item).await?;
        let params = CanonicalParams::from_value(refund).map_err(invalid)?;
        let registration = self.registration(op_id, "refund", &provider, &order.id, params);
        self.run(registration, Ok(connector), &subject).await
    }

    /// The last operation of the chain that starts at `first` and goes on through its retries
    /// after failures (`…-retry-2`, `…-retry-3`): the one a new call about the same line item is
    /// about.
    async fn latest_retry(&self, first: OpId) -> Result<OpId, ToolError> {
        let reads = self.executor.ledger().reads();
        let mut latest = first;
        loop {
            let next = latest.retry().map_err(invalid)?;
            match reads.load_operation(self.tenant, &next).await? {
                Some(retry) if retry.retry_of.as_ref() == Some(&latest) => latest = next,
                _ => return Ok(latest),
            }
        }
    }
}
