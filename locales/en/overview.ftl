# The overview: counts by state, what waits for people, and its two charts.

overview-empty-title = No operations yet
overview-empty-text = Agents and tools record each operation through the ledger API before sending it ({ $api }). Run { $command } to see the console with demo data.
overview-empty-api = API description
overview-cards-label = Operations by state
overview-all = All
overview-hourly-title = Operations per hour, last 24 hours
overview-settle-title = Time from unknown to settled, last 7 days
overview-settle-label = Settled operations by time taken
overview-settle-empty = No operation has gone from unknown to settled in the last 7 days.
overview-unknown-title = Unknown results by age ({ $count })
overview-unknown-label = Unknown operations by age
overview-unknown-empty = No result is unknown: every sent operation has a confirmed outcome.
overview-sample-note = Ages of the { $count } unknown the longest.
overview-waiting-title = Waiting for people
overview-pending-approval = { $count } pending approval
overview-needs-review = { $count ->
    [one] { $count } needs review
   *[other] { $count } need review
}
overview-needs-review-empty = Nothing needs review.
overview-attention-title = Orders in partial success or pending confirmation
overview-attention-empty = Every order is complete, compensated or failed cleanly.
# After an operation's amount in a short list; $time is when it last changed ("3 min ago").
overview-changed = changed { $time }
overview-order = Order
overview-order-status = Status
overview-order-operations = Operations
overview-order-net-refunded = Net refunded
overview-order-last-change = Last change

# The chart of operations per hour. $hour is like "14:00 UTC".
overview-hour-title = { $hour }: { $succeeded } succeeded, { $not_done } not done, { $uncertain } uncertain, { $open } not sent yet
overview-hourly-label = Operations created per hour by outcome; the tallest hour has { $most }
overview-legend-succeeded = succeeded
overview-legend-not-done = not done
overview-legend-uncertain = uncertain
overview-legend-not-sent = not sent yet
overview-legend-utc = (hours in UTC)

# The bars of the two other charts (short: they stand beside the bars).
overview-bucket-under-1-min = under 1 min
overview-bucket-under-5-min = under 5 min
overview-bucket-1-5-min = 1–5 min
overview-bucket-5-30-min = 5–30 min
overview-bucket-30-min-2-h = 30 min–2 h
overview-bucket-over-2-h = over 2 h
overview-bucket-2-24-h = 2–24 h
overview-bucket-over-a-day = over a day
