//! Logging and tracing set-up: one `tracing` subscriber that writes human-readable text or JSON
//! lines, filtered by `RUST_LOG` (default `info`, with the database driver's per-query logs at
//! `warn`), and that also exports its spans to an OpenTelemetry collector over OTLP/HTTP when the
//! standard `OTEL_*` variables ask for it; and the continuation of an agent's W3C trace.

use axum::http::HeaderMap;
use opentelemetry::trace::{TraceContextExt, TracerProvider};
use opentelemetry::{global, Context, Key};
use opentelemetry_http::HeaderExtractor;
use opentelemetry_otlp::{
    ExporterBuildError, Protocol, SpanExporter, WithExportConfig, OTEL_EXPORTER_OTLP_ENDPOINT,
    OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
};
use opentelemetry_sdk::{propagation::TraceContextPropagator, trace::SdkTracerProvider, Resource};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::{fmt, layer::SubscriberExt, util::SubscriberInitExt, EnvFilter};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// The `service.name` spans are exported under when the environment names no service.
const DEFAULT_SERVICE_NAME: &str = "opledger";

/// Turns the whole OpenTelemetry SDK off when `true`, whatever else is set.
const OTEL_SDK_DISABLED: &str = "OTEL_SDK_DISABLED";

/// The cause chain of an error, for the log: `the database failed: pool timed out: …`.
pub fn cause_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// What [`init`] started that must be stopped as the process ends: the span exporter, when spans
/// are exported.
#[must_use = "shut it down as the process ends, or the last spans are lost"]
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Exports the spans still waiting for their batch, then stops the exporter (waiting at most
    /// the SDK's 5 s for a collector that does not answer).
    pub fn shutdown(self) {
        if let Some(traces) = self.traces {
            if let Err(error) = traces.shutdown() {
                tracing::warn!(error = %error, "the last spans could not be exported");
            }
        }
    }
}

/// Installs the global subscriber, exporting spans when [`tracer_provider`] says so; a second call
/// (as in tests) leaves the first in place and exports nothing more.
pub fn init(format: LogFormat) -> Telemetry {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let exporting = tracer_provider();
    let traces = exporting.as_ref().ok().and_then(Option::as_ref);
    let export = traces.map(|traces| tracing_opentelemetry::layer().with_tracer(traces.tracer("opledger")));
    let subscriber = tracing_subscriber::registry().with(filter).with(export);
    let logs = fmt::layer().with_writer(std::io::stderr);
    let installed = match format {
        LogFormat::Text => subscriber.with(logs).try_init(),
        LogFormat::Json => subscriber.with(logs.json().flatten_event(true)).try_init(),
    };
    if installed.is_err() {
        return Telemetry { traces: None };
    }
    match exporting {
        Ok(traces) => {
            if traces.is_some() {
                global::set_text_map_propagator(TraceContextPropagator::new());
            }
            Telemetry { traces }
        }
        Err(error) => {
            tracing::warn!(error = %cause_chain(&error), "spans are not exported");
            Telemetry { traces: None }
        }
    }
}

/// The tracer provider that batches spans and exports them over OTLP/HTTP, when the environment
/// asks for it: `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, and
/// `OTEL_SDK_DISABLED` is not `true`. The SDK reads the rest itself: the endpoint, protocol
/// (`http/protobuf` or `http/json`), headers and timeout of the exporter, the `OTEL_BSP_*`
/// settings of the batch, the `OTEL_TRACES_SAMPLER`. The batch is exported from a
/// thread of its own; a full queue drops spans rather than wait.
fn tracer_provider() -> Result<Option<SdkTracerProvider>, ExporterBuildError> {
    let is_set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
    let disabled =
        std::env::var(OTEL_SDK_DISABLED).is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"));
    if disabled || !(is_set(OTEL_EXPORTER_OTLP_ENDPOINT) || is_set(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) {
        return Ok(None);
    }
    let mut exporter = SpanExporter::builder().with_http();
    // With JSON compiled in, the exporter would default to it; OTLP's default is protobuf.
    if !is_set(OTEL_EXPORTER_OTLP_PROTOCOL) && !is_set(OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) {
        exporter = exporter.with_protocol(Protocol::HttpBinary);
    }
    let traces =
        SdkTracerProvider::builder().with_batch_exporter(exporter.build()?).with_resource(resource()).build();
    Ok(Some(traces))
}

/// The resource spans are exported with: what the SDK reads from the environment
/// (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) and its own attributes, under the service
/// name `opledger` when the environment names none (the SDK's default is `unknown_service:…`, as
/// the specification says).
fn resource() -> Resource {
    let detected = Resource::builder().build();
    let named = detected
        .get(&Key::from_static_str("service.name"))
        .is_some_and(|name| !name.as_str().starts_with("unknown_service"));
    if named {
        detected
    } else {
        Resource::builder().with_service_name(DEFAULT_SERVICE_NAME).build()
    }
}

/// Makes `span` (a request's, not yet entered) continue the trace that a valid W3C `traceparent`
/// header in `headers` names, when spans are exported; otherwise it stays the root of a trace of
/// its own. Without such a header this is one header lookup.
pub fn continue_remote_trace(span: &tracing::Span, headers: &HeaderMap) {
    if !headers.contains_key("traceparent") {
        return;
    }
    let remote = global::get_text_map_propagator(|propagator| {
        propagator.extract_with_context(&Context::new(), &HeaderExtractor(headers))
    });
    if remote.span().span_context().is_remote() {
        // Refused only when no OpenTelemetry layer is installed, where a parent would change nothing.
        let _no_exporter = span.set_parent(remote);
    }
}
