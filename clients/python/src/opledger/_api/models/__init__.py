"""Contains all the data models used in inputs/outputs"""

from .approval import Approval
from .attempt_record import AttemptRecord
from .attempt_started import AttemptStarted
from .begin_body import BeginBody
from .cancel_body import CancelBody
from .email_request import EmailRequest
from .error_detail import ErrorDetail
from .error_details import ErrorDetails
from .error_envelope import ErrorEnvelope
from .field_diff import FieldDiff
from .key_view import KeyView
from .line_item_request import LineItemRequest
from .money import Money
from .operation_answer import OperationAnswer
from .operation_view import OperationView
from .operation_view_audit_type_0_item import OperationViewAuditType0Item
from .operation_view_params import OperationViewParams
from .outcome_body import OutcomeBody
from .outcome_name import OutcomeName
from .pickup_request import PickupRequest
from .refund_request import RefundRequest
from .register_body import RegisterBody
from .register_body_params import RegisterBodyParams
from .state import State
from .subject_view import SubjectView
from .tool_answer import ToolAnswer
from .tool_status import ToolStatus

__all__ = (
    "Approval",
    "AttemptRecord",
    "AttemptStarted",
    "BeginBody",
    "CancelBody",
    "EmailRequest",
    "ErrorDetail",
    "ErrorDetails",
    "ErrorEnvelope",
    "FieldDiff",
    "KeyView",
    "LineItemRequest",
    "Money",
    "OperationAnswer",
    "OperationView",
    "OperationViewAuditType0Item",
    "OperationViewParams",
    "OutcomeBody",
    "OutcomeName",
    "PickupRequest",
    "RefundRequest",
    "RegisterBody",
    "RegisterBodyParams",
    "State",
    "SubjectView",
    "ToolAnswer",
    "ToolStatus",
)
