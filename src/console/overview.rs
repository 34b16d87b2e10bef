//! The overview: counts by state, unknown results by age, what waits for people, orders in
//! partial success or pending confirmation, and the series behind its two charts.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::operations::OperationRow;
use super::orders::OrderSummary;
use super::AppError;
use crate::domain::machine::State;

/// A count shown on a bar of a chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub label: String,
    pub count: u64,
}

/// Operations created in one hour, by how they stand now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HourOutcomes {
    pub hour: DateTime<Utc>,
    pub succeeded: u64,
    pub not_done: u64,
    pub uncertain: u64,
    pub open: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewData {
    pub counts: Vec<(State, u64)>,
    pub total: u64,
    pub unknown_by_age: Vec<Bucket>,
    pub oldest_uncertain: Vec<OperationRow>,
    pub needs_review: Vec<OperationRow>,
    pub pending_approvals: u64,
    pub attention_orders: Vec<OrderSummary>,
    pub hourly: Vec<HourOutcomes>,
    pub time_to_settle: Vec<Bucket>,
}

#[server(prefix = "/rpc", endpoint = "overview")]
pub async fn overview() -> Result<OverviewData, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Overview).await?;
    ssr::overview(&user).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use crate::domain::operation::SETTLE_BOUNDS_S;
    use chrono::Duration;

    use super::*;
    use crate::console::guard::{reads, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::console::operations::ssr::row;
    use crate::console::orders::ssr::attention_orders;
    use crate::domain::language::Language;
    use crate::server::clock::now;
    use crate::t;

    /// Counts `ages` into the buckets whose upper bounds are given (the last bucket is open).
    pub fn bucket(ages: &[Duration], bounds: &[(i64, &str)], last: &str) -> Vec<Bucket> {
        let mut counts = vec![0u64; bounds.len() + 1];
        for age in ages {
            let index =
                bounds.iter().position(|(limit, _)| age.num_seconds() < *limit).unwrap_or(bounds.len());
            counts[index] += 1;
        }
        let labels = bounds.iter().map(|(_, label)| *label).chain(std::iter::once(last));
        labels.zip(counts).map(|(label, count)| Bucket { label: label.to_owned(), count }).collect()
    }

    /// The labels of the buckets of [`SETTLE_BOUNDS_S`].
    fn settle_labels(language: Language) -> [String; SETTLE_BOUNDS_S.len() + 1] {
        [
            t!(language, "overview-bucket-under-1-min"),
            t!(language, "overview-bucket-1-5-min"),
            t!(language, "overview-bucket-5-30-min"),
            t!(language, "overview-bucket-30-min-2-h"),
            t!(language, "overview-bucket-over-2-h"),
        ]
    }

    pub async fn overview(user: &SignedIn) -> Result<OverviewData, AppError> {
        let language = current_language();
        let store = reads();
        let at = now();
        let mut counts = store.count_by_state(&user.tenant).await.map_err(unavailable)?;
        counts.sort_by_key(|(state, _)| State::ALL.iter().position(|s| s == state));
        let count_of = |state: State| counts.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n);
        let unknown_ages: Vec<Duration> = store
            .changed_at_in_state(&user.tenant, State::Unknown, 500)
            .await
            .map_err(unavailable)?
            .into_iter()
            .map(|changed_at| at - changed_at)
            .collect();
        let oldest_unknown =
            store.operations_in_states(&user.tenant, &[State::Unknown], 5).await.map_err(unavailable)?;
        let needs_review =
            store.operations_in_states(&user.tenant, &[State::NeedsReview], 10).await.map_err(unavailable)?;
        let day_ago = at - Duration::hours(23);
        let first_hour = DateTime::from_timestamp(day_ago.timestamp() / 3600 * 3600, 0).unwrap_or(day_ago);
        let per_hour = store.outcomes_per_hour(&user.tenant, first_hour).await.map_err(unavailable)?;
        let hourly = (0..24)
            .map(|i| {
                let hour = first_hour + Duration::hours(i);
                let mut outcome = HourOutcomes { hour, succeeded: 0, not_done: 0, uncertain: 0, open: 0 };
                for (_, state, count) in per_hour.iter().filter(|(h, _, _)| *h == hour) {
                    match state {
                        State::Succeeded => outcome.succeeded += count,
                        State::Rejected | State::Denied | State::Cancelled => outcome.not_done += count,
                        State::Submitted | State::Accepted | State::Unknown | State::NeedsReview => {
                            outcome.uncertain += count
                        }
                        State::Planned | State::PendingApproval | State::Approved => outcome.open += count,
                    }
                }
                outcome
            })
            .collect();
        let settled = store.settle_times(&user.tenant, at - Duration::days(7)).await.map_err(unavailable)?;
        Ok(OverviewData {
            total: counts.iter().map(|(_, n)| n).sum(),
            pending_approvals: count_of(State::PendingApproval),
            unknown_by_age: bucket(
                &unknown_ages,
                &[
                    (300, t!(language, "overview-bucket-under-5-min").as_str()),
                    (1800, t!(language, "overview-bucket-5-30-min").as_str()),
                    (7200, t!(language, "overview-bucket-30-min-2-h").as_str()),
                    (86_400, t!(language, "overview-bucket-2-24-h").as_str()),
                ],
                &t!(language, "overview-bucket-over-a-day"),
            ),
            oldest_uncertain: oldest_unknown.into_iter().map(row).collect(),
            needs_review: needs_review.into_iter().map(row).collect(),
            attention_orders: attention_orders(user, 10).await?,
            hourly,
            time_to_settle: settle_labels(language)
                .into_iter()
                .zip(settled)
                .map(|(label, count)| Bucket { label, count })
                .collect(),
            counts,
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn ages_fall_into_their_buckets() {
            let ages =
                [Duration::seconds(10), Duration::minutes(10), Duration::minutes(10), Duration::days(3)];
            let buckets = bucket(&ages, &[(300, "a"), (1800, "b")], "c");
            let counts: Vec<u64> = buckets.iter().map(|b| b.count).collect();
            assert_eq!(counts, [1, 2, 1]);
        }
    }
}
