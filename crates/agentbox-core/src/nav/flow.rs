//! Flow fields: one Dijkstra search outward from a goal tile gives every cell of the map its
//! cost to the goal and the neighbour to step to, so any number of agents walking to the same
//! goal share one search instead of planning a route each (`nav.flow`, `move.flow_to`, the
//! window's flow overlay).
//!
//! A field is a function of the map's content ([`World::map_key`]), the goal tile, the body
//! size and the diagonal rule, and is kept in a per-thread cache keyed by exactly those, never
//! by a counter, beside the grid cache of [`super::cache`] (whose grids it is built on). The
//! cache holds at most [`CACHE_MB`] megabytes of fields (a 512x512 field is 1.25 MB: a cost
//! and a direction per cell); past that the least recently used field is dropped
//! (`lru.rs`). Fields are shared (`Arc`), so a handle a script holds stays valid after
//! eviction.
//!
//! A moving goal (a prey) gets the field of the tile it stands on: while it stays on that tile
//! every asker reuses the field, and the handful of tiles it last stood on stay cached, so
//! running back and forth builds nothing; a step to a new tile builds one field
//! (`benches` / `agentbox bench` measure that cost, `docs/benchmarks.md`).
//!
//! Cost model, as A*'s (`astar.rs`): a step into a cell costs the step's length (1 straight,
//! sqrt 2 diagonal) times that cell's entry cost; a diagonal step obeys the diagonal rule on
//! its two side cells. The search runs backwards from the goal, so `cost(x)` is the cheapest
//! cost of walking from `x` to the goal and `next(x)` is the first step of such a walk; ties
//! go to the neighbour found first in `DIRS` order, so a field is the same on every run.
//!
//! Like the rest of `nav/`, this module only reads the world and never names an engine crate.

use super::cache;
use super::grid::NavGrid;
use super::search::DIRS;
use crate::lru::Lru;
use crate::world::path_options::Diagonal;
use crate::world::{MapKey, Tile, World};
use glam::IVec2;
use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// The most megabytes of fields a thread keeps cached (least recently used dropped first).
pub const CACHE_MB: usize = 64;

/// `dir` of a cell with no step: the goal itself, a blocked cell or one that cannot reach it.
pub const NO_STEP: u8 = u8::MAX;

/// What a field depends on besides the map: the body and the diagonal rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowOptions {
    /// Side of the square body in tiles (0 counts as 1); the field is over its footprint.
    pub size: u32,
    pub diagonal: Diagonal,
}

/// Everything a field is a function of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowKey {
    pub map: MapKey,
    pub goal: Tile,
    pub size: u32,
    pub diagonal: Diagonal,
}

/// A Dijkstra field towards one goal tile.
#[derive(Clone, Debug)]
pub struct FlowField {
    pub key: FlowKey,
    width: i32,
    height: i32,
    /// Per cell (row-major), the cost of the cheapest walk to the goal; infinite where none.
    cost: Vec<f32>,
    /// Per cell, the index in [`DIRS`] of the first step of that walk, or [`NO_STEP`].
    dir: Vec<u8>,
    /// Cells the search closed (every reachable cell): what building the field cost.
    pub settled: usize,
}

impl FlowField {
    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    pub fn goal(&self) -> Tile {
        self.key.goal
    }

    fn index(&self, t: Tile) -> Option<usize> {
        ((t.x as u32) < self.width as u32 && (t.y as u32) < self.height as u32)
            .then(|| (t.y * self.width + t.x) as usize)
    }

    /// The cost of the cheapest walk from `t` to the goal; `None` off the map, on a blocked
    /// cell or where the goal cannot be reached.
    pub fn cost(&self, t: Tile) -> Option<f64> {
        let c = self.cost[self.index(t)?];
        c.is_finite().then_some(c as f64)
    }

    /// The neighbour to step to from `t` towards the goal; `None` on the goal, off the map, on
    /// a blocked cell or where the goal cannot be reached.
    #[inline]
    pub fn next(&self, t: Tile) -> Option<Tile> {
        let d = self.dir[self.index(t)?];
        DIRS.get(d as usize).map(|&(dx, dy)| t + IVec2::new(dx, dy))
    }

    /// The step directions of every cell (indices into `DIRS` or [`NO_STEP`]), row-major.
    pub fn dirs(&self) -> &[u8] {
        &self.dir
    }

    /// Bytes the field holds.
    pub fn bytes(&self) -> usize {
        self.cost.len() * (std::mem::size_of::<f32>() + 1) + std::mem::size_of::<Self>()
    }
}

