# Refusals that count what was asked for, with plural forms: the server writes these, never the
# browser (whose words, core.ftl and operations.ftl, hold no selections).

operations-too-many-values = Choose fewer values: { $states ->
        [one] 1 state
       *[other] { $states } states
    } × { $kinds ->
        [one] 1 kind
       *[other] { $kinds } kinds
    } × { $providers ->
        [one] 1 provider
       *[other] { $providers } providers
    } make { $branches } lists to merge, and at most { $most } are read at once.
