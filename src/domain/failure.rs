//! The failure classes of an attempt and what each one means for the operation.
//!
//! A call that was sent and got no answer did not fail: its result is unknown. Only the classes
//! that prove nothing happened downstream allow another send.

use serde::{Deserialize, Serialize};

use super::language::Language;
use crate::t;

/// How one attempt ended when it did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "class")]
pub enum FailureClass {
    /// The request never left (connection refused, DNS failure): safe to send again.
    NotSent,
    /// The provider refused the parameters: fix them, which means a new operation.
    InvalidParams,
    /// Permission denied: stop.
    Forbidden,
    /// The provider decided not to do it (refund exceeds the charge, order closed): final.
    BusinessRejection,
    /// The provider took it, then it failed there or was cancelled (a Stripe refund `failed`):
    /// nothing moved, and nothing will.
    FailedAtProvider,
    /// The provider said it did not process the request (429 or 503), possibly with Retry-After:
    /// a bounded retry with the same key is safe.
    TransientUnavailable { retry_after_s: Option<u32> },
    /// Sent, and no answer came back in time: the result is unknown.
    Timeout,
    /// Sent, and the provider answered with a server error: the result is unknown, and the same
    /// key may replay the same cached error.
    ServerError,
}

/// What a failure class allows next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consequence {
    /// Nothing happened downstream; the operation may be sent again with the same key.
    SafeToRetry,
    /// Nothing happened downstream and nothing will: the operation is rejected.
    Final,
    /// Something may have happened: the operation is unknown until a lookup settles it.
    Unknown,
}

impl FailureClass {
    pub fn consequence(self) -> Consequence {
        match self {
            FailureClass::NotSent | FailureClass::TransientUnavailable { .. } => Consequence::SafeToRetry,
            FailureClass::InvalidParams
            | FailureClass::Forbidden
            | FailureClass::BusinessRejection
            | FailureClass::FailedAtProvider => Consequence::Final,
            FailureClass::Timeout | FailureClass::ServerError => Consequence::Unknown,
        }
    }

    /// A stable name for storage and the API.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::NotSent => "not_sent",
            FailureClass::InvalidParams => "invalid_params",
            FailureClass::Forbidden => "forbidden",
            FailureClass::BusinessRejection => "business_rejection",
            FailureClass::FailedAtProvider => "failed_at_provider",
            FailureClass::TransientUnavailable { .. } => "transient_unavailable",
            FailureClass::Timeout => "timeout",
            FailureClass::ServerError => "server_error",
        }
    }

    /// What the class means, in words for a support agent.
    pub fn explanation(self) -> &'static str {
        match self {
            FailureClass::NotSent => "The request never reached the provider; it is safe to send again.",
            FailureClass::InvalidParams => "The provider refused the parameters; nothing was done.",
            FailureClass::Forbidden => "The provider denied permission; nothing was done.",
            FailureClass::BusinessRejection => "The provider declined the request; nothing was done.",
            FailureClass::FailedAtProvider => {
                "The provider accepted it, then it failed there; nothing moved."
            }
            FailureClass::TransientUnavailable { .. } => {
                "The provider was busy and did not process the request; it may be retried later with the same key."
            }
            FailureClass::Timeout => {
                "The request was sent but no answer came back: it may have happened. Do not send it again; it is being checked."
            }
            FailureClass::ServerError => {
                "The provider answered with a server error after receiving the request: it may have happened. Only a lookup can settle it."
            }
        }
    }

    /// What the class means, in words for a support agent reading `language`;
    /// [`explanation`](Self::explanation) is the English one that logs and the audit trail use.
    pub fn explanation_in(self, language: Language) -> String {
        match self {
            FailureClass::NotSent => t!(language, "wording-failure-not-sent"),
            FailureClass::InvalidParams => t!(language, "wording-failure-invalid-params"),
            FailureClass::Forbidden => t!(language, "wording-failure-forbidden"),
            FailureClass::BusinessRejection => t!(language, "wording-failure-business-rejection"),
            FailureClass::FailedAtProvider => t!(language, "wording-failure-failed-at-provider"),
            FailureClass::TransientUnavailable { .. } => {
                t!(language, "wording-failure-transient-unavailable")
            }
            FailureClass::Timeout => t!(language, "wording-failure-timeout"),
            FailureClass::ServerError => t!(language, "wording-failure-server-error"),
        }
    }
}

