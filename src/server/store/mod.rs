//! The ledger's durable store: traits named by intent ([`Reads`], the read handle; [`Store`], the
//! writes only the ledger service makes; [`Sessions`]; [`sso::SsoStore`], [`notify::NotifyStore`], [`archive::ArchiveStore`],
//! [`desk::DeskStore`] and [`changes::ChangeNotices`]), with one backend per engine
//! (SQLite, the embedded default; PostgreSQL, for several instances), chosen by the scheme of the
//! database URL. All SQL lives below this module; each engine has its own migrations folder with
//! the same numbering and meaning.

pub mod archive;
pub mod changes;
pub mod desk;
pub mod gateway;
mod group_commit;
pub mod notify;
mod postgres;
mod query;
mod reads_sql;
pub mod records;
mod rows;
mod sessions_sql;
mod sql;
mod sqlite;
pub mod sso;
mod writes_sql;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

pub use postgres::{PostgresStore, TRUSTED_WHILE_IDLE};
pub use sqlite::SqliteStore;

/// The most audit entries one sealing transaction chains.
pub const SEAL_BATCH: u32 = 2_000;

use crate::domain::audit::{AuditEntry, AuditRecord};
use crate::domain::ids::{OpId, TenantId};
use crate::domain::language::Language;
use crate::domain::machine::State;
use crate::domain::operation::{AttemptRecord, CommittedOperation, OperationHistory, OperationRecord};
use crate::domain::people::PeopleRefusal;
use records::{
    ApiTokenListing, ApiTokenRecord, ApprovalRuleRecord, AuditQuery, BulkRunRecord, ConflictRecord,
    ConflictWithStored, DeliveryAttempt, EmailTemplateRecord, EventReceipt, LeasedRows, NewApiToken,
    NewBulkRun, NewConflict, NewOperation, NewProviderEvent, NewUser, OperationChange, OperationCount,
    OperationListItem, OperationQuery, PasswordResetRecord, PersonChange, PersonChangeDone, PrefixHits,
    ProviderConnectionRecord, Registered, RequestClaim, SessionOwner, TouchedToken, UserRecord,
    WebhookDeliveryRecord, WebhookEndpointRecord,
};

