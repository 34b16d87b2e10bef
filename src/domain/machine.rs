//! The operation state machine: states, commands, events, `decide` and `allowed_commands`.
//!
//! The server asks [`decide`] whether a command is legal and which events it records; the console
//! asks [`allowed_commands`] which actions to offer. Both go through [`check`], so they cannot
//! disagree. Time is an argument; nothing here reads a clock.
//!
//! ```text
//! planned ──begin──▶ submitted ──succeeded──▶ succeeded
//!    │                  │  ├──accepted, outcome pending──▶ accepted ──provider: succeeded──▶ succeeded
//!    │                  │  │                                  ├──provider: failed / canceled──▶ rejected
//!    │                  │  │                                  └──pending too long, needs action──▶ needs_review
//!    │                  │  ├──failed at the provider / rejected / invalid / forbidden──▶ rejected
//!    │                  │  ├──not sent / 429 / 503──▶ planned (or approved): send again, same key
//!    │                  │  └──timeout / 500──▶ unknown ──found (in the status the provider gives it)──▶ succeeded | accepted | rejected
//!    │                  │                        ├──re-send same key (key still valid)──▶ submitted
//!    │                  │                        └──escalate──▶ needs_review ──mark not happened──▶ rejected
//! pending_approval ──approve──▶ approved ──begin──▶ submitted        (deny ──▶ denied)
//! planned / pending_approval / approved ──cancel──▶ cancelled
//! succeeded ──provider: failed after all──▶ needs_review ──mark not happened──▶ rejected
//!                                                        └──mark succeeded──▶ succeeded
//! ```
//! A provider's 2xx is not the business result: `accepted` holds an operation the provider has and
//! says is still in progress (a Stripe refund `pending`), which is never done and never sent again.
//! A provider may still say that an object it reported done failed after all (Adyen's
//! `REFUND_FAILED`, a Stripe or PayPal refund that turns `failed` after it succeeded): its word, and
//! only its word, takes a succeeded operation out of `succeeded`, to people, who settle it.
//! A cancel on a submitted, unknown or needs-review operation is recorded and stops further sends;
//! it does not pretend to undo what may already have happened.

use crate::t;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::connection::After5xx;
use super::failure::{Consequence, FailureClass};
use super::ids::{Actor, ActorKind, AttemptNumber};
use super::language::Language;
use super::params::Fingerprint;
use super::policy::{is_own_request, Approval, ApprovalProblem, Role};

/// Where an operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum State {
    Planned,
    PendingApproval,
    Approved,
    Denied,
    Submitted,
    /// The provider has it and says it is still in progress: the outcome is pending.
    Accepted,
    Succeeded,
    Rejected,
    Unknown,
    NeedsReview,
    Cancelled,
}

impl State {
    pub const ALL: [State; 11] = [
        State::Planned,
        State::PendingApproval,
        State::Approved,
        State::Denied,
        State::Submitted,
        State::Accepted,
        State::Succeeded,
        State::Rejected,
        State::Unknown,
        State::NeedsReview,
        State::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Planned => "planned",
            State::PendingApproval => "pending_approval",
            State::Approved => "approved",
            State::Denied => "denied",
            State::Submitted => "submitted",
            State::Accepted => "accepted",
            State::Succeeded => "succeeded",
            State::Rejected => "rejected",
            State::Unknown => "unknown",
            State::NeedsReview => "needs_review",
            State::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<State> {
        State::ALL.into_iter().find(|state| state.as_str() == text)
    }

    /// The state's name for people: `pending approval`, `needs review`.
    pub fn label(self) -> &'static str {
        match self {
            State::Planned => "planned",
            State::PendingApproval => "pending approval",
            State::Approved => "approved",
            State::Denied => "denied",
            State::Submitted => "submitted",
            State::Accepted => "accepted",
            State::Succeeded => "succeeded",
            State::Rejected => "rejected",
            State::Unknown => "unknown",
            State::NeedsReview => "needs review",
            State::Cancelled => "cancelled",
        }
    }

    /// The state's name for people reading `language`.
    pub fn label_in(self, language: Language) -> String {
        match self {
            State::Planned => t!(language, "state-planned"),
            State::PendingApproval => t!(language, "state-pending-approval"),
            State::Approved => t!(language, "state-approved"),
            State::Denied => t!(language, "state-denied"),
            State::Submitted => t!(language, "state-submitted"),
            State::Accepted => t!(language, "state-accepted"),
            State::Succeeded => t!(language, "state-succeeded"),
            State::Rejected => t!(language, "state-rejected"),
            State::Unknown => t!(language, "state-unknown"),
            State::NeedsReview => t!(language, "state-needs-review"),
            State::Cancelled => t!(language, "state-cancelled"),
        }
    }

