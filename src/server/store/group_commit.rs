//! SQLite's group commit. SQLite runs one writer at a time and its ceiling is commits a second
//! (each one an fsync with `synchronous=FULL`), so the store's write transactions share commits:
//! each runs, in turn, on the one writer connection as a savepoint inside a transaction that the
//! writes queued behind it join, and that transaction commits once for all of them as soon as no
//! write waits for its turn (or the group is full). A write's `commit` answers only after the
//! group's commit is durable, so grouping saves fsyncs, never durability; a write that fails or
//! is dropped is rolled back to its savepoint alone, and the group before it is committed at once.

use sqlx::pool::PoolConnection;
use sqlx::{Sqlite, SqliteConnection, SqlitePool};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{oneshot, Mutex, OwnedMutexGuard};

/// The most writes one commit holds; a full group commits even while others wait.
const MAX_GROUP: usize = 32;

/// What a write waiting for its group's commit hears: nothing when it is durable, or why not.
type Durable = Result<(), String>;

/// The writer: the one connection's turns and the group committing on it.
#[derive(Clone)]
pub struct GroupWriter {
    shared: Arc<Shared>,
}

struct Shared {
    /// The pool of the one writer connection (writes outside a transaction take it in turn too).
    pool: SqlitePool,
    group: Arc<Mutex<Group>>,
    /// How many writes wait for their turn: while any does, the group stays open for it.
    waiting: AtomicUsize,
    /// How many group commits made writes durable.
    commits: AtomicU64,
}

#[derive(Default)]
struct Group {
    /// The writer connection while the group's transaction is open.
    connection: Option<PoolConnection<Sqlite>>,
    /// A savepoint left open by a write that was dropped before it could roll it back.
    savepoint_open: bool,
    /// The writes released into the open transaction, waiting for its commit.
    members: Vec<oneshot::Sender<Durable>>,
}

/// Counts a write as waiting for its turn while it exists.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Waiting(counter)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The error every write of a group hears when the group's commit failed.
fn not_durable(reason: String) -> sqlx::Error {
    sqlx::Error::Io(std::io::Error::other(format!("the write was not committed: {reason}")))
}

impl GroupWriter {
    /// The writer over `pool`, a pool of one connection.
    pub fn new(pool: SqlitePool) -> Self {
        let shared = Shared {
            pool,
            group: Arc::new(Mutex::new(Group::default())),
            waiting: AtomicUsize::new(0),
            commits: AtomicU64::new(0),
        };
        Self { shared: Arc::new(shared) }
    }

    /// How many commits have made writes durable since the writer was made.
    pub fn commits(&self) -> u64 {
        self.shared.commits.load(Ordering::SeqCst)
    }

    /// Waits for the writer connection's turn and opens a write on it, joining the open group.
    pub async fn begin(&self) -> Result<GroupTx, sqlx::Error> {
        let shared = self.shared.clone();
        // Spawned, so that a caller that goes away cannot leave its turn half-taken, nor leave the
        // write before it waiting for a turn it counted on: the write is then opened and dropped,
        // which rolls it back and commits the group.
        tokio::spawn(async move {
            let group = {
                let _waiting = Waiting::new(&shared.waiting);
                shared.group.clone().lock_owned().await
            };
            let mut tx = GroupTx { group: Some(group), shared };
            tx.open().await.map(|()| tx)
        })
        .await
        .map_err(|e| not_durable(e.to_string()))?
    }
}

/// One write transaction: a savepoint in the group's transaction, holding the writer connection's
/// turn until [`GroupTx::commit`] or [`GroupTx::rollback`].
pub struct GroupTx {
    group: Option<OwnedMutexGuard<Group>>,
    shared: Arc<Shared>,
}

impl GroupTx {
    fn group(&mut self) -> &mut Group {
        self.group.as_mut().expect("a write holds its turn until it ends")
    }

    /// Opens the group's transaction when none is open, then this write's savepoint.
    async fn open(&mut self) -> Result<(), sqlx::Error> {
        let pool = self.shared.pool.clone();
        let group = self.group();
        if group.savepoint_open {
            group.roll_back_savepoint().await?;
        }
        if group.connection.is_none() {
            let mut connection = pool.acquire().await?;
            sqlx::query("begin immediate").execute(&mut *connection).await?;
            group.connection = Some(connection);
        }
        sqlx::query("savepoint grouped_write").execute(group.connection()).await?;
        group.savepoint_open = true;
        Ok(())
    }

