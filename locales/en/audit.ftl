# The audit page: the tenant's audit events, their filters and exports.

audit-lede = Every state change and every action of this tenant, newest first. Each event is chained to the one before it by hash, so an exported history can be checked offline with { $command }.
audit-partial-note = This filter leaves events out: an export of it verifies each event's hash ({ $command }), not the whole chain. Clear every filter but the end time to export a chain that verifies end to end.
audit-filter-label = Filter audit events
audit-filter-from = From (UTC)
audit-filter-to = To (UTC)
audit-filter-actor = Actor
audit-filter-action = Action
audit-filter-op-id = Op id
audit-filter-order = Order
audit-apply = Apply
audit-clear = Clear
audit-export-csv = Export CSV
audit-export-jsonl = Export JSON Lines
audit-empty = No events yet: every operation and every action on it will be recorded here.
audit-empty-filtered = No event matches these filters. Loosen them, or clear them to see every event.
audit-col-seq = Seq
audit-col-at = At
audit-col-actor = Actor
audit-col-action = Action
audit-col-operation = Operation
audit-col-change = Change
audit-col-reason = Reason and evidence
audit-col-hash = Hash
# $role is the actor's role in words (support, manager…).
audit-actor = { $actor } ({ $role })
audit-evidence = Evidence
audit-newest = ← Newest events
audit-older = Older events →
audit-damaged-link = The page link is damaged; go back to the first page.

# The actions offered by the action filter (the events themselves show the recorded codes).
audit-action-approve = approve
audit-action-deny = deny
audit-action-expire-approval = expire approval
audit-action-begin-attempt = begin attempt
audit-action-record-outcome = record outcome
audit-action-mark-unknown = mark unknown
audit-action-confirm-found = confirm found
audit-action-resend-same-key = resend same key
audit-action-escalate = escalate
audit-action-mark-succeeded = mark succeeded
audit-action-mark-not-happened = mark not happened
audit-action-cancel = cancel
audit-action-register = register
audit-action-refuse-conflict = refuse conflict
audit-action-add-user = add user
audit-action-create-api-token = create api token
audit-action-revoke-api-token = revoke api token
audit-action-add-approval-rule = add approval rule
audit-action-remove-approval-rule = remove approval rule
audit-action-set-provider-connection = set provider connection
audit-action-set-provider-webhook-secret = set provider webhook secret
audit-action-remove-provider-connection = remove provider connection
audit-action-set-email-template = set email template
audit-action-remove-email-template = remove email template