    /// Terminal states are settled: nothing is sent for them and no person moves them. The one way
    /// out of one is the provider's later word that a succeeded operation's object failed after
    /// all, which hands it to people (`needs_review`).
    pub fn is_terminal(self) -> bool {
        matches!(self, State::Succeeded | State::Rejected | State::Denied | State::Cancelled)
    }

    /// What a caller (an agent or a tool) is told about an operation in this state.
    pub fn caller_message(self) -> &'static str {
        match self {
            State::Planned => "Recorded; not sent yet.",
            State::PendingApproval => "Waiting for a manager's approval; do not send it.",
            State::Approved => "Approved; ready to be sent.",
            State::Denied => "A manager denied this operation; it will not be sent.",
            State::Submitted => "A send is in progress; do not send it again.",
            State::Accepted => {
                "The provider accepted it and has not confirmed the result yet; do not send it again."
            }
            State::Succeeded => "Already done earlier; nothing was sent now.",
            State::Rejected => {
                "The provider refused it, or it was confirmed not to have happened; nothing was done."
            }
            State::Unknown => "Result unknown; do not send again; it is being checked.",
            State::NeedsReview => "Result unknown; a person is checking it; do not send again.",
            State::Cancelled => "Cancelled before anything was sent.",
        }
    }

    /// What a caller is told at `now` of a send in flight until `deadline`: how long until the
    /// ledger takes it to be over and looks it up at the provider, if nobody reports it first.
    pub fn in_flight_message(deadline: DateTime<Utc>, now: DateTime<Utc>) -> String {
        let at = deadline.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let left = (deadline - now).num_seconds();
        if left > 0 {
            format!(
                "A send is in progress; do not send it again. Its sender has until {at} (about {left} s) \
                 to report it; after that, it is looked up at the provider."
            )
        } else {
            format!(
                "A send is in progress; do not send it again. Its sender reported nothing by {at}; \
                 it is being looked up at the provider."
            )
        }
    }

    /// Whether the downstream effect may exist, or may still come about, without opledger knowing
    /// its result yet: sent and not answered, accepted and not settled, or unknown.
    pub fn is_uncertain(self) -> bool {
        matches!(self, State::Submitted | State::Accepted | State::Unknown | State::NeedsReview)
    }
}

/// What the state machine needs to know about one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub state: State,
    /// The person or agent who asked for the operation (four-eyes compares against it).
    pub requested_by: String,
    pub fingerprint: Fingerprint,
    pub approval: Option<Approval>,
    pub open_attempt: Option<AttemptNumber>,
    pub last_attempt: Option<AttemptNumber>,
    pub last_failure: Option<FailureClass>,
    /// When the idempotency key was first sent downstream.
    pub key_first_sent_at: Option<DateTime<Utc>>,
    /// How long the provider remembers an idempotency key (Stripe: at least 24 hours).
    pub key_retention: Duration,
    /// What a re-send under the key gets after the provider answered a 5xx (Stripe: the same 5xx).
    #[serde(default)]
    pub after_5xx: After5xx,
    pub cancel_requested: bool,
    /// The provider's words for why it failed after accepting it (Stripe's `failure_reason`), or
    /// after it had reported it succeeded: then the operation waits for a person in `needs_review`
    /// (see [`Snapshot::failed_after_success`]), and stays marked so once a person settles it.
    pub failure_reason: Option<String>,
}

impl Snapshot {
    /// A new operation, `planned` or, when policy asks for it, `pending_approval`.
    pub fn new(
        requested_by: &str,
        fingerprint: Fingerprint,
        needs_approval: bool,
        key_retention: Duration,
    ) -> Self {
        Self {
            state: if needs_approval { State::PendingApproval } else { State::Planned },
            requested_by: requested_by.to_owned(),
            fingerprint,
            approval: None,
            open_attempt: None,
            last_attempt: None,
            last_failure: None,
            key_first_sent_at: None,
            key_retention,
            after_5xx: After5xx::Unknown,
            cancel_requested: false,
            failure_reason: None,
        }
    }

    /// When the downstream key stops being remembered, once it has been sent.
    pub fn key_expires_at(&self) -> Option<DateTime<Utc>> {
        self.key_first_sent_at.map(|sent| sent + self.key_retention)
    }

    /// Whether a re-send with the same key would still be recognised downstream at `now`.
    pub fn key_still_valid(&self, now: DateTime<Utc>) -> bool {
        self.key_expires_at().is_none_or(|expires| now < expires)
    }

