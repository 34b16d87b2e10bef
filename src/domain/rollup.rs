//! The roll-up of one order (a subject): which actions completed, which did not, which are still
//! uncertain, the order's status, and its net effect once compensations are counted.
//!
//! A compensation is an operation linked to the one it compensates. A succeeded compensation whose
//! kind starts with `cancel_` undoes its parent's effect; any other compensation (a refund of a line
//! item, a re-scheduled pickup) adds an effect of its own. Only real states count: a compensation
//! that failed or is unknown undoes nothing.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use super::ids::OpId;
use super::machine::State;
use super::money::{Currency, Money, MoneyError};

/// What the roll-up needs to know of one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationSummary {
    pub op_id: OpId,
    pub kind: String,
    pub state: State,
    pub amount: Option<Money>,
    /// The operation this one compensates, if it is a compensation.
    pub compensates: Option<OpId>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    /// No operation has been recorded for the order.
    NoOperations,
    /// Some operations have not been sent yet (planned, awaiting or holding approval).
    InProgress,
    /// At least one operation may have happened but is not confirmed.
    PendingConfirmation,
    /// Every operation succeeded.
    Complete,
    /// Some operations succeeded and others did not, and their effects still stand.
    PartialSuccess,
    /// Some operations did not succeed, and every effect of the ones that did was undone.
    Compensated,
    /// No operation succeeded.
    Failed,
}

impl OrderStatus {
    pub fn label(self) -> &'static str {
        match self {
            OrderStatus::NoOperations => "no operations",
            OrderStatus::InProgress => "in progress",
            OrderStatus::PendingConfirmation => "pending confirmation",
            OrderStatus::Complete => "complete",
            OrderStatus::PartialSuccess => "partial success",
            OrderStatus::Compensated => "compensated",
            OrderStatus::Failed => "failed",
        }
    }
}

/// The order's status and net effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRollup {
    pub status: OrderStatus,
    pub completed: Vec<OpId>,
    pub not_done: Vec<OpId>,
    pub uncertain: Vec<OpId>,
    /// Succeeded operations whose effect has not been undone by a compensation.
    pub effects_in_force: Vec<OpId>,
    /// Money refunded and not undone, per currency.
    pub net_refunded: Vec<Money>,
}

fn is_undo(operation: &OperationSummary) -> bool {
    operation.compensates.is_some() && operation.kind.starts_with("cancel_")
}

