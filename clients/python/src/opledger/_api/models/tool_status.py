from typing import Literal

ToolStatus = Literal[
    "accepted",
    "already_done",
    "cancelled",
    "failed_at_provider",
    "not_sent",
    "pending_approval",
    "rejected",
    "succeeded",
    "unknown",
]

TOOL_STATUS_VALUES: set[ToolStatus] = {
    "accepted",
    "already_done",
    "cancelled",
    "failed_at_provider",
    "not_sent",
    "pending_approval",
    "rejected",
    "succeeded",
    "unknown",
}


def check_tool_status(value: str) -> ToolStatus:
    if value in TOOL_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOOL_STATUS_VALUES!r}"
    )
