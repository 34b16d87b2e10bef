//! The MCP server at `/mcp`, driven by the official Rust SDK's client (`rmcp`) over real HTTP: its
//! tools with their schemas and annotations, a refund called twice that refunds once, a lost answer
//! that tells the model not to call again and that the reconciler settles, another tenant's token
//! that finds nothing, and a token that is refused.

use std::sync::Arc;
use std::time::{Duration, Instant};

use opledger::domain::{
    ids::{OpId, TenantId},
    machine::State,
};
use opledger::server::ledger::{
    executor::{Executor, RetryPolicy},
    reconciler::Reconciler,
};
use opledger::server::providers::StripeConnector;
use rmcp::{
    model::{CallToolRequestParams, CallToolResult},
    service::RunningService,
    transport::{streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport},
    RoleClient, ServiceExt,
};
use serde_json::{json, Value};

use crate::support::{sandbox_refunds, TestApp};

async fn connect(app: &TestApp, token: &str) -> RunningService<RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(app.url("/mcp")).auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("the MCP client connects")
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    arguments: Value,
) -> CallToolResult {
    let arguments = arguments.as_object().cloned().expect("arguments are an object");
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .expect("the call is answered")
}

fn words(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap().to_string()
}

async fn state_of(app: &TestApp, op_id: &str) -> State {
    let tenant = TenantId::parse("acme").unwrap();
    let operation = app.ledger.reads().load_operation(&tenant, &OpId::parse(op_id).unwrap()).await.unwrap();
    operation.expect("the operation exists").snapshot.state
}

