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
