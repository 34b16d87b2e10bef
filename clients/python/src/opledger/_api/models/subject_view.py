from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.operation_view import OperationView


T = TypeVar("T", bound="SubjectView")


@_attrs_define
class SubjectView:
    """One order's operations and roll-up.

    Attributes:
        operations (list[OperationView]):
        status_label (str):
        subject (str):
    """

    operations: list[OperationView]
    status_label: str
    subject: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.to_dict()
            operations.append(operations_item)

        status_label = self.status_label

        subject = self.subject

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operations": operations,
                "status_label": status_label,
                "subject": subject,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.operation_view import OperationView

        d = dict(src_dict)
        operations = []
        _operations = d.pop("operations")
        for operations_item_data in _operations:
            operations_item = OperationView.from_dict(operations_item_data)

            operations.append(operations_item)

        status_label = d.pop("status_label")

        subject = d.pop("subject")

        subject_view = cls(
            operations=operations,
            status_label=status_label,
            subject=subject,
        )

        subject_view.additional_properties = d
        return subject_view

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