    fn ready_state(&self) -> State {
        if self.approval.is_some() {
            State::Approved
        } else {
            State::Planned
        }
    }

    /// Failed at the provider for `reason`: rejected, nothing moved; or, when the provider had
    /// said it succeeded, handed to a person, who finds out whether anything moved.
    fn fail_at_provider(&mut self, reason: &str) {
        self.state = if self.state == State::Succeeded { State::NeedsReview } else { State::Rejected };
        self.open_attempt = None;
        self.last_failure = Some(FailureClass::FailedAtProvider);
        self.failure_reason = Some(reason.to_owned());
    }

    /// Whether the provider said that it failed after it had reported it succeeded, and it waits
    /// for a person.
    pub fn failed_after_success(&self) -> bool {
        self.state == State::NeedsReview && self.failure_reason.is_some()
    }

    /// What a caller (an agent or a tool) is told about the operation: as its state says
    /// ([`State::caller_message`]), but for one the provider failed after it had succeeded.
    pub fn caller_message(&self) -> &'static str {
        if self.failed_after_success() {
            "The provider reported that it failed after it had succeeded; a person is checking it; do not send it again."
        } else {
            self.state.caller_message()
        }
    }

    /// What the caller who has just reported its attempt is told: that this very call did it, with
    /// the provider's id (`Refunded now as re_…`), so that it is never read as an earlier send of
    /// someone else's. Any other state is told as [`Snapshot::caller_message`] tells it.
    pub fn reported_message(&self, kind: &str, external_id: Option<&str>) -> String {
        let done = match kind {
            "refund" => "Refunded",
            "email" => "Sent",
            _ => "Done",
        };
        let id = external_id.map(|id| format!(" as {id}")).unwrap_or_default();
        match self.state {
            State::Succeeded => format!("{done} now{id}; do not send it again."),
            State::Accepted => format!(
                "Sent now; the provider accepted it{id} and has not confirmed the result yet; do not send it again."
            ),
            _ => self.caller_message().to_owned(),
        }
    }

    /// The snapshot after `event`. Events come from [`decide`] or from the store's history.
    pub fn apply(mut self, event: &Event) -> Snapshot {
        match event {
            Event::ApprovalGranted { approval, .. } => {
                self.state = State::Approved;
                self.approval = Some(approval.clone());
            }
            Event::ApprovalDenied { .. } => self.state = State::Denied,
            Event::ApprovalExpired { .. } => {
                self.state = State::PendingApproval;
                self.approval = None;
            }
            Event::AttemptStarted { attempt, at, .. } => {
                self.state = State::Submitted;
                self.open_attempt = Some(*attempt);
                self.last_attempt = Some(*attempt);
                self.key_first_sent_at.get_or_insert(*at);
            }
            Event::AttemptSucceeded { .. } => {
                self.state = State::Succeeded;
                self.open_attempt = None;
            }
            Event::AttemptAccepted { .. } => {
                self.state = State::Accepted;
                self.open_attempt = None;
            }
            Event::AttemptFailedAtProvider { reason, .. } => self.fail_at_provider(reason),
            Event::AttemptFailed { class, .. } => {
                self.open_attempt = None;
                self.last_failure = Some(*class);
                self.state = match class.consequence() {
                    Consequence::SafeToRetry if self.cancel_requested => State::Cancelled,
                    Consequence::SafeToRetry => self.ready_state(),
                    Consequence::Final => State::Rejected,
                    Consequence::Unknown => State::Unknown,
                };
            }
            Event::MarkedUnknown { .. } => {
                self.state = State::Unknown;
                self.open_attempt = None;
            }
            Event::FoundDownstream { status, .. } => {
                self.open_attempt = None;
                match status {
                    ProviderStatus::Succeeded => self.state = State::Succeeded,
                    ProviderStatus::Pending { .. } => self.state = State::Accepted,
                    ProviderStatus::Failed { reason } => self.fail_at_provider(reason),
                }
            }
            Event::MarkedSucceeded { .. } => {
                self.state = State::Succeeded;
                self.open_attempt = None;
            }
            Event::Escalated { .. } => {
                self.state = State::NeedsReview;
                self.open_attempt = None;
            }
            Event::MarkedNotHappened { .. } => self.state = State::Rejected,
            Event::CancelRequested { .. } => self.cancel_requested = true,
            Event::Cancelled { .. } => self.state = State::Cancelled,
        }
        self
    }
}

