-- Attempts: every send of an operation, with how it ended (outcome is null while open).
create table attempts (
    tenant text not null,
    op_id text not null,
    number integer not null,
    idempotency_key text not null,
    sent_by text not null,
    started_at_us integer not null,
    finished_at_us integer,
    outcome text,
    http_status integer,
    latency_ms integer,
    error text,
    retry_after_s integer,
    primary key (tenant, op_id, number),
    foreign key (tenant, op_id) references operations (tenant, op_id)
) strict;
