//! The operations list: one row per operation, filtered by state, kind, provider, order, time
//! range and op id or external id (all kept in the URL), newest first, a page at a time by keyset.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::language::current_language;
use super::AppError;
use crate::domain::machine::State;
use crate::t;

/// One operation in a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationRow {
    pub op_id: String,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub state: State,
    /// Formatted with its currency in the reader's language, e.g. `NT$380`.
    pub amount: Option<String>,
    pub attempts: u32,
    pub external_ids: Vec<String>,
    pub compensates: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Who holds it on the support desk, where the list says.
    pub held_by: Option<String>,
}

/// The operations list's filters, exactly as they stand in the page's URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationFilter {
    pub state: Option<String>,
    pub kind: Option<String>,
    pub provider: Option<String>,
    pub subject: Option<String>,
    /// An op id or an external id.
    pub q: Option<String>,
    /// Created at or after this time (RFC 3339 or `YYYY-MM-DDTHH:MM`, UTC).
    pub from: Option<String>,
    /// Created before this time.
    pub to: Option<String>,
    /// Who holds it on the support desk: `mine`, `nobody`, or a person's name.
    pub held: Option<String>,
    /// The cursor of the page: the last row of the previous one.
    pub after: Option<String>,
}

impl OperationFilter {
    /// The URL query of these filters (without the cursor when `with_cursor` is false).
    pub fn query_string(&self, with_cursor: bool) -> String {
        let pairs = [
            ("state", &self.state),
            ("kind", &self.kind),
            ("provider", &self.provider),
            ("subject", &self.subject),
            ("q", &self.q),
            ("from", &self.from),
            ("to", &self.to),
            ("held", &self.held),
            ("after", if with_cursor { &self.after } else { &None }),
        ];
        encode_query(&pairs)
    }

    pub fn is_filtered(&self) -> bool {
        !self.query_string(false).is_empty()
    }

