from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RefundRequest")


@_attrs_define
class RefundRequest:
    """The refund of one line item; after a refund of it failed at the provider, its retry on purpose.

    Attributes:
        line_item_id (str): The line item's id in that order, e.g. "li_2".
        order_id (str): The order's id in the shop, e.g. "1043".
        failed_op_id (None | str | Unset): With retry_after_failure: the op_id of the refund that failed, as the answer
            gave it.
        locale (None | str | Unset): The language to tell the customer in: "en", "zh-TW" (Traditional Chinese) or "zh-
            CN"
            (Simplified Chinese). Leave it out to use the shop's own.
        retry_after_failure (bool | Unset): Only after an answer with status "failed_at_provider": true to refund the
            item again, on
            purpose. Leave it out otherwise: it is never done without it.
    """

    line_item_id: str
    order_id: str
    failed_op_id: None | str | Unset = UNSET
    locale: None | str | Unset = UNSET
    retry_after_failure: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        line_item_id = self.line_item_id

        order_id = self.order_id

        failed_op_id: None | str | Unset
        if isinstance(self.failed_op_id, Unset):
            failed_op_id = UNSET
        else:
            failed_op_id = self.failed_op_id

        locale: None | str | Unset
        if isinstance(self.locale, Unset):
            locale = UNSET
        else:
            locale = self.locale

        retry_after_failure = self.retry_after_failure

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "line_item_id": line_item_id,
                "order_id": order_id,
            }
        )
        if failed_op_id is not UNSET:
            field_dict["failed_op_id"] = failed_op_id
        if locale is not UNSET:
            field_dict["locale"] = locale
        if retry_after_failure is not UNSET:
            field_dict["retry_after_failure"] = retry_after_failure

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        line_item_id = d.pop("line_item_id")

        order_id = d.pop("order_id")

        def _parse_failed_op_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failed_op_id = _parse_failed_op_id(d.pop("failed_op_id", UNSET))

        def _parse_locale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        locale = _parse_locale(d.pop("locale", UNSET))

        retry_after_failure = d.pop("retry_after_failure", UNSET)

        refund_request = cls(
            line_item_id=line_item_id,
            order_id=order_id,
            failed_op_id=failed_op_id,
            locale=locale,
            retry_after_failure=retry_after_failure,
        )

        return refund_request
