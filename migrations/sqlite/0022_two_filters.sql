-- The operations list with two of its filters at once (state and kind, state and provider, kind and
-- provider) reads one index range in the list's order, however rare the pair: no scan of all the
-- rows one filter matches to find the few the other keeps. The subject's own index already narrows
-- to one order's few operations.
create index operations_by_state_kind on operations (tenant, state, kind, created_at_us desc, op_id desc);
create index operations_by_state_provider on operations (tenant, state, provider, created_at_us desc, op_id desc);
create index operations_by_kind_provider on operations (tenant, kind, provider, created_at_us desc, op_id desc);
