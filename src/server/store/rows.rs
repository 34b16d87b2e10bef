//! The rows both backends read and write, and the SQL text they share, one file per aggregate
//! below (an operation, what its events project, the summaries and webhook outbox a change
//! keeps with the notification watches, the console's lists, the audit chain, what a tenant sets up). Queries use `$1`-style
//! parameters, which SQLite and PostgreSQL both accept, and times are stored as UTC microseconds
//! since the epoch in `bigint` columns, so rows decode the same way on both engines: that encoding
//! is here.

mod audit;
mod lists;
mod notify;
mod operations;
mod outbox;
mod projection;
mod summaries;
mod tenant;

pub(super) use audit::*;
pub(super) use lists::*;
pub(super) use notify::*;
pub(super) use operations::*;
pub(super) use outbox::*;
pub(super) use projection::*;
pub(super) use summaries::*;
pub(super) use tenant::*;

use chrono::{DateTime, Utc};

use super::StoreError;

/// The first microsecond of the month (UTC) that holds `at`, in microseconds.
pub(super) fn month_start(at: DateTime<Utc>) -> i64 {
    use chrono::Datelike;
    at.date_naive()
        .with_day(1)
        .and_then(|first| first.and_hms_opt(0, 0, 0))
        .map_or_else(|| micros(at), |start| start.and_utc().timestamp_micros())
}

pub(super) fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

/// The start of the hour `us` falls in, in microseconds: the key of the overview's hourly rows.
pub(super) fn hour_of(us: i64) -> i64 {
    us.div_euclid(3_600_000_000) * 3_600_000_000
}

pub(super) fn time(us: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| StoreError::Corrupt(format!("time {us} out of range")))
}

pub(super) fn corrupt(what: &str) -> impl FnOnce(String) -> StoreError + '_ {
    move |problem| StoreError::Corrupt(format!("{what}: {problem}"))
}

fn narrow<T: TryFrom<i64>>(value: Option<i64>, what: &str) -> Result<Option<T>, StoreError> {
    value
        .map(|v| T::try_from(v).map_err(|_| StoreError::Corrupt(format!("{what} {v} out of range"))))
        .transpose()
}
