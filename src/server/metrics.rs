//! The application's metrics, in Prometheus' text format: counters and latency histograms recorded
//! as things happen (HTTP requests, sign-in failures, state transitions, attempts and provider call
//! latency, reconciler passes, webhook attempts, archive files refused), and gauges of the ledger's
//! state set from the store's kept counts when `/metrics` is scraped. Each application has its own recorder (none is
//! installed process-wide), so two applications in one process never mix their figures.

use metrics::{counter, gauge, histogram, with_local_recorder};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder};
use std::sync::Arc;
use std::time::Duration;

/// The buckets of every `_seconds` histogram: from a fast local call to a provider's timeout.
const SECONDS_BUCKETS: [f64; 12] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// The state of the ledger at a scrape, read from the store.
#[derive(Debug, Clone, Default)]
pub struct LedgerGauges {
    /// Operations per tenant, kind, provider and state.
    pub operations: Vec<(String, String, String, &'static str, u64)>,
    /// Per tenant: seconds since the longest-waiting `accepted`, `unknown` and `needs_review` operation last
    /// changed (0 when there is none).
    pub oldest_seconds: Vec<(String, &'static str, f64)>,
    /// Deliveries waiting in the webhook outbox, every tenant's.
    pub webhook_backlog: u64,
}

/// One application's metrics; clones share them.
#[derive(Clone)]
pub struct Metrics {
    recorder: Arc<PrometheusRecorder>,
    handle: PrometheusHandle,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics(..)")
    }
}

impl Metrics {
    pub fn new() -> Self {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &SECONDS_BUCKETS)
            .expect("the buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        Self { recorder: Arc::new(recorder), handle }
    }

    fn record(&self, record: impl FnOnce()) {
        with_local_recorder(self.recorder.as_ref(), record);
    }

    /// One HTTP request answered, by route (the router's pattern, never the path with its ids).
    pub fn http_request(&self, method: &str, route: &str, status: u16, took: Duration) {
        let labels =
            [("method", method.to_owned()), ("route", route.to_owned()), ("status", status.to_string())];
        self.record(|| {
            counter!("opledger_http_requests_total", &labels).increment(1);
            histogram!("opledger_http_request_duration_seconds", &labels[..2]).record(took.as_secs_f64());
        });
    }

    /// An archive file of `tenant` refused on reading: not as it was signed, for `why`
    /// (`file_changed`, `other_tenant`, …).
    pub fn archive_file_refused(&self, tenant: &str, why: &'static str) {
        let labels = [("tenant", tenant.to_owned()), ("why", why.to_owned())];
        self.record(|| counter!("opledger_archive_files_refused_total", &labels).increment(1));
    }

    /// A sign-in refused, and why (`wrong_password`, `rate_limited`, …).
    pub fn sign_in_failed(&self, reason: &'static str) {
        self.record(|| counter!("opledger_sign_in_failures_total", "reason" => reason).increment(1));
    }

    /// A committed change of an operation by `command`, from one state to another.
    pub fn transition(&self, tenant: &str, command: &'static str, from: &'static str, to: &'static str) {
        let labels = [
            ("tenant", tenant.to_owned()),
            ("command", command.to_owned()),
            ("from", from.to_owned()),
            ("to", to.to_owned()),
        ];
        self.record(|| counter!("opledger_transitions_total", &labels).increment(1));
    }

    /// One attempt and its outcome (`succeeded`, or the failure's class: `timeout` is an unknown
    /// result, `not_sent` one that never left), with how long the provider took when it was
    /// called.
    pub fn attempt(&self, tenant: &str, provider: &str, outcome: &str, took: Option<Duration>) {
        let labels = [
            ("tenant", tenant.to_owned()),
            ("provider", provider.to_owned()),
            ("outcome", outcome.to_owned()),
        ];
        self.record(|| {
            counter!("opledger_attempts_total", &labels).increment(1);
            if let Some(took) = took {
                histogram!("opledger_provider_call_duration_seconds", &labels[1..])
                    .record(took.as_secs_f64());
            }
        });
    }

    /// One reconciler pass: how long it took and how many operations it took on.
    pub fn reconciler_pass(&self, took: Duration, taken: usize) {
        self.record(|| {
            histogram!("opledger_reconciler_pass_duration_seconds").record(took.as_secs_f64());
            counter!("opledger_reconciler_operations_total").increment(taken as u64);
        });
    }

    /// One webhook delivery attempt.
    pub fn webhook_attempt(&self, tenant: &str, delivered: bool, took: Duration) {
        let outcome = if delivered { "delivered" } else { "failed" };
        let labels = [("tenant", tenant.to_owned()), ("outcome", outcome.to_owned())];
        self.record(|| {
            counter!("opledger_webhook_attempts_total", &labels).increment(1);
            histogram!("opledger_webhook_duration_seconds").record(took.as_secs_f64());
        });
    }

    /// One try to send a notification on `channel`.
    pub fn notification_attempt(&self, tenant: &str, channel: &str, delivered: bool, took: Duration) {
        let outcome = if delivered { "delivered" } else { "not_delivered" };
        let labels =
            [("tenant", tenant.to_owned()), ("channel", channel.to_owned()), ("outcome", outcome.to_owned())];
        self.record(|| {
            counter!("opledger_notification_attempts_total", &labels).increment(1);
            histogram!("opledger_notification_duration_seconds").record(took.as_secs_f64());
        });
    }

    /// The exposition, after setting the gauges to `gauges`: operations per state (and, derived
    /// from them, the approvals waiting and the reconciler's and dispatcher's backlogs), the ages
    /// of the oldest uncertain operations and the webhook backlog.
    pub fn render(&self, gauges: &LedgerGauges) -> String {
        self.record(|| {
            let mut per_tenant: std::collections::BTreeMap<&str, [u64; 3]> = Default::default();
            for (tenant, kind, provider, state, operations) in &gauges.operations {
                let labels = [
                    ("tenant", tenant.clone()),
                    ("kind", kind.clone()),
                    ("provider", provider.clone()),
                    ("state", (*state).to_owned()),
                ];
                gauge!("opledger_operations", &labels).set(*operations as f64);
                let backlog = per_tenant.entry(tenant).or_default();
                match *state {
                    "pending_approval" => backlog[0] += operations,
                    "submitted" | "accepted" | "unknown" => backlog[1] += operations,
                    "approved" => backlog[2] += operations,
                    _ => {}
                }
            }
            for (tenant, [approvals, reconcile, dispatch]) in per_tenant {
                gauge!("opledger_approvals_waiting", "tenant" => tenant.to_owned()).set(approvals as f64);
                gauge!("opledger_reconciler_backlog", "tenant" => tenant.to_owned()).set(reconcile as f64);
                gauge!("opledger_dispatcher_backlog", "tenant" => tenant.to_owned()).set(dispatch as f64);
            }
            for (tenant, state, seconds) in &gauges.oldest_seconds {
                let labels = [("tenant", tenant.clone()), ("state", (*state).to_owned())];
                gauge!("opledger_oldest_operation_age_seconds", &labels).set(*seconds);
            }
            gauge!("opledger_webhook_backlog").set(gauges.webhook_backlog as f64);
        });
        self.handle.render()
    }
}
