-- People come and go. A user is active or deactivated (a deactivated user keeps their row, so
-- every audit entry stays theirs, and cannot sign in); comes from a local password or from the
-- tenant's identity provider (sso_subject: the provider's issuer and subject, which names them
-- there); and has a last sign-in. A session row names its user, so that deactivating someone or
-- signing them out everywhere deletes their sessions on every instance at once.
alter table users add column status text not null default 'active';
alter table users add column source text not null default 'local';
alter table users add column sso_subject text;
alter table users add column last_sign_in_at_us bigint;
create unique index users_by_sso_subject on users (tenant, sso_subject);

alter table sessions add column tenant text;
alter table sessions add column user_id text;
create index sessions_by_user on sessions (tenant, user_id);

-- One-time links to set a new password: stored under a hash of the link's secret, valid until
-- expires_at_us, used once.
create table password_resets (
    secret_hash text primary key not null,
    tenant text not null references tenants (id),
    user_id text not null references users (id),
    created_by text not null,
    created_at_us bigint not null,
    expires_at_us bigint not null,
    used_at_us bigint
);
create index password_resets_by_user on password_resets (tenant, user_id);
