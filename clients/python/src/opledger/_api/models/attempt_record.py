from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AttemptRecord")


@_attrs_define
class AttemptRecord:
    """One send of an operation (also the ledger API's schema of an attempt).

    Attributes:
        idempotency_key (str):
        number (int):
        sent_by (str):
        started_at (datetime.datetime):
        deadline_at (datetime.datetime | None | Unset): Until when the attempt's send may still be in flight: the
            executor's deadline for its run,
            the deadline an agent declared (or the server's default for agents), or a re-send's own
            timeout. Nothing presumes the sender gone before it.
        error (None | str | Unset):
        finished_at (datetime.datetime | None | Unset):
        http_status (int | None | Unset):
        latency_ms (int | None | Unset):
        outcome (None | str | Unset): `succeeded`, a failure class name, `no_report`, or `None` while open.
        retry_after_s (int | None | Unset):
        send_budget (int | None | Unset): The executor's budget for the run that made this attempt: at most this many
            sends.
    """

    idempotency_key: str
    number: int
    sent_by: str
    started_at: datetime.datetime
    deadline_at: datetime.datetime | None | Unset = UNSET
    error: None | str | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    http_status: int | None | Unset = UNSET
    latency_ms: int | None | Unset = UNSET
    outcome: None | str | Unset = UNSET
    retry_after_s: int | None | Unset = UNSET
    send_budget: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        idempotency_key = self.idempotency_key

        number = self.number

        sent_by = self.sent_by

        started_at = self.started_at.isoformat()

        deadline_at: None | str | Unset
        if isinstance(self.deadline_at, Unset):
            deadline_at = UNSET
        elif isinstance(self.deadline_at, datetime.datetime):
            deadline_at = self.deadline_at.isoformat()
        else:
            deadline_at = self.deadline_at

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        http_status: int | None | Unset
        if isinstance(self.http_status, Unset):
            http_status = UNSET
        else:
            http_status = self.http_status

        latency_ms: int | None | Unset
        if isinstance(self.latency_ms, Unset):
            latency_ms = UNSET
        else:
            latency_ms = self.latency_ms

        outcome: None | str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        else:
            outcome = self.outcome

        retry_after_s: int | None | Unset
        if isinstance(self.retry_after_s, Unset):
            retry_after_s = UNSET
        else:
            retry_after_s = self.retry_after_s

        send_budget: int | None | Unset
        if isinstance(self.send_budget, Unset):
            send_budget = UNSET
        else:
            send_budget = self.send_budget

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "idempotency_key": idempotency_key,
                "number": number,
                "sent_by": sent_by,
                "started_at": started_at,
            }
        )
        if deadline_at is not UNSET:
            field_dict["deadline_at"] = deadline_at
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if http_status is not UNSET:
            field_dict["http_status"] = http_status
        if latency_ms is not UNSET:
            field_dict["latency_ms"] = latency_ms
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if retry_after_s is not UNSET:
            field_dict["retry_after_s"] = retry_after_s
        if send_budget is not UNSET:
            field_dict["send_budget"] = send_budget

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        idempotency_key = d.pop("idempotency_key")

        number = d.pop("number")

        sent_by = d.pop("sent_by")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        def _parse_deadline_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deadline_at_type_0 = datetime.datetime.fromisoformat(data)

                return deadline_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        deadline_at = _parse_deadline_at(d.pop("deadline_at", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_http_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        http_status = _parse_http_status(d.pop("http_status", UNSET))

        def _parse_latency_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        latency_ms = _parse_latency_ms(d.pop("latency_ms", UNSET))

        def _parse_outcome(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        outcome = _parse_outcome(d.pop("outcome", UNSET))

        def _parse_retry_after_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after_s = _parse_retry_after_s(d.pop("retry_after_s", UNSET))

        def _parse_send_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        send_budget = _parse_send_budget(d.pop("send_budget", UNSET))

        attempt_record = cls(
            idempotency_key=idempotency_key,
            number=number,
            sent_by=sent_by,
            started_at=started_at,
            deadline_at=deadline_at,
            error=error,
            finished_at=finished_at,
            http_status=http_status,
            latency_ms=latency_ms,
            outcome=outcome,
            retry_after_s=retry_after_s,
            send_budget=send_budget,
        )

        attempt_record.additional_properties = d
        return attempt_record

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
