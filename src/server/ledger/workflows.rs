//! The workflows people start from the console, each through the ledger service in the person's
//! name: approve (and send at once) or deny; the reconcile desk's actions (query the provider,
//! re-send with the same key, mark succeeded, mark not happened, escalate); cancel; record a
//! compensation (a new operation linked to the original, then sent); and bulk queries over a
//! filter of the operations list. Each answers with what happened, in words.
//!
//! A lookup that finds nothing changes nothing: right after a send, indexes lag, so absence proves
//! nothing.

use super::executor::{ask_provider, Executor, SendCheck};
use super::requests::ConsoleRequest;
use super::{LedgerError, RegisterRequest, Registration};
use crate::domain::{
    compensation::{intent, still_offered, Compensation},
    ids::{Actor, ActorKind, OpId, TenantId},
    machine::{cancel_message, check, Command, CommandKind, ProviderStatus, Rejection, RejectionCode, State},
    operation::{AttemptReport, CommittedOperation, OperationRecord},
    params::CanonicalParams,
    wording::{capitalised, failure_reason_words},
};
use crate::server::clock::now;
use crate::server::providers::{Connector, Lookup};
use crate::server::store::records::OperationListItem;
use crate::server::telemetry::cause_chain;
use std::sync::Arc;

/// What a query of the provider found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryOutcome {
    /// The provider has it, in `status`; the operation now stands as that status says (succeeded,
    /// accepted, or rejected after a failure at the provider).
    Confirmed { external_id: String, status: ProviderStatus },
    /// The provider has it, still pending, as already recorded: nothing changed.
    StillPending { external_id: String },
    /// The provider answered and has nothing under this op id.
    NotFound { evidence: String },
    /// The provider could not be asked or did not answer clearly.
    Unavailable { reason: String },
}

impl QueryOutcome {
    /// A short name for the outcome, as bulk results list it.
    pub fn name(&self) -> &'static str {
        match self {
            QueryOutcome::Confirmed { .. } => "confirmed",
            QueryOutcome::StillPending { .. } => "still pending",
            QueryOutcome::NotFound { .. } => "not found",
            QueryOutcome::Unavailable { .. } => "unavailable",
        }
    }

    pub fn sentence(&self, op_id: &OpId) -> String {
        match self {
            QueryOutcome::Confirmed { external_id, status: ProviderStatus::Succeeded } => {
                format!("The provider has it as {external_id}: {op_id} is now succeeded.")
            }
            QueryOutcome::Confirmed { external_id, status: ProviderStatus::Pending { .. } } => format!(
                "The provider has it as {external_id}, still in progress: {op_id} is now accepted, not done; it is followed until the provider settles it."
            ),
            QueryOutcome::Confirmed { external_id, status: ProviderStatus::Failed { reason } } => format!(
                "The provider has it as {external_id}, and it failed there ({reason}): {op_id} is now rejected; nothing moved."
            ),
            QueryOutcome::StillPending { external_id } => format!(
                "The provider has it as {external_id}, still in progress: {op_id} stays accepted. Nothing was changed."
            ),
            QueryOutcome::NotFound { evidence } => format!(
                "The provider has nothing under {op_id} yet ({evidence}). Nothing was changed; absence right after a send proves nothing."
            ),
            QueryOutcome::Unavailable { reason } => {
                format!("The provider could not be asked ({reason}). Nothing was changed; try again later.")
            }
        }
    }
}

