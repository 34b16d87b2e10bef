-- A user name is unique within its tenant, not across tenants: an admin learns nothing of the
-- names other tenants use. Sign-in names the tenant when a name is used in more than one.
-- SQLite keeps a column's unique constraint in the table, so the table is made again.
create table users_per_tenant (
    id text primary key,
    tenant text not null references tenants (id),
    name text not null,
    role text not null,
    password_hash text not null,
    created_at_us integer not null
) strict;
insert into users_per_tenant (id, tenant, name, role, password_hash, created_at_us)
    select id, tenant, name, role, password_hash, created_at_us from users;
drop table users;
alter table users_per_tenant rename to users;
create unique index users_by_tenant on users (tenant, name);
create index users_by_name on users (name);
