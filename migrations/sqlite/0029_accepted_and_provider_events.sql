-- Accepted operations: the provider has them and says their result is still pending. When one
-- was first accepted, when the reconciler asks the provider about it next (a backoff), and the
-- provider's own words when one fails there after accepting it (Stripe's failure_reason).
alter table operations add column accepted_at_us integer;
alter table operations add column next_check_at_us integer;
alter table operations add column failure_reason text;
-- A refund made again on purpose after the first failed at the provider: the failed operation it
-- repeats, under an op id of its own.
alter table operations add column retry_of text;
create index operations_retries on operations (tenant, retry_of) where retry_of is not null;
-- A provider connection's webhook signing secret, sealed like its API secret.
alter table provider_connections add column sealed_webhook_secret text;
-- Every event a provider posted to a tenant's connection, stored before it is processed, once per
-- event id: a replayed event changes nothing, and one about nothing known is kept for the audit.
create table provider_events (
    tenant text not null references tenants (id),
    connection text not null,
    event_id text not null,
    event_type text not null,
    object_id text,
    payload text not null,
    received_at_us integer not null,
    outcome text,
    op_id text,
    primary key (tenant, connection, event_id)
) strict;
