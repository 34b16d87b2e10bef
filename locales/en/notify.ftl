# Notifications sent by e-mail, Slack, Microsoft Teams and LINE (src/domain/notice.rs): what waits,
# for whom and for how long, with a link to the console page where a person acts on it.
# $what is what waits, in lower case where the language has cases ("refund of NT$1,200 for Clay
# teapot"); $waited how long it has waited (notify-waited-*); $stage is first, reminder or
# escalation.

## How long something has waited.
notify-waited-minutes =
    { $n ->
        [one] { $n } minute
       *[other] { $n } minutes
    }
notify-waited-hours =
    { $n ->
        [one] { $n } hour
       *[other] { $n } hours
    }
notify-waited-hours-minutes = { $hours } h { $minutes } min
notify-waited-days =
    { $n ->
        [one] { $n } day
       *[other] { $n } days
    }

## The headline of one notification, by what it is about and where in its sequence it comes.
notify-title-approval =
    { $stage ->
        [reminder] Still waiting for approval after { $waited }: { $what }
        [escalation] Escalated: nobody approved or denied it for { $waited }: { $what }
       *[first] Approval needed: { $what }
    }
notify-title-review =
    { $stage ->
        [reminder] Still needs review after { $waited }: { $what }
        [escalation] Escalated: nobody reviewed it for { $waited }: { $what }
       *[first] Needs review: { $what }
    }
notify-title-unknown =
    { $stage ->
        [reminder] Outcome still unknown after { $waited }: { $what }
        [escalation] Escalated: the outcome has been unknown for { $waited } and nobody acted: { $what }
       *[first] Outcome unknown for { $waited }: { $what }
    }
notify-title-accepted =
    { $stage ->
        [reminder] Still not settled after { $waited }: { $what }
        [escalation] Escalated: accepted but not settled for { $waited } and nobody acted: { $what }
       *[first] Accepted but not settled for { $waited }: { $what }
    }
notify-title-bulk = Bulk run finished: { $what }
notify-title-archive = Not as signed: { $what }
notify-title-failing =
    { $stage ->
        [reminder] Still failing after { $waited }: { $what }
        [escalation] Escalated: failing for { $waited } and nobody acted: { $what }
       *[first] Failing: { $what }
    }

## What waits, when it is not an operation.
notify-bulk-what = bulk run “{ $name }”: { $done } done and { $failed } failed of { $total }
notify-failing-webhook = webhook deliveries to { $host }
notify-failing-connection = requests through the connection “{ $name }”
notify-archive-what = the archive file { $object }: { $why }
notify-mention-what = { $by } mentioned you in a note on { $item }
notify-mention-what-people = { $by } mentioned { $people } in a note on { $item }

## The details under the headline.
notify-fact-note = Note: “{ $excerpt }”
notify-fact-operation = Operation: { $op_id }
notify-fact-asked-by = Asked by: { $who }
notify-fact-waiting = Waiting for: { $waited }
notify-fact-last-error = Last error: { $error }

## What the reader can do, one sentence per kind of notification.
notify-hint-approval = Approve or deny it in the console after signing in; the person who asked cannot approve it.
notify-hint-review = The provider's answers did not settle it: check what happened and record it in the console.
notify-hint-unknown = Nobody knows yet whether it happened, and it is not sent again by itself: check it in the console.
notify-hint-accepted = The provider took it but has not said whether it was done: check it in the console.
notify-hint-bulk = Each operation of the run is listed in the console.
notify-hint-failing = Deliveries are retried by themselves; fix the address or the connection in the console.
notify-hint-archive = Nothing of the file is shown until the file signed is back in the archive: compare it with a copy, or run opledger audit verify-archive on one.
notify-hint-mention = Open the page to read the whole note and answer it there; a note is never sent to the customer.

## Links and digests.
notify-open = Open in the console
notify-digest-title =
    { $count ->
        [one] { $count } item waits for you
       *[other] { $count } items wait for you
    }
notify-digest-more = …and { $n } more
notify-open-at = { $open }: { $link }
notify-digest-open = Open the list in the console
notify-email-footer = You receive this because a notification rule of opledger names you. Nothing is approved or changed from this message: the link opens the console, where you sign in.
