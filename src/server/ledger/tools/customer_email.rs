//! The `send_customer_email {order_id, template}` tool: one of the tenant's email templates,
//! filled from the order, to the customer the shop has for it, through the tenant's email account.
//! Op `email-<order>-<template>`: the same message about the same order is one intent. The message
//! as written (sender, recipient, subject, text) is the operation's parameters, so what is sent is
//! what was recorded. Through SMTP, which can neither recognise a repeat nor be asked, a lost
//! answer is told to the model as such: nobody can tell, and a person checks.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use utoipa::ToSchema;

use super::answer::Subject;
use super::{invalid, ToolAnswer, ToolError, Tools};
use crate::domain::connection::Settles;
use crate::domain::email::{EmailFacts, MessageProblem};
use crate::domain::ids::OpId;
use crate::domain::params::CanonicalParams;
use crate::domain::wording::Described;
use crate::server::ledger::LedgerError;

/// One of the tenant's email templates, to one order's customer.
#[derive(Debug, Deserialize, ToSchema, JsonSchema)]
#[schema(as = EmailRequest)]
#[serde(deny_unknown_fields)]
pub struct EmailArgs {
    /// The order's id in the shop, e.g. "1043".
    pub order_id: String,
    /// The template's name, as the admin page lists it, e.g. "refund_issued".
    pub template: String,
    /// The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-CN"
    /// (Simplified Chinese). Leave it out to use the shop's own.
    #[serde(default)]
    #[schema(pattern = "^(en|zh-TW|zh-CN)$")]
    pub locale: Option<String>,
}

impl Tools<'_> {
    /// Send one of the tenant's email templates to the customer of an order: the message is
    /// filled from the order and recorded before it is sent; the same template about the same
    /// order is sent once.
    pub async fn send_customer_email(&self, args: EmailArgs) -> Result<ToolAnswer, ToolError> {
        let tenant = self.tenant;
        let customer_language = self.customer_language(args.locale.as_deref()).await?;
        let (provider, sender) = self.email_account().await?;
        let template = self
            .executor
            .ledger()
            .reads()
            .email_template(tenant, args.template.trim())
            .await?
            .ok_or_else(|| {
                invalid(format!(
                    "template: tenant {tenant} has no email template {:?}; an admin adds them on the admin page",
                    args.template
                ))
            })?
            .template;
        let order = self.shop_order(&args.order_id).await?;
        let to = order.customer_email.as_deref().unwrap_or_default();
        let facts = EmailFacts { order: &order.id, shop: tenant.as_str(), customer_email: to };
        let op_id = OpId::parse(&template.op_id(&order.id)).map_err(invalid)?;
        let message =
            template.message(&facts, &sender).map_err(|problem| message_refused(&order.id, &problem))?;
        let params = CanonicalParams::from_value(message).map_err(invalid)?;
        let connector = self.executor.directory().connector(tenant, &provider).await?;
        let at_most_once = match &connector {
            Ok(connector) => connector.capabilities("send_email").settles() == Settles::AtMostOnce,
            Err(_) => true,
        };
        let subject = Subject {
            described: Described { kind: "send_email", amount: None, item: None, provider: &provider },
            order_id: &order.id,
            at_most_once,
            customer_language,
        };
        let registration = self.registration(op_id, "send_email", &provider, &order.id, params);
        self.run(registration, connector, &subject).await
    }

    /// The tenant's own connection that sends email (kind `email` or `smtp`), preferring the one
    /// named `email`: its name and the sender it sends as.
    async fn email_account(&self) -> Result<(String, String), ToolError> {
        let tenant = self.tenant;
        let mut accounts: Vec<(String, String)> = self
            .executor
            .ledger()
            .reads()
            .provider_connections(tenant)
            .await?
            .into_iter()
            .filter(|connection| connection.kind.action_for("send_email").is_some())
            .filter_map(|connection| Some((connection.name, connection.account?)))
            .collect();
        accounts.sort_by_key(|(name, _)| name != "email");
        accounts.into_iter().next().ok_or_else(|| {
            ToolError::NotConnected(format!(
                "no email account (kind email or smtp) is connected for tenant {tenant}; nothing was recorded or sent"
            ))
        })
    }
}

/// Why a message about `order` could never be sent as filled in, named by the field at fault, with
/// nothing recorded: the same call goes through once the shop's address (or the template, or the
/// connection's sender) is put right.
fn message_refused(order: &str, problem: &MessageProblem) -> ToolError {
    let why = &problem.problem;
    match problem.field {
        "to" => ToolError::Ledger(LedgerError::InvalidField {
            field: "order_id",
            problem: format!("the shop's customer email address for order {order} cannot be sent to: {why}; nothing was recorded or sent"),
        }),
        "from" => ToolError::NotConnected(format!(
            "the email account's sender cannot be sent from: {why}; an admin fixes it on the admin page; nothing was recorded or sent"
        )),
        field => ToolError::Ledger(LedgerError::InvalidField {
            field: "template",
            problem: format!("the template's {field}, filled in for order {order}, cannot be sent: {why}; nothing was recorded or sent"),
        }),
    }
}
