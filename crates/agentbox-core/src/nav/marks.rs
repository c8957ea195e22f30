//! [`Marks`]: the state of every cell in a path search (not reached, open, closed), one byte
//! a cell: the one place [`super::Search`] keeps it, read and written by A*, jump point
//! search, the direct route and the octile route alike. The per-cell records
//! ([`super::search`]'s `Seen`: cost and parent) are read only for a cell the marks say is
//! open (for its cost), or closed (for the path).
//!
//! Why: on a 512 x 512 map the records are 16 bytes a cell, 4 MiB, larger than a core's
//! second-level cache, and both searches look at cells scattered over the map (jump point
//! search offers jump points far apart; A* pops the open list's best wherever it lies), so
//! reading a cell's record to learn whether it is new, open or closed misses that cache at
//! most of them. The marks of the same map are 256 KiB: a cell found closed is dropped
//! without touching its record, and a cell not yet reached has its record written without
//! being read first (a store waits in the store buffer; a load that misses holds up what
//! depends on it). Simulated with a 1 MiB last-level cache, this takes two thirds of
//! the searches' read misses away (`docs/benchmarks.md`, issue 35, branch `marks`).
//!
//! A byte stamped with the query's generation, not two bits cleared per query: the same
//! misses saved, without the bit arithmetic (a shift and a mask at every check, a test of
//! the word at every set), which cost 4-14% more instructions in the searches' functions; nothing is
//! cleared between queries but once every 126 queries.

/// The mark of a cell reached and open (on the open list, or recorded by jump point search
/// without being queued); a cell not reached this query has the mark 0.
pub(super) const OPEN: u8 = 1;
/// A cell closed (expanded, or about to be).
pub(super) const CLOSED: u8 = 2;

/// One byte a cell: the query's generation when open, one more when closed, anything else
/// when not reached (a stamp left by an earlier query).
#[derive(Default)]
pub(super) struct Marks {
    stamps: Vec<u8>,
    generation: u8,
}

impl Marks {
    /// Starts a query on a map of `cells` cells: every cell not reached.
    pub fn begin(&mut self, cells: usize) {
        if self.stamps.len() != cells {
            self.stamps = vec![0; cells];
            self.generation = 0;
        }
        if self.generation >= u8::MAX - 4 {
            self.stamps.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
    }

    /// The mark of cell `i`: 0 (not reached), [`OPEN`] or [`CLOSED`].
    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        match self.stamps[i].wrapping_sub(self.generation) {
            0 => OPEN,
            1 => CLOSED,
            _ => 0,
        }
    }

    /// Marks cell `i` reached (open); it is not closed.
    #[inline(always)]
    pub fn open(&mut self, i: usize) {
        debug_assert_ne!(self.get(i), CLOSED);
        self.stamps[i] = self.generation;
    }

    /// Marks cell `i` closed.
    #[inline(always)]
    pub fn close(&mut self, i: usize) {
        self.stamps[i] = self.generation + 1;
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
        m.open(32);
        m.close(32);
        m.close(99);
        assert_eq!(
            (m.get(0), m.get(1), m.get(32), m.get(33), m.get(99)),
            (OPEN, 0, CLOSED, 0, CLOSED)
        );
        m.begin(100);
        assert!((0..100).all(|i| m.get(i) == 0));
        // Through the clearing when the generations run out: every query starts clean,
        // whatever the earlier ones left (the last cell closed by each, the first opened).
        for _ in 0..300 {
            m.open(0);
            m.close(99);
            m.begin(100);
            assert!(
                (0..100).all(|i| m.get(i) == 0),
                "generation {}",
                m.generation
            );
        }
        // Another map size starts clean too.
        m.open(5);
        m.begin(2000);
        assert!((0..2000).all(|i| m.get(i) == 0));
    }
}
