"""The opledger client: record a side-effecting call in the ledger before it is sent, send it once.

`Ledger` (sync) and `AsyncLedger` (async) wrap the ledger API's protocol: register the intent under
an op id derived from the business intent, begin an attempt (the operation is durably `submitted`
before anything leaves), send with the key and metadata the ledger hands out, and report what the
provider answered. What the ledger already knows decides whether anything is sent at all: an
operation done earlier is returned as it stands, one that may have been sent raises
`OutcomeUnknown` and is never sent again.

    ledger = Ledger("http://127.0.0.1:3000", "opl_…")
    with ledger.begin(kind="refund", op_id="refund-1043-li_2", subject="order:1043",
                      provider="stripe", params={"payment_intent": "pi_1043",
                      "amount": {"minor": 38000, "currency": "TWD"}}) as op:
        op.mark_sent()
        op.record(stripe.Refund.create(payment_intent="pi_1043", amount=38000,
                                       idempotency_key=op.key, metadata=op.metadata))
    print(op.result.external_id)
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self, TypeVar

import httpx

from ._api.api.operations import begin_attempt, read_operation, record_outcome, register
from ._api.client import AuthenticatedClient
from ._api.models import (
    AttemptStarted,
    BeginBody,
    ErrorEnvelope,
    OperationAnswer,
    OperationView,
    OutcomeBody,
    RegisterBody,
)
from ._api.types import UNSET, Response
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

__all__ = ["AsyncLedger", "Ledger", "Operation", "Settled"]

_VERSION = "0.1.0"
_OP_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_NAME = re.compile(r"[a-z0-9_]{1,64}")
_CURRENCY = re.compile(r"[A-Z]{3}")
_MAX_DEPTH = 16
_MAX_WAIT_S = 60
_MAX_ERROR_CHARS = 1000

_SETTLED = frozenset({"succeeded", "accepted"})
_SENDABLE = frozenset({"planned", "approved"})
_FINISHED = frozenset({"succeeded", "rejected", "denied", "cancelled"})

#: How long a send may take when the call says nothing, in seconds: the server's own default, so that
#: a client and a raw call of the API hold an operation alike (docs/durable-execution.md says how it
#: relates to a workflow activity's timeout and heartbeat).
DEFAULT_SEND_DEADLINE_S = 60

_DONE_WORDS = frozenset({"succeeded", "completed", "done", "sent", "ok"})
_FAILED_WORDS = frozenset({"failed", "canceled", "cancelled", "refused", "declined"})

T = TypeVar("T")


@dataclass(frozen=True)
class Settled:
    """An operation the ledger holds as done (`succeeded`) or taken by the provider (`accepted`).

    `value` is what the wrapped code gave the ledger (the provider's object) when this call sent
    it, None when it was settled earlier; `sent_now` says which. `operation` is the ledger's view.
    """

    op_id: str
    state: str
    external_id: str | None
    external_refs: list[str]
    message: str
    value: Any
    sent_now: bool
    operation: dict[str, Any] = field(repr=False)


class _AlreadySettled(BaseException):
    """Leaves a `begin` block whose operation the ledger already holds as settled."""


class Operation:
    """One attempt at an operation, as `begin` yields it and the decorator passes it (`op=`).

    Send with `key` as the idempotency key and `metadata` written into the provider's object,
    then `record` the object the provider answered (or say `succeeded`/`accepted`/`failed`). The
    outcome is reported to the ledger when the block (or the decorated function) ends.

    The block is taken to have sent from its first use of `key`, `metadata` or `attempt`, or from
    `mark_sent()`: an exception before that is "not sent" (`NotSent`, safe to retry); after it,
    what the provider's own answer says, else "unknown" (`OutcomeUnknown`, never sent again). A
    block that sends without the key or the metadata calls `mark_sent()` first.

    When the ledger already holds the result, `result` is set from the start and the block does
    not send: its first use of `key`, `metadata`, `attempt` or `mark_sent()` leaves it.
    """

    def __init__(self, op_id: str, started: AttemptStarted | None = None, result: Settled | None = None) -> None:
        self.op_id = op_id
        self.result = result
        self._started = started
        self._began = time.monotonic()
        self._sent = False
        self._outcome: dict[str, Any] | None = None
        self._value: Any = None

    @property
    def attempt(self) -> int:
        """The attempt's number; reading it counts as the send's start."""
        self._sent = True
        return self._number

    @property
    def key(self) -> str:
        """The idempotency key to send with (`tenant:op_id`); reading it counts as the send's start."""
        self._sent = True
        return self._attempt().idempotency_key

    @property
    def metadata(self) -> dict[str, str]:
        """What to write into the provider's object, so the ledger can find it again; reading it
        counts as the send's start."""
        return {"op_id": self.op_id, "tenant": self.key.split(":", 1)[0]}

    @property
    def _number(self) -> int:
        """The attempt's number, for the client's own calls (not a use by the block)."""
        return self._attempt().attempt

    @property
    def send_deadline(self) -> datetime:
        """Until when the send counts as in flight; nobody looks it up or re-sends it before."""
        return self._attempt().send_deadline

    def mark_sent(self) -> None:
        """Says the send starts now: an exception before this counts as nothing sent."""
        self._attempt()
        self._sent = True

    def record(self, provider_object: Any) -> None:
        """Records the provider's answer by its `status` (attribute or key) and `id`."""
        self._attempt()
        status = str(_member(provider_object, "status") or "").strip().lower()
        external_id = _text(_member(provider_object, "id"))
        if status in _DONE_WORDS:
            self.succeeded(external_id)
        elif status in _FAILED_WORDS:
            reason = _member(provider_object, "failure_reason") or _member(provider_object, "reason") or status
            self.failed(str(reason), external_id)
        else:
            self.accepted(external_id)
        self._value = provider_object

    def succeeded(self, external_id: str | None = None) -> None:
        """The provider says it is done."""
        self._set("succeeded", external_id=external_id)

    def accepted(self, external_id: str | None = None) -> None:
        """The provider has it and has not finished it: never done, never sent again."""
        self._set("accepted", external_id=external_id)

    def failed(self, reason: str, external_id: str | None = None) -> None:
        """The provider took it and says it failed there, for `reason`."""
        self._set("failed_at_provider", external_id=external_id, error=reason[:_MAX_ERROR_CHARS])

    def _set(self, outcome: str, **details: Any) -> None:
        self._attempt()
        self._sent = True
        self._outcome = {"outcome": outcome, **details}

    def _attempt(self) -> AttemptStarted:
        if self._started is None:
            raise _AlreadySettled
        return self._started

    def _returned(self, value: Any) -> None:
        if self._outcome is None:
            self.record(value)
        self._value = value

    def _report(self, outcome: dict[str, Any]) -> OutcomeBody:
        latency_ms = min(int((time.monotonic() - self._began) * 1000), 86_400_000)
        return OutcomeBody.from_dict({**{k: v for k, v in outcome.items() if v is not None}, "latency_ms": latency_ms})


def _member(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _http_status(exc: BaseException) -> int | None:
    """The HTTP status a provider answered with, as SDKs carry it on their exceptions."""
    for holder in (exc, getattr(exc, "response", None)):
        for name in ("http_status", "status_code"):
            status = getattr(holder, name, None)
            if isinstance(status, int) and 100 <= status <= 599:
                return status
    return None


def _retry_after_s(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        headers = getattr(holder, "headers", None)
        try:
            value = headers.get("Retry-After") or headers.get("retry-after") if headers is not None else None
            if value is not None:
                return max(0, min(int(value), 86_400))
        except (AttributeError, TypeError, ValueError):
            continue
    return None


def _outcome_of_error(exc: BaseException, sent: bool) -> dict[str, Any]:
    """What an exception in the body says happened: nothing, before the send began; after it, the
    provider's own answer (its HTTP status), else unknown, never guessing that nothing did."""
    error = f"{type(exc).__name__}: {exc}"[:_MAX_ERROR_CHARS]
    if not sent:
        return {"outcome": "not_sent", "error": error}
    status = _http_status(exc)
    if status is None:
        return {"outcome": "timeout", "error": error}
    if status >= 500:
        outcome = "server_error"
    elif status == 429:
        return {"outcome": "unavailable", "http_status": status, "error": error, "retry_after_s": _retry_after_s(exc)}
    elif status == 402:
        outcome = "rejected"
    elif status in (401, 403):
        outcome = "forbidden"
    elif status in (400, 404, 422):
        outcome = "invalid"
    else:
        outcome = "timeout"
    return {"outcome": outcome, "http_status": status, "error": error}


def _intent(
    kind: str, op_id: str, subject: str, provider: str, params: Mapping[str, Any], on_behalf_of: str | None
) -> RegisterBody:
    """The register body, after the checks that refuse what the ledger would refuse."""
    if not isinstance(op_id, str) or not _OP_ID.fullmatch(op_id):
        raise InvalidRequest("op_id", f"must be 1 to 128 letters, digits or '.', '_', ':', '-', got {op_id!r}")
    for name, value in (("kind", kind), ("provider", provider)):
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise InvalidRequest(name, f"must be 1 to 64 lowercase letters, digits or '_', got {value!r}")
    _check_text("subject", subject)
    if on_behalf_of is not None:
        _check_text("on_behalf_of", on_behalf_of)
    if not isinstance(params, Mapping):
        raise InvalidRequest("params", "must be an object (a dict)")
    plain = _json(params, "params", 0)
    if kind == "refund" and "amount" not in plain:
        raise InvalidRequest("params.amount", 'a refund needs {"minor": <integer>, "currency": "<ISO 4217>"}')
    body: dict[str, Any] = {"op_id": op_id, "kind": kind, "subject": subject, "provider": provider, "params": plain}
    if on_behalf_of is not None:
        body["on_behalf_of"] = on_behalf_of
    return RegisterBody.from_dict(body)


def _check_text(name: str, text: str) -> None:
    if not isinstance(text, str) or not text.strip() or len(text) > 200 or not text.isprintable():
        raise InvalidRequest(name, f"must be 1 to 200 printable characters, got {text!r}")


def _json(value: Any, path: str, depth: int) -> Any:
    """A plain JSON copy of `value`; integers only, money as {"minor", "currency"}."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise InvalidRequest(path, "must be an integer in the 64-bit range")
        return value
    if isinstance(value, float):
        raise InvalidRequest(path, f"must be an integer, got the float {value!r} (send amounts in minor units)")
    if depth > _MAX_DEPTH:
        raise InvalidRequest(path, f"is nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, (list, tuple)):
        return [_json(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        plain = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidRequest(path, f"keys must be strings, got {key!r}")
            child = f"{path}.{key}"
            plain[key] = (
                _money(item, child) if key == "amount" or key.endswith("_amount") else _json(item, child, depth + 1)
            )
        return plain
    raise InvalidRequest(path, f"must be a JSON value, got {type(value).__name__}")


def _money(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or set(value) != {"minor", "currency"}:
        raise InvalidRequest(path, 'must be {"minor": <integer minor units>, "currency": "<ISO 4217 code>"}')
    minor, currency = value["minor"], value["currency"]
    if isinstance(minor, bool) or not isinstance(minor, int) or not -(2**63) <= minor < 2**63:
        raise InvalidRequest(f"{path}.minor", f"must be an integer number of minor units, got {minor!r}")
    if not isinstance(currency, str) or not _CURRENCY.fullmatch(currency):
        raise InvalidRequest(f"{path}.currency", f"must be a three-letter ISO 4217 code, got {currency!r}")
    return {"minor": minor, "currency": currency}


def _check_deadline(send_deadline_s: int) -> None:
    if isinstance(send_deadline_s, bool) or not isinstance(send_deadline_s, int) or not 1 <= send_deadline_s <= 600:
        raise InvalidRequest("send_deadline_s", f"must be whole seconds from 1 to 600, got {send_deadline_s!r}")


def _body(response: Response[Any]) -> Any:
    try:
        return json.loads(response.content)
    except ValueError:
        return None


def _error(response: Response[Any], op_id: str) -> OpledgerError:
    """The error the ledger answered with, as the client's exception."""
    body = _body(response)
    status = int(response.status_code)
    try:
        detail = ErrorEnvelope.from_dict(body).error
    except (KeyError, TypeError, AttributeError):
        text = response.content.decode("utf-8", "replace")[:200]
        return ApiError(status, "http_error", text or f"HTTP {status}")
    details = {name: value for name, value in detail.to_dict().items() if name not in ("code", "message")}
    if detail.code == "idempotency_conflict":
        return IdempotencyConflict(op_id, details.get("diff") or [], details.get("stored") or {}, detail.message)
    if detail.code == "invalid_request":
        return InvalidRequest(details.get("field"), detail.message)
    return ApiError(status, detail.code, detail.message, details)


def _unanswered(exc: Exception) -> ApiError:
    """No answer from the ledger, or one that is not what the API document says."""
    if isinstance(exc, httpx.TransportError):
        return ApiError(None, "unreachable", f"the ledger did not answer ({type(exc).__name__}: {exc})")
    return ApiError(None, "bad_answer", f"the ledger's answer could not be read ({type(exc).__name__}: {exc})")


def _answer(response: Response[Any], op_id: str, *ok: int) -> dict[str, Any]:
    body = _body(response)
    if response.status_code in ok and isinstance(body, dict):
        return body
    raise _error(response, op_id)


def _view(raw: dict[str, Any]) -> OperationView:
    return OperationView.from_dict(raw)


def _settled(raw: dict[str, Any], message: str, value: Any, sent_now: bool) -> Settled:
    view = _view(raw)
    refs = list(view.external_refs)
    return Settled(
        op_id=view.op_id,
        state=view.state,
        external_id=refs[0].split("/", 2)[-1] if refs else None,
        external_refs=refs,
        message=message,
        value=value,
        sent_now=sent_now,
        operation=raw,
    )


def _refusal(raw: dict[str, Any], console_url: str) -> OpledgerError:
    """Why nothing may be sent for an operation in this state (not settled, not sendable)."""
    view = _view(raw)
    if view.state == "pending_approval":
        return ApprovalPending(view.op_id, f"{console_url}/operations/{view.op_id}", raw)
    if view.state == "denied":
        return Denied(view.op_id, raw)
    if view.state in ("rejected", "cancelled"):
        return OperationFailed(view.op_id, view.state, view.message, raw)
    return OutcomeUnknown(view.op_id, view.message, raw)


def _existing(raw: dict[str, Any], console_url: str) -> Settled | None:
    """The result of an operation found in the ledger; None when it may be sent now."""
    state = _view(raw).state
    if state in _SETTLED:
        return _settled(raw, raw["message"], None, sent_now=False)
    if state in _SENDABLE:
        return None
    raise _refusal(raw, console_url)


def _concluded(raw: dict[str, Any], message: str, value: Any, console_url: str) -> Settled:
    """The result of an operation after this call reported its attempt."""
    view = _view(raw)
    if view.state in _SETTLED:
        return _settled(raw, message, value, sent_now=True)
    if view.state in _SENDABLE:
        raise NotSent(view.op_id, message, raw)
    raise _refusal(raw, console_url)


def _unrecorded(op: Operation, why: str) -> OutcomeUnknown:
    deadline = op.send_deadline.isoformat()
    return OutcomeUnknown(
        op.op_id, f"The outcome could not be recorded ({why}); do not send again; it is looked up after {deadline}."
    )


def _resolve(value: Callable[..., T] | T, args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    return value(*args, **kwargs) if callable(value) else value


def _intent_of_call(
    kind: str,
    provider: str,
    op_id: Callable[..., str] | str,
    subject: Callable[..., str] | str,
    params: Callable[..., Mapping[str, Any]] | Mapping[str, Any],
    on_behalf_of: Callable[..., str | None] | str | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> RegisterBody:
    """The intent of one call of a decorated function, from the call's own arguments."""
    return _intent(
        kind,
        _resolve(op_id, args, kwargs),
        _resolve(subject, args, kwargs),
        provider,
        _resolve(params, args, kwargs),
        _resolve(on_behalf_of, args, kwargs),
    )


def _poll_s(timeout: float, remaining: float) -> int:
    """How long one read may wait for a change: within the call's own timeout."""
    return max(1, min(_MAX_WAIT_S, int(timeout) - 5, math.ceil(remaining)))


class _Base:
    def __init__(
        self,
        base_url: str,
        token: str,
        console_url: str | None,
        timeout: float,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None,
    ) -> None:
        base_url = base_url.rstrip("/")
        self._console_url = (console_url or base_url).rstrip("/")
        self._timeout = timeout
        httpx_args = {"transport": transport} if transport is not None else {}
        self._api = AuthenticatedClient(
            base_url=base_url,
            token=token,
            timeout=httpx.Timeout(timeout),
            headers={"User-Agent": f"opledger-python/{_VERSION}"},
            httpx_args=httpx_args,
        )


class Ledger(_Base):
    """The ledger API, for code that blocks; safe to share between threads."""

    def __init__(
        self,
        base_url: str,
        token: str,
        console_url: str | None = None,
        timeout: float = 30.0,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, token, console_url, timeout, transport)
        self._api.get_httpx_client()

    def close(self) -> None:
        self._api.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def begin(
        self,
        *,
        kind: str,
        op_id: str,
        subject: str,
        provider: str,
        params: Mapping[str, Any],
        send_deadline_s: int = DEFAULT_SEND_DEADLINE_S,
        on_behalf_of: str | None = None,
    ) -> Iterator[Operation]:
        """Registers the intent, begins an attempt and yields it; reports the outcome at the end.

        Raises before the block for an operation that must not be sent now (`ApprovalPending`,
        `Denied`, `OperationFailed`, `OutcomeUnknown`), and after it as the outcome says.
        """
        op = self._open(_intent(kind, op_id, subject, provider, params, on_behalf_of), send_deadline_s)
        try:
            yield op
        except _AlreadySettled:
            return
        except Exception as exc:
            if op.result is None:
                self._after_error(op, exc)
            raise
        if op.result is None:
            self._close(op)

    def operation(
        self,
        *,
        kind: str,
        provider: str,
        op_id: Callable[..., str] | str,
        subject: Callable[..., str] | str,
        params: Callable[..., Mapping[str, Any]] | Mapping[str, Any],
        send_deadline_s: int = DEFAULT_SEND_DEADLINE_S,
        on_behalf_of: Callable[..., str | None] | str | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Settled]]:
        """Wraps a function that sends (it gets `op=`) so that a call returns a `Settled`.

        `op_id`, `subject`, `params` (and `on_behalf_of`) are values or functions of the call's
        arguments; the op id must come from the business intent, never from a run or workflow id.
        The function's return value (the provider's object) is recorded unless it recorded one.
        """

        def decorate(fn: Callable[..., Any]) -> Callable[..., Settled]:
            @functools.wraps(fn)
            def run(*args: Any, **kwargs: Any) -> Settled:
                intent = _intent_of_call(kind, provider, op_id, subject, params, on_behalf_of, args, kwargs)
                op = self._open(intent, send_deadline_s)
                if op.result is not None:
                    return op.result
                try:
                    op._returned(fn(*args, op=op, **kwargs))
                except Exception as exc:
                    self._after_error(op, exc)
                    raise
                return self._close(op)

            return run

        return decorate

    def needs_approval(
        self,
        *,
        kind: str,
        op_id: str,
        subject: str,
        provider: str,
        params: Mapping[str, Any],
        on_behalf_of: str | None = None,
    ) -> bool:
        """Registers the intent (idempotent) and says whether it waits for a person's approval."""
        raw = self._register(_intent(kind, op_id, subject, provider, params, on_behalf_of))
        return bool(raw["state"] == "pending_approval")

    def get(self, op_id: str) -> dict[str, Any]:
        """The operation with its attempts, external ids and audit trail."""
        return self._read(op_id, 0, None)

    def wait(self, op_id: str, timeout_s: float = 60) -> dict[str, Any]:
        """The operation once it leaves the open state it is in now, or as it stands at `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        raw = self.get(op_id)
        start = raw["state"]
        while start not in _FINISHED and raw["state"] == start:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            raw = self._read(op_id, _poll_s(self._timeout, remaining), start)
        return raw

    def settled(self, op_id: str, timeout_s: float = 120) -> Settled:
        """Waits until the operation is `succeeded` or `accepted`.

        Raises `OperationFailed` or `Denied` when it ends otherwise, and `OutcomeUnknown` when it
        is still open at `timeout_s`.
        """
        deadline = time.monotonic() + timeout_s
        raw = self.get(op_id)
        while True:
            state = raw["state"]
            if state in _SETTLED:
                return _settled(raw, raw["message"], None, sent_now=False)
            if state in _FINISHED:
                raise _refusal(raw, self._console_url)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OutcomeUnknown(op_id, raw["message"], raw)
            raw = self._read(op_id, _poll_s(self._timeout, remaining), state)

    def _call(self, endpoint: Callable[..., Response[Any]], **kwargs: Any) -> Response[Any]:
        try:
            return endpoint(client=self._api, **kwargs)
        except (httpx.TransportError, ValueError, KeyError, TypeError) as exc:
            raise _unanswered(exc) from exc

    def _register(self, intent: RegisterBody) -> dict[str, Any]:
        return _answer(self._call(register.sync_detailed, body=intent), intent.op_id, 200, 201)

    def _read(self, op_id: str, wait: int, state: str | None) -> dict[str, Any]:
        response = self._call(read_operation.sync_detailed, op_id=op_id, wait=wait or UNSET, state=state or UNSET)
        return _answer(response, op_id, 200)

    def _open(self, intent: RegisterBody, send_deadline_s: int) -> Operation:
        _check_deadline(send_deadline_s)
        op_id = intent.op_id
        found = _existing(self._register(intent), self._console_url)
        if found is not None:
            return Operation(op_id, result=found)
        response = self._call(begin_attempt.sync_detailed, op_id=op_id, body=BeginBody(send_deadline_s=send_deadline_s))
        if response.status_code == 409:
            refusal = _error(response, op_id)
            found = _existing(self.get(op_id), self._console_url)
            if found is not None:
                return Operation(op_id, result=found)
            raise NotSent(op_id, refusal.message)
        return Operation(op_id, started=AttemptStarted.from_dict(_answer(response, op_id, 201)))

    def _close(self, op: Operation) -> Settled:
        outcome = op._outcome or {"outcome": "timeout", "error": "the code that sent it recorded no outcome"}
        try:
            response = self._call(
                record_outcome.sync_detailed, op_id=op.op_id, attempt=op._number, body=op._report(outcome)
            )
            if response.status_code == 409:
                raw = self.get(op.op_id)
                message = raw["message"]
            else:
                body = _answer(response, op.op_id, 200)
                raw, message = body["operation"], OperationAnswer.from_dict(body).message
        except OpledgerError as exc:
            raise _unrecorded(op, str(exc)) from exc
        op.result = _concluded(raw, message, op._value, self._console_url)
        return op.result

    def _after_error(self, op: Operation, exc: Exception) -> None:
        """Reports what the exception says happened; raises what it means, else returns."""
        if op._outcome is None:
            op._outcome = _outcome_of_error(exc, op._sent)
        try:
            self._close(op)
        except OpledgerError as err:
            raise err from exc


class AsyncLedger(_Base):
    """The ledger API for asyncio code: the same calls as `Ledger`, awaited."""

    def __init__(
        self,
        base_url: str,
        token: str,
        console_url: str | None = None,
        timeout: float = 30.0,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, token, console_url, timeout, transport)
        self._api.get_async_httpx_client()

    async def aclose(self) -> None:
        await self._api.get_async_httpx_client().aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @asynccontextmanager
    async def begin(
        self,
        *,
        kind: str,
        op_id: str,
        subject: str,
        provider: str,
        params: Mapping[str, Any],
        send_deadline_s: int = DEFAULT_SEND_DEADLINE_S,
        on_behalf_of: str | None = None,
    ) -> AsyncIterator[Operation]:
        """`async with ledger.begin(...) as op:` as `Ledger.begin`."""
        op = await self._open(_intent(kind, op_id, subject, provider, params, on_behalf_of), send_deadline_s)
        try:
            yield op
        except _AlreadySettled:
            return
        except Exception as exc:
            if op.result is None:
                await self._after_error(op, exc)
            raise
        if op.result is None:
            await self._close(op)

    def operation(
        self,
        *,
        kind: str,
        provider: str,
        op_id: Callable[..., str] | str,
        subject: Callable[..., str] | str,
        params: Callable[..., Mapping[str, Any]] | Mapping[str, Any],
        send_deadline_s: int = DEFAULT_SEND_DEADLINE_S,
        on_behalf_of: Callable[..., str | None] | str | None = None,
    ) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Settled]]]:
        """Wraps an `async def` that sends, as `Ledger.operation` does."""

        def decorate(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Settled]]:
            @functools.wraps(fn)
            async def run(*args: Any, **kwargs: Any) -> Settled:
                intent = _intent_of_call(kind, provider, op_id, subject, params, on_behalf_of, args, kwargs)
                op = await self._open(intent, send_deadline_s)
                if op.result is not None:
                    return op.result
                try:
                    op._returned(await fn(*args, op=op, **kwargs))
                except Exception as exc:
                    await self._after_error(op, exc)
                    raise
                return await self._close(op)

            return run

        return decorate

    async def needs_approval(
        self,
        *,
        kind: str,
        op_id: str,
        subject: str,
        provider: str,
        params: Mapping[str, Any],
        on_behalf_of: str | None = None,
    ) -> bool:
        """Registers the intent (idempotent) and says whether it waits for a person's approval."""
        raw = await self._register(_intent(kind, op_id, subject, provider, params, on_behalf_of))
        return bool(raw["state"] == "pending_approval")

    async def get(self, op_id: str) -> dict[str, Any]:
        """The operation with its attempts, external ids and audit trail."""
        return await self._read(op_id, 0, None)

    async def wait(self, op_id: str, timeout_s: float = 60) -> dict[str, Any]:
        """The operation once it leaves the open state it is in now, or as it stands at `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        raw = await self.get(op_id)
        start = raw["state"]
        while start not in _FINISHED and raw["state"] == start:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            raw = await self._read(op_id, _poll_s(self._timeout, remaining), start)
        return raw

    async def settled(self, op_id: str, timeout_s: float = 120) -> Settled:
        """Waits until the operation is `succeeded` or `accepted`, as `Ledger.settled`."""
        deadline = time.monotonic() + timeout_s
        raw = await self.get(op_id)
        while True:
            state = raw["state"]
            if state in _SETTLED:
                return _settled(raw, raw["message"], None, sent_now=False)
            if state in _FINISHED:
                raise _refusal(raw, self._console_url)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OutcomeUnknown(op_id, raw["message"], raw)
            raw = await self._read(op_id, _poll_s(self._timeout, remaining), state)

    async def _call(self, endpoint: Callable[..., Awaitable[Response[Any]]], **kwargs: Any) -> Response[Any]:
        try:
            return await endpoint(client=self._api, **kwargs)
        except (httpx.TransportError, ValueError, KeyError, TypeError) as exc:
            raise _unanswered(exc) from exc

    async def _register(self, intent: RegisterBody) -> dict[str, Any]:
        response = await self._call(register.asyncio_detailed, body=intent)
        return _answer(response, intent.op_id, 200, 201)

    async def _read(self, op_id: str, wait: int, state: str | None) -> dict[str, Any]:
        response = await self._call(
            read_operation.asyncio_detailed, op_id=op_id, wait=wait or UNSET, state=state or UNSET
        )
        return _answer(response, op_id, 200)

    async def _open(self, intent: RegisterBody, send_deadline_s: int) -> Operation:
        _check_deadline(send_deadline_s)
        op_id = intent.op_id
        found = _existing(await self._register(intent), self._console_url)
        if found is not None:
            return Operation(op_id, result=found)
        response = await self._call(
            begin_attempt.asyncio_detailed, op_id=op_id, body=BeginBody(send_deadline_s=send_deadline_s)
        )
        if response.status_code == 409:
            refusal = _error(response, op_id)
            found = _existing(await self.get(op_id), self._console_url)
            if found is not None:
                return Operation(op_id, result=found)
            raise NotSent(op_id, refusal.message)
        return Operation(op_id, started=AttemptStarted.from_dict(_answer(response, op_id, 201)))

    async def _close(self, op: Operation) -> Settled:
        outcome = op._outcome or {"outcome": "timeout", "error": "the code that sent it recorded no outcome"}
        try:
            response = await self._call(
                record_outcome.asyncio_detailed, op_id=op.op_id, attempt=op._number, body=op._report(outcome)
            )
            if response.status_code == 409:
                raw = await self.get(op.op_id)
                message = raw["message"]
            else:
                body = _answer(response, op.op_id, 200)
                raw, message = body["operation"], OperationAnswer.from_dict(body).message
        except OpledgerError as exc:
            raise _unrecorded(op, str(exc)) from exc
        op.result = _concluded(raw, message, op._value, self._console_url)
        return op.result

    async def _after_error(self, op: Operation, exc: Exception) -> None:
        """Reports what the exception says happened; raises what it means, else returns."""
        if op._outcome is None:
            op._outcome = _outcome_of_error(exc, op._sent)
        try:
            await self._close(op)
        except OpledgerError as err:
            raise err from exc
