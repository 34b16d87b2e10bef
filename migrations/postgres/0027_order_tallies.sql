-- Each order's tally (how many of its operations are uncertain, not sent yet, failed or succeeded
-- originals, and succeeded cancellations), kept in the transaction of every change like its latest
-- change: the orders in partial success or pending confirmation are one index range, however many
-- orders have an operation that did not succeed. It replaces the count of operations not succeeded.
alter table subject_activity add column uncertain bigint not null default 0;
alter table subject_activity add column unsent bigint not null default 0;
alter table subject_activity add column failed_originals bigint not null default 0;
alter table subject_activity add column succeeded_originals bigint not null default 0;
alter table subject_activity add column undone bigint not null default 0;
update subject_activity
set uncertain = tally.uncertain, unsent = tally.unsent, failed_originals = tally.failed_originals,
    succeeded_originals = tally.succeeded_originals, undone = tally.undone
from (
    select tenant, subject,
        sum(case when state in ('submitted', 'unknown', 'needs_review') then 1 else 0 end) as uncertain,
        sum(case when state in ('planned', 'pending_approval', 'approved') then 1 else 0 end) as unsent,
        sum(case when compensates is null and state in ('rejected', 'denied', 'cancelled') then 1 else 0 end)
            as failed_originals,
        sum(case when compensates is null and state = 'succeeded' then 1 else 0 end) as succeeded_originals,
        sum(case when compensates is not null and substr(kind, 1, 7) = 'cancel_' and state = 'succeeded'
            then 1 else 0 end) as undone
    from operations group by tenant, subject
) as tally
where subject_activity.tenant = tally.tenant and subject_activity.subject = tally.subject;
drop index subject_activity_unsettled;
alter table subject_activity drop column unsettled;
-- Both in the order the orders are listed in (the latest change first, ties by name from the last),
-- so that no read sorts.
drop index subject_activity_changed;
create index subject_activity_changed on subject_activity (tenant, changed_at_us, subject);
create index subject_activity_attention on subject_activity (tenant, changed_at_us, subject)
    where uncertain > 0 or (unsent = 0 and failed_originals > 0 and succeeded_originals > undone);
