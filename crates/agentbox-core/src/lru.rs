//! A small least-recently-used cache: a list of keyed values, each with a weight (one per
//! entry, or its bytes), under a cap on the total weight. The navigation grid cache
//! (`nav::cache`, a few grids) and the flow field cache (`nav::flow`, megabytes of fields) are
//! both one.
//!
//! Entries are few (a handful of grids, a few dozen fields), so they are kept in a `Vec`,
//! most recently used last, and found by a scan: no hashing, and the order of evictions is
//! the order of use, the same on every run. It knows nothing of what it holds.

/// Values by key, most recently used last, with their weights summing to at most a cap.
pub(crate) struct Lru<K, V> {
    entries: Vec<(K, V, usize)>,
    weight: usize,
    cap: usize,
}

impl<K: PartialEq, V> Lru<K, V> {
    /// An empty cache holding at most `cap` of weight.
    pub(crate) const fn new(cap: usize) -> Self {
        Lru {
            entries: Vec::new(),
            weight: 0,
            cap,
        }
    }

    /// The value of `key`, marked most recently used.
    #[inline]
    pub(crate) fn get(&mut self, key: &K) -> Option<&mut V> {
        let at = self.entries.iter().position(|(k, _, _)| k == key)?;
        Some(self.touch(at))
    }

    /// The value of `key`, marked most recently used; if the cache has none, the value and
    /// weight `make` gives, kept as [`Lru::insert`] keeps it (`None` if `make` gives none or
    /// the value is heavier than the cap).
    #[inline]
    pub(crate) fn get_or_insert_with(
        &mut self,
        key: K,
        make: impl FnOnce() -> Option<(V, usize)>,
    ) -> Option<&mut V> {
        match self.entries.iter().position(|(k, _, _)| *k == key) {
            Some(at) => Some(self.touch(at)),
            None => {
                let (value, weight) = make()?;
                self.insert(key, value, weight)
            }
        }
    }

    /// Marks entry `at` most recently used (moves it last); its value.
    fn touch(&mut self, at: usize) -> &mut V {
        self.entries[at..].rotate_left(1);
        let last = self.entries.len() - 1;
        &mut self.entries[last].1
    }

    /// Keeps `value` under `key` (which the cache must not hold) as the most recently used,
    /// first dropping the least recently used entries until its weight fits under the cap.
    /// A value heavier than the cap is not kept. The value kept, if it was.
    pub(crate) fn insert(&mut self, key: K, value: V, weight: usize) -> Option<&mut V> {
        if weight > self.cap {
            return None;
        }
        while self.weight + weight > self.cap && !self.entries.is_empty() {
            let (_, _, dropped) = self.entries.remove(0);
            self.weight -= dropped;
        }
        self.weight += weight;
        self.entries.push((key, value, weight));
        self.entries.last_mut().map(|(_, v, _)| v)
    }

    /// The weight of every entry together.
    pub(crate) fn weight(&self) -> usize {
        self.weight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_goes_first_and_the_cap_holds() {
        let mut lru = Lru::new(3);
        for k in 0..3 {
            assert_eq!(lru.insert(k, k * 10, 1).copied(), Some(k * 10));
        }
        // 0 is used again, so 1 is now the oldest.
        assert_eq!(lru.get(&0).copied(), Some(0));
        lru.insert(3, 30, 1);
        assert!(lru.get(&1).is_none());
        assert_eq!(lru.get(&2).copied(), Some(20));
        assert_eq!(lru.weight(), 3);
        // A heavy entry drops as many old ones as it needs; one heavier than the cap is
        // refused and drops nothing.
        lru.insert(4, 40, 2);
        assert_eq!((lru.weight(), lru.get(&0).is_none()), (3, true));
        assert_eq!(lru.get(&3), None);
        assert!(lru.insert(5, 50, 4).is_none());
        assert_eq!(lru.weight(), 3);
        assert_eq!(lru.get(&2).copied(), Some(20));
        assert_eq!(lru.get(&4).copied(), Some(40));
        // Made only when missing.
        assert_eq!(
            lru.get_or_insert_with(2, || unreachable!()).copied(),
            Some(20)
        );
        assert_eq!(lru.get_or_insert_with(6, || None).copied(), None);
        assert_eq!(
            lru.get_or_insert_with(6, || Some((60, 1))).copied(),
            Some(60)
        );
        assert!(lru.get(&4).is_none(), "the oldest went for it");
    }
}