/// How an attempt ended, as the caller reports it. The provider's answer is read for its business
/// result: an object it created and says is done, an object it created and says is still in
/// progress, or an object that failed there; a refusal or no answer is a failure class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum AttemptOutcome {
    Succeeded {
        external_id: Option<String>,
    },
    /// The provider has it and says its result is still pending (Stripe `pending` or
    /// `requires_action`, Adyen `received`, PayPal `PENDING`).
    Accepted {
        external_id: Option<String>,
    },
    /// The provider created it and says it failed there (Stripe `failed` or `canceled`), for
    /// `reason`: nothing moved.
    FailedAtProvider {
        external_id: Option<String>,
        reason: String,
    },
    Failed {
        failure: FailureClass,
    },
}

impl AttemptOutcome {
    /// The outcome in one word, as metrics, traces and attempts label it: `succeeded`, `accepted`,
    /// or the failure's class (`failed_at_provider`, `timeout`, `server_error`, …).
    pub fn as_str(&self) -> &'static str {
        match self {
            AttemptOutcome::Succeeded { .. } => "succeeded",
            AttemptOutcome::Accepted { .. } => "accepted",
            AttemptOutcome::FailedAtProvider { .. } => FailureClass::FailedAtProvider.as_str(),
            AttemptOutcome::Failed { failure } => failure.as_str(),
        }
    }

    /// The id of what the provider created, when the outcome names one.
    pub fn external_id(&self) -> Option<&str> {
        match self {
            AttemptOutcome::Succeeded { external_id }
            | AttemptOutcome::Accepted { external_id }
            | AttemptOutcome::FailedAtProvider { external_id, .. } => external_id.as_deref(),
            AttemptOutcome::Failed { .. } => None,
        }
    }
}

/// What the provider's own object says of an operation it has: the business result, read from
/// the object's status (on the answer to a send, a lookup, a poll or the provider's webhook).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum ProviderStatus {
    /// Done: the money moved.
    #[default]
    Succeeded,
    /// Accepted and still in progress; `needs_action` when it waits for someone to act (Stripe's
    /// `requires_action`), so that people are told at once.
    Pending { needs_action: bool },
    /// It failed at the provider, or was cancelled there, for `reason`: nothing moved.
    Failed { reason: String },
}

impl ProviderStatus {
    /// The status in one word: `succeeded`, `pending`, `requires_action`, `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ProviderStatus::Succeeded => "succeeded",
            ProviderStatus::Pending { needs_action: false } => "pending",
            ProviderStatus::Pending { needs_action: true } => "requires_action",
            ProviderStatus::Failed { .. } => "failed",
        }
    }
}

/// What someone asks of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "command")]
pub enum Command {
    Approve {
        reason: String,
        valid_for: Duration,
    },
    Deny {
        reason: String,
    },
    ExpireApproval,
    BeginAttempt,
    RecordOutcome {
        attempt: AttemptNumber,
        outcome: AttemptOutcome,
    },
    /// A submitted operation whose sender went silent (crashed between `submitted` and the send,
    /// or never reported): its result is unknown.
    MarkUnknown {
        reason: String,
    },
    /// A lookup downstream found the operation's object, in the status the provider gives it; also
    /// the provider's later word (its webhook) that a succeeded operation's object failed.
    ConfirmFound {
        external_id: String,
        evidence: String,
        #[serde(default)]
        status: ProviderStatus,
    },
    /// Send again with the same key and the stored parameters, while the key is remembered.
    ResendSameKey,
    Escalate {
        reason: String,
    },
    /// A person confirms the effect exists, with its external id and evidence.
    MarkSucceeded {
        external_id: String,
        evidence: String,
    },
    /// A manager confirms, with evidence, that nothing happened downstream.
    MarkNotHappened {
        reason: String,
        evidence: String,
    },
    Cancel {
        reason: String,
    },
}

/// The command names, without their arguments: what the console offers as actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandKind {
    Approve,
    Deny,
    ExpireApproval,
    BeginAttempt,
    RecordOutcome,
    MarkUnknown,
    ConfirmFound,
    ResendSameKey,
    Escalate,
    MarkSucceeded,
    MarkNotHappened,
    Cancel,
}

