//! [`Search`]: the reusable state of path searches on one map size (each cell's state as one
//! byte, `marks.rs`; the cost and parent of each cell reached; the open list), the choice
//! between A* and jump point search, and the result's assembly (path, cost, limit, sets).
//!
//! The algorithms themselves live in `astar.rs`, `jps.rs` and `octile.rs` (any path of the
//! octile length, looked for first on large maps); this file owns their buffers.

use super::grid::NavGrid;
use super::landmarks::Active;
use super::marks::{Marks, CLOSED, OPEN};
use super::options::{
    Algorithm, Diagonal, Heuristic, PathOptions, PathResult, SearchSets, StepCosts,
};
use crate::world::{Tile, World};
use glam::IVec2;

/// An entry of the open list, as one 128-bit key: smallest first. Smallest F first; among equal
/// F the largest G (deepest, closest to the goal); then the most recently added (the tie rule
/// of the worked example in `tests.rs`). F and G are never negative, so their bit patterns
/// order like the numbers: the high half is F's bits, the low half holds the inverted high half
/// of G's bits and the inverted sequence number, so the whole order is one integer comparison.
/// The node is found from the sequence number (`OpenList::nodes`), which keeps the entry at 16
/// bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Open(u128);

impl Open {
    #[inline]
    fn new(f: f64, g: f64, seq: u32) -> Self {
        let tie = (!g.to_bits() & 0xFFFF_FFFF_0000_0000) | (!seq) as u64;
        Open((f.to_bits() as u128) << 64 | tie as u128)
    }

    /// The F the entry was added with.
    #[inline]
    fn f(self) -> f64 {
        f64::from_bits((self.0 >> 64) as u64)
    }

    /// The sequence number the entry was added under.
    #[inline]
    fn seq(self) -> u32 {
        !(self.0 as u32)
    }
}

/// The open list: a 4-ary min-heap of [`Open`] keys (half the levels of a binary heap, and the
/// four children of a node share a cache line), moved by holes (an entry is written once where
/// it lands, never swapped), and the node of each sequence number. Keys are unique (the
/// sequence number), so the order entries leave in does not depend on the heap's shape.
#[derive(Default)]
pub(super) struct OpenList {
    heap: Vec<Open>,
    /// `nodes[seq]`: the node added under `seq` this query (slot 0 unused).
    nodes: Vec<u32>,
}

/// Children per node of the open list's heap.
const ARITY: usize = 4;

impl OpenList {
    fn clear(&mut self) {
        self.heap.clear();
        self.nodes.clear();
        self.nodes.push(0);
    }

    #[inline]
    fn push(&mut self, key: Open, node: u32) {
        self.nodes.push(node);
        let heap = &mut self.heap;
        let mut hole = heap.len();
        heap.push(key);
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            let p = heap[parent];
            if p <= key {
                break;
            }
            heap[hole] = p;
            hole = parent;
        }
        heap[hole] = key;
    }

    /// Takes the smallest entry off; its node.
    #[inline]
    fn pop(&mut self) -> Option<u32> {
        self.pop_with_f().map(|(node, _)| node)
    }

    /// Takes the smallest entry off; its node and the F it was added with.
    #[inline(always)]
    fn pop_with_f(&mut self) -> Option<(u32, f64)> {
        let heap = &mut self.heap;
        let top = *heap.first()?;
        let last = heap.pop().unwrap_or(top);
        let n = heap.len();
        if n > 0 {
            // Floyd's way: move the hole to the bottom along the smallest children, then let
            // the last entry rise from there. The smallest of four is picked by arithmetic,
            // not branches: which one it is is a toss-up the branch predictor mostly loses.
            let mut hole = 0;
            let mut child = 1;
            while child + ARITY <= n {
                let a = child + (heap[child + 1] < heap[child]) as usize;
                let b = child + 2 + (heap[child + 3] < heap[child + 2]) as usize;
                let c = if heap[b] < heap[a] { b } else { a };
                heap[hole] = heap[c];
                hole = c;
                child = ARITY * hole + 1;
            }
            if child < n {
                let mut c = child;
                for k in child + 1..n {
                    if heap[k] < heap[c] {
                        c = k;
                    }
                }
                heap[hole] = heap[c];
                hole = c;
            }
            while hole > 0 {
                let parent = (hole - 1) / ARITY;
                let p = heap[parent];
                if p <= last {
                    break;
                }
                heap[hole] = p;
                hole = parent;
            }
            heap[hole] = last;
        }
        Some((self.nodes[top.seq() as usize], top.f()))
    }
}

