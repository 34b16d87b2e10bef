//! The console's lists of operations: the filtered operations list, the operations of a state by
//! age, the orders changed lately (or needing attention) and their operations, each written so
//! that it reads one index range; and the list's rows.

use super::operations::OPERATION_COLUMNS;
use super::{corrupt, micros, time};
use crate::domain::{
    ids::{OpId, TenantId},
    machine::State,
    money::{Currency, Money},
};
use crate::server::store::query::{QueryText, SqlValue};
use crate::server::store::records::{HeldFilter, OperationListItem, OperationQuery};
use crate::server::store::StoreError;

/// The condition on `subject_activity` of [`OrderTally::needs_attention`](crate::domain::rollup::OrderTally::needs_attention),
/// written as the partial index `subject_activity_attention` (migration 0027) is, so that the
/// planner reads that index.
pub(in crate::server::store) const NEEDS_ATTENTION: &str =
    "and (uncertain > 0 or (unsent = 0 and failed_originals > 0 and succeeded_originals > undone)) ";

pub(in crate::server::store) const LIST_COLUMNS: &str =
    "op_id, kind, subject, provider, state, amount_minor, amount_currency, \
    last_attempt, compensates, failure_reason, retry_of, created_at_us, updated_at_us";

/// `columns` of up to `limit` operations in `state`, the longest unchanged first: one index range.
fn in_state_by_age(columns: &str, tenant: &TenantId, state: State, limit: u32) -> QueryText {
    let mut text = QueryText::new(&format!("select {columns} from operations where tenant = "));
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let state = text.param(SqlValue::Text(state.as_str().to_owned()));
    text.push(&format!("{tenant} and state = {state} order by updated_at_us limit {limit}"));
    text
}

/// Up to `limit` operations in `state`, the longest unchanged first.
pub(in crate::server::store) fn state_by_age_query(tenant: &TenantId, state: State, limit: u32) -> QueryText {
    in_state_by_age(LIST_COLUMNS, tenant, state, limit)
}

/// When each of up to `limit` operations in `state` last changed, the longest unchanged first.
pub(in crate::server::store) fn changed_at_query(tenant: &TenantId, state: State, limit: u32) -> QueryText {
    in_state_by_age("updated_at_us", tenant, state, limit)
}

/// The most recently changed subjects, only those needing attention when `attention_only`.
pub(in crate::server::store) fn subjects_activity_query(
    tenant: &TenantId,
    attention_only: bool,
    limit: u32,
) -> QueryText {
    let mut text = QueryText::new("select subject from subject_activity where tenant = ");
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let filter = if attention_only { NEEDS_ATTENTION } else { "" };
    text.push(&format!("{tenant} {filter}order by changed_at_us desc, subject desc limit {limit}"));
    text
}

/// The operations of `subjects`, in no particular order: sorting them in the query would let a
/// planner without statistics read every operation of the tenant in order of creation instead of
/// each order's few; external ids are filled in afterwards.
pub(in crate::server::store) fn subjects_query(tenant: &TenantId, subjects: &[String]) -> QueryText {
    in_list(&format!("select {LIST_COLUMNS} from operations"), tenant, "subject", subjects, "")
}

/// One combination of the list's chosen values: a state, a kind and a provider, each or none.
type Branch<'a> = (Option<State>, Option<&'a str>, Option<&'a str>);

/// Every combination of the values `query` chose for its state, kind and provider.
pub(in crate::server::store) fn branches_of(query: &OperationQuery) -> Vec<Branch<'_>> {
    fn any_or<T: Copy>(values: Vec<T>) -> Vec<Option<T>> {
        if values.is_empty() {
            vec![None]
        } else {
            values.into_iter().map(Some).collect()
        }
    }
    let states = any_or(query.states.clone());
    let kinds = any_or(query.kinds.iter().map(String::as_str).collect());
    let providers = any_or(query.providers.iter().map(String::as_str).collect());
    let mut branches = Vec::with_capacity(states.len() * kinds.len() * providers.len());
    for state in &states {
        for kind in &kinds {
            for provider in &providers {
                branches.push((*state, *kind, *provider));
            }
        }
    }
    branches
}

