-- Approval policy: which operations need a manager. A rule matches a kind (at one provider, or
-- any when provider is null) and amounts from its threshold up, in the threshold's currency; a
-- rule without a threshold matches every amount.
create table approval_rules (
    id text primary key,
    tenant text not null references tenants (id),
    kind text not null,
    provider text,
    threshold_minor integer,
    threshold_currency text,
    created_by text not null,
    created_at_us integer not null
) strict;
create index approval_rules_by_tenant on approval_rules (tenant, kind);

-- The reconciler sends expired approvals back to the queue: approved operations by expiry.
create index operations_by_approval_expiry on operations (state, approval_expires_at_us);
