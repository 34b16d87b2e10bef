//! Compensations a person may record from a partial-success order: which ones an operation offers
//! in its current state, and the intent each becomes (its op id and parameters). A compensation is
//! a new operation linked to the original, with a lifecycle of its own; recording one proves
//! nothing until it has succeeded.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::language::Language;
use super::machine::State;
use crate::t;

/// The compensations the console offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compensation {
    /// Cancel an after-sale ticket that was created.
    CancelTicket,
    /// Refund the line item the original operation was about.
    RefundLineItem,
    /// Schedule the pickup that the provider refused again, on another date.
    ReschedulePickup,
}

impl Compensation {
    pub const ALL: [Compensation; 3] =
        [Compensation::CancelTicket, Compensation::RefundLineItem, Compensation::ReschedulePickup];

    pub fn as_str(self) -> &'static str {
        match self {
            Compensation::CancelTicket => "cancel_ticket",
            Compensation::RefundLineItem => "refund_line_item",
            Compensation::ReschedulePickup => "reschedule_pickup",
        }
    }

    pub fn parse(text: &str) -> Option<Compensation> {
        Compensation::ALL.into_iter().find(|c| c.as_str() == text)
    }

    pub fn label(self) -> &'static str {
        match self {
            Compensation::CancelTicket => "Cancel the after-sale ticket",
            Compensation::RefundLineItem => "Refund the line item",
            Compensation::ReschedulePickup => "Re-schedule the pickup",
        }
    }

    /// Its name for people reading `language`; [`label`](Self::label) is the English one that
    /// logs, the audit trail and refusals use.
    pub fn label_in(self, language: Language) -> String {
        match self {
            Compensation::CancelTicket => t!(language, "wording-compensation-label-cancel-ticket"),
            Compensation::RefundLineItem => t!(language, "wording-compensation-label-refund"),
            Compensation::ReschedulePickup => t!(language, "wording-compensation-label-reschedule"),
        }
    }

    /// The kind of operation it is recorded as.
    pub fn kind(self) -> &'static str {
        match self {
            Compensation::CancelTicket => "cancel_aftersale",
            Compensation::RefundLineItem => "refund",
            Compensation::ReschedulePickup => "schedule_pickup",
        }
    }

    /// Whether it needs a date (the new pickup's).
    pub fn needs_date(self) -> bool {
        self == Compensation::ReschedulePickup
    }
}

/// The compensations an operation of `kind` offers in `state`: a created ticket can be cancelled
/// or its item refunded; a refused pickup can be scheduled again or its item refunded.
pub fn offered(kind: &str, state: State) -> Vec<Compensation> {
    match (kind, state) {
        ("create_aftersale", State::Succeeded) => {
            vec![Compensation::CancelTicket, Compensation::RefundLineItem]
        }
        ("schedule_pickup", State::Rejected) => {
            vec![Compensation::ReschedulePickup, Compensation::RefundLineItem]
        }
        _ => Vec::new(),
    }
}

/// The compensations still open for an operation of `kind` in `state`, given the kinds and states
/// of the compensations already recorded for it. A ticket is cancelled and a line item refunded
/// once (their op ids follow from the original, so a second one would be the first again); a
/// pickup is re-scheduled again only when every re-scheduling so far failed.
pub fn still_offered(kind: &str, state: State, recorded: &[(&str, State)]) -> Vec<Compensation> {
    let failed = |s: &State| matches!(s, State::Rejected | State::Denied | State::Cancelled);
    offered(kind, state)
        .into_iter()
        .filter(|c| match c {
            Compensation::ReschedulePickup => !recorded.iter().any(|(k, s)| *k == c.kind() && !failed(s)),
            Compensation::CancelTicket | Compensation::RefundLineItem => {
                !recorded.iter().any(|(k, _)| *k == c.kind())
            }
        })
        .collect()
}

/// A compensation as the ledger will record it, except for what only the server knows (a
/// refund's amount and payment come from the order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompensationIntent {
    pub op_id: String,
    pub kind: &'static str,
    pub provider: &'static str,
    pub params: Value,
}