/// The database engine behind a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// A concurrent change won, or a unique rule was broken; the sentence says which.
    #[error("{0}")]
    Conflict(String),
    #[error("the database URL must start with sqlite:// or postgres://")]
    UnsupportedUrl,
    #[error("the database is unavailable")]
    Unavailable(#[source] sqlx::Error),
    #[error("the database migrations failed")]
    Migration(#[source] sqlx::migrate::MigrateError),
    #[error("stored data could not be read ({0})")]
    Corrupt(String),
    #[error("the database failed")]
    Other(#[source] sqlx::Error),
}

impl StoreError {
    /// Maps a unique-constraint violation to [`StoreError::Conflict`] with `message`.
    pub fn from_unique(error: sqlx::Error, message: &str) -> StoreError {
        match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(message.to_owned()),
            _ => StoreError::from(error),
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match error {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => StoreError::Unavailable(error),
            _ if connection_lost(&error) => StoreError::Unavailable(error),
            other => StoreError::Other(other),
        }
    }
}

/// Whether `error` says the connection it came from is gone: its socket or TLS failed, or
/// PostgreSQL ended the session (an operator's intervention, SQLSTATE class 57, or a connection
/// exception, class 08).
fn connection_lost(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(error) => error
            .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
            .is_some_and(|error| error.code().starts_with("57") || error.code().starts_with("08")),
        _ => false,
    }
}

/// Everything the store can answer without changing anything: the read handle that the console,
/// the ledger API, exports and start-up get from [`Ledger::reads`](crate::server::ledger::Ledger::reads).
#[async_trait]
pub trait Reads: Send + Sync {
    fn backend(&self) -> Backend;

    /// One round trip to the database.
    async fn check_health(&self) -> Result<(), StoreError>;

    /// The unrevoked token whose current secret, or the secret its last rotation replaced,
    /// hashes to `secret_hash` (whether it has expired, or the grace of a replaced secret is over,
    /// is for the caller to tell from the record).
    async fn find_api_token(&self, secret_hash: &str) -> Result<Option<ApiTokenRecord>, StoreError>;

    /// Every API token of the tenant, revoked ones too, by name.
    async fn api_tokens(&self, tenant: &TenantId) -> Result<Vec<ApiTokenListing>, StoreError>;

    async fn load_operation(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
    ) -> Result<Option<OperationRecord>, StoreError>;

    /// The operation of `tenant` sent under the idempotency key `key` (what a provider's webhook
    /// names it by: Adyen's merchantReference, PayPal's custom_id).
    async fn operation_by_key(
        &self,
        tenant: &TenantId,
        key: &str,
    ) -> Result<Option<OperationRecord>, StoreError>;

    /// An operation with its attempts, external references and audit trail.
    async fn operation_history(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
    ) -> Result<Option<OperationHistory>, StoreError>;

    /// The operations the list for `query` shows, in its order, as they stand: whole rows, without
    /// their external ids or histories.
    async fn matching_operations(
        &self,
        tenant: &TenantId,
        query: &OperationQuery,
    ) -> Result<Vec<OperationRecord>, StoreError>;

    /// The operations `op_ids` with their attempts, external references and audit trails, in the
    /// order asked (those not found left out), read together.
    async fn operation_histories(
        &self,
        tenant: &TenantId,
        op_ids: &[OpId],
    ) -> Result<Vec<OperationHistory>, StoreError>;

    /// Every operation of one subject (an order), oldest first.
    async fn subject_operations(
        &self,
        tenant: &TenantId,
        subject: &str,
    ) -> Result<Vec<OperationHistory>, StoreError>;

    /// The refused conflicting requests for one op id, oldest first.
    async fn conflicts_of(&self, tenant: &TenantId, op_id: &OpId) -> Result<Vec<ConflictRecord>, StoreError>;

    /// A tenant's sealed audit chain in order (see [`Store::seal_audit`] for the entries not yet in it).
    async fn audit_chain(&self, tenant: &TenantId) -> Result<Vec<AuditRecord>, StoreError>;

    /// The users who sign in as `name`: in `tenant` when it is given, else in any tenant (at most
    /// two, enough to tell a name that more than one tenant uses).
    async fn users_named(&self, name: &str, tenant: Option<&TenantId>)
        -> Result<Vec<UserRecord>, StoreError>;

    async fn tenant_users(&self, tenant: &TenantId) -> Result<Vec<UserRecord>, StoreError>;

    /// The unused password reset link stored under `secret_hash`, unless it expired by `now` or
    /// its user is no longer active.
    async fn password_reset(
        &self,
        secret_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<PasswordResetRecord>, StoreError>;

    /// Whether the tenant requires two-factor sign-in of its managers and admins (not when the
    /// tenant has no row yet).
    async fn two_factor_required(&self, tenant: &TenantId) -> Result<bool, StoreError>;

    /// How many of the user's recovery codes are still unused.
    async fn recovery_codes_left(&self, tenant: &TenantId, user_id: &str) -> Result<u64, StoreError>;

    /// The language the tenant's customers are told things in when a caller names none; `None`
    /// when its admin chose none (or the tenant has no row yet).
    async fn tenant_language(&self, tenant: &TenantId) -> Result<Option<Language>, StoreError>;

    /// One page of the operations list (see [`OperationQuery`]).
    async fn list_operations(
        &self,
        tenant: &TenantId,
        query: &OperationQuery,
    ) -> Result<Vec<OperationListItem>, StoreError>;

    /// How many of the tenant's operations are in each state (states with none are left out).
    async fn count_by_state(&self, tenant: &TenantId) -> Result<Vec<(State, u64)>, StoreError>;

    /// When the tenant's operations last changed.
    async fn latest_change(&self, tenant: &TenantId) -> Result<Option<DateTime<Utc>>, StoreError>;

    /// Operations created since `since`, counted per hour of creation and current state.
    async fn outcomes_per_hour(
        &self,
        tenant: &TenantId,
        since: DateTime<Utc>,
    ) -> Result<Vec<(DateTime<Utc>, State, u64)>, StoreError>;

    /// When each of up to `limit` operations in `state` last changed, the longest unchanged first:
    /// one column of one index range, for ages that need no more of the operation.
    async fn changed_at_in_state(
        &self,
        tenant: &TenantId,
        state: State,
        limit: u32,
    ) -> Result<Vec<DateTime<Utc>>, StoreError>;

    /// Up to `limit` operations in any of `states`, the longest unchanged first.
    async fn operations_in_states(
        &self,
        tenant: &TenantId,
        states: &[State],
        limit: u32,
    ) -> Result<Vec<OperationListItem>, StoreError>;

    /// How many operations settled since `since` (to the hour), per bucket of
    /// [`SETTLE_BOUNDS_S`](crate::domain::operation::SETTLE_BOUNDS_S) of the time they took from
    /// first becoming unknown: one count per bucket, in the bounds' order.
    async fn settle_times(&self, tenant: &TenantId, since: DateTime<Utc>) -> Result<Vec<u64>, StoreError>;

    /// The most recently changed subjects; when `attention_only`, only those whose kept tally
    /// says they need attention ([`OrderTally::needs_attention`](crate::domain::rollup::OrderTally::needs_attention)).
    async fn subjects(
        &self,
        tenant: &TenantId,
        attention_only: bool,
        limit: u32,
    ) -> Result<Vec<String>, StoreError>;

    /// The operations of the given subjects, oldest first, with their external ids.
    async fn subjects_operations(
        &self,
        tenant: &TenantId,
        subjects: &[String],
    ) -> Result<Vec<OperationListItem>, StoreError>;

    /// The most recent refused conflicting requests, each with the stored operation's parameters.
    async fn recent_conflicts(
        &self,
        tenant: &TenantId,
        limit: u32,
    ) -> Result<Vec<ConflictWithStored>, StoreError>;

    /// One page of the tenant's audit events (see [`AuditQuery`]).
    async fn list_audit(&self, tenant: &TenantId, query: &AuditQuery)
        -> Result<Vec<AuditRecord>, StoreError>;

    /// The same page as JSON Lines, each line what `serde_json` writes of the [`AuditRecord`]
    /// (every line ends with a newline), with the last event's seq; `None` when the page is
    /// empty. SQLite writes the lines itself, so that an export does not move every event
    /// through the driver one row at a time.
    async fn audit_json_lines(
        &self,
        tenant: &TenantId,
        query: &AuditQuery,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError>;

    /// The attempts of the given operations, in order, each with its op id.
    async fn attempts_of(
        &self,
        tenant: &TenantId,
        op_ids: &[OpId],
    ) -> Result<Vec<(OpId, AttemptRecord)>, StoreError>;

    /// The tenant's approval policy, oldest rule first.
    async fn approval_rules(&self, tenant: &TenantId) -> Result<Vec<ApprovalRuleRecord>, StoreError>;

    /// What in the tenant starts with `prefix`, at most `limit` of each kind, in order: operations
    /// by op id, external ids with their operation, console users, and the orders (subjects) that
    /// start with any of `subject_prefixes`. Each is a range of its own index (on PostgreSQL, a
    /// database with the `C` or `C.UTF-8` collation orders text as the range needs).
    async fn starting_with(
        &self,
        tenant: &TenantId,
        prefix: &str,
        subject_prefixes: &[&str],
        limit: u32,
    ) -> Result<PrefixHits, StoreError>;

    /// The kinds and the providers the tenant's operations have, each in order: the values the
    /// console's filters and the approval policy offer. Read by skipping from one value to the
    /// next in their indexes, one seek per value whatever the number of operations.
    async fn operation_kinds_and_providers(
        &self,
        tenant: &TenantId,
    ) -> Result<(Vec<String>, Vec<String>), StoreError>;

    /// The tenant's own provider connections, by name.
    async fn provider_connections(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<ProviderConnectionRecord>, StoreError>;

    /// The tenant's connection to the provider `name`, if it has one of its own.
    async fn provider_connection(
        &self,
        tenant: &TenantId,
        name: &str,
    ) -> Result<Option<ProviderConnectionRecord>, StoreError>;

    /// The tenant's customer email templates, by name.
    async fn email_templates(&self, tenant: &TenantId) -> Result<Vec<EmailTemplateRecord>, StoreError>;

    /// The tenant's email template `name`, if it has one.
    async fn email_template(
        &self,
        tenant: &TenantId,
        name: &str,
    ) -> Result<Option<EmailTemplateRecord>, StoreError>;

    /// Any one stored provider connection, of any tenant: start-up opens its secret to prove that
    /// the server's secret key is the one they were sealed with.
    async fn any_provider_connection(&self) -> Result<Option<ProviderConnectionRecord>, StoreError>;

    /// Up to `limit` approved operations, of any tenant, whose approval expired by `now`.
    async fn approvals_expired(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, OpId)>, StoreError>;

    /// The answer to `requested_by`'s console request with this key, once it has one.
    async fn request_answer(
        &self,
        tenant: &TenantId,
        key: &str,
        requested_by: &str,
    ) -> Result<Option<String>, StoreError>;

    async fn bulk_run(&self, tenant: &TenantId, id: &str) -> Result<Option<BulkRunRecord>, StoreError>;

    /// Every tenant, by id.
    async fn tenants(&self) -> Result<Vec<TenantId>, StoreError>;

    /// How many operations of each tenant, kind and provider are in each state that any of them
    /// has been in (0 for a state they all left), from the counts every change keeps: as cheap at
    /// millions of operations as at ten.
    async fn operation_counts(&self) -> Result<Vec<OperationCount>, StoreError>;

    /// The tenant's webhook endpoints, oldest first.
    async fn webhook_endpoints(&self, tenant: &TenantId) -> Result<Vec<WebhookEndpointRecord>, StoreError>;

    /// The `limit` latest deliveries to the tenant's endpoint `endpoint_id`, newest first.
    async fn webhook_deliveries(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        limit: u32,
    ) -> Result<Vec<WebhookDeliveryRecord>, StoreError>;

    /// One delivery of the tenant with the endpoint it goes to (none when it was removed).
    async fn webhook_delivery(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<(WebhookDeliveryRecord, Option<WebhookEndpointRecord>)>, StoreError>;

    /// How many deliveries, of every tenant, wait for their next attempt.
    async fn pending_webhook_deliveries(&self) -> Result<u64, StoreError>;
}

/// The writes. Only the ledger service holds a `Store` (start-up hands it over after migrating),
/// so every audited change passes through it.
#[async_trait]
pub trait Store:
    Reads
    + Sessions
    + sso::SsoStore
    + notify::NotifyStore
    + gateway::GatewayStore
    + archive::ArchiveStore
    + changes::ChangeNotices
    + desk::DeskStore
{
    /// Applies the migrations this build knows and the database has not seen.
    async fn migrate(&self) -> Result<(), StoreError>;

    /// Stores a new API token (creating its tenant if needed) and audits it.
    async fn create_api_token(&self, token: NewApiToken, audit: AuditEntry) -> Result<(), StoreError>;

    /// Revokes the tenant's token named `name`, with its audit entry; `NotFound` when there is no
    /// such unrevoked token.
    async fn revoke_api_token(
        &self,
        tenant: &TenantId,
        name: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Gives the tenant's active (unrevoked, unexpired at `audit.at`) token named `name` the new
    /// secret hashed as `secret_hash`; the secret it replaces is accepted until `previous_valid_until`
    /// (not at all when `None`), replacing any secret an earlier rotation kept. With its audit
    /// entry; `NotFound` when there is no such active token.
    async fn rotate_api_token(
        &self,
        tenant: &TenantId,
        name: &str,
        secret_hash: &str,
        previous_valid_until: Option<DateTime<Utc>>,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Records the last use of the token `id`: when and from which client address. Not audited;
    /// the ledger calls it at most once a minute per token.
    async fn record_token_use(&self, id: &str, at: DateTime<Utc>, address: &str) -> Result<(), StoreError>;

    /// Revokes every unrevoked token of the tenant created by its user `user_id`, at `audit.at`,
    /// with one audit entry per token: `audit` with the token's `token_id` and `name` added to its
    /// evidence (an object). Answers the tokens revoked (none is not an error).
    async fn revoke_api_tokens_created_by(
        &self,
        tenant: &TenantId,
        user_id: &str,
        audit: AuditEntry,
    ) -> Result<Vec<TouchedToken>, StoreError>;

    /// Makes the tenant's active user `to_user_id` the creator of every unrevoked token of the
    /// tenant created by its user `from_user_id`, with one audit entry per token as
    /// [`Store::revoke_api_tokens_created_by`] writes them; `NotFound` when the tenant has no
    /// active user `to_user_id`. Answers the tokens reassigned.
    async fn reassign_api_tokens(
        &self,
        tenant: &TenantId,
        from_user_id: &str,
        to_user_id: &str,
        audit: AuditEntry,
    ) -> Result<Vec<TouchedToken>, StoreError>;

    /// Records a new operation with its audit entry, or returns the one already recorded under its
    /// op id, untouched. Of any number of concurrent registrations of one op id, exactly one
    /// creates it.
    async fn register_operation(
        &self,
        new: NewOperation,
        audit: AuditEntry,
    ) -> Result<Registered, StoreError>;

    /// Keeps a refused conflicting request for review, with its audit entry.
    async fn record_conflict(&self, conflict: NewConflict, audit: AuditEntry) -> Result<(), StoreError>;

    /// Commits a decided change: the events, the new projection (operation, attempts, external
    /// references, approvals) and the audit entries, all or nothing, and returns the operation as
    /// committed with its attempts and external references: built from the change's
    /// `before_attempts_and_refs` when it has them and the write tells whether it recorded the
    /// change's external id, if any (it skips one an operation already holds), else read just after
    /// (a change committed since may show in them; the audit trail is not read again). Refused with
    /// [`StoreError::Conflict`] when the operation is no longer at the version it was read at.
    async fn apply_change(&self, change: OperationChange) -> Result<CommittedOperation, StoreError>;

    /// Claims up to `limit` operations that are `unknown` and unchanged since `settled_before`, or
    /// `submitted` and unchanged since then with every attempt's send deadline before it (a send
    /// that may still be in flight is not presumed abandoned), or `accepted`, unchanged since
    /// then and due for their next check (see [`Store::schedule_check`]), oldest first, and leases
    /// them until `lease_until` so that no other reconciler takes them meanwhile (`for update skip
    /// locked` on PostgreSQL).
    async fn lease_due_for_reconcile(
        &self,
        settled_before: DateTime<Utc>,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, OpId)>, StoreError>;

    /// Sets when the reconciler asks the provider about an accepted operation next (its place in
    /// its backoff), and gives up the claim on it. Not an audited change; its state is untouched.
    async fn schedule_check(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Claims, as [`Store::lease_due_for_reconcile`] does, up to `limit` operations the server
    /// should have sent and has not: `approved` ones, and `planned` ones the server sends itself,
    /// unchanged since `idle_before` (a crash, or a retry budget spent).
    async fn lease_due_for_dispatch(
        &self,
        idle_before: DateTime<Utc>,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, OpId)>, StoreError>;

    /// Adds the tenant `tenant` with its audit entry; `false`, changing nothing, when it exists.
    async fn add_tenant(&self, tenant: &TenantId, audit: AuditEntry) -> Result<bool, StoreError>;

    /// Stores a console user (creating its tenant if needed) with its audit entry; `Conflict`
    /// when the name is taken.
    async fn create_user(&self, user: NewUser, audit: AuditEntry) -> Result<(), StoreError>;

    /// Makes an admin's change to a person, with its audit entry, in one transaction that holds the
    /// tenant's lock, so that two admins changing each other at once cannot leave the tenant
    /// without an active admin. A deactivation, a new role and a sign-out everywhere delete the
    /// person's sessions; a deactivation also revokes the API tokens the person made, or hands
    /// them to `tokens_to` (each token audited); a password reset stores its link; a two-factor
    /// reset forgets the person's secret and recovery codes and deletes their sessions. Answers what
    /// it did, or why the change breaks a rule
    /// ([`check_change`](crate::domain::people::check_change)); `NotFound` when the tenant has no
    /// such user.
    async fn change_person(
        &self,
        change: PersonChange,
        audit: AuditEntry,
    ) -> Result<Result<PersonChangeDone, PeopleRefusal>, StoreError>;

    /// Uses the password reset link stored under `secret_hash`: sets the new password of its
    /// (active) user, ends their sessions and marks the link used, with the audit entry that
    /// `audit` makes of the user's record. `NotFound` when the link is unknown, used or expired.
    async fn use_password_reset(
        &self,
        secret_hash: &str,
        password_hash: &str,
        now: DateTime<Utc>,
        audit: &(dyn for<'u> Fn(&'u UserRecord) -> AuditEntry + Send + Sync),
    ) -> Result<UserRecord, StoreError>;

    /// Keeps `sealed_secret` as the TOTP secret the user is enrolling with (replacing one they did
    /// not confirm); `NotFound` when the tenant has no such user or their two-factor sign-in is on
    /// already.
    async fn start_two_factor(
        &self,
        tenant: &TenantId,
        user_id: &str,
        sealed_secret: &str,
    ) -> Result<(), StoreError>;

    /// Turns the user's two-factor sign-in on with the secret they are enrolling with, whose code
    /// of time step `step` they typed, and their new recovery codes (hashed), with its audit
    /// entry; `NotFound` when they have no enrolment under way.
    async fn confirm_two_factor(
        &self,
        tenant: &TenantId,
        user_id: &str,
        step: i64,
        recovery_hashes: &[String],
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Uses the TOTP time step `step` of the user: `false` when it, or a later one, was used
    /// already (a code works once), or their two-factor sign-in is off.
    async fn use_two_factor_step(
        &self,
        tenant: &TenantId,
        user_id: &str,
        step: i64,
    ) -> Result<bool, StoreError>;

    /// Uses the user's unused recovery code whose hash is `code_hash`, with its audit entry;
    /// `false` when there is none.
    async fn use_recovery_code(
        &self,
        tenant: &TenantId,
        user_id: &str,
        code_hash: &str,
        audit: AuditEntry,
    ) -> Result<bool, StoreError>;

    /// Turns the user's two-factor sign-in off (their secret and recovery codes are forgotten),
    /// with its audit entry; `NotFound` when it is not on.
    async fn turn_off_two_factor(
        &self,
        tenant: &TenantId,
        user_id: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Sets whether the tenant requires two-factor sign-in of its managers and admins, with its
    /// audit entry.
    async fn set_two_factor_required(
        &self,
        tenant: &TenantId,
        required: bool,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Notes that the tenant's user `user_id` signed in at `at`.
    async fn record_sign_in(
        &self,
        tenant: &TenantId,
        user_id: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Sets the console language of the tenant's user `user_id` (`None`: their browser's), with
    /// its audit entry; `NotFound` when the tenant has no such user.
    async fn set_user_language(
        &self,
        tenant: &TenantId,
        user_id: &str,
        language: Option<Language>,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Sets the language the tenant's customers are told things in, with its audit entry.
    async fn set_tenant_language(
        &self,
        tenant: &TenantId,
        language: Language,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Appends one audit entry to the tenant's chain (an action that changes no operation, such
    /// as an export) after sealing every entry committed before it; returns it in its place.
    async fn record_audit(&self, tenant: &TenantId, entry: AuditEntry) -> Result<AuditRecord, StoreError>;

    /// Seals the entries waiting for their place in the chain, of `tenant` or of every tenant, in
    /// the order they were recorded, in short transactions of at most [`SEAL_BATCH`] entries;
    /// answers how many it sealed. Entries committed while it runs may wait for the next call.
    async fn seal_audit(&self, tenant: Option<&TenantId>) -> Result<u64, StoreError>;

    /// Adds a rule to the tenant's approval policy, with its audit entry.
    async fn add_approval_rule(
        &self,
        tenant: &TenantId,
        rule: ApprovalRuleRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Creates or replaces the tenant's connection to the provider it names, with its audit entry
    /// (creating the tenant if needed).
    async fn set_provider_connection(
        &self,
        connection: ProviderConnectionRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Sets the sealed signing secret of the provider's webhooks to the tenant's connection
    /// `name`, with its audit entry; `NotFound` when it has no such connection.
    async fn set_provider_webhook_secret(
        &self,
        tenant: &TenantId,
        name: &str,
        sealed_secret: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Stores an event a provider posted, unless one with its id was stored for the connection
    /// before; says which.
    async fn receive_provider_event(&self, event: NewProviderEvent) -> Result<EventReceipt, StoreError>;

    /// Records what processing a stored event came to (and the operation it was about, if any):
    /// from then on it is processed.
    async fn finish_provider_event(
        &self,
        tenant: &TenantId,
        connection: &str,
        event_id: &str,
        outcome: &str,
        op_id: Option<&OpId>,
    ) -> Result<(), StoreError>;

    /// Creates or replaces one of the tenant's email templates, with its audit entry (creating the
    /// tenant if needed).
    async fn set_email_template(
        &self,
        template: EmailTemplateRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Removes the tenant's email template `name`, with its audit entry; `NotFound` when it has none.
    async fn remove_email_template(
        &self,
        tenant: &TenantId,
        name: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Removes the tenant's connection to the provider `name`, with its audit entry; `NotFound`
    /// when it has none.
    async fn remove_provider_connection(
        &self,
        tenant: &TenantId,
        name: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Removes a rule from the tenant's approval policy, with its audit entry; `NotFound` when
    /// the tenant has no rule with this id.
    async fn remove_approval_rule(
        &self,
        tenant: &TenantId,
        id: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Claims the idempotency key of a console request (`request` describes what it asks), or
    /// says what became of the request that claimed it first. A claim left unanswered for five
    /// minutes was abandoned (its server stopped) and is taken over.
    async fn claim_request(
        &self,
        tenant: &TenantId,
        key: &str,
        requested_by: &str,
        request: &str,
        at: DateTime<Utc>,
    ) -> Result<RequestClaim, StoreError>;

    /// Records the answer to a claimed console request, or, with `None`, forgets the claim (the
    /// request was refused and changed nothing, so the same form may be sent again).
    async fn answer_request(
        &self,
        tenant: &TenantId,
        key: &str,
        answer: Option<&str>,
    ) -> Result<(), StoreError>;

    /// Records a bulk action and its items, with its audit entry; `false` (and nothing changed)
    /// when a run with this id exists already.
    async fn create_bulk_run(&self, run: NewBulkRun, audit: AuditEntry) -> Result<bool, StoreError>;

    /// Records the result of one item of a bulk action, at `at` (the run's progress).
    async fn record_bulk_item(
        &self,
        tenant: &TenantId,
        run_id: &str,
        position: u32,
        outcome: &str,
        message: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Claims up to `limit` unfinished bulk runs that have recorded nothing since `idle_before`
    /// (the instance running them stopped), leasing them until `lease_until` so that one instance
    /// resumes each.
    async fn lease_stalled_bulk_runs(
        &self,
        idle_before: DateTime<Utc>,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, StoreError>;

    /// Extends to `lease_until` the leases, still running at `now`, on the operations
    /// (`LeasedRows::Operations`) or bulk runs this holder leased: its heartbeat while it works.
    /// A lease that ran out meanwhile is left to whoever takes it next.
    async fn renew_leases(
        &self,
        rows: LeasedRows,
        keys: &[(TenantId, String)],
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Stores a webhook endpoint of its tenant, with its audit entry.
    async fn add_webhook_endpoint(
        &self,
        endpoint: WebhookEndpointRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Removes the tenant's webhook endpoint `id` and its deliveries, with its audit entry;
    /// `NotFound` when there is no such endpoint.
    async fn remove_webhook_endpoint(
        &self,
        tenant: &TenantId,
        id: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Claims up to `limit` deliveries due by `now` whose stream (an operation or an order) has no
    /// earlier delivery to the same endpoint still pending, oldest first, leasing them until
    /// `lease_until` so that no other worker sends them meanwhile.
    async fn lease_due_webhook_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, StoreError>;

    /// Records what an attempt of the tenant's delivery `id` came to, and ends its lease, unless
    /// the lease is no longer the one the attempt was made under.
    async fn record_delivery_attempt(
        &self,
        tenant: &TenantId,
        id: &str,
        attempt: DeliveryAttempt,
    ) -> Result<(), StoreError>;

    /// Makes the tenant's delivery `id` pending again from `audit.at`, with a fresh count of
    /// attempts, with its audit entry; `NotFound` when there is no such delivery, `Conflict` when
    /// it is pending already.
    async fn resend_webhook_delivery(
        &self,
        tenant: &TenantId,
        id: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Marks a bulk action as done.
    async fn finish_bulk_run(&self, tenant: &TenantId, id: &str, at: DateTime<Utc>)
        -> Result<(), StoreError>;
}

/// The console's sessions: rows that change on every request and are not part of the ledger (no
/// audit), kept in the same database so that every instance shares them.
#[async_trait]
pub trait Sessions: Send + Sync {
    /// Stores a new session of `owner` (the signed-in user, if any); `false` when a session with
    /// this id hash exists already.
    async fn create_session(
        &self,
        id_hash: &str,
        data: &str,
        expires_at: DateTime<Utc>,
        owner: Option<&SessionOwner>,
    ) -> Result<bool, StoreError>;

    /// Creates or replaces a session.
    async fn save_session(
        &self,
        id_hash: &str,
        data: &str,
        expires_at: DateTime<Utc>,
        owner: Option<&SessionOwner>,
    ) -> Result<(), StoreError>;

    /// A session's data, unless it has expired by `now` or its user is no longer active.
    async fn load_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<Option<String>, StoreError>;

    /// Deletes every session of the tenant's user `user_id`, on every instance; returns how many.
    async fn end_sessions_of(&self, tenant: &TenantId, user_id: &str) -> Result<u64, StoreError>;

    async fn delete_session(&self, id_hash: &str) -> Result<(), StoreError>;

    /// Removes the sessions that expired by `now`; returns how many.
    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError>;
}

/// Opens the store that `url` names: `sqlite://FILE` or `postgres://…` (`postgresql://` too).
pub async fn connect(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::connect(url).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PostgresStore::connect(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl)
    }
}
