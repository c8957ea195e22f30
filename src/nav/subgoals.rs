//! The simple subgoal graph of a uniform-cost map (Uras, Koenig & Hernández 2013, "Subgoal
//! Graphs for Optimal Pathfinding in Eight-Neighbor Grids", ICAPS; see `docs/algorithms.md`):
//! its subgoals (the free cells at the convex corners of blocked cells), the edges between
//! direct-h-reachable subgoals, the per-cell clearances the edges are found with, and the scan
//! that finds a cell's direct-h-reachable subgoals (used once per subgoal when the graph is
//! built, and for a query's start and goal).
//!
//! Two cells are h-reachable when a path between them is as short as their octile distance;
//! every optimal grid path can be cut at subgoals into h-reachable pieces, so A* over the
//! subgoals (`subgoal_search.rs`) with the start and goal joined to the graph finds an
//! optimal path, each edge then walked out on the grid as diagonal moves and straight ones.
//!
//! Built once per map content by whoever owns the grid ([`super::cache`], `paths`, the race
//! bench), never per query. Reads only the grid's free-cell bits; names no engine crate.

use super::grid::Bits;
use std::time::{Duration, Instant};

/// Straight directions in the order of the clearance table: up, right, down, left.
const CARDINALS: [(i32, i32); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];

/// Diagonal directions, each with the indices (in [`CARDINALS`]) of its horizontal and
/// vertical part.
const DIAGONALS: [((i32, i32), usize, usize); 4] = [
    ((-1, -1), 3, 0),
    ((1, -1), 1, 0),
    ((1, 1), 1, 2),
    ((-1, 1), 3, 2),
];

/// Marks a cell that is not a subgoal in [`SubgoalGraph::id`].
const NONE: u32 = u32::MAX;

/// One edge: the subgoal it leads to, by cell index and coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub cell: u32,
    pub x: u16,
    pub y: u16,
}

/// The simple subgoal graph of one map.
#[derive(Clone, Debug)]
pub struct SubgoalGraph {
    width: i32,
    height: i32,
    /// Per cell: its subgoal number, or [`NONE`].
    id: Vec<u32>,
    /// Per cell and straight direction ([`CARDINALS`]): how many cells in a row from the next
    /// one on are free and not subgoals.
    clearance: Vec<[u16; 4]>,
    /// Edges of subgoal `k`: `edges[offsets[k]..offsets[k + 1]]`, by cell index.
    offsets: Vec<u32>,
    edges: Vec<Edge>,
    /// How long the build took (wall clock of the building thread).
    pub build_time: Duration,
}

impl SubgoalGraph {
    /// Maps at least this large get a subgoal graph in the cache; on smaller ones jump point
    /// search answers in microseconds and keeps its routes (see `docs/benchmarks.md`).
    pub const MIN_CELLS: usize = 128 * 128;

