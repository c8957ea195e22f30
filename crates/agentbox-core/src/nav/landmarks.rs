//! Differential heuristics (landmarks; Goldberg & Harrelson 2005 "ALT", Sturtevant et al. 2009
//! "Memory-based heuristics for explicit state spaces"): the exact grid distance from a few
//! far-apart landmark cells to every cell, so that for any two cells `|d(L, n) - d(L, g)|` is a
//! lower bound on their distance (the triangle inequality). The default search takes the
//! largest of these bounds and the octile distance as its heuristic: still admissible and
//! consistent, so paths stay optimal, and closer to the truth where walls force detours.
//!
//! Distances are kept exactly, as a count of straight and of diagonal moves (`a + b sqrt 2`),
//! 16 bits each. Built once per map content with the grid (never per query); reads only the
//! grid's free-cell bits; names no engine crate.

use super::grid::Bits;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How many landmarks a map gets. Four: 16 bytes a cell, so a query's lookups miss the cache
/// less than with eight (on random512-10-0 eight halved the jump points expanded but made the
/// median query slower; see `docs/benchmarks.md`).
pub const COUNT: usize = 4;

/// Maps at least this large get landmarks in the navigation cache ([`super::cache`]). On
/// smaller maps jump point search answers in microseconds, and their routes (which the shipped
/// scenes' traces record) stay as they were.
pub const MIN_CELLS: usize = 128 * 128;

/// A cell no landmark reaches (another component of the map).
const UNREACHED: u32 = u32::MAX;

/// Landmark distances, per cell: `COUNT` entries of (straight moves, diagonal moves) packed in
/// a `u32` (straight in the low half), [`UNREACHED`] where the landmark cannot reach.
#[derive(Clone, Debug)]
pub struct Landmarks {
    width: i32,
    dist: Vec<[u32; COUNT]>,
    /// The landmarks' cells.
    pub cells: Vec<(i32, i32)>,
    /// On this map, the share of [`SAMPLES`] pairs of reachable cells (drawn with a fixed
    /// generator, so a function of the map alone) whose landmark bound exceeds their octile
    /// distance by more than [`QUERY_GAIN`]. See [`Landmarks::worth_it`].
    pub gain: f64,
}

/// How many cell pairs [`Landmarks::build`] samples for [`Landmarks::gain`].
pub const SAMPLES: usize = 512;

/// A query uses the landmarks only when, from its start, their bound exceeds the octile
/// distance by more than this share (`search.rs`); a sampled pair counts towards
/// [`Landmarks::gain`] by the same rule.
pub const QUERY_GAIN: f64 = 0.05;

/// The least [`Landmarks::gain`] for which the default search uses the landmarks on a map.
/// Measured (`docs/benchmarks.md`): maze512-1-0 0.97, 8room_000 0.64 and arena2 0.51 (where
/// they pay or break even), Berlin_0_512 0.30 and random512-10-0 0.01 (where they lose).
pub const MIN_GAIN: f64 = 0.4;

/// The least share of cells whose distance from the seed cell exceeds their octile distance
/// by more than [`QUERY_GAIN`] for a map to get landmarks at all (`detour_share`): decided
/// from the first search of [`Landmarks::build`], before the four that cost the most.
/// Measured from the first free cell (`docs/benchmarks.md`): random512-10-0 0.044 and
/// Berlin_0_512 0.360 (whose landmarks were built and then not used) against arena2 0.925,
/// 8room_000 0.999 and maze512-1-0 1.000 (where they are used).
pub const MIN_DETOUR: f64 = 0.5;

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

/// Exact distances from `(x, y)` to every cell (8-connected, no corner cutting), packed.
fn dijkstra(width: i32, height: i32, bits: &Bits, (x, y): (i32, i32)) -> Vec<u32> {
    let (w, n) = (width as usize, (width * height) as usize);
    let mut dist = vec![UNREACHED; n];
    let mut heap = BinaryHeap::new();
    let key = |d: u32| Reverse(length(d).to_bits());
    let start = y as usize * w + x as usize;
    dist[start] = 0;
    heap.push((key(0), start as u32));
    while let Some((Reverse(bits_of), i)) = heap.pop() {
        let i = i as usize;
        let d = dist[i];
        if length(d).to_bits() != bits_of {
            continue;
        }
        let (cx, cy) = ((i % w) as i32, (i / w) as i32);
        for (dx, dy) in [
            (0, -1),
            (1, 0),
            (0, 1),
            (-1, 0),
            (-1, -1),
            (1, -1),
            (1, 1),
            (-1, 1),
        ] {
            let (nx, ny) = (cx + dx, cy + dy);
            if !bits.free(nx, ny) || (nx as u32) >= width as u32 || (ny as u32) >= height as u32 {
                continue;
            }
            let step = if dx != 0 && dy != 0 {
                if !(bits.free(nx, cy) && bits.free(cx, ny)) {
                    continue;
                }
                1 << 16
            } else {
                1
            };
            let nd = d + step;
            let j = ny as usize * w + nx as usize;
            if dist[j] == UNREACHED || length(nd) < length(dist[j]) {
                dist[j] = nd;
                heap.push((key(nd), j as u32));
            }
        }
    }
    dist
}

