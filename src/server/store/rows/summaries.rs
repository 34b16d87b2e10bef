//! The summaries a change keeps for the overview, the orders pages and the metrics: operations
//! counted per state (per hour of creation and of every hour), per kind and provider, each order's
//! tally of its operations, and how long settling took after an operation became unknown.

use super::hour_of;
use crate::domain::{ids::TenantId, machine::State, operation::OperationRecord, rollup::OrderTally};
use crate::server::store::query::{insert_values, QueryText, SqlValue};

/// The hour under which `hourly_outcomes` counts the operations of every hour together: the
/// overview's counts per state. No real hour starts before 1970.
pub(in crate::server::store) const EVERY_HOUR: i64 = -1;

/// The counts a change from state `from` (none for a new operation) to `to` moves, each with its
/// delta, in the order of the states' names, so that two changes lock their rows in one order;
/// `None` when the state did not change.
fn state_moves(from: Option<State>, to: State) -> Option<Vec<(State, i64)>> {
    Some(match from {
        None => vec![(to, 1)],
        Some(from) if from == to => return None,
        Some(from) if from.as_str() < to.as_str() => vec![(from, -1), (to, 1)],
        Some(from) => vec![(to, 1), (from, -1)],
    })
}

/// Moves one operation counted in `stripe` from the count of state `from` (none for a new one) to
/// that of `to`, both among the counts of every hour ([`EVERY_HOUR`]) and among those of
/// `created_hour`, the hour it was created in: one statement (never the same row twice), its rows
/// in the order of their hours and states' names, so that two changes lock their rows in one
/// order; `None` when the state did not change.
pub(in crate::server::store) fn counts_move(
    tenant: &TenantId,
    stripe: i16,
    created_hour: i64,
    from: Option<State>,
    to: State,
) -> Option<QueryText> {
    let moves = state_moves(from, to)?;
    let mut text =
        QueryText::new("insert into hourly_outcomes (tenant, stripe, hour_us, state, operations) values ");
    let values_at = text.sql.len() - "values ".len();
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let stripe = text.param(SqlValue::Small(stripe));
    let rows = [EVERY_HOUR, created_hour]
        .into_iter()
        .flat_map(|hour| moves.iter().map(move |&(state, delta)| (hour, state, delta)));
    for (i, (hour, state, delta)) in rows.enumerate() {
        let hour = text.param(SqlValue::Int(hour));
        let state = text.param(SqlValue::Text(state.as_str().to_owned()));
        let delta = text.param(SqlValue::Int(delta));
        let separator = if i == 0 { "" } else { ", " };
        text.push(&format!("{separator}({tenant}, {stripe}, {hour}, {state}, {delta})"));
    }
    let mut text = text.rows_from(values_at);
    text.push(
        " on conflict (tenant, hour_us, state, stripe) do update set operations = hourly_outcomes.operations + excluded.operations",
    );
    Some(text)
}

/// Moves one operation counted in `stripe` from the count of its kind and provider in state `from`
/// (none for a new one) to that in `to`: one statement, its rows in the order of the states' names
/// (as [`counts_move`]); `None` when the state did not change.
pub(in crate::server::store) fn kind_counts_move(
    operation: &OperationRecord,
    stripe: i16,
    from: Option<State>,
) -> Option<QueryText> {
    let moves = state_moves(from, operation.snapshot.state)?;
    let mut text = QueryText::new(
        "insert into operation_counts (tenant, kind, provider, state, stripe, operations) values ",
    );
    let rows = text.sql.len() - "values ".len();
    let tenant = text.param(SqlValue::Text(operation.tenant.as_str().to_owned()));
    let kind = text.param(SqlValue::Text(operation.kind.clone()));
    let provider = text.param(SqlValue::Text(operation.provider.clone()));
    let stripe = text.param(SqlValue::Small(stripe));
    for (i, (state, delta)) in moves.into_iter().enumerate() {
        let state = text.param(SqlValue::Text(state.as_str().to_owned()));
        let delta = text.param(SqlValue::Int(delta));
        let separator = if i == 0 { "" } else { ", " };
        text.push(&format!("{separator}({tenant}, {kind}, {provider}, {state}, {stripe}, {delta})"));
    }
    let mut text = text.rows_from(rows);
    text.push(
        " on conflict (tenant, kind, provider, state, stripe) do update set operations = operation_counts.operations + excluded.operations",
    );
    Some(text)
}

