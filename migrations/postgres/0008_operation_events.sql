-- The domain events of each change to an operation (a JSON array), keyed by the version it produced.
create table operation_events (
    tenant text not null,
    op_id text not null,
    version bigint not null,
    events text not null,
    actor text not null,
    recorded_at_us bigint not null,
    primary key (tenant, op_id, version),
    foreign key (tenant, op_id) references operations (tenant, op_id)
);
