//! The roll-up of one order (a subject): which actions completed, which did not, which are still
//! uncertain, the order's status, and its net effect once compensations are counted.
//!
//! A compensation is an operation linked to the one it compensates. A succeeded compensation whose
//! kind starts with `cancel_` undoes its parent's effect; any other compensation (a refund of a line
//! item, a re-scheduled pickup) adds an effect of its own. Only real states count: a compensation
//! that failed or is unknown undoes nothing.

use crate::t;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use super::ids::OpId;
use super::language::Language;
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
    /// The status's name for people reading `language`.
    pub fn label_in(self, language: Language) -> String {
        match self {
            OrderStatus::NoOperations => t!(language, "order-status-no-operations"),
            OrderStatus::InProgress => t!(language, "order-status-in-progress"),
            OrderStatus::PendingConfirmation => t!(language, "order-status-pending-confirmation"),
            OrderStatus::Complete => t!(language, "order-status-complete"),
            OrderStatus::PartialSuccess => t!(language, "order-status-partial-success"),
            OrderStatus::Compensated => t!(language, "order-status-compensated"),
            OrderStatus::Failed => t!(language, "order-status-failed"),
        }
    }

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
    let uncertain = ids_in(&[State::Submitted, State::Accepted, State::Unknown, State::NeedsReview]);
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

/// How many of an order's operations stand in each of the places its status depends on: kept
/// beside each order with every change, so that the orders needing attention are found without
/// reading every order's operations. The tally of an order is the sum of its operations' tallies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderTally {
    /// Operations submitted, accepted and not settled, unknown or needing review.
    pub uncertain: i64,
    /// Operations planned, awaiting approval or approved: not sent yet.
    pub unsent: i64,
    /// Operations that are not compensations and were rejected, denied or cancelled.
    pub failed_originals: i64,
    /// Operations that are not compensations and succeeded.
    pub succeeded_originals: i64,
    /// Compensations that undo their original (`cancel_…`) and succeeded.
    pub undone: i64,
}

impl OrderTally {
    /// What one operation of `kind` in `state` counts for, compensating another or not.
    pub fn of(kind: &str, compensation: bool, state: State) -> Self {
        let count = |yes: bool| i64::from(yes);
        let original = !compensation;
        Self {
            uncertain: count(state.is_uncertain()),
            unsent: count(matches!(state, State::Planned | State::PendingApproval | State::Approved)),
            failed_originals: count(
                original && matches!(state, State::Rejected | State::Denied | State::Cancelled),
            ),
            succeeded_originals: count(original && state == State::Succeeded),
            undone: count(compensation && kind.starts_with("cancel_") && state == State::Succeeded),
        }
    }

    /// How an order's tally moves when one of its operations goes from `from` (none for a new one)
    /// to `to`.
    pub fn moved(kind: &str, compensation: bool, from: Option<State>, to: State) -> Self {
        let before = from.map(|from| Self::of(kind, compensation, from)).unwrap_or_default();
        Self::of(kind, compensation, to) - before
    }

    fn zip(self, other: Self, f: impl Fn(i64, i64) -> i64) -> Self {
        Self {
            uncertain: f(self.uncertain, other.uncertain),
            unsent: f(self.unsent, other.unsent),
            failed_originals: f(self.failed_originals, other.failed_originals),
            succeeded_originals: f(self.succeeded_originals, other.succeeded_originals),
            undone: f(self.undone, other.undone),
        }
    }

    /// Whether the order is pending confirmation or in partial success, as [`roll_up`] says, for
    /// an order whose every `cancel_…` compensation undoes a different original that succeeded
    /// (the only ones the console offers).
    pub fn needs_attention(&self) -> bool {
        self.uncertain > 0
            || (self.unsent == 0 && self.failed_originals > 0 && self.succeeded_originals > self.undone)
    }
}

impl std::ops::Add for OrderTally {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        self.zip(other, |a, b| a + b)
    }
}

impl std::ops::Sub for OrderTally {
    type Output = Self;
    fn sub(self, other: Self) -> Self {
        self.zip(other, |a, b| a - b)
    }
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
    fn a_refund_its_provider_failed_after_it_succeeded_is_no_longer_counted_as_refunded() {
        let mut order = [
            refund("refund-A1042-1", 10000, State::Succeeded),
            refund("refund-A1042-2", 5000, State::Succeeded),
        ];
        order[1].state = State::NeedsReview;
        let rollup = roll_up(&order).unwrap();
        assert_eq!(rollup.status, OrderStatus::PendingConfirmation);
        assert_eq!(ids(&rollup.uncertain), ["refund-A1042-2"]);
        assert_eq!(rollup.net_refunded, vec![Money::new(10000, Currency::parse("CNY").unwrap())]);
        let moved = OrderTally::moved("refund", false, Some(State::Succeeded), State::NeedsReview);
        assert_eq!((moved.succeeded_originals, moved.uncertain), (-1, 1));
    }

    fn tally_of(order: &[OperationSummary]) -> OrderTally {
        order.iter().fold(OrderTally::default(), |sum, o| {
            sum + OrderTally::of(&o.kind, o.compensates.is_some(), o.state)
        })
    }

    fn any_state() -> impl proptest::strategy::Strategy<Value = State> {
        proptest::sample::select(State::ALL.to_vec())
    }

    proptest::proptest! {
        /// The tally kept beside each order says "needs attention" exactly when its roll-up is
        /// partial success or pending confirmation: originals in any state, a cancellation of some
        /// of the succeeded ones in any state, and other compensations in any state.
        #[test]
        fn the_kept_tally_agrees_with_the_roll_up(
            originals in proptest::collection::vec(any_state(), 1..6),
            cancels in proptest::collection::vec(proptest::option::of(any_state()), 6),
            others in proptest::collection::vec(any_state(), 0..3),
        ) {
            let mut order: Vec<OperationSummary> = Vec::new();
            for (i, state) in originals.iter().enumerate() {
                order.push(op(&format!("ticket-{i}"), "create_aftersale", *state, None));
                if let (State::Succeeded, Some(cancel)) = (state, cancels[i]) {
                    order.push(op(&format!("cancel-{i}"), "cancel_aftersale", cancel, Some(&format!("ticket-{i}"))));
                }
            }
            for (i, state) in others.iter().enumerate() {
                order.push(op(&format!("refund-{i}"), "refund", *state, Some("ticket-0")));
            }
            let status = roll_up(&order).unwrap().status;
            let attention = matches!(status, OrderStatus::PartialSuccess | OrderStatus::PendingConfirmation);
            proptest::prop_assert_eq!(tally_of(&order).needs_attention(), attention, "{:?}", status);
        }

        /// Moving an operation through any states keeps the tally equal to that of where it stands.
        #[test]
        fn moves_add_up_to_the_tally_of_the_last_state(
            states in proptest::collection::vec(any_state(), 1..8),
            compensation in proptest::bool::ANY,
        ) {
            let mut kept = OrderTally::default();
            let mut from = None;
            for to in &states {
                kept = kept + OrderTally::moved("cancel_ticket", compensation, from, *to);
                from = Some(*to);
            }
            let last = OrderTally::of("cancel_ticket", compensation, *states.last().unwrap());
            proptest::prop_assert_eq!(kept, last);
        }
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
