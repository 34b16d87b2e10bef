from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="KeyView")


@_attrs_define
class KeyView:
    """The downstream idempotency key's validity, and what a re-send under it gets after the provider
    answered a 5xx (`same_key`, `retry` or `unknown`).

        Attributes:
            after_5xx (str):
            retention_s (int):
            expires_at (datetime.datetime | None | Unset):
            first_sent_at (datetime.datetime | None | Unset):
    """

    after_5xx: str
    retention_s: int
    expires_at: datetime.datetime | None | Unset = UNSET
    first_sent_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        after_5xx = self.after_5xx

        retention_s = self.retention_s

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        first_sent_at: None | str | Unset
        if isinstance(self.first_sent_at, Unset):
            first_sent_at = UNSET
        elif isinstance(self.first_sent_at, datetime.datetime):
            first_sent_at = self.first_sent_at.isoformat()
        else:
            first_sent_at = self.first_sent_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "after_5xx": after_5xx,
                "retention_s": retention_s,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if first_sent_at is not UNSET:
            field_dict["first_sent_at"] = first_sent_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        after_5xx = d.pop("after_5xx")

        retention_s = d.pop("retention_s")

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_first_sent_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                first_sent_at_type_0 = datetime.datetime.fromisoformat(data)

                return first_sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        first_sent_at = _parse_first_sent_at(d.pop("first_sent_at", UNSET))

        key_view = cls(
            after_5xx=after_5xx,
            retention_s=retention_s,
            expires_at=expires_at,
            first_sent_at=first_sent_at,
        )

        key_view.additional_properties = d
        return key_view

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
