//! The console's one search box: what starts with the words typed, across the tenant's orders
//! (`1043`, `#1043` and `order:1043` all find order 1043), op ids (`refund-1043`), external ids
//! (`re_00…`) and people, each found through its own index; and archived operations whose op id,
//! order or external id is exactly what was typed, through the keys retention keeps.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::machine::State;

/// One operation found by its op id or by one of its external ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundOperation {
    pub op_id: String,
    pub state: Option<State>,
    pub kind: Option<String>,
    /// The external id that matched, when it was one.
    pub external_id: Option<String>,
    /// Its history is in the archive: found by its exact op id, order or external id.
    #[serde(default)]
    pub archived: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResults {
    /// The words searched, as typed (trimmed).
    pub searched: String,
    pub orders: Vec<String>,
    pub operations: Vec<FoundOperation>,
    pub people: Vec<String>,
    /// Whether the viewer may read the audit trail (people link to their actions there).
    pub people_link_to_audit: bool,
}

impl SearchResults {
    pub fn is_empty(&self) -> bool {
        self.orders.is_empty() && self.operations.is_empty() && self.people.is_empty()
    }
}

/// How many of each kind of thing a search shows.
pub const SEARCH_LIMIT: u32 = 10;

#[server(prefix = "/rpc", endpoint = "search")]
pub async fn search(#[server(default)] q: String) -> Result<SearchResults, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Operations).await?;
    ssr::search(&user, &q).await.inspect_err(crate::console::guard::set_error_status)
}

/// The order subject the words name, if they can name one: `1043`, `#1043`, `order:1043`.
pub fn order_prefix(words: &str) -> Option<String> {
    let words = words.trim();
    let number = words.strip_prefix("order:").or_else(|| words.strip_prefix('#')).unwrap_or(words);
    (!number.is_empty()).then(|| format!("order:{number}"))
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{reads, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::policy::Section;
    use crate::t;

    /// At most this many characters are searched.
    const LONGEST: usize = 200;

    pub async fn search(user: &SignedIn, words: &str) -> Result<SearchResults, AppError> {
        let words = words.trim();
        if words.chars().count() > LONGEST || words.chars().any(char::is_control) {
            return Err(AppError::Invalid(t!(current_language(), "search-page-too-long", longest = LONGEST)));
        }
        let mut results = SearchResults {
            searched: words.to_owned(),
            people_link_to_audit: Section::Audit.allows(user.role),
            ..SearchResults::default()
        };
        if words.is_empty() {
            return Ok(results);
        }
        let store = reads();
        let as_order = order_prefix(words).filter(|order| order != words);
        let subject_prefixes: Vec<&str> = std::iter::once(words).chain(as_order.as_deref()).collect();
        let hits = store
            .starting_with(&user.tenant, words, &subject_prefixes, SEARCH_LIMIT)
            .await
            .map_err(unavailable)?;
        let mut orders = hits.subjects;
        orders.sort();
        orders.dedup();
        orders.truncate(SEARCH_LIMIT as usize);
        results.orders = orders;
        results.operations = hits
            .operations
            .into_iter()
            .map(|(op_id, state, kind)| FoundOperation {
                op_id: op_id.to_string(),
                state: Some(state),
                kind: Some(kind),
                external_id: None,
                archived: false,
            })
            .chain(hits.external_ids.into_iter().map(|(external_id, op_id)| FoundOperation {
                op_id: op_id.to_string(),
                state: None,
                kind: None,
                external_id: Some(external_id),
                archived: false,
            }))
            .collect();
        let ledger = &expect_context::<crate::server::http::state::AppState>().ledger;
        for term in subject_prefixes {
            let archived = ledger.find_archived(&user.tenant, term, SEARCH_LIMIT).await.map_err(unavailable)?;
            for key in archived {
                if results.operations.iter().any(|found| found.op_id == key.op_id.as_str()) {
                    continue;
                }
                results.operations.push(FoundOperation {
                    op_id: key.op_id.to_string(),
                    state: Some(key.state),
                    kind: Some(key.kind),
                    external_id: None,
                    archived: true,
                });
            }
        }
        results.people = hits.people;
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::order_prefix;

    #[test]
    fn an_order_is_named_by_its_number_with_or_without_a_hash_or_its_prefix() {
        for typed in ["1043", "#1043", "order:1043", " 1043 "] {
            assert_eq!(order_prefix(typed).as_deref(), Some("order:1043"), "{typed}");
        }
        assert_eq!(order_prefix("#"), None);
        assert_eq!(order_prefix(""), None);
    }
}
