//! Differential heuristics (landmarks; Goldberg & Harrelson 2005 "ALT", Sturtevant et al. 2009
//! "Memory-based heuristics for explicit state spaces"): the exact grid distance from a few
//! far-apart landmark cells to every cell, so that for any two cells `|d(L, n) - d(L, g)|` is a
//! lower bound on their distance (the triangle inequality). The default search takes the
//! largest of these bounds and the octile distance as its heuristic: still admissible and
//! consistent, so paths stay optimal, and closer to the truth where walls force detours.
//!
//! Distances are kept exactly, as a count of straight and of diagonal moves (`a + b sqrt 2`),
//! 16 bits each, one table per landmark. Exactly, not rounded into fewer bits: where a
//! landmark lies behind the goal, an exact bound gives every node on the optimal routes the
//! same F, and the search's tie-break towards the larger G walks down one of them; a bound
//! short by any amount makes F rise along the route and expands every node below the optimum
//! (tried with 16-bit tables: up to 65% more jump points, `docs/benchmarks.md`, issue 35). A
//! query reads only its [`Active`] landmarks (the two whose bound is largest at its start).
//! Built once per map content with the grid (never per query), by a canonical Dijkstra search
//! per landmark (Sturtevant & Rabin 2016: only jump points are queued, the scans between them
//! write every cell's distance; [`distances`]; plain Dijkstra for `Always`); reads only the
//! grid's free-cell bits; names no engine crate.
//!
//! Two searches give the same distances here: the canonical one, which builds the landmarks of
//! the default rule and of `IfOneSideFree`, and plain Dijkstra with a bucket queue
//! ([`dijkstra`]), which builds those of `Always` (where the canonical one was slower) and is
//! the test oracle the canonical one is checked against cell by cell
//! (`canonical_dijkstra_is_dijkstra`).

use super::grid::Bits;
use super::options::Diagonal;

/// How many landmarks a map gets: sixteen searches of the map (and one from a seed cell),
/// 16 MiB on a 512 x 512 map (canonical Dijkstra, [`distances`]: see `docs/benchmarks.md`,
/// issue 35, branch `canon`, for its CPU time). A query reads [`ACTIVE`] of them,
/// so more landmarks cost no more per query; with more to choose the two active ones from,
/// one lies nearly behind the start, seen from the goal, for more queries, and its bound is
/// then nearly the true distance: on the 30% random map of the race bench a query expanded
/// 4,025 jump points with four landmarks and 2,371 with sixteen (`docs/benchmarks.md`,
/// issue 35).
pub const COUNT: usize = 16;

/// Maps at least this large get landmarks in the navigation cache ([`super::cache`]). On
/// smaller maps jump point search answers in microseconds, and their routes (which the shipped
/// scenes' traces record) stay as they were.
pub const MIN_CELLS: usize = 128 * 128;

/// A cell no landmark reaches (another component of the map).
const UNREACHED: u32 = u32::MAX;

/// Landmark distances: per landmark, a table of every cell's distance, (straight moves,
/// diagonal moves) packed in a `u32` (straight in the low half), [`UNREACHED`] where the
/// landmark cannot reach. One table per landmark (not the landmarks side by side per cell),
/// so a query that reads one landmark ([`Active`]) loads 16 cells' distances a cache line.
#[derive(Clone, Debug)]
pub struct Landmarks {
    width: i32,
    /// [`Landmarks::count`] tables of `cells` entries, one after another.
    dist: Vec<u32>,
    cells_count: usize,
    /// The landmarks' cells.
    pub cells: Vec<(i32, i32)>,
    /// On this map, the share of [`SAMPLES`] pairs of reachable cells (drawn with a fixed
    /// generator, so a function of the map alone) whose landmark bound exceeds their octile
    /// distance by more than [`QUERY_GAIN`]. See [`Landmarks::worth_it`].
    pub gain: f64,
}

/// How many cell pairs [`Landmarks::build`] samples for [`Landmarks::gain`].
pub const SAMPLES: usize = 512;

/// A sampled pair counts towards [`Landmarks::gain`] when the landmark bound exceeds its
/// octile distance by more than this share. (A query reads its active landmarks whenever their
/// bound at its start exceeds the octile distance at all: `search.rs`.)
pub const QUERY_GAIN: f64 = 0.05;

/// The least [`Landmarks::gain`] for which the default search uses the landmarks on a map: 0,
/// every map that has them. It was 0.4 while every opened node read all four landmarks
/// (random512-10-0, gain 0.01, lost then); with two active landmarks read lazily they pay or
/// break even on every map measured (`docs/benchmarks.md`, issue 35).
pub const MIN_GAIN: f64 = 0.0;

/// The least share of cells whose distance from the seed cell exceeds their octile distance
/// by more than [`QUERY_GAIN`] for a map to get landmarks at all (`detour_share`), decided
/// from the first search of [`Landmarks::build`]: 0, every large uniform map. It was 0.5
/// (random512-10-0 has 0.044, Berlin_0_512 0.360), refusing maps of scattered blocks, where
/// the landmarks now pay too (`docs/benchmarks.md`, issue 35); a caller may still ask for
/// more with [`super::NavGrid::build_landmarks_from`].
pub const MIN_DETOUR: f64 = 0.0;

/// The share of the cells `seed` (exact distances from `from`) reaches whose distance exceeds
/// their octile distance from `from` by more than [`QUERY_GAIN`]: how much the map's walls
/// bend its routes, seen from one cell.
pub fn detour_share(width: usize, seed: &[u32], from: (i32, i32)) -> f64 {
    let (mut bent, mut reached) = (0usize, 0usize);
    for (i, &d) in seed.iter().enumerate() {
        if d == UNREACHED {
            continue;
        }
        reached += 1;
        let (dx, dy) = (
            ((i % width) as i32 - from.0).unsigned_abs() as f64,
            ((i / width) as i32 - from.1).unsigned_abs() as f64,
        );
        let octile = dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy);
        bent += (length(d) > (1.0 + QUERY_GAIN) * octile) as usize;
    }
    bent as f64 / reached.max(1) as f64
}

/// The length of a packed distance.
#[inline]
fn length(d: u32) -> f64 {
    (d & 0xFFFF) as f64 + (d >> 16) as f64 * std::f64::consts::SQRT_2
}

/// The fixed-point scale of [`key`]: 46 bits of fraction.
const KEY_SHIFT: u32 = 46;

/// sqrt 2 times 2^46, rounded down (99,516,432,383,215.9...); odd, so invertible modulo 2^46.
const SQRT2_KEY: u64 = 99_516_432_383_215;

/// [`SQRT2_KEY`]'s inverse modulo 2^46, to read a key's diagonal count back ([`unkey`]).
const SQRT2_KEY_INVERSE: u64 = 64_109_024_686_607;

