//! Live updates for the console: `GET /live/operations` is a stream of server-sent events that
//! says `changed` whenever the signed-in user's tenant's operations change, so that an open list
//! refreshes without a reload. It polls the newest change time (one indexed read) because every
//! instance on the database must see the changes of every other, and ends when the session does
//! (signed out, or expired).

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
use crate::server::http::auth::{signed_in, still_signed_in};
use crate::server::http::state::AppState;
use crate::server::store::{Reads, Sessions};

/// How often the newest change is read.
const POLL_EVERY: Duration = Duration::from_secs(1);

pub async fn operation_changes(State(state): State<AppState>, session: Session) -> Response {
    let Some(user) = signed_in(&session).await else {
        return (StatusCode::UNAUTHORIZED, "Sign in to follow live updates.").into_response();
    };
    let store = state.ledger.reads().clone();
    let seen = store.latest_change(&user.tenant).await.ok().flatten();
    let follower = Follower { store, sessions: state.sessions.clone(), session, tenant: user.tenant };
    Sse::new(changes(follower, seen)).keep_alive(KeepAlive::default()).into_response()
}

/// Who follows the changes: the tenant's reads, and the session that must stay signed in.
struct Follower {
    store: Arc<dyn Reads>,
    sessions: Arc<dyn Sessions>,
    session: Session,
    tenant: TenantId,
}

fn changes(follower: Follower, seen: Option<DateTime<Utc>>) -> impl Stream<Item = Result<Event, Infallible>> {
    stream::unfold((follower, seen), |(follower, mut seen)| async move {
        loop {
            tokio::time::sleep(POLL_EVERY).await;
            if !still_signed_in(follower.sessions.as_ref(), follower.session.id()).await {
                return None;
            }
            match follower.store.latest_change(&follower.tenant).await {
                Ok(latest) if latest != seen => {
                    seen = latest;
                    let at = latest.map(|at| at.to_rfc3339()).unwrap_or_default();
                    return Some((Ok(Event::default().event("changed").data(at)), (follower, seen)));
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "live updates could not read the newest change"),
            }
        }
    })
}
