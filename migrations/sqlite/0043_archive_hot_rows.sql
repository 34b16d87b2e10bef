-- A sealed archive file is marked once its operations' hot rows are deleted: a sweep deletes by
-- file, and looks for rows a stopped sweep left behind in the files not marked only (those sealed
-- before this mark existed are looked at once).
alter table archives add column hot_rows_removed_at_us integer;
create index archived_operations_by_archive on archived_operations (tenant, archive_id);
