-- API tokens: tenant-scoped, named, stored only as the SHA-256 of the secret, revocable.
create table api_tokens (
    id text primary key not null,
    tenant text not null references tenants (id),
    name text not null,
    secret_hash text not null unique,
    created_at_us integer not null,
    revoked_at_us integer,
    unique (tenant, name)
) strict;
