-- The executor's retry budget and deadline, recorded with each attempt it makes.
alter table attempts add column send_budget integer;
alter table attempts add column deadline_at_us integer;