impl CommandKind {
    pub const ALL: [CommandKind; 12] = [
        CommandKind::Approve,
        CommandKind::Deny,
        CommandKind::ExpireApproval,
        CommandKind::BeginAttempt,
        CommandKind::RecordOutcome,
        CommandKind::MarkUnknown,
        CommandKind::ConfirmFound,
        CommandKind::ResendSameKey,
        CommandKind::Escalate,
        CommandKind::MarkSucceeded,
        CommandKind::MarkNotHappened,
        CommandKind::Cancel,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CommandKind::Approve => "approve",
            CommandKind::Deny => "deny",
            CommandKind::ExpireApproval => "expire_approval",
            CommandKind::BeginAttempt => "begin_attempt",
            CommandKind::RecordOutcome => "record_outcome",
            CommandKind::MarkUnknown => "mark_unknown",
            CommandKind::ConfirmFound => "confirm_found",
            CommandKind::ResendSameKey => "resend_same_key",
            CommandKind::Escalate => "escalate",
            CommandKind::MarkSucceeded => "mark_succeeded",
            CommandKind::MarkNotHappened => "mark_not_happened",
            CommandKind::Cancel => "cancel",
        }
    }

    pub fn parse(text: &str) -> Option<CommandKind> {
        CommandKind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    pub fn label(self) -> &'static str {
        match self {
            CommandKind::Approve => "Approve",
            CommandKind::Deny => "Deny",
            CommandKind::ExpireApproval => "Expire approval",
            CommandKind::BeginAttempt => "Send",
            CommandKind::RecordOutcome => "Record outcome",
            CommandKind::MarkUnknown => "Mark result unknown",
            CommandKind::ConfirmFound => "Confirm found downstream",
            CommandKind::ResendSameKey => "Re-send with the same key",
            CommandKind::Escalate => "Escalate",
            CommandKind::MarkSucceeded => "Mark succeeded",
            CommandKind::MarkNotHappened => "Mark not happened",
            CommandKind::Cancel => "Cancel",
        }
    }
}

impl Command {
    pub fn kind(&self) -> CommandKind {
        match self {
            Command::Approve { .. } => CommandKind::Approve,
            Command::Deny { .. } => CommandKind::Deny,
            Command::ExpireApproval => CommandKind::ExpireApproval,
            Command::BeginAttempt => CommandKind::BeginAttempt,
            Command::RecordOutcome { .. } => CommandKind::RecordOutcome,
            Command::MarkUnknown { .. } => CommandKind::MarkUnknown,
            Command::ConfirmFound { .. } => CommandKind::ConfirmFound,
            Command::ResendSameKey => CommandKind::ResendSameKey,
            Command::Escalate { .. } => CommandKind::Escalate,
            Command::MarkSucceeded { .. } => CommandKind::MarkSucceeded,
            Command::MarkNotHappened { .. } => CommandKind::MarkNotHappened,
            Command::Cancel { .. } => CommandKind::Cancel,
        }
    }
}

/// What happened to an operation; the ledger stores these and the snapshot follows from them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    ApprovalGranted {
        approval: Approval,
        reason: String,
    },
    ApprovalDenied {
        by: String,
        reason: String,
    },
    ApprovalExpired {
        expired_at: DateTime<Utc>,
    },
    AttemptStarted {
        attempt: AttemptNumber,
        at: DateTime<Utc>,
        resend: bool,
    },
    AttemptSucceeded {
        attempt: AttemptNumber,
        external_id: Option<String>,
    },
    AttemptAccepted {
        attempt: AttemptNumber,
        external_id: Option<String>,
    },
    AttemptFailedAtProvider {
        attempt: AttemptNumber,
        external_id: Option<String>,
        reason: String,
    },
    AttemptFailed {
        attempt: AttemptNumber,
        class: FailureClass,
    },
    MarkedUnknown {
        attempt: Option<AttemptNumber>,
        reason: String,
    },
    FoundDownstream {
        external_id: String,
        evidence: String,
        #[serde(default)]
        status: ProviderStatus,
    },
    Escalated {
        reason: String,
    },
    MarkedSucceeded {
        external_id: String,
        evidence: String,
    },
    MarkedNotHappened {
        reason: String,
        evidence: String,
    },
    CancelRequested {
        reason: String,
    },
    Cancelled {
        reason: String,
    },
}

/// Why a command was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectionCode {
    NotPermitted,
    OwnRequest,
    AwaitingApproval,
    ApprovalExpired,
    ApprovalForOtherParams,
    AlreadySucceeded,
    AlreadyFinished,
    AttemptOpen,
    AwaitingProvider,
    ReconcileFirst,
    NeedsReview,
    KeyExpired,
    NoKey,
    CachedServerError,
    CancelRequested,
    AttemptClosed,
    NotApplicable,
    MissingDetail,
}

/// A refusal, with a sentence a support agent understands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    pub code: RejectionCode,
    pub message: String,
}

impl Rejection {
    /// The refusal for a person reading `language`: the refusals the console shows beside a
    /// control have words in every language; the rest keep the state machine's English sentence.
    pub fn words(&self, language: Language) -> String {
        match self.code {
            RejectionCode::OwnRequest => t!(language, "refusal-own-request"),
            _ => self.message.clone(),
        }
    }
}

