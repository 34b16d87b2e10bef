from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_diff import FieldDiff
    from ..models.operation_view import OperationView


T = TypeVar("T", bound="ErrorDetail")


@_attrs_define
class ErrorDetail:
    """
    Attributes:
        code (str): A stable code: `unauthorized` (no valid token: unknown, revoked, expired, or an old secret
            past its rotation's grace), `insufficient_scope` (with `scope`, the one the token lacks),
            `not_found`, `invalid_request` (with `field` when one field
            is at fault), `body_too_large`,
            `idempotency_conflict` (with `diff` and `stored`), a state machine refusal such as
            `reconcile_first` or `attempt_open`, `contended`, `provider_not_connected`, `provider_unavailable`,
            `archive_untrusted` (the operation's archived history is not as it was signed: nothing of it
            is answered), `internal`.
        message (str): A sentence for people.
        diff (list[FieldDiff] | None | Unset): With `idempotency_conflict`: each parameter that differs, as stored and
            as requested.
        field (None | str | Unset): With `invalid_request`, when one field is at fault: `op_id`, `params.amount`,
            `wait`…
        scope (None | str | Unset): With `insufficient_scope`: the scope the token lacks (`tools`, `read` or `write`).
        stored (None | OperationView | Unset):
    """

    code: str
    message: str
    diff: list[FieldDiff] | None | Unset = UNSET
    field: None | str | Unset = UNSET
    scope: None | str | Unset = UNSET
    stored: None | OperationView | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.operation_view import OperationView

        code = self.code

        message = self.message

        diff: list[dict[str, Any]] | None | Unset
        if isinstance(self.diff, Unset):
            diff = UNSET
        elif isinstance(self.diff, list):
            diff = []
            for diff_type_0_item_data in self.diff:
                diff_type_0_item = diff_type_0_item_data.to_dict()
                diff.append(diff_type_0_item)

        else:
            diff = self.diff

        field: None | str | Unset
        if isinstance(self.field, Unset):
            field = UNSET
        else:
            field = self.field

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        stored: dict[str, Any] | None | Unset
        if isinstance(self.stored, Unset):
            stored = UNSET
        elif isinstance(self.stored, OperationView):
            stored = self.stored.to_dict()
        else:
            stored = self.stored

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
            }
        )
        if diff is not UNSET:
            field_dict["diff"] = diff
        if field is not UNSET:
            field_dict["field"] = field
        if scope is not UNSET:
            field_dict["scope"] = scope
        if stored is not UNSET:
            field_dict["stored"] = stored

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field_diff import FieldDiff
        from ..models.operation_view import OperationView

        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        def _parse_diff(data: object) -> list[FieldDiff] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                diff_type_0 = []
                _diff_type_0 = data
                for diff_type_0_item_data in _diff_type_0:
                    diff_type_0_item = FieldDiff.from_dict(diff_type_0_item_data)

                    diff_type_0.append(diff_type_0_item)

                return diff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FieldDiff] | None | Unset, data)

        diff = _parse_diff(d.pop("diff", UNSET))

        def _parse_field(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        field = _parse_field(d.pop("field", UNSET))

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        def _parse_stored(data: object) -> None | OperationView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stored_type_1 = OperationView.from_dict(data)

                return stored_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OperationView | Unset, data)

        stored = _parse_stored(d.pop("stored", UNSET))

        error_detail = cls(
            code=code,
            message=message,
            diff=diff,
            field=field,
            scope=scope,
            stored=stored,
        )

        error_detail.additional_properties = d
        return error_detail

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
