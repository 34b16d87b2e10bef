-- A sealed archive file that a read found not as it was signed (gone, changed, its manifest gone
-- or changed, another tenant's): why, and since when. Cleared when a read finds it as signed again.
alter table archives add column distrust text;
alter table archives add column distrusted_at_us bigint;