impl Landmarks {
    /// The landmarks of a map whose free cells are `bits`: the first the free cell farthest
    /// from the first free cell (row-major), each next the one farthest from those chosen
    /// (ties to the first in row-major order). `None` for a map with no free cell, too large
    /// for 16-bit move counts, or whose walls hardly bend its routes (the first search's
    /// [`detour_share`] under `min_detour`, [`MIN_DETOUR`] in the cache: random scattered blocks, open city maps), where
    /// the bound would not be used: the other four searches are then not paid for.
    pub fn build(width: i32, height: i32, bits: &Bits, min_detour: f64) -> Option<Self> {
        if width <= 0 || height <= 0 || (width as i64 + height as i64) * 2 >= u16::MAX as i64 {
            return None;
        }
        let w = width as usize;
        let n = w * height as usize;
        let first = (0..n).find(|&i| bits.free((i % w) as i32, (i / w) as i32))?;
        let cell = |i: usize| ((i % w) as i32, (i / w) as i32);
        // The reachable cell farthest from the landmarks chosen so far (`near`: per cell, its
        // distance to the nearest of them).
        let farthest = |near: &[f64]| {
            let mut best = (0, -1.0);
            for (i, &d) in near.iter().enumerate() {
                if d.is_finite() && d > best.1 {
                    best = (i, d);
                }
            }
            best.0
        };
        let seed = dijkstra(width, height, bits, cell(first));
        if detour_share(w, &seed, cell(first)) < min_detour {
            return None;
        }
        let mut near: Vec<f64> = seed
            .iter()
            .map(|&d| {
                if d == UNREACHED {
                    f64::INFINITY
                } else {
                    length(d)
                }
            })
            .collect();
        let mut cells = Vec::with_capacity(COUNT);
        let mut dist = vec![[UNREACHED; COUNT]; n];
        for k in 0..COUNT {
            let at = farthest(&near);
            cells.push(cell(at));
            let d = dijkstra(width, height, bits, cell(at));
            for ((row, &di), nearest) in dist.iter_mut().zip(&d).zip(near.iter_mut()) {
                row[k] = di;
                if di != UNREACHED {
                    *nearest = nearest.min(length(di));
                }
            }
        }
        let mut landmarks = Landmarks {
            width,
            dist,
            cells,
            gain: 0.0,
        };
        landmarks.gain = landmarks.sample_gain(height);
        Some(landmarks)
    }

    /// [`Landmarks::gain`]: pairs of distinct cells that some landmark reaches, drawn by a
    /// fixed xorshift generator.
    fn sample_gain(&self, height: i32) -> f64 {
        let n = (self.width * height) as u64;
        let w = self.width as usize;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let reached = |i: usize| self.dist[i].iter().any(|&d| d != UNREACHED);
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
            let bound = self.estimate(ax as i32, ay as i32, &self.dist[b]);
            gains += (bound > (1.0 + QUERY_GAIN) * octile) as usize;
            count += 1;
        }
        gains as f64 / count.max(1) as f64
    }

    /// Whether the default search should use these landmarks on this map at all: only where
    /// the sampled gain ([`Landmarks::gain`]) reaches [`MIN_GAIN`]. On open maps and maps of
    /// scattered blocks the octile distance is already close to the truth for most pairs, and
    /// the bound's lookups (16 bytes a cell, out of cache on a large map) cost more than the
    /// jump points they save; on mazes and rooms the bound wins.
    pub fn worth_it(&self) -> bool {
        self.gain >= MIN_GAIN
    }

    /// The memory the distances take, in bytes.
    pub fn bytes(&self) -> usize {
        self.dist.len() * std::mem::size_of::<[u32; COUNT]>()
    }

    /// The distances of the goal cell, for [`Landmarks::estimate`].
    #[inline]
    pub fn of(&self, x: i32, y: i32) -> [u32; COUNT] {
        self.dist[(y * self.width + x) as usize]
    }

    /// The largest landmark bound on the distance from `(x, y)` to the cell whose distances
    /// are `goal`, in tile lengths (0 when no landmark reaches both).
    #[inline]
    pub fn estimate(&self, x: i32, y: i32, goal: &[u32; COUNT]) -> f64 {
        let here = &self.dist[(y * self.width + x) as usize];
        let mut best = 0.0f64;
        for (&a, &b) in here.iter().zip(goal) {
            if a == UNREACHED || b == UNREACHED {
                continue;
            }
            let straight = (a & 0xFFFF) as i32 - (b & 0xFFFF) as i32;
            let diagonal = (a >> 16) as i32 - (b >> 16) as i32;
            let d = straight as f64 + diagonal as f64 * std::f64::consts::SQRT_2;
            best = best.max(d.abs());
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use crate::nav::{path_cost, Algorithm, NavGrid, PathOptions, Search};
    use crate::world::World;
    use glam::IVec2;

    /// The per-map decision: a serpentine of walls (every way round a wall is a long detour)
    /// is worth the landmarks, an open map is not.
    #[test]
    fn landmarks_are_used_where_walls_force_detours() {
        let (w, h) = (40usize, 40usize);
        let serpentine: Vec<String> = (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| match (y % 4, x) {
                        (1, x) if x + 1 < w => '#',
                        (3, x) if x > 0 => '#',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        let open: Vec<String> = (0..h).map(|_| ".".repeat(w)).collect();
        for (rows, worth) in [(serpentine, true), (open, false)] {
            let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
            let world = World::from_ascii(&refs);
            let mut grid = NavGrid::from_world(&world);
            // The open map is refused after the first search, before the other four.
            assert_eq!(grid.build_landmarks(), worth);
            assert!(grid.build_landmarks_from(0.0));
            let l = grid.landmarks().unwrap();
            assert_eq!(l.worth_it(), worth, "gain {}", l.gain);
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
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
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
}