/// Rolls up the operations of one order.
pub fn roll_up(operations: &[OperationSummary]) -> Result<OrderRollup, MoneyError> {
    let ids_in = |states: &[State]| -> Vec<OpId> {
        operations.iter().filter(|o| states.contains(&o.state)).map(|o| o.op_id.clone()).collect()
    };
    let completed = ids_in(&[State::Succeeded]);
    let not_done = ids_in(&[State::Rejected, State::Denied, State::Cancelled]);
    let uncertain = ids_in(&[State::Submitted, State::Unknown, State::NeedsReview]);
    let unsent = ids_in(&[State::Planned, State::PendingApproval, State::Approved]);

    let undone: BTreeSet<&OpId> = operations
        .iter()
        .filter(|o| o.state == State::Succeeded && is_undo(o))
        .filter_map(|o| o.compensates.as_ref())
        .collect();
    let in_force: Vec<&OperationSummary> = operations
        .iter()
        .filter(|o| o.state == State::Succeeded && !is_undo(o) && !undone.contains(&o.op_id))
        .collect();

    let mut refunded: BTreeMap<Currency, Money> = BTreeMap::new();
    for operation in in_force.iter().filter(|o| o.kind.starts_with("refund")) {
        if let Some(amount) = operation.amount {
            let total = refunded.entry(amount.currency).or_insert(Money::new(0, amount.currency));
            *total = total.checked_add(amount)?;
        }
    }

    let originals = || operations.iter().filter(|o| o.compensates.is_none());
    let any_original_failed = originals().any(|o| o.state != State::Succeeded);
    let succeeded_originals: Vec<&OperationSummary> =
        originals().filter(|o| o.state == State::Succeeded).collect();
    let status = if operations.is_empty() {
        OrderStatus::NoOperations
    } else if !uncertain.is_empty() {
        OrderStatus::PendingConfirmation
    } else if !unsent.is_empty() {
        OrderStatus::InProgress
    } else if !any_original_failed {
        OrderStatus::Complete
    } else if succeeded_originals.is_empty() {
        OrderStatus::Failed
    } else if succeeded_originals.iter().all(|o| undone.contains(&o.op_id)) {
        OrderStatus::Compensated
    } else {
        OrderStatus::PartialSuccess
    };

    Ok(OrderRollup {
        status,
        completed,
        not_done,
        uncertain,
        effects_in_force: in_force.into_iter().map(|o| o.op_id.clone()).collect(),
        net_refunded: refunded.into_values().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(id: &str, kind: &str, state: State, compensates: Option<&str>) -> OperationSummary {
        OperationSummary {
            op_id: OpId::parse(id).unwrap(),
            kind: kind.into(),
            state,
            amount: None,
            compensates: compensates.map(|c| OpId::parse(c).unwrap()),
        }
    }

    fn refund(id: &str, minor: i64, state: State) -> OperationSummary {
        OperationSummary {
            amount: Some(Money::new(minor, Currency::parse("CNY").unwrap())),
            ..op(id, "refund", state, None)
        }
    }

    fn ids(list: &[OpId]) -> Vec<&str> {
        list.iter().map(OpId::as_str).collect()
    }

    #[test]
    fn aftersale_created_and_pickup_failed_is_partial_success() {
        let order = [
            op("aftersale-1043-li_2", "create_aftersale", State::Succeeded, None),
            op("pickup-1043-li_2", "schedule_pickup", State::Rejected, None),
        ];
        let rollup = roll_up(&order).unwrap();
        assert_eq!(rollup.status, OrderStatus::PartialSuccess);
        assert_eq!(ids(&rollup.completed), ["aftersale-1043-li_2"]);
        assert_eq!(ids(&rollup.not_done), ["pickup-1043-li_2"]);
        assert_eq!(ids(&rollup.effects_in_force), ["aftersale-1043-li_2"]);
    }

    #[test]
    fn a_compensation_counts_only_once_it_really_succeeded() {
        let mut order = vec![
            op("aftersale-1043-li_2", "create_aftersale", State::Succeeded, None),
            op("pickup-1043-li_2", "schedule_pickup", State::Rejected, None),
            op("cancel-aftersale-1043-li_2", "cancel_aftersale", State::Unknown, Some("aftersale-1043-li_2")),
        ];
        let pending = roll_up(&order).unwrap();
        assert_eq!(pending.status, OrderStatus::PendingConfirmation);
        assert_eq!(ids(&pending.uncertain), ["cancel-aftersale-1043-li_2"]);
        assert_eq!(ids(&pending.effects_in_force), ["aftersale-1043-li_2"], "an unknown undo undoes nothing");

        order[2].state = State::Rejected;
        assert_eq!(roll_up(&order).unwrap().status, OrderStatus::PartialSuccess);

        order[2].state = State::Succeeded;
        let compensated = roll_up(&order).unwrap();
        assert_eq!(compensated.status, OrderStatus::Compensated);
        assert!(compensated.effects_in_force.is_empty());
    }

    #[test]
    fn two_legitimate_refunds_of_one_order_add_up() {
        let order = [
            refund("refund-A1042-1", 10000, State::Succeeded),
            refund("refund-A1042-2", 5000, State::Succeeded),
        ];
        let rollup = roll_up(&order).unwrap();
        assert_eq!(rollup.status, OrderStatus::Complete);
        assert_eq!(rollup.net_refunded, vec![Money::new(15000, Currency::parse("CNY").unwrap())]);
    }

    #[test]
    fn statuses_follow_the_least_certain_operation() {
        assert_eq!(roll_up(&[]).unwrap().status, OrderStatus::NoOperations);
        let waiting = [refund("r1", 1, State::PendingApproval), refund("r2", 1, State::Succeeded)];
        assert_eq!(roll_up(&waiting).unwrap().status, OrderStatus::InProgress);
        let failed = [refund("r1", 1, State::Rejected), refund("r2", 1, State::Cancelled)];
        let rollup = roll_up(&failed).unwrap();
        assert_eq!(rollup.status, OrderStatus::Failed);
        assert!(rollup.net_refunded.is_empty());
    }
}
