-- A tenant's own provider accounts: for each provider name the operations use (`stripe`,
-- `sandbox`, ...), the kind of API, its base URL and its secret. The secret is sealed with
-- XChaCha20-Poly1305 under the server's OPLEDGER_SECRET_KEY (nonce and ciphertext, hex); only its
-- last four characters are kept in clear, to show which one is set.
create table provider_connections (
    tenant text not null references tenants (id),
    name text not null,
    kind text not null,
    base_url text not null,
    sealed_secret text not null,
    secret_last4 text not null,
    updated_by text not null,
    updated_at_us bigint not null,
    primary key (tenant, name)
);
