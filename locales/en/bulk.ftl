# Bulk queries of the provider: the preview, the run's progress and results.

bulk-title = Bulk query
bulk-heading = Query the provider in bulk
# $matching and $actionable are the counts (in bold); $n is the same number as $matching.
bulk-preview-counts = { $n ->
    [one] { $matching } operation matches
   *[other] { $matching } operations match
} the filter: { $filter }. { $actionable } of them can be queried now (unknown, needs review or silent submitted ones).
bulk-preview-counts-capped = { $matching } operations match the filter: { $filter } (only the first { $limit } are counted; narrow the filter to reach the rest). { $actionable } of them can be queried now (unknown, needs review or silent submitted ones).
bulk-preview-how = Each one is looked up at its provider by its op id. Found means succeeded, with the lookup as evidence; not found changes nothing. Nothing is sent.
bulk-nothing-to-do = Nothing to do. Change the filter on the { $list }.
bulk-operations-list = operations list
bulk-confirm = { $count ->
    [one] Query { $count } operation
   *[other] Query { $count } operations
}
bulk-cancel = Cancel
# $who is a person's name, $time when it started, $filter the filter in words (a link).
bulk-run-started = Query the provider, started by { $who } at { $time } over { $filter }.
bulk-progress-label = Operations queried
bulk-running = { $done } of { $total } done…
# $summary is bulk-summary.
bulk-done = Done: { $done } of { $total } at { $time }. { $summary }
bulk-summary = { $confirmed } confirmed, { $not_found } not found, { $unavailable } unavailable, { $refused } refused.
bulk-results = Results
bulk-col-op-id = Op id
bulk-col-result = Result
bulk-col-what-happened = What happened
bulk-outcome-waiting = waiting
bulk-outcome-confirmed = confirmed
bulk-outcome-not-found = not found
bulk-outcome-unavailable = unavailable
bulk-outcome-refused = refused
bulk-damaged-filter = The filter is damaged; start again from the operations list.
bulk-nothing-started = None of the operations this filter shows can be queried now; nothing was started.
# Shown as "There is nothing here: …".
bulk-run-not-found = no bulk action { $id }

# The search page (the header's search box has its own words in core.ftl).
search-page-title = Search
search-page-how = Type the beginning of an order number (1043 or #1043), an op id (refund-1043), an external id (re_…) or a person's name in the search box above, then press Enter. Press / on any page to get there.
search-page-nothing = Nothing starts with “{ $words }”. Search by the beginning of a key: an order number, an op id, an external id or a name. To filter by state, kind or time, use { $list }.
search-page-operations-list = the operations list
search-page-searched = What starts with “{ $words }”:
search-page-people = People
search-page-in-audit = (what they did, in the audit trail)
search-page-external-id = external id
search-page-too-long = Search for at most { $longest } characters of an order, op id, external id or name.
search-page-archived = archived
