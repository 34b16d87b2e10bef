-- Audit entries are recorded here in the transaction of each change, without touching the chain;
-- the sealer moves them into `audit_events` in batches, giving each its sequence number and chain
-- hash. A change no longer reads the chain's head.
create table audit_pending (
    id integer primary key autoincrement,
    tenant text not null references tenants (id),
    at_us integer not null,
    actor text not null,
    role text not null,
    action text not null,
    op_id text,
    from_state text,
    to_state text,
    reason text,
    evidence text not null
) strict;
create index audit_pending_by_tenant on audit_pending (tenant, id);
create index audit_pending_by_operation on audit_pending (tenant, op_id, id);

-- The counts per state are kept in 16 rows per state (the stripe is taken from the operation's id),
-- as on PostgreSQL; readers add them up.
create table state_counts_striped (
    tenant text not null,
    state text not null,
    stripe integer not null,
    operations integer not null,
    primary key (tenant, state, stripe)
) strict;
insert into state_counts_striped (tenant, state, stripe, operations)
    select tenant, state, 0, operations from state_counts;
drop table state_counts;
alter table state_counts_striped rename to state_counts;
