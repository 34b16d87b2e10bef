from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_status import ToolStatus, check_tool_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolAnswer")


@_attrs_define
class ToolAnswer:
    """
    Attributes:
        for_customer (str): The one sentence to tell the customer, alone, in the customer's language.
        locale (str): The customer's language: the call's `locale`, its `Accept-Language`, or the tenant's.
        message (str): For the model, in English, with the customer sentence quoted in the customer's language.
        op_id (str):
        status (ToolStatus): What the tool tells the model.
        external_id (None | str | Unset):
    """

    for_customer: str
    locale: str
    message: str
    op_id: str
    status: ToolStatus
    external_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        for_customer = self.for_customer

        locale = self.locale

        message = self.message

        op_id = self.op_id

        status: str = self.status

        external_id: None | str | Unset
        if isinstance(self.external_id, Unset):
            external_id = UNSET
        else:
            external_id = self.external_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "for_customer": for_customer,
                "locale": locale,
                "message": message,
                "op_id": op_id,
                "status": status,
            }
        )
        if external_id is not UNSET:
            field_dict["external_id"] = external_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        for_customer = d.pop("for_customer")

        locale = d.pop("locale")

        message = d.pop("message")

        op_id = d.pop("op_id")

        status = check_tool_status(d.pop("status"))

        def _parse_external_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        external_id = _parse_external_id(d.pop("external_id", UNSET))

        tool_answer = cls(
            for_customer=for_customer,
            locale=locale,
            message=message,
            op_id=op_id,
            status=status,
            external_id=external_id,
        )

        tool_answer.additional_properties = d
        return tool_answer

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
