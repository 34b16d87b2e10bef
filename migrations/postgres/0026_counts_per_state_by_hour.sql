-- The counts per state join the counts per hour of creation as their rows of hour -1 (every hour
-- together), so that a change moves an operation between both with one statement.
insert into hourly_outcomes (tenant, hour_us, state, stripe, operations)
    select tenant, -1, state, stripe, operations from state_counts;
drop table state_counts;
