//! What the store takes and gives back: operations, attempts, external references, conflicts,
//! tokens, console users, the console's list rows and the changes the ledger service commits.

use chrono::{DateTime, Utc};

use crate::domain::{
    api_token::Scopes,
    audit::{AuditEntry, AuditRecord},
    connection::ProviderKind,
    ids::{Actor, OpId, TenantId},
    language::Language,
    machine::{Event, Snapshot, State},
    money::Money,
    operation::{AttemptRecord, AttemptReport, ExternalRef, OperationHistory, OperationRecord},
    params::{CanonicalParams, FieldDiff, Fingerprint},
    people::{PeopleChange, UserSource, UserStatus},
    policy::{ApprovalRule, Role},
};

/// An operation to record for the first time.
#[derive(Debug, Clone)]
pub struct NewOperation {
    pub tenant: TenantId,
    pub op_id: OpId,
    /// The key sent downstream ([`OpId::downstream_key`]); it never changes afterwards.
    pub idempotency_key: String,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub params: CanonicalParams,
    pub compensates: Option<OpId>,
    /// The operation that failed at the provider and that this one makes again.
    pub retry_of: Option<OpId>,
    /// What the server does when it sends it, from what its provider's connector performs.
    pub action: Option<String>,
    /// The server sends it (a tool call, a console action, a compensation), not the agent that
    /// registered it; the dispatcher picks it up again when it is left unsent.
    pub server_sends: bool,
    pub snapshot: Snapshot,
    pub at: DateTime<Utc>,
    /// The console request this registration answers, recorded in its transaction.
    pub answers: Option<RequestAnswer>,
}

impl NewOperation {
    /// The operation as registering it records it.
    pub fn record(&self) -> OperationRecord {
        OperationRecord {
            tenant: self.tenant.clone(),
            op_id: self.op_id.clone(),
            kind: self.kind.clone(),
            subject: self.subject.clone(),
            provider: self.provider.clone(),
            params: self.params.clone(),
            idempotency_key: self.idempotency_key.clone(),
            compensates: self.compensates.clone(),
            retry_of: self.retry_of.clone(),
            action: self.action.clone(),
            server_sends: self.server_sends,
            snapshot: self.snapshot.clone(),
            accepted_at: None,
            version: 1,
            created_at: self.at,
            updated_at: self.at,
        }
    }
}

/// The result of registering: a new operation, or the one already recorded under that op id.
#[derive(Debug, Clone)]
pub enum Registered {
    Created(OperationHistory),
    Existing(OperationHistory),
    /// The op id is an archived operation's: its key, with where its history is.
    Archived(super::archive::ArchivedKey),
}

/// A refused request: the same op id with other parameters.
#[derive(Debug, Clone)]
pub struct NewConflict {
    pub tenant: TenantId,
    pub op_id: OpId,
    pub requested: CanonicalParams,
    pub stored_fingerprint: Fingerprint,
    pub diff: Vec<FieldDiff>,
    pub requested_by: String,
    pub at: DateTime<Utc>,
}

/// A refused request as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ConflictRecord {
    pub id: i64,
    pub op_id: OpId,
    pub requested_params: serde_json::Value,
    pub requested_fingerprint: String,
    pub stored_fingerprint: String,
    pub diff: Vec<FieldDiff>,
    pub requested_by: String,
    pub received_at: DateTime<Utc>,
}

/// One decided change to an operation, committed with its projection and audit, all or nothing.
#[derive(Debug, Clone)]
pub struct OperationChange {
    /// The operation as read when the change was decided: the change is refused unless the
    /// operation is still at its version.
    pub before: OperationRecord,
    pub events: Vec<Event>,
    pub after: Snapshot,
    pub actor: Actor,
    pub report: AttemptReport,
    pub audit: Vec<AuditEntry>,
    pub at: DateTime<Utc>,
    /// The console request this change answers, recorded in its transaction.
    pub answers: Option<RequestAnswer>,
    /// The operation's attempts and external ids at `before`'s version, when the ledger has them
    /// from its own last write: the store then builds the answer's from them and the change
    /// instead of reading them back.
    pub before_attempts_and_refs: Option<AttemptsAndRefs>,
}

/// An operation's attempts, in order of their numbers, and its external ids, in order of recording.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptsAndRefs {
    pub attempts: Vec<AttemptRecord>,
    pub external_refs: Vec<ExternalRef>,
}

