//! A uniform grid bucket index over agent positions, rebuilt once per tick by the simulation,
//! so neighbour queries (agents within a radius, the nearest agent) and contact tests look at
//! nearby agents only instead of scanning them all. It also maps ids and kinds to agent
//! indices and keeps every agent's id in one shared list for targets, and dense copies of
//! each agent's position, velocity, radius and avoidance for local avoidance. Ids and kinds are only
//! gathered again when the agents themselves change ([`SpatialIndex::rebuild`]); a tick's
//! moves only re-sort positions and take the new velocities ([`SpatialIndex::moved`]). Plain data like the rest of
//! `world`: no I/O, no clock, no randomness.
//!
//! Every answer is the same as a scan of all agents would give, in the same order (ascending
//! agent index; ties in distance go to the lower index), so results never depend on the cell
//! size.

use super::action::AgentIds;
use super::agent::Agent;
use glam::DVec2;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// FNV-1a: a fast hash for short keys such as agent ids (lookups only; never iterated for
/// output, so the order of a map using it never shows).
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A hash map keyed by short strings, with [`Fnv1a`].
pub type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fnv1a>>;

/// The FNV-1a hash of an agent id, the key of the id map.
fn id_hash(id: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = Fnv1a::default();
    h.write(id.as_bytes());
    h.finish()
}

/// Kinds with at most this many members are searched by scanning their member list.
const SMALL_KIND: usize = 64;

/// One agent as a query sees it, stored in cell order (32 bytes: two to a cache line).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    pos: DVec2,
    radius: f64,
    agent: u32,
    kind: u32,
}

/// Cells of a uniform grid laid over the agents, each listing the agents whose centre is in it.
///
/// Queries read compact copies of the agents' positions, radii and kinds taken at the build
/// and laid out in cell order, so they stream through contiguous memory instead of the large
/// `Agent` structs.
#[derive(Clone, Debug, Default)]
pub struct SpatialIndex {
    /// Side of a cell, in tiles.
    cell: f64,
    /// World position of the corner of cell (0, 0).
    origin: DVec2,
    cols: i32,
    rows: i32,
    /// Slots `starts[c]..starts[c + 1]` hold the agents in cell `c`, ascending.
    starts: Vec<u32>,
    /// By slot: the agent's index, position, kind rank and body radius.
    slots: Vec<Slot>,
    /// By agent index: position, body radius and cell at the build.
    pos: Vec<DVec2>,
    radius: Vec<f64>,
    /// By agent index: velocity at the build, and whether the agent avoids others (ORCA reads
    /// its neighbours here, densely, instead of from their `Agent` structs).
    vel: Vec<DVec2>,
    avoids: Vec<bool>,
    cell_of: Vec<u32>,
    /// By the FNV hash of an agent's id: the first agent with that hash. Keyed by the hash so a
    /// rebuild copies no strings; [`SpatialIndex::id`] checks the name before trusting it.
    ids: FastMap<u64, u32>,
    /// Every agent's id, shared with the targets that name them.
    names: Arc<AgentIds>,
    /// By kind: its rank among the kinds (its number in `members` and `kind_of`).
    kinds: BTreeMap<String, u32>,
    /// By kind rank: its name.
    kind_names: Vec<String>,
    /// By kind rank: the members, ascending.
    members: Vec<Vec<u32>>,
    /// Each agent's kind as a number (its rank among the kinds), so filters compare integers.
    kind_of: Vec<u32>,
    /// The largest body radius, for contact tests.
    max_radius: f64,
    /// `(tick, agent count)` the index was built for; `None` before the first build.
    stamp: Option<(u64, usize)>,
}

impl SpatialIndex {
    /// Indexes `agents` on a map of `width` x `height` tiles at `tick`.
    pub fn build(agents: &[Agent], width: i32, height: i32, tick: u64) -> Self {
        let mut index = SpatialIndex::default();
        index.rebuild(agents, width, height, tick);
        index
    }

