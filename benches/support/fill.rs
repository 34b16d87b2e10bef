//! The rows the console benchmarks fill straight into a database: operations of tenant `bench`
//! made `SPACING_US` apart up to a moment ago, one external id for each succeeded one, and the
//! summaries the ledger would have kept with every change. Operation `i` is refund
//! `refund-<i>-li_1` of order `order:<i / 3>`, its refund `re_<i>`; every seventh is an after-sale
//! ticket at the sandbox; by `i % 20` it is unknown (0), rejected (1), needs review (2) or
//! succeeded.

/// The operations' creation times are this far apart, the last one a moment ago.
pub const SPACING_US: u64 = 120_000;

/// A fill of `operations` operations, operation 0 created at `origin_us`.
#[derive(Debug, Clone, Copy)]
pub struct Fill {
    pub operations: u64,
    pub origin_us: u64,
}

impl Fill {
    /// A fill of `operations` operations of which the last was created now.
    pub fn ending_now(operations: u64) -> Fill {
        let now = u64::try_from(chrono::Utc::now().timestamp_micros()).unwrap();
        Fill { operations, origin_us: now - operations * SPACING_US }
    }

    /// When operation `i` was created, and last changed.
    pub fn created_us(&self, i: u64) -> u64 {
        self.origin_us + i * SPACING_US
    }

    /// Inserts operations `from..to` (skipping any already there).
    pub fn operations_sql(&self, postgres: bool, from: u64, to: u64) -> String {
        let origin = self.origin_us;
        let cancel = if postgres { "false" } else { "0" };
        let select = format!(
            "select 'bench', 'refund-' || i || '-li_1', case when i % 7 = 0 then 'create_aftersale' else 'refund' end, \
             'order:' || (i / 3), case when i % 7 = 0 then 'sandbox' else 'stripe' end, \
             '{{\"amount\":{{\"currency\":\"TWD\",\"minor\":38000}}}}', 'bench', 38000, 'TWD', \
             case i % 20 when 0 then 'unknown' when 1 then 'rejected' when 2 then 'needs_review' else 'succeeded' end, \
             'refund-' || i || '-li_1', 86400, 'bench-agent', {cancel}, 1, \
             {origin} + i * {SPACING_US}, {origin} + i * {SPACING_US}"
        );
        let insert = "insert into operations (tenant, op_id, kind, subject, provider, params, fingerprint, \
             amount_minor, amount_currency, state, idempotency_key, key_retention_s, requested_by, cancel_requested, \
             version, created_at_us, updated_at_us)";
        with_series(postgres, from, to, &format!("{insert} {select}"), "true")
    }

    /// Inserts the external id (`re_<i>`) of each succeeded operation of `from..to`.
    pub fn refs_sql(&self, postgres: bool, from: u64, to: u64) -> String {
        let origin = self.origin_us;
        let insert = format!(
            "insert into external_refs (tenant, op_id, provider, ref_type, external_id, recorded_at_us) \
             select 'bench', 'refund-' || i || '-li_1', 'stripe', 'refund', 're_' || i, {origin} + i * {SPACING_US}"
        );
        with_series(postgres, from, to, &insert, "i % 20 >= 3")
    }
}

/// `statement` (an insert … select over `i`) over `from..to`, for rows where `condition` holds:
/// `generate_series` on PostgreSQL, a recursive `with` on SQLite.
fn with_series(postgres: bool, from: u64, to: u64, statement: &str, condition: &str) -> String {
    let last = to - 1;
    if postgres {
        format!(
            "{statement} from generate_series(cast({from} as bigint), {last}) as n(i) where {condition} \
             on conflict do nothing"
        )
    } else {
        format!(
            "with recursive n(i) as (select {from} union all select i + 1 from n where i < {last}) \
             {statement} from n where {condition} on conflict do nothing"
        )
    }
}

/// The summaries the ledger keeps with every change (counts per state, as the hourly counts' hour
/// -1; each order's latest change and tally, the overview's charts spread over their 16 stripes),
/// for the rows filled straight in; each succeeded operation counts as settled in the hour it
/// changed, in one of the five buckets.
pub const SUMMARIES: [&str; 4] = [
    "insert into hourly_outcomes (tenant, hour_us, state, stripe, operations) select tenant, -1, state, 0, count(*) \
     from operations group by tenant, state",
    "insert into subject_activity (tenant, subject, changed_at_us, uncertain, unsent, failed_originals, succeeded_originals, \
     undone) select tenant, subject, max(updated_at_us), \
     sum(case when state in ('submitted', 'unknown', 'needs_review') then 1 else 0 end), \
     sum(case when state in ('planned', 'pending_approval', 'approved') then 1 else 0 end), \
     sum(case when compensates is null and state in ('rejected', 'denied', 'cancelled') then 1 else 0 end), \
     sum(case when compensates is null and state = 'succeeded' then 1 else 0 end), \
     sum(case when compensates is not null and substr(kind, 1, 7) = 'cancel_' and state = 'succeeded' then 1 else 0 end) \
     from operations group by tenant, subject",
    "insert into hourly_outcomes (tenant, hour_us, state, stripe, operations) select tenant, \
     created_at_us / 3600000000 * 3600000000, state, created_at_us % 16, count(*) from operations group by 1, 2, 3, 4",
    "insert into settle_times (tenant, hour_us, bucket, stripe, operations) select tenant, \
     updated_at_us / 3600000000 * 3600000000, updated_at_us % 5, updated_at_us / 5 % 16, count(*) from operations \
     where state = 'succeeded' group by 1, 2, 3, 4",
];

/// Fills `fill` into the database at `url`: the operations, their external ids, the summaries,
/// and on PostgreSQL the planner's statistics (opledger never runs `analyze` on SQLite, so its
/// planner works without statistics; PostgreSQL's autovacuum gathers them on its own).
pub async fn fill(url: &str, fill: Fill) {
    let postgres = !url.starts_with("sqlite:");
    let statements: Vec<String> =
        [fill.operations_sql(postgres, 0, fill.operations), fill.refs_sql(postgres, 0, fill.operations)]
            .into_iter()
            .chain(SUMMARIES.map(str::to_owned))
            .chain(postgres.then(|| "analyze".to_owned()))
            .collect();
    execute(url, &statements).await;
}

/// Runs a SQL statement on the database at `url` and answers the first column of its rows, as
/// 64-bit integers.
pub async fn numbers(url: &str, sql: &str) -> Vec<i64> {
    use sqlx::{Connection, Row};
    if url.starts_with("sqlite:") {
        let mut connection = sqlx::SqliteConnection::connect(url).await.unwrap();
        let rows = sqlx::query(sql).fetch_all(&mut connection).await.unwrap();
        rows.iter().map(|row| row.get::<i64, _>(0)).collect()
    } else {
        let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
        let rows = sqlx::query(sql).fetch_all(&mut connection).await.unwrap();
        rows.iter().map(|row| row.get::<i64, _>(0)).collect()
    }
}

/// Runs `statements` in order on one connection to the database at `url`.
pub async fn execute(url: &str, statements: &[String]) {
    use sqlx::{Connection, Executor};
    if url.starts_with("sqlite:") {
        let mut connection = sqlx::SqliteConnection::connect(url).await.unwrap();
        for statement in statements {
            connection.execute(statement.as_str()).await.unwrap();
        }
    } else {
        let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
        for statement in statements {
            connection.execute(statement.as_str()).await.unwrap();
        }
    }
}