/// A new API token, of which only the hash of the secret is stored.
#[derive(Debug, Clone)]
pub struct NewApiToken {
    pub id: String,
    pub tenant: TenantId,
    pub name: String,
    pub secret_hash: String,
    pub scopes: Scopes,
    /// `None`: it never expires (only the command line makes such tokens).
    pub expires_at: Option<DateTime<Utc>>,
    /// Who made it: a console user's name, or the command that did.
    pub created_by: String,
    /// The console user who made it; `None` from the command line.
    pub created_by_user_id: Option<String>,
    pub at: DateTime<Utc>,
}

/// An unrevoked API token found by one of its secrets: what authenticating a call needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiTokenRecord {
    pub id: String,
    pub tenant: TenantId,
    pub name: String,
    pub scopes: Scopes,
    pub expires_at: Option<DateTime<Utc>>,
    /// The secret presented is the one a rotation replaced (not the current one).
    pub by_previous_secret: bool,
    /// Until when the replaced secret is accepted, when the rotation gave it a grace.
    pub previous_valid_until: Option<DateTime<Utc>>,
}

/// One of a tenant's API tokens as its admins see it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiTokenListing {
    pub id: String,
    pub name: String,
    pub scopes: Scopes,
    pub created_by: String,
    pub created_by_user_id: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The client address of the last use written.
    pub last_used_from: Option<String>,
    pub rotated_at: Option<DateTime<Utc>>,
    /// Until when the secret the last rotation replaced is still accepted.
    pub previous_valid_until: Option<DateTime<Utc>>,
}

/// A token that a change about many tokens touched: its id and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchedToken {
    pub id: String,
    pub name: String,
}

/// A person who signs in to the console, to be stored.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub id: String,
    pub tenant: TenantId,
    pub name: String,
    pub role: Role,
    /// An Argon2 PHC string; the password itself is never stored.
    pub password_hash: String,
    pub at: DateTime<Utc>,
}

/// A stored console user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub id: String,
    pub tenant: TenantId,
    pub name: String,
    pub role: Role,
    pub password_hash: String,
    pub created_at: DateTime<Utc>,
    /// The language the user chose for the console; `None` follows their browser.
    pub language: Option<Language>,
    pub status: UserStatus,
    pub source: UserSource,
    /// The identity provider's issuer and subject that name an SSO user there.
    pub sso_subject: Option<String>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// The user's TOTP secret, sealed, once they confirmed a first code (two-factor sign-in on).
    pub two_factor_secret: Option<String>,
    /// The TOTP secret they are enrolling with, sealed, until they confirm a first code.
    pub two_factor_pending: Option<String>,
    /// The last TOTP time step whose code was used.
    pub two_factor_step: Option<i64>,
}

impl UserRecord {
    /// Whether the user signs in with a second factor.
    pub fn has_two_factor(&self) -> bool {
        self.two_factor_secret.is_some()
    }
}

/// An admin's change to the tenant's user `user_id`, made by the user `by_user_id` (`None`: the
/// command line).
#[derive(Debug, Clone)]
pub struct PersonChange {
    pub tenant: TenantId,
    pub user_id: String,
    pub by_user_id: Option<String>,
    pub change: PeopleChange,
    /// The link a [`PeopleChange::ResetPassword`] stores.
    pub password_reset: Option<NewPasswordReset>,
    /// The active user of the tenant who takes over the API tokens a deactivated person made;
    /// without one, a [`PeopleChange::Deactivate`] revokes them.
    pub tokens_to: Option<String>,
    pub at: DateTime<Utc>,
}

/// What a change to a person did besides itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PersonChangeDone {
    pub sessions_ended: u64,
    /// The API tokens a deactivation revoked.
    pub tokens_revoked: Vec<TouchedToken>,
    /// The API tokens a deactivation handed over.
    pub tokens_reassigned: Vec<TouchedToken>,
    /// How many items a deactivation released from the person's hands.
    pub claims_released: usize,
}

/// Whose a console session is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOwner {
    pub tenant: TenantId,
    pub user_id: String,
}

/// A stored, unused password reset link and the user it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordResetRecord {
    pub tenant: TenantId,
    pub user_id: String,
    pub user_name: String,
    pub expires_at: DateTime<Utc>,
}

