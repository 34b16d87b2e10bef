# Orders: the list of orders and each order's page (its line items, the story of each operation,
# the ids behind "Details", and the compensations on offer).

orders-attention-heading = Partial success or pending confirmation
orders-attention-empty = No order needs attention: none is half done or waiting for a confirmation.
orders-recent-heading = Recently changed
orders-recent-empty = No orders yet: operations name their order as their subject.

# The heading of one order's page; $id is the order's number in the shop (1043).
orders-order-heading = Order { $id }
# In place of a list of op ids that is empty.
orders-none = none
# Before the time an operation last changed: "changed 3 min ago".
orders-story-changed = changed{" "}
# Before the sentence to tell the customer.
orders-tell-customer = Tell the customer:{" "}
# Before the op id of the operation a compensation makes up for.
orders-makes-up-for = makes up for{" "}

# The money of the whole order, labels of amounts.
orders-paid = Paid
orders-refunded = Refunded
orders-being-confirmed = Being confirmed
orders-still-refundable = Still refundable
orders-line-items = Line items
# The money of one line item: each label is followed by its amount, joined by " · ".
orders-item-paid = Paid{" "}
orders-item-refunded = refunded{" "}
orders-item-being-confirmed = being confirmed{" "}
orders-item-still-refundable = still refundable{" "}
orders-item-nothing-asked = Nothing has been asked for this item.
# $reason: why the shop could not be read (in the server's words).
orders-shop-problem = The line items cannot be shown: { $reason }. What the ledger recorded follows.
orders-other-operations = Other operations on this order
orders-operations = Operations

orders-details = Details: every operation with its ids
orders-completed = Completed
orders-not-done = Not done
orders-not-yet-confirmed = Not yet confirmed
orders-effects-in-force = Effects in force
orders-net-refunded = Net refunded
orders-nothing = nothing
orders-col-state = State
orders-col-op-id = Op id
orders-col-kind = Kind
orders-col-compensates = Compensates
orders-col-amount = Amount
orders-col-external-ids = External ids
orders-col-changed = Changed
orders-col-compensations = Compensations

orders-compensate-heading = Compensate
orders-compensate-hint = Each compensation is recorded as a new operation linked to the one it makes up for, then sent. It has its own state: only a succeeded compensation changes the net effect.

# Shown after "There is nothing here: "; $subject is the order (order:1043).
orders-not-found = no operations for order { $subject }
orders-mixed-currencies = The order mixes amounts that cannot be added up.
# $name: the compensation's name as the form sent it.
orders-no-such-compensation = There is no compensation named “{ $name }”.