/// The key of a cell no landmark search has reached: above every reachable cell's.
const UNREACHED_KEY: u64 = u64::MAX;

/// The key a blocked cell keeps in the searches' tables: below every step's (`1 << KEY_SHIFT`
/// or `SQRT2_KEY`), so an offer to it fails the same comparison as an offer to a cell already
/// nearer, and [`dijkstra`] need not look whether a neighbour is free; and no distance's key
/// (only the start's is below a step's, and that is 0).
const BLOCKED_KEY: u64 = 1;

/// A packed distance `(a, b)` (`a` straight and `b` diagonal moves) in fixed point, as the
/// landmark searches order and bucket it: `a 2^46 + b SQRT2_KEY`, in integers, so a step adds
/// a constant. It is under `(a + b sqrt 2) 2^46` by less than `b`, at most 2^-30 of a tile
/// for 16-bit counts, while two distinct lengths `a + b sqrt 2` with counts under 2^16 differ
/// by over 2e-6 of a tile (and a length with `b > 0` lies as far from a whole number): so
/// comparing keys compares lengths exactly, and `key >> 46` is the length's whole part. The
/// searches add a step's key to a cell's; this spells the sum out for the tests.
#[cfg(test)]
fn key(d: u32) -> u64 {
    (((d & 0xFFFF) as u64) << KEY_SHIFT) + (d >> 16) as u64 * SQRT2_KEY
}

/// The packed distance whose [`key`] is `k` (counts under 2^16): `b` from the key modulo 2^46
/// (`a 2^46` vanishes there, and `SQRT2_KEY` is invertible), then `a`.
#[inline]
fn unkey(k: u64) -> u32 {
    // `b` is under 2^16, so its low 16 bits are all of it, and those of a product are the
    // product's of its factors' low 16 bits: a 16-bit multiply.
    let b = (k as u16).wrapping_mul(SQRT2_KEY_INVERSE as u16) as u64;
    let a = k.wrapping_sub(b * SQRT2_KEY) >> KEY_SHIFT;
    let packed = (a as u32) | (b as u32) << 16;
    if k == UNREACHED_KEY {
        UNREACHED
    } else {
        packed
    }
}

/// Exact distances from `(x, y)` to every cell under the diagonal `rule` (8-connected, the
/// rule's diagonal steps; 4-connected for `Never`), as [`key`]s: the oracle of
/// [`distances`] (see the module's docs), which runs it for `Never` only.
///
/// Dijkstra's search with a bucket queue (Dial 1969): cell `i` waits in bucket
/// `floor(d(i))`. Every step is at least 1 long, so no cell of bucket `k` can lower another
/// cell of bucket `k`: when bucket `k` is taken, its cells' distances are final and their
/// order does not matter. Steps are at most sqrt 2 long, so a cell of bucket `k` only adds to
/// buckets `k + 1` and `k + 2`: three buckets, reused in turn. A bucket entry carries the
/// distance it was offered, so an entry left behind when its cell was lowered is skipped and
/// each cell is expanded once. Lengths are compared and bucketed by [`key`], in integers.
/// The distances are the same as with a heap (they are exact and unique: `a + b sqrt 2` fixes
/// `a` and `b`), found without its logarithm. `dist` must come clean ([`Padded::clean`]:
/// blocked cells hold [`BLOCKED_KEY`], so a step is offered without looking whether its cell
/// is free). `None` when a route from `(x, y)` is too long for the 16-bit counts.
fn dijkstra(map: &Padded, at: (i32, i32), rule: Diagonal, dist: &mut [u64]) -> Option<()> {
    // One loop per rule, so the rule's test is not made per step.
    match rule {
        Diagonal::NoCornerCutting => dial(map, at, dist, true, |a, b| a && b),
        Diagonal::IfOneSideFree => dial(map, at, dist, true, |a, b| a || b),
        Diagonal::Always => dial(map, at, dist, true, |_, _| true),
        Diagonal::Never => dial(map, at, dist, false, |_, _| false),
    }
}

/// [`dijkstra`] for one rule: diagonal steps when `diagonals`, each allowed when `allowed`
/// holds of its two side cells' freedom.
#[inline(always)]
fn dial(
    map: &Padded,
    (x, y): (i32, i32),
    dist: &mut [u64],
    diagonals: bool,
    allowed: impl Fn(bool, bool) -> bool,
) -> Option<()> {
    let pw = map.width + 2;
    let free = &map.free[..];
    assert_eq!(dist.len(), free.len(), "one distance per padded cell");
    debug_assert!(
        free.iter()
            .zip(dist.iter())
            .all(|(&f, &d)| d == if f { UNREACHED_KEY } else { BLOCKED_KEY }),
        "a clean table (`Padded::clean`)"
    );
    let start = map.index(x, y);
    if !free[start] {
        return Some(());
    }
    // Entries: the cell's padded index in the low half, the low half of the key it was
    // offered in the high half (within one bucket, keys differ there: `SQRT2_KEY` is odd).
    let mut buckets: [Vec<u64>; 3] = Default::default();
    for b in &mut buckets {
        b.reserve(4 * (map.width + map.height));
    }
    dist[start] = 0;
    buckets[0].push(start as u64);
    let mut k = 0usize;
    let mut current = Vec::new();
    // Until all three buckets are empty.
    while buckets.iter().any(|b| !b.is_empty()) {
        std::mem::swap(&mut current, &mut buckets[k % 3]);
        // The buckets of lengths `k + 1` and `k + 2`, where this bucket's cells offer.
        let (next, after) = ((k + 1) % 3, (k + 2) % 3);
        // A route this long could wrap a 16-bit count (a winding corridor of over 65,533
        // moves): the map gets no landmarks rather than a wrong bound.
        if k >= LONGEST {
            return None;
        }
        for &entry in &current {
            let i = entry as u32 as usize;
            // SAFETY: `i` is a free cell's padded index (only free cells are queued), inside
            // `dist`, which is as long as `free` (asserted above).
            let here = unsafe { *dist.get_unchecked(i) };
            if here as u32 != (entry >> 32) as u32 {
                // Left behind when the cell was lowered: it is (or was) taken with its final
                // distance from the entry that lowered it.
                continue;
            }
            // Offers to a blocked cell fail like any other to a nearer cell (`BLOCKED_KEY`).
            let mut offer = |j: usize, offered: u64, slot: usize| {
                // SAFETY: `j` neighbours the free cell `i`, and the blocked one-cell border keeps
                // a free cell's eight neighbours inside the padded table, as long as `dist`.
                let old = unsafe { dist.get_unchecked_mut(j) };
                if offered < *old {
                    *old = offered;
                    buckets[slot].push(j as u64 | offered << 32);
                }
            };
            let (up, down) = (i - pw, i + pw);
            // A straight step is 1 long: the new length's whole part is `k + 1`.
            let straight = here + (1 << KEY_SHIFT);
            offer(up, straight, next);
            offer(i + 1, straight, next);
            offer(down, straight, next);
            offer(i - 1, straight, next);
            if !diagonals {
                continue;
            }
            // A diagonal step is sqrt 2 long: `k + 1` or `k + 2`.
            let diagonal = here + SQRT2_KEY;
            let slot = if (diagonal >> KEY_SHIFT) as usize == k + 1 {
                next
            } else {
                after
            };
            // SAFETY: as for `dist` above: a free cell's neighbours lie inside `free`.
            let side = |j: usize| unsafe { *free.get_unchecked(j) };
            let (n, e, s, w) = (side(up), side(i + 1), side(down), side(i - 1));
            // Each diagonal step: its cell and its two side cells.
            for (j, a, b) in [
                (up - 1, n, w),
                (up + 1, n, e),
                (down + 1, s, e),
                (down - 1, s, w),
            ] {
                if allowed(a, b) {
                    offer(j, diagonal, slot);
                }
            }
        }
        current.clear();
        k += 1;
    }
    Some(())
}

