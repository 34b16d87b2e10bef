-- Operations counted per kind, provider and state, kept in the transaction of every change like
-- the counts per state (and spread over 16 rows the same way): the metrics read them, never the
-- operations themselves.
create table operation_counts (
    tenant text not null,
    kind text not null,
    provider text not null,
    state text not null,
    stripe smallint not null,
    operations bigint not null,
    primary key (tenant, kind, provider, state, stripe)
);
insert into operation_counts (tenant, kind, provider, state, stripe, operations)
    select tenant, kind, provider, state, 0, count(*) from operations group by tenant, kind, provider, state;

-- A tenant's webhook endpoints: where its events are sent, which event types it wants (a list
-- with a comma before and after every type, or ",*," for all), and its signing secret, sealed
-- under the server's key like a provider's.
create table webhook_endpoints (
    tenant text not null,
    id text not null,
    url text not null,
    event_types text not null,
    sealed_secret text not null,
    created_by text not null,
    created_at_us bigint not null,
    primary key (tenant, id)
);

-- The outbox: one row per event and endpoint, written in the transaction of the change that caused
-- the event, then delivered (and retried) by a leased worker, in order per stream (an operation,
-- or an order) and endpoint.
create table webhook_deliveries (
    tenant text not null,
    id text not null,
    endpoint_id text not null,
    message_id text not null,
    event_type text not null,
    stream text not null,
    position bigint not null,
    payload text not null,
    created_at_us bigint not null,
    status text not null default 'pending',
    attempts integer not null default 0,
    next_attempt_at_us bigint not null,
    last_attempt_at_us bigint,
    last_status integer,
    last_error text,
    lease_until_us bigint,
    primary key (tenant, id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at_us) where status = 'pending';
create index webhook_deliveries_stream on webhook_deliveries (tenant, endpoint_id, stream, position)
    where status = 'pending';
create index webhook_deliveries_recent on webhook_deliveries (tenant, endpoint_id, created_at_us);
