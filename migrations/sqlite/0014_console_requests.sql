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
