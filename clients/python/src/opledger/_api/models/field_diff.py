from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FieldDiff")


@_attrs_define
class FieldDiff:
    """One field that differs between the stored and the requested parameters. A field missing on one
    side is `None` there.

        Attributes:
            field (str):
            requested (Any | Unset):
            stored (Any | Unset):
    """

    field: str
    requested: Any | Unset = UNSET
    stored: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        requested = self.requested

        stored = self.stored

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "field": field,
            }
        )
        if requested is not UNSET:
            field_dict["requested"] = requested
        if stored is not UNSET:
            field_dict["stored"] = stored

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        requested = d.pop("requested", UNSET)

        stored = d.pop("stored", UNSET)

        field_diff = cls(
            field=field,
            requested=requested,
            stored=stored,
        )

        field_diff.additional_properties = d
        return field_diff

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
