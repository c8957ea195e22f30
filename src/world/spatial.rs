//! A uniform grid bucket index over agent positions, rebuilt once per tick by the simulation,
//! so neighbour queries (agents within a radius, the nearest agent) and contact tests look at
//! nearby agents only instead of scanning them all. It also maps ids and kinds to agent
//! indices. Plain data like the rest of `world`: no I/O, no clock, no randomness.
//!
//! Every answer is the same as a scan of all agents would give, in the same order (ascending
//! agent index; ties in distance go to the lower index), so results never depend on the cell
//! size.

use super::agent::Agent;
use glam::DVec2;
use std::collections::{BTreeMap, HashMap};

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

/// Cells of a uniform grid laid over the agents, each listing the agents whose centre is in it.
#[derive(Clone, Debug, Default)]
pub struct SpatialIndex {
    /// Side of a cell, in tiles.
    cell: f64,
    /// World position of the corner of cell (0, 0).
    origin: DVec2,
    cols: i32,
    rows: i32,
    /// `entries[starts[c]..starts[c + 1]]` are the agents in cell `c`, ascending.
    starts: Vec<u32>,
    entries: Vec<u32>,
    /// By the FNV hash of an agent's id: the first agent with that hash. Keyed by the hash so a
    /// rebuild copies no strings; [`SpatialIndex::id`] checks the name before trusting it.
    ids: FastMap<u64, u32>,
    kinds: BTreeMap<String, Vec<u32>>,
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
        let max_radius = agents.iter().map(|a| a.radius).fold(0.0, f64::max);
        let area = (width.max(1) as f64) * (height.max(1) as f64);
        // Keep the number of cells near the number of agents so a rebuild stays cheap.
        let by_count = (area / (4.0 * agents.len() as f64 + 64.0)).sqrt();
        let cell = 1.0f64.max(2.0 * max_radius).max(by_count);
        // Agents stay inside the map; anything outside is clamped into the border cells.
        let origin = DVec2::new(-0.5, -0.5);
        let cols = ((width.max(1) as f64) / cell).ceil().max(1.0) as i32;
        let rows = ((height.max(1) as f64) / cell).ceil().max(1.0) as i32;
        let mut index = SpatialIndex {
            cell,
            origin,
            cols,
            rows,
            starts: vec![0; (cols * rows) as usize + 1],
            entries: vec![0; agents.len()],
            ids: FastMap::with_capacity_and_hasher(agents.len(), Default::default()),
            kinds: BTreeMap::new(),
            kind_of: vec![0; agents.len()],
            max_radius,
            stamp: Some((tick, agents.len())),
        };
        let cells: Vec<u32> = agents.iter().map(|a| index.cell_index(a.pos)).collect();
        for &c in &cells {
            index.starts[c as usize + 1] += 1;
        }
        for c in 1..index.starts.len() {
            index.starts[c] += index.starts[c - 1];
        }
        let mut next = index.starts.clone();
        for (i, &c) in cells.iter().enumerate() {
            let slot = &mut next[c as usize];
            index.entries[*slot as usize] = i as u32;
            *slot += 1;
        }
        for (i, a) in agents.iter().enumerate() {
            index.ids.entry(id_hash(&a.id)).or_insert(i as u32);
            // Look the kind up first: cloning its name for every agent would allocate.
            match index.kinds.get_mut(a.kind.as_str()) {
                Some(members) => members.push(i as u32),
                None => {
                    index.kinds.insert(a.kind.clone(), vec![i as u32]);
                }
            }
        }
        for (rank, members) in index.kinds.values().enumerate() {
            for &i in members {
                index.kind_of[i as usize] = rank as u32;
            }
        }
        index
    }

    /// Whether the index was built for this tick and this many agents.
    pub fn is_fresh(&self, tick: u64, agents: usize) -> bool {
        self.stamp == Some((tick, agents))
    }

    fn cell_xy(&self, pos: DVec2) -> (i32, i32) {
        let rel = (pos - self.origin) / self.cell;
        let cx = if rel.x.is_finite() {
            rel.x.floor()
        } else {
            0.0
        };
        let cy = if rel.y.is_finite() {
            rel.y.floor()
        } else {
            0.0
        };
        (
            (cx.clamp(0.0, (self.cols - 1) as f64)) as i32,
            (cy.clamp(0.0, (self.rows - 1) as f64)) as i32,
        )
    }

    fn cell_index(&self, pos: DVec2) -> u32 {
        let (x, y) = self.cell_xy(pos);
        (y * self.cols + x) as u32
    }

    fn cell(&self, x: i32, y: i32) -> &[u32] {
        let c = (y * self.cols + x) as usize;
        &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// The index of the first agent with this id as of the build, if `agents[index]` still
    /// has it; `None` when the id is not indexed, or when the indexed agent now has another
    /// id (agents changed since the build, or another id has the same hash): then only a scan
    /// can tell.
    pub fn id(&self, agents: &[Agent], id: &str) -> Option<usize> {
        let i = *self.ids.get(&id_hash(id))? as usize;
        agents.get(i).is_some_and(|a| a.id == id).then_some(i)
    }

    /// The agents of a kind, ascending, as of the build.
    pub fn kind(&self, kind: &str) -> &[u32] {
        self.kinds.get(kind).map_or(&[], Vec::as_slice)
    }

    /// Agents whose centre is within `radius` of `centre` and that pass `keep`, ascending.
    pub fn within(
        &self,
        agents: &[Agent],
        centre: DVec2,
        radius: f64,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        if radius.is_nan() || radius < 0.0 || !centre.is_finite() {
            return out;
        }
        let r2 = radius * radius;
        let (x0, y0) = self.cell_xy(centre - DVec2::splat(radius));
        let (x1, y1) = self.cell_xy(centre + DVec2::splat(radius));
        for y in y0..=y1 {
            for x in x0..=x1 {
                for &i in self.cell(x, y) {
                    let i = i as usize;
                    if agents[i].pos.distance_squared(centre) <= r2 && keep(i) {
                        out.push(i);
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// The agent nearest to `centre` among those that pass `keep` (ties: the lower index).
    /// With `kind`, only that kind is searched.
    pub fn nearest(
        &self,
        agents: &[Agent],
        centre: DVec2,
        kind: Option<&str>,
        keep: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let better = |best: Option<(f64, usize)>, d: f64, i: usize| match best {
            None => true,
            Some((bd, bi)) => d < bd || (d == bd && i < bi),
        };
        let mut best: Option<(f64, usize)> = None;
        if let Some(k) = kind {
            let members = self.kind(k);
            if members.len() <= SMALL_KIND {
                for &i in members {
                    let i = i as usize;
                    let d = agents[i].pos.distance_squared(centre);
                    if keep(i) && better(best, d, i) {
                        best = Some((d, i));
                    }
                }
                return best.map(|(_, i)| i);
            }
        }
        let kind_rank = match kind {
            Some(k) => match self.kinds.keys().position(|name| name == k) {
                Some(r) => Some(r as u32),
                None => return None,
            },
            None => None,
        };
        let (cx, cy) = self.cell_xy(centre);
        let max_ring = self.cols.max(self.rows);
        for ring in 0..=max_ring {
            let (x0, x1, y0, y1) = (cx - ring, cx + ring, cy - ring, cy + ring);
            for y in y0.max(0)..=y1.min(self.rows - 1) {
                let on_edge_row = y == y0 || y == y1;
                let mut x = x0.max(0);
                while x <= x1.min(self.cols - 1) {
                    for &i in self.cell(x, y) {
                        let i = i as usize;
                        if kind_rank.is_some_and(|k| self.kind_of[i] != k) {
                            continue;
                        }
                        let d = agents[i].pos.distance_squared(centre);
                        if better(best, d, i) && keep(i) {
                            best = Some((d, i));
                        }
                    }
                    // Inside rows only the two edge cells belong to this ring.
                    x = if on_edge_row || x == x1 { x + 1 } else { x1 };
                }
            }
            if let Some((d, _)) = best {
                // Every unvisited cell is at least `ring * cell` away from the centre
                // (the centre lies inside cell (cx, cy)).
                let reach = ring as f64 * self.cell;
                if d <= reach * reach {
                    break;
                }
            }
        }
        best.map(|(_, i)| i)
    }

    /// Pairs `(i, j)` with `i < j` whose bodies touch (centre distance at most the sum of the
    /// radii), in ascending order of `i` then `j`.
    pub fn touching_pairs(&self, agents: &[Agent]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut near = Vec::new();
        let reach = 2.0 * self.max_radius;
        for (i, a) in agents.iter().enumerate() {
            near.clear();
            let (x0, y0) = self.cell_xy(a.pos - DVec2::splat(reach));
            let (x1, y1) = self.cell_xy(a.pos + DVec2::splat(reach));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    for &j in self.cell(x, y) {
                        let j = j as usize;
                        if j > i && a.pos.distance(agents[j].pos) <= a.radius + agents[j].radius {
                            near.push(j);
                        }
                    }
                }
            }
            near.sort_unstable();
            out.extend(near.iter().map(|&j| (i, j)));
        }
        out
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

    #[test]
    fn queries_agree_with_a_scan_of_all() {
        for (n, w, h) in [(1, 5, 5), (50, 10, 10), (700, 60, 40), (300, 200, 3)] {
            let agents = crowd(n, w, h, n as u64);
            let index = SpatialIndex::build(&agents, w, h, 0);
            let mut r = rng::stream(9, "probe", "test");
            for _ in 0..60 {
                let c = DVec2::new(
                    rng::unit_f64(&mut r) * w as f64 - 0.5,
                    rng::unit_f64(&mut r) * h as f64 - 0.5,
                );
                let radius = rng::unit_f64(&mut r) * 6.0;
                let scan: Vec<usize> = (0..n)
                    .filter(|&i| agents[i].pos.distance_squared(c) <= radius * radius)
                    .collect();
                assert_eq!(index.within(&agents, c, radius, |_| true), scan);
                for kind in [None, Some("wolf"), Some("sheep")] {
                    let skip = (n / 2).min(n - 1);
                    let scan = (0..n)
                        .filter(|&i| i != skip && kind.is_none_or(|k| agents[i].kind == k))
                        .min_by(|&a, &b| {
                            c.distance_squared(agents[a].pos)
                                .total_cmp(&c.distance_squared(agents[b].pos))
                        });
                    assert_eq!(index.nearest(&agents, c, kind, |i| i != skip), scan);
                }
            }
        }
    }

    #[test]
    fn touching_pairs_agree_with_a_scan_of_all() {
        let agents = crowd(600, 30, 30, 3);
        let index = SpatialIndex::build(&agents, 30, 30, 0);
        let mut scan = Vec::new();
        for i in 0..agents.len() {
            for j in i + 1..agents.len() {
                if agents[i].pos.distance(agents[j].pos) <= agents[i].radius + agents[j].radius {
                    scan.push((i, j));
                }
            }
        }
        assert!(!scan.is_empty());
        assert_eq!(index.touching_pairs(&agents), scan);
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
        assert_eq!(index.kind("wolf"), &[0, 7, 14]);
        assert!(index.is_fresh(4, 20));
        assert!(!index.is_fresh(5, 20));
    }
}