/// Why a compensation cannot be recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompensationProblem {
    #[error("{0} is not offered for this operation in its current state")]
    NotOffered(&'static str),
    #[error("the original operation has no {0}")]
    Missing(&'static str),
    #[error("the date must be written as 2026-12-09")]
    BadDate,
}

fn text<'a>(params: &'a Value, field: &'static str) -> Result<&'a str, CompensationProblem> {
    params.get(field).and_then(Value::as_str).ok_or(CompensationProblem::Missing(field))
}

/// The intent of `compensation` for the original operation (its op id, kind, state, parameters
/// and the external id it created), with `date` for a new pickup. The op id follows from the
/// intent, so recording the same compensation twice finds the first.
pub fn intent(
    compensation: Compensation,
    original_op_id: &str,
    original_kind: &str,
    original_state: State,
    original_params: &Value,
    external_id: Option<&str>,
    date: Option<&str>,
) -> Result<CompensationIntent, CompensationProblem> {
    if !offered(original_kind, original_state).contains(&compensation) {
        return Err(CompensationProblem::NotOffered(compensation.label()));
    }
    let order = text(original_params, "order")?;
    let line_item = text(original_params, "line_item")?;
    match compensation {
        Compensation::CancelTicket => Ok(CompensationIntent {
            op_id: format!("cancel-{original_op_id}"),
            kind: compensation.kind(),
            provider: "sandbox",
            params: json!({"ticket": external_id.ok_or(CompensationProblem::Missing("ticket id"))?}),
        }),
        Compensation::RefundLineItem => Ok(CompensationIntent {
            op_id: format!("refund-{order}-{line_item}"),
            kind: compensation.kind(),
            provider: "stripe",
            params: json!({"order": order, "line_item": line_item}),
        }),
        Compensation::ReschedulePickup => {
            let date = date.map(str::trim).filter(|d| is_date(d)).ok_or(CompensationProblem::BadDate)?;
            Ok(CompensationIntent {
                op_id: format!("pickup-{order}-{line_item}-{date}"),
                kind: compensation.kind(),
                provider: "sandbox",
                params: json!({
                    "ticket": text(original_params, "ticket")?,
                    "date": date,
                    "order": order,
                    "line_item": line_item,
                }),
            })
        }
    }
}

fn is_date(text: &str) -> bool {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_ticket_can_be_cancelled_and_a_refused_pickup_rescheduled() {
        assert_eq!(
            offered("create_aftersale", State::Succeeded),
            [Compensation::CancelTicket, Compensation::RefundLineItem]
        );
        assert_eq!(offered("schedule_pickup", State::Rejected)[0], Compensation::ReschedulePickup);
        assert!(
            offered("create_aftersale", State::Unknown).is_empty(),
            "an uncertain ticket is reconciled first"
        );
        assert!(offered("refund", State::Succeeded).is_empty());
        for c in Compensation::ALL {
            assert_eq!(Compensation::parse(c.as_str()), Some(c));
        }
    }

    #[test]
    fn a_compensation_is_offered_once_and_a_pickup_again_only_after_failures() {
        let all = still_offered("create_aftersale", State::Succeeded, &[]);
        assert_eq!(all.len(), 2);
        let cancelling =
            still_offered("create_aftersale", State::Succeeded, &[("cancel_aftersale", State::Unknown)]);
        assert_eq!(cancelling, [Compensation::RefundLineItem]);
        let failed =
            still_offered("create_aftersale", State::Succeeded, &[("cancel_aftersale", State::Rejected)]);
        assert_eq!(failed, [Compensation::RefundLineItem], "the same op id would only find the failed one");
        let pickup = |recorded: &[(&str, State)]| still_offered("schedule_pickup", State::Rejected, recorded);
        assert!(!pickup(&[("schedule_pickup", State::Succeeded)]).contains(&Compensation::ReschedulePickup));
        assert!(pickup(&[("schedule_pickup", State::Rejected)]).contains(&Compensation::ReschedulePickup));
    }

    #[test]
    fn intents_follow_from_the_original_so_a_second_request_finds_the_first() {
        let ticket = json!({"order": "2002", "line_item": "li_1"});
        let cancel = intent(
            Compensation::CancelTicket,
            "aftersale-2002-li_1",
            "create_aftersale",
            State::Succeeded,
            &ticket,
            Some("tkt_9"),
            None,
        )
        .unwrap();
        assert_eq!(cancel.op_id, "cancel-aftersale-2002-li_1");
        assert_eq!(cancel.params, json!({"ticket": "tkt_9"}));
        let pickup = json!({"order": "2002", "line_item": "li_1", "ticket": "tkt_9", "date": "2026-12-02"});
        let again = intent(
            Compensation::ReschedulePickup,
            "pickup-2002-li_1-2026-12-02",
            "schedule_pickup",
            State::Rejected,
            &pickup,
            None,
            Some("2026-12-09"),
        )
        .unwrap();
        assert_eq!(again.op_id, "pickup-2002-li_1-2026-12-09");
        assert_eq!(again.params["ticket"], "tkt_9");
        let refund = intent(
            Compensation::RefundLineItem,
            "pickup-2002-li_1-2026-12-02",
            "schedule_pickup",
            State::Rejected,
            &pickup,
            None,
            None,
        )
        .unwrap();
        assert_eq!(refund.op_id, "refund-2002-li_1");
    }

    #[test]
    fn compensations_that_do_not_fit_are_refused_with_a_reason() {
        let pickup = json!({"order": "2002", "line_item": "li_1", "ticket": "tkt_9"});
        let refused = |c, state, date| {
            intent(c, "pickup-2002-li_1-2026-12-02", "schedule_pickup", state, &pickup, None, date)
                .unwrap_err()
        };
        assert_eq!(
            refused(Compensation::ReschedulePickup, State::Rejected, Some("next week")),
            CompensationProblem::BadDate
        );
        assert_eq!(
            refused(Compensation::ReschedulePickup, State::Rejected, None),
            CompensationProblem::BadDate
        );
        assert!(matches!(
            refused(Compensation::CancelTicket, State::Rejected, None),
            CompensationProblem::NotOffered(_)
        ));
        assert!(matches!(
            refused(Compensation::ReschedulePickup, State::Succeeded, Some("2026-12-09")),
            CompensationProblem::NotOffered(_)
        ));
        let no_ticket = intent(
            Compensation::CancelTicket,
            "aftersale-2002-li_1",
            "create_aftersale",
            State::Succeeded,
            &pickup,
            None,
            None,
        );
        assert_eq!(no_ticket.unwrap_err(), CompensationProblem::Missing("ticket id"));
    }
}
