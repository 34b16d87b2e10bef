//! Change notices between the instances on one database: which tenants' operations one instance
//! changed, for the followers of those tenants on the others. On PostgreSQL a notice is a `NOTIFY`
//! on the channel [`CHANNEL`], which every instance `LISTEN`s to on a connection of its own; a
//! notice's payload is the announcing instance's name and the tenants, cut to fit PostgreSQL's
//! 8,000 bytes. SQLite is one machine's store: there is no other instance to tell.

use async_trait::async_trait;
use sqlx::postgres::PgListener;

use super::StoreError;
use crate::domain::ids::TenantId;

/// The PostgreSQL channel change notices travel on.
pub const CHANNEL: &str = "opledger_changes";

/// The longest payload a notice carries, under PostgreSQL's 8,000 bytes.
const PAYLOAD_MAX: usize = 7_000;

/// What a listener heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// `origin` changed the operations of `tenants`.
    Changed { origin: String, tenants: Vec<TenantId> },
    /// The connection was lost and is made again: notices sent meanwhile are lost, so any tenant
    /// may have changed.
    MayHaveMissed,
}

/// The notices an instance announces, and hears from the others.
#[async_trait]
pub trait ChangeNotices: Send + Sync {
    /// Tells every instance listening that the operations of `tenants` changed, from `origin`.
    async fn announce_changes(&self, origin: &str, tenants: &[TenantId]) -> Result<(), StoreError>;

    /// Starts listening to the notices of every instance; `None` where there is nobody to hear.
    async fn listen_changes(&self) -> Result<Option<ChangeListener>, StoreError>;
}

/// A PostgreSQL connection that listens to [`CHANNEL`].
pub struct ChangeListener {
    listener: PgListener,
}

impl ChangeListener {
    /// Listens on a connection of its own to the database of `pool`, outside `pool`: a listener
    /// holds its connection for as long as it listens, and would take one from the requests.
    pub(super) async fn on(pool: &sqlx::PgPool) -> Result<ChangeListener, StoreError> {
        let own = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_with(pool.connect_options().as_ref().clone())
            .await?;
        let mut listener = PgListener::connect_with(&own).await?;
        listener.listen(CHANNEL).await?;
        Ok(ChangeListener { listener })
    }

    /// The next notice; `MayHaveMissed` when the connection was lost (it is made again at the next
    /// call). A payload that is not a notice is passed over.
    pub async fn next(&mut self) -> Result<Heard, StoreError> {
        loop {
            let Some(notification) = self.listener.try_recv().await? else { return Ok(Heard::MayHaveMissed) };
            if let Some(heard) = read_payload(notification.payload()) {
                return Ok(heard);
            }
        }
    }
}

/// The payloads that tell `tenants` changed from `origin`: `origin` then the tenants, separated by
/// spaces (neither holds one), as many to a payload as fit.
pub(super) fn payloads(origin: &str, tenants: &[TenantId]) -> Vec<String> {
    let mut payloads = Vec::new();
    let mut payload = origin.to_owned();
    for tenant in tenants {
        if payload.len() + 1 + tenant.as_str().len() > PAYLOAD_MAX && payload.len() > origin.len() {
            payloads.push(std::mem::replace(&mut payload, origin.to_owned()));
        }
        payload.push(' ');
        payload.push_str(tenant.as_str());
    }
    if payload.len() > origin.len() {
        payloads.push(payload);
    }
    payloads
}

fn read_payload(payload: &str) -> Option<Heard> {
    let mut words = payload.split(' ');
    let origin = words.next().filter(|origin| !origin.is_empty())?.to_owned();
    let tenants: Vec<TenantId> = words.filter_map(|word| TenantId::parse(word).ok()).collect();
    (!tenants.is_empty()).then_some(Heard::Changed { origin, tenants })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_reads_back_and_many_tenants_take_several() {
        let tenants: Vec<TenantId> = (0..2_000).map(|n| TenantId::parse(&format!("tenant-{n}")).unwrap()).collect();
        let written = payloads("serve-42", &tenants);
        assert!(written.len() > 1 && written.iter().all(|payload| payload.len() <= PAYLOAD_MAX));
        let mut heard = Vec::new();
        for payload in &written {
            match read_payload(payload) {
                Some(Heard::Changed { origin, tenants }) => {
                    assert_eq!(origin, "serve-42");
                    heard.extend(tenants);
                }
                other => panic!("{payload}: {other:?}"),
            }
        }
        assert_eq!(heard, tenants);
        assert!(payloads("serve-42", &[]).is_empty());
        assert_eq!(read_payload("serve-42"), None, "a notice of no tenant is nothing");
        assert_eq!(read_payload(""), None);
    }
}
