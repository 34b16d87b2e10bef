-- Attempts: every send of an operation, with how it ended (outcome is null while open).
create table attempts (
    tenant text not null,
    op_id text not null,
    number bigint not null,
    idempotency_key text not null,
    sent_by text not null,
    started_at_us bigint not null,
    finished_at_us bigint,
    outcome text,
    http_status bigint,
    latency_ms bigint,
    error text,
    retry_after_s bigint,
    primary key (tenant, op_id, number),
    foreign key (tenant, op_id) references operations (tenant, op_id)
);
