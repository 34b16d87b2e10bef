//! Once-only forms: every change the console sends carries an idempotency key made by the server
//! for its form; a resent form gets its first answer back instead of acting twice, and a browser
//! without JavaScript comes back to its page with `?done=<key>` to read that answer.

use leptos::prelude::*;

use super::AppError;

/// The answer to one of the signed-in user's earlier requests, by the key its form carried: what
/// a page shows after a form was sent without JavaScript.
#[server(prefix = "/rpc", endpoint = "request_answer")]
pub async fn request_answer(key: String) -> Result<Option<String>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Overview).await?;
    ssr::answer_of(&user, &key).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use std::future::Future;

    use super::*;
    use crate::console::guard::{reads, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::server::http::state::AppState;
    use crate::server::ledger::requests::ConsoleRequest;
    use crate::server::store::records::RequestClaim;
    use crate::server::telemetry::cause_chain;
    use crate::t;

    /// After a change made by a plain form post (a browser without JavaScript), sends the browser back
    /// to the page it came from with `done=<key>`, so that the page can show the answer in words.
    /// Requests from the console's script get the answer in the response and stay where they are.
    pub fn show_answer_after_form_post(key: &str) {
        let Some(parts) = leptos::prelude::use_context::<axum::http::request::Parts>() else { return };
        let header = |name| parts.headers.get(name).and_then(|v: &axum::http::HeaderValue| v.to_str().ok());
        let plain_form =
            header(axum::http::header::ACCEPT).is_some_and(|accept| accept.contains("text/html"));
        let Some(referer) = header(axum::http::header::REFERER).filter(|_| plain_form) else { return };
        let Ok(url) = reqwest::Url::parse(referer) else { return };
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(name, _)| name != "done" && !name.starts_with("__"))
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        let mut query = serde_urlencoded::to_string(&kept).unwrap_or_default();
        if !query.is_empty() {
            query.push('&');
        }
        query.push_str(&serde_urlencoded::to_string([("done", key)]).unwrap_or_default());
        leptos_axum::redirect(&format!("{}?{query}", url.path()));
    }

    /// The answer to one of the user's own earlier requests, by its key.
    pub async fn answer_of(user: &SignedIn, key: &str) -> Result<Option<String>, AppError> {
        reads().request_answer(&user.tenant, key.trim(), &user.name).await.map_err(unavailable)
    }

    /// The idempotency key of a form, as the server made it: up to 256 visible ASCII characters.
    pub fn valid_key(key: &str) -> Result<&str, AppError> {
        let key = key.trim();
        if key.is_empty() || key.len() > 256 || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(AppError::Invalid(t!(current_language(), "admin-request-key-invalid")));
        }
        Ok(key)
    }

    /// Runs `work` once per idempotency `key`: a second request with the key gets the first answer.
    /// `request` names what is asked, so a key cannot be replayed for something else. `work` gets
    /// the request, to record its answer with the change it makes.
    pub async fn once<W, F>(user: &SignedIn, key: &str, request: &str, work: W) -> Result<String, AppError>
    where
        W: FnOnce(ConsoleRequest) -> F,
        F: Future<Output = Result<String, AppError>>,
    {
        let key = valid_key(key)?;
        let ledger = expect_context::<AppState>().ledger.clone();
        let claim =
            ledger.claim_request(&user.tenant, key, &user.name, request).await.map_err(unavailable)?;
        match claim {
            RequestClaim::Claimed => {
                let answer =
                    work(ConsoleRequest { key: key.to_owned(), requested_by: user.name.clone() }).await;
                let kept = answer.as_ref().ok().map(String::as_str);
                if let Err(error) = ledger.answer_request(&user.tenant, key, kept).await {
                    tracing::error!(error = %cause_chain(&error), "could not record a console request's answer");
                }
                answer
            }
            RequestClaim::Answered(answer) => Ok(answer),
            RequestClaim::InProgress => {
                Err(AppError::Invalid(t!(current_language(), "admin-request-in-progress")))
            }
            RequestClaim::OtherRequest => {
                Err(AppError::Invalid(t!(current_language(), "admin-request-other")))
            }
        }
    }
}
