//! Store behaviours that both backends must share, tried directly on the `Store` trait.

use opledger::domain::operation::{AttemptReport, RetryBudget};
use opledger::domain::{
    audit::AuditEntry,
    ids::{Actor, OpId, TenantId},
    machine::{decide, Command},
    params::CanonicalParams,
    policy::Role,
};
use opledger::server::clock::now;
use opledger::server::ledger::{RegisterRequest, Registration};
use opledger::server::store::{
    records::{OperationChange, SessionOwner},
    StoreError,
};
use serde_json::json;

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

fn request(op_id: &str, minor: i64) -> RegisterRequest {
    RegisterRequest {
        op_id: OpId::parse(op_id).unwrap(),
        kind: "refund".into(),
        subject: "order:A1042".into(),
        provider: "stripe".into(),
        params: CanonicalParams::from_value(
            json!({"payment_intent": "pi_A1042", "amount": {"minor": minor, "currency": "CNY"}}),
        )
        .unwrap(),
        requested_by: "agent-7".into(),
        compensates: None,
        on_behalf_of: None,
        server_sends: false,
        key_retention: None,
    }
}

/// Registers refunds part1 to part3 of acme's order A1042 and part1 of `other`'s, then sends
/// acme's part1 (succeeded) and part2 (timed out: unknown).
async fn three_refunds_one_succeeded_one_timed_out(app: &crate::support::TestApp, other: &TenantId) {
    use opledger::domain::ids::AttemptNumber;
    use opledger::domain::machine::AttemptOutcome;
    let agent = Actor::agent("agent-7");
    for n in 1..=3 {
        app.ledger.register(&acme(), &agent, request(&format!("refund-A1042-part{n}"), 100)).await.unwrap();
    }
    app.ledger.register(other, &agent, request("refund-A1042-part1", 100)).await.unwrap();
    let timed_out = AttemptOutcome::Failed { failure: opledger::domain::failure::FailureClass::Timeout };
    for (n, outcome) in [(1, AttemptOutcome::Succeeded { external_id: Some("re_1".into()) }), (2, timed_out)]
    {
        let op_id = OpId::parse(&format!("refund-A1042-part{n}")).unwrap();
        app.ledger
            .execute(&acme(), &op_id, Command::BeginAttempt, &agent, AttemptReport::default())
            .await
            .unwrap();
        let recorded = Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome };
        app.ledger.execute(&acme(), &op_id, recorded, &agent, AttemptReport::default()).await.unwrap();
    }
}

