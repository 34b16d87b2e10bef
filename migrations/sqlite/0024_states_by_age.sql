-- The overview and the queues read the operations of a few states, the longest unchanged first:
-- one index range per state, whatever the number of the tenant's operations in other states.
create index operations_by_state_changed on operations (tenant, state, updated_at_us);
