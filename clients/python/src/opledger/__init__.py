"""opledger: record each side-effecting call in the ledger before it is sent, and never send it twice.

`Ledger` (sync) and `AsyncLedger` (async) register an operation under an op id derived from the
business intent, hand out the idempotency key and metadata to send with, and report what the
provider answered; the errors in `opledger.errors` say whether calling again is safe.
"""

from .client import DEFAULT_SEND_DEADLINE_S, AsyncLedger, Ledger, Operation, Settled
from .errors import (
    ApiError,
    ApprovalPending,
    Denied,
    IdempotencyConflict,
    InvalidRequest,
    NotSent,
    OperationFailed,
    OpledgerError,
    OutcomeUnknown,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_SEND_DEADLINE_S",
    "ApiError",
    "ApprovalPending",
    "AsyncLedger",
    "Denied",
    "IdempotencyConflict",
    "InvalidRequest",
    "Ledger",
    "NotSent",
    "Operation",
    "OperationFailed",
    "OpledgerError",
    "OutcomeUnknown",
    "Settled",
]