/// Routes at least this long (in whole tiles) do not fit the 16-bit move counts with room to
/// spare: a map with one gets no landmarks.
const LONGEST: usize = 0xFFFD;

/// A search's tables, reused by every search of one [`Landmarks::build_for`]: per padded
/// cell the [`key`] of its distance, [`Canonical::masks`] and [`Canonical::via`], and the
/// buckets. A search takes them clean and leaves `masks` clean (every jump point it queued
/// is expanded or dropped: `canonical_dijkstra_is_dijkstra` checks it) and `via` as it likes
/// (a cell's first offer is always lower than [`UNREACHED_KEY`] and sets it); the pass that
/// copies `dist` out cleans it ([`Padded::clean`]), so no table is cleared between searches.
struct Scratch {
    dist: Vec<u64>,
    masks: Vec<u8>,
    via: Vec<u8>,
    buckets: Vec<Vec<u32>>,
}

impl Scratch {
    fn new(map: &Padded) -> Self {
        let cells = map.free.len();
        let mut dist = vec![0; cells];
        map.clean(&mut dist);
        Scratch {
            dist,
            masks: vec![0; cells],
            via: vec![0; cells],
            buckets: Vec::new(),
        }
    }
}

/// Exact distances from `(x, y)` to every cell under the diagonal `rule`, as [`key`]s in
/// `scratch.dist`: the same as [`dijkstra`]'s, one by one (`canonical_dijkstra_is_dijkstra`
/// checks it on random, room and maze maps under both rules it serves), found by
/// the canonical Dijkstra search of N. R. Sturtevant and S. Rabin, "Canonical Orderings on
/// Grids", IJCAI 2016. Cells a jump point search would prune (Harabor & Grastien's rules,
/// as in `jps.rs`) are not queued: a search takes only jump points off its buckets, and a
/// jump point sends straight scans and diagonal walks (each diagonal cell sending the
/// straight scans along the diagonal's two axes) that write the distance of every cell they
/// pass, going on past the jump points they find (which wait in their buckets with the
/// directions their forced neighbours lie in) until a blocked cell, a step the rule forbids,
/// or a cell that already has a shorter distance. Every cell has a shortest route that is
/// canonical (diagonal moves before straight ones, turning elsewhere only at jump points),
/// and every prefix of a shortest route is one, so no scan along it is cut short; a jump
/// point reached at the same distance from several directions is expanded in all of them;
/// and it is expanded once, when its bucket (its distance's whole part) is taken: every
/// other jump point's scans add at least 1, so by then its distance and directions are
/// final. Buckets as in [`dijkstra`] (Dial 1969), one per whole length, since a scan can
/// queue a jump point far ahead. `None` when a route is too long for the 16-bit counts:
/// jump points [`LONGEST`] or more away are not expanded, and the caller refuses the map
/// for any cell whose distance reaches that. `Always` and `Never` (4-connected) run
/// [`dijkstra`]. `scratch` must come clean ([`Scratch`]).
fn distances(map: &Padded, at: (i32, i32), rule: Diagonal, scratch: &mut Scratch) -> Option<()> {
    match rule {
        Diagonal::NoCornerCutting => canonical::<NO_CUT>(map, at, scratch),
        Diagonal::IfOneSideFree => canonical::<ONE_SIDE>(map, at, scratch),
        // Canonical for `Always` too gave the same distances, but took 16% more instructions
        // than Dijkstra on random512-10-0 and more CPU time on the race's random maps
        // (`docs/benchmarks.md`, issue 35, branch `canon`).
        Diagonal::Always | Diagonal::Never => dijkstra(map, at, rule, &mut scratch.dist),
    }
}

/// [`distances`] for the default rule (`NO_CUT`) or `IfOneSideFree` (`ONE_SIDE`).
fn canonical<const RULE: u8>(map: &Padded, (x, y): (i32, i32), s: &mut Scratch) -> Option<()> {
    assert_eq!(s.dist.len(), map.free.len(), "one distance per padded cell");
    assert_eq!(s.masks.len(), map.free.len(), "one mask per padded cell");
    assert_eq!(s.via.len(), map.free.len(), "one mask per padded cell");
    for b in &mut s.buckets {
        b.clear();
    }
    let start = map.index(x, y);
    if !map.free[start] {
        return Some(());
    }
    let mut search = Canonical::<RULE> {
        free: &map.free,
        pw: map.width as isize + 2,
        dist: &mut s.dist,
        masks: &mut s.masks,
        via: &mut s.via,
        buckets: &mut s.buckets,
    };
    search.dist[start] = 0;
    search.via[start] = !0;
    // The start: every direction.
    search.jump(start, 0, !0);
    let mut current = Vec::new();
    let mut whole = 0;
    while whole < search.buckets.len() {
        // Expanding a jump point only adds to later buckets.
        std::mem::swap(&mut current, &mut search.buckets[whole]);
        for &i in &current {
            // A jump point lowered since it was queued waits in an earlier bucket and was
            // expanded from there; one dropped (lowered by a scan that does not stop there)
            // has no directions left.
            if search.masks[i as usize] != 0 {
                search.expand(i as usize);
            }
        }
        current.clear();
        std::mem::swap(&mut current, &mut search.buckets[whole]);
        whole += 1;
    }
    Some(())
}

/// The mask bit of direction `(dx, dy)` (each -1, 0 or 1, not both 0).
#[inline(always)]
const fn bit(dx: isize, dy: isize) -> u8 {
    match (dx, dy) {
        (0, -1) => 1,
        (1, 0) => 2,
        (0, 1) => 4,
        (-1, 0) => 8,
        (1, -1) => 16,
        (1, 1) => 32,
        (-1, 1) => 64,
        _ => 128,
    }
}

/// The diagonal rules [`canonical`] knows, as its `RULE` parameter.
const NO_CUT: u8 = 0;
const ONE_SIDE: u8 = 1;

