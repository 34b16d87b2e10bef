-- The audit chain is kept in monthly partitions by the time each record was made, so that a month
-- whose records are all archived leaves by being detached (concurrently, by the sweep) and dropped
-- rather than deleted row by row. The primary key takes the partition key in; seq stays unique per
-- tenant because the sealer gives it under the tenant's lock. There is no default partition (a
-- partition is detached concurrently only without one): the sealer makes the month of each record
-- it seals first, with audit_events_partition_for.
alter table audit_events rename to audit_events_unpartitioned;
alter index audit_events_pkey rename to audit_events_unpartitioned_pkey;
alter index audit_events_by_operation rename to audit_events_unpartitioned_by_operation;

create table audit_events (
    tenant text not null references tenants (id),
    seq bigint not null,
    at_us bigint not null,
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
    primary key (tenant, seq, at_us)
) partition by range (at_us);
create index audit_events_by_operation on audit_events (tenant, op_id, seq);

-- The partition of the month (UTC) that holds `at_us`, made if it is not there; its name,
-- audit_events_YYYYMM. Two sessions making the same month at once both go on.
create function audit_events_partition_for(at_us bigint) returns text language plpgsql as $$
declare
    month timestamp := date_trunc('month', to_timestamp(at_us / 1000000.0) at time zone 'UTC');
    name text := 'audit_events_' || to_char(month, 'YYYYMM');
begin
    if not exists (
        select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'audit_events'::regclass and c.relname = name
    ) then
        begin
            execute format(
                'create table %I partition of audit_events for values from (%s) to (%s)',
                name,
                (extract(epoch from month) * 1000000)::bigint,
                (extract(epoch from month + interval '1 month') * 1000000)::bigint
            );
        exception when duplicate_table or unique_violation then
            null;
        end;
    end if;
    return name;
end $$;

-- A partition for every month the chain has records in, this month and the next.
select audit_events_partition_for(month_us) from (
    select distinct (extract(epoch from date_trunc('month', to_timestamp(at_us / 1000000.0) at time zone 'UTC')) * 1000000)::bigint as month_us
    from audit_events_unpartitioned
    union select (extract(epoch from date_trunc('month', now() at time zone 'UTC')) * 1000000)::bigint
    union select (extract(epoch from date_trunc('month', now() at time zone 'UTC') + interval '1 month') * 1000000)::bigint
) months;

insert into audit_events select * from audit_events_unpartitioned;
drop table audit_events_unpartitioned;
