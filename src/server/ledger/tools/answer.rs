//! What a tool answers: how its operation stands, in the console's words (`domain::wording`), and
//! the one sentence to tell the customer, in the customer's language.

use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{
    failure::FailureClass,
    language::Language,
    machine::State as OpState,
    operation::{ExternalRef, OperationRecord},
    wording::{tell, tell_held, tell_unanswerable, Described},
};

/// What the tool tells the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Succeeded,
    AlreadyDone,
    PendingApproval,
    /// The provider accepted it and has not settled it: not done, and not to be sent again.
    Accepted,
    Rejected,
    /// The provider accepted it, then it failed there: nothing moved. It is made again only when
    /// asked for explicitly.
    FailedAtProvider,
    Unknown,
    Cancelled,
    /// Nothing was sent (the provider could not be reached); it is safe to try again later.
    NotSent,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ToolAnswer {
    pub status: ToolStatus,
    pub op_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// For the model, in English, with the customer sentence quoted in the customer's language.
    pub message: String,
    /// The one sentence to tell the customer, alone, in the customer's language.
    pub for_customer: String,
    /// The customer's language: the call's `locale`, its `Accept-Language`, or the tenant's.
    pub locale: String,
}

/// What a tool's operation is about, for its answer: where its downstream can neither recognise
/// a repeat nor be asked (`at_most_once`), a lost answer is told as such; the customer is told in
/// `customer_language`.
pub(super) struct Subject<'a> {
    pub(super) described: Described<'a>,
    pub(super) order_id: &'a str,
    pub(super) at_most_once: bool,
    pub(super) customer_language: Language,
}

/// Words for a model about an operation that `ran_now` (or was found as it stands): how it stands,
/// as the console says it (`wording::tell`), and what to tell the customer.
pub(super) fn answer(
    operation: &OperationRecord,
    external_refs: &[ExternalRef],
    ran_now: bool,
    subject: &Subject<'_>,
) -> ToolAnswer {
    let op_id = operation.op_id.to_string();
    let external_id = external_refs.last().map(|r| r.external_id.clone());
    let state = operation.snapshot.state;
    let failure_reason = operation.snapshot.failure_reason.as_deref();
    let unanswerable = subject.at_most_once && matches!(state, OpState::Unknown | OpState::NeedsReview);
    let held = matches!(state, OpState::Planned | OpState::Approved)
        && operation.snapshot.last_failure == Some(FailureClass::NotSent);
    let told_in = |language| {
        if unanswerable {
            tell_unanswerable(&subject.described, language)
        } else if held {
            tell_held(&subject.described, language)
        } else {
            tell(&subject.described, state, failure_reason, language)
        }
    };
    let told = told_in(Language::En);
    let for_customer = told_in(subject.customer_language).for_customer;
    let status = match state {
        OpState::Succeeded if ran_now => ToolStatus::Succeeded,
        OpState::Succeeded => ToolStatus::AlreadyDone,
        OpState::PendingApproval => ToolStatus::PendingApproval,
        OpState::Accepted => ToolStatus::Accepted,
        OpState::Submitted | OpState::Unknown | OpState::NeedsReview => ToolStatus::Unknown,
        OpState::Rejected if failure_reason.is_some() => ToolStatus::FailedAtProvider,
        OpState::Rejected | OpState::Denied => ToolStatus::Rejected,
        OpState::Cancelled => ToolStatus::Cancelled,
        OpState::Planned | OpState::Approved => ToolStatus::NotSent,
    };
    let earlier = if status == ToolStatus::AlreadyDone { "Already done earlier. " } else { "" };
    let reference = external_id.as_deref().map(|id| format!(" ({id})")).unwrap_or_default();
    let again = match (status, subject.described.kind) {
        (ToolStatus::FailedAtProvider, "refund") => format!(
            " To refund it again, call refund_item with retry_after_failure: true and failed_op_id: \"{op_id}\"; it is never made again by itself."
        ),
        _ => String::new(),
    };
    let message = format!(
        "{earlier}{} Order {}{reference}.{again} Tell the customer: \u{201c}{for_customer}\u{201d}",
        told.status, subject.order_id
    );
    let locale = subject.customer_language.tag().to_owned();
    ToolAnswer { status, op_id, external_id, message, for_customer, locale }
}