/// Neighbour order for both algorithms: up, right, down, left, then the diagonals clockwise
/// from up-left (the first four alone are the 4-connected moves).
pub(super) const DIRS: [(i32, i32); 8] = [
    (0, -1),
    (1, 0),
    (0, 1),
    (-1, 0),
    (-1, -1),
    (1, -1),
    (1, 1),
    (-1, 1),
];

/// What a search knows of a cell it reached this query (open or closed, as its mark in
/// [`Search::marks`] says): the cost from the start and the parent. Meaningless for a cell
/// not reached: it is never read then, nor cleared between queries. One record, not two
/// arrays: a cell reached is written whole, mostly one cache line. 12 bytes, packed (the
/// cost unaligned, which x86 and ARM load at no cost; 2 records in 16 straddle two lines),
/// not 16 with padding: 3 MiB on a 512 x 512 map instead of 4, still out of the core's
/// caches, and in the race's simulation 20-40% fewer of the records' stores miss
/// (`docs/benchmarks.md`, issue 35, branch `marks`). Fields are read and written by value
/// only (a reference to a packed field is refused by the compiler).
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
pub(super) struct Seen {
    pub g: f64,
    pub parent: u32,
}

/// Buffers reused between queries. Keep one per thread (or per map) and call
/// [`Search::find`]; the first query on a map allocates, later ones do not.
#[derive(Default)]
pub struct Search {
    /// Per cell, its G and parent ([`Seen`]), when its mark says it was reached.
    pub(super) seen: Vec<Seen>,
    /// Per cell, its state this query: not reached, open or closed (`marks.rs`).
    pub(super) marks: Marks,
    pub(super) open: OpenList,
    pub(super) seq: u32,
    /// Jump point search's nodes to expand next without the open list (`Query::bypass`).
    pub(super) bypassed: Vec<usize>,
    /// The octile route's rows of reached cells (`octile.rs`).
    pub(super) octile: Vec<u64>,
    /// When set, every node opened and every node expanded is written here, in order (the
    /// observer hook [`Search::find_logged`] uses; `None`, one predictable branch, otherwise).
    log: Option<Vec<SearchEvent>>,
}

/// One step of a search as it happened, for watching it step by step (the window's search
/// mode): the real algorithm's own opens and expansions, in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SearchEvent {
    /// A node was put on the open list (or reached more cheaply) with cost `g` from the start,
    /// total estimate `f`, through `parent`.
    Open {
        node: Tile,
        g: f64,
        f: f64,
        parent: Tile,
    },
    /// A node was taken off the open list and closed (an expansion).
    Expand { node: Tile, g: f64 },
    /// Jump point search only: a diagonal jump point recorded while scanning on (its cost and
    /// parent kept for the path) but not queued, its successors offered at once (see
    /// `jps.rs`, intermediate pruning). It is never expanded; the search's sets count it as
    /// open.
    Pass {
        node: Tile,
        g: f64,
        f: f64,
        parent: Tile,
    },
}

/// The numbers one algorithm needs for a query, fixed before it starts.
pub(super) struct Query<'a> {
    pub width: i32,
    pub start: usize,
    pub goal: usize,
    pub goal_tile: Tile,
    /// (straight, diagonal) step lengths in cost units.
    pub straight: f64,
    pub diagonal: f64,
    /// Factor of the heuristic: the cheapest terrain (1 when terrain costs are ignored).
    pub h_scale: f64,
    pub heuristic: Heuristic,
    pub rule: Diagonal,
    pub ignore_terrain: bool,
    pub max_expanded: Option<usize>,
    /// The landmarks the heuristic also takes the bound of, when it does.
    pub landmarks: Option<Active<'a>>,
    /// Jump point search expands a successor as cheap (by F) as the node being expanded at
    /// once, without the open list (`jps.rs`); set on large maps only (see [`Search::run`]).
    pub bypass: bool,
    /// Jump point search returns the direct route (diagonal first, then straight) without
    /// searching when it is free (`jps.rs`, `direct`): under the rules with diagonal steps and
    /// the octile estimate.
    pub direct: bool,
}

