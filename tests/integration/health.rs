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
