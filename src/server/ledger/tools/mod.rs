//! The tools agents call, over the ledger API and over MCP alike. Each takes business keys (an
//! order, a line item), derives the op id and the parameters from the order's data, records the
//! operation, runs the executor, and answers in the console's words (`domain::wording`): how the
//! operation stands ("… did not answer in time; we are checking whether it happened. Do not refund
//! it again.") and one sentence to tell the customer.
//!
//! - `refund_item {order_id, line_item_id}`: op `refund-<order>-<line item>`, the item's amount;
//!   after that refund failed at the provider, `{…, retry_after_failure: true, failed_op_id}` makes
//!   it again on purpose under the op id derived from the failed one (`…-retry-2`, see
//!   `OpId::retry`), never by itself;
//! - `create_aftersale {order_id, line_item_id}`: op `aftersale-<order>-<line item>`, at the
//!   tenant's helpdesk (its after-sale service, or its own helpdesk described as an HTTP API),
//!   whose name and capabilities the answer speaks of;
//! - `schedule_pickup {order_id, line_item_id, date}`: op `pickup-<order>-<line item>-<date>` for
//!   the item's after-sale ticket (another date is another intent), at the tenant's helpdesk too;
//! - `send_customer_email {order_id, template}`: op `email-<order>-<template>` (`customer_email`).
//!
//! Each tool's arguments are one type, which the ledger API reads as its JSON body (and lists in
//! its OpenAPI document) and the MCP server as the tool's arguments (and lists as its schema).

mod aftersale;
mod answer;
mod customer_email;
mod refund;

use std::fmt::Display;

pub use aftersale::{LineItemArgs, PickupArgs};
pub use answer::{ToolAnswer, ToolStatus};
pub use customer_email::EmailArgs;
pub use refund::RefundArgs;

use super::directory::Reachable;
use super::executor::Executor;
use super::{LedgerError, RegisterRequest, Registration};
use crate::domain::{
    ids::{Actor, OpId, TenantId},
    language::Language,
    machine::State as OpState,
    params::CanonicalParams,
};
use crate::server::providers::orders::{LineItem, Order};
use crate::server::providers::Connector;
use crate::server::store::StoreError;
use answer::{answer, Subject};
use std::sync::Arc;

/// Why a tool recorded and sent nothing.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The tenant has no connection for what the tool needs, and the server serves it none.
    #[error("{0}")]
    NotConnected(String),
    /// A provider the tool needs (the shop) could not be asked.
    #[error("{0}")]
    Unavailable(String),
    /// Refused input (naming the field at fault where one is), or the ledger's own refusal or
    /// failure.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl From<StoreError> for ToolError {
    fn from(error: StoreError) -> Self {
        ToolError::Ledger(LedgerError::Store(error))
    }
}

/// Refused input, with the problem in words (a parse error's own sentence).
fn invalid(problem: impl Display) -> ToolError {
    ToolError::Ledger(LedgerError::Invalid(problem.to_string()))
}

/// The tools, for one caller: its tenant, its identity as an actor (the API token's name), and the
/// language its transport asked for (HTTP's `Accept-Language`), if that names one offered.
pub struct Tools<'a> {
    executor: &'a Executor,
    tenant: &'a TenantId,
    actor: &'a Actor,
    accepted_language: Option<Language>,
}

impl<'a> Tools<'a> {
    pub fn new(
        executor: &'a Executor,
        tenant: &'a TenantId,
        actor: &'a Actor,
        accepted_language: Option<Language>,
    ) -> Self {
        Self { executor, tenant, actor, accepted_language }
    }

    /// The language to tell the customer in: the call's `locale`, else the language its transport
    /// asked for, else the one the tenant's admin set, else English. A `locale` that is not exactly
    /// the tag of a language offered (`en`, `zh-TW`, `zh-CN`) is refused, with the ones that are.
    /// What the model is told around that sentence stays in English.
    async fn customer_language(&self, locale: Option<&str>) -> Result<Language, ToolError> {
        if let Some(tag) = locale {
            return Language::ALL.into_iter().find(|language| language.tag() == tag).ok_or_else(|| {
                invalid(format!(
                    "locale: {tag:?} is not a language customers are told things in ({}); leave it out to use the shop's own",
                    Language::ALL.map(Language::tag).join(", ")
                ))
            });
        }
        if let Some(language) = self.accepted_language {
            return Ok(language);
        }
        let reads = self.executor.ledger().reads();
        Ok(reads.tenant_language(self.tenant).await?.unwrap_or_default())
    }