    /// Indexes `agents` afresh in place, reusing the buffers.
    pub fn rebuild(&mut self, agents: &[Agent], width: i32, height: i32, tick: u64) {
        self.ids.clear();
        self.ids.reserve(agents.len());
        self.kinds.clear();
        for (i, a) in agents.iter().enumerate() {
            self.ids.entry(id_hash(&a.id)).or_insert(i as u32);
            // Look the kind up first: cloning its name for every agent would allocate.
            if !self.kinds.contains_key(a.kind.as_str()) {
                self.kinds.insert(a.kind.clone(), 0);
            }
        }
        let names = AgentIds::new(agents.iter().map(|a| a.id.as_str()));
        // As many hashes as agents: no two ids are equal, so targets tell agents apart by
        // their place in the list alone.
        self.names = Arc::new(match self.ids.len() == agents.len() {
            true => names.known_distinct(),
            false => names,
        });
        for (rank, kind_rank) in self.kinds.values_mut().enumerate() {
            *kind_rank = rank as u32;
        }
        self.kind_names.clear();
        self.kind_names.extend(self.kinds.keys().cloned());
        self.members.iter_mut().for_each(Vec::clear);
        self.members.resize_with(self.kinds.len(), Vec::new);
        self.kind_of.clear();
        // The lists by agent grow once to the crowd's size, not by doubling past it (a
        // 20,000 crowd's lists took 80 bytes an agent for 49 of content).
        let n = agents.len();
        self.kind_of.reserve_exact(n);
        if let [members] = self.members.as_mut_slice() {
            members.reserve_exact(n);
        }
        // Neighbours in the list mostly share a kind: look a kind up only when it changes.
        let mut last: Option<(&str, u32)> = None;
        for (i, a) in agents.iter().enumerate() {
            let rank = match last {
                Some((kind, rank)) if kind == a.kind => rank,
                _ => self.kinds.get(a.kind.as_str()).copied().unwrap_or_default(),
            };
            last = Some((a.kind.as_str(), rank));
            self.kind_of.push(rank);
            if let Some(members) = self.members.get_mut(rank as usize) {
                members.push(i as u32);
            }
        }
        self.pos.clear();
        self.radius.clear();
        self.vel.clear();
        self.avoids.clear();
        self.pos.reserve_exact(n);
        self.radius.reserve_exact(n);
        self.vel.reserve_exact(n);
        self.avoids.reserve_exact(n);
        for a in agents {
            self.pos.push(a.pos);
            self.radius.push(a.radius);
            self.vel.push(a.vel);
            self.avoids.push(a.avoid_horizon.is_some());
        }
        self.max_radius = self.radius.iter().copied().fold(0.0, f64::max);
        self.place(width, height, tick);
    }

    /// Re-indexes the agents' positions and velocities, keeping the ids, kinds, radii and
    /// avoidance: for agents that only moved since the last build (same agents, same order,
    /// same ids, kinds, radii and avoidance), as in a tick of the simulation. A different
    /// number of agents is indexed afresh.
    pub fn moved(&mut self, agents: &[Agent], width: i32, height: i32, tick: u64) {
        if self.kind_of.len() != agents.len() || self.stamp.is_none() {
            self.rebuild(agents, width, height, tick);
        } else {
            self.pos.clear();
            self.pos.extend(agents.iter().map(|a| a.pos));
            self.vel.clear();
            self.vel.extend(agents.iter().map(|a| a.vel));
            self.place(width, height, tick);
        }
    }

    /// [`SpatialIndex::moved`] with the agents' new positions and velocities given in order
    /// (`positions[i]` is where `agents[i]` stands, `velocities[i]` its velocity), so the
    /// agents are only read for a full rebuild.
    pub fn moved_to(
        &mut self,
        agents: &[Agent],
        positions: &[DVec2],
        velocities: &[DVec2],
        width: i32,
        height: i32,
        tick: u64,
    ) {
        if self.kind_of.len() != agents.len()
            || positions.len() != agents.len()
            || velocities.len() != agents.len()
            || self.stamp.is_none()
        {
            self.rebuild(agents, width, height, tick);
        } else {
            self.pos.clear();
            self.pos.extend_from_slice(positions);
            self.vel.clear();
            self.vel.extend_from_slice(velocities);
            self.place(width, height, tick);
        }
    }

