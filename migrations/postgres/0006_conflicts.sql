-- Refused conflicting requests: the same op id with other parameters, kept for review.
create table conflicts (
    id bigint generated always as identity primary key,
    tenant text not null,
    op_id text not null,
    requested_params text not null,
    requested_fingerprint text not null,
    stored_fingerprint text not null,
    diff text not null,
    requested_by text not null,
    received_at_us bigint not null,
    foreign key (tenant, op_id) references operations (tenant, op_id)
);
create index conflicts_recent on conflicts (tenant, received_at_us desc, id desc);
