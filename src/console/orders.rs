//! Orders: every order with its roll-up (partial success and pending confirmation stand out), one
//! order's operations across systems with its net effect, and [`compensate`], which records a
//! compensation of one of them as a new linked operation and sends it.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::operation::CompensationOffer;
use super::operations::OperationRow;
use super::AppError;
use crate::domain::{machine::State, rollup::OrderStatus, wording::Told};

/// One order in a list, with its roll-up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderSummary {
    pub subject: String,
    pub status: OrderStatus,
    pub operations: usize,
    pub net_refunded: Vec<String>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdersPage {
    /// Orders in partial success or pending confirmation.
    pub attention: Vec<OrderSummary>,
    pub recent: Vec<OrderSummary>,
}

/// One operation of an order, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationStory {
    pub op_id: String,
    pub state: State,
    pub told: Told,
    /// The operation it compensates, if it is a compensation.
    pub compensates: Option<String>,
    pub updated_at: DateTime<Utc>,
}

/// One line item of an order as the shop sold it, and what was done about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderedItem {
    pub id: String,
    pub name: String,
    pub paid: String,
    pub refunded: String,
    /// Refunds sent whose result is not known yet.
    pub in_doubt: Option<String>,
    pub refundable: String,
    pub operations: Vec<OperationStory>,
}

/// The order as the tenant's shop has it, with the money per line item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopOrder {
    pub items: Vec<OrderedItem>,
    pub paid: String,
    pub refunded: String,
    pub in_doubt: Option<String>,
    pub refundable: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderDetail {
    pub subject: String,
    pub status: OrderStatus,
    /// The order's line items from the shop, or in words why the shop could not be read.
    pub shop: Result<ShopOrder, String>,
    /// Operations that concern no line item the shop names.
    pub other_operations: Vec<OperationStory>,
    pub operations: Vec<OperationRow>,
    pub completed: Vec<String>,
    pub not_done: Vec<String>,
    pub uncertain: Vec<String>,
    pub effects_in_force: Vec<String>,
    pub net_refunded: Vec<String>,
    /// The compensations this viewer may record, per operation that offers any.
    pub compensations: Vec<CompensationOffer>,
    pub form_key: String,
    /// Who holds the order on the support desk, and its internal notes.
    pub holding: super::desk::HoldingView,
    pub notes: super::desk::NotesView,
}

#[server(prefix = "/rpc", endpoint = "orders")]
pub async fn orders() -> Result<OrdersPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Orders).await?;
    ssr::orders(&user).await.inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "order")]
pub async fn order(subject: String) -> Result<OrderDetail, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Orders).await?;
    ssr::order(&user, &subject).await.inspect_err(crate::console::guard::set_error_status)
}