    /// Keeps this write in the group and answers once the group's commit made it durable.
    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        let group = self.group.take().expect("a write holds its turn until it ends");
        let shared = self.shared.clone();
        tokio::spawn(commit_member(group, shared)).await.map_err(|e| not_durable(e.to_string()))?
    }

    /// Undoes this write alone; the writes before it in the group are committed at once, since
    /// what this one read may have come from them.
    pub async fn rollback(mut self) -> Result<(), sqlx::Error> {
        let group = self.group.take().expect("a write holds its turn until it ends");
        let shared = self.shared.clone();
        tokio::spawn(roll_back_member(group, shared)).await.map_err(|e| not_durable(e.to_string()))?
    }
}

async fn commit_member(mut group: OwnedMutexGuard<Group>, shared: Arc<Shared>) -> Result<(), sqlx::Error> {
    if let Err(error) = sqlx::query("release grouped_write").execute(group.connection()).await {
        group.roll_back_savepoint().await.ok();
        // The writes before it hear their commit's outcome through their own channels.
        end_turn(group, &shared, true).await.ok();
        return Err(error);
    }
    group.savepoint_open = false;
    let (durable, answer) = oneshot::channel();
    group.members.push(durable);
    // Every member, this one too, hears the commit's outcome through its channel.
    end_turn(group, &shared, false).await.ok();
    match answer.await {
        Ok(outcome) => outcome.map_err(not_durable),
        Err(_) => Err(not_durable("the group's commit was abandoned".into())),
    }
}

async fn roll_back_member(mut group: OwnedMutexGuard<Group>, shared: Arc<Shared>) -> Result<(), sqlx::Error> {
    let rolled_back = group.roll_back_savepoint().await;
    let earlier = end_turn(group, &shared, true).await;
    rolled_back?;
    earlier.map_err(not_durable)
}

impl Drop for GroupTx {
    fn drop(&mut self) {
        let Some(group) = self.group.take() else { return };
        // Dropped without an end (an error returned early, or a cancelled caller): roll back on
        // the runtime; without one, the next write rolls the savepoint back before its own.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let shared = self.shared.clone();
            runtime.spawn(async move {
                if let Err(error) = roll_back_member(group, shared).await {
                    tracing::warn!(%error, "a dropped write's group could not be committed");
                }
            });
        }
    }
}

impl Deref for GroupTx {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        self.group
            .as_ref()
            .and_then(|g| g.connection.as_deref())
            .expect("a write holds its turn until it ends")
    }
}

impl DerefMut for GroupTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.group().connection()
    }
}

impl Group {
    fn connection(&mut self) -> &mut SqliteConnection {
        self.connection.as_deref_mut().expect("the group's transaction is open")
    }

    async fn roll_back_savepoint(&mut self) -> Result<(), sqlx::Error> {
        if !self.savepoint_open {
            return Ok(());
        }
        let connection = self.connection();
        sqlx::query("rollback to grouped_write").execute(&mut *connection).await?;
        sqlx::query("release grouped_write").execute(&mut *connection).await?;
        self.savepoint_open = false;
        Ok(())
    }
}

/// Ends a write's turn: commits the group when `now`, when it is full or when no other write
/// waits for a turn, and tells its members; otherwise leaves it open for the next write. Answers
/// the commit's outcome when it committed.
async fn end_turn(mut group: OwnedMutexGuard<Group>, shared: &Shared, now: bool) -> Durable {
    let full = group.members.len() >= MAX_GROUP;
    if group.connection.is_none() || !(now || full || shared.waiting.load(Ordering::SeqCst) == 0) {
        return Ok(());
    }
    let members = std::mem::take(&mut group.members);
    let mut connection = group.connection.take().expect("the group's transaction is open");
    let outcome = if group.savepoint_open {
        // A savepoint this write could not roll back: nothing in the group is trusted.
        Err("a write of its group could not be rolled back".to_owned())
    } else if members.is_empty() {
        sqlx::query("rollback").execute(&mut *connection).await.map(drop).map_err(|e| e.to_string())
    } else {
        sqlx::query("commit").execute(&mut *connection).await.map(drop).map_err(|e| e.to_string())
    };
    group.savepoint_open = false;
    match &outcome {
        Ok(()) if !members.is_empty() => {
            shared.commits.fetch_add(1, Ordering::SeqCst);
        }
        Ok(()) => {}
        Err(error) => {
            tracing::error!(%error, writes = members.len(), "a group of writes could not be committed");
            if sqlx::query("rollback").execute(&mut *connection).await.is_err() {
                connection.close_on_drop();
            }
        }
    }
    drop(connection);
    for member in members {
        member.send(outcome.clone()).ok();
    }
    outcome
}
