from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="EmailRequest")


@_attrs_define
class EmailRequest:
    """One of the tenant's email templates, to one order's customer.

    Attributes:
        order_id (str): The order's id in the shop, e.g. "1043".
        template (str): The template's name, as the admin page lists it, e.g. "refund_issued".
        locale (None | str | Unset): The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-
            CN"
            (Simplified Chinese). Leave it out to use the shop's own.
    """

    order_id: str
    template: str
    locale: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        order_id = self.order_id

        template = self.template

        locale: None | str | Unset
        if isinstance(self.locale, Unset):
            locale = UNSET
        else:
            locale = self.locale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "order_id": order_id,
                "template": template,
            }
        )
        if locale is not UNSET:
            field_dict["locale"] = locale

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        order_id = d.pop("order_id")

        template = d.pop("template")

        def _parse_locale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        locale = _parse_locale(d.pop("locale", UNSET))

        email_request = cls(
            order_id=order_id,
            template=template,
            locale=locale,
        )

        return email_request
