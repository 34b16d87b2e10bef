-- Audit entries are recorded here in the transaction of each change, without touching the chain;
-- the sealer moves them into `audit_events` in batches, giving each its sequence number and chain
-- hash under the tenant's lock. A change of one tenant no longer waits for another's commit.
create table audit_pending (
    id bigserial primary key,
    tenant text not null references tenants (id),
    at_us bigint not null,
    actor text not null,
    role text not null,
    action text not null,
    op_id text,
    from_state text,
    to_state text,
    reason text,
    evidence text not null
);
create index audit_pending_by_tenant on audit_pending (tenant, id);
create index audit_pending_by_operation on audit_pending (tenant, op_id, id);

-- The counts per state are kept in 16 rows per state (the stripe is taken from the operation's id),
-- so that concurrent changes of one tenant rarely wait for each other's count; readers add them up.
alter table state_counts add column stripe smallint not null default 0;
alter table state_counts drop constraint state_counts_pkey;
alter table state_counts add primary key (tenant, state, stripe);