/// A one-time link to set a new password, to be stored under the hash of its secret.
#[derive(Debug, Clone)]
pub struct NewPasswordReset {
    pub secret_hash: String,
    pub tenant: TenantId,
    pub user_id: String,
    pub created_by: String,
    pub at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The most index ranges one list query merges: the states, kinds and providers it chose,
/// multiplied.
pub const MOST_LIST_BRANCHES: usize = 40;

/// Which operations the console's list shows: every filter is optional; rows come newest first,
/// strictly after `after` (the last row of the previous page) when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationQuery {
    /// Any of these states (every state when empty); likewise the kinds and the providers.
    pub states: Vec<State>,
    pub kinds: Vec<String>,
    pub providers: Vec<String>,
    pub subject: Option<String>,
    /// An op id or an external id, matched exactly.
    pub search: Option<String>,
    pub created_from: Option<DateTime<Utc>>,
    pub created_before: Option<DateTime<Utc>>,
    pub after: Option<(DateTime<Utc>, OpId)>,
    /// Only operations held on the support desk as this says.
    pub held: Option<HeldFilter>,
    pub limit: u32,
}

/// Which operations a list shows by who holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeldFilter {
    /// Held by the person with this user id.
    ByUser(String),
    /// Held by the person of this name.
    ByName(String),
    /// Held by nobody.
    Nobody,
}

/// One row of the console's operations list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationListItem {
    pub op_id: OpId,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub state: State,
    pub amount: Option<Money>,
    pub attempts: u32,
    pub external_ids: Vec<String>,
    pub compensates: Option<OpId>,
    /// The provider's reason, when it failed there after accepting it.
    pub failure_reason: Option<String>,
    /// The failed operation this one makes again, on purpose.
    pub retry_of: Option<OpId>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A refused conflicting request with the parameters of the operation it collided with.
#[derive(Debug, Clone, PartialEq)]
pub struct ConflictWithStored {
    pub conflict: ConflictRecord,
    pub stored_params: serde_json::Value,
    pub stored_state: State,
}

/// One rule of a tenant's approval policy, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRuleRecord {
    pub id: String,
    pub rule: ApprovalRule,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// A tenant's own account at one provider, with its secret sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConnectionRecord {
    pub tenant: TenantId,
    /// The provider name operations carry (`stripe`, `sandbox`).
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    /// The secret, sealed (nonce and ciphertext, hex); only the ledger's secret box opens it.
    pub sealed_secret: String,
    pub secret_last4: String,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
    /// What it names besides its secret: Adyen's merchant account, PayPal's client id.
    pub account: Option<String>,
    /// How long its provider remembers an idempotency key, where the operator says otherwise than
    /// the provider's published window.
    pub key_retention: Option<chrono::Duration>,
    /// The signing secret of the provider's webhooks to this connection, sealed, once set.
    pub sealed_webhook_secret: Option<String>,
    /// For an `http` connection, its API's description as saved (`domain::http_api`).
    pub description: Option<String>,
}

/// One of a tenant's customer email templates, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailTemplateRecord {
    pub tenant: TenantId,
    pub template: crate::domain::email::EmailTemplate,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
}

/// An event a provider posted to one of a tenant's connections, as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProviderEvent {
    pub tenant: TenantId,
    /// The connection's name (`stripe`).
    pub connection: String,
    /// The provider's id of the event (`evt_…`), unique per connection.
    pub event_id: String,
    pub event_type: String,
    /// The object it is about (`re_…`), when it names one.
    pub object_id: Option<String>,
    /// The body as received.
    pub payload: String,
    pub received_at: DateTime<Utc>,
}

/// Whether an event was seen before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventReceipt {
    /// First seen now, and stored.
    New,
    /// Stored before, and its processing did not finish: it is processed now.
    Unfinished,
    /// Processed before, with this outcome: nothing is done again.
    Processed { outcome: String },
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpointRecord {
    pub tenant: TenantId,
    /// `wh_` and 16 hexadecimal digits.
    pub id: String,
    pub url: String,
    /// The event types it is sent (`*` alone for all).
    pub event_types: Vec<String>,
    /// The signing secret (`whsec_…`), sealed; only the ledger's secret box opens it.
    pub sealed_secret: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// Where a webhook delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Not delivered yet; tried again at its next attempt.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Given up after the most attempts; an admin can send it again.
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [DeliveryStatus::Pending, DeliveryStatus::Delivered, DeliveryStatus::Failed]
            .into_iter()
            .find(|status| status.as_str() == text)
    }
}

