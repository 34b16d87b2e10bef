from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.register_body_params import RegisterBodyParams


T = TypeVar("T", bound="RegisterBody")


@_attrs_define
class RegisterBody:
    """A request to record an operation before anything is sent.

    Attributes:
        kind (str): What the operation does, e.g. `refund`, `create_aftersale`.
        op_id (str): Derived from the business intent, e.g. `refund-1043-li_2`; the idempotency key downstream.
        params (RegisterBodyParams): Canonical parameters: integers only; money as `{"minor": 38000, "currency":
            "TWD"}`.
        provider (str): Who performs it, e.g. `stripe`.
        subject (str): The business object it concerns, e.g. `order:1043`: letters (any script), digits, spaces
            and `-_.:/#@+`, 1 to 200 of them once spaces at either end are trimmed; never `<`, `>`,
            `&`, quotes, a backslash or a control character.
        compensates (None | str | Unset): The op id of the operation this one compensates (a refund for a refused
            pickup, say).
        key_retention_s (int | None | Unset): How long the provider remembers an idempotency key; default 86400
            (Stripe's 24 hours). At
            most the window its connection declares (none for a downstream that honours no key), and
            at most 45 days (3888000) for a provider opledger does not know.
        on_behalf_of (None | str | Unset): The person on whose behalf the agent asks, recorded in the register event.
            The requester
            four-eyes compares with the approver is always the token's own name, never this. 1 to 200
            characters, no control characters, not only spaces.
    """

    kind: str
    op_id: str
    params: RegisterBodyParams
    provider: str
    subject: str
    compensates: None | str | Unset = UNSET
    key_retention_s: int | None | Unset = UNSET
    on_behalf_of: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        op_id = self.op_id

        params = self.params.to_dict()

        provider = self.provider

        subject = self.subject

        compensates: None | str | Unset
        if isinstance(self.compensates, Unset):
            compensates = UNSET
        else:
            compensates = self.compensates

        key_retention_s: int | None | Unset
        if isinstance(self.key_retention_s, Unset):
            key_retention_s = UNSET
        else:
            key_retention_s = self.key_retention_s

        on_behalf_of: None | str | Unset
        if isinstance(self.on_behalf_of, Unset):
            on_behalf_of = UNSET
        else:
            on_behalf_of = self.on_behalf_of

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "op_id": op_id,
                "params": params,
                "provider": provider,
                "subject": subject,
            }
        )
        if compensates is not UNSET:
            field_dict["compensates"] = compensates
        if key_retention_s is not UNSET:
            field_dict["key_retention_s"] = key_retention_s
        if on_behalf_of is not UNSET:
            field_dict["on_behalf_of"] = on_behalf_of

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.register_body_params import RegisterBodyParams

        d = dict(src_dict)
        kind = d.pop("kind")

        op_id = d.pop("op_id")

        params = RegisterBodyParams.from_dict(d.pop("params"))

        provider = d.pop("provider")

        subject = d.pop("subject")

        def _parse_compensates(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        compensates = _parse_compensates(d.pop("compensates", UNSET))

        def _parse_key_retention_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        key_retention_s = _parse_key_retention_s(d.pop("key_retention_s", UNSET))

        def _parse_on_behalf_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        on_behalf_of = _parse_on_behalf_of(d.pop("on_behalf_of", UNSET))

        register_body = cls(
            kind=kind,
            op_id=op_id,
            params=params,
            provider=provider,
            subject=subject,
            compensates=compensates,
            key_retention_s=key_retention_s,
            on_behalf_of=on_behalf_of,
        )

        return register_body
