-- Audit events: append-only, hash-chained per tenant (see src/domain/audit.rs).
create table audit_events (
    tenant text not null references tenants (id),
    seq integer not null,
    at_us integer not null,
    actor text not null,
    role text not null,
    action text not null,
    op_id text,
    from_state text,
    to_state text,
    reason text,
    evidence text not null,
    prev_hash text not null,
    hash text not null,
    primary key (tenant, seq)
) strict;
create index audit_events_by_operation on audit_events (tenant, op_id, seq);