impl Query<'_> {
    #[inline]
    pub fn estimate(&self, x: i32, y: i32) -> f64 {
        let h = self.octile_estimate(x, y);
        match &self.landmarks {
            Some(l) => h.max(self.h_scale * l.estimate(x, y)),
            None => h,
        }
    }

    /// The estimate without the landmark bounds (a lower bound on [`Query::estimate`]).
    #[inline]
    pub fn octile_estimate(&self, x: i32, y: i32) -> f64 {
        let dx = (self.goal_tile.x - x).abs() as f64;
        let dy = (self.goal_tile.y - y).abs() as f64;
        let (s, d) = (self.straight, self.diagonal);
        self.h_scale
            * match self.heuristic {
                Heuristic::Octile => s * dx.max(dy) + (d - s) * dx.min(dy),
                Heuristic::Manhattan => s * (dx + dy),
                Heuristic::Euclidean => {
                    // Scaled so a diagonal step never counts more than it costs (10/14 units).
                    s * (dx * dx + dy * dy).sqrt() * (d / (std::f64::consts::SQRT_2 * s)).min(1.0)
                }
                Heuristic::Zero => 0.0,
            }
    }

    #[inline]
    pub fn tile(&self, i: usize) -> Tile {
        IVec2::new(i as i32 % self.width, i as i32 / self.width)
    }
}

/// How the search loop ended.
pub(super) enum Outcome {
    Found,
    /// Stopped by the expansion limit; the closest closed node.
    Limited(usize),
    NoPath,
}

impl Search {
    pub fn new() -> Self {
        Search::default()
    }

    /// Starts a query: sizes the buffers and marks every cell not reached.
    pub(super) fn begin(&mut self, cells: usize) {
        if self.seen.len() != cells {
            self.seen = vec![Seen::default(); cells];
        }
        self.marks.begin(cells);
        self.open.clear();
        self.bypassed.clear();
        self.seq = 0;
    }

    /// Records `g` and `parent` for `node`, marks it open and adds it to the open list.
    #[inline]
    pub(super) fn open_node(&mut self, node: usize, g: f64, parent: usize, f: f64) {
        self.reach(node, g, parent, f);
        self.marks.open(node);
        self.push(node, g, f);
    }

    /// Records `g` and `parent` for `node`, marks it open without queueing it (jump point
    /// search and the routes pass it) and does not log it (see [`Search::log_pass`]).
    #[inline]
    pub(super) fn record(&mut self, node: usize, g: f64, parent: usize) {
        self.seen[node] = Seen {
            g,
            parent: parent as u32,
        };
        self.marks.open(node);
    }

    /// Records `g` and `parent` for `node` and logs it as opened: what
    /// [`Search::open_node`] and [`Search::bypass_node`] share (each sets the cell's mark).
    #[inline]
    fn reach(&mut self, node: usize, g: f64, parent: usize, f: f64) {
        if let Some(log) = &mut self.log {
            let w = log_width(log);
            log.push(SearchEvent::Open {
                node: tile_at(node, w),
                g,
                f,
                parent: tile_at(parent, w),
            });
        }
        self.seen[node] = Seen {
            g,
            parent: parent as u32,
        };
    }

    /// Logs a node jump point search recorded without queueing it ([`SearchEvent::Pass`]);
    /// nothing when no log is kept.
    #[inline(always)]
    pub(super) fn log_pass(&mut self, q: &Query, node: usize, g: f64, parent: usize) {
        if self.log.is_some() {
            self.log_pass_now(q, node, g, parent);
        }
    }