crate::sandboxed_tests! {
    a_refund_with_locale_zh_tw_tells_the_customer_in_traditional_chinese(app) {
        let client = connect(&app, &app.token).await;
        let answer = call(&client, "refund_item", json!({"order_id": "1043", "line_item_id": "li_2", "locale": "zh-TW"})).await;
        assert_eq!(answer.is_error, Some(false), "{}", words(&answer));
        let structured = answer.structured_content.as_ref().unwrap();
        assert_eq!(structured["locale"], "zh-TW");
        assert_eq!(structured["for_customer"], "您的 NT$380 退款已完成，款項可能需要幾天才會出現在您的銀行帳戶。");
        assert!(structured["message"].as_str().unwrap().starts_with("Stripe confirmed the refund of NT$380"), "{structured}");
        let tools = client.list_all_tools().await.unwrap();
        let refund = tools.iter().find(|tool| tool.name == "refund_item").unwrap();
        let schema = serde_json::to_value(refund).unwrap();
        assert!(schema["inputSchema"]["properties"]["locale"]["description"].as_str().unwrap().contains("zh-TW"), "{schema}");
        client.cancel().await.unwrap();
    }

    the_tools_are_listed_with_their_schemas_and_annotations(app) {
        let client = connect(&app, &app.token).await;
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        for expected in ["refund_item", "create_aftersale", "schedule_pickup", "get_operation", "order_operations", "cancel_operation"] {
            assert!(names.contains(&expected), "{expected} in {names:?}");
        }
        let refund = tools.iter().find(|tool| tool.name == "refund_item").unwrap();
        let listed = serde_json::to_value(refund).unwrap();
        assert_eq!(listed["annotations"]["destructiveHint"], true, "{listed}");
        assert_eq!(listed["annotations"]["idempotentHint"], true, "{listed}");
        assert_eq!(listed["inputSchema"]["required"], json!(["order_id", "line_item_id"]), "{listed}");
        assert!(listed["description"].as_str().unwrap().contains("do not call again"), "{listed}");
        let read = tools.iter().find(|tool| tool.name == "get_operation").unwrap();
        assert_eq!(serde_json::to_value(read).unwrap()["annotations"]["readOnlyHint"], true);
        client.cancel().await.unwrap();
    }

    a_refund_called_twice_refunds_once_and_the_second_answer_says_already_done(app) {
        let client = connect(&app, &app.token).await;
        let item = json!({"order_id": "1043", "line_item_id": "li_2"});
        let first = call(&client, "refund_item", item.clone()).await;
        assert_eq!(first.is_error, Some(false), "{}", words(&first));
        assert_eq!(first.structured_content.as_ref().unwrap()["status"], "succeeded");
        assert!(words(&first).contains("Stripe confirmed the refund of NT$380 for Headphone case"), "{}", words(&first));
        let second = call(&client, "refund_item", item).await;
        assert_eq!(second.structured_content.as_ref().unwrap()["status"], "already_done");
        assert!(words(&second).contains("Already done earlier"), "{}", words(&second));
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "one refund at the provider");

        let operation = call(&client, "get_operation", json!({"op_id": "refund-1043-li_2"})).await;
        assert_eq!(operation.structured_content.as_ref().unwrap()["state"], "succeeded");
        let order = call(&client, "order_operations", json!({"order_id": "1043"})).await;
        assert_eq!(order.structured_content.as_ref().unwrap()["operations"].as_array().unwrap().len(), 1, "{}", words(&order));
        let tenant = TenantId::parse("acme").unwrap();
        let history = app.ledger.reads().operation_history(&tenant, &OpId::parse("refund-1043-li_2").unwrap()).await.unwrap().unwrap();
        assert!(history.audit.iter().all(|event| event.entry.actor == "agent-7" || event.entry.actor == "executor"), "the token's name acts");
        assert!(history.audit.iter().any(|event| event.entry.actor == "agent-7" && event.entry.action == "register"));
        client.cancel().await.unwrap();
    }

    a_lost_answer_tells_the_model_not_to_call_again_and_the_reconciler_settles_it(app) {
        app.fault(json!({"match": "refund-1043-li_2", "fault": "drop_response", "ms": 10000})).await;
        let client = connect(&app, &app.token).await;
        let item = json!({"order_id": "1043", "line_item_id": "li_2"});
        let first = call(&client, "refund_item", item.clone()).await;
        assert_eq!(first.structured_content.as_ref().unwrap()["status"], "unknown", "{}", words(&first));
        assert!(words(&first).contains("Do not refund it again"), "{}", words(&first));
        let again = call(&client, "refund_item", item).await;
        assert_eq!(again.structured_content.as_ref().unwrap()["status"], "unknown");
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "the second call sent nothing");

        let connector = StripeConnector::new(&app.url("/sandbox"), "sk_test_sandbox", Duration::from_secs(5), &opledger::server::egress::EgressPolicy::unrestricted());
        let executor = Executor::new(app.ledger.clone(), RetryPolicy::default())
            .with_connector("stripe", Arc::new(connector))
            .serving([opledger::domain::ids::TenantId::parse("acme").unwrap()]);
        let reconciler = Reconciler::new(executor, chrono::Duration::zero());
        let deadline = Instant::now() + Duration::from_secs(30);
        while state_of(&app, "refund-1043-li_2").await != State::Succeeded {
            assert!(Instant::now() < deadline, "the reconciler settles the refund");
            reconciler.reconcile_once().await.unwrap();
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        let settled = call(&client, "refund_item", json!({"order_id": "1043", "line_item_id": "li_2"})).await;
        assert_eq!(settled.structured_content.as_ref().unwrap()["status"], "already_done");
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "settled without a second refund");
        client.cancel().await.unwrap();
    }

    a_cancel_without_a_reason_stops_an_operation_not_sent_yet(app) {
        assert_eq!(app.register(&crate::support::refund_1043(38000)).await.0, 201);
        let client = connect(&app, &app.token).await;
        let stop = call(&client, "cancel_operation", json!({"op_id": "refund-1043-li_2"})).await;
        assert_eq!(stop.is_error, Some(false), "{}", words(&stop));
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Cancelled);
        client.cancel().await.unwrap();
    }

    another_tenants_token_finds_nothing_and_a_bad_token_is_refused(app) {
        let ours = connect(&app, &app.token).await;
        let done = call(&ours, "refund_item", json!({"order_id": "1043", "line_item_id": "li_2"})).await;
        assert_eq!(done.is_error, Some(false), "{}", words(&done));
        let theirs = connect(&app, &app.other_token).await;
        let read = call(&theirs, "get_operation", json!({"op_id": "refund-1043-li_2"})).await;
        assert_eq!(read.is_error, Some(true));
        assert!(words(&read).contains("No such operation") && !words(&read).contains("pi_1043"), "{}", words(&read));
        let stop = call(&theirs, "cancel_operation", json!({"op_id": "refund-1043-li_2", "reason": "not ours"})).await;
        assert_eq!(stop.is_error, Some(true), "{}", words(&stop));
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Succeeded, "untouched by another tenant");

        let refused = app.client.post(app.url("/mcp")).bearer_auth("opl_not_a_token")
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).send().await.unwrap();
        assert_eq!(refused.status(), 401);
        assert!(refused.headers()["www-authenticate"].to_str().unwrap().starts_with("Bearer"), "{:?}", refused.headers());
        let elsewhere = app.client.post(app.url("/mcp")).bearer_auth(&app.token).header("host", "evil.example")
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).send().await.unwrap();
        assert!(elsewhere.status().is_client_error(), "a Host that is not allowed is refused: {}", elsewhere.status());
        let anonymous = app.client.post(app.url("/mcp")).json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).send().await.unwrap();
        assert_eq!(anonymous.status(), 401);
        let config = StreamableHttpClientTransportConfig::with_uri(app.url("/mcp")).auth_header("opl_not_a_token");
        assert!(().serve(StreamableHttpClientTransport::from_config(config)).await.is_err(), "the SDK's client is refused too");
        ours.cancel().await.unwrap();
        theirs.cancel().await.unwrap();
    }
}

/// `get_operation` with `wait_seconds`, as an agent whose refund waits for a manager calls it.
mod waiting {
    use super::*;

    const OP: &str = "refund-1043-li_2";

