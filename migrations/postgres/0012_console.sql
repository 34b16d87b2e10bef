-- People who sign in to the console: one role each, in one tenant. Names are unique across
-- tenants because the sign-in form asks for a name and a password only.
create table users (
    id text primary key,
    tenant text not null references tenants (id),
    name text not null unique,
    role text not null,
    password_hash text not null,
    created_at_us bigint not null
);
create index users_by_tenant on users (tenant, name);

-- Console sessions, shared by every instance on this database. The key is a hash of the id the
-- browser holds, so a copy of this table cannot be used to sign in.
create table sessions (
    id_hash text primary key,
    data text not null,
    expires_at_us bigint not null
);
create index sessions_by_expiry on sessions (expires_at_us);

-- Live updates: the newest change of a tenant's operations.
create index operations_changed on operations (tenant, updated_at_us);
