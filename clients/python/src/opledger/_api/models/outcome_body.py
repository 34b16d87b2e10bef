from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.outcome_name import OutcomeName, check_outcome_name
from ..types import UNSET, Unset

T = TypeVar("T", bound="OutcomeBody")


@_attrs_define
class OutcomeBody:
    """The outcome of one attempt, read from the provider's object where it answered with one:
    `succeeded` when its status says done, `accepted` while it says pending, `failed_at_provider`
    (with the provider's reason in `error`) when it says failed. `timeout` and `server_error` make
    the operation unknown.

        Attributes:
            outcome (OutcomeName): How an attempt ended, as the sender reports it.
            error (None | str | Unset):
            external_id (None | str | Unset):
            http_status (int | None | Unset):
            latency_ms (int | None | Unset):
            retry_after_s (int | None | Unset):
    """

    outcome: OutcomeName
    error: None | str | Unset = UNSET
    external_id: None | str | Unset = UNSET
    http_status: int | None | Unset = UNSET
    latency_ms: int | None | Unset = UNSET
    retry_after_s: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        outcome: str = self.outcome

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        external_id: None | str | Unset
        if isinstance(self.external_id, Unset):
            external_id = UNSET
        else:
            external_id = self.external_id

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

        retry_after_s: int | None | Unset
        if isinstance(self.retry_after_s, Unset):
            retry_after_s = UNSET
        else:
            retry_after_s = self.retry_after_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "outcome": outcome,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if external_id is not UNSET:
            field_dict["external_id"] = external_id
        if http_status is not UNSET:
            field_dict["http_status"] = http_status
        if latency_ms is not UNSET:
            field_dict["latency_ms"] = latency_ms
        if retry_after_s is not UNSET:
            field_dict["retry_after_s"] = retry_after_s

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        outcome = check_outcome_name(d.pop("outcome"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_external_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        external_id = _parse_external_id(d.pop("external_id", UNSET))

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

        def _parse_retry_after_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after_s = _parse_retry_after_s(d.pop("retry_after_s", UNSET))

        outcome_body = cls(
            outcome=outcome,
            error=error,
            external_id=external_id,
            http_status=http_status,
            latency_ms=latency_ms,
            retry_after_s=retry_after_s,
        )

        return outcome_body
