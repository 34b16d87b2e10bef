-- Approval policy: which operations need a manager. A rule matches a kind (at one provider, or
-- any when provider is null) and amounts from its threshold up, in the threshold's currency; a
-- rule without a threshold matches every amount.
create table approval_rules (
    id text primary key,
    tenant text not null references tenants (id),
    kind text not null,
    provider text,
    threshold_minor integer,
    threshold_currency text,
    created_by text not null,
    created_at_us integer not null
) strict;
create index approval_rules_by_tenant on approval_rules (tenant, kind);

-- The console's own requests, by the idempotency key their form carried: a resent form gets the
-- first answer back instead of acting twice. Only requests that did something keep their answer.
create table console_requests (
    tenant text not null references tenants (id),
    request_key text not null,
    requested_by text not null,
    request text not null,
    answered integer not null,
    response text,
    created_at_us integer not null,
    primary key (tenant, request_key)
) strict;

-- Bulk actions over a filter of the operations list: the run (keyed by its form's idempotency
-- key) and one row per operation it touches, with that item's result once done.
create table bulk_runs (
    tenant text not null references tenants (id),
    id text not null,
    action text not null,
    filter text not null,
    requested_by text not null,
    created_at_us integer not null,
    finished_at_us integer,
    primary key (tenant, id)
) strict;

create table bulk_items (
    tenant text not null,
    run_id text not null,
    position integer not null,
    op_id text not null,
    outcome text,
    message text,
    primary key (tenant, run_id, position),
    foreign key (tenant, run_id) references bulk_runs (tenant, id)
) strict;