/// What [`activity_upsert`] calls its returned row: the order's tally after the change.
pub(in crate::server::store) const ORDER_TALLY_AFTER: &str = "tally_after";

/// Marks `subject` changed at `at_us` and moves its tally by `tally`, returning the tally after the
/// move (as [`ORDER_TALLY_AFTER`] in a statement of [`QueryText::together`]).
pub(in crate::server::store) fn activity_upsert(
    tenant: &TenantId,
    subject: &str,
    at_us: i64,
    tally: OrderTally,
) -> QueryText {
    insert_values(
        "subject_activity (tenant, subject, changed_at_us, uncertain, unsent, failed_originals, succeeded_originals, undone)",
        vec![
            SqlValue::Text(tenant.as_str().to_owned()),
            SqlValue::Text(subject.to_owned()),
            SqlValue::Int(at_us),
            SqlValue::Int(tally.uncertain),
            SqlValue::Int(tally.unsent),
            SqlValue::Int(tally.failed_originals),
            SqlValue::Int(tally.succeeded_originals),
            SqlValue::Int(tally.undone),
        ],
        " on conflict (tenant, subject) do update set changed_at_us = excluded.changed_at_us, \
         uncertain = subject_activity.uncertain + excluded.uncertain, \
         unsent = subject_activity.unsent + excluded.unsent, \
         failed_originals = subject_activity.failed_originals + excluded.failed_originals, \
         succeeded_originals = subject_activity.succeeded_originals + excluded.succeeded_originals, \
         undone = subject_activity.undone + excluded.undone \
         returning tenant, subject, uncertain, unsent, failed_originals, succeeded_originals, undone",
    )
    .named(ORDER_TALLY_AFTER)
}

/// Counts `operation`, settled at `at_us`, in the hour of `at_us` and the bucket of
/// [`SETTLE_BOUNDS_S`](crate::domain::operation::SETTLE_BOUNDS_S) of the time since it became
/// unknown, as its row says before the change's update (which leaves that time as it was); nothing
/// when it never was unknown.
pub(in crate::server::store) fn settle_time_count(
    operation: &OperationRecord,
    at_us: i64,
    stripe: i16,
) -> QueryText {
    let mut text =
        QueryText::new("insert into settle_times (tenant, hour_us, bucket, stripe, operations) select ");
    let tenant = text.param(SqlValue::Text(operation.tenant.as_str().to_owned()));
    let hour = text.param(SqlValue::Int(hour_of(at_us)));
    let at = text.param(SqlValue::Int(at_us));
    let stripe = text.param(SqlValue::Small(stripe));
    let op_id = text.param(SqlValue::Text(operation.op_id.as_str().to_owned()));
    let bucket = settle_bucket(&format!("({at} - o.unknown_since_us) / 1000000"));
    text.push(&format!(
        "{tenant}, {hour}, {bucket}, {stripe}, 1 from operations o \
         where o.tenant = {tenant} and o.op_id = {op_id} and o.unknown_since_us is not null"
    ));
    let mut text = text.where_ends_here();
    text.push(" on conflict (tenant, hour_us, bucket, stripe) do update set operations = settle_times.operations + 1");
    text
}

/// Which bucket of [`SETTLE_BOUNDS_S`](crate::domain::operation::SETTLE_BOUNDS_S) a time to
/// settle of `seconds` (an SQL expression) falls into, as an SQL `smallint`.
fn settle_bucket(seconds: &str) -> String {
    let bounds = crate::domain::operation::SETTLE_BOUNDS_S;
    let whens: String = bounds
        .iter()
        .enumerate()
        .map(|(bucket, bound)| format!("when {seconds} < {bound} then {bucket} "))
        .collect();
    format!("cast(case {whens}else {} end as smallint)", bounds.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::SqlitePoolOptions;

    #[tokio::test]
    async fn times_to_settle_fall_into_their_buckets() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        let mut buckets = Vec::new();
        for seconds in [0, 59, 60, 299, 300, 7199, 7200, 86_400] {
            let bucket: i16 = sqlx::query_scalar(&format!("select {}", settle_bucket("$1")))
                .bind(seconds)
                .fetch_one(&pool)
                .await
                .unwrap();
            buckets.push(bucket);
        }
        assert_eq!(buckets, [0, 0, 1, 1, 2, 3, 4, 4]);
    }
}
