-- When a bulk run last recorded an item, and the lease of the instance resuming it: a run that has
-- made no progress for the settle window (its instance stopped) is taken over and finished.
alter table bulk_runs add column progressed_at_us bigint;
alter table bulk_runs add column lease_until_us bigint;