fn reject(code: RejectionCode, message: impl Into<String>) -> Rejection {
    Rejection { code, message: message.into() }
}

fn may_issue(actor: &Actor, kind: CommandKind) -> bool {
    use CommandKind::*;
    match actor.kind {
        ActorKind::Human(Role::Support) => {
            matches!(kind, ConfirmFound | ResendSameKey | Escalate | MarkSucceeded | Cancel)
        }
        ActorKind::Human(Role::Manager) => matches!(
            kind,
            Approve
                | Deny
                | ConfirmFound
                | ResendSameKey
                | Escalate
                | MarkSucceeded
                | MarkNotHappened
                | Cancel
        ),
        ActorKind::Human(Role::Auditor) | ActorKind::Human(Role::Admin) => false,
        ActorKind::Agent => matches!(kind, BeginAttempt | RecordOutcome | Cancel),
        ActorKind::System => matches!(
            kind,
            ExpireApproval
                | BeginAttempt
                | RecordOutcome
                | MarkUnknown
                | ConfirmFound
                | ResendSameKey
                | Escalate
        ),
    }
}

fn not_permitted(actor: &Actor, kind: CommandKind) -> Rejection {
    let who = match actor.kind {
        ActorKind::Human(role) => format!("the {} role", role.as_str()),
        ActorKind::Agent => "an API token".to_owned(),
        ActorKind::System => "the executor".to_owned(),
    };
    reject(RejectionCode::NotPermitted, format!("{who} may not {}.", kind.label().to_lowercase()))
}

fn refuse_send(snapshot: &Snapshot, now: DateTime<Utc>) -> Option<Rejection> {
    let refusal = match snapshot.state {
        State::Planned => return None,
        State::Approved => match snapshot.approval.as_ref().map(|a| a.covers(&snapshot.fingerprint, now)) {
            Some(Ok(())) => return None,
            Some(Err(ApprovalProblem::Expired)) => reject(
                RejectionCode::ApprovalExpired,
                "The approval has expired; the operation goes back to the approval queue.",
            ),
            Some(Err(ApprovalProblem::OtherFingerprint)) | None => reject(
                RejectionCode::ApprovalForOtherParams,
                "The approval was given for other parameters; a new approval is needed.",
            ),
        },
        State::PendingApproval => {
            reject(RejectionCode::AwaitingApproval, "This operation is waiting for a manager's approval.")
        }
        State::Submitted => reject(
            RejectionCode::AttemptOpen,
            format!(
                "Attempt {} is still open: record its outcome before sending again.",
                snapshot.open_attempt.map_or_else(String::new, |a| a.to_string())
            ),
        ),
        State::Accepted => reject(
            RejectionCode::AwaitingProvider,
            "The provider accepted it and has not settled it yet: do not send it again; it is being followed.",
        ),
        State::Unknown => reject(
            RejectionCode::ReconcileFirst,
            "The result of the last send is unknown: do not send again; reconcile first.",
        ),
        State::NeedsReview => {
            reject(RejectionCode::NeedsReview, "The result is unknown and waits for a person to review it.")
        }
        State::Succeeded => reject(RejectionCode::AlreadySucceeded, "This operation already succeeded."),
        State::Denied | State::Rejected | State::Cancelled => reject(
            RejectionCode::AlreadyFinished,
            format!("This operation is {} and cannot be sent.", snapshot.state.label()),
        ),
    };
    Some(refusal)
}

fn expect_state(snapshot: &Snapshot, allowed: &[State], what: &str) -> Result<(), Rejection> {
    if allowed.contains(&snapshot.state) {
        return Ok(());
    }
    if snapshot.state.is_terminal() {
        return Err(reject(
            RejectionCode::AlreadyFinished,
            format!("This operation is already {}; {what} is no longer possible.", snapshot.state.label()),
        ));
    }
    Err(reject(
        RejectionCode::NotApplicable,
        format!("{what} is not possible while the operation is {}.", snapshot.state.label()),
    ))
}

