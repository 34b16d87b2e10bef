from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.operation_view import OperationView


T = TypeVar("T", bound="AttemptStarted")


@_attrs_define
class AttemptStarted:
    """The answer to a new attempt.

    Attributes:
        attempt (int):
        idempotency_key (str): Send with this `Idempotency-Key` and write it into the downstream object's metadata.
        message (str):
        operation (OperationView): What the API shows of an operation: its state with what it means for the caller, its
            parameters and fingerprint, attempts, external ids and, when read alone, its audit trail.
        send_deadline (datetime.datetime): Until when the send is taken to be in flight: nothing settles the operation
            before this.
    """

    attempt: int
    idempotency_key: str
    message: str
    operation: OperationView
    send_deadline: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        idempotency_key = self.idempotency_key

        message = self.message

        operation = self.operation.to_dict()

        send_deadline = self.send_deadline.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "idempotency_key": idempotency_key,
                "message": message,
                "operation": operation,
                "send_deadline": send_deadline,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.operation_view import OperationView

        d = dict(src_dict)
        attempt = d.pop("attempt")

        idempotency_key = d.pop("idempotency_key")

        message = d.pop("message")

        operation = OperationView.from_dict(d.pop("operation"))

        send_deadline = datetime.datetime.fromisoformat(d.pop("send_deadline"))

        attempt_started = cls(
            attempt=attempt,
            idempotency_key=idempotency_key,
            message=message,
            operation=operation,
            send_deadline=send_deadline,
        )

        attempt_started.additional_properties = d
        return attempt_started

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