    crate::engine_tests! {
        get_operation_waits_for_the_managers_decision(app) {
            app.hold_large_refunds().await;
            let (status, registered) = app.register(&crate::support::refund_1043(120_000)).await;
            assert_eq!((status, registered["state"].as_str()), (201, Some("pending_approval")), "{registered}");
            let client = connect(&app, &app.token).await;
            let started = Instant::now();
            let (answer, approved_at) = tokio::join!(call(&client, "get_operation", json!({"op_id": OP, "wait_seconds": 10})), async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                app.approve(OP).await;
                Instant::now()
            });
            assert_eq!(answer.is_error, Some(false), "{}", words(&answer));
            assert_eq!(answer.structured_content.as_ref().unwrap()["state"], "approved", "{}", words(&answer));
            assert!(started.elapsed() < Duration::from_secs(5), "answered after {:?}, not after the wait", started.elapsed());
            assert!(Instant::now().saturating_duration_since(approved_at) < Duration::from_secs(3));

            let started = Instant::now();
            let unchanged = call(&client, "get_operation", json!({"op_id": OP, "wait_seconds": 1})).await;
            assert_eq!(unchanged.structured_content.as_ref().unwrap()["state"], "approved", "{}", words(&unchanged));
            assert!(started.elapsed() >= Duration::from_secs(1), "a wait with no change lasts the wait");
            let started = Instant::now();
            let moved_on = call(&client, "get_operation", json!({"op_id": OP, "wait_seconds": 30, "state": "pending_approval"})).await;
            assert_eq!(moved_on.structured_content.as_ref().unwrap()["state"], "approved", "{}", words(&moved_on));
            assert!(started.elapsed() < Duration::from_secs(3), "a state already left answers at once");

            let too_long = call(&client, "get_operation", json!({"op_id": OP, "wait_seconds": 61})).await;
            assert_eq!(too_long.is_error, Some(true), "{}", words(&too_long));
            assert!(words(&too_long).contains("wait_seconds") && words(&too_long).contains("invalid_request"), "{}", words(&too_long));
            let unknown_state = call(&client, "get_operation", json!({"op_id": OP, "wait_seconds": 5, "state": "waiting"})).await;
            assert_eq!(unknown_state.is_error, Some(true), "{}", words(&unknown_state));
            assert!(words(&unknown_state).contains("state"), "{}", words(&unknown_state));

            let theirs = connect(&app, &app.other_token).await;
            let started = Instant::now();
            let elsewhere = call(&theirs, "get_operation", json!({"op_id": OP, "wait_seconds": 30})).await;
            assert_eq!(elsewhere.is_error, Some(true));
            assert!(words(&elsewhere).contains("No such operation"), "{}", words(&elsewhere));
            assert!(started.elapsed() < Duration::from_secs(3), "another tenant's token hears nothing, at once");
            let tools = client.list_all_tools().await.unwrap();
            let read = serde_json::to_value(tools.iter().find(|tool| tool.name == "get_operation").unwrap()).unwrap();
            assert_eq!(read["inputSchema"]["properties"]["wait_seconds"]["maximum"].as_f64(), Some(60.0), "{read}");
            client.cancel().await.unwrap();
            theirs.cancel().await.unwrap();
        }
    }
}

/// `opledger serve --demo` prints the MCP URL and a token; the official Python SDK (`mcp` on PyPI,
/// a client written by others) lists the tools with them and calls two.
#[tokio::test]
async fn the_official_python_sdk_lists_and_calls_the_tools_of_serve_demo() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let Some(python) = std::env::var_os("OPLEDGER_TEST_PYTHON") else {
        assert!(
            !crate::support::in_ci(),
            "OPLEDGER_TEST_PYTHON (a Python with the mcp package) is needed in CI"
        );
        eprintln!(
            "SKIPPED: set OPLEDGER_TEST_PYTHON to a Python with the mcp package (scripts/test.sh does)"
        );
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_opledger"))
        .args(["serve", "--demo", "--reconcile-every", "0s", "--addr", &format!("127.0.0.1:{port}")])
        .args(["--database-url", &format!("sqlite://{}/demo.db", data.path().display())])
        .args(["--site-root", &data.path().display().to_string()])
        .env("OPLEDGER_SECRET_KEY", crate::support::SECRET_KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = server.stdout.take().unwrap();
    let announced = tokio::task::spawn_blocking(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find(|line| line.starts_with("Agents: connect an MCP client to"))
    });
    let line = tokio::time::timeout(Duration::from_secs(90), announced)
        .await
        .expect("serve --demo announces its MCP URL")
        .unwrap();
    let line = line.expect("the announcement");
    let url = line.split_whitespace().nth(6).expect("the URL").to_owned();
    let token =
        line.split("Bearer ").nth(1).and_then(|rest| rest.split('"').next()).expect("the token").to_owned();
    assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"), "{line}");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/mcp_smoke.py");
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python).args([script, &url, &token]).output().unwrap()
    })
    .await
    .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}{}", String::from_utf8_lossy(&output.stderr));
    assert!(printed.contains("tools: cancel_operation, create_aftersale, get_operation"), "{printed}");
    assert!(printed.contains("refund_item: Already done earlier."), "{printed}");
}