/// Looks `op_id` up at its provider for `actor`, and confirms it when found. Refused (as the state
/// machine says) when the actor may not confirm it, so an auditor learns nothing it could act on
/// and a second click on a settled operation does nothing.
#[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %op_id, actor = %actor.name))]
pub async fn query_provider(
    executor: &Executor,
    tenant: &TenantId,
    op_id: &OpId,
    actor: &Actor,
    request: Option<&ConsoleRequest>,
) -> Result<QueryOutcome, LedgerError> {
    let ledger = executor.ledger();
    let history = ledger.reads().operation_history(tenant, op_id).await?.ok_or(LedgerError::NotFound)?;
    let operation = history.operation;
    check(&operation.snapshot, CommandKind::ConfirmFound, actor, now()).map_err(LedgerError::Rejected)?;
    let connector = match executor.directory().connector(tenant, &operation.provider).await? {
        Ok(connector) => connector,
        Err(reason) => return Ok(QueryOutcome::Unavailable { reason }),
    };
    if !connector.capabilities(&operation.kind).lookup {
        return Err(LedgerError::Invalid(format!(
            "{} cannot be asked what became of {op_id}, so it is not queried (the operation page offers no query either); a person who checked with {} records what they found.",
            operation.provider, operation.provider
        )));
    }
    let known = history.external_refs.last().map(|r| r.external_id.as_str());
    let known = known.filter(|_| operation.snapshot.state == State::Accepted);
    match ask_provider(ledger, connector.as_ref(), &operation, known).await? {
        Lookup::Found { external_id, status: ProviderStatus::Pending { .. }, .. }
            if operation.snapshot.state == State::Accepted =>
        {
            Ok(QueryOutcome::StillPending { external_id })
        }
        Lookup::Found { external_id, status, evidence } => {
            let evidence = format!("{evidence} (queried by {} at {})", actor.name, now().to_rfc3339());
            let command =
                Command::ConfirmFound { external_id: external_id.clone(), evidence, status: status.clone() };
            let outcome = QueryOutcome::Confirmed { external_id, status };
            let answer = request.map(|request| request.answered(outcome.sentence(op_id)));
            ledger.execute_answering(tenant, op_id, command, actor, AttemptReport::default(), answer).await?;
            Ok(outcome)
        }
        Lookup::NotFound { evidence } => Ok(QueryOutcome::NotFound { evidence }),
        Lookup::Unavailable { reason } | Lookup::Ambiguous { evidence: reason } => {
            Ok(QueryOutcome::Unavailable { reason })
        }
    }
}

/// Where an operation stands, in words, as the ledger committed it: what an action's answer ends with.
fn standing(history: &CommittedOperation) -> String {
    let snapshot = &history.operation.snapshot;
    let op_id = &history.operation.op_id;
    match snapshot.state {
        State::Succeeded => match history.external_refs.last() {
            Some(external) => format!("{op_id} succeeded as {}", external.external_id),
            None => format!("{op_id} succeeded"),
        },
        State::Unknown => {
            format!("the result of {op_id} is unknown; it is being checked, do not send it again")
        }
        State::Accepted => format!(
            "the provider accepted {op_id} and has not settled it yet; it is followed until it does, do not send it again"
        ),
        State::Rejected => match (snapshot.last_failure, &snapshot.failure_reason) {
            (Some(failure), Some(reason)) => {
                format!("{op_id} failed: {} ({})", failure.explanation(), failure_reason_words(reason, crate::domain::language::Language::En))
            }
            (Some(failure), None) => format!("{op_id} was refused: {}", failure.explanation()),
            (None, _) => format!("{op_id} is rejected"),
        },
        State::Planned | State::Approved => format!(
            "{op_id} could not be sent yet ({}); it stays {} and is not sent again by itself",
            snapshot.last_failure.map_or("no answer recorded", |f| f.explanation()),
            snapshot.state.label()
        ),
        other => format!("{op_id} is {}", other.label()),
    }
}

/// Carries out `command` on `op_id` for `actor` and answers in words. An approved operation is
/// sent at once, and a re-send goes out at once with the same key.
#[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %op_id, actor = %actor.name))]
pub async fn act(
    executor: &Executor,
    tenant: &TenantId,
    op_id: &OpId,
    actor: &Actor,
    command: Command,
    request: &ConsoleRequest,
) -> Result<String, LedgerError> {
    let checked_resend = match command {
        Command::ResendSameKey => checked_resend(executor, tenant, op_id, actor).await?,
        _ => None,
    };
    let report = match command {
        Command::ResendSameKey => executor.resend_report(),
        _ => AttemptReport::default(),
    };
    let answer = request.answered(answer_at_commit(&command, op_id));
    let committed = executor
        .ledger()
        .execute_answering(tenant, op_id, command.clone(), actor, report, Some(answer))
        .await?;
    Ok(match command {
        Command::Approve { .. } => match executor.run(tenant, op_id).await {
            Ok(sent) => format!("Approved and sent: {}.", standing(&sent)),
            Err(error) => {
                tracing::error!(%op_id, error = %error, "an approved operation could not be sent");
                format!("Approved, but {op_id} could not be sent yet ({error}); it stays approved.")
            }
        },
        Command::Deny { .. } => format!("Denied: {op_id} will not be sent."),
        Command::ResendSameKey => {
            let sent = match &checked_resend {
                Some(connector) => {
                    executor.send_allowed_attempt(tenant, &committed.operation, connector.as_ref()).await?
                }
                None => executor.send_open_attempt(tenant, &committed.operation).await?,
            };
            format!("Re-sent with the same key: {}.", standing(&sent))
        }
        Command::MarkSucceeded { .. } => format!("Marked succeeded: {}.", standing(&committed)),
        Command::MarkNotHappened { .. } => {
            format!("Marked not happened: {op_id} is now rejected, and nothing will be sent.")
        }
        Command::Escalate { .. } => format!("Escalated: {op_id} now waits for a person's review."),
        Command::Cancel { .. } => cancel_message(op_id.as_str(), committed.operation.snapshot.state),
        Command::ConfirmFound { .. }
        | Command::ExpireApproval
        | Command::BeginAttempt
        | Command::RecordOutcome { .. }
        | Command::MarkUnknown { .. } => format!("{}.", capitalised(&standing(&committed))),
    })
}

