from typing import Literal

OutcomeName = Literal[
    "accepted",
    "failed_at_provider",
    "forbidden",
    "invalid",
    "not_sent",
    "rejected",
    "server_error",
    "succeeded",
    "timeout",
    "unavailable",
]

OUTCOME_NAME_VALUES: set[OutcomeName] = {
    "accepted",
    "failed_at_provider",
    "forbidden",
    "invalid",
    "not_sent",
    "rejected",
    "server_error",
    "succeeded",
    "timeout",
    "unavailable",
}


def check_outcome_name(value: str) -> OutcomeName:
    if value in OUTCOME_NAME_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {OUTCOME_NAME_VALUES!r}"
    )
