# The operations list: its filters, its table, its exports and the sentences of its mistakes.

operations-title = Operations
operations-live-on = ● Live: changes appear as they happen
operations-live-off = Showing the list as loaded
operations-filters = Filters
operations-filter-label = Filter operations
operations-state = State
operations-kind = Kind
operations-provider = Provider
operations-order = Order
operations-from = From (UTC)
operations-to = To (UTC)
operations-search = Op id or external id
operations-apply = Apply
operations-clear = Clear
operations-bulk = Query these in bulk…
operations-export-csv = Export CSV
operations-export-jsonl = Export JSON Lines
operations-empty-filtered = No operation matches these filters. Loosen them, or clear them to see every operation.
operations-empty = No operations yet. Agents record them through the ledger API before sending them.
operations-op-id = Op id
operations-amount = Amount
operations-attempts = Attempts
operations-external-ids = External ids
operations-created = Created
operations-held = Held by
operations-held-by = Held by
operations-held-anyone = Anyone or nobody
operations-held-mine = Me
operations-held-nobody = Nobody
operations-held-none = —

# The filters in words, as a bulk action restates them: "state unknown, order order:1077".
operations-describe-state = state { $value }
operations-describe-kind = kind { $value }
operations-describe-provider = provider { $value }
operations-describe-order = order { $value }
operations-describe-search = op id or external id { $value }
operations-describe-from = created from { $value }
operations-describe-to = created before { $value }
operations-describe-held-mine = held by me
operations-describe-held-nobody = held by nobody
operations-describe-held-by = held by { $value }
operations-describe-separator = {", "}
operations-describe-all = every operation

# $field is the name of the form field (from, to).
operations-not-a-time = “{ $text }” in { $field } is not a time; write it as 2026-11-30 or 2026-11-30T14:05 (UTC).
operations-damaged-link = The page link is damaged; go back to the first page.
operations-no-such-state = There is no state named “{ $state }”.
