//! Logging set-up: one `tracing` subscriber, human-readable text or JSON lines, filtered by
//! `RUST_LOG` (default `info`, with the database driver's per-query logs at `warn`).

use tracing_subscriber::{fmt, EnvFilter};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

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

/// Installs the global subscriber; a second call (as in tests) leaves the first in place.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _already_installed = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
