"""The errors of the opledger client.

Each says what happened to the operation and whether calling again is safe (`retryable`): only a
call that certainly sent nothing (`NotSent`) or that the ledger could not take (`ApiError` with a
429 or a 5xx, or no answer at all) may simply be made again. After `OutcomeUnknown` the provider
may hold the effect: never send again; wait for the ledger to settle it (`Ledger.settled`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ApiError",
    "ApprovalPending",
    "Denied",
    "IdempotencyConflict",
    "InvalidRequest",
    "NotSent",
    "OperationFailed",
    "OpledgerError",
    "OutcomeUnknown",
]


class OpledgerError(Exception):
    """Any error of the client; `message` is a sentence for people (and models)."""

    retryable: bool = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        # Picklable with every attribute, for workflow engines and task queues that store errors.
        return (_restore, (type(self), self.message, self.__dict__))


def _restore(cls: type[OpledgerError], message: str, state: dict[str, Any]) -> OpledgerError:
    error = cls.__new__(cls)
    OpledgerError.__init__(error, message)
    error.__dict__.update(state)
    return error


class InvalidRequest(OpledgerError):
    """The request could never be valid; nothing was recorded or sent. `field` names the culprit."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(f"{field}: {message}" if field and not message.startswith(field) else message)
        self.field = field


class IdempotencyConflict(OpledgerError):
    """The op id is recorded with other parameters; nothing was changed or sent.

    `diff` lists the differing fields (`{"field", "stored", "requested"}`), `stored` is the
    recorded operation. A new intent needs a new op id.
    """

    def __init__(self, op_id: str, diff: list[dict[str, Any]], stored: dict[str, Any], message: str = "") -> None:
        fields = ", ".join(str(d.get("field")) for d in diff)
        super().__init__(message or f"{op_id} is already recorded with other parameters ({fields}).")
        self.op_id = op_id
        self.diff = diff
        self.stored = stored


class ApprovalPending(OpledgerError):
    """The operation waits for a person's approval at `console_url`; nothing was sent."""

    def __init__(self, op_id: str, console_url: str, operation: dict[str, Any]) -> None:
        super().__init__(f"{op_id}: {operation.get('message', 'Waiting for approval.')} Approve it at {console_url}")
        self.op_id = op_id
        self.console_url = console_url
        self.operation = operation


class Denied(OpledgerError):
    """A person denied the operation; it will never be sent."""

    def __init__(self, op_id: str, operation: dict[str, Any]) -> None:
        super().__init__(f"{op_id}: {operation.get('message', 'Denied.')}")
        self.op_id = op_id
        self.operation = operation


class OutcomeUnknown(OpledgerError):
    """It may have happened: do not send it again. The ledger looks it up and settles it."""

    def __init__(self, op_id: str, message: str, operation: dict[str, Any] | None = None) -> None:
        super().__init__(f"{op_id}: {message}")
        self.op_id = op_id
        self.operation = operation


class NotSent(OpledgerError):
    """Nothing reached the provider; the same call may be made again (same op id)."""

    retryable = True

    def __init__(self, op_id: str, message: str, operation: dict[str, Any] | None = None) -> None:
        super().__init__(f"{op_id}: {message}")
        self.op_id = op_id
        self.operation = operation


class OperationFailed(OpledgerError):
    """The operation ended without its effect (`state` is `rejected` or `cancelled`)."""

    def __init__(self, op_id: str, state: str, message: str, operation: dict[str, Any]) -> None:
        super().__init__(f"{op_id}: {message}")
        self.op_id = op_id
        self.state = state
        self.operation = operation


class ApiError(OpledgerError):
    """The ledger refused the call or could not be reached (`status` is None then).

    `code` is the ledger's stable code (`unauthorized`, `insufficient_scope`, `not_found`…) and
    `details` the rest of its error object.
    """

    def __init__(self, status: int | None, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}" if status is None else f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.details = details or {}
        self.retryable = status is None or status == 429 or status >= 500