    /// What the server records for a tool's operation of `kind` about `order_id`, in the caller's name.
    fn registration(
        &self,
        op_id: OpId,
        kind: &str,
        provider: &str,
        order_id: &str,
        params: CanonicalParams,
    ) -> RegisterRequest {
        RegisterRequest {
            op_id,
            kind: kind.into(),
            subject: format!("order:{order_id}"),
            provider: provider.into(),
            params,
            requested_by: self.actor.name.clone(),
            compensates: None,
            on_behalf_of: None,
            server_sends: true,
            key_retention: None,
        }
    }

    /// Records the operation (or finds it), sends it through `connector` unless it was already
    /// sent, and says how it stands.
    async fn run(
        &self,
        registration: RegisterRequest,
        connector: Reachable,
        subject: &Subject<'_>,
    ) -> Result<ToolAnswer, ToolError> {
        let registered = self.executor.ledger().register(self.tenant, self.actor, registration).await?;
        self.run_registered(registered, connector, subject).await
    }

    /// Sends what `registered` recorded through `connector` (resolved for the subject's provider)
    /// unless it was already sent, and says how it stands.
    async fn run_registered(
        &self,
        registered: Registration,
        connector: Reachable,
        subject: &Subject<'_>,
    ) -> Result<ToolAnswer, ToolError> {
        let recorded = match registered {
            Registration::Created(recorded) | Registration::Existing(recorded) => recorded,
            Registration::Conflict { stored, .. } => {
                return Err(invalid(format!(
                    "{} is recorded with other parameters than the order now has; a person must review it",
                    stored.operation.op_id
                )))
            }
        };
        let operation = &recorded.operation;
        if !matches!(operation.snapshot.state, OpState::Planned | OpState::Approved) {
            return Ok(answer(operation, &recorded.external_refs, false, subject));
        }
        let provider = subject.described.provider;
        let after = self.executor.run_through(self.tenant, &operation.op_id, provider, connector).await?;
        Ok(answer(&after.operation, &after.external_refs, true, subject))
    }

    /// The connector that serves the tenant at `provider`, the one a tool sends to (its `service`
    /// in words: `refund`), when it is connected.
    async fn connected(&self, provider: &str, service: &str) -> Result<Arc<dyn Connector>, ToolError> {
        let tenant = self.tenant;
        self.executor.directory().connector(tenant, provider).await?.map_err(|_| {
            ToolError::NotConnected(format!(
                "no {service} provider is connected for tenant {tenant}; nothing was recorded or sent"
            ))
        })
    }

    /// The order and line item a tool names, read from the tenant's own shop.
    async fn order_and_item(
        &self,
        order_id: &str,
        line_item_id: &str,
    ) -> Result<(Order, LineItem), ToolError> {
        let order = self.shop_order(order_id).await?;
        let item = order.line_item(line_item_id).cloned().ok_or_else(|| {
            invalid(format!("line_item_id: order {} has no line item {line_item_id:?}", order.id))
        })?;
        Ok((order, item))
    }

    /// The order a tool names, read from the tenant's own shop.
    async fn shop_order(&self, order_id: &str) -> Result<Order, ToolError> {
        let orders =
            self.executor.directory().orders(self.tenant).await?.map_err(|reason| {
                ToolError::NotConnected(format!("{reason}; nothing was recorded or sent"))
            })?;
        let order = orders
            .order(order_id)
            .await
            .map_err(|reason| {
                ToolError::Unavailable(format!(
                    "the shop's orders could not be read ({reason}); nothing was recorded or sent"
                ))
            })?
            .ok_or_else(|| invalid(format!("order_id: no such order {order_id:?} in this tenant's shop")))?;
        Ok(order)
    }
}
