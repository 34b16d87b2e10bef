//! OpenTelemetry traces: `serve`, given the standard `OTEL_*` variables, exports its spans over
//! OTLP/HTTP to a collector stand-in (protobuf unless `http/json` is asked for), flushing the last
//! batch when it stops on SIGTERM; a tool call that carries an agent's `traceparent` is one trace
//! with the agent's, from the request down to the provider call, with the op id, the tenant, the
//! idempotency key and the provider's status. `OTEL_SDK_DISABLED=true` exports nothing, and where
//! spans are not exported a `traceparent` changes nothing.

use axum::{body::Bytes, extract::State, http::HeaderMap, routing::post, Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The agent's trace, as its W3C `traceparent` names it: trace id, then the agent's span id.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const AGENT_SPAN_ID: &str = "00f067aa0ba902b7";

/// The key the sandbox provider is started with; no span may carry it.
const PROVIDER_KEY: &str = "sk_test_traces_secret";

/// A collector stand-in: accepts OTLP/HTTP `POST /v1/traces`, notes each export's content type,
/// and keeps every span of the JSON ones, each with its resource's `service.name`.
#[derive(Clone, Default)]
struct Collector {
    content_types: Arc<Mutex<Vec<String>>>,
    spans: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Collector {
    /// Listens on a free port of 127.0.0.1; returns its base URL.
    async fn start(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = Router::new().route("/v1/traces", post(receive)).with_state(self.clone());
        tokio::spawn(async move { axum::serve(listener, router).await });
        format!("http://{addr}")
    }

    fn content_types(&self) -> Vec<String> {
        self.content_types.lock().unwrap().clone()
    }

    fn spans(&self) -> Vec<(String, Value)> {
        self.spans.lock().unwrap().clone()
    }
}

async fn receive(State(collector): State<Collector>, headers: HeaderMap, body: Bytes) -> Json<Value> {
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    collector.content_types.lock().unwrap().push(content_type.to_owned());
    if content_type != "application/json" {
        return Json(json!({}));
    }
    let export: Value = serde_json::from_slice(&body).expect("an OTLP/JSON export request");
    let mut spans = collector.spans.lock().unwrap();
    for resource in export["resourceSpans"].as_array().into_iter().flatten() {
        let service = attribute(&resource["resource"], "service.name").unwrap_or_default();
        for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
            for span in scope["spans"].as_array().into_iter().flatten() {
                spans.push((service.clone(), span.clone()));
            }
        }
    }
    Json(json!({}))
}

/// An attribute of a span (or a resource) as text: a string, or an integer (which OTLP/JSON may
/// write as a string).
fn attribute(holder: &Value, key: &str) -> Option<String> {
    let found = holder["attributes"].as_array()?.iter().find(|a| a["key"] == key)?;
    let value = &found["value"];
    match (&value["stringValue"], &value["intValue"]) {
        (Value::String(text), _) => Some(text.clone()),
        (_, Value::String(number)) => Some(number.clone()),
        (_, Value::Number(number)) => Some(number.to_string()),
        _ => None,
    }
}

fn text<'a>(span: &'a Value, field: &str) -> &'a str {
    span[field].as_str().unwrap_or_default()
}

/// `opledger serve` on a free port with a temporary SQLite database, the sandbox's key
/// [`PROVIDER_KEY`], and of the `OTEL_*` variables exactly the ones given (none inherited); its
/// standard output piped, its log in a file.
struct Served {
    child: Child,
    base_url: String,
    log_path: PathBuf,
    _data: tempfile::TempDir,
}

