# Words every page shares: the frame, the sections, roles, states, ages, times and errors.

skip-to-content = Skip to content
nav-label = Sections
section-overview = Overview
section-operations = Operations
section-orders = Orders
section-conflicts = Conflicts
section-approvals = Approvals
section-reconcile = Reconcile
section-audit = Audit
section-admin = Admin
approvals-waiting = { $count } waiting
search-label = Search orders, operations, external ids and people
search-placeholder = Search (press /)
sign-out = Sign out
language-label = Language
language-follow-browser = As the browser asks
language-change = Change
role-support = support
role-manager = manager
role-auditor = auditor
role-admin = admin

state-planned = planned
state-pending-approval = pending approval
state-approved = approved
state-denied = denied
state-submitted = submitted
state-accepted = accepted
state-succeeded = succeeded
state-rejected = rejected
state-unknown = unknown
state-needs-review = needs review
state-cancelled = cancelled

order-status-no-operations = no operations
order-status-in-progress = in progress
order-status-pending-confirmation = pending confirmation
order-status-complete = complete
order-status-partial-success = partial success
order-status-compensated = compensated
order-status-failed = failed

age-just-now = just now
age-minutes-ago = { $n } min ago
age-hours-ago = { $n } h ago
age-days-ago = { $n } d ago
age-in-minutes = in { $n } min
age-in-hours = in { $n } h
age-in-days = in { $n } d
# A whole time in chrono's strftime syntax, in the order readers of the language expect.
time-format = %Y-%m-%d %H:%M:%S
date-format = %Y-%m-%d
time-utc = { $time } UTC
time-yours = { $time } (UTC{ $offset }, your time)
zone-choice = Whole times in
zone-yours = your time zone
zone-utc = UTC
connection-lost = The connection to the server is lost; trying again. Changes made elsewhere show once it is back.
page-changed = This page has changed since it was loaded.
reload = Reload
none = —

error-title-signed-out = Signed out
error-title-forbidden = Not allowed
error-title-not-found = Not found
error-title-invalid = Check the input
error-title-other = Something went wrong
error-next-sign-in = Sign in
error-next-overview = Back to the overview
error-next-operations = Search the operations
error-next-try-again = Try again
error-unavailable = The server could not reach its database. Try again in a moment.
error-signed-out = You are signed out. Sign in again to continue.
error-forbidden = Your role does not allow this. Ask an admin if you need it.
error-form-expired = This form has expired. Reload the page and try again.
error-not-found = There is nothing here: { $what }.
error-transport = The server could not be reached ({ $detail }).
error-unreadable-request = The request could not be read: a field is missing or malformed. Reload the page and try again.
error-unreachable = The server could not be reached. Check the connection and try again.

pager-label = Pages
pager-first = ← First page
pager-next = Next page →
confirm = Confirm
confirm-go-back = Go back
confirm-yes = Yes, { $action }
confirm-question = { $action }?
not-found-title = Page not found
not-found-text = There is no page at this address.

filter-any = any

refusal-own-request = You requested this operation; another manager must decide on it.
