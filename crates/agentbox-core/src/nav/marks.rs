//! [`Marks`]: the state of every cell in a path search (not reached, open, closed), two bits a
//! cell: the one place [`super::Search`] keeps it, read and written by A*, jump point search,
//! the direct route and the octile route alike. The per-cell records ([`super::search`]'s
//! `Seen`: cost and parent) are read only for a cell the marks say was reached.
//!
//! Why: on a 512 x 512 map the records are 16 bytes a cell, 4 MiB, larger than a core's
//! second-level cache, and both searches look at cells scattered over the map (jump point
//! search offers jump points far apart; A* pops the open list's best wherever it lies), so
//! reading a cell's record to learn whether it is new, open or closed misses the cache at
//! most of them. The marks of the same map are 64 KiB and stay near the core: a cell found
//! closed is dropped without touching its record, and a cell not yet reached has its record
//! written without being read first (a store waits in the store buffer; a load that misses
//! holds up everything after it). Only a cell already open has its record read, for its cost.
//!
//! Nothing is cleared wholesale between queries: each word of the marks is listed the first
//! time a bit in it is set, and the next query zeroes only the listed words, so a short query
//! on a large map pays for the words it touched, not for the map.

/// The mark of a cell reached and open (on the open list, or recorded by jump point search
/// without being queued); a cell not reached this query has the mark 0.
pub(super) const OPEN: u64 = 1;
/// A cell closed (expanded, or about to be).
pub(super) const CLOSED: u64 = 3;

/// Cells per word: two bits each.
const PER_WORD: usize = 32;

/// Two bits a cell (the low one: reached; the high one: closed), 32 cells a `u64`, and the
/// words set this query.
#[derive(Default)]
pub(super) struct Marks {
    words: Vec<u64>,
    /// The indices of the words that were zero when a bit in them was set this query: each
    /// listed once, zeroed by the next [`Marks::begin`].
    dirty: Vec<u32>,
}

impl Marks {
    /// Starts a query on a map of `cells` cells: every cell not reached.
    pub fn begin(&mut self, cells: usize) {
        let n = cells.div_ceil(PER_WORD);
        if self.words.len() != n {
            self.words = vec![0; n];
        } else {
            for &w in &self.dirty {
                self.words[w as usize] = 0;
            }
        }
        self.dirty.clear();
    }

    /// The mark of cell `i`: 0 (not reached), [`OPEN`] or [`CLOSED`].
    #[inline(always)]
    pub fn get(&self, i: usize) -> u64 {
        self.words[i / PER_WORD] >> (i % PER_WORD * 2) & 3
    }

    /// Marks cell `i` reached (open), unless it is closed already.
    #[inline(always)]
    pub fn open(&mut self, i: usize) {
        self.set(i, OPEN);
    }

    /// Marks cell `i` closed.
    #[inline(always)]
    pub fn close(&mut self, i: usize) {
        self.set(i, CLOSED);
    }

    /// Marks cell `i`, which is open, closed: its word is listed already.
    #[inline(always)]
    pub fn close_open(&mut self, i: usize) {
        debug_assert_eq!(self.get(i), OPEN);
        self.words[i / PER_WORD] |= CLOSED << (i % PER_WORD * 2);
    }

    /// Adds the bits of `mark` to cell `i` (a cell's bits are only ever added within a query:
    /// not reached, open, closed), listing the word the first time it gets a bit.
    #[inline(always)]
    fn set(&mut self, i: usize, mark: u64) {
        let k = i / PER_WORD;
        let w = &mut self.words[k];
        if *w == 0 {
            self.dirty.push(k as u32);
        }
        *w |= mark << (i % PER_WORD * 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_a_query_and_the_next_starts_clean() {
        let mut m = Marks::default();
        m.begin(100);
        assert!((0..100).all(|i| m.get(i) == 0));
        m.open(0);
        m.open(31);
        m.open(32);
        m.close_open(32);
        m.close(99);
        m.open(99); // a closed cell stays closed
        assert_eq!(
            (
                m.get(0),
                m.get(1),
                m.get(31),
                m.get(32),
                m.get(33),
                m.get(99)
            ),
            (OPEN, 0, OPEN, CLOSED, 0, CLOSED)
        );
        // Three words got bits (cells 0-31, 32-63, 96-99), each listed once.
        assert_eq!(m.dirty, vec![0, 1, 3]);
        m.begin(100);
        assert!((0..100).all(|i| m.get(i) == 0));
        assert!(m.dirty.is_empty());
        // Another map size starts clean too.
        m.open(5);
        m.begin(2000);
        assert!((0..2000).all(|i| m.get(i) == 0));
    }
}