/// The answer a console action records with its change: what is known when the change commits,
/// before anything is sent. The action replaces it with the full answer when it is done.
fn answer_at_commit(command: &Command, op_id: &OpId) -> String {
    match command {
        Command::Approve { .. } => format!("Approved: {op_id} is being sent; its page shows the result."),
        Command::Deny { .. } => format!("Denied: {op_id} will not be sent."),
        Command::ResendSameKey => {
            format!("Re-sent with the same key: {op_id} is being sent; its page shows the result.")
        }
        Command::MarkNotHappened { .. } => {
            format!("Marked not happened: {op_id} is now rejected, and nothing will be sent.")
        }
        Command::Escalate { .. } => format!("Escalated: {op_id} now waits for a person's review."),
        other => format!("{} recorded for {op_id}; its page shows where it stands.", other.kind().label()),
    }
}

/// The connector a re-send goes out through, once the server may make it; refuses, changing
/// nothing, a re-send it may not make: the provider cannot be reached, or its facts or the
/// approval policy do not allow the stored parameters. A re-send the state machine refuses anyway
/// (`None`) is left to it, so that it answers with its own words.
async fn checked_resend(
    executor: &Executor,
    tenant: &TenantId,
    op_id: &OpId,
    actor: &Actor,
) -> Result<Option<Arc<dyn Connector>>, LedgerError> {
    let operation =
        executor.ledger().reads().load_operation(tenant, op_id).await?.ok_or(LedgerError::NotFound)?;
    if check(&operation.snapshot, CommandKind::ResendSameKey, actor, now()).is_err() {
        return Ok(None);
    }
    let connector =
        executor.directory().connector(tenant, &operation.provider).await?.map_err(LedgerError::Invalid)?;
    match executor.may_send(tenant, &operation, connector.as_ref()).await? {
        SendCheck::Allowed => Ok(Some(connector)),
        SendCheck::Refused(reason) | SendCheck::Unavailable(reason) => {
            Err(LedgerError::Invalid(format!("Not re-sent: {reason}.")))
        }
    }
}

fn not_permitted(actor: &Actor, what: &str) -> LedgerError {
    let who = match actor.kind {
        ActorKind::Human(role) => format!("the {} role", role.as_str()),
        ActorKind::Agent => "an API token".to_owned(),
        ActorKind::System => "the executor".to_owned(),
    };
    LedgerError::Rejected(Rejection {
        code: RejectionCode::NotPermitted,
        message: format!("{who} may not {what}."),
    })
}

fn may_act(actor: &Actor, what: &str) -> Result<(), LedgerError> {
    match actor.kind {
        ActorKind::Human(role) if role.acts_on_operations() => Ok(()),
        _ => Err(not_permitted(actor, what)),
    }
}

