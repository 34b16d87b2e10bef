//! Table tests for every (state, command, actor) and property tests for the machine's invariants.

use super::*;
use crate::domain::params::CanonicalParams;
use chrono::TimeZone;
use proptest::prelude::*;

const REQUESTER: &str = "agent-7";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 2, 10, 0, 0).unwrap()
}

fn fingerprint() -> Fingerprint {
    CanonicalParams::from_json(r#"{"payment_intent":"pi_1043","amount":{"minor":38000,"currency":"TWD"}}"#)
        .unwrap()
        .fingerprint()
}

fn valid_approval() -> Approval {
    Approval {
        approver: "mei".into(),
        fingerprint: fingerprint(),
        granted_at: now() - Duration::minutes(5),
        expires_at: now() + Duration::hours(1),
    }
}

/// A typical operation in `state`: approval valid where approved, key still remembered, the last
/// failure a timeout where the result is unknown.
fn typical(state: State) -> Snapshot {
    let mut snapshot = Snapshot::new(REQUESTER, fingerprint(), false, Duration::hours(24));
    snapshot.state = state;
    if state == State::Approved {
        snapshot.approval = Some(valid_approval());
    }
    if matches!(
        state,
        State::Submitted
            | State::Accepted
            | State::Unknown
            | State::NeedsReview
            | State::Succeeded
            | State::Rejected
    ) {
        snapshot.last_attempt = Some(AttemptNumber::FIRST);
        snapshot.key_first_sent_at = Some(now() - Duration::minutes(10));
    }
    if state == State::Submitted {
        snapshot.open_attempt = Some(AttemptNumber::FIRST);
    }
    if matches!(state, State::Unknown | State::NeedsReview) {
        snapshot.last_failure = Some(FailureClass::Timeout);
    }
    snapshot
}

fn actors() -> Vec<(&'static str, Actor)> {
    vec![
        ("support", Actor::human("sam", Role::Support)),
        ("manager", Actor::human("mei", Role::Manager)),
        ("auditor", Actor::human("aud", Role::Auditor)),
        ("admin", Actor::human("ada", Role::Admin)),
        ("agent", Actor::agent(REQUESTER)),
        ("system", Actor::system("reconciler")),
    ]
}

/// Who may issue what on a typical operation. Every pair not listed is refused to everyone.
const TABLE: &[(&str, &str, &str)] = &[
    ("planned", "begin_attempt", "agent system"),
    ("planned", "cancel", "support manager agent"),
    ("pending_approval", "approve", "manager"),
    ("pending_approval", "deny", "manager"),
    ("pending_approval", "cancel", "support manager agent"),
    ("approved", "begin_attempt", "agent system"),
    ("approved", "cancel", "support manager agent"),
    ("submitted", "record_outcome", "agent system"),
    ("submitted", "mark_unknown", "system"),
    ("submitted", "confirm_found", "support manager system"),
    ("submitted", "escalate", "support manager system"),
    ("submitted", "cancel", "support manager agent"),
    ("accepted", "confirm_found", "support manager system"),
    ("accepted", "escalate", "support manager system"),
    ("accepted", "cancel", "support manager agent"),
    ("unknown", "confirm_found", "support manager system"),
    ("unknown", "resend_same_key", "support manager system"),
    ("unknown", "escalate", "support manager system"),
    ("unknown", "mark_succeeded", "support manager"),
    ("unknown", "cancel", "support manager agent"),
    ("needs_review", "confirm_found", "support manager system"),
    ("needs_review", "resend_same_key", "support manager system"),
    ("needs_review", "mark_succeeded", "support manager"),
    ("needs_review", "mark_not_happened", "manager"),
    ("needs_review", "cancel", "support manager agent"),
    ("succeeded", "confirm_found", "system"),
];

#[test]
fn every_state_command_and_actor_matches_the_table() {
    let mut checked = 0;
    for state in State::ALL {
        for kind in CommandKind::ALL {
            let allowed = TABLE
                .iter()
                .find(|(s, k, _)| *s == state.as_str() && *k == kind.as_str())
                .map_or("", |(_, _, who)| who);
            for (name, actor) in actors() {
                let expected = allowed.split_whitespace().any(|who| who == name);
                let result = check(&typical(state), kind, &actor, now());
                assert_eq!(
                    result.is_ok(),
                    expected,
                    "{} by {name} on {}: {result:?}",
                    kind.as_str(),
                    state.as_str()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, State::ALL.len() * CommandKind::ALL.len() * 6);
}

fn agent() -> Actor {
    Actor::agent(REQUESTER)
}

fn run(snapshot: Snapshot, command: Command, actor: &Actor) -> Result<Snapshot, Rejection> {
    let events = decide(&snapshot, command, actor, now())?;
    Ok(events.iter().fold(snapshot, |s, e| s.apply(e)))
}

fn outcome(attempt: u32, failure: FailureClass) -> Command {
    Command::RecordOutcome { attempt: AttemptNumber(attempt), outcome: AttemptOutcome::Failed { failure } }
}

#[test]
fn the_refund_of_order_1043_times_out_becomes_unknown_and_is_settled_by_a_lookup() {
    let planned = typical(State::Planned);
    let submitted = run(planned, Command::BeginAttempt, &agent()).unwrap();
    assert_eq!(submitted.state, State::Submitted);
    assert_eq!(submitted.open_attempt, Some(AttemptNumber::FIRST));
    assert_eq!(submitted.key_first_sent_at, Some(now()));

    let unknown = run(submitted, outcome(1, FailureClass::Timeout), &agent()).unwrap();
    assert_eq!(unknown.state, State::Unknown, "a timeout is never a failure");

    let again = decide(&unknown, Command::BeginAttempt, &agent(), now()).unwrap_err();
    assert_eq!(again.code, RejectionCode::ReconcileFirst);
    assert!(again.message.contains("do not send again"));

    let found = Command::ConfirmFound {
        external_id: "re_7f3a".into(),
        evidence: "metadata.op_id matched".into(),
        status: ProviderStatus::Succeeded,
    };
    let settled = run(unknown, found, &Actor::system("reconciler")).unwrap();
    assert_eq!(settled.state, State::Succeeded);
    let done = decide(&settled, Command::BeginAttempt, &agent(), now()).unwrap_err();
    assert_eq!(done.code, RejectionCode::AlreadySucceeded);
}

#[test]
fn a_refund_the_provider_accepted_is_never_done_nor_sent_again_until_its_status_settles() {
    let submitted = run(typical(State::Planned), Command::BeginAttempt, &agent()).unwrap();
    let accepted = Command::RecordOutcome {
        attempt: AttemptNumber::FIRST,
        outcome: AttemptOutcome::Accepted { external_id: Some("re_9".into()) },
    };
    let accepted = run(submitted, accepted, &Actor::system("executor")).unwrap();
    assert_eq!(accepted.state, State::Accepted);
    assert!(accepted.state.is_uncertain() && !accepted.state.is_terminal());
    for actor in [agent(), Actor::system("reconciler")] {
        let refused = decide(&accepted, Command::BeginAttempt, &actor, now()).unwrap_err();
        assert_eq!(refused.code, RejectionCode::AwaitingProvider);
    }
    let resend = decide(&accepted, Command::ResendSameKey, &Actor::human("sam", Role::Support), now());
    assert!(resend.is_err(), "the provider has it: a re-send is never offered");

    let found = |status| Command::ConfirmFound {
        external_id: "re_9".into(),
        evidence: "GET /v1/refunds/re_9".into(),
        status,
    };
    let still_pending = decide(
        &accepted,
        found(ProviderStatus::Pending { needs_action: false }),
        &Actor::system("reconciler"),
        now(),
    )
    .unwrap_err();
    assert_eq!(
        still_pending.code,
        RejectionCode::NotApplicable,
        "a poll that learns nothing records nothing"
    );

    let succeeded =
        run(accepted.clone(), found(ProviderStatus::Succeeded), &Actor::system("reconciler")).unwrap();
    assert_eq!(succeeded.state, State::Succeeded);

    let failed = found(ProviderStatus::Failed { reason: "expired_or_canceled_card".into() });
    let failed = run(accepted.clone(), failed, &Actor::system("reconciler")).unwrap();
    assert_eq!(failed.state, State::Rejected);
    assert_eq!(failed.last_failure, Some(FailureClass::FailedAtProvider));
    assert_eq!(failed.failure_reason.as_deref(), Some("expired_or_canceled_card"));

    let escalated = run(
        accepted,
        Command::Escalate { reason: "pending for 5 days".into() },
        &Actor::system("reconciler"),
    );
    assert_eq!(escalated.unwrap().state, State::NeedsReview);
}

#[test]
fn a_lost_answer_is_settled_by_the_status_of_what_the_provider_holds() {
    let unknown = typical(State::Unknown);
    let found = |status| Command::ConfirmFound {
        external_id: "re_9".into(),
        evidence: "metadata.op_id matched".into(),
        status,
    };
    let reconciler = Actor::system("reconciler");
    let pending = run(unknown.clone(), found(ProviderStatus::Pending { needs_action: true }), &reconciler);
    assert_eq!(pending.unwrap().state, State::Accepted);
    let failed = found(ProviderStatus::Failed { reason: "declined".into() });
    assert_eq!(run(unknown.clone(), failed, &reconciler).unwrap().state, State::Rejected);
    let no_reason = found(ProviderStatus::Failed { reason: " ".into() });
    assert_eq!(
        decide(&unknown, no_reason, &reconciler, now()).unwrap_err().code,
        RejectionCode::MissingDetail
    );
}

#[test]
fn a_send_answered_with_a_failed_object_is_rejected_with_the_providers_reason() {
    let submitted = run(typical(State::Planned), Command::BeginAttempt, &agent()).unwrap();
    let outcome =
        AttemptOutcome::FailedAtProvider { external_id: Some("re_9".into()), reason: "declined".into() };
    let failed =
        run(submitted.clone(), Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome }, &agent())
            .unwrap();
    assert_eq!((failed.state, failed.failure_reason.as_deref()), (State::Rejected, Some("declined")));
    let without_reason = AttemptOutcome::Failed { failure: FailureClass::FailedAtProvider };
    let refused = decide(
        &submitted,
        Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome: without_reason },
        &agent(),
        now(),
    );
    assert_eq!(refused.unwrap_err().code, RejectionCode::MissingDetail);
}

#[test]
fn a_refund_the_provider_fails_after_it_succeeded_goes_to_a_person_who_settles_it() {
    let webhook = Actor::system("adyen-webhook");
    let found = |status| Command::ConfirmFound {
        external_id: "8816178914080001".into(),
        evidence: "Adyen REFUND_FAILED notification for 8816178914080001".into(),
        status,
    };
    let refused_later =
        || found(ProviderStatus::Failed { reason: "The refund was returned by the issuer".into() });
    let succeeded = typical(State::Succeeded);
    for person in [Actor::human("sam", Role::Support), Actor::human("mei", Role::Manager), agent()] {
        let refused = decide(&succeeded, refused_later(), &person, now()).unwrap_err();
        assert_ne!(refused.code, RejectionCode::MissingDetail, "{refused:?}");
        assert!(!allowed_commands(&succeeded, &person, now()).contains(&CommandKind::ConfirmFound));
    }
    for status in [ProviderStatus::Succeeded, ProviderStatus::Pending { needs_action: true }] {
        let refused = decide(&succeeded, found(status), &webhook, now()).unwrap_err();
        assert_eq!(refused.code, RejectionCode::AlreadySucceeded, "only a failure changes it");
    }

    let review = run(succeeded, refused_later(), &webhook).unwrap();
    assert_eq!(review.state, State::NeedsReview, "never rejected without a person");
    assert!(review.failed_after_success());
    assert_eq!(review.failure_reason.as_deref(), Some("The refund was returned by the issuer"));
    assert_eq!(
        review.caller_message(),
        "The provider reported that it failed after it had succeeded; a person is checking it; do not send it again."
    );
    assert!(!typical(State::NeedsReview).failed_after_success());
    assert_eq!(typical(State::NeedsReview).caller_message(), State::NeedsReview.caller_message());

    for actor in [webhook.clone(), Actor::human("sam", Role::Support)] {
        let reported_again = decide(&review, refused_later(), &actor, now()).unwrap_err();
        assert_eq!(
            reported_again.code,
            RejectionCode::NotApplicable,
            "another report waits for the person too"
        );
    }

    let manager = Actor::human("mei", Role::Manager);
    let offered = allowed_commands(&review, &manager, now());
    assert!(offered.contains(&CommandKind::MarkNotHappened) && offered.contains(&CommandKind::MarkSucceeded));
    assert!(!offered.contains(&CommandKind::ResendSameKey), "a re-send would only replay the first answer");
    let resend = decide(&review, Command::ResendSameKey, &webhook, now()).unwrap_err();
    assert!(resend.message.contains("failed after it had succeeded"), "{}", resend.message);

    let not_happened = Command::MarkNotHappened {
        reason: "the issuer returned the refund".into(),
        evidence: "Customer Area: refund 8816178914080001 REFUND_FAILED".into(),
    };
    let rejected = run(review.clone(), not_happened, &manager).unwrap();
    assert_eq!(
        (rejected.state, rejected.failure_reason.as_deref()),
        (State::Rejected, Some("The refund was returned by the issuer"))
    );

    let paid_out = Command::MarkSucceeded {
        external_id: "8816178914080001".into(),
        evidence: "the customer's bank statement shows the refund".into(),
    };
    let settled = run(review, paid_out, &manager).unwrap();
    assert_eq!(settled.state, State::Succeeded);
    let again = decide(&settled, refused_later(), &webhook, now()).unwrap_err();
    assert_eq!(
        again.code,
        RejectionCode::AlreadySucceeded,
        "a person's settlement stands: {}",
        again.message
    );
}

#[test]
fn a_resend_keeps_the_attempt_count_and_the_first_send_time() {
    let unknown = typical(State::Unknown);
    let first_sent = unknown.key_first_sent_at;
    let resent = run(unknown, Command::ResendSameKey, &Actor::system("reconciler")).unwrap();
    assert_eq!(resent.state, State::Submitted);
    assert_eq!(resent.open_attempt, Some(AttemptNumber(2)));
    assert_eq!(resent.key_first_sent_at, first_sent, "the key's retention counts from its first send");
}

#[test]
fn a_cached_server_error_or_an_expired_key_forbids_a_resend() {
    let mut cached_500 = typical(State::Unknown);
    cached_500.last_failure = Some(FailureClass::ServerError);
    let refused =
        decide(&cached_500, Command::ResendSameKey, &Actor::system("reconciler"), now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::CachedServerError);

    let mut expired = typical(State::Unknown);
    expired.key_first_sent_at = Some(now() - Duration::hours(25));
    assert!(!expired.key_still_valid(now()));
    let refused =
        decide(&expired, Command::ResendSameKey, &Actor::human("sam", Role::Support), now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::KeyExpired);
    let escalated =
        run(expired, Command::Escalate { reason: "key expired".into() }, &Actor::system("reconciler"));
    assert_eq!(escalated.unwrap().state, State::NeedsReview);
}

#[test]
fn a_re_send_after_a_5xx_follows_what_the_downstream_does_with_it() {
    use crate::domain::connection::After5xx;
    let reconciler = Actor::system("reconciler");
    let table = [
        (After5xx::SameKey, FailureClass::ServerError, Some(RejectionCode::CachedServerError)),
        (After5xx::Unknown, FailureClass::ServerError, Some(RejectionCode::CachedServerError)),
        (After5xx::Retry, FailureClass::ServerError, None),
        (After5xx::SameKey, FailureClass::Timeout, None),
        (After5xx::Unknown, FailureClass::Timeout, None),
        (After5xx::Retry, FailureClass::Timeout, None),
    ];
    for (after_5xx, failure, refused) in table {
        for state in [State::Unknown, State::NeedsReview] {
            let snapshot = Snapshot { after_5xx, last_failure: Some(failure), ..typical(state) };
            let decided = decide(&snapshot, Command::ResendSameKey, &reconciler, now());
            assert_eq!(
                decided.as_ref().err().map(|r| r.code),
                refused,
                "{} after {failure:?} in {state:?}",
                after_5xx.as_str()
            );
            let offered =
                allowed_commands(&snapshot, &reconciler, now()).contains(&CommandKind::ResendSameKey);
            assert_eq!(offered, refused.is_none(), "the console offers what decide allows");
        }
    }
    assert_eq!(
        Snapshot::new(REQUESTER, fingerprint(), false, Duration::hours(24)).after_5xx,
        After5xx::Unknown
    );
    let mut expired = Snapshot { after_5xx: After5xx::Retry, ..typical(State::Unknown) };
    expired.last_failure = Some(FailureClass::ServerError);
    expired.key_first_sent_at = Some(now() - Duration::hours(25));
    let refused = decide(&expired, Command::ResendSameKey, &reconciler, now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::KeyExpired, "a downstream that runs it again still forgets keys");
    let keyless = Snapshot { after_5xx: After5xx::Retry, key_retention: Duration::zero(), ..expired };
    let refused = decide(&keyless, Command::ResendSameKey, &reconciler, now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::NoKey);
}

#[test]
fn an_operation_sent_to_a_downstream_without_keys_is_never_re_sent() {
    let mut keyless = typical(State::Unknown);
    keyless.key_retention = Duration::zero();
    for actor in [Actor::system("reconciler"), Actor::human("rita", Role::Manager)] {
        let refused = decide(&keyless, Command::ResendSameKey, &actor, now()).unwrap_err();
        assert_eq!(refused.code, RejectionCode::NoKey, "{}", refused.message);
    }
    let mut reviewed = keyless.clone();
    reviewed.state = State::NeedsReview;
    assert_eq!(
        decide(&reviewed, Command::ResendSameKey, &Actor::human("rita", Role::Manager), now())
            .unwrap_err()
            .code,
        RejectionCode::NoKey
    );
    let not_happened = Command::MarkNotHappened {
        reason: "the helpdesk has no such ticket".into(),
        evidence: "searched the helpdesk by the op id".into(),
    };
    let settled = run(reviewed, not_happened, &Actor::human("rita", Role::Manager)).unwrap();
    assert_eq!(settled.state, State::Rejected, "only a person's word with evidence settles it as not done");
}

#[test]
fn failures_that_prove_nothing_happened_allow_a_send_with_the_same_operation() {
    let submitted = run(typical(State::Planned), Command::BeginAttempt, &agent()).unwrap();
    let retry_later = outcome(1, FailureClass::TransientUnavailable { retry_after_s: Some(3) });
    let planned = run(submitted, retry_later, &agent()).unwrap();
    assert_eq!(planned.state, State::Planned);
    let second = run(planned, Command::BeginAttempt, &agent()).unwrap();
    assert_eq!(second.open_attempt, Some(AttemptNumber(2)));

    let approved_then_not_sent = run(typical(State::Approved), Command::BeginAttempt, &agent())
        .and_then(|s| run(s, outcome(1, FailureClass::NotSent), &agent()))
        .unwrap();
    assert_eq!(approved_then_not_sent.state, State::Approved, "the approval still stands");

    let rejected = run(second, outcome(2, FailureClass::BusinessRejection), &agent()).unwrap();
    assert_eq!(rejected.state, State::Rejected);
}

#[test]
fn an_outcome_for_a_closed_attempt_is_refused() {
    let submitted = typical(State::Submitted);
    let stale = decide(&submitted, outcome(7, FailureClass::Timeout), &agent(), now()).unwrap_err();
    assert_eq!(stale.code, RejectionCode::AttemptClosed);
    let unknown = run(submitted, outcome(1, FailureClass::Timeout), &agent()).unwrap();
    let late = decide(&unknown, outcome(1, FailureClass::NotSent), &agent(), now()).unwrap_err();
    assert_eq!(late.code, RejectionCode::NotApplicable);
}

#[test]
fn four_eyes_refuses_a_manager_their_own_request() {
    let mut own = typical(State::PendingApproval);
    own.requested_by = "mei".into();
    let manager = Actor::human("mei", Role::Manager);
    let approve = Command::Approve { reason: "ok".into(), valid_for: Duration::hours(1) };
    let refused = decide(&own, approve.clone(), &manager, now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::OwnRequest);
    assert!(!allowed_commands(&own, &manager, now()).contains(&CommandKind::Approve));
    let other_manager = Actor::human("li", Role::Manager);
    let approved = run(own, approve, &other_manager).unwrap();
    assert_eq!(approved.state, State::Approved);
    assert_eq!(approved.approval.unwrap().approver, "li");
}

#[test]
fn an_expired_approval_goes_back_to_the_queue() {
    let mut stale = typical(State::Approved);
    stale.approval = Some(Approval { expires_at: now() - Duration::seconds(1), ..valid_approval() });
    let refused = decide(&stale, Command::BeginAttempt, &agent(), now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::ApprovalExpired);
    let requeued = run(stale, Command::ExpireApproval, &Actor::system("reconciler")).unwrap();
    assert_eq!(requeued.state, State::PendingApproval);
    assert_eq!(requeued.approval, None);
}

#[test]
fn an_approval_for_other_parameters_does_not_allow_a_send() {
    let mut changed = typical(State::Approved);
    changed.fingerprint =
        CanonicalParams::from_json(r#"{"amount":{"minor":76000,"currency":"TWD"}}"#).unwrap().fingerprint();
    let refused = decide(&changed, Command::BeginAttempt, &agent(), now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::ApprovalForOtherParams);
}

#[test]
fn cancelling_in_flight_is_recorded_honestly_and_stops_further_sends() {
    let submitted = typical(State::Submitted);
    let support = Actor::human("sam", Role::Support);
    let stopped = run(submitted, Command::Cancel { reason: "customer withdrew".into() }, &support).unwrap();
    assert_eq!(stopped.state, State::Submitted, "a cancel cannot unsend what is in flight");
    assert!(stopped.cancel_requested);
    assert_eq!(
        cancel_message("op-9", stopped.state),
        "Stopped further processing, but the result of op-9 is still being confirmed."
    );
    let not_sent = run(stopped.clone(), outcome(1, FailureClass::NotSent), &agent()).unwrap();
    assert_eq!(not_sent.state, State::Cancelled);
    let unknown = run(stopped, outcome(1, FailureClass::Timeout), &agent()).unwrap();
    let refused = decide(&unknown, Command::ResendSameKey, &support, now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::CancelRequested);
    let planned_cancel =
        run(typical(State::Planned), Command::Cancel { reason: String::new() }, &support).unwrap();
    assert_eq!(planned_cancel.state, State::Cancelled);
}

#[test]
fn human_resolutions_need_evidence() {
    let manager = Actor::human("mei", Role::Manager);
    let blank = Command::MarkNotHappened { reason: "checked".into(), evidence: "  ".into() };
    let refused = decide(&typical(State::NeedsReview), blank, &manager, now()).unwrap_err();
    assert_eq!(refused.code, RejectionCode::MissingDetail);
    assert_eq!(refused.message, "Evidence is required.");
    let with_evidence = Command::MarkNotHappened {
        reason: "no refund at the provider".into(),
        evidence: "dashboard search for pi_1043 on 2026-11-02 shows none".into(),
    };
    assert_eq!(run(typical(State::NeedsReview), with_evidence, &manager).unwrap().state, State::Rejected);
}

#[test]
fn refusals_speak_in_plain_words() {
    let auditor = Actor::human("aud", Role::Auditor);
    let refused = check(&typical(State::Unknown), CommandKind::MarkSucceeded, &auditor, now()).unwrap_err();
    assert_eq!(refused.message, "the auditor role may not mark succeeded.");
    let pending =
        decide(&typical(State::PendingApproval), Command::BeginAttempt, &agent(), now()).unwrap_err();
    assert_eq!(pending.message, "This operation is waiting for a manager's approval.");
}

fn any_failure() -> impl Strategy<Value = FailureClass> {
    prop_oneof![
        Just(FailureClass::NotSent),
        Just(FailureClass::InvalidParams),
        Just(FailureClass::Forbidden),
        Just(FailureClass::BusinessRejection),
        proptest::option::of(0u32..120)
            .prop_map(|retry_after_s| FailureClass::TransientUnavailable { retry_after_s }),
        Just(FailureClass::Timeout),
        Just(FailureClass::ServerError),
    ]
}

fn any_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["mei", "li", "sam", REQUESTER, "reconciler"]).prop_map(str::to_owned)
}

fn any_actor() -> impl Strategy<Value = Actor> {
    let kind = prop_oneof![
        prop::sample::select(Role::ALL.to_vec()).prop_map(ActorKind::Human),
        Just(ActorKind::Agent),
        Just(ActorKind::System),
    ];
    (any_name(), kind).prop_map(|(name, kind)| Actor { name, kind })
}

fn any_snapshot() -> impl Strategy<Value = Snapshot> {
    snapshot_in(State::ALL.to_vec())
}

fn snapshot_in(states: Vec<State>) -> impl Strategy<Value = Snapshot> {
    (
        prop::sample::select(states),
        any_name(),
        proptest::option::of((any_name(), -120i64..120, any::<bool>())),
        proptest::option::of(1u32..4),
        proptest::option::of(any_failure()),
        proptest::option::of(0i64..3000),
        any::<bool>(),
    )
        .prop_map(
            |(state, requested_by, approval, attempts, last_failure, sent_minutes_ago, cancel_requested)| {
                let mut snapshot = Snapshot::new(&requested_by, fingerprint(), false, Duration::hours(24));
                snapshot.state = state;
                snapshot.approval = approval.map(|(approver, expires_in, same_params)| Approval {
                    approver,
                    fingerprint: if same_params {
                        fingerprint()
                    } else {
                        Fingerprint::from_stored("sha256:other".into())
                    },
                    granted_at: now() - Duration::hours(2),
                    expires_at: now() + Duration::minutes(expires_in),
                });
                snapshot.last_attempt = attempts.map(AttemptNumber);
                if state == State::Submitted {
                    snapshot.last_attempt = Some(snapshot.last_attempt.unwrap_or(AttemptNumber::FIRST));
                    snapshot.open_attempt = snapshot.last_attempt;
                }
                snapshot.last_failure = last_failure;
                snapshot.key_first_sent_at = sent_minutes_ago.map(|m| now() - Duration::minutes(m));
                snapshot.cancel_requested = cancel_requested;
                snapshot
            },
        )
}

fn any_provider_status() -> impl Strategy<Value = ProviderStatus> {
    prop_oneof![
        Just(ProviderStatus::Succeeded),
        any::<bool>().prop_map(|needs_action| ProviderStatus::Pending { needs_action }),
        prop::sample::select(vec!["", "expired_or_canceled_card"])
            .prop_map(|reason| ProviderStatus::Failed { reason: reason.to_owned() }),
    ]
}

fn any_command() -> impl Strategy<Value = Command> {
    let text =
        prop::sample::select(vec!["", "  ", "checked the dashboard", "re_7f3a"]).prop_map(str::to_owned);
    prop_oneof![
        (text.clone(), 0i64..240)
            .prop_map(|(reason, m)| Command::Approve { reason, valid_for: Duration::minutes(m) }),
        text.clone().prop_map(|reason| Command::Deny { reason }),
        Just(Command::ExpireApproval),
        Just(Command::BeginAttempt),
        (1u32..5, any_failure(), 0..4).prop_map(|(n, failure, which)| Command::RecordOutcome {
            attempt: AttemptNumber(n),
            outcome: match which {
                0 => AttemptOutcome::Succeeded { external_id: Some("re_1".into()) },
                1 => AttemptOutcome::Accepted { external_id: Some("re_1".into()) },
                2 => AttemptOutcome::FailedAtProvider {
                    external_id: Some("re_1".into()),
                    reason: "expired_or_canceled_card".into(),
                },
                _ => AttemptOutcome::Failed { failure },
            },
        }),
        text.clone().prop_map(|reason| Command::MarkUnknown { reason }),
        (text.clone(), text.clone(), any_provider_status()).prop_map(|(external_id, evidence, status)| {
            Command::ConfirmFound { external_id, evidence, status }
        }),
        Just(Command::ResendSameKey),
        text.clone().prop_map(|reason| Command::Escalate { reason }),
        (text.clone(), text.clone())
            .prop_map(|(external_id, evidence)| Command::MarkSucceeded { external_id, evidence }),
        (text.clone(), text.clone())
            .prop_map(|(reason, evidence)| Command::MarkNotHappened { reason, evidence }),
        text.prop_map(|reason| Command::Cancel { reason }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn no_command_leaves_a_terminal_state_but_the_providers_later_failure_of_a_success(
        snapshot in snapshot_in(State::ALL.into_iter().filter(|s| s.is_terminal()).collect()),
        command in any_command(),
        actor in any_actor(),
    ) {
        let providers_failure = snapshot.state == State::Succeeded
            && actor.kind == ActorKind::System
            && matches!(&command, Command::ConfirmFound { status: ProviderStatus::Failed { .. }, .. });
        if let Ok(events) = decide(&snapshot, command, &actor, now()) {
            prop_assert!(providers_failure, "left {:?}", snapshot.state);
            let after = events.iter().fold(snapshot, |s, e| s.apply(e));
            prop_assert_eq!(after.state, State::NeedsReview, "a person settles it");
            prop_assert!(after.failed_after_success());
        }
    }

    #[test]
    fn unknown_is_left_only_by_evidence_or_reconciliation(
        snapshot in snapshot_in(vec![State::Unknown]), command in any_command(), actor in any_actor()
    ) {
        let kind = command.kind();
        let failed_at_provider = matches!(
            &command,
            Command::ConfirmFound { status: ProviderStatus::Failed { .. }, .. }
        );
        if let Ok(events) = decide(&snapshot, command, &actor, now()) {
            let after = events.iter().fold(snapshot, |s, e| s.apply(e));
            if after.state != State::Unknown {
                prop_assert!(
                    matches!(kind, CommandKind::ConfirmFound | CommandKind::ResendSameKey | CommandKind::Escalate | CommandKind::MarkSucceeded),
                    "{:?} left unknown for {:?}", kind, after.state
                );
                prop_assert_eq!(
                    after.state == State::Rejected,
                    failed_at_provider,
                    "an unknown result becomes rejected only when the provider's object says it failed"
                );
            }
        }
    }

    #[test]
    fn accepted_is_never_sent_again_and_settles_only_by_the_provider_or_people(
        snapshot in snapshot_in(vec![State::Accepted]), command in any_command(), actor in any_actor()
    ) {
        let kind = command.kind();
        if let Ok(events) = decide(&snapshot, command, &actor, now()) {
            let after = events.iter().fold(snapshot, |s, e| s.apply(e));
            prop_assert_ne!(after.state, State::Submitted, "{:?} sent an accepted operation again", kind);
            if after.state != State::Accepted {
                prop_assert!(
                    matches!(kind, CommandKind::ConfirmFound | CommandKind::Escalate),
                    "{:?} left accepted for {:?}", kind, after.state
                );
            }
        }
    }

    #[test]
    fn an_approval_never_comes_from_the_requester(
        snapshot in any_snapshot(), command in any_command(), actor in any_actor()
    ) {
        if let Ok(events) = decide(&snapshot, command, &actor, now()) {
            for event in events {
                if let Event::ApprovalGranted { approval, .. } = event {
                    prop_assert_ne!(&approval.approver, &snapshot.requested_by);
                    prop_assert_eq!(&approval.fingerprint, &snapshot.fingerprint);
                }
            }
        }
    }

    #[test]
    fn a_send_without_an_answer_never_becomes_rejected(
        snapshot in snapshot_in(vec![State::Submitted]), unanswered in prop::bool::ANY
    ) {
        let failure = if unanswered { FailureClass::Timeout } else { FailureClass::ServerError };
        let attempt = snapshot.open_attempt.expect("a submitted operation has an open attempt");
        let command = Command::RecordOutcome { attempt, outcome: AttemptOutcome::Failed { failure } };
        let events = decide(&snapshot, command, &Actor::agent("a"), now()).unwrap();
        let after = events.iter().fold(snapshot, |s, e| s.apply(e));
        prop_assert_eq!(after.state, State::Unknown);
    }

    #[test]
    fn the_console_offers_exactly_what_the_server_accepts(
        snapshot in any_snapshot(), command in any_command(), actor in any_actor()
    ) {
        let offered = allowed_commands(&snapshot, &actor, now()).contains(&command.kind());
        let accepted = decide(&snapshot, command, &actor, now()).is_ok();
        prop_assert!(!accepted || offered, "accepted a command the console would not offer");
    }
}

/// The caller who has just reported is told that its own call did it, with the provider's id; a
/// repeat is told it was done earlier; a send in flight says how long until it is looked up.
#[test]
fn the_sender_a_repeat_and_a_waiting_caller_are_told_apart() {
    let done = typical(State::Succeeded);
    assert_eq!(done.reported_message("refund", Some("re_1043")), "Refunded now as re_1043; do not send it again.");
    assert_eq!(done.reported_message("email", None), "Sent now; do not send it again.");
    assert_eq!(done.caller_message(), "Already done earlier; nothing was sent now.");
    assert_ne!(done.reported_message("refund", Some("re_1043")), done.caller_message());
    let accepted = typical(State::Accepted).reported_message("refund", Some("re_7"));
    assert!(accepted.starts_with("Sent now; the provider accepted it as re_7 and has not confirmed"), "{accepted}");
    let unknown = typical(State::Unknown);
    assert_eq!(unknown.reported_message("refund", None), unknown.caller_message(), "nothing done is never said done");

    let at = Utc.with_ymd_and_hms(2026, 12, 7, 9, 0, 0).unwrap();
    let waiting = State::in_flight_message(at + Duration::seconds(42), at);
    assert!(waiting.contains("has until 2026-12-07T09:00:42Z (about 42 s) to report it"), "{waiting}");
    let overdue = State::in_flight_message(at, at + Duration::seconds(5));
    assert!(overdue.contains("reported nothing by 2026-12-07T09:00:00Z") && overdue.contains("being looked up"), "{overdue}");
}