    /// [`Search::log_pass`] when a log is kept: out of line, so the search's own loop stays
    /// small.
    #[cold]
    #[inline(never)]
    fn log_pass_now(&mut self, q: &Query, node: usize, g: f64, parent: usize) {
        if let Some(log) = &mut self.log {
            let w = log_width(log);
            let t = tile_at(node, w);
            log.push(SearchEvent::Pass {
                node: t,
                g,
                f: g + q.estimate(t.x, t.y),
                parent: tile_at(parent, w),
            });
        }
    }

    /// Records `g` and `parent` for `node` and closes it at once, to be expanded next without
    /// passing through the open list (`Query::bypass`; [`Search::next_bypassed`] takes it):
    /// logged as opened.
    #[inline]
    pub(super) fn bypass_node(&mut self, node: usize, g: f64, parent: usize, f: f64) {
        self.reach(node, g, parent, f);
        self.marks.close(node);
        self.bypassed.push(node);
    }

    /// The node [`Search::bypass_node`] closed last, to be expanded now (logged as expanded);
    /// `None` when there is none.
    #[inline]
    pub(super) fn next_bypassed(&mut self) -> Option<usize> {
        let node = self.bypassed.pop()?;
        if let Some(log) = &mut self.log {
            let w = log_width(log);
            log.push(SearchEvent::Expand {
                node: tile_at(node, w),
                g: self.seen[node].g,
            });
        }
        Some(node)
    }

    /// Opens the start node of a query.
    pub(super) fn open_start(&mut self, q: &Query) {
        let st = q.tile(q.start);
        self.open_node(q.start, 0.0, q.start, q.estimate(st.x, st.y));
    }

    /// Takes the best open node off the open list and closes it, skipping stale entries (a
    /// node reached again more cheaply leaves its older entry behind); `None` when the open
    /// list is empty.
    #[inline]
    pub(super) fn pop_and_close(&mut self) -> Option<usize> {
        while let Some(node) = self.open.pop() {
            let i = node as usize;
            if self.marks.get(i) == OPEN {
                self.marks.close(i);
                if let Some(log) = &mut self.log {
                    let w = log_width(log);
                    log.push(SearchEvent::Expand {
                        node: tile_at(i, w),
                        g: self.seen[i].g,
                    });
                }
                return Some(i);
            }
        }
        None
    }

    /// [`Search::pop_and_close`] for a search that adds nodes to the open list under the
    /// octile estimate alone while the query's heuristic also takes landmark bounds (lazy
    /// evaluation, as in Tolpin et al. 2013 "Towards rational deployment of multiple
    /// heuristics in A*"): the entry on top has its full estimate looked up only now, and
    /// goes back on the open list under it when that is larger. A node is closed only with
    /// its full F as the least on the list (every other key is at most its node's full F),
    /// so the order of expansion is A*'s with the full heuristic, while the nodes that never
    /// reach the top (most of those opened) never pay for the landmark tables' loads.
    #[inline]
    pub(super) fn pop_and_close_lazy(&mut self, q: &Query) -> Option<usize> {
        while let Some((node, f)) = self.open.pop_with_f() {
            let i = node as usize;
            if self.marks.get(i) != OPEN {
                continue;
            }
            let g = self.seen[i].g;
            let t = q.tile(i);
            let full = g + q.estimate(t.x, t.y);
            if full > f {
                self.push(i, g, full);
                continue;
            }
            self.marks.close(i);
            if let Some(log) = &mut self.log {
                let w = log_width(log);
                log.push(SearchEvent::Expand {
                    node: tile_at(i, w),
                    g,
                });
            }
            return Some(i);
        }
        None
    }

    #[inline]
    fn push(&mut self, node: usize, g: f64, f: f64) {
        self.seq = self.seq.wrapping_add(1);
        self.open.push(Open::new(f, g, self.seq), node as u32);
    }

    /// The cost from the start (G) of a cell the last query reached, open or closed, by its
    /// row-major index: the numbers the window's search overlay prints.
    pub fn reached_cost(&self, index: usize) -> Option<f64> {
        let g = self.seen.get(index)?.g;
        (self.marks.get(index) != 0).then_some(g)
    }