/// One canonical Dijkstra search's state (see [`canonical`]).
struct Canonical<'a, const RULE: u8> {
    free: &'a [bool],
    /// The padded width, the offset of a step down.
    pw: isize,
    dist: &'a mut [u64],
    /// Per padded cell, the directions a jump point waiting in a bucket is to be expanded
    /// in (0 for any other cell, and for a jump point once expanded).
    masks: &'a mut [u8],
    /// Per padded cell, the directions of the scans and walks that passed it at its present
    /// distance.
    via: &'a mut [u8],
    /// Per whole length, the jump points waiting with a distance of that length (their
    /// padded indices).
    buckets: &'a mut Vec<Vec<u32>>,
}

impl<const RULE: u8> Canonical<'_, RULE> {
    #[inline(always)]
    fn free(&self, i: usize) -> bool {
        // SAFETY: every index asked about is a free cell's or one of its eight neighbours',
        // and the blocked one-cell border keeps those inside the padded table.
        unsafe { *self.free.get_unchecked(i) }
    }

    /// Whether the rule allows the diagonal step from the free cell `i` by `(dx, dy)`.
    #[inline(always)]
    fn diagonal_ok(&self, i: usize, dx: isize, dy: isize) -> bool {
        let (a, b) = (
            self.free(i.wrapping_add_signed(dx)),
            self.free(i.wrapping_add_signed(dy * self.pw)),
        );
        // `&` and `|`, not `&&` and `||`: all three cells are read anyway on most steps, and
        // on scattered blocks a branch per cell mispredicts often.
        self.free(i.wrapping_add_signed(dx + dy * self.pw))
            & match RULE {
                NO_CUT => a & b,
                _ => a | b,
            }
    }

    /// Offers distance `k` to the free cell `j` from a scan or walk in the direction of mask
    /// bit `d`: false when `j` already has a shorter distance (then no route through `j` at
    /// `k` is a shortest one) or has this one from a scan in the same direction (which went
    /// on from `j` as this one would), and the scan stops; else true, `j` lowered to `k`
    /// when `k` is shorter (and any wait as a jump point at its old distance dropped).
    #[inline(always)]
    fn lower(&mut self, j: usize, k: u64, d: u8) -> bool {
        // SAFETY: `j` is a free cell, inside the padded tables (as long as `free`: asserted in
        // `canonical`).
        let (old, via) = unsafe {
            (
                self.dist.get_unchecked_mut(j),
                self.via.get_unchecked_mut(j),
            )
        };
        if *old < k || (*old == k && *via & d != 0) {
            return false;
        }
        if k < *old {
            *old = k;
            *via = d;
            // SAFETY: as above.
            unsafe { *self.masks.get_unchecked_mut(j) = 0 };
        } else {
            *via |= d;
        }
        true
    }

    /// Makes the free cell `j`, at its distance `k`, a jump point to be expanded in the
    /// directions `m` too.
    #[inline]
    fn jump(&mut self, j: usize, k: u64, m: u8) {
        let whole = (k >> KEY_SHIFT) as usize;
        // A jump point no shorter than the counts allow is not expanded: `canonical`'s caller
        // refuses the map for the cell itself.
        if whole >= LONGEST {
            return;
        }
        if self.masks[j] == 0 {
            if whole >= self.buckets.len() {
                self.buckets.resize_with(whole + 1, Vec::new);
            }
            self.buckets[whole].push(j as u32);
        }
        self.masks[j] |= m;
    }

    /// The straight scan from the free cell `i` (at distance `k`) by `(dx, dy)`: each cell
    /// passed gets its distance, a cell with a forced neighbour becomes a jump point, and the
    /// scan goes on past it to a blocked cell or a cell already nearer.
    #[inline(always)]
    fn straight<const DX: isize, const DY: isize>(&mut self, i: usize, mut k: u64) {
        let (dx, dy) = (DX, DY);
        let step = dx + dy * self.pw;
        // The two sides: `(sx, sy)` across the scan, both ways.
        let (sx, sy) = (dy, dx);
        let side = sx + sy * self.pw;
        let mut j = i;
        loop {
            let n = j.wrapping_add_signed(step);
            if !self.free(n) {
                return;
            }
            k += 1 << KEY_SHIFT;
            if !self.lower(n, k, bit(dx, dy)) {
                return;
            }
            let mut m = 0u8;
            for s in [1isize, -1] {
                if RULE == NO_CUT {
                    // A free side cell whose predecessor is blocked: reached only through
                    // `n`, as is the diagonal past it.
                    // Without branches (the sides of a scan over scattered blocks are
                    // unpredictable): all ones when forced.
                    let forced = self.free(n.wrapping_add_signed(s * side))
                        & !self.free(j.wrapping_add_signed(s * side));
                    m |= (forced as u8).wrapping_neg()
                        & (bit(s * sx, s * sy) | bit(dx + s * sx, dy + s * sy));
                } else {
                    // A blocked side cell with the diagonal past it allowed.
                    let forced = !self.free(n.wrapping_add_signed(s * side))
                        & self.diagonal_ok(n, dx + s * sx, dy + s * sy);
                    m |= (forced as u8).wrapping_neg() & bit(dx + s * sx, dy + s * sy);
                }
            }
            if m != 0 {
                self.jump(n, k, m);
            }
            j = n;
        }
    }

    /// The diagonal walk from the free cell `i` (at distance `k`) by `(dx, dy)`: each cell
    /// passed gets its distance and sends the straight scans along the diagonal's two axes;
    /// under the corner-cutting rules a cell with a forced diagonal neighbour becomes a jump
    /// point. It stops where the rule forbids the next step or at a cell already nearer.
    #[inline(always)]
    fn diagonal<const DX: isize, const DY: isize>(&mut self, i: usize, mut k: u64) {
        let (dx, dy) = (DX, DY);
        let step = dx + dy * self.pw;
        let mut j = i;
        while self.diagonal_ok(j, dx, dy) {
            let n = j.wrapping_add_signed(step);
            k += SQRT2_KEY;
            if !self.lower(n, k, bit(dx, dy)) {
                return;
            }
            if RULE != NO_CUT {
                let mut m = 0u8;
                if !self.free(n.wrapping_add_signed(-dx)) && self.diagonal_ok(n, -dx, dy) {
                    m |= bit(-dx, dy);
                }
                if !self.free(n.wrapping_add_signed(-dy * self.pw)) && self.diagonal_ok(n, dx, -dy)
                {
                    m |= bit(dx, -dy);
                }
                if m != 0 {
                    self.jump(n, k, m);
                }
            }
            self.straight::<DX, 0>(n, k);
            self.straight::<0, DY>(n, k);
            j = n;
        }
    }

    /// Expands the jump point `i` in the directions of its mask.
    fn expand(&mut self, i: usize) {
        let (k, m) = (self.dist[i], std::mem::take(&mut self.masks[i]));
        // One copy of each scan per direction, so its offsets and mask bits are constants.
        if m & bit(0, -1) != 0 {
            self.straight::<0, -1>(i, k);
        }
        if m & bit(1, 0) != 0 {
            self.straight::<1, 0>(i, k);
        }
        if m & bit(0, 1) != 0 {
            self.straight::<0, 1>(i, k);
        }
        if m & bit(-1, 0) != 0 {
            self.straight::<-1, 0>(i, k);
        }
        if m & bit(1, -1) != 0 {
            self.diagonal::<1, -1>(i, k);
        }
        if m & bit(1, 1) != 0 {
            self.diagonal::<1, 1>(i, k);
        }
        if m & bit(-1, 1) != 0 {
            self.diagonal::<-1, 1>(i, k);
        }
        if m & bit(-1, -1) != 0 {
            self.diagonal::<-1, -1>(i, k);
        }
    }
}

