# One operation's page: how it stands, its facts, its actions and their confirmations, attempts,
# external ids, approval, compensations and audit trail.

operation-stop-requested = stop requested
operation-tell-customer = Tell the customer:{" "}
operation-kind = Kind
operation-order = Order
operation-provider = Provider
operation-amount = Amount
operation-requested-by = Requested by
operation-sent-by = Sent by
operation-provider-offers = What the provider offers
operation-settled-by = Settled by
operation-created = Created
operation-idempotency-key = Idempotency key
operation-key-validity = Key validity downstream
# After how long the key is still valid; $time is a whole time, shown as an age once the page is interactive.
operation-key-until = {" "}(until { $time })
operation-last-failure = Last failure
operation-conflicting = Conflicting requests
operation-conflicts-refused = { $count } refused

# How long the provider still remembers the key (operation-key-left), in its two largest units.
operation-span-seconds = { $s } s
operation-span-minutes = { $min } min
operation-span-hours = { $h } h
operation-span-hours-minutes = { $h } h { $min } min
operation-span-days = { $d } d
operation-span-days-hours = { $d } d { $h } h
operation-key-none = none: the provider takes no idempotency key, so it is never sent twice
operation-key-not-sent = not sent yet
operation-key-left = { $span } left
operation-key-expired = expired: the provider no longer recognises this key

# Who sends it. $kind and $action are machine names (refund, create_refund); $provider is a connection's name.
operation-sender-none = No connector performs “{ $kind }” at { $provider }: opledger never sends it itself. It records what the agent reports; people decide what became of it.
operation-sender-server-money = opledger sends it itself, as a { $action } at { $provider }: the approval policy and four-eyes apply to that, and to the money it moves as { $provider } holds it.
operation-sender-server = opledger sends it itself, as a { $action } at { $provider }: the approval policy and four-eyes apply to that.
operation-sender-agent = The agent sends it itself: opledger holds its send while an approval the policy asks for is missing, records what the agent reports, and settles unknown results (a re-send goes out only as the { $action } it was bound to, within the policy). An agent that sends without asking is outside opledger's control.

# Follows "There is nothing here: ".
operation-not-found = no operation { $op_id } in tenant { $tenant }
operation-no-such-action = There is no action named “{ $action }”.
operation-executor-only = “{ $action }” is done by the executor, not from the console.
operation-confirm-first = Confirm first: the page shows what this will do.

# Making a failed operation again, as a new operation.
operation-retry-heading = Make it again
operation-retry-confirm-heading = Confirm: make it again
operation-reason = Reason
operation-retry-placeholder = the customer gave a new card
operation-retry-button = Make it again…
operation-retry-yes = Yes, make it again

operation-actions-heading = Actions available to you
operation-actions-none = None: in this state your role has nothing to do here.
operation-compensate = Compensate
operation-compensate-hint = A compensation is a new operation linked to this one, with its own state: it proves nothing until it has succeeded.

# The actions on an operation, as their buttons say them.
operation-action-approve = Approve
operation-action-deny = Deny
operation-action-expire-approval = Expire approval
operation-action-send = Send
operation-action-record-outcome = Record outcome
operation-action-mark-unknown = Mark result unknown
operation-action-query = Query the provider now
operation-action-resend = Re-send with the same key
operation-action-escalate = Escalate
operation-action-mark-succeeded = Mark succeeded
operation-action-mark-not-happened = Mark not happened
operation-action-cancel = Cancel

operation-query-hint = Looks the operation up at the provider by its op id; found means succeeded. Safe at any time.
# $validity is how long the key is still known ("23 h 12 min left").
operation-resend-hint = Sends the stored parameters again with the same idempotency key; the provider recognises it for { $validity }.
operation-reason-optional = Reason (optional)
operation-reviewer-note = Note for the reviewer
operation-external-id = External id
operation-evidence = Evidence
operation-evidence-seen = where you saw it
operation-evidence-nothing = what shows nothing happened
operation-new-date = New date
# $action is the action's button words.
operation-confirm-heading = Confirm: { $action }
operation-nothing-to-confirm = Nothing to confirm
operation-nothing-to-confirm-text = This action is not available on this operation now: its state has changed, or your role does not allow it. The page below shows what you can do.

operation-params = Canonical parameters
operation-fingerprint = Fingerprint
operation-timeline = State timeline
operation-recorded = recorded

operation-attempts = Attempts
operation-attempts-none = Not sent yet.
operation-started = Started
operation-in-flight-until = In flight until
operation-duration = Duration
operation-milliseconds = { $ms } ms
operation-outcome = Outcome
operation-key-sent = Key sent
operation-error = Error

operation-external-ids = External ids
operation-external-none = The provider has not confirmed any object for this operation.
operation-approval-heading = Approval and compensations
# $granted and $expires are times.
operation-approved = Approved by { $approver } at { $granted }, valid until { $expires }
operation-approved-other-params = Approved by { $approver } at { $granted }, valid until { $expires } — given for other parameters, so it does not cover these
operation-approval-none = No approval recorded.
operation-compensates = Compensates:
operation-retry-of = Makes again, after it failed:
operation-retried-by = Made again by:
operation-compensated-by = Compensated by:

operation-audit = Audit trail
operation-audit-seq = Seq
operation-audit-at = At
operation-audit-actor = Actor
operation-audit-action = Action
operation-audit-change = Change
operation-audit-reason = Reason and evidence
operation-audit-sealing = sealing…
operation-audit-actor-role = { $actor } ({ $role })
operation-audit-details = Details
operation-archived-badge = archived
operation-archived = Archived: it closed { $closed }, and its history is read from { $file } in the tenant's archive. Nothing can be done to it any more; the same intent sent again is still answered with this outcome.
