admin-tab-retention = Retention
admin-retention-heading = Retention and the archive
admin-retention-intro = Closed operations (succeeded, rejected, denied, cancelled) leave the hot tables some days after they closed, for Parquet files with signed manifests in the tenant's archive. Their op ids stay: the same intent sent again is still answered with its outcome, and other parameters are still refused. Open operations are never archived.
admin-retention-current = Closed operations are archived { $days ->
    [one] { $days } day
   *[other] { $days } days
} after they closed, to { $archive }. Set by { $name } { $time }.
admin-retention-empty = Every operation stays in the hot tables. Set a number of days and an archive below to archive closed operations.
admin-retention-days = Days after closing
admin-retention-archive = Archive
admin-retention-archive-help = An absolute folder on the server (file:///var/lib/opledger/archive) or an S3-compatible bucket (s3://bucket/prefix, with ?endpoint=https://… for a store other than AWS); a bucket's credentials come from the server's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
admin-retention-save = Save retention
admin-retention-saved = Closed operations will be archived { $days ->
    [one] { $days } day
   *[other] { $days } days
} after they closed, to { $archive }.
admin-retention-bad-days = Days after closing: a whole number from 1 to 36500, so that a closed operation stays hot at least a day.
admin-retention-bad-archive = Archive: { $problem }
admin-retention-none-set = This tenant has no retention yet; save one first.
admin-retention-need-key = The archive's manifests are signed with a key derived from the server's OPLEDGER_SECRET_KEY, which is not set.
admin-retention-need-key-form = The archive's manifests are signed with a key derived from the server's: start it with { $variable } set (for example from { $command }) to archive.
admin-retention-busy = A sweep of this tenant is running already; its progress shows here.
admin-retention-unreachable = The archive could not be reached, so nothing was archived or deleted: { $problem }
admin-retention-sweep-now = Sweep now
admin-retention-sweep-started = Sweeping: reload this page to see how many operations are archived so far.
admin-retention-sweep-running = A sweep is running: { $archived ->
    [one] { $archived } operation
   *[other] { $archived } operations
} archived so far.
admin-retention-sweep-ended = The last sweep archived { $archived ->
    [one] { $archived } operation
   *[other] { $archived } operations
} and ended { $time }.
admin-retention-sweep-never = No sweep has ended yet.
admin-retention-sweep-stopped = It stopped before the end, and will go on at the next sweep: { $problem }
admin-retention-remove = Stop archiving
admin-retention-remove-consequence = Nothing more will be archived. What was archived stays in the archive, and its op ids are still answered.
admin-retention-remove-unconfirmed = Confirm that archiving stops.
admin-retention-removed = Archiving stopped; what was archived stays archived.
admin-retention-key = Manifests are signed with the key { $key }; auditors check a copy of the archive with { $command }.
admin-retention-files = Archive files
admin-retention-files-empty = No archive file yet.
admin-retention-file = File
admin-retention-file-operations = Contents
admin-retention-file-holds-operations = { $count ->
    [one] 1 operation
   *[other] { $count } operations
}
admin-retention-file-audit = Audit records { $first }–{ $last }
admin-retention-file-closed = Closed
admin-retention-file-state = State
admin-retention-file-sha = SHA-256
admin-retention-file-sealed = sealed
admin-retention-file-writing = being written

## An archive file found not as it was signed.
archive-distrust-file-missing = the file is no longer in the archive
archive-distrust-file-changed = the file is not the one that was signed: it was changed or replaced
archive-distrust-manifest-missing = the manifest beside the file is no longer in the archive
archive-distrust-manifest-changed = the manifest beside the file is not the one that was signed
archive-distrust-other-tenant = the file is another tenant's
archive-untrusted-operation = The archived history of { $op_id } cannot be trusted: { $why } ({ $object }). Nothing of it is shown. The tenant's admins have been told; once the signed file is back in the archive, it is shown again.
archive-untrusted-export = The export did not start: a segment of the archived audit chain cannot be trusted: { $why } ({ $object }). The tenant's admins have been told.
admin-retention-file-untrusted = not as signed: { $why }
archive-untrusted-api = The operation's archived history cannot be trusted: { $why } ({ $object }). Nothing of it is answered and nothing was changed; the tenant's admins have been told.