/// The map's free cells as one byte each, with a blocked border one cell wide, so the
/// Dijkstra searches ([`dijkstra`]) reach a cell's neighbours by fixed offsets without
/// checking the map's edges. Built once per [`Landmarks::build_for`].
struct Padded {
    width: usize,
    height: usize,
    free: Vec<bool>,
}

impl Padded {
    fn new(width: i32, height: i32, bits: &Bits) -> Self {
        let (w, h) = (width as usize, height as usize);
        let mut free = vec![false; (w + 2) * (h + 2)];
        for y in 0..height {
            for x in 0..width {
                free[(y as usize + 1) * (w + 2) + x as usize + 1] = bits.free(x, y);
            }
        }
        Padded {
            width: w,
            height: h,
            free,
        }
    }

    /// Sets `dist` as the searches take it: [`UNREACHED_KEY`] for every free cell,
    /// [`BLOCKED_KEY`] for every blocked one (the border included).
    fn clean(&self, dist: &mut [u64]) {
        for (d, &f) in dist.iter_mut().zip(&self.free) {
            *d = if f { UNREACHED_KEY } else { BLOCKED_KEY };
        }
    }

    /// The padded index of map cell `(x, y)`.
    fn index(&self, x: i32, y: i32) -> usize {
        (y as usize + 1) * (self.width + 2) + x as usize + 1
    }
}

/// The landmark bounds one query reads: the [`ACTIVE`] landmarks whose bound is largest at
/// its start (the rest are not looked at: each bound read is a load from a table of a
/// megabyte, and the landmarks behind the goal, seen from the start, are the ones that bound
/// well along the way; Goldberg & Harrelson's "active landmarks"). Each is consistent, so
/// their largest is, with the octile distance.
#[derive(Clone, Copy, Debug)]
pub struct Active<'a> {
    width: i32,
    /// Per active landmark: its distance to every cell, and to the goal.
    columns: [(&'a [u32], u32); ACTIVE],
}

/// How many landmarks a query reads ([`Active`]).
pub const ACTIVE: usize = 2;

impl Active<'_> {
    /// The largest active bound on the distance from `(x, y)` to the goal, in tile lengths.
    #[inline]
    pub fn estimate(&self, x: i32, y: i32) -> f64 {
        let i = (y * self.width + x) as usize;
        let mut best = 0.0f64;
        for &(column, goal) in &self.columns {
            best = best.max(bound(column[i], goal));
        }
        best
    }
}

/// `|d(L, a) - d(L, b)|` from two packed distances; 0 when either is unreached.
#[inline]
fn bound(a: u32, b: u32) -> f64 {
    if a == UNREACHED || b == UNREACHED {
        return 0.0;
    }
    let straight = (a & 0xFFFF) as i32 - (b & 0xFFFF) as i32;
    let diagonal = (a >> 16) as i32 - (b >> 16) as i32;
    (straight as f64 + diagonal as f64 * std::f64::consts::SQRT_2).abs()
}

/// A fixed xorshift generator (Marsaglia's 13/7/17 triple): the same numbers on every
/// machine, for the gain's sample pairs and the navigation tests' random maps. Not for
/// anything a scene's seed drives (that is the simulation's own generator).
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

impl Landmarks {
    /// The landmarks of a map whose free cells are `bits`: the first the free cell farthest
    /// from a seed cell (the first free cell, row-major, unless that lies in a pocket: see
    /// below), each next the one farthest from those chosen (ties to the first in row-major
    /// order). `None` for a map with no free cell, with a route too long for 16-bit move
    /// counts (found by the searches themselves, not only by the map's size), or (with
    /// a positive `min_detour`) whose walls bend its routes less than that (the first
    /// search's [`detour_share`]): the other searches are then not paid for.
    pub fn build(width: i32, height: i32, bits: &Bits, min_detour: f64) -> Option<Self> {
        Self::build_for(width, height, bits, min_detour, Diagonal::NoCornerCutting)
    }

