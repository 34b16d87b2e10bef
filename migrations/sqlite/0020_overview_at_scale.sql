-- How many of each tenant's operations are in each state, kept in the transaction of every change,
-- so that the overview's counts cost the same at millions of operations as at thousands.
create table state_counts (
    tenant text not null,
    state text not null,
    operations integer not null,
    primary key (tenant, state)
) strict;
insert into state_counts (tenant, state, operations)
    select tenant, state, count(*) from operations group by tenant, state;

-- The overview's chart of settling times reads a week of audit events by time, not the whole chain.
create index audit_events_by_time on audit_events (tenant, at_us);

-- Each order's (subject's) latest change and how many of its operations have not succeeded, kept in
-- the transaction of every change: the orders pages list the recently changed ones from here instead
-- of grouping all of a tenant's operations.
create table subject_activity (
    tenant text not null,
    subject text not null,
    changed_at_us integer not null,
    unsettled integer not null,
    primary key (tenant, subject)
) strict;
insert into subject_activity (tenant, subject, changed_at_us, unsettled)
    select tenant, subject, max(updated_at_us), sum(case when state <> 'succeeded' then 1 else 0 end)
    from operations group by tenant, subject;
create index subject_activity_changed on subject_activity (tenant, changed_at_us);
create index subject_activity_unsettled on subject_activity (tenant, changed_at_us) where unsettled > 0;