impl Served {
    fn start(args: &[&str], otel: &[(&str, &str)]) -> Served {
        let data = tempfile::tempdir().unwrap();
        let log_path = data.path().join("serve.log");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut serve = Command::new(env!("CARGO_BIN_EXE_opledger"));
        for (name, _) in std::env::vars_os().filter(|(name, _)| name.to_string_lossy().starts_with("OTEL_")) {
            serve.env_remove(name);
        }
        let child = serve
            .args(["serve", "--reconcile-every", "0s", "--addr", &format!("127.0.0.1:{port}")])
            .args(["--database-url", &format!("sqlite://{}/serve.db", data.path().display())])
            .args(["--site-root", &data.path().display().to_string(), "--stripe-secret-key", PROVIDER_KEY])
            .args(args)
            .env("OPLEDGER_SECRET_KEY", crate::support::SECRET_KEY)
            .env_remove("RUST_LOG")
            .envs(otel.iter().copied())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log_path).unwrap())
            .spawn()
            .unwrap();
        Served { child, base_url: format!("http://127.0.0.1:{port}"), log_path, _data: data }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// Waits for `GET /healthz` to answer 200.
    async fn healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !reqwest::get(format!("{}/healthz", self.base_url)).await.is_ok_and(|r| r.status() == 200) {
            assert!(Instant::now() < deadline, "the server did not answer within 30 s:\n{}", self.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The API token `serve --demo` announces once its data is seeded.
    async fn demo_token(&mut self) -> String {
        let stdout = self.child.stdout.take().unwrap();
        let announced = tokio::task::spawn_blocking(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .find(|line| line.starts_with("Agents: connect an MCP client to"))
        });
        let line = tokio::time::timeout(Duration::from_secs(120), announced)
            .await
            .expect("serve --demo announces its token")
            .unwrap()
            .unwrap_or_else(|| panic!("no announcement; the server's log:\n{}", self.log()));
        line.split("Bearer ").nth(1).and_then(|rest| rest.split('"').next()).expect("the token").to_owned()
    }

    /// Sends SIGTERM and waits for a clean exit (at most 20 s); the server's log.
    async fn stop(mut self) -> String {
        let killed = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the server did not stop within 20 s of SIGTERM");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(status.success(), "a SIGTERM stop is a clean exit: {status}\n{}", self.log());
        self.log()
    }
}