/// One event on its way to one endpoint: a row of the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookDeliveryRecord {
    pub tenant: TenantId,
    pub id: String,
    pub endpoint_id: String,
    /// The event's id (`webhook-id`), the same for every endpoint and every attempt.
    pub message_id: String,
    pub event_type: String,
    /// The JSON body sent, exactly as signed.
    pub payload: String,
    pub created_at: DateTime<Utc>,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The HTTP status of the last answer, if there was one.
    pub last_status: Option<u16>,
    /// Why the last attempt failed, in words.
    pub last_error: Option<String>,
}

/// What one attempt of a delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    pub at: DateTime<Utc>,
    pub http_status: Option<u16>,
    pub error: Option<String>,
    /// Delivered; otherwise pending until `next_attempt_at`, or given up when that is `None`.
    pub delivered: bool,
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Until when the sender leased the delivery: its attempt is recorded only if the lease is
    /// still its own (not run out and taken by another sender).
    pub leased_until: DateTime<Utc>,
}

/// The operations of one tenant, kind and provider in one state: a row of the ledger's counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationCount {
    pub tenant: TenantId,
    pub kind: String,
    pub provider: String,
    pub state: State,
    pub operations: u64,
}

/// Which rows a lease holder renews.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeasedRows {
    Operations,
    BulkRuns,
}

/// The answer to a claimed console request, written in the same transaction as the change it
/// asked for: a resend after a crash finds the answer instead of a claim left in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestAnswer {
    /// The idempotency key the request's form carried.
    pub key: String,
    pub requested_by: String,
    /// The answer as of the change; the request may replace it with a fuller one when it is done.
    pub answer: String,
}

/// What claiming a console request's idempotency key found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestClaim {
    /// The key is new and now held by this request: act, then record the answer.
    Claimed,
    /// The same request was carried out before: its answer.
    Answered(String),
    /// The same request is being acted on right now.
    InProgress,
    /// The key was used for another request.
    OtherRequest,
}

/// A bulk action to record, with the operations it will touch in order.
#[derive(Debug, Clone)]
pub struct NewBulkRun {
    pub tenant: TenantId,
    pub id: String,
    pub action: String,
    /// The operations list's filter it was started from, as its URL query.
    pub filter: String,
    pub requested_by: String,
    pub op_ids: Vec<OpId>,
    pub at: DateTime<Utc>,
}

/// A bulk action as stored, with each item's result once done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkRunRecord {
    pub id: String,
    pub action: String,
    pub filter: String,
    pub requested_by: String,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub items: Vec<BulkItemRecord>,
}

/// One operation of a bulk action: `outcome` is `None` until it has been done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkItemRecord {
    pub position: u32,
    pub op_id: String,
    pub outcome: Option<String>,
    pub message: Option<String>,
}

/// Which audit events to read: every filter is optional; events come by `seq`, newest first
/// (strictly before `before_seq`) or, with `oldest_first`, oldest first (strictly after
/// `after_seq`), as exports read them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    pub at_from: Option<DateTime<Utc>>,
    pub at_before: Option<DateTime<Utc>>,
    pub actor: Option<String>,
    /// Any of these actions (every action when empty).
    pub actions: Vec<String>,
    pub op_id: Option<String>,
    /// The operations of one subject (an order).
    pub subject: Option<String>,
    pub oldest_first: bool,
    pub before_seq: Option<u64>,
    pub after_seq: Option<u64>,
    pub limit: u32,
}

impl AuditQuery {
    /// Whether `record` is one this query asks for, by what the record itself says: its time,
    /// actor, action and operation. A record does not name its operation's order: a query for one
    /// matches no record read this way.
    pub fn matches(&self, record: &AuditRecord) -> bool {
        let entry = &record.entry;
        self.at_from.is_none_or(|from| entry.at >= from)
            && self.at_before.is_none_or(|before| entry.at < before)
            && self.actor.as_ref().is_none_or(|actor| &entry.actor == actor)
            && (self.actions.is_empty() || self.actions.contains(&entry.action))
            && self.op_id.as_ref().is_none_or(|op_id| entry.op_id.as_ref() == Some(op_id))
            && self.subject.is_none()
            && self.after_seq.is_none_or(|after| record.seq > after)
            && self.before_seq.is_none_or(|before| record.seq < before)
    }
}

/// What starts with a searched prefix (see [`super::Reads::starting_with`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrefixHits {
    pub subjects: Vec<String>,
    /// Op id, state and kind.
    pub operations: Vec<(OpId, State, String)>,
    /// External id and the operation it belongs to.
    pub external_ids: Vec<(String, OpId)>,
    pub people: Vec<String>,
}
