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
    amount_minor bigint,
    amount_currency text,
    state text not null,
    idempotency_key text not null,
    key_first_sent_at_us bigint,
    key_retention_s bigint not null,
    requested_by text not null,
    compensates text,
    approved_by text,
    approved_fingerprint text,
    approval_granted_at_us bigint,
    approval_expires_at_us bigint,
    open_attempt bigint,
    last_attempt bigint,
    last_failure text,
    cancel_requested boolean not null,
    version bigint not null,
    created_at_us bigint not null,
    updated_at_us bigint not null,
    primary key (tenant, op_id),
    foreign key (tenant, compensates) references operations (tenant, op_id)
);
-- Keyset pagination: newest first, ties broken by op id, per filter the console offers.
create index operations_recent on operations (tenant, created_at_us desc, op_id desc);
create index operations_by_state on operations (tenant, state, created_at_us desc, op_id desc);
create index operations_by_kind on operations (tenant, kind, created_at_us desc, op_id desc);
create index operations_by_provider on operations (tenant, provider, created_at_us desc, op_id desc);
create index operations_by_subject on operations (tenant, subject, created_at_us desc, op_id desc);
