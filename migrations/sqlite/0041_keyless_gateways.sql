-- Gateways without an idempotency key (ECPay, LINE Pay). gateway_payments keeps the ids a
-- payment's refunds are looked up with (ECPay's TradeNo and gwsr), saved when the payment became
-- known: from the gateway's signed payment notification or entered by the shop. send_baselines
-- keeps, per operation, the payment's refunds as listed just before its latest send, written
-- before the request leaves, so that a lookup after a lost answer tells this refund from an older
-- one of the same amount.
create table gateway_payments (
    tenant text not null references tenants (id),
    connection text not null,
    payment text not null,
    facts text not null,
    source text not null,
    recorded_by text not null,
    recorded_at_us integer not null,
    primary key (tenant, connection, payment)
) strict;

create table send_baselines (
    tenant text not null references tenants (id),
    op_id text not null,
    attempt integer not null,
    taken_at_us integer not null,
    refunds text not null,
    primary key (tenant, op_id)
) strict;