    /// Lays the grid out for the positions and radii gathered and sorts them into its cells.
    fn place(&mut self, width: i32, height: i32, tick: u64) {
        let n = self.pos.len();
        let area = (width.max(1) as f64) * (height.max(1) as f64);
        // Keep the number of cells near the number of agents so a rebuild stays cheap.
        let by_count = (area / (4.0 * n as f64 + 64.0)).sqrt();
        self.cell = 1.0f64.max(2.0 * self.max_radius).max(by_count);
        // Agents stay inside the map; anything outside is clamped into the border cells.
        self.origin = DVec2::new(-0.5, -0.5);
        self.cols = ((width.max(1) as f64) / self.cell).ceil().max(1.0) as i32;
        self.rows = ((height.max(1) as f64) / self.cell).ceil().max(1.0) as i32;
        self.stamp = Some((tick, n));

        let mut cell_of = std::mem::take(&mut self.cell_of);
        cell_of.clear();
        cell_of.extend(self.pos.iter().map(|&p| self.cell_index(p)));
        self.cell_of = cell_of;

        // Count each cell's agents, sum so `starts[c]` is the end of cell `c`, then fill each
        // cell from its end backwards (agents in descending order): that leaves `starts[c]`
        // at the cell's first slot and every cell ascending.
        let cells = (self.cols * self.rows) as usize;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        for &c in &self.cell_of {
            self.starts[c as usize] += 1;
        }
        for c in 1..cells {
            self.starts[c] += self.starts[c - 1];
        }
        self.starts[cells] = n as u32;
        self.slots.resize(n, Slot::default());
        for i in (0..n).rev() {
            let c = self.cell_of[i] as usize;
            self.starts[c] -= 1;
            let slot = self.starts[c] as usize;
            self.slots[slot] = Slot {
                pos: self.pos[i],
                radius: self.radius[i],
                agent: i as u32,
                kind: self.kind_of[i],
            };
        }
    }

    /// Whether the index was built for this tick and this many agents.
    pub fn is_fresh(&self, tick: u64, agents: usize) -> bool {
        self.stamp == Some((tick, agents))
    }

    /// The cell a position falls in, clamped into the grid (cell 0 for a coordinate that is
    /// not finite).
    fn cell_xy(&self, pos: DVec2) -> (i32, i32) {
        let rel = (pos - self.origin) / self.cell;
        (axis_cell(rel.x, self.cols), axis_cell(rel.y, self.rows))
    }

    fn cell_index(&self, pos: DVec2) -> u32 {
        let (x, y) = self.cell_xy(pos);
        (y * self.cols + x) as u32
    }

    /// The slots of the cells `x0..=x1` of row `y` (contiguous: cells are stored row-major).
    fn row_slots(&self, y: i32, x0: i32, x1: i32) -> std::ops::Range<usize> {
        let first = (y * self.cols + x0) as usize;
        let last = (y * self.cols + x1) as usize;
        self.starts[first] as usize..self.starts[last + 1] as usize
    }

    /// The index of the first agent with this id as of the build, if `agents[index]` still
    /// has it; `None` when the id is not indexed, or when the indexed agent now has another
    /// id (agents changed since the build, or another id has the same hash): then only a scan
    /// can tell.
    pub fn id(&self, agents: &[Agent], id: &str) -> Option<usize> {
        let i = *self.ids.get(&id_hash(id))? as usize;
        agents.get(i).is_some_and(|a| a.id == id).then_some(i)
    }

    /// The agents' ids as of the last [`SpatialIndex::rebuild`].
    pub fn names(&self) -> &Arc<AgentIds> {
        &self.names
    }

    /// The kind of agent `i` at the build.
    pub fn kind_name_of(&self, i: usize) -> Option<&str> {
        let rank = *self.kind_of.get(i)?;
        self.kind_names.get(rank as usize).map(String::as_str)
    }

    /// The position of agent `i` at the build.
    pub fn pos(&self, i: usize) -> Option<DVec2> {
        self.pos.get(i).copied()
    }