    /// [`Landmarks::build`] with the distances of another diagonal `rule`: a bound for that
    /// rule's searches only (a rule that cuts corners has shorter routes than one that does
    /// not, so the default rule's distances bound none of its own).
    pub fn build_for(
        width: i32,
        height: i32,
        bits: &Bits,
        min_detour: f64,
        rule: Diagonal,
    ) -> Option<Self> {
        if width <= 0 || height <= 0 || (width as i64 + height as i64) * 2 >= u16::MAX as i64 {
            return None;
        }
        let w = width as usize;
        let n = w * height as usize;
        let cell = |i: usize| ((i % w) as i32, (i / w) as i32);
        let free = |i: usize| bits.free((i % w) as i32, (i / w) as i32);
        let first = (0..n).find(|&i| free(i))?;
        let free_cells = (0..n).filter(|&i| free(i)).count();
        let padded = Padded::new(width, height, bits);
        // One search's keys in the padded layout, reused by every search.
        let mut scratch = Scratch::new(&padded);
        // `near`: per cell, the [`key`] of its distance to the nearest landmark chosen so far
        // (or the seed), `UNREACHED_KEY` where none reaches. A search appends its distances
        // to `out`, lowers `near`, cleans its table for the next search and notes each row's
        // largest `near`, in one pass over the map; then it returns the reachable cell
        // farthest from all of them (ties to the first in row-major order), found in the
        // first row with the largest.
        let mut near = vec![UNREACHED_KEY; n];
        let mut search = |at: usize, out: &mut Vec<u32>, near: &mut [u64]| -> Option<usize> {
            distances(&padded, cell(at), rule, &mut scratch)?;
            let pw = w + 2;
            // The longest route and, per row, the largest distance to the nearest landmark,
            // each plus 1 (unreached cells wrap to 0); the first row with the largest.
            let (mut longest, mut farthest) = (0u64, (0usize, 0u64));
            out.reserve(n);
            // Written row by row below, every one of the `n` cells (`set_len` after).
            let spare = &mut out.spare_capacity_mut()[..n];
            for row in 0..height as usize {
                let keys = &mut scratch.dist[(row + 1) * pw + 1..(row + 1) * pw + 1 + w];
                let near = &mut near[row * w..(row + 1) * w];
                let row_out = &mut spare[row * w..(row + 1) * w];
                let mut far = 0u64;
                // One pass: each key read out and the table left clean for the next search
                // (`Padded::clean`; the searches write interior cells only).
                for ((k, nearest), o) in keys.iter_mut().zip(near.iter_mut()).zip(row_out) {
                    let (key, blocked) = (*k, *k == BLOCKED_KEY);
                    *k = if blocked { BLOCKED_KEY } else { UNREACHED_KEY };
                    let key = if blocked { UNREACHED_KEY } else { key };
                    longest = longest.max(key.wrapping_add(1));
                    let d = (*nearest).min(key);
                    *nearest = d;
                    far = far.max(d.wrapping_add(1));
                    o.write(unkey(key));
                }
                if far > farthest.1 {
                    farthest = (row, far);
                }
            }
            // SAFETY: the `n` entries past the old length are in the capacity reserved above,
            // and the loop wrote each (`height` rows of `w`: keys, `near`, `out` zipped).
            unsafe { out.set_len(out.len() + n) };
            if longest != 0 && (longest.wrapping_sub(1) >> KEY_SHIFT) as usize >= LONGEST {
                return None;
            }
            // The first cell of that row at the largest distance (cell 0 when none is
            // reached, which a search from a free cell never leaves).
            let (row, far) = farthest;
            if far == 0 {
                return Some(0);
            }
            let x = near[row * w..(row + 1) * w]
                .iter()
                .position(|&d| d.wrapping_add(1) == far)?;
            Some(row * w + x)
        };
        // The seed: the first free cell, or when that lies in a pocket (it reaches less than
        // half the free cells; on ours-random512-40 the first free cell reached a few dozen,
        // and the landmarks covered only those), the first free cell it does not reach after
        // each eighth of the map in turn, so the landmarks cover the main part.
        let mut seed_at = first;
        let mut seed = Vec::with_capacity(n);
        let mut at = search(first, &mut seed, &mut near)?;
        for eighth in 1..8 {
            let reached = seed.iter().filter(|&&d| d != UNREACHED).count();
            if reached * 2 >= free_cells {
                break;
            }
            let Some(next) = (eighth * n / 8..n).find(|&i| free(i) && seed[i] == UNREACHED) else {
                break;
            };
            seed_at = next;
            seed.clear();
            near.fill(UNREACHED_KEY);
            at = search(next, &mut seed, &mut near)?;
        }
        let first = seed_at;
        if min_detour > 0.0 && detour_share(w, &seed, cell(first)) < min_detour {
            return None;
        }
        let mut cells = Vec::with_capacity(COUNT);
        let mut dist = Vec::with_capacity(COUNT * n);
        for _ in 0..COUNT {
            cells.push(cell(at));
            at = search(at, &mut dist, &mut near)?;
        }
        let mut landmarks = Landmarks {
            width,
            dist,
            cells_count: n,
            cells,
            gain: 0.0,
        };
        landmarks.gain = landmarks.sample_gain(height);
        Some(landmarks)
    }

    /// How many landmarks the map got ([`COUNT`]).
    pub fn count(&self) -> usize {
        self.cells.len()
    }