/// An agent refunds a line item of a new order through the tool with its `traceparent`; once the
/// server has stopped, the collector holds the agent's trace: the request span under the agent's
/// span, the ledger's steps with the op id and the tenant, and the provider call below them with
/// the idempotency key, the status and the outcome; and no secret anywhere.
#[tokio::test]
async fn a_tool_call_with_a_traceparent_is_one_exported_trace_down_to_the_provider_call() {
    let collector = Collector::default();
    let collector_url = collector.start().await;
    let mut server = Served::start(
        &["--demo", "--provider-timeout", "2s"],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &collector_url),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            // Long enough that the tool call's spans still wait when the server stops: only the
            // flush at shutdown exports them.
            ("OTEL_BSP_SCHEDULE_DELAY", "120000"),
        ],
    );
    let token = server.demo_token().await;
    let base = server.base_url.clone();
    let client = reqwest::Client::new();
    let order = json!({"id": "T-7", "currency": "USD", "payment_intent": "pi_T7",
                       "line_items": [{"id": "li_1", "name": "Braided cable", "amount_minor": 1500}]});
    let added = client
        .post(format!("{base}/sandbox/v1/_sandbox/orders"))
        .bearer_auth(PROVIDER_KEY)
        .json(&order)
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), 201, "the sandbox shop takes a new order");
    let answer: Value = client
        .post(format!("{base}/api/v1/tools/refund_item"))
        .bearer_auth(&token)
        .header("traceparent", format!("00-{TRACE_ID}-{AGENT_SPAN_ID}-01"))
        .json(&json!({"order_id": "T-7", "line_item_id": "li_1"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (answer["status"].as_str(), answer["op_id"].as_str()),
        (Some("succeeded"), Some("refund-T-7-li_1")),
        "{answer}"
    );
    let log = server.stop().await;

    let received = collector.spans();
    assert!(!received.is_empty(), "the collector received no span; the server's log:\n{log}");
    assert!(received.iter().all(|(service, _)| service == "opledger"), "the default service name");
    let everything =
        serde_json::to_string(&received.iter().map(|(_, span)| span).collect::<Vec<_>>()).unwrap();
    assert!(!everything.contains(PROVIDER_KEY), "the provider's secret key is in no span");
    assert!(!everything.contains(&token), "the agent's token is in no span");

    let trace: HashMap<&str, &Value> = received
        .iter()
        .map(|(_, span)| span)
        .filter(|span| text(span, "traceId") == TRACE_ID)
        .map(|span| (text(span, "spanId"), span))
        .collect();
    let request = trace
        .values()
        .find(|span| text(span, "name") == "request" && text(span, "parentSpanId") == AGENT_SPAN_ID)
        .unwrap_or_else(|| panic!("a request span under the agent's span in {:#?}", trace.values()));
    assert_eq!(attribute(request, "route").as_deref(), Some("/api/v1/tools/refund_item"));
    let request_id = text(request, "spanId");

    let key = "demo:refund-T-7-li_1";
    let about_the_refund: Vec<&Value> = received
        .iter()
        .map(|(_, span)| span)
        .filter(|span| {
            attribute(span, "op_id").as_deref() == Some("refund-T-7-li_1")
                || attribute(span, "idempotency_key").as_deref() == Some(key)
        })
        .collect();
    assert!(
        about_the_refund.iter().all(|span| text(span, "traceId") == TRACE_ID),
        "every span of the refund is in the agent's trace: {about_the_refund:#?}"
    );

    let send = about_the_refund
        .iter()
        .find(|span| {
            text(span, "name") == "provider_call"
                && attribute(span, "idempotency_key").as_deref() == Some(key)
        })
        .unwrap_or_else(|| panic!("a provider call with the refund's key in {about_the_refund:#?}"));
    for (name, expected) in [
        ("provider", "stripe"),
        ("http.request.method", "POST"),
        ("url.path", "/sandbox/v1/refunds"),
        ("http.response.status_code", "200"),
        ("outcome", "succeeded"),
    ] {
        assert_eq!(attribute(send, name).as_deref(), Some(expected), "{name} of {send:#}");
    }
    let mut ancestry = Vec::new();
    let mut parent = text(send, "parentSpanId");
    while parent != request_id {
        let span = trace.get(parent).unwrap_or_else(|| {
            panic!("the provider call's ancestry {ancestry:?} leads to the request span, not to {parent:?}")
        });
        ancestry.push(text(span, "name"));
        parent = text(span, "parentSpanId");
    }
    assert!(ancestry.contains(&"run"), "the executor's run is among the call's parents: {ancestry:?}");

    for name in ["register", "run", "send_open_attempt", "execute"] {
        let span = about_the_refund
            .iter()
            .find(|span| text(span, "name") == name)
            .unwrap_or_else(|| panic!("a {name} span with the op id in {about_the_refund:#?}"));
        assert_eq!(attribute(span, "tenant").as_deref(), Some("demo"), "the tenant of {span:#}");
    }
}

/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` alone turns the export on, in protobuf, OTLP's default;
/// `OTEL_SDK_DISABLED=true` turns it off whatever else is set.
#[tokio::test]
async fn the_otel_variables_turn_the_export_on_in_protobuf_or_off() {
    for (disabled, expected) in [("false", Some("application/x-protobuf")), ("true", None)] {
        let collector = Collector::default();
        let collector_url = collector.start().await;
        let traces_url = format!("{collector_url}/v1/traces");
        let server = Served::start(
            &[],
            &[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &traces_url), ("OTEL_SDK_DISABLED", disabled)],
        );
        server.healthy().await;
        let log = server.stop().await;
        let content_types = collector.content_types();
        match expected {
            Some(content_type) => {
                assert!(!content_types.is_empty(), "the request spans were exported; the log:\n{log}");
                assert!(content_types.iter().all(|c| c == content_type), "{content_types:?}");
            }
            None => {
                assert!(content_types.is_empty(), "OTEL_SDK_DISABLED=true exports nothing: {content_types:?}")
            }
        }
    }
}

/// In an application whose spans are not exported (no OpenTelemetry layer, as in-process), a
/// `traceparent`, valid or not, changes nothing of the answer.
#[tokio::test]
async fn a_traceparent_changes_nothing_when_spans_are_not_exported() {
    let Some(app) = crate::support::TestApp::spawn_with_sandbox(crate::support::Engine::Sqlite).await else {
        return;
    };
    let call = json!({"order_id": "1043", "line_item_id": "li_2"});
    for traceparent in [format!("00-{TRACE_ID}-{AGENT_SPAN_ID}-01"), "00-not-a-trace-01".to_owned()] {
        let response = app
            .client
            .post(app.url("/api/v1/tools/refund_item"))
            .bearer_auth(&app.token)
            .header("traceparent", traceparent)
            .json(&call)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.headers().contains_key("x-request-id"));
        let answer: Value = response.json().await.unwrap();
        assert!(matches!(answer["status"].as_str(), Some("succeeded" | "already_done")), "{answer}");
    }
}