/// Classifies a provider's HTTP answer, with the provider's error code where it gave one. `None`
/// for a success (2xx). Answers that prove nothing was done are final or retryable; answers that
/// leave the effect in doubt (a 5xx after sending, a 409 because another request with the key is
/// still running, PayPal's `DUPLICATE_INVOICE_ID` because a refund of this very intent exists)
/// are unknown.
pub fn classify_http_answer(
    status: u16,
    error_code: Option<&str>,
    retry_after_s: Option<u32>,
) -> Option<FailureClass> {
    let class = match status {
        200..=299 => return None,
        429 | 503 => FailureClass::TransientUnavailable { retry_after_s },
        401 | 403 => FailureClass::Forbidden,
        402 => FailureClass::BusinessRejection,
        409 => FailureClass::Timeout,
        422 if error_code == Some("DUPLICATE_INVOICE_ID") => FailureClass::Timeout,
        400 | 404 | 422
            if matches!(
                error_code,
                Some(
                    "amount_too_large"
                        | "charge_already_refunded"
                        | "refund_declined"
                        | "ticket_already_cancelled"
                        | "ticket_not_open"
                        | "REFUND_AMOUNT_EXCEEDED"
                        | "CAPTURE_FULLY_REFUNDED"
                        | "REFUND_TIME_LIMIT_EXCEEDED"
                        | "REFUND_NOT_ALLOWED"
                )
            ) =>
        {
            FailureClass::BusinessRejection
        }
        400..=499 => FailureClass::InvalidParams,
        _ => FailureClass::ServerError,
    };
    Some(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_answers_are_classified_by_what_they_prove() {
        assert_eq!(classify_http_answer(200, None, None), None);
        assert_eq!(
            classify_http_answer(429, Some("rate_limit"), Some(1)),
            Some(FailureClass::TransientUnavailable { retry_after_s: Some(1) })
        );
        assert_eq!(classify_http_answer(500, None, None), Some(FailureClass::ServerError));
        assert_eq!(classify_http_answer(502, None, None), Some(FailureClass::ServerError));
        assert_eq!(
            classify_http_answer(409, None, None),
            Some(FailureClass::Timeout),
            "another request holds the key"
        );
        assert_eq!(
            classify_http_answer(400, Some("amount_too_large"), None),
            Some(FailureClass::BusinessRejection)
        );
        assert_eq!(
            classify_http_answer(400, Some("parameter_missing"), None),
            Some(FailureClass::InvalidParams)
        );
        assert_eq!(classify_http_answer(401, None, None), Some(FailureClass::Forbidden));
        assert_eq!(classify_http_answer(402, None, None), Some(FailureClass::BusinessRejection));
        assert_eq!(
            classify_http_answer(422, Some("REFUND_AMOUNT_EXCEEDED"), None),
            Some(FailureClass::BusinessRejection)
        );
        assert_eq!(
            classify_http_answer(422, Some("DUPLICATE_INVOICE_ID"), None),
            Some(FailureClass::Timeout),
            "PayPal holds a refund of this intent already: only a lookup says how it stands"
        );
    }

    #[test]
    fn no_answer_after_sending_is_unknown_never_failed() {
        assert_eq!(FailureClass::Timeout.consequence(), Consequence::Unknown);
        assert_eq!(FailureClass::ServerError.consequence(), Consequence::Unknown);
    }

    #[test]
    fn only_proof_of_nothing_done_allows_a_retry() {
        let retryable: Vec<_> = [
            FailureClass::NotSent,
            FailureClass::InvalidParams,
            FailureClass::Forbidden,
            FailureClass::BusinessRejection,
            FailureClass::FailedAtProvider,
            FailureClass::TransientUnavailable { retry_after_s: Some(2) },
            FailureClass::Timeout,
            FailureClass::ServerError,
        ]
        .into_iter()
        .filter(|c| c.consequence() == Consequence::SafeToRetry)
        .map(FailureClass::as_str)
        .collect();
        assert_eq!(retryable, ["not_sent", "transient_unavailable"]);
    }

    #[test]
    fn classes_serialize_with_their_stable_names() {
        let json =
            serde_json::to_value(FailureClass::TransientUnavailable { retry_after_s: Some(30) }).unwrap();
        assert_eq!(json, serde_json::json!({"class": "transient_unavailable", "retry_after_s": 30}));
    }
}
