//! The changes of each tenant's operations, followed once per tenant per instance: one poller per
//! tenant, started by its first follower (an open console page, or a ledger API read waiting for
//! an operation to change) and stopped after its last, tells every follower when the tenant's
//! operations changed. It hears the ledger's change feed (every change committed here, and those
//! the other instances announce, whatever their times) and, as the last resort, reads the newest
//! change time (one indexed read) every second, for a change no instance announced (one written by
//! a command of another process on a SQLite file).

use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::{sync::Arc, time::Duration};
use tokio::sync::{broadcast, watch};

use crate::domain::ids::TenantId;
use crate::server::ledger::changes::Told;
use crate::server::ledger::Ledger;
use crate::server::store::Reads;

/// How often a tenant's newest change is read.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// What a tenant's followers know of its changes: the newest change time its poller read, and how
/// many changes it was told of (so that a change older than the newest still moves it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Latest {
    pub at: Option<DateTime<Utc>>,
    pub told: u64,
}

/// The pollers of this instance, one per tenant with an open page or a waiting read.
#[derive(Clone, Default)]
pub struct LiveChanges {
    pollers: Arc<std::sync::Mutex<HashMap<TenantId, watch::Sender<Latest>>>>,
}

impl LiveChanges {
    /// Follows `tenant`'s changes, starting its poller if no page follows them yet. The receiver
    /// holds what the poller knows, and changes with every change.
    pub async fn follow(&self, ledger: &Ledger, tenant: &TenantId) -> watch::Receiver<Latest> {
        if let Some(receiver) = self.subscribe(tenant) {
            return receiver;
        }
        let feed = ledger.changes().subscribe();
        let store = ledger.reads();
        let at = store.latest_change(tenant).await.ok().flatten();
        let mut pollers = self.lock();
        if let Some(sender) = pollers.get(tenant) {
            return sender.subscribe();
        }
        let (sender, receiver) = watch::channel(Latest { at, told: 0 });
        pollers.insert(tenant.clone(), sender.clone());
        tokio::spawn(self.clone().poll(store, feed, tenant.clone(), sender));
        receiver
    }

    /// How many tenants are polled now.
    pub fn tenants_polled(&self) -> usize {
        self.lock().len()
    }

    fn subscribe(&self, tenant: &TenantId) -> Option<watch::Receiver<Latest>> {
        self.lock().get(tenant).map(watch::Sender::subscribe)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TenantId, watch::Sender<Latest>>> {
        self.pollers.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tells `tenant`'s followers of each change the feed tells of it, and of a newest change time
    /// that moved, read every [`POLL_EVERY`]; stops when nobody follows any more.
    async fn poll(
        self,
        store: Arc<dyn Reads>,
        feed: broadcast::Receiver<Told>,
        tenant: TenantId,
        sender: watch::Sender<Latest>,
    ) {
        // Once the feed is closed (its ledger gone), only the time poll is left.
        let mut feed = Some(feed);
        let mut next_read = tokio::time::Instant::now() + POLL_EVERY;
        loop {
            let told = async {
                match feed.as_mut() {
                    Some(feed) => feed.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                told = told => {
                    let ours = match told {
                        Ok(Told::Changed(changed)) => changed == tenant,
                        Ok(Told::Anything) | Err(broadcast::error::RecvError::Lagged(_)) => true,
                        Err(broadcast::error::RecvError::Closed) => {
                            feed = None;
                            false
                        }
                    };
                    if ours {
                        sender.send_modify(|latest| latest.told += 1);
                    }
                    continue;
                }
                () = tokio::time::sleep_until(next_read) => {}
            }
            next_read = tokio::time::Instant::now() + POLL_EVERY;
            {
                let mut pollers = self.lock();
                if sender.receiver_count() == 0 {
                    pollers.remove(&tenant);
                    return;
                }
            }
            match store.latest_change(&tenant).await {
                Ok(at) => {
                    sender.send_if_modified(|latest| {
                        let moved = latest.at != at;
                        latest.at = at;
                        moved
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, %tenant, "live updates could not read the newest change")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        ids::{Actor, OpId},
        params::CanonicalParams,
    };
    use crate::server::ledger::{Ledger, RegisterRequest};

    async fn register(ledger: &Ledger, tenant: &TenantId, op_id: &str) {
        let request = RegisterRequest {
            op_id: OpId::parse(op_id).unwrap(),
            kind: "refund".into(),
            subject: "order:1043".into(),
            provider: "stripe".into(),
            params: CanonicalParams::from_value(
                serde_json::json!({"amount": {"minor": 1, "currency": "TWD"}}),
            )
            .unwrap(),
            requested_by: "agent".into(),
            on_behalf_of: None,
            server_sends: false,
            compensates: None,
            key_retention: None,
        };
        ledger.register(tenant, &Actor::agent("agent"), request).await.unwrap();
    }

    #[tokio::test]
    async fn one_poller_per_tenant_tells_every_open_page_and_stops_after_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("live.db").display());
        let store = crate::server::store::connect(&url).await.unwrap();
        store.migrate().await.unwrap();
        let ledger = Ledger::new(store);
        let (acme, globex) = (TenantId::parse("acme").unwrap(), TenantId::parse("globex").unwrap());
        for tenant in [&acme, &globex] {
            ledger.create_token(tenant, "agent", "test").await.unwrap();
        }
        let live = LiveChanges::default();
        let mut pages = Vec::new();
        for _ in 0..3 {
            pages.push(live.follow(&ledger, &acme).await);
        }
        let mut other = live.follow(&ledger, &globex).await;
        assert_eq!(live.tenants_polled(), 2, "three pages of one tenant share one poller");

        register(&ledger, &acme, "refund-1043-li_2").await;
        for page in &mut pages {
            tokio::time::timeout(Duration::from_secs(5), page.changed()).await.unwrap().unwrap();
            assert!(page.borrow_and_update().told > 0);
        }
        let quiet = tokio::time::timeout(POLL_EVERY * 2, other.changed()).await;
        assert!(quiet.is_err(), "another tenant's page hears nothing of it");

        drop(pages);
        drop(other);
        tokio::time::sleep(POLL_EVERY * 2 + Duration::from_millis(200)).await;
        assert_eq!(live.tenants_polled(), 0, "a poller stops after its last page closed");
    }
}
