-- A user name is unique within its tenant, not across tenants: an admin learns nothing of the
-- names other tenants use. Sign-in names the tenant when a name is used in more than one.
alter table users drop constraint users_name_key;
drop index users_by_tenant;
create unique index users_by_tenant on users (tenant, name);
create index users_by_name on users (name);
