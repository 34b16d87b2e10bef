//! Live updates for the console: `GET /live/operations` is a stream of server-sent events that
//! says `changed` whenever the signed-in user's tenant's operations change, so that an open list
//! refreshes without a reload. It polls the newest change time (one indexed read) because every
//! instance on the database must see the changes of every other.

use axum::{
    extract::State,
    http::StatusCode,
    response::{
        sse::{Event, KeepAlive, Sse},
        IntoResponse, Response,
    },
};
use chrono::{DateTime, Utc};
use futures::stream::{self, Stream};
use std::{convert::Infallible, sync::Arc, time::Duration};
use tower_sessions::Session;

use crate::domain::ids::TenantId;
use crate::server::http::auth::signed_in;
use crate::server::http::state::AppState;
use crate::server::store::Reads;

/// How often the newest change is read.
const POLL_EVERY: Duration = Duration::from_secs(1);

pub async fn operation_changes(State(state): State<AppState>, session: Session) -> Response {
    let Some(user) = signed_in(&session).await else {
        return (StatusCode::UNAUTHORIZED, "Sign in to follow live updates.").into_response();
    };
    let store = state.ledger.reads().clone();
    let seen = store.latest_change(&user.tenant).await.ok().flatten();
    Sse::new(changes(store, user.tenant, seen)).keep_alive(KeepAlive::default()).into_response()
}

fn changes(
    store: Arc<dyn Reads>,
    tenant: TenantId,
    seen: Option<DateTime<Utc>>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    stream::unfold((store, tenant, seen), |(store, tenant, mut seen)| async move {
        loop {
            tokio::time::sleep(POLL_EVERY).await;
            match store.latest_change(&tenant).await {
                Ok(latest) if latest != seen => {
                    seen = latest;
                    let at = latest.map(|at| at.to_rfc3339()).unwrap_or_default();
                    return Some((Ok(Event::default().event("changed").data(at)), (store, tenant, seen)));
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "live updates could not read the newest change"),
            }
        }
    })
}
