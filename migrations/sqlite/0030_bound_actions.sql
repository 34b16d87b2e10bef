-- What the server does when it sends an operation, bound when it is recorded from what its
-- provider's connector performs (refund, create_aftersale, …); none for a kind no connector
-- performs, which the server never sends, whatever it is called.
alter table operations add column action text;
update operations set action = kind
    where (provider = 'stripe' and kind = 'refund')
       or (provider = 'sandbox' and kind in ('create_aftersale', 'cancel_aftersale', 'schedule_pickup'))
       or exists (select 1 from provider_connections c where c.tenant = operations.tenant and c.name = operations.provider
                  and ((c.kind = 'stripe' and operations.kind = 'refund')
                    or (c.kind = 'services' and operations.kind in ('create_aftersale', 'cancel_aftersale', 'schedule_pickup'))));