/// Builds the field of `goal` on `grid` (costs already the body's footprint costs). A goal
/// off the map or on a blocked cell gives a field where every cell has no step.
pub fn build_on(grid: &NavGrid, key: FlowKey) -> FlowField {
    let (w, h) = (grid.width(), grid.height());
    let cells = (w.max(0) * h.max(0)) as usize;
    let mut field = FlowField {
        key,
        width: w,
        height: h,
        cost: vec![f32::INFINITY; cells],
        dir: vec![NO_STEP; cells],
        settled: 0,
    };
    let costs = grid.costs();
    let Some(goal) = grid.index(key.goal).filter(|&g| costs[g].is_finite()) else {
        return field;
    };
    let dirs: &[(i32, i32)] = if key.diagonal == Diagonal::Never {
        &DIRS[..4]
    } else {
        &DIRS
    };
    // Min-heap of (cost bits, cell): costs are positive floats, so their bits order like them,
    // and equal costs leave in cell order: the field does not depend on the heap's shape.
    let mut open: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::with_capacity(cells / 8 + 8);
    let mut done = vec![false; cells];
    field.cost[goal] = 0.0;
    open.push(Reverse((0f32.to_bits(), goal as u32)));
    while let Some(Reverse((bits, u))) = open.pop() {
        let u = u as usize;
        if done[u] || f32::from_bits(bits) > field.cost[u] {
            continue;
        }
        done[u] = true;
        field.settled += 1;
        let here = field.cost[u];
        let enter = costs[u];
        let (x, y) = (u as i32 % w, u as i32 / w);
        // A walker on neighbour `v` steps into `u`: it pays `u`'s entry cost.
        for (k, &(dx, dy)) in dirs.iter().enumerate() {
            let (vx, vy) = (x + dx, y + dy);
            if !grid.free(vx, vy) {
                continue;
            }
            let v = (vy * w + vx) as usize;
            if done[v] {
                continue;
            }
            let length = if dx != 0 && dy != 0 {
                // The step v -> u has the same side cells as u -> v.
                let sides = (grid.free(x, vy), grid.free(vx, y));
                let allowed = match key.diagonal {
                    Diagonal::NoCornerCutting => sides.0 && sides.1,
                    Diagonal::IfOneSideFree => sides.0 || sides.1,
                    Diagonal::Always => true,
                    Diagonal::Never => false,
                };
                if !allowed {
                    continue;
                }
                std::f32::consts::SQRT_2
            } else {
                1.0
            };
            let c = here + length * enter;
            if c < field.cost[v] {
                field.cost[v] = c;
                // From v the step goes the opposite way: DIRS pairs k with (k + 2) % 4 for
                // straight moves and 4 + (k - 4 + 2) % 4 for diagonals.
                field.dir[v] = opposite(k) as u8;
                open.push(Reverse((c.to_bits(), v as u32)));
            }
        }
    }
    field
}

/// The index in [`DIRS`] of the reverse of direction `k`.
const fn opposite(k: usize) -> usize {
    if k < 4 {
        (k + 2) % 4
    } else {
        4 + (k - 4 + 2) % 4
    }
}

thread_local! {
    /// Fields by key, each weighing its bytes, at most [`CACHE_MB`] MB of them.
    static CACHE: RefCell<Lru<FlowKey, Arc<FlowField>>> = const { RefCell::new(Lru::new(CACHE_MB << 20)) };
    static BUILDS: Cell<u64> = const { Cell::new(0) };
}

/// How many fields this thread has built (for tests and benchmarks).
pub fn builds() -> u64 {
    BUILDS.with(Cell::get)
}

/// Bytes of fields this thread's cache holds (at most [`CACHE_MB`] MB).
pub fn cached_bytes() -> usize {
    CACHE.with(|c| c.borrow().weight())
}

/// The key of the field towards `goal` on `world`'s map with `opts`; `None` when the goal is
/// off the map.
pub fn key(world: &World, goal: Tile, opts: FlowOptions) -> Option<FlowKey> {
    world.in_bounds(goal).then(|| FlowKey {
        map: world.map_key(),
        goal,
        size: opts.size.max(1),
        diagonal: opts.diagonal,
    })
}

/// The cached field of `key` if this thread has one (marked most recently used).
pub fn cached(key: &FlowKey) -> Option<Arc<FlowField>> {
    CACHE
        .try_with(|c| c.try_borrow_mut().ok()?.get(key).cloned())
        .ok()
        .flatten()
}

