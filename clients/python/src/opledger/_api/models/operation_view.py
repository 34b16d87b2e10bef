from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.state import State, check_state
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.approval import Approval
    from ..models.attempt_record import AttemptRecord
    from ..models.key_view import KeyView
    from ..models.money import Money
    from ..models.operation_view_audit_type_0_item import OperationViewAuditType0Item
    from ..models.operation_view_params import OperationViewParams


T = TypeVar("T", bound="OperationView")


@_attrs_define
class OperationView:
    """What the API shows of an operation: its state with what it means for the caller, its
    parameters and fingerprint, attempts, external ids and, when read alone, its audit trail.

        Attributes:
            attempts (list[AttemptRecord]):
            cancel_requested (bool):
            created_at (datetime.datetime):
            external_refs (list[str]): `provider/type/id`, for example `stripe/refund/re_7f3a`.
            fingerprint (str):
            idempotency_key (str):
            key (KeyView): The downstream idempotency key's validity, and what a re-send under it gets after the provider
                answered a 5xx (`same_key`, `retry` or `unknown`).
            kind (str):
            message (str):
            op_id (str):
            params (OperationViewParams):
            provider (str):
            requested_by (str):
            state (State): Where an operation stands.
            subject (str):
            updated_at (datetime.datetime):
            version (int):
            amount (Money | None | Unset):
            approval (Approval | None | Unset):
            audit (list[OperationViewAuditType0Item] | None | Unset):
            compensates (None | str | Unset):
            failure (None | str | Unset):
            failure_reason (None | str | Unset): When the provider accepted it and it failed there: the provider's reason
                (`expired_or_canceled_card`), and the same in words.
            retry_of (None | str | Unset): The failed operation this one makes again, on purpose.
    """

    attempts: list[AttemptRecord]
    cancel_requested: bool
    created_at: datetime.datetime
    external_refs: list[str]
    fingerprint: str
    idempotency_key: str
    key: KeyView
    kind: str
    message: str
    op_id: str
    params: OperationViewParams
    provider: str
    requested_by: str
    state: State
    subject: str
    updated_at: datetime.datetime
    version: int
    amount: Money | None | Unset = UNSET
    approval: Approval | None | Unset = UNSET
    audit: list[OperationViewAuditType0Item] | None | Unset = UNSET
    compensates: None | str | Unset = UNSET
    failure: None | str | Unset = UNSET
    failure_reason: None | str | Unset = UNSET
    retry_of: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.approval import Approval
        from ..models.money import Money

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        external_refs = self.external_refs

        fingerprint = self.fingerprint

        idempotency_key = self.idempotency_key

        key = self.key.to_dict()

        kind = self.kind

        message = self.message

        op_id = self.op_id

        params = self.params.to_dict()

        provider = self.provider

        requested_by = self.requested_by

        state: str = self.state

        subject = self.subject

        updated_at = self.updated_at.isoformat()

        version = self.version

        amount: dict[str, Any] | None | Unset
        if isinstance(self.amount, Unset):
            amount = UNSET
        elif isinstance(self.amount, Money):
            amount = self.amount.to_dict()
        else:
            amount = self.amount

        approval: dict[str, Any] | None | Unset
        if isinstance(self.approval, Unset):
            approval = UNSET
        elif isinstance(self.approval, Approval):
            approval = self.approval.to_dict()
        else:
            approval = self.approval

        audit: list[dict[str, Any]] | None | Unset
        if isinstance(self.audit, Unset):
            audit = UNSET
        elif isinstance(self.audit, list):
            audit = []
            for audit_type_0_item_data in self.audit:
                audit_type_0_item = audit_type_0_item_data.to_dict()
                audit.append(audit_type_0_item)

        else:
            audit = self.audit

        compensates: None | str | Unset
        if isinstance(self.compensates, Unset):
            compensates = UNSET
        else:
            compensates = self.compensates

        failure: None | str | Unset
        if isinstance(self.failure, Unset):
            failure = UNSET
        else:
            failure = self.failure

        failure_reason: None | str | Unset
        if isinstance(self.failure_reason, Unset):
            failure_reason = UNSET
        else:
            failure_reason = self.failure_reason

        retry_of: None | str | Unset
        if isinstance(self.retry_of, Unset):
            retry_of = UNSET
        else:
            retry_of = self.retry_of

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "external_refs": external_refs,
                "fingerprint": fingerprint,
                "idempotency_key": idempotency_key,
                "key": key,
                "kind": kind,
                "message": message,
                "op_id": op_id,
                "params": params,
                "provider": provider,
                "requested_by": requested_by,
                "state": state,
                "subject": subject,
                "updated_at": updated_at,
                "version": version,
            }
        )
        if amount is not UNSET:
            field_dict["amount"] = amount
        if approval is not UNSET:
            field_dict["approval"] = approval
        if audit is not UNSET:
            field_dict["audit"] = audit
        if compensates is not UNSET:
            field_dict["compensates"] = compensates
        if failure is not UNSET:
            field_dict["failure"] = failure
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason
        if retry_of is not UNSET:
            field_dict["retry_of"] = retry_of

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.approval import Approval
        from ..models.attempt_record import AttemptRecord
        from ..models.key_view import KeyView
        from ..models.money import Money
        from ..models.operation_view_audit_type_0_item import (
            OperationViewAuditType0Item,
        )
        from ..models.operation_view_params import OperationViewParams

        d = dict(src_dict)
        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = AttemptRecord.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        cancel_requested = d.pop("cancel_requested")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        external_refs = cast(list[str], d.pop("external_refs"))

        fingerprint = d.pop("fingerprint")

        idempotency_key = d.pop("idempotency_key")

        key = KeyView.from_dict(d.pop("key"))

        kind = d.pop("kind")

        message = d.pop("message")

        op_id = d.pop("op_id")

        params = OperationViewParams.from_dict(d.pop("params"))

        provider = d.pop("provider")

        requested_by = d.pop("requested_by")

        state = check_state(d.pop("state"))

        subject = d.pop("subject")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

        def _parse_amount(data: object) -> Money | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                amount_type_1 = Money.from_dict(data)

                return amount_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Money | None | Unset, data)

        amount = _parse_amount(d.pop("amount", UNSET))

        def _parse_approval(data: object) -> Approval | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                approval_type_1 = Approval.from_dict(data)

                return approval_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Approval | None | Unset, data)

        approval = _parse_approval(d.pop("approval", UNSET))

        def _parse_audit(
            data: object,
        ) -> list[OperationViewAuditType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                audit_type_0 = []
                _audit_type_0 = data
                for audit_type_0_item_data in _audit_type_0:
                    audit_type_0_item = OperationViewAuditType0Item.from_dict(
                        audit_type_0_item_data
                    )

                    audit_type_0.append(audit_type_0_item)

                return audit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[OperationViewAuditType0Item] | None | Unset, data)

        audit = _parse_audit(d.pop("audit", UNSET))

        def _parse_compensates(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        compensates = _parse_compensates(d.pop("compensates", UNSET))

        def _parse_failure(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure = _parse_failure(d.pop("failure", UNSET))

        def _parse_failure_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason", UNSET))

        def _parse_retry_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        retry_of = _parse_retry_of(d.pop("retry_of", UNSET))

        operation_view = cls(
            attempts=attempts,
            cancel_requested=cancel_requested,
            created_at=created_at,
            external_refs=external_refs,
            fingerprint=fingerprint,
            idempotency_key=idempotency_key,
            key=key,
            kind=kind,
            message=message,
            op_id=op_id,
            params=params,
            provider=provider,
            requested_by=requested_by,
            state=state,
            subject=subject,
            updated_at=updated_at,
            version=version,
            amount=amount,
            approval=approval,
            audit=audit,
            compensates=compensates,
            failure=failure,
            failure_reason=failure_reason,
            retry_of=retry_of,
        )

        operation_view.additional_properties = d
        return operation_view

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