crate::engine_tests! {
    histories_read_together_are_those_read_one_at_a_time_of_the_tenant_asked(app) {
        let globex = TenantId::parse("globex").unwrap();
        three_refunds_one_succeeded_one_timed_out(&app, &globex).await;
        app.ledger.seal_audit(None).await.unwrap();
        let ids: Vec<OpId> = ["refund-A1042-part2", "refund-A1042-none", "refund-A1042-part1", "refund-A1042-part3"]
            .iter()
            .map(|id| OpId::parse(id).unwrap())
            .collect();
        let together = app.store.operation_histories(&acme(), &ids).await.unwrap();
        let mut one_at_a_time = Vec::new();
        for op_id in &ids {
            one_at_a_time.extend(app.store.operation_history(&acme(), op_id).await.unwrap());
        }
        assert_eq!(together.len(), 3, "the missing one is left out");
        assert_eq!(
            together.iter().map(|history| (&history.operation, &history.attempts, &history.external_refs, &history.audit)).collect::<Vec<_>>(),
            one_at_a_time.iter().map(|history| (&history.operation, &history.attempts, &history.external_refs, &history.audit)).collect::<Vec<_>>(),
            "in the order asked, each with its own attempts, ids and trail"
        );
        assert_eq!(together[1].external_refs.len(), 1);
        assert!(together.iter().all(|history| !history.audit.is_empty()));
        let other = app.store.operation_histories(&globex, &ids).await.unwrap();
        assert_eq!(other.len(), 1, "another tenant's operation of the same id only");
        assert_eq!(other[0].operation.tenant, globex);
        assert!(other[0].attempts.is_empty() && other[0].external_refs.is_empty());
    }

    the_operations_matching_a_filter_are_those_the_list_shows_as_they_stand(app) {
        use opledger::domain::machine::State;
        use opledger::server::store::records::OperationQuery;
        let globex = TenantId::parse("globex").unwrap();
        three_refunds_one_succeeded_one_timed_out(&app, &globex).await;
        let queries = [
            OperationQuery { limit: 10, ..OperationQuery::default() },
            OperationQuery { limit: 2, ..OperationQuery::default() },
            OperationQuery { states: vec![State::Succeeded], limit: 10, ..OperationQuery::default() },
            OperationQuery { states: vec![State::Succeeded, State::Unknown], limit: 10, ..OperationQuery::default() },
            OperationQuery { search: Some("refund-A1042-part1".into()), limit: 10, ..OperationQuery::default() },
        ];
        for query in queries {
            let listed = app.store.list_operations(&acme(), &query).await.unwrap();
            let matching = app.store.matching_operations(&acme(), &query).await.unwrap();
            assert_eq!(
                matching.iter().map(|operation| &operation.op_id).collect::<Vec<_>>(),
                listed.iter().map(|item| &item.op_id).collect::<Vec<_>>(),
                "{query:?}"
            );
            for operation in &matching {
                let history = app.store.operation_history(&acme(), &operation.op_id).await.unwrap().unwrap();
                assert_eq!(operation, &history.operation, "as it stands");
            }
            assert!(!matching.is_empty(), "{query:?}");
        }
    }

    the_counts_per_state_and_the_orders_activity_follow_every_change_per_tenant(app) {
        use opledger::domain::machine::{AttemptOutcome, State};
        use opledger::domain::ids::AttemptNumber;
        let agent = Actor::agent("agent-7");
        let globex = TenantId::parse("globex").unwrap();
        three_refunds_one_succeeded_one_timed_out(&app, &globex).await;
        app.ledger.register(&acme(), &agent, request("refund-A1042-part1", 100)).await.unwrap();
        let mut counts = app.store.count_by_state(&acme()).await.unwrap();
        counts.sort_by_key(|(state, _)| state.as_str());
        assert_eq!(counts, vec![(State::Planned, 1), (State::Succeeded, 1), (State::Unknown, 1)], "a repeated registration counts once");
        assert_eq!(app.store.count_by_state(&globex).await.unwrap(), vec![(State::Planned, 1)]);
        for (state, count) in counts {
            let counted = app.number(&format!("select count(*) from operations where tenant = 'acme' and state = '{}'", state.as_str())).await;
            assert_eq!(counted, i64::try_from(count).unwrap(), "{state:?} as the operations themselves say");
        }

        let mut settled = request("refund-B1-li_1", 100);
        settled.subject = "order:B1".into();
        app.ledger.register(&acme(), &agent, settled.clone()).await.unwrap();
        app.ledger.execute(&acme(), &settled.op_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        let succeeded = AttemptOutcome::Succeeded { external_id: Some("re_b1".into()) };
        let recorded = Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome: succeeded };
        app.ledger.execute(&acme(), &settled.op_id, recorded, &agent, AttemptReport::default()).await.unwrap();
        assert_eq!(app.store.subjects(&acme(), false, 10).await.unwrap(), ["order:B1", "order:A1042"], "the latest change first");
        assert_eq!(app.store.subjects(&acme(), true, 10).await.unwrap(), ["order:A1042"], "an order whose every operation succeeded needs nothing");
        assert!(app.store.subjects(&globex, true, 10).await.unwrap().is_empty(), "each tenant its own orders; one waiting to be sent is in progress");
    }

    orders_needing_attention_follow_every_change_per_tenant(app) {
        use opledger::domain::failure::FailureClass;
        use opledger::domain::ids::AttemptNumber;
        use opledger::domain::machine::AttemptOutcome;
        use opledger::domain::rollup::{roll_up, OrderStatus, OperationSummary};
        let agent = Actor::agent("agent-7");
        let globex = TenantId::parse("globex").unwrap();
        let send = |tenant: TenantId, op_id: &'static str, outcome: AttemptOutcome| {
            let (app, agent) = (&app, &agent);
            async move {
                let op_id = OpId::parse(op_id).unwrap();
                app.ledger.execute(&tenant, &op_id, Command::BeginAttempt, agent, AttemptReport::default()).await.unwrap();
                let recorded = Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome };
                app.ledger.execute(&tenant, &op_id, recorded, agent, AttemptReport::default()).await.unwrap();
            }
        };
        let succeeded = || AttemptOutcome::Succeeded { external_id: None };
        let rejected = || AttemptOutcome::Failed { failure: FailureClass::BusinessRejection };
        let service = |op_id: &str, kind: &str, compensates: Option<&str>| RegisterRequest {
            kind: kind.into(),
            subject: "order:1043".into(),
            provider: "sandbox".into(),
            compensates: compensates.map(|c| OpId::parse(c).unwrap()),
            ..request(op_id, 100)
        };
        let attention = |tenant: TenantId| {
            let app = &app;
            async move {
                let kept = app.store.subjects(&tenant, true, 10).await.unwrap();
                let items = app.store.subjects_operations(&tenant, &["order:1043".to_owned()]).await.unwrap();
                let summaries: Vec<OperationSummary> = items.iter().map(|item| OperationSummary {
                    op_id: item.op_id.clone(), kind: item.kind.clone(), state: item.state, amount: item.amount,
                    compensates: item.compensates.clone(),
                }).collect();
                let status = roll_up(&summaries).unwrap().status;
                let rolled_up = matches!(status, OrderStatus::PartialSuccess | OrderStatus::PendingConfirmation);
                assert_eq!(kept.contains(&"order:1043".to_owned()), rolled_up, "{tenant}: the kept tally and the roll-up ({status:?}) agree");
                status
            }
        };
        for tenant in [acme(), globex.clone()] {
            app.ledger.register(&tenant, &agent, service("aftersale-1043-li_2", "create_aftersale", None)).await.unwrap();
            app.ledger.register(&tenant, &agent, service("pickup-1043-li_2", "schedule_pickup", None)).await.unwrap();
        }
        assert_eq!(attention(acme()).await, OrderStatus::InProgress);
        send(acme(), "aftersale-1043-li_2", succeeded()).await;
        send(acme(), "pickup-1043-li_2", rejected()).await;
        assert_eq!(attention(acme()).await, OrderStatus::PartialSuccess);
        assert_eq!(attention(globex.clone()).await, OrderStatus::InProgress, "the other tenant's order of the same name");

        let cancel = service("cancel-aftersale-1043-li_2", "cancel_aftersale", Some("aftersale-1043-li_2"));
        app.ledger.register(&acme(), &agent, cancel).await.unwrap();
        let cancel_id = OpId::parse("cancel-aftersale-1043-li_2").unwrap();
        app.ledger.execute(&acme(), &cancel_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        assert_eq!(attention(acme()).await, OrderStatus::PendingConfirmation, "a compensation being sent");
        let recorded = Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome: succeeded() };
        app.ledger.execute(&acme(), &cancel_id, recorded, &agent, AttemptReport::default()).await.unwrap();
        assert_eq!(attention(acme()).await, OrderStatus::Compensated, "every effect undone");

        send(globex.clone(), "aftersale-1043-li_2", rejected()).await;
        send(globex.clone(), "pickup-1043-li_2", rejected()).await;
        assert_eq!(attention(globex).await, OrderStatus::Failed);
    }

    the_overview_charts_follow_every_change_per_tenant(app) {
        use opledger::domain::machine::State;
        use opledger::domain::operation::SETTLE_BOUNDS_S;
        let reconciler = Actor::system("reconciler");
        let globex = TenantId::parse("globex").unwrap();
        let day_ago = now() - chrono::Duration::hours(24);
        three_refunds_one_succeeded_one_timed_out(&app, &globex).await;
        let outcomes = |tenant: TenantId| {
            let store = app.store.clone();
            async move {
                let mut outcomes: Vec<(State, u64)> = store
                    .outcomes_per_hour(&tenant, day_ago)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|(_, state, count)| (state, count))
                    .collect();
                outcomes.sort_by_key(|(state, _)| state.as_str());
                outcomes
            }
        };
        let acme_outcomes = outcomes(acme()).await;
        assert_eq!(acme_outcomes, vec![(State::Planned, 1), (State::Succeeded, 1), (State::Unknown, 1)]);
        for (state, count) in &acme_outcomes {
            let counted = app.number(&format!("select count(*) from operations where tenant = 'acme' and state = '{}'", state.as_str())).await;
            assert_eq!(counted, i64::try_from(*count).unwrap(), "{state:?} as the operations themselves say");
        }
        assert_eq!(outcomes(globex.clone()).await, vec![(State::Planned, 1)], "each tenant its own chart");
        let nothing_settled = vec![0; SETTLE_BOUNDS_S.len() + 1];
        assert_eq!(app.store.settle_times(&acme(), day_ago).await.unwrap(), nothing_settled, "a success never unknown took no settling");

        let unknown = OpId::parse("refund-A1042-part2").unwrap();
        let found = Command::ConfirmFound { external_id: "re_2".into(), evidence: "found by lookup".into(), status: opledger::domain::machine::ProviderStatus::Succeeded };
        app.ledger.execute(&acme(), &unknown, found, &reconciler, AttemptReport::default()).await.unwrap();
        let mut settled_at_once = nothing_settled.clone();
        settled_at_once[0] = 1;
        assert_eq!(app.store.settle_times(&acme(), day_ago).await.unwrap(), settled_at_once, "unknown, then found within a minute");
        assert_eq!(app.store.settle_times(&globex, day_ago).await.unwrap(), nothing_settled, "each tenant its own chart");
        assert_eq!(outcomes(acme()).await, vec![(State::Planned, 1), (State::Succeeded, 2)], "the found one moved to succeeded");
    }

    sessions_expire_and_are_swept_and_ids_never_collide(app) {
        let store = &app.store;
        let at = now();
        assert!(store.create_session("h1", "{}", at + chrono::Duration::minutes(30), None).await.unwrap());
        assert!(!store.create_session("h1", "{\"other\":1}", at + chrono::Duration::minutes(30), None).await.unwrap(), "a taken id is refused");
        assert_eq!(store.load_session("h1", at).await.unwrap().as_deref(), Some("{}"));
        store.save_session("h1", "{\"user\":1}", at + chrono::Duration::minutes(30), None).await.unwrap();
        assert_eq!(store.load_session("h1", at).await.unwrap().as_deref(), Some("{\"user\":1}"));
        assert_eq!(store.load_session("h1", at + chrono::Duration::minutes(31)).await.unwrap(), None, "idle too long");
        store.save_session("h2", "{}", at - chrono::Duration::seconds(1), None).await.unwrap();
        assert_eq!(store.delete_expired_sessions(at).await.unwrap(), 1);
        store.delete_session("h1").await.unwrap();
        assert_eq!(store.load_session("h1", at).await.unwrap(), None);
    }

    a_persons_sessions_end_together_and_a_deactivated_persons_never_load(app) {
        let store = &app.store;
        let at = now();
        let until = at + chrono::Duration::minutes(30);
        app.add_user("acme", "sam", Role::Support).await;
        app.add_user("acme", "sue", Role::Support).await;
        let id_of = |name: &'static str| async move { store.users_named(name, Some(&acme())).await.unwrap().remove(0).id };
        let sam = SessionOwner { tenant: acme(), user_id: id_of("sam").await };
        let sue = SessionOwner { tenant: acme(), user_id: id_of("sue").await };
        store.create_session("sam-1", "{}", until, Some(&sam)).await.unwrap();
        store.save_session("sam-2", "{}", until, Some(&sam)).await.unwrap();
        store.save_session("sue-1", "{}", until, Some(&sue)).await.unwrap();
        let other_tenant = SessionOwner { tenant: TenantId::parse("globex").unwrap(), user_id: sam.user_id.clone() };
        assert_eq!(store.end_sessions_of(&other_tenant.tenant, &other_tenant.user_id).await.unwrap(), 0, "another tenant's id ends nothing here");
        assert_eq!(store.end_sessions_of(&acme(), &sam.user_id).await.unwrap(), 2);
        assert_eq!(store.load_session("sam-1", at).await.unwrap(), None);
        assert_eq!(store.load_session("sam-2", at).await.unwrap(), None);
        assert!(store.load_session("sue-1", at).await.unwrap().is_some(), "sue's session stays");
        app.tamper("update users set status = 'deactivated' where name = 'sue'").await;
        assert_eq!(store.load_session("sue-1", at).await.unwrap(), None, "a deactivated person's session never loads");
        app.tamper("update users set status = 'active' where name = 'sue'").await;
        assert!(store.load_session("sue-1", at).await.unwrap().is_some());
    }

    a_change_built_on_a_stale_version_is_refused_and_leaves_no_trace(app) {
        let agent = Actor::agent("agent-7");
        let Registration::Created(created) = app.ledger.register(&acme(), &agent, request("op-9", 10000)).await.unwrap() else {
            panic!("expected a new operation")
        };
        let operation = created.operation;
        let at = now();
        let events = decide(&operation.snapshot, Command::BeginAttempt, &agent, at).unwrap();
        let after = events.iter().fold(operation.snapshot.clone(), |s, e| s.apply(e));
        let entry = |reason: &str| AuditEntry {
            at,
            tenant: "acme".into(),
            actor: agent.name.clone(),
            role: "agent".into(),
            action: "begin_attempt".into(),
            op_id: Some(operation.op_id.to_string()),
            from_state: Some(operation.snapshot.state.as_str().into()),
            to_state: Some(after.state.as_str().into()),
            reason: Some(reason.into()),
            evidence: serde_json::json!({}),
        };
        let change = |reason: &str| OperationChange {
            before: operation.clone(),
            events: events.clone(),
            after: after.clone(),
            actor: agent.clone(),
            report: AttemptReport::default(),
            audit: vec![entry(reason)],
            at,
            answers: None,
            before_attempts_and_refs: None,
        };
        let store = &app.store;
        let committed = store.apply_change(change("first")).await.unwrap();
        assert_eq!(committed.operation, operation.changed_to(after.clone(), at), "the change's record is the one it wrote");
        let stale = store.apply_change(change("stale")).await;
        assert!(matches!(stale, Err(StoreError::Conflict(_))), "{stale:?}");
        let history = store.operation_history(&acme(), &operation.op_id).await.unwrap().unwrap();
        assert_eq!(history.attempts.len(), 1, "the refused change wrote nothing");
        assert_eq!(history.operation.version, operation.version + 1);
        let reasons: Vec<_> = history.audit.iter().filter_map(|event| event.entry.reason.clone()).collect();
        assert!(reasons.contains(&"first".to_owned()) && !reasons.contains(&"stale".to_owned()), "{reasons:?}");
        let counts = app.ledger.reads().count_by_state(&acme()).await.unwrap();
        assert_eq!(counts, vec![(after.state, 1)], "counted once, in its new state");
    }

    times_round_trip_at_microsecond_precision(app) {
        let before = now();
        let Registration::Created(created) = app.ledger.register(&acme(), &Actor::agent("agent-7"), request("op-9", 10000)).await.unwrap() else {
            panic!("expected a new operation")
        };
        let loaded = app.ledger.reads().load_operation(&acme(), &created.operation.op_id).await.unwrap().unwrap();
        assert_eq!(loaded, created.operation);
        assert!(loaded.created_at >= before);
        assert_eq!(loaded.created_at.timestamp_subsec_nanos() % 1000, 0);
    }

    two_refunds_of_one_order_are_two_operations_and_a_changed_amount_is_a_conflict(app) {
        let agent = Actor::agent("agent-7");
        let first = app.ledger.register(&acme(), &agent, request("refund-A1042-1", 10000)).await.unwrap();
        let second = app.ledger.register(&acme(), &agent, request("refund-A1042-2", 5000)).await.unwrap();
        assert!(matches!((first, second), (Registration::Created(_), Registration::Created(_))));
        let changed = app.ledger.register(&acme(), &agent, request("refund-A1042-1", 20000)).await.unwrap();
        let Registration::Conflict { stored, diff } = changed else { panic!("expected a conflict") };
        assert_eq!(stored.operation.params.money("amount").unwrap().minor, 10000);
        assert_eq!(diff.len(), 1);
        let order = app.ledger.reads().subject_operations(&acme(), "order:A1042").await.unwrap();
        assert_eq!(order.len(), 2);
    }

    a_compensation_must_name_an_existing_operation(app) {
        let mut orphan = request("cancel-aftersale-1043-li_2", 0);
        orphan.compensates = Some(OpId::parse("aftersale-1043-li_2").unwrap());
        let refused = app.ledger.register(&acme(), &Actor::agent("agent-7"), orphan).await;
        assert!(refused.unwrap_err().to_string().contains("there is no operation aftersale-1043-li_2"));
    }

    what_a_change_answers_is_what_a_later_read_finds(app) {
        use opledger::domain::failure::FailureClass;
        use opledger::domain::ids::AttemptNumber;
        use opledger::domain::machine::AttemptOutcome;
        let agent = Actor::agent("agent-7");
        let op_id = OpId::parse("refund-A1042-part1").unwrap();
        app.ledger.register(&acme(), &agent, request(op_id.as_str(), 100)).await.unwrap();
        let unavailable = AttemptOutcome::Failed { failure: FailureClass::TransientUnavailable { retry_after_s: Some(2) } };
        let succeeded = AttemptOutcome::Succeeded { external_id: Some("re_1".into()) };
        let read = || async { app.ledger.reads().operation_history(&acme(), &op_id).await.unwrap().unwrap() };
        for (number, outcome) in [(1, unavailable), (2, succeeded)] {
            // A deadline finer than the store's microseconds, as the executor's may be.
            let budget = RetryBudget { max_sends: 3, deadline: chrono::Utc::now() + chrono::Duration::seconds(30) };
            let report = AttemptReport { budget: Some(budget), ..AttemptReport::default() };
            let begun = app.ledger.execute(&acme(), &op_id, Command::BeginAttempt, &agent, report).await.unwrap();
            let found = read().await;
            assert_eq!((&begun.operation, &begun.attempts, &begun.external_refs), (&found.operation, &found.attempts, &found.external_refs), "begin {number}");
            assert_eq!(begun.attempts.len(), number as usize);
            assert!(begun.attempts.last().unwrap().outcome.is_none(), "the attempt begun is open");
            let attempt = AttemptNumber(number);
            let report = AttemptReport { http_status: Some(200), latency_ms: Some(80), error: Some("busy".into()), ..AttemptReport::default() };
            let recorded = Command::RecordOutcome { attempt, outcome };
            let answered = app.ledger.execute(&acme(), &op_id, recorded, &agent, report).await.unwrap();
            let found = read().await;
            assert_eq!(answered.operation, found.operation);
            assert_eq!(answered.attempts, found.attempts, "attempt {number}");
            assert_eq!(answered.external_refs, found.external_refs);
        }
        let found = read().await;
        assert_eq!(found.attempts.len(), 2);
        assert_eq!(found.attempts[0].retry_after_s, Some(2));
        assert_eq!(found.external_refs.iter().map(|r| r.external_id.as_str()).collect::<Vec<_>>(), ["re_1"]);

        // A send that went silent: marked unknown, its attempt closed without a report.
        let silent = OpId::parse("refund-A1042-part2").unwrap();
        app.ledger.register(&acme(), &agent, request(silent.as_str(), 100)).await.unwrap();
        app.ledger.execute(&acme(), &silent, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        let marked = Command::MarkUnknown { reason: "no answer within the deadline".into() };
        let answered = app.ledger.execute(&acme(), &silent, marked, &Actor::system("reconciler"), AttemptReport::default()).await.unwrap();
        let found = app.ledger.reads().operation_history(&acme(), &silent).await.unwrap().unwrap();
        assert_eq!((answered.operation, answered.attempts), (found.operation, found.attempts.clone()));
        assert_eq!(found.attempts[0].outcome.as_deref(), Some("no_report"));

        // External ids the write skips: one this operation already holds (accepted, then found
        // succeeded under the same id) and one another operation of the tenant holds.
        let reconciler = Actor::system("reconciler");
        let accepted = AttemptOutcome::Accepted { external_id: Some("re_3".into()) };
        let later = AttemptOutcome::Succeeded { external_id: Some("re_1".into()) };
        for (part, outcome, refs) in [(3, accepted, vec!["re_3"]), (4, later, vec![])] {
            let id = OpId::parse(&format!("refund-A1042-part{part}")).unwrap();
            app.ledger.register(&acme(), &agent, request(id.as_str(), 100)).await.unwrap();
            app.ledger.execute(&acme(), &id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
            let recorded = Command::RecordOutcome { attempt: AttemptNumber(1), outcome };
            let answered = app.ledger.execute(&acme(), &id, recorded, &agent, AttemptReport::default()).await.unwrap();
            let found = app.ledger.reads().operation_history(&acme(), &id).await.unwrap().unwrap();
            assert_eq!((&answered.operation, &answered.external_refs), (&found.operation, &found.external_refs), "part {part}");
            assert_eq!(found.external_refs.iter().map(|r| r.external_id.as_str()).collect::<Vec<_>>(), refs, "part {part}");
        }
        let accepted = OpId::parse("refund-A1042-part3").unwrap();
        let status = opledger::domain::machine::ProviderStatus::Succeeded;
        let confirmed = Command::ConfirmFound { external_id: "re_3".into(), evidence: "found by lookup".into(), status };
        let answered = app.ledger.execute(&acme(), &accepted, confirmed, &reconciler, AttemptReport::default()).await.unwrap();
        let found = app.ledger.reads().operation_history(&acme(), &accepted).await.unwrap().unwrap();
        assert_eq!((&answered.operation, &answered.external_refs), (&found.operation, &found.external_refs));
        assert_eq!(found.external_refs.len(), 1, "the id it held, recorded once");

        // Another tenant's operation of the same id and external id records it: ids are the tenant's.
        let globex = TenantId::parse("globex").unwrap();
        app.ledger.register(&globex, &agent, request(op_id.as_str(), 100)).await.unwrap();
        app.ledger.execute(&globex, &op_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        let succeeded = AttemptOutcome::Succeeded { external_id: Some("re_1".into()) };
        let recorded = Command::RecordOutcome { attempt: AttemptNumber(1), outcome: succeeded };
        let answered = app.ledger.execute(&globex, &op_id, recorded, &agent, AttemptReport::default()).await.unwrap();
        let found = app.ledger.reads().operation_history(&globex, &op_id).await.unwrap().unwrap();
        assert_eq!((&answered.operation, &answered.external_refs), (&found.operation, &found.external_refs));
        assert_eq!(found.external_refs.iter().map(|r| r.external_id.as_str()).collect::<Vec<_>>(), ["re_1"]);
    }

    a_ledger_deciding_from_its_own_outdated_copy_decides_again_from_the_store(app) {
        use opledger::domain::failure::FailureClass;
        use opledger::domain::ids::AttemptNumber;
        use opledger::domain::machine::{AttemptOutcome, State};
        use opledger::server::ledger::{Ledger, LedgerError};
        let agent = Actor::agent("agent-7");
        let here = &app.ledger;
        let there = Ledger::new(app.store.clone());
        let op_id = OpId::parse("refund-A1042-part1").unwrap();
        here.register(&acme(), &agent, request(op_id.as_str(), 100)).await.unwrap();
        here.execute(&acme(), &op_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        let outcome = |number, outcome| Command::RecordOutcome { attempt: AttemptNumber(number), outcome };
        let not_sent = || AttemptOutcome::Failed { failure: FailureClass::NotSent };
        there.execute(&acme(), &op_id, outcome(1, not_sent()), &agent, AttemptReport::default()).await.unwrap();

        // Here, attempt 1 is still open: its outcome would be accepted, and a new attempt refused.
        let stored = app.ledger.reads().load_operation(&acme(), &op_id).await.unwrap().unwrap();
        let refusal = decide(&stored.snapshot, outcome(1, not_sent()), &agent, now()).unwrap_err();
        let again = here.execute(&acme(), &op_id, outcome(1, not_sent()), &agent, AttemptReport::default()).await;
        let Err(LedgerError::Rejected(rejection)) = again else { panic!("expected a refusal, got {again:?}") };
        assert_eq!(rejection, refusal, "refused as the stored operation says");
        let begun = here.execute(&acme(), &op_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        assert_eq!(begun.operation.snapshot.open_attempt, Some(AttemptNumber(2)), "begun from the stored operation");

        // There, the copy is now outdated by a change made here: the outcome of attempt 2 is
        // accepted, not refused as the copy (no open attempt) would have it.
        let succeeded = AttemptOutcome::Succeeded { external_id: Some("re_1".into()) };
        let settled = there.execute(&acme(), &op_id, outcome(2, succeeded), &agent, AttemptReport::default()).await.unwrap();
        assert_eq!(settled.operation.snapshot.state, State::Succeeded);
        let read = app.ledger.reads().operation_history(&acme(), &op_id).await.unwrap().unwrap();
        assert_eq!(read.operation, settled.operation);
        assert_eq!(read.attempts.iter().map(|a| a.outcome.clone()).collect::<Vec<_>>(), [Some("not_sent".to_owned()), Some("succeeded".to_owned())]);
        let actions: Vec<_> = read.audit.iter().map(|event| event.entry.action.as_str()).collect();
        assert_eq!(actions, ["register", "begin_attempt", "record_outcome", "begin_attempt", "record_outcome"], "no refused or repeated change left a trace");
    }
}

/// A store on a fresh database of `engine` that was migrated up to migration `version`, given
/// `rows` the way those migrations kept them, then migrated to the end.
async fn migrated_from(
    engine: crate::support::Engine,
    version: i64,
    rows: &str,
) -> Option<(crate::support::TestDatabase, std::sync::Arc<dyn opledger::server::store::Store>)> {
    use crate::support::{Engine, TestDatabase};
    let database = TestDatabase::create(engine).await?;
    let folder = match engine {
        Engine::Sqlite => "migrations/sqlite",
        Engine::Postgres => "migrations/postgres",
    };
    let mut before = sqlx::migrate::Migrator::new(std::path::Path::new(folder)).await.unwrap();
    before.migrations =
        before.migrations.iter().filter(|m| m.version <= version).cloned().collect::<Vec<_>>().into();
    match engine {
        Engine::Sqlite => {
            let options = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(database.url().trim_start_matches("sqlite://"))
                .create_if_missing(true);
            let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
            before.run(&pool).await.unwrap();
            sqlx::raw_sql(rows).execute(&pool).await.unwrap();
            pool.close().await;
        }
        Engine::Postgres => {
            let pool = sqlx::PgPool::connect(database.url()).await.unwrap();
            before.run(&pool).await.unwrap();
            sqlx::raw_sql(rows).execute(&pool).await.unwrap();
            pool.close().await;
        }
    }
    let store = opledger::server::store::connect(database.url()).await.unwrap();
    store.migrate().await.unwrap();
    Some((database, store))
}

/// Counts per state recorded the way migrations up to 25 kept them: the overview counts the same
/// after the rest.
async fn counts_per_state_survive_their_move_into_the_hourly_counts(engine: crate::support::Engine) {
    use opledger::domain::machine::State;
    let counts = "insert into tenants (id, name, created_at_us) values ('acme', 'acme', 0); \
                  insert into state_counts (tenant, state, stripe, operations) values \
                  ('acme', 'succeeded', 0, 5), ('acme', 'succeeded', 3, 2), ('acme', 'unknown', 7, 1)";
    let Some((_database, store)) = migrated_from(engine, 25, counts).await else { return };
    let mut counted = store.count_by_state(&acme()).await.unwrap();
    counted.sort_by_key(|(state, _)| state.as_str());
    assert_eq!(counted, vec![(State::Succeeded, 7), (State::Unknown, 1)]);
}

/// Orders recorded before their tallies were kept (migration 26): after migration 27 the orders
/// needing attention are the one in partial success and the one with an unknown refund, not the
/// compensated one, the one waiting for approval or the other tenant's.
async fn orders_needing_attention_are_found_after_their_tallies_are_filled_in(
    engine: crate::support::Engine,
) {
    let operation = |tenant: &str,
                     op_id: &str,
                     kind: &str,
                     subject: &str,
                     state: &str,
                     compensates: &str,
                     at: i64| {
        format!(
            "insert into operations (tenant, op_id, kind, subject, provider, params, fingerprint, state, \
             idempotency_key, key_retention_s, requested_by, compensates, cancel_requested, version, created_at_us, \
             updated_at_us) values ('{tenant}', '{op_id}', '{kind}', '{subject}', 'sandbox', '{{}}', 'f', '{state}', \
             '{op_id}', 86400, 'agent', {compensates}, 1 = 0, 1, {at}, {at});"
        )
    };
    let activity = |tenant: &str, subject: &str, at: i64| {
        format!("insert into subject_activity (tenant, subject, changed_at_us, unsettled) values ('{tenant}', '{subject}', {at}, 1);")
    };
    let mut rows = String::from(
        "insert into tenants (id, name, created_at_us) values ('acme', 'acme', 0), ('globex', 'globex', 0);",
    );
    for (tenant, op_id, kind, subject, state, compensates, at) in [
        ("acme", "ticket-p", "create_aftersale", "order:P", "succeeded", "null", 1),
        ("acme", "pickup-p", "schedule_pickup", "order:P", "rejected", "null", 2),
        ("acme", "ticket-c", "create_aftersale", "order:C", "succeeded", "null", 3),
        ("acme", "pickup-c", "schedule_pickup", "order:C", "rejected", "null", 4),
        ("acme", "cancel-ticket-c", "cancel_aftersale", "order:C", "succeeded", "'ticket-c'", 5),
        ("acme", "refund-u", "refund", "order:U", "unknown", "null", 6),
        ("acme", "refund-w", "refund", "order:W", "pending_approval", "null", 7),
        ("globex", "refund-g", "refund", "order:G", "unknown", "null", 8),
    ] {
        rows.push_str(&operation(tenant, op_id, kind, subject, state, compensates, at));
    }
    for (tenant, subject, at) in [
        ("acme", "order:P", 2),
        ("acme", "order:C", 5),
        ("acme", "order:U", 6),
        ("acme", "order:W", 7),
        ("globex", "order:G", 8),
    ] {
        rows.push_str(&activity(tenant, subject, at));
    }
    let Some((_database, store)) = migrated_from(engine, 26, &rows).await else { return };
    assert_eq!(store.subjects(&acme(), true, 10).await.unwrap(), ["order:U", "order:P"]);
    assert_eq!(
        store.subjects(&acme(), false, 10).await.unwrap(),
        ["order:W", "order:U", "order:C", "order:P"]
    );
}

#[tokio::test]
async fn sqlite_orders_needing_attention_are_found_after_their_tallies_are_filled_in() {
    orders_needing_attention_are_found_after_their_tallies_are_filled_in(crate::support::Engine::Sqlite)
        .await;
}

#[tokio::test]
async fn postgres_orders_needing_attention_are_found_after_their_tallies_are_filled_in() {
    orders_needing_attention_are_found_after_their_tallies_are_filled_in(crate::support::Engine::Postgres)
        .await;
}

#[tokio::test]
async fn sqlite_counts_per_state_survive_their_move_into_the_hourly_counts() {
    counts_per_state_survive_their_move_into_the_hourly_counts(crate::support::Engine::Sqlite).await;
}

/// PostgreSQL's audit chain moves into monthly partitions (migration 45): the records of two months
/// made before it are read back whole, each in its month's partition, and a record of a month
/// with no partition yet is sealed into one made for it.
#[tokio::test]
async fn postgres_audit_records_move_into_monthly_partitions() {
    use opledger::domain::audit::{verify_chain, AuditEntry};
    let first = AuditEntry {
        at: chrono::DateTime::from_timestamp_micros(1_577_836_800_000_001).unwrap(),
        tenant: "acme".into(),
        actor: "ada".into(),
        role: "admin".into(),
        action: "export".into(),
        op_id: None,
        from_state: None,
        to_state: None,
        reason: None,
        evidence: serde_json::json!({}),
    }
    .chain_after(None);
    let second = AuditEntry {
        at: chrono::DateTime::from_timestamp_micros(1_700_000_000_000_000).unwrap(),
        ..first.entry.clone()
    }
    .chain_after(Some((first.seq, &first.hash)));
    let values = [&first, &second]
        .iter()
        .map(|record| {
            format!(
                "('acme', {}, {}, 'ada', 'admin', 'export', null, null, null, null, '{{}}', '{}', '{}')",
                record.seq,
                record.entry.at.timestamp_micros(),
                record.prev_hash,
                record.hash
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let rows = format!(
        "insert into tenants (id, name, created_at_us) values ('acme', 'acme', 0); \
         insert into audit_events (tenant, seq, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, prev_hash, hash) values {values}"
    );
    let Some((database, store)) = migrated_from(crate::support::Engine::Postgres, 44, &rows).await else { return };
    let chain = store.audit_chain(&acme()).await.unwrap();
    assert_eq!(chain, vec![first.clone(), second], "read back whole");
    let pool = sqlx::PgPool::connect(database.url()).await.unwrap();
    let placed: Vec<(String, i64)> = sqlx::query_as("select tableoid::regclass::text, seq from audit_events order by seq")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(placed, vec![("audit_events_202001".to_owned(), 1), ("audit_events_202311".to_owned(), 2)]);
    let later = AuditEntry { at: chrono::DateTime::from_timestamp_micros(4_102_444_800_000_000).unwrap(), ..first.entry.clone() };
    store.record_audit(&acme(), later).await.unwrap();
    let (month,): (String,) = sqlx::query_as("select tableoid::regclass::text from audit_events where seq = 3").fetch_one(&pool).await.unwrap();
    assert_eq!(month, "audit_events_210001", "its month was made for it");
    assert_eq!(verify_chain(&store.audit_chain(&acme()).await.unwrap()).map_err(|broken| broken.problem), Ok(3));
}

#[tokio::test]
async fn postgres_counts_per_state_survive_their_move_into_the_hourly_counts() {
    counts_per_state_survive_their_move_into_the_hourly_counts(crate::support::Engine::Postgres).await;
}