    /// Agent `i`'s body as of the build, as local avoidance sees it: position, velocity, body
    /// radius and whether it avoids others.
    pub fn body(&self, i: usize) -> Option<(DVec2, DVec2, f64, bool)> {
        Some((
            *self.pos.get(i)?,
            *self.vel.get(i)?,
            *self.radius.get(i)?,
            *self.avoids.get(i)?,
        ))
    }

    /// The agents of a kind, ascending, as of the build.
    pub fn kind(&self, kind: &str) -> &[u32] {
        self.kind_rank(kind)
            .and_then(|rank| self.members.get(rank as usize))
            .map_or(&[], Vec::as_slice)
    }

    /// Agent `i`'s kind as its rank among the indexed kinds, at the build.
    pub fn kind_rank_of(&self, i: usize) -> Option<u32> {
        self.kind_of.get(i).copied()
    }

    /// The rank of a kind among the indexed kinds, if any agent has it.
    pub fn kind_rank(&self, kind: &str) -> Option<u32> {
        self.kinds.get(kind).copied()
    }

    /// Agents whose centre was within `radius` of `centre` at the build, of `kind` if given,
    /// that pass `keep`, ascending.
    pub fn within(
        &self,
        centre: DVec2,
        radius: f64,
        kind: Option<&str>,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        self.visit_within(centre, radius, kind, |i| {
            if keep(i) {
                out.push(i);
            }
        });
        out.sort_unstable();
        out
    }

    /// Calls `visit` with every agent whose centre was within `radius` of `centre` at the
    /// build (of `kind` if given), each once, in the index's cell order (not ascending: a
    /// caller that needs the agents in order sorts what it keeps). Allocates nothing, so a
    /// caller can gather into a buffer of its own.
    pub fn visit_within(
        &self,
        centre: DVec2,
        radius: f64,
        kind: Option<&str>,
        mut visit: impl FnMut(usize),
    ) {
        if radius.is_nan() || radius < 0.0 || !centre.is_finite() || self.rows == 0 {
            return;
        }
        let rank = match kind {
            Some(k) => match self.kind_rank(k) {
                Some(r) => Some(r),
                None => return,
            },
            None => None,
        };
        let r2 = radius * radius;
        let (x0, y0) = self.cell_xy(centre - DVec2::splat(radius));
        let (x1, y1) = self.cell_xy(centre + DVec2::splat(radius));
        for y in y0..=y1 {
            for s in &self.slots[self.row_slots(y, x0, x1)] {
                if rank.is_some_and(|r| s.kind != r) {
                    continue;
                }
                if s.pos.distance_squared(centre) <= r2 {
                    visit(s.agent as usize);
                }
            }
        }
    }

    /// The agent nearest to `centre` at the build among those that pass `keep` (ties: the
    /// lower index). With `kind`, only that kind is searched.
    pub fn nearest(
        &self,
        centre: DVec2,
        kind: Option<&str>,
        keep: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let rank = match kind {
            Some(k) => Some(self.kind_rank(k)?),
            None => None,
        };
        self.nearest_of_rank(centre, rank, keep)
    }

    /// [`SpatialIndex::nearest`] among the agents of agent `agent`'s kind as of the build
    /// (found by its number, so no name is compared); `None` past the indexed agents.
    pub fn nearest_of_kind_of(
        &self,
        agent: usize,
        centre: DVec2,
        keep: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let rank = *self.kind_of.get(agent)?;
        self.nearest_of_rank(centre, Some(rank), keep)
    }

    /// The agent of `members` (a small kind's list) nearest to `centre` that `keep` keeps; ties
    /// go to the agent listed first.
    #[inline]
    fn nearest_in(
        &self,
        members: &[u32],
        centre: DVec2,
        keep: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let mut best = Nearest::default();
        for &i in members {
            let d = self.pos[i as usize].distance_squared(centre);
            if best.beaten_by(d, i) && keep(i as usize) {
                best.take(d, i);
            }
        }
        best.agent()
    }

