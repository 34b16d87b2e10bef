-- Retention: each tenant may archive its closed operations some days after they closed. An archived
-- operation's history leaves the hot tables for a Parquet file in the tenant's archive; its key
-- stays here for ever, so that the same intent is still answered with its outcome and a conflicting
-- one is still refused.
create table retention_policies (
    tenant text primary key references tenants (id),
    days bigint not null,
    archive_url text not null,
    updated_by text not null,
    updated_at_us bigint not null
);

-- Every archive file: where it is, and its signed manifest once it is sealed. A file still
-- `writing` was left by a sweep that stopped; the next sweep removes it and writes its operations
-- again.
create table archives (
    tenant text not null references tenants (id),
    id text not null,
    location text not null,
    object_path text not null,
    status text not null,
    operations bigint not null,
    manifest text,
    created_at_us bigint not null,
    primary key (tenant, id)
);

-- The key of every archived operation, kept for ever, with what the console searches by.
create table archived_operations (
    tenant text not null,
    op_id text not null,
    kind text not null,
    subject text not null,
    provider text not null,
    fingerprint text not null,
    state text not null,
    created_at_us bigint not null,
    closed_at_us bigint not null,
    archive_id text not null,
    primary key (tenant, op_id),
    foreign key (tenant, archive_id) references archives (tenant, id)
);
create index archived_operations_by_subject on archived_operations (tenant, subject, closed_at_us desc);

-- The provider ids of what archived operations created, so that a search by one finds them.
create table archived_refs (
    tenant text not null,
    provider text not null,
    external_id text not null,
    op_id text not null,
    primary key (tenant, provider, external_id)
);
create index archived_refs_by_id on archived_refs (tenant, external_id);

-- Who sweeps a tenant now (a lease that other instances respect), and how far the last sweep got.
create table retention_sweeps (
    tenant text primary key references tenants (id),
    holder text,
    lease_until_us bigint,
    started_at_us bigint,
    finished_at_us bigint,
    archived bigint not null,
    last_error text
);

-- A conflicting request for an archived operation is still kept for review: conflicts no longer
-- need their operation in the hot table.
alter table conflicts drop constraint conflicts_tenant_op_id_fkey;
create index conflicts_by_operation on conflicts (tenant, op_id);

-- The sweep reads closed operations by the time they closed, and skips one a hot operation still
-- compensates.
create index operations_closed on operations (tenant, updated_at_us)
    where state in ('succeeded', 'rejected', 'denied', 'cancelled');
create index operations_compensating on operations (tenant, compensates) where compensates is not null;