    /// The filters in words, in the language of the request or page: `state unknown, order
    /// order:1077`, or `every operation`.
    pub fn describe(&self) -> String {
        let language = current_language();
        let given = |value: &Option<String>| value.clone().filter(|v| !v.is_empty());
        let parts: Vec<String> = [
            given(&self.state).map(|v| t!(language, "operations-describe-state", value = v)),
            given(&self.kind).map(|v| t!(language, "operations-describe-kind", value = v)),
            given(&self.provider).map(|v| t!(language, "operations-describe-provider", value = v)),
            given(&self.subject).map(|v| t!(language, "operations-describe-order", value = v)),
            given(&self.q).map(|v| t!(language, "operations-describe-search", value = v)),
            given(&self.from).map(|v| t!(language, "operations-describe-from", value = v)),
            given(&self.to).map(|v| t!(language, "operations-describe-to", value = v)),
            given(&self.held).map(|v| match v.as_str() {
                HELD_MINE => t!(language, "operations-describe-held-mine"),
                HELD_NOBODY => t!(language, "operations-describe-held-nobody"),
                _ => t!(language, "operations-describe-held-by", value = v),
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            t!(language, "operations-describe-all")
        } else {
            parts.join(&t!(language, "operations-describe-separator"))
        }
    }
}

/// The `held` filter of the viewer's own items, and of items nobody holds.
pub const HELD_MINE: &str = "mine";
pub const HELD_NOBODY: &str = "nobody";

/// `name=value&…` of the pairs that have a value, each value percent-encoded.
pub fn encode_query(pairs: &[(&str, &Option<String>)]) -> String {
    pairs
        .iter()
        .filter_map(|(name, value)| value.as_deref().filter(|v| !v.is_empty()).map(|v| (*name, v)))
        .map(|(name, value)| format!("{name}={}", percent_encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One page of the operations list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationPage {
    pub rows: Vec<OperationRow>,
    /// The cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// What the list's filters of closed sets offer, and whether the viewer may act on what it lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facets {
    pub kinds: Vec<String>,
    pub providers: Vec<String>,
    /// Whether the viewer's role changes operations (a bulk query is offered only then).
    pub acts_on_operations: bool,
    /// The people who may hold operations (active, working on them), for the `held` filter.
    pub holders: Vec<String>,
}

#[server(prefix = "/rpc", endpoint = "operation_facets")]
pub async fn operation_facets() -> Result<Facets, AppError> {
    use crate::domain::policy::Section;
    let store = crate::console::guard::reads();
    let user = crate::console::guard::require(Section::Operations).await?;
    let (kinds, providers) = store
        .operation_kinds_and_providers(&user.tenant)
        .await
        .map_err(crate::console::guard::unavailable)
        .inspect_err(crate::console::guard::set_error_status)?;
    let holders = store
        .tenant_users(&user.tenant)
        .await
        .map_err(crate::console::guard::unavailable)
        .inspect_err(crate::console::guard::set_error_status)?
        .into_iter()
        .filter(|person| {
            person.status == crate::domain::people::UserStatus::Active && person.role.acts_on_operations()
        })
        .map(|person| person.name)
        .collect();
    Ok(Facets { kinds, providers, acts_on_operations: user.role.acts_on_operations(), holders })
}

#[server(prefix = "/rpc", endpoint = "operations")]
pub async fn operations(#[server(default)] filter: OperationFilter) -> Result<OperationPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Operations).await?;
    ssr::operations(&user, &filter).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

    use super::*;
    use crate::console::guard::{reads, unavailable, SignedIn};
    use crate::domain::ids::OpId;
    use crate::domain::{machine::State, operation::OperationHistory};
    use crate::domain::desk::Item;
    use crate::server::http::state::AppState;
    use crate::server::store::records::{HeldFilter, OperationListItem, OperationQuery, MOST_LIST_BRANCHES};

    /// Rows per page of the operations list.
    pub const PAGE_SIZE: u32 = 50;

    pub fn row(item: OperationListItem) -> OperationRow {
        OperationRow {
            op_id: item.op_id.to_string(),
            kind: item.kind,
            subject: item.subject,
            provider: item.provider,
            state: item.state,
            amount: item.amount.map(|money| current_language().money(money)),
            attempts: item.attempts,
            external_ids: item.external_ids,
            compensates: item.compensates.map(|c| c.to_string()),
            created_at: item.created_at,
            updated_at: item.updated_at,
            held_by: None,
        }
    }

    pub fn given(value: &Option<String>) -> Option<String> {
        value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned)
    }

    /// Reads a time from a filter: RFC 3339, or the `YYYY-MM-DDTHH:MM` of a date-time field, or a
    /// date, all in UTC.
    pub fn parse_time(field: &str, text: &str) -> Result<DateTime<Utc>, AppError> {
        if let Ok(at) = DateTime::parse_from_rfc3339(text) {
            return Ok(at.with_timezone(&Utc));
        }
        for format in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"] {
            if let Ok(at) = NaiveDateTime::parse_from_str(text, format) {
                return Ok(at.and_utc());
            }
        }
        if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            return Ok(day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
        }
        Err(AppError::Invalid(t!(current_language(), "operations-not-a-time", text = text, field = field)))
    }

    pub fn cursor_of(item: &OperationListItem) -> String {
        format!("{}~{}", item.created_at.timestamp_micros(), item.op_id)
    }

    pub fn parse_cursor(text: &str) -> Result<(DateTime<Utc>, OpId), AppError> {
        let invalid = || AppError::Invalid(t!(current_language(), "operations-damaged-link"));
        let (micros, op_id) = text.split_once('~').ok_or_else(invalid)?;
        let at = micros.parse().ok().and_then(DateTime::from_timestamp_micros).ok_or_else(invalid)?;
        Ok((at, OpId::parse(op_id).map_err(|_| invalid())?))
    }

    /// The values of a filter that may hold several, comma-separated (`unknown,needs_review`).
    pub fn values(value: &Option<String>) -> Vec<String> {
        let mut values: Vec<String> = given(value)
            .map(|text| text.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default();
        values.sort();
        values.dedup();
        values
    }

    /// The store query for a filter from the URL, for the viewer with `viewer_id` (whose items
    /// `held=mine` lists); bad values are refused with a sentence.
    pub fn operation_query(filter: &OperationFilter, viewer_id: &str) -> Result<OperationQuery, AppError> {
        let language = current_language();
        let states = values(&filter.state)
            .into_iter()
            .map(|s| {
                State::parse(&s)
                    .ok_or_else(|| AppError::Invalid(t!(language, "operations-no-such-state", state = &s)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (kinds, providers) = (values(&filter.kind), values(&filter.provider));
        let branches = states.len().max(1) * kinds.len().max(1) * providers.len().max(1);
        if branches > MOST_LIST_BRANCHES {
            return Err(AppError::Invalid(t!(
                language,
                "operations-too-many-values",
                states = states.len().max(1),
                kinds = kinds.len().max(1),
                providers = providers.len().max(1),
                branches = branches,
                most = MOST_LIST_BRANCHES,
            )));
        }
        Ok(OperationQuery {
            states,
            kinds,
            providers,
            subject: given(&filter.subject),
            search: given(&filter.q),
            created_from: given(&filter.from).map(|t| parse_time("from", &t)).transpose()?,
            created_before: given(&filter.to).map(|t| parse_time("to", &t)).transpose()?,
            after: given(&filter.after).map(|c| parse_cursor(&c)).transpose()?,
            held: given(&filter.held).map(|held| match held.as_str() {
                HELD_MINE => HeldFilter::ByUser(viewer_id.to_owned()),
                HELD_NOBODY => HeldFilter::Nobody,
                _ => HeldFilter::ByName(held),
            }),
            limit: PAGE_SIZE + 1,
        })
    }

    pub async fn operations(user: &SignedIn, filter: &OperationFilter) -> Result<OperationPage, AppError> {
        let query = operation_query(filter, &user.user_id)?;
        let mut items = reads().list_operations(&user.tenant, &query).await.map_err(unavailable)?;
        let next = if items.len() > PAGE_SIZE as usize {
            items.truncate(PAGE_SIZE as usize);
            items.last().map(cursor_of)
        } else {
            None
        };
        let listed: Vec<Item> = items.iter().map(|item| Item::Operation(item.op_id.clone())).collect();
        let ledger = expect_context::<AppState>().ledger.clone();
        let holders = ledger.holders_of(&user.tenant, &listed).await.map_err(unavailable)?;
        let rows = items
            .into_iter()
            .map(|item| {
                let held_by = holders
                    .iter()
                    .find(|claim| claim.item.id() == item.op_id.as_str())
                    .map(|claim| claim.holder.name.clone());
                OperationRow { held_by, ..row(item) }
            })
            .collect();
        Ok(OperationPage { rows, next })
    }

    /// Up to `limit` of the tenant's operations in `states`, the longest unchanged first, each with
    /// its history (what the queues read to say why an operation waits).
    pub async fn waiting_with_history(
        user: &SignedIn,
        states: &[State],
        limit: u32,
    ) -> Result<Vec<(OperationListItem, OperationHistory)>, AppError> {
        let store = reads();
        let waiting = store.operations_in_states(&user.tenant, states, limit).await.map_err(unavailable)?;
        let op_ids: Vec<OpId> = waiting.iter().map(|item| item.op_id.clone()).collect();
        let mut histories: std::collections::HashMap<OpId, OperationHistory> = store
            .operation_histories(&user.tenant, &op_ids)
            .await
            .map_err(unavailable)?
            .into_iter()
            .map(|history| (history.operation.op_id.clone(), history))
            .collect();
        Ok(waiting
            .into_iter()
            .filter_map(|item| histories.remove(&item.op_id).map(|history| (item, history)))
            .collect())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn filters_are_read_strictly_with_sentences_for_mistakes() {
            let filter = OperationFilter {
                state: Some("unknown".into()),
                from: Some("2026-11-30T14:05".into()),
                to: Some("2026-12-01".into()),
                q: Some("  ".into()),
                ..OperationFilter::default()
            };
            let query = operation_query(&filter, "").unwrap();
            assert_eq!(query.states, vec![State::Unknown]);
            assert_eq!(query.created_from.unwrap().to_rfc3339(), "2026-11-30T14:05:00+00:00");
            assert_eq!(query.created_before.unwrap().to_rfc3339(), "2026-12-01T00:00:00+00:00");
            assert_eq!(query.search, None, "blank fields are no filter");
            let bad = OperationFilter { state: Some("lost".into()), ..OperationFilter::default() };
            assert_eq!(operation_query(&bad, "").unwrap_err().to_string(), "There is no state named “lost”.");
            let bad = OperationFilter { from: Some("yesterday".into()), ..OperationFilter::default() };
            assert!(operation_query(&bad, "").unwrap_err().to_string().contains("is not a time"));
            let bad = OperationFilter { after: Some("xyz".into()), ..OperationFilter::default() };
            assert!(operation_query(&bad, "").is_err());
            let many = |n: usize| Some((0..n).map(|i| format!("v{i}")).collect::<Vec<_>>().join(","));
            let bad = OperationFilter { kind: many(7), provider: many(7), ..OperationFilter::default() };
            assert_eq!(
                operation_query(&bad, "").unwrap_err().to_string(),
                format!("Choose fewer values: 1 state × 7 kinds × 7 providers make 49 lists to merge, and at most {MOST_LIST_BRANCHES} are read at once.")
            );
        }

        #[test]
        fn filters_are_described_in_words() {
            assert_eq!(OperationFilter::default().describe(), "every operation");
            let filter = OperationFilter {
                state: Some("unknown".into()),
                subject: Some("order:1077".into()),
                ..OperationFilter::default()
            };
            assert_eq!(filter.describe(), "state unknown, order order:1077");
        }
    }
}