    /// [`SpatialIndex::nearest`] with the kind given by its rank.
    ///
    /// A little over 80 lines on purpose: the ring search and the bounds that stop it share
    /// the best so far and the centre's distances to its cell's sides, so they are read in
    /// one place; it answers every nearest-agent query of a crowd, every tick.
    fn nearest_of_rank(
        &self,
        centre: DVec2,
        rank: Option<u32>,
        keep: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        if let Some(r) = rank {
            let members = self.members.get(r as usize)?;
            if members.len() <= SMALL_KIND {
                return self.nearest_in(members, centre, keep);
            }
        }
        let mut best = Nearest::default();
        let (cx, cy) = self.cell_xy(centre);
        let run = |best: &mut Nearest, y: i32, xa: i32, xb: i32| {
            for s in &self.slots[self.row_slots(y, xa, xb)] {
                if rank.is_some_and(|r| s.kind != r) {
                    continue;
                }
                let d = s.pos.distance_squared(centre);
                if best.beaten_by(d, s.agent) && keep(s.agent as usize) {
                    best.take(d, s.agent);
                }
            }
        };
        // How far the centre is from the four sides of its cell (left, right, top, bottom),
        // in tiles; a side with no cells beyond it is infinitely far. A search beyond a side
        // is skipped when nothing there can beat the best so far (with a hair of slack for
        // the rounding of cell units).
        let rel = (centre - self.origin) / self.cell;
        let side = |open: bool, d: f64| match open {
            true => d.max(0.0) * self.cell,
            false => f64::INFINITY,
        };
        let [left, right, top, bottom] = [
            side(cx > 0, rel.x - cx as f64),
            side(cx < self.cols - 1, (cx + 1) as f64 - rel.x),
            side(cy > 0, rel.y - cy as f64),
            side(cy < self.rows - 1, (cy + 1) as f64 - rel.y),
        ];
        const SLACK: f64 = 1.0 - 1e-9;
        let beyond = |best: &Nearest, d: f64| best.found() && d * d * SLACK > best.distance_squared;
        // Rings 0 and 1 together: the 3x3 cells round the centre, one run of slots a row,
        // the centre's own row first.
        let (xa, xb) = ((cx - 1).max(0), (cx + 1).min(self.cols - 1));
        run(&mut best, cy, xa, xb);
        if cy > 0 && !beyond(&best, top) {
            run(&mut best, cy - 1, xa, xb);
        }
        if cy < self.rows - 1 && !beyond(&best, bottom) {
            run(&mut best, cy + 1, xa, xb);
        }
        // Every cell outside rings 0..=r is at least `r * cell` plus the nearest side away.
        let nearest_side = left.min(right).min(top).min(bottom);
        let max_ring = self.cols.max(self.rows);
        for ring in 1..=max_ring {
            if ring >= 2 {
                let (x0, x1, y0, y1) = (cx - ring, cx + ring, cy - ring, cy + ring);
                let (xa, xb) = (x0.max(0), x1.min(self.cols - 1));
                for y in y0.max(0)..=y1.min(self.rows - 1) {
                    if y == y0 || y == y1 {
                        // Edge rows belong to this ring whole.
                        run(&mut best, y, xa, xb);
                    } else {
                        // Inside rows only their two end cells.
                        if x0 >= 0 {
                            run(&mut best, y, x0, x0);
                        }
                        if x1 < self.cols {
                            run(&mut best, y, x1, x1);
                        }
                    }
                }
            }
            if best.found() {
                let reach = ring as f64 * self.cell + nearest_side;
                if best.distance_squared <= reach * reach * SLACK {
                    break;
                }
            }
        }
        best.agent()
    }

    /// Pairs `(i, j)` with `i < j` whose bodies touched at the build (centre distance at most
    /// the sum of the radii), in ascending order of `i` then `j`.
    /// The largest body radius indexed.
    pub fn max_radius(&self) -> f64 {
        self.max_radius
    }

