//! What the write path reads on every call and almost never changes (a token, a tenant's approval
//! rules, what a provider connection performs), kept for at most [`FRESH_FOR`] per key. A change
//! made through this process's ledger forgets the kept value at once; a change made elsewhere (another
//! instance, the command line) is seen within [`FRESH_FOR`]: docs/security.md states
//! that bound.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a kept value may be used before it is read again.
pub const FRESH_FOR: Duration = Duration::from_secs(1);

/// How many keys one cache keeps before it drops those gone stale (and, if that is not enough,
/// all of them): callers choose keys (token texts, provider names), so the count must be bounded.
const MOST_KEPT: usize = 10_000;

/// Values read within the last [`FRESH_FOR`], by key; shared by the clones of the ledger.
pub struct Recent<K, V> {
    kept: Arc<Mutex<Kept<K, V>>>,
}

struct Kept<K, V> {
    values: HashMap<K, (Instant, V)>,
    /// When values were last forgotten: a read that started before then may have seen what the
    /// change replaced, so its value is not kept.
    forgotten_at: Option<Instant>,
}

impl<K, V> Clone for Recent<K, V> {
    fn clone(&self) -> Self {
        Self { kept: self.kept.clone() }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Default for Recent<K, V> {
    fn default() -> Self {
        Self { kept: Arc::new(Mutex::new(Kept { values: HashMap::new(), forgotten_at: None })) }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Recent<K, V> {
    /// The value kept for `key` if it was read less than [`FRESH_FOR`] ago.
    pub fn fresh(&self, key: &K) -> Option<V> {
        let kept = self.kept.lock().expect("the cache's lock is never poisoned");
        kept.values
            .get(key)
            .filter(|(read_at, _)| read_at.elapsed() < FRESH_FOR)
            .map(|(_, value)| value.clone())
    }

    /// Keeps `value`, read at `read_at` (taken before the read, so that a change committed while
    /// it ran is not kept longer than the bound), unless values were forgotten since.
    pub fn keep(&self, key: K, value: V, read_at: Instant) {
        let mut kept = self.kept.lock().expect("the cache's lock is never poisoned");
        if kept.forgotten_at.is_some_and(|forgotten_at| read_at <= forgotten_at) {
            return;
        }
        if kept.values.len() >= MOST_KEPT {
            kept.values.retain(|_, (at, _)| at.elapsed() < FRESH_FOR);
            if kept.values.len() >= MOST_KEPT {
                kept.values.clear();
            }
        }
        kept.values.insert(key, (read_at, value));
    }

    /// The value for `key`: the kept one while fresh, else what `read` answers (kept when it
    /// answers at all).
    pub async fn get_or_read<E, F>(&self, key: K, read: F) -> Result<V, E>
    where
        F: std::future::Future<Output = Result<V, E>>,
    {
        if let Some(value) = self.fresh(&key) {
            return Ok(value);
        }
        let read_at = Instant::now();
        let value = read.await?;
        self.keep(key, value.clone(), read_at);
        Ok(value)
    }

    /// Forgets every kept value for which `matches` holds: after a change this process made.
    pub fn forget_where(&self, matches: impl Fn(&K, &V) -> bool) {
        let mut kept = self.kept.lock().expect("the cache's lock is never poisoned");
        kept.values.retain(|key, (_, value)| !matches(key, value));
        kept.forgotten_at = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_value_is_read_again_once_the_bound_has_passed() {
        let recent: Recent<&str, u32> = Recent::default();
        let reads = std::sync::atomic::AtomicU32::new(0);
        let read = || async { Ok::<_, ()>(reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1) };
        assert_eq!(recent.get_or_read("a", read()).await, Ok(1));
        assert_eq!(recent.get_or_read("a", read()).await, Ok(1), "kept within the bound");
        recent.keep("a", 1, Instant::now() - FRESH_FOR);
        assert_eq!(recent.get_or_read("a", read()).await, Ok(2), "read again after the bound");
        recent.forget_where(|key, _| *key == "a");
        assert_eq!(recent.get_or_read("a", read()).await, Ok(3), "read again once forgotten");
    }

    #[test]
    fn a_read_begun_before_a_change_here_is_not_kept() {
        let recent: Recent<&str, u32> = Recent::default();
        let read_at = Instant::now();
        recent.forget_where(|_, _| true);
        recent.keep("a", 1, read_at);
        assert_eq!(recent.fresh(&"a"), None);
        recent.keep("a", 2, Instant::now());
        assert_eq!(recent.fresh(&"a"), Some(2));
    }

    #[tokio::test]
    async fn a_failed_read_is_not_kept() {
        let recent: Recent<&str, u32> = Recent::default();
        assert_eq!(recent.get_or_read("a", async { Err::<u32, _>("down") }).await, Err("down"));
        assert_eq!(recent.fresh(&"a"), None);
    }

    #[test]
    fn the_number_of_keys_is_bounded() {
        let recent: Recent<usize, ()> = Recent::default();
        for key in 0..MOST_KEPT + 5 {
            recent.keep(key, (), Instant::now());
        }
        assert!(recent.kept.lock().unwrap().values.len() <= MOST_KEPT);
    }
}
