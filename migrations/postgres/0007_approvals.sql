-- Approval decisions, each bound to the fingerprint it was given for.
create table approvals (
    id bigint generated always as identity primary key,
    tenant text not null,
    op_id text not null,
    decision text not null,
    decided_by text not null,
    fingerprint text not null,
    reason text not null,
    decided_at_us bigint not null,
    expires_at_us bigint,
    foreign key (tenant, op_id) references operations (tenant, op_id)
);
create index approvals_by_operation on approvals (tenant, op_id);
