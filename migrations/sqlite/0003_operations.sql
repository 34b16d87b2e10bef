-- Operations: one row per business intent, the projection of its events. Times are UTC
-- microseconds since the Unix epoch.
create table operations (
    tenant text not null references tenants (id),
    op_id text not null,
    kind text not null,
    subject text not null,
    provider text not null,
    params text not null,
    fingerprint text not null,
    amount_minor integer,
    amount_currency text,
    state text not null,
    idempotency_key text not null,
    key_first_sent_at_us integer,
    key_retention_s integer not null,
    requested_by text not null,
    compensates text,
    approved_by text,
    approved_fingerprint text,
    approval_granted_at_us integer,
    approval_expires_at_us integer,
    open_attempt integer,
    last_attempt integer,
    last_failure text,
    cancel_requested integer not null,
    version integer not null,
    created_at_us integer not null,
    updated_at_us integer not null,
    primary key (tenant, op_id),
    foreign key (tenant, compensates) references operations (tenant, op_id)
) strict;
-- Keyset pagination: newest first, ties broken by op id, per filter the console offers.
create index operations_recent on operations (tenant, created_at_us desc, op_id desc);
create index operations_by_state on operations (tenant, state, created_at_us desc, op_id desc);
create index operations_by_kind on operations (tenant, kind, created_at_us desc, op_id desc);
create index operations_by_provider on operations (tenant, provider, created_at_us desc, op_id desc);
create index operations_by_subject on operations (tenant, subject, created_at_us desc, op_id desc);
