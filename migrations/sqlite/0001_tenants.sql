-- Tenants: the scope of every operation id, token, user and audit chain.
create table tenants (
    id text primary key not null,
    name text not null,
    created_at_us integer not null
) strict;
