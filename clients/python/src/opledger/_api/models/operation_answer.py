from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.operation_view import OperationView


T = TypeVar("T", bound="OperationAnswer")


@_attrs_define
class OperationAnswer:
    """An operation after a change, with what it means for the caller.

    Attributes:
        message (str):
        operation (OperationView): What the API shows of an operation: its state with what it means for the caller, its
            parameters and fingerprint, attempts, external ids and, when read alone, its audit trail.
    """

    message: str
    operation: OperationView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        operation = self.operation.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "operation": operation,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.operation_view import OperationView

        d = dict(src_dict)
        message = d.pop("message")

        operation = OperationView.from_dict(d.pop("operation"))

        operation_answer = cls(
            message=message,
            operation=operation,
        )

        operation_answer.additional_properties = d
        return operation_answer

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