    /// [`Landmarks::gain`]: pairs of distinct cells that some landmark reaches, drawn by
    /// [`xorshift`] from a fixed seed.
    fn sample_gain(&self, height: i32) -> f64 {
        let n = (self.width * height) as u64;
        let w = self.width as usize;
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let reached = |i: usize| self.of_index(i).iter().any(|&d| d != UNREACHED);
        let (mut gains, mut count) = (0usize, 0usize);
        // Bounded tries, so a map of few free cells cannot loop for long.
        for _ in 0..SAMPLES * 64 {
            if count == SAMPLES {
                break;
            }
            let (a, b) = ((next() % n) as usize, (next() % n) as usize);
            if a == b || !reached(a) || !reached(b) {
                continue;
            }
            let (ax, ay, bx, by) = (a % w, a / w, b % w, b / w);
            let (dx, dy) = (ax.abs_diff(bx) as f64, ay.abs_diff(by) as f64);
            let octile = dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy);
            let bound = self.estimate(ax as i32, ay as i32, &self.of_index(b));
            gains += (bound > (1.0 + QUERY_GAIN) * octile) as usize;
            count += 1;
        }
        gains as f64 / count.max(1) as f64
    }

    /// Whether the default search should use these landmarks on this map at all: only where
    /// the sampled gain ([`Landmarks::gain`]) reaches [`MIN_GAIN`]. On open maps and maps of
    /// scattered blocks the octile distance is already close to the truth for most pairs, and
    /// the bound's lookups (out of cache on a large map) could cost more than the
    /// jump points they save; on mazes and rooms the bound wins.
    pub fn worth_it(&self) -> bool {
        self.gain >= MIN_GAIN
    }

    /// The memory the distances take, in bytes.
    pub fn bytes(&self) -> usize {
        self.dist.len() * std::mem::size_of::<u32>()
    }

    /// Every landmark's distance to cell `i`.
    #[inline]
    fn of_index(&self, i: usize) -> [u32; COUNT] {
        std::array::from_fn(|k| self.dist[k * self.cells_count + i])
    }

    /// The distances of the goal cell, for [`Landmarks::estimate`].
    #[inline]
    pub fn of(&self, x: i32, y: i32) -> [u32; COUNT] {
        self.of_index((y * self.width + x) as usize)
    }

    /// The largest landmark bound on the distance from `(x, y)` to the cell whose distances
    /// are `goal`, in tile lengths (0 when no landmark reaches both).
    #[inline]
    pub fn estimate(&self, x: i32, y: i32, goal: &[u32; COUNT]) -> f64 {
        let here = self.of(x, y);
        let mut best = 0.0f64;
        for (&a, &b) in here.iter().zip(goal) {
            best = best.max(bound(a, b));
        }
        best
    }

    /// The [`ACTIVE`] landmarks whose bound from `from` to `goal` is largest (ties to the
    /// first), for a query between them; with that bound, in tile lengths.
    pub fn active(&self, from: (i32, i32), goal: (i32, i32)) -> (Active<'_>, f64) {
        let (here, there) = (self.of(from.0, from.1), self.of(goal.0, goal.1));
        let mut order: [usize; COUNT] = std::array::from_fn(|k| k);
        let bounds: [f64; COUNT] = std::array::from_fn(|k| bound(here[k], there[k]));
        // Stable: equal bounds keep the landmarks' order.
        order.sort_by(|&a, &b| bounds[b].total_cmp(&bounds[a]));
        let n = self.cells_count;
        let columns = std::array::from_fn(|a| {
            let k = order[a];
            (&self.dist[k * n..(k + 1) * n], there[k])
        });
        (
            Active {
                width: self.width,
                columns,
            },
            bounds[order[0]],
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::nav::{path_cost, Algorithm, NavGrid, PathOptions, Search};
    use crate::world::World;
    use glam::IVec2;

    /// A distance's key orders distances as their lengths do, its whole part is the length's,
    /// and the packed distance reads back from it: over every count up to 600 (a 512 x 512
    /// map's routes, beyond the race's) and at the counts' top.
    #[test]
    fn keys_order_lengths_exactly_and_read_back() {
        let length = |d: u32| (d & 0xFFFF) as f64 + (d >> 16) as f64 * std::f64::consts::SQRT_2;
        let mut all = Vec::new();
        for a in (0u32..600).chain(0xFF00..0xFFFE) {
            for b in (0u32..600).chain(0xFF00..0xFFFE) {
                let d = a | b << 16;
                let k = super::key(d);
                assert_eq!(super::unkey(k), d, "{a} {b}");
                assert_eq!(k >> super::KEY_SHIFT, length(d).floor() as u64, "{a} {b}");
                if a < 600 && b < 600 {
                    all.push((k, d));
                }
            }
        }
        assert!(super::key(0xFFFD | 0xFFFD << 16) < super::UNREACHED_KEY);
        assert_eq!(super::unkey(super::UNREACHED_KEY), super::UNREACHED);
        // Sorted by key, the lengths never fall, and equal only for the same counts.
        all.sort_unstable();
        for pair in all.windows(2) {
            let ((_, d), (_, e)) = (pair[0], pair[1]);
            assert!(length(d) < length(e), "{d:#x} {e:#x}");
        }
    }

    /// A `w` x `h` map of `kind`: "random" (each cell blocked with `share`% chance),
    /// "rooms" (rooms of 7 x 7 cells behind walls, each wall with a door of one or two cells
    /// at a random place, or none, so some rooms are shut; `share`% clutter inside) or "maze"
    /// (a perfect maze of corridors one cell wide grown by random depth-first search, every
    /// `share`-th wall knocked through, and a block of rows left unconnected). Drawn by
    /// [`super::xorshift`] from `seed`.
    fn map(kind: &str, w: usize, h: usize, share: u64, seed: u64) -> Vec<String> {
        let mut next = super::xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut cells = vec![false; w * h];
        match kind {
            "random" => cells.iter_mut().for_each(|c| *c = next() % 100 < share),
            "rooms" => {
                for y in 0..h {
                    for x in 0..w {
                        cells[y * w + x] = x % 8 == 7 || y % 8 == 7 || next() % 100 < share;
                    }
                }
                for y in (7..h).step_by(8) {
                    for x in (7..w).step_by(8) {
                        // A door in the wall left of this corner and one above it.
                        for vertical in [false, true] {
                            let (at, width) = (next() % 7, 1 + next() % 3);
                            for k in 0..width.min(2) {
                                if width == 3 {
                                    continue; // shut
                                }
                                let (dx, dy) = if vertical {
                                    (x, (y - 7 + at as usize + k as usize).min(h - 1))
                                } else {
                                    ((x - 7 + at as usize + k as usize).min(w - 1), y)
                                };
                                cells[dy * w + dx] = false;
                            }
                        }
                    }
                }
            }
            _ => {
                cells.iter_mut().for_each(|c| *c = true);
                let (cw, ch) = ((w - 1) / 2, (h - 1) / 2);
                let mut seen = vec![false; cw * ch];
                let mut stack = vec![(0usize, 0usize)];
                seen[0] = true;
                cells[w + 1] = false;
                while let Some(&(cx, cy)) = stack.last() {
                    let options: Vec<(usize, usize)> = [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)]
                        .iter()
                        .map(|&(dx, dy)| (cx as i64 + dx, cy as i64 + dy))
                        .filter(|&(x, y)| x >= 0 && y >= 0 && x < cw as i64 && y < ch as i64)
                        .map(|(x, y)| (x as usize, y as usize))
                        .filter(|&(x, y)| !seen[y * cw + x])
                        .collect();
                    if options.is_empty() {
                        stack.pop();
                        continue;
                    }
                    let (nx, ny) = options[next() as usize % options.len()];
                    seen[ny * cw + nx] = true;
                    cells[(2 * ny + 1) * w + 2 * nx + 1] = false;
                    cells[(cy + ny + 1) * w + cx + nx + 1] = false;
                    stack.push((nx, ny));
                }
                for (i, c) in cells.iter_mut().enumerate() {
                    if *c && (i % w) > 0 && (i / w) > 0 && next().is_multiple_of(share.max(1)) {
                        *c = false;
                    }
                }
                // Rows cut off by a full wall: a region none of the rest reaches.
                for x in 0..w {
                    cells[(h - 5) * w + x] = true;
                }
            }
        }
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| if cells[y * w + x] { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    /// The canonical search ([`super::distances`]) gives every padded cell exactly the
    /// distance key of plain Dijkstra ([`super::dijkstra`], the oracle), under the two
    /// diagonal rules it serves, from free and blocked start cells, on random maps of 5 to
    /// 45% blocked cells, rooms with shut doors and mazes with a cut-off region (unreachable
    /// cells stay unreached in both).
    #[test]
    fn canonical_dijkstra_is_dijkstra() {
        use super::{dijkstra, distances, Padded, Scratch, BLOCKED_KEY, UNREACHED_KEY};
        use crate::nav::Diagonal;
        let mut checked = [0usize; 2];
        let mut maps = Vec::new();
        for seed in 0..4u64 {
            for share in [5, 15, 25, 35, 45] {
                maps.push(("random", 53 + seed as usize, 41, share, seed));
            }
            maps.push(("rooms", 66, 49 + seed as usize, 5 + 5 * seed, seed));
            maps.push(("maze", 61, 45, 4 + seed * 6, seed));
        }
        for (kind, w, h, share, seed) in maps {
            let rows = map(kind, w, h, share, seed);
            let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
            let world = World::from_ascii(&refs);
            let grid = NavGrid::from_world(&world);
            let padded = Padded::new(w as i32, h as i32, grid.bits().unwrap());
            let mut scratch = Scratch::new(&padded);
            let mut oracle = vec![0u64; padded.free.len()];
            let mut next = super::xorshift(seed + 77);
            for (r, rule) in [Diagonal::NoCornerCutting, Diagonal::IfOneSideFree]
                .into_iter()
                .enumerate()
            {
                for _ in 0..12 {
                    let at = ((next() % w as u64) as i32, (next() % h as u64) as i32);
                    // Both start from unreached tables, as `Landmarks::build_for` leaves its
                    // scratch table after each search.
                    padded.clean(&mut oracle);
                    padded.clean(&mut scratch.dist);
                    let expected = dijkstra(&padded, at, rule, &mut oracle);
                    let got = distances(&padded, at, rule, &mut scratch);
                    // Every jump point queued was expanded or dropped: the next search needs
                    // no clearing of the masks.
                    assert!(scratch.masks.iter().all(|&m| m == 0), "{kind} {at:?}");
                    assert_eq!(got, expected, "{kind} {share} {seed} {rule:?} {at:?}");
                    if let Some(i) = (0..oracle.len()).find(|&i| oracle[i] != scratch.dist[i]) {
                        let pw = w + 2;
                        panic!(
                            "{kind} {share} {seed} {rule:?} from {at:?}: cell ({}, {}) \
                             {:#x} against Dijkstra's {:#x}",
                            i % pw - 1,
                            i / pw - 1,
                            scratch.dist[i],
                            oracle[i]
                        );
                    }
                    let reached = oracle
                        .iter()
                        .filter(|&&k| k != UNREACHED_KEY && k != BLOCKED_KEY)
                        .count();
                    let free = padded.free.iter().filter(|&&f| f).count();
                    // Starts on blocked cells and in pockets are among those checked.
                    checked[r] += (reached > 1 && reached < free) as usize;
                }
            }
        }
        // Some starts reached part of the free cells only (shut rooms, the maze's cut-off
        // rows, pockets of the denser random maps), under every rule.
        assert!(checked.iter().all(|&c| c > 10), "{checked:?}");
    }

    /// A serpentine `w` x `h`: corridor rows joined at alternate ends, one way through.
    fn serpentine(w: usize, h: usize) -> Vec<String> {
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| match (y % 4, x) {
                        (1, x) if x + 1 < w => '#',
                        (3, x) if x > 0 => '#',
                        _ => '.',
                    })
                    .collect()
            })
            .collect()
    }

    /// Every large uniform map gets landmarks. Where walls force detours (a serpentine: every
    /// way round a wall is a long one) their bound sees them; on an open map it never beats
    /// the octile distance. A caller asking for a least detour share still has the open map
    /// refused after the first search.
    #[test]
    fn landmarks_see_the_detours_walls_force() {
        let (w, h) = (40usize, 40usize);
        let serpentine = serpentine(w, h);
        let open: Vec<String> = (0..h).map(|_| ".".repeat(w)).collect();
        for (rows, bent) in [(serpentine, true), (open, false)] {
            let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
            let world = World::from_ascii(&refs);
            let mut grid = NavGrid::from_world(&world);
            assert_eq!(grid.build_landmarks_from(0.5), bent);
            assert!(grid.build_landmarks());
            let l = grid.landmarks().unwrap();
            assert!(l.worth_it());
            assert_eq!(l.gain > 0.2, bent, "gain {}", l.gain);
            if !bent {
                assert_eq!(l.gain, 0.0);
            }
            // Every query stays optimal either way.
            let (s, g) = (IVec2::new(0, 0), IVec2::new(w as i32 - 1, h as i32 - 1));
            let auto = Search::new().find_on(&grid, s, g, &PathOptions::default());
            let astar = PathOptions {
                algorithm: Algorithm::AStar,
                ..Default::default()
            };
            let plain = Search::new().find_on(&grid, s, g, &astar);
            assert!((auto.cost - plain.cost).abs() < 1e-9);
        }
    }

    /// On cluttered maps (several seeds), jump point search with the landmark bound returns
    /// paths exactly as cheap as plain A*'s, and the bound never exceeds the true distance.
    #[test]
    fn the_landmark_bound_keeps_paths_optimal() {
        for seed in 1u64..=6 {
            let mut next = super::xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let (w, h) = (60usize, 45usize);
            let rows: Vec<String> = (0..h)
                .map(|_| {
                    (0..w)
                        .map(|_| if next() % 100 < 25 { '#' } else { '.' })
                        .collect()
                })
                .collect();
            let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
            let world = World::from_ascii(&refs);
            let mut grid = NavGrid::from_world(&world);
            // Built whatever the map's detours, to test the bound itself.
            assert!(grid.build_landmarks_from(0.0));
            let astar = PathOptions {
                algorithm: Algorithm::AStar,
                ..Default::default()
            };
            let (mut a, mut b) = (Search::new(), Search::new());
            let free: Vec<IVec2> = (0..w * h)
                .map(|i| IVec2::new((i % w) as i32, (i / w) as i32))
                .filter(|&c| !world.is_blocked(c))
                .collect();
            let l = grid.landmarks().unwrap();
            for _ in 0..200 {
                let s = free[next() as usize % free.len()];
                let g = free[next() as usize % free.len()];
                let auto = a.find_on(&grid, s, g, &PathOptions::default());
                let plain = b.find_on(&grid, s, g, &astar);
                assert_eq!(auto.path.is_some(), plain.path.is_some(), "{seed} {s} {g}");
                if let Some(path) = &auto.path {
                    assert!(
                        (path_cost(&world, path) - plain.cost).abs() < 1e-9,
                        "{seed} {s} {g}"
                    );
                    assert!(l.estimate(s.x, s.y, &l.of(g.x, g.y)) <= plain.cost + 1e-9);
                }
            }
        }
    }

    /// A winding corridor longer than 16-bit move counts hold (a 512-wide serpentine of 260
    /// rows: about 133,000 straight moves end to end): the map gets no landmarks rather than a
    /// bound built on counts that wrapped. The search from a landmark gave the cell 65,536
    /// moves away a distance of one diagonal move, so that cell's bound to its neighbour, one
    /// move away, was about 65,534: inadmissible, and so a path through it need not be the
    /// cheapest.
    #[test]
    fn a_corridor_too_long_for_the_counts_gets_no_landmarks() {
        let (w, h) = (512usize, 520usize);
        let rows = serpentine(w, h);
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let world = World::from_ascii(&refs);
        let mut grid = NavGrid::from_world(&world);
        let built = grid.build_landmarks_from(0.0);
        // Whatever was built, no bound may exceed the true distance: two free cells side by
        // side are one move apart (the corridor has one way through).
        if let Some(l) = grid.landmarks() {
            for y in 0..h as i32 {
                for x in 0..w as i32 {
                    let a = IVec2::new(x, y);
                    for b in [IVec2::new(x + 1, y), IVec2::new(x, y + 1)] {
                        if world.is_blocked(a) || b.x >= w as i32 || b.y >= h as i32 {
                            continue;
                        }
                        if world.is_blocked(b) {
                            continue;
                        }
                        let bound = l.estimate(a.x, a.y, &l.of(b.x, b.y));
                        assert!(bound <= 1.0 + 1e-9, "{a} {b}: bound {bound}, distance 1");
                    }
                }
            }
        }
        assert!(!built, "landmarks built on counts that wrap");
    }
}
