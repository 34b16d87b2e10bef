//! `GET /healthz` on both engines: healthy, and unavailable without leaking the cause.

use serde_json::{json, Value};

crate::engine_tests! {
    healthz_reports_the_database_engine(app) {
        let response = app.get("/healthz").await;
        assert_eq!(response.status(), 200);
        assert!(response.headers().contains_key("x-request-id"), "every answer carries a request id");
        let body: Value = response.json().await.unwrap();
        let engine = match app.database { crate::support::TestDatabase::Sqlite { .. } => "sqlite", _ => "postgres" };
        assert_eq!(body, json!({"status": "ok", "database": engine}));
    }
}

#[tokio::test]
async fn healthz_says_unavailable_without_the_database_error() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Postgres).await else { return };
    app.database.drop_now().await;
    let response = app.get("/healthz").await;
    assert_eq!(response.status(), 503);
    let body = response.text().await.unwrap();
    assert_eq!(body, r#"{"database":"postgres","status":"unavailable"}"#);
}

/// Ends every connection the application holds to its PostgreSQL database, and waits until they
/// are gone (the listener of the change feed connects again at once, on a connection of its own).
async fn end_the_application_connections(app: &crate::support::TestApp) {
    let others = "from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()";
    let started = app.number("select (extract(epoch from now()) * 1000000)::bigint").await;
    assert!(app.number(&format!("select count(*) {others}")).await > 0, "the application holds connections");
    app.tamper(&format!("select pg_terminate_backend(pid) {others}")).await;
    let ended = format!("select count(*) {others} and backend_start < to_timestamp({started} / 1000000.0)");
    while app.number(&ended).await > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

async fn register_line(app: &crate::support::TestApp, line: u32) -> (u16, Value) {
    let mut refund = crate::support::refund_1043(38000);
    refund["op_id"] = json!(format!("refund-1043-li_{line}"));
    app.register(&refund).await
}

/// A connection idle a second or longer is pinged before it is handed out: the connections the
/// database ended while they sat idle are found dead and replaced, and the calls that take them
/// succeed.
#[tokio::test]
async fn connections_the_database_ended_while_idle_are_replaced_before_use() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Postgres).await else { return };
    assert_eq!(register_line(&app, 2).await.0, 201);
    end_the_application_connections(&app).await;
    tokio::time::sleep(opledger::server::store::TRUSTED_WHILE_IDLE + std::time::Duration::from_millis(200))
        .await;
    for line in 3..6 {
        let (status, body) = register_line(&app, line).await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(app.get("/healthz").await.status(), 200);
    }
}

/// A connection used less than a second ago is handed out without a ping. When the database ended
/// it meanwhile, the one call that takes it fails as unavailable, and it is not handed out again.
#[tokio::test]
async fn a_connection_the_database_ended_since_its_last_use_fails_one_call_only() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Postgres).await else { return };
    assert_eq!(register_line(&app, 2).await.0, 201);
    end_the_application_connections(&app).await;
    let mut statuses = Vec::new();
    for line in 3..7 {
        statuses.push(register_line(&app, line).await.0);
    }
    assert_eq!(statuses[0], 503, "the call that takes the ended connection fails: {statuses:?}");
    assert_eq!(statuses[1..], [201, 201, 201], "the ended connection is not handed out again: {statuses:?}");
}