    /// The graph of a `width` x `height` map whose free cells are `bits`; `None` for a map too
    /// large for 16-bit clearances.
    pub fn build(width: i32, height: i32, bits: &Bits) -> Option<Self> {
        if width <= 0 || height <= 0 || width >= u16::MAX as i32 || height >= u16::MAX as i32 {
            return None;
        }
        let started = Instant::now();
        let (w, h) = (width as usize, height as usize);
        let mut id = vec![NONE; w * h];
        let mut subgoals = Vec::new();
        for y in 0..height {
            for x in 0..width {
                if is_corner(bits, x, y) {
                    id[y as usize * w + x as usize] = subgoals.len() as u32;
                    subgoals.push((x, y));
                }
            }
        }
        let open = |x: i32, y: i32| bits.free(x, y) && id[(y as usize) * w + x as usize] == NONE;
        let mut clearance = vec![[0u16; 4]; w * h];
        // Each direction's run length, swept against the direction so the next cell's run is
        // known when a cell's is computed.
        for y in 0..height {
            for x in 0..width {
                let i = y as usize * w + x as usize;
                if x > 0 && open(x - 1, y) {
                    clearance[i][3] = clearance[i - 1][3] + 1;
                }
                if y > 0 && open(x, y - 1) {
                    clearance[i][0] = clearance[i - w][0] + 1;
                }
            }
        }
        for y in (0..height).rev() {
            for x in (0..width).rev() {
                let i = y as usize * w + x as usize;
                if x + 1 < width && open(x + 1, y) {
                    clearance[i][1] = clearance[i + 1][1] + 1;
                }
                if y + 1 < height && open(x, y + 1) {
                    clearance[i][2] = clearance[i + w][2] + 1;
                }
            }
        }
        let mut graph = SubgoalGraph {
            width,
            height,
            id,
            clearance,
            offsets: Vec::new(),
            edges: Vec::new(),
            build_time: Duration::ZERO,
        };
        // Every subgoal's direct-h-reachable subgoals, both ways (the relation is symmetric;
        // adding both directions keeps the graph whole even where a scan is asymmetric).
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut found = Vec::new();
        for &(x, y) in &subgoals {
            graph.direct_h_reachable(bits, x, y, None, &mut found);
            let from = (y as usize * w + x as usize) as u32;
            for &to in &found {
                pairs.push((from, to));
                pairs.push((to, from));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = Vec::with_capacity(subgoals.len() + 1);
        let mut edges = Vec::with_capacity(pairs.len());
        let mut at = 0;
        for &(x, y) in &subgoals {
            offsets.push(edges.len() as u32);
            let cell = (y as usize * w + x as usize) as u32;
            while at < pairs.len() && pairs[at].0 == cell {
                let to = pairs[at].1;
                edges.push(Edge {
                    cell: to,
                    x: (to as usize % w) as u16,
                    y: (to as usize / w) as u16,
                });
                at += 1;
            }
        }
        offsets.push(edges.len() as u32);
        graph.offsets = offsets;
        graph.edges = edges;
        let _ = h;
        graph.build_time = started.elapsed();
        Some(graph)
    }

    /// How many subgoals the graph has.
    pub fn subgoals(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// How many (directed) edges the graph has.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The edges of the subgoal on `cell` (none when it is not a subgoal).
    #[inline]
    pub fn edges(&self, cell: usize) -> &[Edge] {
        match self.id.get(cell) {
            Some(&k) if k != NONE => {
                let k = k as usize;
                &self.edges[self.offsets[k] as usize..self.offsets[k + 1] as usize]
            }
            _ => &[],
        }
    }

    #[inline]
    fn is_subgoal(&self, x: i32, y: i32) -> bool {
        (x as u32) < self.width as u32
            && (y as u32) < self.height as u32
            && self.id[(y * self.width + x) as usize] != NONE
    }

    /// Collects into `out` (by cell index) the subgoals direct-h-reachable from the free cell
    /// `(x, y)`: those reached by diagonal moves in one direction then straight moves in one
    /// of its two parts (or by one kind of move alone) with no other subgoal on the way, the
    /// straight runs kept within the previous run's length so no subgoal found is reached
    /// through another. Returns true, early, when `target` is reached that way (a path of
    /// octile length, so an optimal one, with diagonal moves first), else false.
    pub fn direct_h_reachable(
        &self,
        bits: &Bits,
        x: i32,
        y: i32,
        target: Option<(i32, i32)>,
        out: &mut Vec<u32>,
    ) -> bool {
        out.clear();
        let w = self.width;
        let (tx, ty) = target.unwrap_or((-2, -2));
        let clear = &self.clearance[(y * w + x) as usize];
        // Whether the target lies on the straight run from (px, py) in direction `c` whose
        // free non-subgoal length is `k` (or is the subgoal ending it).
        let on_run = |px: i32, py: i32, (dx, dy): (i32, i32), k: i32| {
            let j = if dx != 0 {
                if ty != py {
                    return false;
                }
                (tx - px) * dx
            } else {
                if tx != px {
                    return false;
                }
                (ty - py) * dy
            };
            j >= 1 && (j <= k || (j == k + 1 && self.is_subgoal(tx, ty)))
        };
        for (c, &(dx, dy)) in CARDINALS.iter().enumerate() {
            let k = clear[c] as i32;
            if on_run(x, y, (dx, dy), k) {
                return true;
            }
            let (sx, sy) = (x + (k + 1) * dx, y + (k + 1) * dy);
            if self.is_subgoal(sx, sy) {
                out.push((sy * w + sx) as u32);
            }
        }
        for &((dx, dy), ch, cv) in &DIAGONALS {
            let mut max_h = clear[ch] as i32;
            let mut max_v = clear[cv] as i32;
            let (mut px, mut py) = (x, y);
            loop {
                if !(bits.free(px + dx, py) && bits.free(px, py + dy) && bits.free(px + dx, py + dy))
                {
                    break;
                }
                px += dx;
                py += dy;
                if px == tx && py == ty {
                    return true;
                }
                let p = (py * w + px) as usize;
                if self.id[p] != NONE {
                    out.push(p as u32);
                    break;
                }
                let clear = &self.clearance[p];
                for (c, max) in [(ch, &mut max_h), (cv, &mut max_v)] {
                    let (cx, cy) = CARDINALS[c];
                    let k = clear[c] as i32;
                    if target.is_some() && on_run(px, py, (cx, cy), k) {
                        return true;
                    }
                    if k < *max {
                        let (sx, sy) = (px + (k + 1) * cx, py + (k + 1) * cy);
                        if self.is_subgoal(sx, sy) {
                            out.push((sy * w + sx) as u32);
                        }
                    }
                    *max = (*max).min(k);
                }
            }
        }
        false
    }
}

/// Whether the free cell `(x, y)` is a subgoal: some diagonal neighbour is blocked while both
/// cells beside that diagonal move are free (the cell sits at a convex corner of an obstacle).
fn is_corner(bits: &Bits, x: i32, y: i32) -> bool {
    bits.free(x, y)
        && DIAGONALS.iter().any(|&((dx, dy), _, _)| {
            !bits.free(x + dx, y + dy) && bits.free(x + dx, y) && bits.free(x, y + dy)
        })
}