/// Whether `actor` may issue a command of `kind` on `snapshot` at `now`, whatever its arguments.
pub fn check(
    snapshot: &Snapshot,
    kind: CommandKind,
    actor: &Actor,
    now: DateTime<Utc>,
) -> Result<(), Rejection> {
    if !may_issue(actor, kind) {
        return Err(not_permitted(actor, kind));
    }
    use State::*;
    match kind {
        CommandKind::Approve | CommandKind::Deny => {
            expect_state(snapshot, &[PendingApproval], "Approval or denial")?;
            if is_own_request(&snapshot.requested_by, &actor.name) {
                return Err(reject(
                    RejectionCode::OwnRequest,
                    "You requested this operation; another manager must decide on it.",
                ));
            }
            Ok(())
        }
        CommandKind::ExpireApproval => {
            expect_state(snapshot, &[Approved], "Expiring an approval")?;
            match snapshot.approval.as_ref().map(|a| a.covers(&snapshot.fingerprint, now)) {
                Some(Ok(())) => Err(reject(RejectionCode::NotApplicable, "The approval is still valid.")),
                _ => Ok(()),
            }
        }
        CommandKind::BeginAttempt => refuse_send(snapshot, now).map_or(Ok(()), Err),
        CommandKind::RecordOutcome => expect_state(snapshot, &[Submitted], "Recording an outcome"),
        CommandKind::MarkUnknown => expect_state(snapshot, &[Submitted], "Marking the result unknown"),
        CommandKind::ConfirmFound if snapshot.state == Succeeded && actor.kind == ActorKind::System => {
            if snapshot.failure_reason.is_some() {
                return Err(reject(
                    RejectionCode::AlreadySucceeded,
                    "The provider's report that it failed after it succeeded was already settled: it stays succeeded.",
                ));
            }
            Ok(())
        }
        CommandKind::ConfirmFound => expect_state(
            snapshot,
            &[Submitted, Accepted, Unknown, NeedsReview],
            "Confirming a downstream result",
        ),
        CommandKind::ResendSameKey => {
            expect_state(snapshot, &[Unknown, NeedsReview], "A re-send with the same key")?;
            if snapshot.failure_reason.is_some() {
                return Err(reject(
                    RejectionCode::NotApplicable,
                    "The provider reported that it failed after it had succeeded: a re-send with the same key would only replay its first answer. A person settles it.",
                ));
            }
            if snapshot.cancel_requested {
                return Err(reject(
                    RejectionCode::CancelRequested,
                    "Further processing was stopped; only a lookup can settle this operation now.",
                ));
            }
            let cached = match snapshot.after_5xx {
                After5xx::SameKey => Some("The provider answered with a server error, which it replays for the same key: only a lookup can settle it."),
                After5xx::Unknown => Some("The provider answered with a server error, and it is not known whether it runs a re-send under the same key again or replays that error: only a lookup can settle it."),
                After5xx::Retry => None,
            };
            if let (Some(FailureClass::ServerError), Some(words)) = (snapshot.last_failure, cached) {
                return Err(reject(RejectionCode::CachedServerError, words));
            }
            if snapshot.key_retention <= Duration::zero() {
                return Err(reject(
                    RejectionCode::NoKey,
                    "The downstream takes no idempotency key, so it cannot tell a re-send from a new request: a re-send could do it twice. Only a lookup or a person can settle it.",
                ));
            }
            if !snapshot.key_still_valid(now) {
                return Err(reject(
                    RejectionCode::KeyExpired,
                    "The provider no longer remembers the idempotency key, so a re-send could do it twice: look it up instead.",
                ));
            }
            Ok(())
        }
        CommandKind::Escalate => expect_state(snapshot, &[Submitted, Accepted, Unknown], "Escalation"),
        CommandKind::MarkSucceeded => expect_state(snapshot, &[Unknown, NeedsReview], "Marking succeeded"),
        CommandKind::MarkNotHappened => expect_state(snapshot, &[NeedsReview], "Marking not happened"),
        CommandKind::Cancel => {
            expect_state(
                snapshot,
                &[Planned, PendingApproval, Approved, Submitted, Accepted, Unknown, NeedsReview],
                "Cancelling",
            )?;
            if snapshot.cancel_requested {
                return Err(reject(
                    RejectionCode::CancelRequested,
                    "A stop was already recorded for this operation.",
                ));
            }
            Ok(())
        }
    }
}

fn required(detail: &str, what: &str) -> Result<String, Rejection> {
    let trimmed = detail.trim();
    if trimmed.is_empty() {
        return Err(reject(RejectionCode::MissingDetail, format!("{what} is required.")));
    }
    Ok(trimmed.to_owned())
}

