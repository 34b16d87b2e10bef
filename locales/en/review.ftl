# The review pages: conflicts, the approval queue and the reconcile desk.

# Conflicts: requests that reused an op id with other parameters.
conflicts-lede = Requests that reused an op id with other parameters. They were refused and nothing was sent; the stored operation is unchanged.
conflicts-empty = No conflicting request has been refused. When a caller reuses an op id with other parameters, it appears here.
# Followed by when the request came: "at 3 min ago", or the whole time in UTC before the page is interactive.
conflicts-refused-from = Refused request from { $who } at{" "}
conflicts-field = Field
conflicts-stored = Stored
conflicts-requested = Requested
# A field the one set of parameters has and the other has not.
conflicts-absent = (absent)
conflicts-details = Details: both sets of parameters as recorded
conflicts-stored-params = Stored parameters
conflicts-refused-request = Refused request

# The approval queue. $valid_for: how long an approval given now lasts ("15 min").
approvals-lede = Operations the approval policy holds for a manager, the longest waiting first. An approval covers exactly the parameters shown, lets the operation be sent for { $valid_for }, and sends it at once.
approvals-empty = Nothing waits for approval. The admin page sets which operations need one.
approvals-no-amount = no amount
# $kind: the operation's kind (refund); $provider: where it goes.
approvals-kind-at = { $kind } at { $provider }
# Followed by the requester's name.
approvals-requested-by = requested by{" "}
# Followed by when the operation began to wait: "3 min ago".
approvals-waiting-since = waiting since{" "}
# Followed by when it expired: "3 min ago".
approvals-earlier-expired = an earlier approval expired{" "}
approvals-first-of-order = First operation of order { $order }.
# "Order <the order, a link> so far:": the words before the link, then those after it.
approvals-order-so-far = Order{" "}
approvals-order-so-far-end = {" "}so far:

# The reconcile desk.
reconcile-lede = Operations whose result is not known yet, the longest waiting first. Query the provider before anything else: a re-send is safe only while the provider remembers the key.
reconcile-empty = Nothing to reconcile: every sent operation has a known result.
reconcile-col-state = State
reconcile-col-op-id = Op id
reconcile-col-amount = Amount
reconcile-col-waiting-since = Waiting since
reconcile-col-why = Why it is here
# The column that says how long the provider still remembers the idempotency key.
reconcile-col-key = Key
reconcile-col-actions = Actions
reconcile-none-for-role = none for your role
reconcile-more-actions = More actions
# Why an operation is on the desk when nothing more precise was recorded.
reconcile-why-no-outcome = sent, and no outcome was reported
# Why a succeeded operation is back on the desk: its provider failed it afterwards. $reason is one of wording-reason-*.
reconcile-why-failed-after-success = the provider reported it succeeded, then that it failed: { $reason }