/// The operations list for `query`, newest first; external ids are filled in afterwards. With
/// one value (or none) per filter it is one index range; with several, each combination of
/// values is its own index range of at most `limit` rows, and only those are merged in order.
pub(in crate::server::store) fn list_query(tenant: &TenantId, query: &OperationQuery) -> QueryText {
    listed(tenant, query, LIST_COLUMNS)
}

/// [`list_query`]'s operations as whole rows ([`OPERATION_COLUMNS`]), for a check of each
/// operation's state without a second read.
pub(in crate::server::store) fn matching_query(tenant: &TenantId, query: &OperationQuery) -> QueryText {
    listed(tenant, query, OPERATION_COLUMNS)
}

fn listed(tenant: &TenantId, query: &OperationQuery, columns: &str) -> QueryText {
    let branches = branches_of(query);
    let mut text = QueryText::new("");
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    if let [only] = branches.as_slice() {
        list_branch(&mut text, &tenant, query, *only, columns);
        return text;
    }
    text.push("select * from (");
    for (at, branch) in branches.iter().enumerate() {
        text.push(if at == 0 { "select * from (" } else { " union all select * from (" });
        list_branch(&mut text, &tenant, query, *branch, columns);
        text.push(&format!(") as branch_{at}"));
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    text.push(&format!(") as branches order by created_at_us desc, op_id desc limit {limit}"));
    text
}

/// One index range of the list: the `columns` of the rows of `tenant` (a placeholder) matching
/// `query`'s other filters and the one state, kind and provider of `branch`.
fn list_branch(text: &mut QueryText, tenant: &str, query: &OperationQuery, branch: Branch<'_>, columns: &str) {
    let (state, kind, provider) = branch;
    text.push(&format!("select {columns} from operations where tenant = {tenant}"));
    let exact = [
        ("state", state.map(|s| s.as_str().to_owned())),
        ("kind", kind.map(str::to_owned)),
        ("provider", provider.map(str::to_owned)),
        ("subject", query.subject.clone()),
    ];
    // A search finds a few rows by their keys, then filters and sorts them: its filters and its
    // order compare expressions (`column || ''`, `column + 0`, in both engines' SQL) so that no
    // other index can be chosen, or a planner without statistics could walk a filter's whole
    // range, or the whole list, testing each row against the search.
    let searching = query.search.is_some();
    let text_column = |column: &str| if searching { format!("{column} || ''") } else { column.to_owned() };
    let created = if searching { "created_at_us + 0" } else { "created_at_us" };
    for (column, value) in exact {
        if let Some(value) = value {
            let p = text.param(SqlValue::Text(value));
            text.push(&format!(" and {} = {p}", text_column(column)));
        }
    }
    if let Some(from) = query.created_from {
        let p = text.param(SqlValue::Int(micros(from)));
        text.push(&format!(" and {created} >= {p}"));
    }
    if let Some(before) = query.created_before {
        let p = text.param(SqlValue::Int(micros(before)));
        text.push(&format!(" and {created} < {p}"));
    }
    if let Some(search) = &query.search {
        let a = text.param(SqlValue::Text(search.clone()));
        let b = text.param(SqlValue::Text(search.clone()));
        // Two index lookups (the operation's key, the external id's index), never a scan of the list.
        text.push(&format!(
            " and op_id in (select {a} union all select op_id from external_refs where tenant = {tenant} and external_id = {b})"
        ));
    }
    match &query.held {
        Some(HeldFilter::ByUser(holder)) | Some(HeldFilter::ByName(holder)) => {
            let column = if matches!(query.held, Some(HeldFilter::ByUser(_))) { "holder_id" } else { "holder_name" };
            let p = text.param(SqlValue::Text(holder.clone()));
            text.push(&format!(
                " and op_id in (select item_id from claims where tenant = {tenant} and item_kind = 'operation' and {column} = {p})"
            ));
        }
        Some(HeldFilter::Nobody) => text.push(&format!(
            " and op_id not in (select item_id from claims where tenant = {tenant} and item_kind = 'operation')"
        )),
        None => {}
    }
    if let Some((created, op_id)) = &query.after {
        let c = text.param(SqlValue::Int(micros(*created)));
        let o = text.param(SqlValue::Text(op_id.as_str().to_owned()));
        text.push(&format!(" and (created_at_us, op_id) < ({c}, {o})"));
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    text.push(&format!(" order by {created} desc, {} desc limit {limit}", text_column("op_id")));
}

/// `select … where tenant = $1 and <column> in ($2, $3, …)` for a list of values.
pub(in crate::server::store) fn in_list(
    select: &str,
    tenant: &TenantId,
    column: &str,
    values: &[String],
    order: &str,
) -> QueryText {
    let mut text = QueryText::new(select);
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let placeholders: Vec<String> = values.iter().map(|v| text.param(SqlValue::Text(v.clone()))).collect();
    text.push(&format!(" where tenant = {tenant} and {column} in ({}) {order}", placeholders.join(", ")));
    text
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct ListRow {
    op_id: String,
    kind: String,
    subject: String,
    provider: String,
    state: String,
    amount_minor: Option<i64>,
    amount_currency: Option<String>,
    last_attempt: Option<i64>,
    compensates: Option<String>,
    failure_reason: Option<String>,
    retry_of: Option<String>,
    created_at_us: i64,
    updated_at_us: i64,
}

impl ListRow {
    pub(in crate::server::store) fn into_item(self) -> Result<OperationListItem, StoreError> {
        let amount = match (self.amount_minor, self.amount_currency) {
            (Some(minor), Some(currency)) => Some(Money::new(
                minor,
                Currency::parse(&currency).map_err(|e| corrupt("currency")(e.to_string()))?,
            )),
            _ => None,
        };
        Ok(OperationListItem {
            op_id: OpId::parse(&self.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
            kind: self.kind,
            subject: self.subject,
            provider: self.provider,
            state: State::parse(&self.state).ok_or_else(|| corrupt("state")(self.state.clone()))?,
            amount,
            attempts: self
                .last_attempt
                .map_or(Ok(0), |n| u32::try_from(n).map_err(|e| corrupt("attempts")(e.to_string())))?,
            external_ids: Vec::new(),
            compensates: self
                .compensates
                .map(|c| OpId::parse(&c).map_err(|e| corrupt("compensates")(e.to_string())))
                .transpose()?,
            failure_reason: self.failure_reason,
            retry_of: self
                .retry_of
                .map(|r| OpId::parse(&r).map_err(|e| corrupt("retry_of")(e.to_string())))
                .transpose()?,
            created_at: time(self.created_at_us)?,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::query::arguments;
    use chrono::DateTime;

    use sqlx::sqlite::SqlitePoolOptions;

    /// SQLite's plan for the operations list with `query`: each step's description.
    async fn plan(pool: &sqlx::SqlitePool, query: &OperationQuery) -> Vec<String> {
        plan_of(pool, list_query(&TenantId::parse("acme").unwrap(), query)).await
    }

    /// SQLite's plan for `text`: each step's description.
    async fn plan_of(pool: &sqlx::SqlitePool, text: QueryText) -> Vec<String> {
        let sql = format!("explain query plan {}", text.sql);
        let explain = sqlx::query_as_with::<_, (i64, i64, i64, String), _>(
            &sql,
            arguments::<sqlx::Sqlite>(text.values).unwrap(),
        );
        explain.fetch_all(pool).await.unwrap().into_iter().map(|row| row.3).collect()
    }

    #[tokio::test]
    async fn every_filter_alone_and_every_pair_reads_one_index_range_in_the_lists_order() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let filters: [(&str, fn(&mut OperationQuery)); 4] = [
            ("state", |q| q.states = vec![State::Unknown]),
            ("kind", |q| q.kinds = vec!["refund".into()]),
            ("provider", |q| q.providers = vec!["stripe".into()]),
            ("subject", |q| q.subject = Some("order:1043".into())),
        ];
        // Each query with the columns its index range must be bounded by: every filter, or the
        // subject alone (one order's few operations) when the subject is one of them.
        let mut queries = vec![(Vec::new(), OperationQuery { limit: 51, ..OperationQuery::default() })];
        for (i, (first, set_first)) in filters.iter().enumerate() {
            let mut alone = OperationQuery { limit: 51, ..OperationQuery::default() };
            set_first(&mut alone);
            queries.push((vec![*first], alone.clone()));
            for (second, set_second) in &filters[i + 1..] {
                let mut pair = alone.clone();
                set_second(&mut pair);
                let bounds = if *second == "subject" { vec!["subject"] } else { vec![*first, *second] };
                queries.push((bounds, pair));
            }
        }
        let later_pages: Vec<_> = queries
            .iter()
            .map(|(bounds, query)| {
                let mut later = query.clone();
                later.after = Some((
                    DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
                    OpId::parse("refund-1-li_1").unwrap(),
                ));
                later.created_from = DateTime::from_timestamp(1_600_000_000, 0);
                (bounds.clone(), later)
            })
            .collect();
        queries.extend(later_pages);
        for (bounds, query) in queries {
            let steps = plan(&pool, &query).await;
            let search = steps.iter().find(|step| step.starts_with("SEARCH operations USING INDEX"));
            let search =
                search.unwrap_or_else(|| panic!("{query:?}: the list is read from an index: {steps:?}"));
            for column in bounds {
                assert!(
                    search.contains(&format!("{column}=?")),
                    "{query:?}: the range is bounded by {column}: {steps:?}"
                );
            }
            assert!(
                steps
                    .iter()
                    .all(|step| !step.starts_with("SCAN operations") && !step.contains("TEMP B-TREE")),
                "{query:?}: no scan and no sort of the rows the filters match: {steps:?}"
            );
        }
        let several = OperationQuery {
            limit: 51,
            states: vec![State::Unknown, State::NeedsReview],
            kinds: vec!["refund".into()],
            ..OperationQuery::default()
        };
        let steps = plan(&pool, &several).await;
        let ranges: Vec<&String> =
            steps.iter().filter(|step| step.contains("SEARCH operations USING INDEX")).collect();
        assert_eq!(ranges.len(), 2, "one index range per state: {steps:?}");
        assert!(
            ranges.iter().all(|step| step.contains("state=?") && step.contains("kind=?")),
            "each range is bounded by its state and the kind: {steps:?}"
        );
        assert!(steps.iter().all(|step| !step.starts_with("SCAN operations")), "no scan: {steps:?}");
        let search = OperationQuery { limit: 51, search: Some("re_1".into()), ..OperationQuery::default() };
        let mut with_state = search.clone();
        with_state.states = vec![State::Succeeded];
        for query in [search, with_state] {
            let steps = plan(&pool, &query).await;
            let operations: Vec<&String> =
                steps.iter().filter(|step| step.contains(" operations ")).collect();
            assert!(
                !operations.is_empty() && operations.iter().all(|step| step.contains("op_id=?")),
                "a search reads the operations it found by their keys, not the list: {steps:?}"
            );
        }
    }

    #[tokio::test]
    async fn the_operations_of_several_orders_are_read_through_their_subjects() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let subjects = ["order:1043".to_owned(), "order:1051".to_owned()];
        let steps = plan_of(&pool, subjects_query(&TenantId::parse("acme").unwrap(), &subjects)).await;
        assert!(
            steps.iter().any(|step| step
                .starts_with("SEARCH operations USING INDEX operations_by_subject (tenant=? AND subject=?)")),
            "each order's few operations, not the tenant's in order of creation: {steps:?}"
        );
        assert!(steps.iter().all(|step| !step.starts_with("SCAN operations")), "{steps:?}");
    }

    #[tokio::test]
    async fn the_orders_needing_attention_and_the_ages_of_a_state_are_read_from_their_indexes() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let acme = TenantId::parse("acme").unwrap();
        let steps = plan_of(&pool, subjects_activity_query(&acme, true, 100)).await;
        assert_eq!(
            steps,
            ["SEARCH subject_activity USING INDEX subject_activity_attention (tenant=?)"],
            "only the orders whose tally needs attention, in order of change, without a sort"
        );
        let steps = plan_of(&pool, subjects_activity_query(&acme, false, 100)).await;
        assert_eq!(
            steps,
            ["SEARCH subject_activity USING COVERING INDEX subject_activity_changed (tenant=?)"]
        );
        let steps = plan_of(&pool, changed_at_query(&acme, State::Unknown, 500)).await;
        assert_eq!(
            steps,
            ["SEARCH operations USING COVERING INDEX operations_by_state_changed (tenant=? AND state=?)"]
        );
    }

    #[tokio::test]
    async fn the_longest_unchanged_of_a_state_are_one_index_range() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let steps =
            plan_of(&pool, state_by_age_query(&TenantId::parse("acme").unwrap(), State::Unknown, 500)).await;
        assert_eq!(
            steps,
            ["SEARCH operations USING INDEX operations_by_state_changed (tenant=? AND state=?)"],
            "no walk through other states' operations and no sort"
        );
    }
}