/// Records a compensation of one operation (`compensation` is e.g. `cancel_ticket`) and sends it.
#[server(prefix = "/rpc", endpoint = "compensate")]
pub async fn compensate(
    csrf: String,
    key: String,
    op_id: String,
    compensation: String,
    #[server(default)] date: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Orders, &csrf).await?;
    crate::console::operation::ssr::may_act(&user).inspect_err(crate::console::guard::set_error_status)?;
    if confirmed.trim() != "yes" {
        let typed: Vec<(&'static str, String)> =
            if date.trim().is_empty() { Vec::new() } else { vec![("date", date.clone())] };
        crate::console::operation::ssr::ask_to_confirm(&op_id, &compensation, &typed);
        return Ok(crate::console::operation::confirm_first(crate::console::language::current_language()));
    }
    let answer = ssr::compensate(&user, &key, &op_id, &compensation, &date)
        .await
        .inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::forms::ssr::once;
    use crate::console::guard::{actor, reads, refused, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::console::operation::ssr::{compensations_for, offers, SHOP_WAIT};
    use crate::console::operations::ssr::row;
    use crate::domain::{
        compensation::Compensation,
        ids::OpId,
        language::Language,
        money::{Currency, Money},
        rollup::{roll_up, OperationSummary},
        wording::{concerns_line_item, tell, Described},
    };
    use crate::server::http::state::AppState;
    use crate::server::ledger::requests::form_key;
    use crate::server::ledger::{workflows, LedgerError};
    use crate::server::providers::orders::Order;
    use crate::server::store::records::OperationListItem;
    use crate::t;
    use std::collections::BTreeMap;

    pub fn summaries(items: &[OperationListItem]) -> Vec<OperationSummary> {
        items
            .iter()
            .map(|item| OperationSummary {
                op_id: item.op_id.clone(),
                kind: item.kind.clone(),
                state: item.state,
                amount: item.amount,
                compensates: item.compensates.clone(),
            })
            .collect()
    }

    /// Rolls up every subject of `items`, most recently changed first, amounts in `language`.
    pub fn order_summaries(items: Vec<OperationListItem>, language: Language) -> Vec<OrderSummary> {
        let mut by_subject: BTreeMap<String, Vec<OperationListItem>> = BTreeMap::new();
        for item in items {
            by_subject.entry(item.subject.clone()).or_default().push(item);
        }
        let mut orders: Vec<OrderSummary> = by_subject
            .into_iter()
            .filter_map(|(subject, items)| {
                let rollup = roll_up(&summaries(&items)).ok()?;
                Some(OrderSummary {
                    subject,
                    status: rollup.status,
                    operations: items.len(),
                    net_refunded: rollup.net_refunded.iter().map(|money| language.money(*money)).collect(),
                    updated_at: items.iter().map(|i| i.updated_at).max()?,
                })
            })
            .collect();
        orders.sort_by_key(|order| std::cmp::Reverse(order.updated_at));
        orders
    }

    pub fn needs_attention(order: &OrderSummary) -> bool {
        matches!(order.status, OrderStatus::PartialSuccess | OrderStatus::PendingConfirmation)
    }

    pub async fn orders(user: &SignedIn) -> Result<OrdersPage, AppError> {
        let store = reads();
        let subjects = store.subjects(&user.tenant, false, 100).await.map_err(unavailable)?;
        let items = store.subjects_operations(&user.tenant, &subjects).await.map_err(unavailable)?;
        Ok(OrdersPage {
            attention: attention_orders(user, 100).await?,
            recent: order_summaries(items, current_language()),
        })
    }

    fn story(item: &OperationListItem, line_item: Option<&str>) -> OperationStory {
        OperationStory {
            op_id: item.op_id.to_string(),
            state: item.state,
            told: tell(
                &Described {
                    kind: &item.kind,
                    amount: item.amount,
                    item: line_item,
                    provider: &item.provider,
                },
                item.state,
                item.failure_reason.as_deref(),
                current_language(),
            ),
            compensates: item.compensates.as_ref().map(ToString::to_string),
            updated_at: item.updated_at,
        }
    }

    /// The shop's line items with the operations on each and the money they moved; the operations
    /// on none of them are returned apart. Amounts are written as `language` writes them.
    pub fn shop_view(
        order: &Order,
        operations: &[OperationListItem],
        language: Language,
    ) -> (ShopOrder, Vec<OperationStory>) {
        let money = |minor: i64| match Currency::parse(&order.currency) {
            Ok(currency) => language.money(Money::new(minor, currency)),
            Err(_) => format!("{} {minor}", order.currency),
        };
        let mut placed = vec![false; operations.len()];
        let mut totals = LineMoney::default();
        let items = order
            .line_items
            .iter()
            .map(|line| {
                let mut moved = LineMoney { paid: line.amount_minor, ..LineMoney::default() };
                let stories = operations
                    .iter()
                    .enumerate()
                    .filter(|(_, op)| concerns_line_item(op.op_id.as_str(), &order.id, &line.id))
                    .map(|(at, op)| {
                        placed[at] = true;
                        if op.kind == "refund" {
                            let minor = op.amount.map_or(0, |m| m.minor);
                            if op.state == State::Succeeded {
                                moved.refunded += minor;
                            } else if op.state.is_uncertain() {
                                moved.in_doubt += minor;
                            }
                        }
                        story(op, Some(&line.name))
                    })
                    .collect();
                totals = totals.plus(&moved);
                OrderedItem {
                    id: line.id.clone(),
                    name: line.name.clone(),
                    paid: money(moved.paid),
                    refunded: money(moved.refunded),
                    in_doubt: (moved.in_doubt > 0).then(|| money(moved.in_doubt)),
                    refundable: money(moved.refundable()),
                    operations: stories,
                }
            })
            .collect();
        let others = operations
            .iter()
            .zip(placed)
            .filter(|(_, placed)| !placed)
            .map(|(op, _)| story(op, None))
            .collect();
        let shop = ShopOrder {
            items,
            paid: money(totals.paid),
            refunded: money(totals.refunded),
            in_doubt: (totals.in_doubt > 0).then(|| money(totals.in_doubt)),
            refundable: money(totals.refundable()),
        };
        (shop, others)
    }

    /// Money of one line item (or a whole order), in minor units.
    #[derive(Default)]
    struct LineMoney {
        paid: i64,
        refunded: i64,
        in_doubt: i64,
    }

    impl LineMoney {
        /// What may still be refunded: what was paid less what was refunded and what may have been.
        fn refundable(&self) -> i64 {
            (self.paid - self.refunded - self.in_doubt).max(0)
        }

        fn plus(&self, other: &LineMoney) -> LineMoney {
            LineMoney {
                paid: self.paid + other.paid,
                refunded: self.refunded + other.refunded,
                in_doubt: self.in_doubt + other.in_doubt,
            }
        }
    }

    pub async fn order(user: &SignedIn, subject: &str) -> Result<OrderDetail, AppError> {
        let executor = expect_context::<AppState>().executor.clone();
        let language = current_language();
        let items =
            reads().subjects_operations(&user.tenant, &[subject.to_owned()]).await.map_err(unavailable)?;
        if items.is_empty() {
            return Err(AppError::NotFound(t!(language, "orders-not-found", subject = subject)));
        }
        let shop_lines = executor.directory().order_of_subject(&user.tenant, subject, SHOP_WAIT).await;
        let (shop, other_operations) = match &shop_lines {
            Ok(order) => {
                let (shop, others) = shop_view(order, &items, language);
                (Ok(shop), others)
            }
            Err(reason) => (Err(reason.clone()), items.iter().map(|item| story(item, None)).collect()),
        };
        let rollup = roll_up(&summaries(&items))
            .map_err(|_| AppError::Invalid(t!(language, "orders-mixed-currencies")))?;
        let ids = |ids: &[OpId]| ids.iter().map(ToString::to_string).collect::<Vec<_>>();
        let desk_item = crate::domain::desk::Item::Order(subject.to_owned());
        let holding = crate::console::desk::ssr::holding_view(user, &desk_item).await?;
        let notes = crate::console::desk::ssr::notes_view(user, &desk_item).await?;
        Ok(OrderDetail {
            subject: subject.to_owned(),
            status: rollup.status,
            shop,
            other_operations,
            completed: ids(&rollup.completed),
            not_done: ids(&rollup.not_done),
            uncertain: ids(&rollup.uncertain),
            effects_in_force: ids(&rollup.effects_in_force),
            net_refunded: rollup.net_refunded.iter().map(|money| language.money(*money)).collect(),
            compensations: if rollup.status == OrderStatus::PartialSuccess {
                items
                    .iter()
                    .map(|item| {
                        let line = shop_lines.as_ref().ok().and_then(|order| {
                            let line = order
                                .line_items
                                .iter()
                                .find(|line| concerns_line_item(item.op_id.as_str(), &order.id, &line.id))?;
                            order.money_of(&line.id)
                        });
                        let described = Described {
                            kind: &item.kind,
                            amount: item.amount,
                            item: line.as_ref().map(|(name, _)| name.as_str()),
                            provider: &item.provider,
                        };
                        CompensationOffer {
                            op_id: item.op_id.to_string(),
                            kind: item.kind.clone(),
                            state: item.state,
                            offers: offers(
                                compensations_for(user, item, &items),
                                &described,
                                line.as_ref().map(|(_, paid)| *paid),
                            ),
                        }
                    })
                    .filter(|offer| !offer.offers.is_empty())
                    .collect()
            } else {
                Vec::new()
            },
            operations: items.into_iter().map(row).collect(),
            form_key: form_key(),
            holding,
            notes,
        })
    }

    /// Records a compensation of one operation and sends it.
    pub async fn compensate(
        user: &SignedIn,
        key: &str,
        op_id: &str,
        compensation: &str,
        date: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let kind = Compensation::parse(compensation.trim()).ok_or_else(|| {
            AppError::Invalid(t!(language, "orders-no-such-compensation", name = compensation))
        })?;
        let original = OpId::parse(op_id.trim()).map_err(|_| refused(LedgerError::NotFound, op_id, user))?;
        let executor = expect_context::<AppState>().executor.clone();
        let date = Some(date.trim()).filter(|d| !d.is_empty());
        let described = format!("{} {original} {}", kind.as_str(), date.unwrap_or_default());
        once(user, key, &described, |request| async move {
            workflows::compensate(&executor, &user.tenant, &original, &actor(user), kind, date, &request)
                .await
                .map_err(|error| refused(error, original.as_str(), user))
        })
        .await
    }

    /// Up to `limit` recently changed orders that need attention (partial success, pending
    /// confirmation): those the kept tallies name, each rolled up from its operations.
    pub async fn attention_orders(user: &SignedIn, limit: u32) -> Result<Vec<OrderSummary>, AppError> {
        let store = reads();
        let subjects = store.subjects(&user.tenant, true, limit).await.map_err(unavailable)?;
        let items = store.subjects_operations(&user.tenant, &subjects).await.map_err(unavailable)?;
        Ok(order_summaries(items, current_language()).into_iter().filter(needs_attention).collect())
    }
}
