-- The console's language per user (null: the browser's Accept-Language decides) and a tenant's
-- language for what its customers are told when a tool's caller names none (null: English).
alter table users add column language text;
alter table tenants add column language text;
