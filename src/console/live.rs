//! Live updates for the console: `GET /live/operations` is a stream of server-sent events that
//! says `changed` whenever the signed-in user's tenant's operations change, so that an open list
//! refreshes without a reload. Every open page of a tenant follows the one poller of that tenant
//! on this instance (`server::http::changes`). A stream ends when its session does (signed out,
//! ended by an admin, deactivated, or expired): the session is checked on a fixed clock, every [`SESSION_CHECK_EVERY`] whatever
//! the traffic, so a busy tenant's stream stops within that bound after sign-out too.

use axum::{
    extract::State,
    http::StatusCode,
    response::{
        sse::{Event, KeepAlive, Sse},
        IntoResponse, Response,
    },
};
use futures::stream::{self, Stream};
use std::{convert::Infallible, sync::Arc, time::Duration};
use tokio::sync::watch;
use tower_sessions::Session;

use crate::server::http::auth::{must_enrol, signed_in, still_signed_in};
use crate::server::http::changes::Latest;
use crate::server::http::state::AppState;
use crate::server::store::Sessions;

/// How often an open stream checks that its session is still signed in.
const SESSION_CHECK_EVERY: Duration = Duration::from_secs(1);

pub async fn operation_changes(State(state): State<AppState>, session: Session) -> Response {
    let Some(user) = signed_in(&session).await else {
        return (StatusCode::UNAUTHORIZED, "Sign in to follow live updates.").into_response();
    };
    if must_enrol(&session).await {
        return (StatusCode::FORBIDDEN, "Set up two-factor sign-in on Your account (/account) first.")
            .into_response();
    }
    let changes = state.live.follow(&state.ledger, &user.tenant).await;
    let next_check = tokio::time::Instant::now() + SESSION_CHECK_EVERY;
    let follower = Follower { sessions: state.sessions.clone(), session, changes, next_check };
    Sse::new(change_events(follower)).keep_alive(KeepAlive::default()).into_response()
}

/// One open page: its tenant's changes, the session that must stay signed in, and when that is
/// checked next.
struct Follower {
    sessions: Arc<dyn Sessions>,
    session: Session,
    changes: watch::Receiver<Latest>,
    next_check: tokio::time::Instant,
}

fn change_events(follower: Follower) -> impl Stream<Item = Result<Event, Infallible>> {
    stream::unfold(follower, |mut follower| async move {
        loop {
            tokio::select! {
                changed = follower.changes.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                    let latest = *follower.changes.borrow_and_update();
                    let at = latest.at.map(|at| at.to_rfc3339()).unwrap_or_default();
                    return Some((Ok(Event::default().event("changed").data(at)), follower));
                }
                () = tokio::time::sleep_until(follower.next_check) => {
                    if !still_signed_in(follower.sessions.as_ref(), follower.session.id()).await {
                        return None;
                    }
                    follower.next_check += SESSION_CHECK_EVERY;
                }
            }
        }
    })
}
