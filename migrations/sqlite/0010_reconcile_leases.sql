-- Reconciler leases: an operation claimed by one reconciler is skipped by the others until then.
alter table operations add column lease_until_us integer;