/// Records `compensation` of `original` as a new operation linked to it, in `actor`'s name, and
/// sends it (unless it needs an approval first). The op id follows from the intent, so asking
/// twice finds the first compensation and sends nothing more; a compensation no longer open (as
/// [`still_offered`] says, the same rule the console offers by) is refused.
#[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %original, actor = %actor.name))]
pub async fn compensate(
    executor: &Executor,
    tenant: &TenantId,
    original: &OpId,
    actor: &Actor,
    compensation: Compensation,
    date: Option<&str>,
    console_request: &ConsoleRequest,
) -> Result<String, LedgerError> {
    may_act(actor, "record compensations")?;
    let ledger = executor.ledger();
    let reads = ledger.reads();
    let history = reads.operation_history(tenant, original).await?.ok_or(LedgerError::NotFound)?;
    let operation = &history.operation;
    let planned = intent(
        compensation,
        original.as_str(),
        &operation.kind,
        operation.snapshot.state,
        operation.params.as_value(),
        history.external_refs.last().map(|r| r.external_id.as_str()),
        date,
    )
    .map_err(|problem| LedgerError::Invalid(format!("{}.", capitalised(&problem.to_string()))))?;
    let siblings = reads.subjects_operations(tenant, std::slice::from_ref(&operation.subject)).await?;
    let recorded: Vec<&OperationListItem> =
        siblings.iter().filter(|s| s.compensates.as_ref() == Some(original)).collect();
    let kinds: Vec<(&str, State)> = recorded.iter().map(|s| (s.kind.as_str(), s.state)).collect();
    let same_intent = recorded.iter().any(|s| s.op_id.as_str() == planned.op_id);
    if !same_intent
        && !still_offered(&operation.kind, operation.snapshot.state, &kinds).contains(&compensation)
    {
        let earlier: Vec<String> =
            recorded.iter().filter(|s| s.kind == compensation.kind()).map(|s| s.op_id.to_string()).collect();
        return Err(LedgerError::Invalid(format!(
            "{} was already recorded for {original} ({}); nothing was sent.",
            compensation.label(),
            earlier.join(", ")
        )));
    }
    let mut provider = planned.provider.to_owned();
    let params = match compensation {
        Compensation::RefundLineItem => {
            let orders = executor.directory().orders(tenant).await?.map_err(LedgerError::Invalid)?;
            let order_id = planned.params["order"].as_str().unwrap_or_default();
            let order = orders.order(order_id).await.map_err(|reason| {
                LedgerError::Invalid(format!(
                    "The shop's orders could not be read ({reason}); nothing was sent."
                ))
            })?;
            let item = order
                .as_ref()
                .and_then(|o| planned.params["line_item"].as_str().and_then(|i| o.line_item(i)));
            match (&order, item) {
                (Some(order), Some(item)) => {
                    let (refunds_at, kind) =
                        executor.directory().refund_provider_for(tenant, order).await?.ok_or_else(|| {
                            LedgerError::Invalid(format!(
                                "No refund provider is connected for tenant {tenant}; nothing was sent."
                            ))
                        })?;
                    provider = refunds_at;
                    executor.ledger().line_item_refund(tenant, &provider, kind, order, item).await?
                }
                _ => {
                    return Err(LedgerError::Invalid(format!(
                        "Order {order_id} or its line item is not in this tenant's shop; nothing was sent."
                    )))
                }
            }
        }
        Compensation::CancelTicket | Compensation::ReschedulePickup => planned.params,
    };
    let op_id = OpId::parse(&planned.op_id).map_err(|e| LedgerError::Invalid(e.to_string()))?;
    let registration = RegisterRequest {
        op_id: op_id.clone(),
        kind: planned.kind.to_owned(),
        subject: operation.subject.clone(),
        provider,
        params: CanonicalParams::from_value(params).map_err(|e| LedgerError::Invalid(e.to_string()))?,
        requested_by: actor.name.clone(),
        compensates: Some(original.clone()),
        on_behalf_of: None,
        server_sends: true,
        key_retention: None,
    };
    let answer = console_request.answered(format!(
        "Recorded {op_id} to compensate {original}; its page shows whether it was sent or waits for approval."
    ));
    match ledger.register_answering(tenant, actor, registration, Some(answer)).await? {
        Registration::Created(created) if created.operation.snapshot.state == State::PendingApproval => {
            Ok(format!(
            "Recorded {op_id} to compensate {original}; it waits for a manager's approval before it is sent."
        ))
        }
        Registration::Created(_) => {
            let sent = executor.run(tenant, &op_id).await?;
            Ok(format!("Recorded {op_id} to compensate {original}: {}.", standing(&sent)))
        }
        Registration::Existing(existing) => Ok(format!(
            "{op_id} was recorded before and is {}; nothing was sent again.",
            existing.operation.snapshot.state.label()
        )),
        Registration::Conflict { .. } => Err(LedgerError::Invalid(format!(
            "{op_id} is already recorded with other parameters; see Conflicts. Nothing was sent."
        ))),
    }
}

