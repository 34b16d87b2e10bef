-- A change's domain events are recorded once, in the evidence of its audit entry, which the hash
-- chain seals and exports carry; the copy each change also wrote here was never read.
drop table operation_events;
