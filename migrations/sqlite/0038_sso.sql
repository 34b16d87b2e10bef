-- Sign-in through a tenant's identity provider (OpenID Connect). One row per tenant: the issuer,
-- the client registered there (its secret sealed under the server's key, like provider secrets),
-- the words of the button, the claim that carries groups, which group gives which role, the e-mail
-- domains allowed, and whether local passwords are off but for one named break-glass admin.
create table tenant_sso (
    tenant text primary key not null references tenants (id),
    issuer text not null,
    client_id text not null,
    sealed_client_secret text not null,
    secret_last4 text not null,
    display_name text not null,
    groups_claim text not null,
    -- JSON: [{"group": "refund-managers", "role": "manager"}, ...]
    group_roles text not null,
    -- JSON: ["acme.example", ...]; empty allows every domain the provider vouches for
    allowed_domains text not null,
    sso_only integer not null default 0,
    break_glass_user text,
    updated_by text not null,
    updated_at_us integer not null
) strict;

-- What a person types on the sign-in page (their e-mail's domain) to find their tenant: a domain
-- belongs to one tenant only.
create table sso_domains (
    domain text primary key not null,
    tenant text not null references tenants (id)
) strict;
create index sso_domains_by_tenant on sso_domains (tenant);

-- Sign-ins on their way through a provider: found by a hash of the id in the browser's short-lived
-- cookie, used once, with the state, nonce and PKCE verifier kept here rather than in the browser.
create table sso_flows (
    id_hash text primary key not null,
    tenant text not null references tenants (id),
    state text not null,
    nonce text not null,
    pkce_verifier text not null,
    next text not null,
    expires_at_us integer not null
) strict;
create index sso_flows_by_expiry on sso_flows (expires_at_us);