    /// [`Search::find_on`], recording every open and expansion in order: the search as it
    /// really ran, to be replayed one step at a time.
    pub fn find_logged(
        &mut self,
        grid: &NavGrid,
        from: Tile,
        to: Tile,
        opts: &PathOptions,
    ) -> (PathResult, Vec<SearchEvent>) {
        // The first entry carries the map's width (as the `node` of a zero expansion), so the
        // hooks can name tiles without another field; it is removed before returning.
        self.log = Some(vec![SearchEvent::Expand {
            node: IVec2::new(grid.width(), 0),
            g: 0.0,
        }]);
        let result = self.find_on(grid, from, to, opts);
        let mut log = self.log.take().unwrap_or_default();
        if !log.is_empty() {
            log.remove(0);
        }
        (result, log)
    }

    /// A path on the world's map. An end off the map is refused before the map's summary is
    /// built, so a far goal costs nothing however often it is asked for.
    pub fn find(&mut self, world: &World, from: Tile, to: Tile, opts: &PathOptions) -> PathResult {
        if !world.in_bounds(from) || !world.in_bounds(to) {
            return PathResult::default();
        }
        self.find_on(&NavGrid::from_world(world), from, to, opts)
    }

    /// A path on a cost grid. No path (`path: None`) when either end is outside the map or
    /// blocked for the body, or the goal cannot be reached (within the expansion limit, the
    /// path to the closest node reached instead).
    pub fn find_on(
        &mut self,
        grid: &NavGrid,
        from: Tile,
        to: Tile,
        opts: &PathOptions,
    ) -> PathResult {
        if opts.size > 1 {
            let costs = grid.footprint_costs(opts.size);
            return match NavGrid::new(grid.width(), grid.height(), &costs) {
                Some(body) => self.run(&body, from, to, opts),
                None => PathResult::default(),
            };
        }
        self.run(grid, from, to, opts)
    }

    fn run(&mut self, grid: &NavGrid, from: Tile, to: Tile, opts: &PathOptions) -> PathResult {
        let (Some(start), Some(goal)) = (grid.index(from), grid.index(to)) else {
            return PathResult::default();
        };
        let costs = grid.costs();
        if costs[start].is_infinite() || costs[goal].is_infinite() {
            return PathResult::default();
        }
        let (straight, diagonal) = opts.step_costs.units();
        let mut query = Query {
            width: grid.width(),
            start,
            goal,
            goal_tile: to,
            straight,
            diagonal,
            h_scale: if opts.ignore_terrain_cost {
                1.0
            } else {
                grid.min_cost() as f64
            },
            heuristic: opts.heuristic,
            rule: opts.diagonal,
            ignore_terrain: opts.ignore_terrain_cost,
            max_expanded: opts.max_expanded,
            landmarks: None,
            // Large maps only (those that get landmarks): the bypass changes which of several
            // equally short paths is found, and the small maps' routes (the shipped scenes'
            // traces record them) stay as they were.
            bypass: costs.len() >= super::landmarks::MIN_CELLS,
            direct: false,
        };
        query.direct = opts.diagonal != Diagonal::Never && opts.heuristic == Heuristic::Octile;
        let jps = opts.algorithm != Algorithm::AStar && jps_valid(grid, opts);
        // Each rule with diagonal steps has its own landmark distances (a rule's distances
        // bound no other's searches); 4-connected search has none.
        if opts.algorithm == Algorithm::Auto
            && opts.step_costs == StepCosts::Exact
            && opts.heuristic == Heuristic::Octile
            && opts.diagonal != Diagonal::Never
            && jps
        {
            // Only where the active landmarks (the two whose bound from the start is largest)
            // promise, from the start, more than the octile distance: elsewhere (open maps,
            // most short queries) they would be looked up for nothing. They are looked up
            // lazily (`Search::pop_and_close_lazy`), so on maps of scattered blocks, where
            // the octile distance is nearly exact, they cost little more than they save.
            if let Some(l) = grid.landmarks_for(opts.diagonal).filter(|l| l.worth_it()) {
                let octile = query.estimate(from.x, from.y);
                let (active, bound) = l.active((from.x, from.y), (to.x, to.y));
                if query.h_scale * bound > octile {
                    query.landmarks = Some(active);
                }
            }
        }
        // 4-connected jump point search estimates with the Manhattan distance: exact on an
        // open map for that move model (octile, admissible there too, is weaker).
        if jps && opts.diagonal == Diagonal::Never && opts.heuristic == Heuristic::Octile {
            query.heuristic = Heuristic::Manhattan;
        }
        self.begin(costs.len());
        let (outcome, expanded) = if jps {
            // On large maps, any path as long as the octile distance first (`octile.rs`).
            let octile = query.bypass && query.direct && start != goal;
            match grid.bits() {
                Some(bits)
                    if octile && super::octile::route(self, bits, &query, units(grid, &query)) =>
                {
                    (Outcome::Found, 2)
                }
                _ => super::jps::run(self, grid, &query),
            }
        } else {
            super::astar::run(self, grid, &query)
        };
        let end = match outcome {
            Outcome::Found => Some(goal),
            Outcome::Limited(best) => Some(best),
            Outcome::NoPath => None,
        };
        let path = end.map(|end| self.trace_back(&query, end));
        let cost = end.map_or(0.0, |e| self.seen[e].g);
        let sets = opts.keep_sets.then(|| self.sets(&query));
        PathResult {
            complete: matches!(outcome, Outcome::Found),
            path,
            cost,
            expanded,
            used_jps: jps,
            sets,
        }
    }

