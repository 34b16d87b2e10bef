-- The overview's two charts, kept in the transaction of every change like the counts per state, so
-- that they cost the same at millions of operations as at thousands.

-- When an operation first became unknown: a change that settles it records how long that took.
alter table operations add column unknown_since_us integer;
update operations set unknown_since_us = (
    select min(a.at_us) from audit_events a
    where a.tenant = operations.tenant and a.op_id = operations.op_id and a.to_state = 'unknown'
) where state in ('submitted', 'unknown', 'needs_review');

-- Operations per hour of creation and current state (the "last 24 hours" chart), each spread over
-- 16 rows like the counts per state.
create table hourly_outcomes (
    tenant text not null,
    hour_us integer not null,
    state text not null,
    stripe integer not null,
    operations integer not null,
    primary key (tenant, hour_us, state, stripe)
) strict;
insert into hourly_outcomes (tenant, hour_us, state, stripe, operations)
    select tenant, created_at_us / 3600000000 * 3600000000, state, 0, count(*)
    from operations group by 1, 2, 3;

-- Operations settled per hour, by how long they were unknown first (the bounds of
-- domain::operation::SETTLE_BOUNDS_S: under 1 min, 5 min, 30 min, 2 h, longer).
create table settle_times (
    tenant text not null,
    hour_us integer not null,
    bucket integer not null,
    stripe integer not null,
    operations integer not null,
    primary key (tenant, hour_us, bucket, stripe)
) strict;
insert into settle_times (tenant, hour_us, bucket, stripe, operations)
    select tenant, settled_us / 3600000000 * 3600000000,
        case when took_us < 60000000 then 0 when took_us < 300000000 then 1
             when took_us < 1800000000 then 2 when took_us < 7200000000 then 3 else 4 end,
        0, count(*)
    from (
        select s.tenant, s.at_us as settled_us, s.at_us - (
            select min(u.at_us) from audit_events u
            where u.tenant = s.tenant and u.op_id = s.op_id and u.to_state = 'unknown' and u.seq < s.seq
        ) as took_us
        from audit_events s
        where s.to_state in ('succeeded', 'rejected', 'denied', 'cancelled')
          and s.from_state is not null and s.from_state <> s.to_state
    ) settled
    where took_us is not null
    group by 1, 2, 3;

-- The settling chart read audit events by time; it reads settle_times now, and nothing else does.
drop index audit_events_by_time;
