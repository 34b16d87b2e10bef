//! The server's clock: now, in the microsecond precision that both database engines store, so
//! that a time read back compares equal to the one written.

use chrono::{DateTime, Utc};

/// Now, truncated to microseconds.
pub fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}
