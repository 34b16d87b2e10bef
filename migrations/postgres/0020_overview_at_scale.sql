-- How many of each tenant's operations are in each state, kept in the transaction of every change,
-- so that the overview's counts cost the same at millions of operations as at thousands.
create table state_counts (
    tenant text not null,
    state text not null,
    operations bigint not null,
    primary key (tenant, state)
);
insert into state_counts (tenant, state, operations)
    select tenant, state, count(*) from operations group by tenant, state;

-- The overview's chart of settling times reads a week of audit events by time, not the whole chain.
create index audit_events_by_time on audit_events (tenant, at_us);
