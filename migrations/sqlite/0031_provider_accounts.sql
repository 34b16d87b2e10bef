-- What a provider connection names besides its secret (Adyen's merchant account, PayPal's client
-- id), and how long its provider remembers an idempotency key when the operator says otherwise than
-- the provider's published window (Stripe 24 h, Adyen 31 days, PayPal 45 days).
alter table provider_connections add column account text;
alter table provider_connections add column key_retention_s integer;
-- The operation a provider's webhook names by its key (Adyen's merchantReference, PayPal's custom_id).
create index operations_by_key on operations (tenant, idempotency_key);
