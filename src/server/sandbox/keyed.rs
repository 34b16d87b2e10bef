//! Answers remembered by idempotency key, as every sandbox keeps them: the first answer to a key,
//! replayed for the same request while the key is remembered, and the keys whose first request is
//! still being handled. What a remembered key sent with another request gets is each provider's
//! own (see [`super::pipeline`]).

use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What a provider answers: a status and a JSON body.
pub(super) type Answer = (StatusCode, Value);

#[derive(Debug, Clone)]
struct Stored {
    request: Value,
    status: StatusCode,
    body: Value,
    at: DateTime<Utc>,
}

/// What a request under a key is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Claim {
    /// The key's first answer, for the same request: answered again.
    Replay(StatusCode, Value),
    /// The key is remembered with another request.
    OtherRequest,
    /// The key's first request is still being handled.
    InUse,
    /// The key is now this request's, until [`KeyedAnswers::finish`].
    Claimed,
}

/// The answers a sandbox remembers by key, and the keys in use.
#[derive(Debug, Default)]
pub(super) struct KeyedAnswers {
    stored: BTreeMap<String, Stored>,
    in_use: BTreeSet<String>,
}

impl KeyedAnswers {
    /// What `request` under `key` is at `now`, keys being remembered for `retention`.
    pub(super) fn claim(
        &mut self,
        key: &str,
        request: &Value,
        now: DateTime<Utc>,
        retention: Duration,
    ) -> Claim {
        if let Some(stored) = self.stored.get(key).filter(|stored| now - stored.at < retention) {
            return if stored.request == *request {
                Claim::Replay(stored.status, stored.body.clone())
            } else {
                Claim::OtherRequest
            };
        }
        self.claim_anew(key)
    }

    /// Claims `key` for a request handled as new whatever the key remembers.
    pub(super) fn claim_anew(&mut self, key: &str) -> Claim {
        if self.in_use.insert(key.to_owned()) {
            Claim::Claimed
        } else {
            Claim::InUse
        }
    }

    /// Releases `key`, remembering `kept` as its answer to `request` when there is one (an answer
    /// that did nothing, such as a 429, is not).
    pub(super) fn finish(&mut self, key: &str, request: Value, kept: Option<Answer>, now: DateTime<Utc>) {
        self.in_use.remove(key);
        if let Some((status, body)) = kept {
            self.stored.insert(key.to_owned(), Stored { request, status, body, at: now });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_replays_its_first_answer_until_it_is_forgotten() {
        let mut keyed = KeyedAnswers::default();
        let (now, retention) = (Utc::now(), Duration::hours(24));
        let request = json!({"amount": 380});
        assert_eq!(keyed.claim("k", &request, now, retention), Claim::Claimed);
        assert_eq!(keyed.claim("k", &request, now, retention), Claim::InUse);
        keyed.finish("k", request.clone(), Some((StatusCode::OK, json!({"id": "r1"}))), now);
        assert_eq!(
            keyed.claim("k", &request, now, retention),
            Claim::Replay(StatusCode::OK, json!({"id": "r1"}))
        );
        assert_eq!(keyed.claim("k", &json!({"amount": 1}), now, retention), Claim::OtherRequest);
        assert_eq!(keyed.claim("k", &request, now + retention, retention), Claim::Claimed, "forgotten");
    }
}
