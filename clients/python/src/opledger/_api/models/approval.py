from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Approval")


@_attrs_define
class Approval:
    """A manager's approval of one operation, bound to the fingerprint of the parameters they saw.

    Attributes:
        approver (str):
        expires_at (datetime.datetime):
        fingerprint (str):
        granted_at (datetime.datetime):
    """

    approver: str
    expires_at: datetime.datetime
    fingerprint: str
    granted_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approver = self.approver

        expires_at = self.expires_at.isoformat()

        fingerprint = self.fingerprint

        granted_at = self.granted_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "approver": approver,
                "expires_at": expires_at,
                "fingerprint": fingerprint,
                "granted_at": granted_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approver = d.pop("approver")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        fingerprint = d.pop("fingerprint")

        granted_at = datetime.datetime.fromisoformat(d.pop("granted_at"))

        approval = cls(
            approver=approver,
            expires_at=expires_at,
            fingerprint=fingerprint,
            granted_at=granted_at,
        )

        approval.additional_properties = d
        return approval

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
