//! The change feed: which tenants' operations changed, for the pages and reads that follow them.
//! Every change the ledger commits is told at once to the followers in this process, whatever its
//! time, and announced to the other instances on the database (a batch at most every
//! [`ANNOUNCE_EVERY`], through the store's change notices); what the others announce is told here
//! the same way. A follower never relies on change times, so a change committed after one with a
//! later time, or by an instance whose clock is behind, is told like any other. Should the notices
//! be lost (the listening connection dropped), every follower is told that anything may have
//! changed; the followers' own poll of the newest change time stays as the last resort.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, Notify};
use tokio_util::sync::CancellationToken;

use super::Ledger;
use crate::domain::ids::TenantId;
use crate::server::store::changes::Heard;

/// How long the changes of this process gather before they are announced to the others.
pub const ANNOUNCE_EVERY: Duration = Duration::from_millis(20);

/// How long the listening connection waits before it is made again after failing.
const LISTEN_AGAIN_AFTER: Duration = Duration::from_secs(1);

/// What a follower is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Told {
    /// The tenant's operations changed.
    Changed(TenantId),
    /// Any tenant's operations may have changed: notices were lost.
    Anything,
}

/// This process's change feed; clones share it.
#[derive(Clone)]
pub struct ChangeFeed {
    told: broadcast::Sender<Told>,
    /// The tenants changed here since the last announcement.
    unannounced: Arc<Mutex<BTreeSet<TenantId>>>,
    changed: Arc<Notify>,
    /// This instance's name in its announcements, so that it does not hear itself.
    origin: Arc<str>,
}

impl Default for ChangeFeed {
    fn default() -> Self {
        let origin = format!("{}-{}", std::process::id(), &uuid::Uuid::new_v4().simple().to_string()[..8]);
        Self {
            told: broadcast::channel(1024).0,
            unannounced: Arc::default(),
            changed: Arc::default(),
            origin: origin.into(),
        }
    }
}

impl ChangeFeed {
    /// Tells that `tenant`'s operations changed: committed now, by this process.
    pub fn changed(&self, tenant: &TenantId) {
        let _ = self.told.send(Told::Changed(tenant.clone()));
        self.lock().insert(tenant.clone());
        self.changed.notify_one();
    }

    /// What happens from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Told> {
        self.told.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<TenantId>> {
        self.unannounced.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Ledger {
    /// The change feed of this process.
    pub fn changes(&self) -> &ChangeFeed {
        &self.changes
    }

    /// Announces this process's changes to the other instances and tells the followers here what
    /// they announce, until `stop`.
    pub async fn relay_changes(self, stop: CancellationToken) {
        tokio::join!(self.announce_until(stop.clone()), self.hear_until(stop));
    }

    async fn announce_until(&self, stop: CancellationToken) {
        let feed = &self.changes;
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = feed.changed.notified() => {}
            }
            tokio::time::sleep(ANNOUNCE_EVERY).await;
            self.announce_changes().await;
        }
    }

    /// Announces the changes of this process not announced yet to the other instances (a command
    /// that ends calls it before it does).
    pub async fn announce_changes(&self) {
        let feed = &self.changes;
        let tenants: Vec<TenantId> = std::mem::take(&mut *feed.lock()).into_iter().collect();
        if tenants.is_empty() {
            return;
        }
        if let Err(error) = self.store.announce_changes(&feed.origin, &tenants).await {
            tracing::warn!(%error, "changes could not be announced to the other instances; they poll for them");
        }
    }

    async fn hear_until(&self, stop: CancellationToken) {
        let feed = &self.changes;
        loop {
            let mut listener = match self.store.listen_changes().await {
                Ok(Some(listener)) => listener,
                Ok(None) => return,
                Err(error) => {
                    tracing::warn!(%error, "could not listen to the other instances' changes; trying again");
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(LISTEN_AGAIN_AFTER) => continue,
                    }
                }
            };
            // Whatever was announced before the listening began is not heard.
            let _ = feed.told.send(Told::Anything);
            loop {
                let heard = tokio::select! {
                    () = stop.cancelled() => return,
                    heard = listener.next() => heard,
                };
                match heard {
                    Ok(Heard::Changed { origin, tenants }) if *origin != *feed.origin => {
                        for tenant in tenants {
                            let _ = feed.told.send(Told::Changed(tenant));
                        }
                    }
                    Ok(Heard::Changed { .. }) => {}
                    Ok(Heard::MayHaveMissed) => {
                        let _ = feed.told.send(Told::Anything);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "listening to the other instances' changes stopped; listening again");
                        break;
                    }
                }
            }
        }
    }
}
