from typing import Literal

State = Literal[
    "accepted",
    "approved",
    "cancelled",
    "denied",
    "needs_review",
    "pending_approval",
    "planned",
    "rejected",
    "submitted",
    "succeeded",
    "unknown",
]

STATE_VALUES: set[State] = {
    "accepted",
    "approved",
    "cancelled",
    "denied",
    "needs_review",
    "pending_approval",
    "planned",
    "rejected",
    "submitted",
    "succeeded",
    "unknown",
}


def check_state(value: str) -> State:
    if value in STATE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {STATE_VALUES!r}")
