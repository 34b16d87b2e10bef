from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PickupRequest")


@_attrs_define
class PickupRequest:
    """The pickup of one line item whose after-sale ticket exists.

    Attributes:
        date (datetime.date): The pickup date, YYYY-MM-DD. Another date is another pickup.
        line_item_id (str): The line item's id in that order, e.g. "li_2".
        order_id (str): The order's id in the shop, e.g. "1043".
        locale (None | str | Unset): The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-
            CN"
            (Simplified Chinese). Leave it out to use the shop's own.
    """

    date: datetime.date
    line_item_id: str
    order_id: str
    locale: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

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
                "date": date,
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
        date = datetime.date.fromisoformat(d.pop("date"))

        line_item_id = d.pop("line_item_id")

        order_id = d.pop("order_id")

        def _parse_locale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        locale = _parse_locale(d.pop("locale", UNSET))

        pickup_request = cls(
            date=date,
            line_item_id=line_item_id,
            order_id=order_id,
            locale=locale,
        )

        return pickup_request