/// Records, in `actor`'s name and for `reason`, a new operation that makes `failed` again after it
/// failed at the provider ([`Ledger::register_retry`]: an op id of its own, linked, checked
/// against the approval policy), and sends it unless it waits for an approval. Asking twice finds
/// the first retry and sends nothing more.
///
/// [`Ledger::register_retry`]: super::Ledger::register_retry
#[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %failed, actor = %actor.name))]
pub async fn retry_after_failure(
    executor: &Executor,
    tenant: &TenantId,
    failed: &OpId,
    actor: &Actor,
    reason: &str,
    console_request: &ConsoleRequest,
) -> Result<String, LedgerError> {
    may_act(actor, "make operations again")?;
    if reason.trim().is_empty() {
        return Err(LedgerError::Invalid("A reason is required: say why it is made again.".into()));
    }
    let answer = console_request.answered(format!(
        "Recorded the retry of {failed}; its page shows whether it was sent or waits for approval."
    ));
    let ledger = executor.ledger();
    match ledger.register_retry(tenant, actor, failed, Some(reason.to_owned()), Some(answer)).await? {
        Registration::Created(created) if created.operation.snapshot.state == State::PendingApproval => {
            Ok(format!(
                "Recorded {} to make {failed} again; it waits for a manager's approval before it is sent.",
                created.operation.op_id
            ))
        }
        Registration::Created(created) => {
            let sent = executor.run(tenant, &created.operation.op_id).await?;
            Ok(format!("Made again as {}: {}.", created.operation.op_id, standing(&sent)))
        }
        Registration::Existing(existing) => Ok(format!(
            "{failed} was already made again as {}, which is {}; nothing was sent again.",
            existing.operation.op_id,
            existing.operation.snapshot.state.label()
        )),
        Registration::Conflict { stored, .. } => Err(LedgerError::Invalid(format!(
            "{} is already recorded with other parameters; see Conflicts. Nothing was sent.",
            stored.operation.op_id
        ))),
    }
}

/// How many operations one bulk action may touch.
pub const BULK_LIMIT: u32 = 500;

/// Of `candidates`, the ones `actor` may query now, as the state machine says.
pub fn queryable(actor: &Actor, candidates: &[OperationRecord]) -> Result<Vec<OpId>, LedgerError> {
    may_act(actor, "run bulk actions")?;
    let at = now();
    Ok(candidates
        .iter()
        .filter(|operation| check(&operation.snapshot, CommandKind::ConfirmFound, actor, at).is_ok())
        .map(|operation| operation.op_id.clone())
        .collect())
}

/// Runs a recorded bulk query: asks the provider for each of its operations in order, recording
/// each item's result as it goes (an item that fails is recorded as such and the run goes on),
/// then marks the run done.
#[tracing::instrument(skip_all, fields(tenant = %tenant, run = %run_id))]
pub async fn run_bulk_query(
    executor: Executor,
    tenant: TenantId,
    run_id: String,
    actor: Actor,
) -> Result<(), LedgerError> {
    let ledger = executor.ledger();
    let run = ledger.reads().bulk_run(&tenant, &run_id).await?.ok_or(LedgerError::NotFound)?;
    for item in run.items.iter().filter(|item| item.outcome.is_none()) {
        let (outcome, message) = match OpId::parse(&item.op_id) {
            Err(error) => ("refused", error.to_string()),
            Ok(op_id) => match query_provider(&executor, &tenant, &op_id, &actor, None).await {
                Ok(found) => (found.name(), found.sentence(&op_id)),
                Err(LedgerError::Rejected(rejection)) => ("refused", rejection.message),
                Err(LedgerError::NotFound) => ("refused", format!("There is no operation {op_id}.")),
                Err(error) => {
                    tracing::error!(%op_id, error = %cause_chain(&error), "a bulk item failed");
                    ("unavailable", format!("{op_id} could not be queried ({error}); nothing was changed."))
                }
            },
        };
        ledger.store.record_bulk_item(&tenant, &run_id, item.position, outcome, &message, now()).await?;
    }
    ledger.store.finish_bulk_run(&tenant, &run_id, now()).await?;
    Ok(())
}
