//! The after-sale tools, at the tenant's helpdesk: `create_aftersale` opens a ticket for one line
//! item, `schedule_pickup` schedules the pickup of an item whose ticket is open, on a date.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use utoipa::ToSchema;

use super::answer::Subject;
use super::{invalid, ToolAnswer, ToolError, Tools};
use crate::domain::{
    connection::{Settles, SERVICES_PROVIDER},
    ids::OpId,
    machine::State as OpState,
    params::CanonicalParams,
    wording::Described,
};
use crate::server::providers::Connector;

/// One line item of one order of the tenant's shop.
#[derive(Debug, Deserialize, ToSchema, JsonSchema)]
#[schema(as = LineItemRequest)]
#[serde(deny_unknown_fields)]
pub struct LineItemArgs {
    /// The order's id in the shop, e.g. "1043".
    pub order_id: String,
    /// The line item's id in that order, e.g. "li_2".
    pub line_item_id: String,
    /// The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-CN"
    /// (Simplified Chinese). Leave it out to use the shop's own.
    #[serde(default)]
    #[schema(pattern = "^(en|zh-TW|zh-CN)$")]
    pub locale: Option<String>,
}

/// The pickup of one line item whose after-sale ticket exists.
#[derive(Debug, Deserialize, ToSchema, JsonSchema)]
#[schema(as = PickupRequest)]
#[serde(deny_unknown_fields)]
pub struct PickupArgs {
    /// The order's id in the shop, e.g. "1043".
    pub order_id: String,
    /// The line item's id in that order, e.g. "li_2".
    pub line_item_id: String,
    /// The pickup date, YYYY-MM-DD. Another date is another pickup.
    #[schema(format = Date)]
    pub date: String,
    /// The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-CN"
    /// (Simplified Chinese). Leave it out to use the shop's own.
    #[serde(default)]
    #[schema(pattern = "^(en|zh-TW|zh-CN)$")]
    pub locale: Option<String>,
}

impl Tools<'_> {
    /// Open an after-sale ticket for one line item of an order.
    pub async fn create_aftersale(&self, args: LineItemArgs) -> Result<ToolAnswer, ToolError> {
        let customer_language = self.customer_language(args.locale.as_deref()).await?;
        let (provider, connector) = self.helpdesk("create_aftersale").await?;
        let at_most_once = connector.capabilities("create_aftersale").settles() == Settles::AtMostOnce;
        let (order, item) = self.order_and_item(&args.order_id, &args.line_item_id).await?;
        let op_id = OpId::for_line_item("aftersale", &order.id, &item.id).map_err(invalid)?;
        let params =
            CanonicalParams::from_value(json!({"order": order.id, "line_item": item.id})).map_err(invalid)?;
        let subject = Subject {
            described: Described {
                kind: "create_aftersale",
                amount: None,
                item: Some(&item.name),
                provider: &provider,
            },
            order_id: &order.id,
            at_most_once,
            customer_language,
        };
        let registration = self.registration(op_id, "create_aftersale", &provider, &order.id, params);
        self.run(registration, Ok(connector), &subject).await
    }

    /// Schedule a pickup for a line item's after-sale ticket.
    pub async fn schedule_pickup(&self, args: PickupArgs) -> Result<ToolAnswer, ToolError> {
        let customer_language = self.customer_language(args.locale.as_deref()).await?;
        let (provider, connector) = self.helpdesk("schedule_pickup").await?;
        let at_most_once = connector.capabilities("schedule_pickup").settles() == Settles::AtMostOnce;
        let (order, item) = self.order_and_item(&args.order_id, &args.line_item_id).await?;
        let date = chrono::NaiveDate::parse_from_str(&args.date, "%Y-%m-%d")
            .map_err(|_| invalid(format!("date must be YYYY-MM-DD, got {:?}", args.date)))?;
        let ticket_op = OpId::for_line_item("aftersale", &order.id, &item.id).map_err(invalid)?;
        let ticket = self
            .executor
            .ledger()
            .reads()
            .operation_history(self.tenant, &ticket_op)
            .await?
            .filter(|h| h.operation.snapshot.state == OpState::Succeeded)
            .and_then(|h| h.external_refs.last().map(|r| r.external_id.clone()))
            .ok_or_else(|| {
                invalid(format!(
                    "{} on order {} has no after-sale ticket yet; create it first",
                    item.name, order.id
                ))
            })?;
        let op_id = OpId::parse(&format!("pickup-{}-{}-{date}", order.id, item.id)).map_err(invalid)?;
        let params = CanonicalParams::from_value(
            json!({"ticket": ticket, "date": date.to_string(), "order": order.id, "line_item": item.id}),
        )
        .map_err(invalid)?;
        let item_on_date = format!("{} on {date}", item.name);
        let subject = Subject {
            described: Described {
                kind: "schedule_pickup",
                amount: None,
                item: Some(&item_on_date),
                provider: &provider,
            },
            order_id: &order.id,
            at_most_once,
            customer_language,
        };
        let registration = self.registration(op_id, "schedule_pickup", &provider, &order.id, params);
        self.run(registration, Ok(connector), &subject).await
    }

    /// The tenant's helpdesk for operations of `kind` (`create_aftersale`, `schedule_pickup`): its
    /// own connection named `sandbox`, else another of its own that performs `kind` (a helpdesk
    /// described as an HTTP API), else the server's after-sale service when it serves the tenant.
    /// Its name and its connector, whose capabilities say whether it can neither recognise a
    /// repeat nor be asked what it did for `kind`, so that a lost answer is told as such (sent at
    /// most once, a person checks).
    async fn helpdesk(&self, kind: &str) -> Result<(String, Arc<dyn Connector>), ToolError> {
        let tenant = self.tenant;
        let connections = self.executor.ledger().reads().provider_connections(tenant).await?;
        let mut names: Vec<String> = connections.into_iter().map(|c| c.name).collect();
        names.sort_by_key(|name| name != SERVICES_PROVIDER);
        names.push(SERVICES_PROVIDER.to_owned());
        for name in names {
            if let Ok(connector) = self.executor.directory().connector(tenant, &name).await? {
                if connector.action_for(kind).is_some() {
                    return Ok((name, connector));
                }
            }
        }
        Err(ToolError::NotConnected(format!(
            "no after-sale and pickup provider is connected for tenant {tenant}; nothing was recorded or sent"
        )))
    }
}
