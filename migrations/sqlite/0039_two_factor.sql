-- Two-factor sign-in for local passwords. A user's TOTP secret is sealed under the server's key
-- (bound to the tenant and the user): two_factor_pending while they enrol, two_factor_secret once
-- they confirmed a first code; two_factor_step is the last time step whose code was used, so a
-- code works once. Ten single-use recovery codes per user, stored as hashes. A tenant may require
-- two-factor sign-in of its managers and admins.
alter table users add column two_factor_pending text;
alter table users add column two_factor_secret text;
alter table users add column two_factor_step integer;

create table recovery_codes (
    tenant text not null references tenants (id),
    user_id text not null references users (id),
    code_hash text not null,
    used_at_us integer,
    primary key (tenant, user_id, code_hash)
) strict;

alter table tenants add column two_factor_required integer not null default 0;
