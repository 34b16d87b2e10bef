from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LineItemRequest")


@_attrs_define
class LineItemRequest:
    """One line item of one order of the tenant's shop.

    Attributes:
        line_item_id (str): The line item's id in that order, e.g. "li_2".
        order_id (str): The order's id in the shop, e.g. "1043".
        locale (None | str | Unset): The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-
            CN"
            (Simplified Chinese). Leave it out to use the shop's own.
    """

    line_item_id: str
    order_id: str
    locale: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        line_item_id = self.line_item_id

        order_id = self.order_id

        locale: None | str | Unset
        if isinstance(self.locale, Unset):
            locale = UNSET
        else:
            locale = self.locale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "line_item_id": line_item_id,
                "order_id": order_id,
            }
        )
        if locale is not UNSET:
            field_dict["locale"] = locale

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        line_item_id = d.pop("line_item_id")

        order_id = d.pop("order_id")

        def _parse_locale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        locale = _parse_locale(d.pop("locale", UNSET))

        line_item_request = cls(
            line_item_id=line_item_id,
            order_id=order_id,
            locale=locale,
        )

        return line_item_request
