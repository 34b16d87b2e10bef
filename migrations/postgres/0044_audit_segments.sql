-- The audit chain's own archive. An archive file holds either closed operations or a segment of a
-- tenant's audit chain: every record from first_seq to last_seq, in order. Segments follow one
-- another from seq 1 with no gap, each sealed once; a record about an operation still hot stays in
-- audit_events beside its segment until that operation leaves.
alter table archives add column holds text not null default 'operations';
alter table archives add column first_seq bigint;
alter table archives add column last_seq bigint;
create unique index archives_audit_segments on archives (tenant, first_seq)
    where holds = 'audit' and status = 'sealed';