    pub fn touching_pairs(&self) -> Vec<(usize, usize)> {
        // A cell is at least as wide as two radii, so touching bodies are in the same or
        // neighbouring cells (a body outside the map is clamped into a border cell, and
        // anything it touches is in that cell's neighbourhood too). When they are exactly
        // as wide, rounding at a cell edge could tip a neighbour one cell further: then the
        // cells under the reach are worked out for each body.
        let reach = 2.0 * self.max_radius;
        if reach < self.cell * (1.0 - 1e-9) {
            return self.touching_neighbours();
        }
        let mut out = Vec::new();
        let mut near = Vec::new();
        for (i, (&p, &r)) in self.pos.iter().zip(&self.radius).enumerate() {
            near.clear();
            let (x0, y0) = self.cell_xy(p - DVec2::splat(reach));
            let (x1, y1) = self.cell_xy(p + DVec2::splat(reach));
            for y in y0..=y1 {
                for s in &self.slots[self.row_slots(y, x0, x1)] {
                    let j = s.agent as usize;
                    if j > i && p.distance(s.pos) <= r + s.radius {
                        near.push(j);
                    }
                }
            }
            near.sort_unstable();
            out.extend(near.iter().map(|&j| (i, j)));
        }
        out
    }

    /// [`SpatialIndex::touching_pairs`] when touching bodies are always in the same or
    /// neighbouring cells: each pair of bodies is looked at once, from the earlier of their
    /// cells in row-major order (the rest of its own cell, then the cells right, below left,
    /// below and below right), instead of once from each body.
    fn touching_neighbours(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let touch = |a: &Slot, b: &Slot| {
            // As written from the body listed first, like a scan of all.
            let (first, second) = if a.agent < b.agent { (a, b) } else { (b, a) };
            let touching = first.pos.distance(second.pos) <= first.radius + second.radius;
            touching.then_some((first.agent as usize, second.agent as usize))
        };
        for cy in 0..self.rows {
            for cx in 0..self.cols {
                let own = &self.slots[self.row_slots(cy, cx, cx)];
                if own.is_empty() {
                    continue;
                }
                let right = match cx + 1 < self.cols {
                    true => &self.slots[self.row_slots(cy, cx + 1, cx + 1)],
                    false => &[],
                };
                // Below left, below and below right: one run of slots.
                let under = match cy + 1 < self.rows {
                    true => {
                        let (x0, x1) = ((cx - 1).max(0), (cx + 1).min(self.cols - 1));
                        &self.slots[self.row_slots(cy + 1, x0, x1)]
                    }
                    false => &[],
                };
                // Plain loops over the three runs, not a chained iterator: the chain's fold
                // was inlined or not as the crate's other code moved (0.6% of the crowd's tick).
                for (k, a) in own.iter().enumerate() {
                    for others in [&own[k + 1..], right, under] {
                        for b in others {
                            if let Some(pair) = touch(a, b) {
                                out.push(pair);
                            }
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }
}

/// `floor(v)` clamped into `0..=cells - 1` (0 when `v` is not finite). Clamping first and
/// truncating gives the same cell without a call to `floor` (which is not inlined on the base
/// x86-64 target): on `[0, cells - 1]` truncation is the floor.
fn axis_cell(v: f64, cells: i32) -> i32 {
    if v.is_finite() {
        v.clamp(0.0, (cells - 1).max(0) as f64) as i32
    } else {
        0
    }
}

/// The best candidate of a nearest-agent search so far: the smallest squared distance, ties
/// to the lower agent index.
struct Nearest {
    distance_squared: f64,
    /// `NONE` until a candidate is taken.
    agent: u32,
}

impl Nearest {
    const NONE: u32 = u32::MAX;

    fn found(&self) -> bool {
        self.agent != Nearest::NONE
    }

    /// Whether a candidate at squared distance `d` with index `agent` would be better (the
    /// first candidate always is, whatever its distance, as a scan would take it).
    fn beaten_by(&self, d: f64, agent: u32) -> bool {
        !self.found()
            || d < self.distance_squared
            || (d == self.distance_squared && agent < self.agent)
    }

    fn take(&mut self, d: f64, agent: u32) {
        self.distance_squared = d;
        self.agent = agent;
    }

    fn agent(&self) -> Option<usize> {
        self.found().then_some(self.agent as usize)
    }
}

impl Default for Nearest {
    fn default() -> Self {
        Nearest {
            distance_squared: f64::INFINITY,
            agent: Nearest::NONE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::rng;
    use glam::IVec2;

    fn crowd(n: usize, w: i32, h: i32, seed: u64) -> Vec<Agent> {
        let mut r = rng::stream(seed, "crowd", "test");
        (0..n)
            .map(|i| {
                let mut a = Agent::new(format!("a{i}"), IVec2::ZERO);
                a.pos = DVec2::new(
                    rng::unit_f64(&mut r) * (w - 1) as f64,
                    rng::unit_f64(&mut r) * (h - 1) as f64,
                );
                a.kind = if i % 7 == 0 { "wolf" } else { "sheep" }.into();
                a
            })
            .collect()
    }

    /// Moves every fifth agent off the map (up to three tiles past a side), where the index
    /// clamps it into a border cell.
    fn strays(mut agents: Vec<Agent>, w: i32, h: i32) -> Vec<Agent> {
        for (i, a) in agents.iter_mut().enumerate().step_by(5) {
            let past = 0.6 + (i % 3) as f64;
            match i % 4 {
                0 => a.pos.x = -past,
                1 => a.pos.x = w as f64 + past,
                2 => a.pos.y = -past,
                _ => a.pos.y = h as f64 + past,
            }
        }
        agents
    }

    #[test]
    fn queries_agree_with_a_scan_of_all() {
        let cases = [(1, 5, 5), (50, 10, 10), (700, 60, 40), (300, 200, 3)];
        for (n, w, h, stray) in cases
            .into_iter()
            .flat_map(|(n, w, h)| [(n, w, h, false), (n, w, h, true)])
        {
            let agents = match stray {
                false => crowd(n, w, h, n as u64),
                true => strays(crowd(n, w, h, n as u64), w, h),
            };
            // The same agents indexed where they stood before, then moved where they are now:
            // the index the simulation keeps from tick to tick.
            let mut moved = SpatialIndex::build(&crowd(n, w, h, n as u64 + 100), w, h, 0);
            moved.moved(&agents, w, h, 1);
            assert!(moved.is_fresh(1, n));
            for index in [SpatialIndex::build(&agents, w, h, 1), moved] {
                let mut r = rng::stream(9, "probe", "test");
                for probe in 0..80 {
                    // A few probes outside the map, where cells are clamped.
                    let spread = if probe % 10 == 0 { 3.0 } else { 1.0 };
                    let c = DVec2::new(
                        (rng::unit_f64(&mut r) * spread - (spread - 1.0) / 2.0) * w as f64 - 0.5,
                        (rng::unit_f64(&mut r) * spread - (spread - 1.0) / 2.0) * h as f64 - 0.5,
                    );
                    let radius = rng::unit_f64(&mut r) * 6.0;
                    for kind in [None, Some("wolf"), Some("sheep"), Some("nobody")] {
                        let of_kind = |i: &usize| kind.is_none_or(|k| agents[*i].kind == k);
                        let scan: Vec<usize> = (0..n)
                            .filter(|&i| agents[i].pos.distance_squared(c) <= radius * radius)
                            .filter(of_kind)
                            .collect();
                        assert_eq!(index.within(c, radius, kind, |_| true), scan);
                        let skip = (n / 2).min(n - 1);
                        let scan =
                            (0..n)
                                .filter(|&i| i != skip)
                                .filter(of_kind)
                                .min_by(|&a, &b| {
                                    c.distance_squared(agents[a].pos)
                                        .total_cmp(&c.distance_squared(agents[b].pos))
                                });
                        assert_eq!(index.nearest(c, kind, |i| i != skip), scan);
                    }
                }
            }
        }
    }

    #[test]
    fn axis_cells_are_the_clamped_floor() {
        for cells in [1, 2, 7] {
            for v in [
                -3.5f64, -1.0, -0.5, -0.0, 0.0, 0.25, 0.999, 1.0, 1.5, 6.0, 6.99, 7.0, 1e300,
            ] {
                let want = f64::floor(v).clamp(0.0, (cells - 1) as f64) as i32;
                assert_eq!(axis_cell(v, cells), want, "{v} of {cells}");
            }
            for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                assert_eq!(axis_cell(v, cells), 0);
            }
        }
    }

    #[test]
    fn ties_in_distance_go_to_the_lower_index() {
        // Four agents on the corners of a square round the probe, two of them stacked.
        let mut agents = crowd(5, 10, 10, 1);
        for (a, (x, y)) in agents
            .iter_mut()
            .zip([(6, 4), (4, 6), (4, 4), (6, 6), (4, 4)])
        {
            a.pos = DVec2::new(x as f64, y as f64);
            a.kind = "sheep".into();
        }
        let index = SpatialIndex::build(&agents, 10, 10, 0);
        let c = DVec2::new(5.0, 5.0);
        assert_eq!(index.nearest(c, None, |_| true), Some(0));
        assert_eq!(index.nearest(c, None, |i| i != 0), Some(1));
        assert_eq!(index.nearest(DVec2::new(4.0, 4.0), None, |_| true), Some(2));
        assert_eq!(index.within(c, 1.5, None, |_| true), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn touching_pairs_agree_with_a_scan_of_all() {
        // Radii up to 0.6 make cells exactly two radii wide; up to 0.4 leave them wider.
        for widest in [0.5, 0.3] {
            let mut agents = crowd(600, 30, 30, 3);
            let mut r = rng::stream(3, "radius", "test");
            for a in agents.iter_mut() {
                a.radius = 0.1 + widest * rng::unit_f64(&mut r);
            }
            // A few bodies off the map, clamped into border cells, touching each other.
            for (k, a) in agents.iter_mut().take(6).enumerate() {
                a.pos = DVec2::new(-3.0 + 0.2 * k as f64, 12.0);
            }
            let index = SpatialIndex::build(&agents, 30, 30, 0);
            let mut scan = Vec::new();
            for i in 0..agents.len() {
                for j in i + 1..agents.len() {
                    let reach = agents[i].radius + agents[j].radius;
                    if agents[i].pos.distance(agents[j].pos) <= reach {
                        scan.push((i, j));
                    }
                }
            }
            assert!(scan.contains(&(0, 1)));
            assert_eq!(index.touching_pairs(), scan, "radii up to {}", 0.1 + widest);
        }
    }

    #[test]
    fn targets_from_one_list_are_equal_exactly_when_their_ids_are() {
        use crate::world::AgentRef;
        let mut agents = crowd(4, 10, 10, 1);
        let index = SpatialIndex::build(&agents, 10, 10, 0);
        let refs: Vec<_> = (0..4)
            .map(|i| AgentRef::listed(index.names(), i).unwrap())
            .collect();
        assert_eq!(refs[1], AgentRef::listed(index.names(), 1).unwrap());
        assert_eq!(refs[1], AgentRef::new("a1", 3));
        assert_ne!(refs[1], refs[2]);
        // Two agents share an id: their places in the list name the same agent id.
        agents[2].id = "a1".into();
        let index = SpatialIndex::build(&agents, 10, 10, 0);
        let one = AgentRef::listed(index.names(), 1).unwrap();
        let two = AgentRef::listed(index.names(), 2).unwrap();
        assert_eq!(one, two);
        assert_ne!(one, AgentRef::listed(index.names(), 3).unwrap());
    }

    #[test]
    fn ids_and_kinds_are_indexed() {
        let agents = crowd(20, 10, 10, 1);
        let index = SpatialIndex::build(&agents, 10, 10, 4);
        assert_eq!(index.id(&agents, "a13"), Some(13));
        assert_eq!(index.id(&agents, "nobody"), None);
        let mut renamed = agents.clone();
        renamed[13].id = "someone else".into();
        assert_eq!(index.id(&renamed, "a13"), None);
        assert_eq!(index.names().get(13), Some("a13"));
        assert_eq!(index.pos(13), Some(agents[13].pos));
        assert_eq!(index.kind("wolf"), &[0, 7, 14]);
        assert!(index.is_fresh(4, 20));
        assert!(!index.is_fresh(5, 20));
    }
}
