from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BeginBody")


@_attrs_define
class BeginBody:
    """What an agent may declare when it begins an attempt.

    Attributes:
        send_deadline_s (int | None | Unset): How long its send may take, in seconds (1 to 600; 60 when left out): until
            then the
            operation is not looked up or re-sent by anyone else.
    """

    send_deadline_s: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        send_deadline_s: int | None | Unset
        if isinstance(self.send_deadline_s, Unset):
            send_deadline_s = UNSET
        else:
            send_deadline_s = self.send_deadline_s

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if send_deadline_s is not UNSET:
            field_dict["send_deadline_s"] = send_deadline_s

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_send_deadline_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        send_deadline_s = _parse_send_deadline_s(d.pop("send_deadline_s", UNSET))

        begin_body = cls(
            send_deadline_s=send_deadline_s,
        )

        return begin_body