/// The field towards `goal` on `world`'s map for `opts`, from this thread's cache or built
/// (and cached) now. `None` when the goal is off the map. A goal on a blocked cell gives a
/// field with no steps. The answer never depends on what the cache held.
pub fn field(world: &World, goal: Tile, opts: FlowOptions) -> Option<Arc<FlowField>> {
    let key = key(world, goal, opts)?;
    if let Some(f) = cached(&key) {
        return Some(f);
    }
    let built = cache::with_grid(world, key.size, |grid, _| build_on(grid, key))?;
    BUILDS.with(|b| b.set(b.get() + 1));
    let built = Arc::new(built);
    let _ = CACHE.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.insert(key, Arc::clone(&built), built.bytes());
        }
    });
    Some(built)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::{cache as grids, PathOptions};

    fn t(x: i32, y: i32) -> Tile {
        IVec2::new(x, y)
    }

    /// Every cell's cost is the optimal path cost A* finds to the goal, and walking `next`
    /// from any cell reaches the goal at exactly that cost.
    #[test]
    fn costs_match_astar_and_next_walks_them() {
        let world = World::from_ascii(&[
            "..........",
            "..#####...",
            "......#.:.",
            "..#...#...",
            "..#....#..",
        ]);
        let goal = t(8, 4);
        for diagonal in [
            Diagonal::NoCornerCutting,
            Diagonal::Never,
            Diagonal::IfOneSideFree,
        ] {
            let f = field(&world, goal, FlowOptions { size: 1, diagonal }).unwrap();
            let opts = PathOptions {
                diagonal,
                ..Default::default()
            };
            for y in 0..5 {
                for x in 0..10 {
                    let from = t(x, y);
                    let (r, _) = grids::find(&world, from, goal, &opts);
                    match (f.cost(from), r.path) {
                        (Some(c), Some(_)) => {
                            assert!(
                                (c - r.cost).abs() < 1e-4,
                                "{from} {diagonal:?}: {c} {}",
                                r.cost
                            );
                            let mut at = from;
                            let mut walked = 0.0;
                            while let Some(n) = f.next(at) {
                                let d = n - at;
                                let len = if d.x != 0 && d.y != 0 {
                                    2f64.sqrt()
                                } else {
                                    1.0
                                };
                                walked += len * world.step_cost(n).unwrap();
                                at = n;
                            }
                            assert_eq!(at, goal, "{from}");
                            assert!((walked - c).abs() < 1e-3, "{from}: {walked} {c}");
                        }
                        (None, None) => assert!(f.next(from).is_none()),
                        (c, p) => panic!("{from} {diagonal:?}: field {c:?}, A* {p:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn one_build_per_key_and_a_painted_wall_rebuilds() {
        let mut world = World::from_ascii(&["......", "......", "......"]);
        let opts = FlowOptions::default();
        let before = builds();
        let a = field(&world, t(5, 1), opts).unwrap();
        for _ in 0..10 {
            let b = field(&world, t(5, 1), opts).unwrap();
            assert!(Arc::ptr_eq(&a, &b));
        }
        assert_eq!(builds(), before + 1);
        assert_eq!(a.next(t(0, 1)), Some(t(1, 1)));
        let wall = world.terrain().by_name("wall").unwrap();
        for y in 0..2 {
            assert!(world.set_terrain(t(3, y), wall));
        }
        let c = field(&world, t(5, 1), opts).unwrap();
        assert_eq!(builds(), before + 2, "a new map, a new field");
        let mut at = t(0, 0);
        while let Some(n) = c.next(at) {
            assert!(!world.is_blocked(n), "{n}");
            at = n;
        }
        assert_eq!(at, t(5, 1));
        assert!(field(&world, t(9, 9), opts).is_none(), "off the map");
        let blocked = field(&world, t(3, 0), opts).unwrap();
        assert!(blocked.next(t(0, 0)).is_none() && blocked.cost(t(0, 0)).is_none());
    }

    #[test]
    fn the_cache_stays_under_its_cap() {
        let rows = vec![".".repeat(400); 400];
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let world = World::from_ascii(&rows);
        for i in 0..100 {
            field(&world, t(i, i), FlowOptions::default()).unwrap();
            assert!(cached_bytes() <= CACHE_MB << 20);
        }
        // The newest is still there, the oldest went first.
        let key0 = key(&world, t(0, 0), FlowOptions::default()).unwrap();
        let key99 = key(&world, t(99, 99), FlowOptions::default()).unwrap();
        assert!(cached(&key99).is_some());
        assert!(cached(&key0).is_none());
    }

    #[test]
    fn a_big_body_keeps_off_narrow_gaps() {
        let world = World::from_ascii(&["......", "......", "###.##", "......", "......"]);
        let two = FlowOptions {
            size: 2,
            ..Default::default()
        };
        let f = field(&world, t(0, 3), two).unwrap();
        assert!(f.cost(t(0, 0)).is_none(), "the one-tile gap is too narrow");
        let one = field(&world, t(0, 3), FlowOptions::default()).unwrap();
        assert!(one.cost(t(0, 0)).is_some());
    }
}