    /// Parents from `end` back to the start, filling the straight or diagonal runs between
    /// jump points, start first.
    fn trace_back(&self, q: &Query, end: usize) -> Vec<Tile> {
        let mut path = vec![q.tile(end)];
        let mut at = end;
        while at != q.start {
            let parent = self.seen[at].parent as usize;
            let (a, b) = (q.tile(at), q.tile(parent));
            let step = (b - a).signum();
            let mut c = a;
            while c != b {
                c += step;
                path.push(c);
            }
            at = parent;
        }
        path.reverse();
        path
    }

    fn sets(&self, q: &Query) -> SearchSets {
        let mut sets = SearchSets::default();
        for i in 0..self.seen.len() {
            match self.marks.get(i) {
                OPEN => sets.open.push(q.tile(i)),
                CLOSED => sets.closed.push(q.tile(i)),
                _ => {}
            }
        }
        sets
    }
}

/// A query's (straight, diagonal) step costs on `grid`: its step lengths times the cheapest
/// terrain (once, when terrain costs are ignored), as jump point search costs its steps.
fn units(grid: &NavGrid, q: &Query) -> (f64, f64) {
    let unit = if q.ignore_terrain {
        1.0
    } else {
        grid.min_cost() as f64
    };
    (q.straight * unit, q.diagonal * unit)
}

/// The map width a log was started with (see [`Search::find_logged`]).
fn log_width(log: &[SearchEvent]) -> i32 {
    match log.first() {
        Some(SearchEvent::Expand { node, .. }) => node.x.max(1),
        _ => 1,
    }
}

fn tile_at(i: usize, width: i32) -> Tile {
    IVec2::new(i as i32 % width, i as i32 / width)
}

/// Whether jump point search returns the same optimal cost as A* for these options: on a map
/// of uniform cost (terrain costs are not jump point search's), for every diagonal rule.
fn jps_valid(grid: &NavGrid, opts: &PathOptions) -> bool {
    grid.bits().is_some()
        && opts.size <= 1
        && matches!(opts.heuristic, Heuristic::Octile | Heuristic::Zero)
        && opts.max_expanded.is_none()
}

/// The cheapest path from `from` to `to`, both included, or `None` if there is none (or
/// either end is blocked). A convenience over [`Search::find`] with fresh buffers.
pub fn find_path(world: &World, from: Tile, to: Tile, opts: &PathOptions) -> Option<Vec<Tile>> {
    Search::new().find(world, from, to, opts).path
}

/// The cost of a path of neighbouring tiles under the exact model (1 straight, sqrt 2
/// diagonal, times the cost of the tile entered), recomputed from the map alone.
pub fn path_cost(world: &World, path: &[Tile]) -> f64 {
    path.windows(2)
        .map(|p| {
            let d = p[1] - p[0];
            let length = if d.x != 0 && d.y != 0 {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            length * world.step_cost(p[1]).unwrap_or(f64::INFINITY)
        })
        .sum()
}