/// Decides what `command` by `actor` at `now` does to the operation in `snapshot`: the events to
/// record, or a refusal that says why.
pub fn decide(
    snapshot: &Snapshot,
    command: Command,
    actor: &Actor,
    now: DateTime<Utc>,
) -> Result<Vec<Event>, Rejection> {
    check(snapshot, command.kind(), actor, now)?;
    let next_attempt = snapshot.last_attempt.map_or(AttemptNumber::FIRST, AttemptNumber::next);
    let event = match command {
        Command::Approve { reason, valid_for } => Event::ApprovalGranted {
            approval: Approval {
                approver: actor.name.clone(),
                fingerprint: snapshot.fingerprint.clone(),
                granted_at: now,
                expires_at: now + valid_for,
            },
            reason: reason.trim().to_owned(),
        },
        Command::Deny { reason } => {
            Event::ApprovalDenied { by: actor.name.clone(), reason: required(&reason, "A reason")? }
        }
        Command::ExpireApproval => Event::ApprovalExpired {
            expired_at: snapshot.approval.as_ref().map_or(now, |a| a.expires_at.min(now)),
        },
        Command::BeginAttempt => Event::AttemptStarted { attempt: next_attempt, at: now, resend: false },
        Command::ResendSameKey => Event::AttemptStarted { attempt: next_attempt, at: now, resend: true },
        Command::RecordOutcome { attempt, outcome } => {
            if snapshot.open_attempt != Some(attempt) {
                return Err(reject(
                    RejectionCode::AttemptClosed,
                    format!("Attempt {attempt} is not the open attempt; its outcome cannot be recorded."),
                ));
            }
            match outcome {
                AttemptOutcome::Succeeded { external_id } => Event::AttemptSucceeded { attempt, external_id },
                AttemptOutcome::Accepted { external_id } => Event::AttemptAccepted { attempt, external_id },
                AttemptOutcome::FailedAtProvider { external_id, reason } => {
                    Event::AttemptFailedAtProvider { attempt, external_id, reason: required(&reason, "The reason")? }
                }
                AttemptOutcome::Failed { failure: FailureClass::FailedAtProvider } => {
                    return Err(reject(
                        RejectionCode::MissingDetail,
                        "A failure at the provider is reported with the provider's reason (outcome failed_at_provider).",
                    ))
                }
                AttemptOutcome::Failed { failure } => Event::AttemptFailed { attempt, class: failure },
            }
        }
        Command::MarkUnknown { reason } => {
            Event::MarkedUnknown { attempt: snapshot.open_attempt, reason: required(&reason, "A reason")? }
        }
        Command::ConfirmFound { external_id, evidence, status } => {
            if snapshot.state == State::Accepted && matches!(status, ProviderStatus::Pending { .. }) {
                return Err(reject(
                    RejectionCode::NotApplicable,
                    "The provider still has it in progress, as already recorded: nothing changed.",
                ));
            }
            if snapshot.failed_after_success() && matches!(status, ProviderStatus::Failed { .. }) {
                return Err(reject(
                    RejectionCode::NotApplicable,
                    "The provider's report that it failed after it succeeded is already recorded: a person settles it.",
                ));
            }
            if snapshot.state == State::Succeeded && !matches!(status, ProviderStatus::Failed { .. }) {
                return Err(reject(
                    RejectionCode::AlreadySucceeded,
                    "This operation already succeeded: only the provider's word that it failed afterwards changes it.",
                ));
            }
            let status = match status {
                ProviderStatus::Failed { reason } => {
                    ProviderStatus::Failed { reason: required(&reason, "The provider's reason")? }
                }
                other => other,
            };
            Event::FoundDownstream {
                external_id: required(&external_id, "The external id")?,
                evidence: required(&evidence, "Evidence")?,
                status,
            }
        }
        Command::Escalate { reason } => Event::Escalated { reason: required(&reason, "A reason")? },
        Command::MarkSucceeded { external_id, evidence } => Event::MarkedSucceeded {
            external_id: required(&external_id, "The external id")?,
            evidence: required(&evidence, "Evidence")?,
        },
        Command::MarkNotHappened { reason, evidence } => Event::MarkedNotHappened {
            reason: required(&reason, "A reason")?,
            evidence: required(&evidence, "Evidence")?,
        },
        Command::Cancel { reason } => {
            let reason = reason.trim().to_owned();
            if snapshot.state.is_uncertain() {
                Event::CancelRequested { reason }
            } else {
                Event::Cancelled { reason }
            }
        }
    };
    Ok(vec![event])
}

/// The commands `actor` may issue on `snapshot` at `now`: what the console offers.
pub fn allowed_commands(snapshot: &Snapshot, actor: &Actor, now: DateTime<Utc>) -> Vec<CommandKind> {
    CommandKind::ALL.into_iter().filter(|kind| check(snapshot, *kind, actor, now).is_ok()).collect()
}

/// What a caller is told after a cancel: honest about what may already have happened.
pub fn cancel_message(op_id: &str, state_after: State) -> String {
    if state_after.is_uncertain() {
        format!("Stopped further processing, but the result of {op_id} is still being confirmed.")
    } else {
        format!("{op_id} was cancelled before anything was sent.")
    }
}

#[cfg(test)]
mod tests;
