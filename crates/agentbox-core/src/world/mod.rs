//! The world: plain data for one moment of a scene — the tile grid and its terrain, the agents,
//! their breadcrumbs, the waypoints and the tick counter.
//!
//! This module does no I/O, reads no clock and owns no random generator; it must not name
//! mlua, macroquad or notify. Everything above it (navigation, simulation, scripting,
//! rendering) reads it; only the simulation and the scene loader change it.

pub mod action;
pub mod agent;
pub mod debug;
pub mod effects;
pub mod grid;
pub mod keys;
pub mod motion;
pub mod path_options;
pub mod reload;
pub mod rng;
pub mod script_error;
pub mod spatial;
pub mod terrain;
pub mod waypoint_table;

pub use action::{
    Action, AgentIds, AgentRef, FlockRule, FlockSpec, Hand, LennardJones, PotentialSpec, Target,
    TilePath, TraceVariant,
};
pub use agent::{
    no_params, share_equal_params, Agent, Brain, Crumbs, Leg, Look, Marker, Params, Route,
    RouteKind,
};
pub use debug::{Role, Shape};
pub use effects::{Deliveries, Effect, Heard, Letter};
pub use grid::{Grid, RowError, BOUND_MARGIN};
pub use keys::{MapKey, Roster};
pub use motion::{Motion, MoveMemory, TraceMode, TraceState, Walk};
pub use path_options::{NoPath, PathOptions};
pub use script_error::{ErrorKind, ScriptError};
pub use spatial::SpatialIndex;
pub use terrain::{Terrain, TerrainId, TerrainTable};
pub use waypoint_table::WaypointTable;

use glam::{DVec2, IVec2};

/// A tile coordinate: `[column, row]`, row 0 at the top.
pub type Tile = IVec2;

/// The tile whose centre is nearest to a position (integer coordinates are tile centres).
pub fn tile_of(pos: DVec2) -> Tile {
    IVec2::new(round_to_i32(pos.x), round_to_i32(pos.y))
}

/// `v.round() as i32` (halves away from zero, saturating, NaN to 0) without the call to libm's
/// `round` that `f64::round` makes on baseline x86-64: every agent finds its tile every tick.
/// The fraction `v - trunc(v)` is exact, so the result is the same for every `v`.
fn round_to_i32(v: f64) -> i32 {
    let t = v as i32;
    let f = v - t as f64;
    if f >= 0.5 {
        t.saturating_add(1)
    } else if f <= -0.5 {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// `N` of an id `KIND-N` (`drone-3` of kind `drone`: 3).
pub fn number_of(id: &str, kind: &str) -> Option<u64> {
    let digits = id.strip_prefix(kind)?.strip_prefix('-')?;
    if digits.is_empty() {
        return None;
    }
    // Read in the one pass that checks the digits (a spawn notes every new agent's number);
    // too large a number is none, as `parse` has it.
    digits.bytes().try_fold(0u64, |n, b| {
        let digit = b.checked_sub(b'0').filter(|d| *d <= 9)?;
        n.checked_mul(10)?.checked_add(digit as u64)
    })
}

/// Raises `numbers`' highest number of `kind` to `n`. Looked up first: the kind is copied
/// only the first time it is seen.
fn note_number(numbers: &mut std::collections::BTreeMap<String, u64>, kind: &str, n: u64) {
    match numbers.get_mut(kind) {
        Some(top) => *top = (*top).max(n),
        None => drop(numbers.insert(kind.to_string(), n)),
    }
}

/// The centre of a tile as a position.
pub fn centre_of(tile: Tile) -> DVec2 {
    DVec2::new(tile.x as f64, tile.y as f64)
}

/// Everything the simulation runs on. Cloned cheaply only when scripts still hold a view.
#[derive(Clone, Debug)]
pub struct World {
    pub name: String,
    grid: Grid,
    terrain: TerrainTable,
    /// Cost of entering each cell, row-major; `f32::INFINITY` where blocked. Derived from
    /// `grid` and `terrain`, kept in step by every change, read by navigation.
    costs: Vec<f32>,
    /// By cell, row-major: whether the cell and its eight neighbours are all inside the map
    /// and free, so that a body of radius at most half a tile whose centre is on this tile
    /// touches no wall. Derived from `costs` and kept in step with it.
    open: Vec<bool>,
    pub agents: Vec<Agent>,
    pub waypoints: Vec<Tile>,
    /// Ticks applied so far; 0 before the first.
    pub tick: u64,
    /// Simulation ticks per second; the fixed step is `1 / tick_rate` seconds.
    pub tick_rate: u32,
    /// The seed all randomness derives from.
    pub seed: u64,
    /// How many times the map was edited ([`World::map_version`]; see [`keys`]).
    map_version: u64,
    /// A hash of the map's content (its size and every cell's entry cost), kept in step with
    /// `costs` cell by cell ([`MapKey`]; see [`keys`]).
    map_key: MapKey,
    /// A goal tile set by the designer (right-click in the window); scripts read it with
    /// `world:goal()`.
    pub goal: Option<Tile>,
    /// The waypoint node table (`next[from][to]`) for `waypoints`, rebuilt by the simulation
    /// when the map or the waypoints change.
    pub waypoint_table: WaypointTable,
    /// Where the agents were at the last [`World::reindex`]; queries fall back to a scan of
    /// all agents when it is stale.
    index: SpatialIndex,
    /// The agent list's generation ([`Roster`]; see [`keys`]), taken by the simulation.
    roster: Roster,
    /// Whether `index` describes the agents exactly as they stand (see [`World::seal`]).
    sealed: Sealed,
    /// What the last tick's scripts asked for, applied before the next tick's decisions
    /// (`sim::effects`), in agent order and then call order.
    pub pending: Vec<Effect>,
    /// What a spawned agent of each kind is made like: the scene's first agent or `spawn:`
    /// group of that kind, as built (shared: every copy of the world holds the same).
    pub templates: std::sync::Arc<std::collections::BTreeMap<String, Agent>>,
    /// The highest number `N` any agent `KIND-N` of each kind has had, so spawned ids are
    /// never reused.
    pub numbers: std::collections::BTreeMap<String, u64>,
    /// Whether some agent holds deliveries (so applying the next effects must clear them).
    pub delivered: bool,
    /// Emptied deliveries kept for the next receivers (none in a clone).
    pub spare_deliveries: effects::SpareDeliveries,
    /// The messages each agent was sent in the tick being collected (all zero between).
    pub inbox_counts: effects::InboxCounts,
    /// The designer's terrain under each tile a script changed (`world:set_tile`), so the map
    /// saved from the window stays the designer's ([`World::designers_map`]); a tile the
    /// designer paints afterwards is theirs again.
    pub scripted_tiles: std::collections::BTreeMap<(i32, i32), TerrainId>,
}

/// Set by the simulation for the world it holds while the index describes the agents exactly;
/// a clone starts unsealed, since whoever holds it may change its agents.
#[derive(Debug, Default)]
struct Sealed(bool);

impl Clone for Sealed {
    fn clone(&self) -> Self {
        Sealed(false)
    }
}

impl World {
    /// A world with no agents at tick 0.
    pub fn new(
        name: impl Into<String>,
        grid: Grid,
        terrain: TerrainTable,
        tick_rate: u32,
        seed: u64,
    ) -> Self {
        let mut world = World {
            roster: Roster::UNKNOWN,
            name: name.into(),
            grid,
            terrain,
            costs: Vec::new(),
            open: Vec::new(),
            agents: Vec::new(),
            waypoints: Vec::new(),
            tick: 0,
            tick_rate: tick_rate.max(1),
            seed,
            map_version: 0,
            map_key: MapKey::default(),
            goal: None,
            waypoint_table: WaypointTable::default(),
            index: SpatialIndex::default(),
            sealed: Sealed(false),
            pending: Vec::new(),
            templates: Default::default(),
            numbers: Default::default(),
            delivered: false,
            spare_deliveries: Default::default(),
            inbox_counts: Default::default(),
            scripted_tiles: Default::default(),
        };
        world.recompute_costs();
        world
    }

    /// A world from ASCII rows in the built-in terrain (`.` floor, `#` wall, `=` road, `~` water,
    /// `:` mud), tick rate 30, seed 0: the form of test fixtures. Unknown characters are walls.
    pub fn from_ascii(rows: &[&str]) -> Self {
        let terrain = TerrainTable::builtin();
        let wall = terrain.by_name("wall");
        let grid = Grid::from_rows(rows, |c| terrain.by_glyph(c).or(wall)).unwrap_or_else(|_| {
            Grid::filled(0, 0, 0) // unreachable: every character maps to something
        });
        World::new("ascii", grid, terrain, 30, 0)
    }

    fn recompute_costs(&mut self) {
        let terrain = &self.terrain;
        self.costs = self
            .grid
            .cells()
            .iter()
            .map(|&id| cost_of(terrain.get(id)))
            .collect();
        self.map_key = MapKey::of(self.grid.width(), self.grid.height(), &self.costs);
        self.open = vec![false; self.costs.len()];
        let (w, h) = (self.grid.width(), self.grid.height());
        for y in 0..h {
            for x in 0..w {
                self.refresh_open(IVec2::new(x, y));
            }
        }
    }

    /// Works out [`World::open`] again for one tile, if inside the map.
    fn refresh_open(&mut self, tile: Tile) {
        let Some(i) = self.grid.index(tile) else {
            return;
        };
        let mut open = true;
        for dy in -1..=1 {
            for dx in -1..=1 {
                open &= !self.is_blocked(tile + IVec2::new(dx, dy));
            }
        }
        self.open[i] = open;
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    pub fn terrain(&self) -> &TerrainTable {
        &self.terrain
    }

    /// Cost of entering each cell, row-major (`f32::INFINITY` where blocked).
    pub fn costs(&self) -> &[f32] {
        &self.costs
    }

    /// The hash of the map's content ([`MapKey`]): equal for equal maps (size and entry costs),
    /// whether painted, reloaded, reset or restored. What caches of functions of the costs
    /// key by (see [`keys`]).
    pub fn map_key(&self) -> MapKey {
        self.map_key
    }

    /// How many times this world's map was edited (a painted tile, a replaced map), counting
    /// an edit that restores the content too: what was planned on the map re-plans when it
    /// moves (see [`keys`]). It counts one world's edits (a copy keeps it); caches shared
    /// between worlds key by [`World::map_key`] instead.
    pub fn map_version(&self) -> u64 {
        self.map_version
    }

    /// The agent list's generation (see [`keys`]): while it stays, every index holds the same
    /// agent (id, brain, suspended or not) as when it was taken.
    pub fn roster(&self) -> Roster {
        self.roster
    }

    /// Takes a new roster: the agent list may have changed (only the simulation calls this).
    pub(crate) fn new_roster(&mut self) {
        self.roster = Roster::next();
    }

    /// Replaces the map and its terrain (a scene reload); routes re-plan.
    pub fn replace_map(&mut self, grid: Grid, terrain: TerrainTable) {
        self.grid = grid;
        self.terrain = terrain;
        self.recompute_costs();
        self.map_version += 1;
    }

    /// Seconds of one fixed step.
    pub fn dt(&self) -> f64 {
        1.0 / self.tick_rate as f64
    }

    /// Simulated seconds since the start.
    pub fn time(&self) -> f64 {
        self.tick as f64 * self.dt()
    }

    /// A position as primitives and queries may use it ([`Grid::bound_pos`]): `None` when not
    /// finite, else moved to within one tile of the map.
    pub fn bound_pos(&self, pos: DVec2) -> Option<DVec2> {
        self.grid.bound_pos(pos)
    }

    /// A tile moved to within one tile of the map ([`Grid::bound_tile`]).
    pub fn bound_tile(&self, tile: Tile) -> Tile {
        self.grid.bound_tile(tile)
    }

    /// Whether a tile is inside the map.
    pub fn in_bounds(&self, tile: Tile) -> bool {
        self.grid.in_bounds(tile)
    }

    /// Whether a tile blocks movement and sight; tiles outside the map are blocked.
    pub fn is_blocked(&self, tile: Tile) -> bool {
        match self.grid.index(tile) {
            Some(i) => self.costs[i] == f32::INFINITY,
            None => true,
        }
    }

    /// The terrain at a tile, if inside the map.
    pub fn terrain_at(&self, tile: Tile) -> Option<&Terrain> {
        self.grid.get(tile).map(|id| self.terrain.get(id))
    }

    /// The cost of entering a tile (1 for plain floor), or `None` if it is blocked.
    pub fn step_cost(&self, tile: Tile) -> Option<f64> {
        let terrain = self.terrain_at(tile)?;
        (!terrain.blocked).then_some(terrain.cost)
    }

    /// Paints a tile with a terrain kind; returns false outside the map.
    pub fn set_terrain(&mut self, tile: Tile, id: TerrainId) -> bool {
        self.scripted_tiles.remove(&(tile.x, tile.y));
        if !self.grid.set(tile, id) {
            return false;
        }
        if let Some(i) = self.grid.index(tile) {
            let cost = cost_of(self.terrain.get(id));
            self.map_key.replace(i, self.costs[i], cost);
            self.costs[i] = cost;
        }
        for dy in -1..=1 {
            for dx in -1..=1 {
                self.refresh_open(tile + IVec2::new(dx, dy));
            }
        }
        self.map_version += 1;
        true
    }

    /// A script's `world:set_tile`: the same change as [`World::set_terrain`], remembering the
    /// designer's terrain under the tile.
    pub fn set_terrain_by_script(&mut self, tile: Tile, id: TerrainId) -> bool {
        let Some(before) = self.grid.get(tile) else {
            return false;
        };
        let designers = self
            .scripted_tiles
            .get(&(tile.x, tile.y))
            .copied()
            .unwrap_or(before);
        let changed = self.set_terrain(tile, id);
        if designers != id {
            self.scripted_tiles.insert((tile.x, tile.y), designers);
        }
        changed
    }

    /// This world with the designer's terrain back under every tile scripts changed: what
    /// the window saves as the scene's map.
    pub fn designers_map(&self) -> World {
        let mut world = self.clone();
        for (&(x, y), &id) in &self.scripted_tiles {
            world.set_terrain(Tile::new(x, y), id);
        }
        world
    }

    /// Makes agents as they stand the templates of spawned agents and notes the highest
    /// `KIND-N` number of each kind: what the scene loader does once the agents are built.
    /// `order` lists agent indices in the order their entries come in the scene file; the
    /// first of each kind in it is that kind's template (indices past the list are ignored).
    pub fn take_templates(&mut self, order: impl IntoIterator<Item = usize>) {
        let mut templates = std::collections::BTreeMap::new();
        for agent in order.into_iter().filter_map(|i| self.agents.get(i)) {
            templates
                .entry(agent.kind.clone())
                .or_insert_with(|| agent.clone());
        }
        self.templates = std::sync::Arc::new(templates);
        self.note_numbers();
    }

    /// Raises the highest `KIND-N` number of each kind to those of the agents as they stand.
    pub fn note_numbers(&mut self) {
        self.note_numbers_from(0);
    }

    /// Raises the highest `KIND-N` number of each kind to those of the agents from index
    /// `first` on: the agents before it are already noted (new agents are appended, and a
    /// removal never lowers a number), so a spawn notes only what it added instead of
    /// parsing every agent's id again.
    pub fn note_numbers_from(&mut self, first: usize) {
        let mut run: Option<(&str, u64)> = None;
        for agent in self.agents.iter().skip(first) {
            let Some(n) = number_of(&agent.id, &agent.kind) else {
                continue;
            };
            // A run of one kind (a crowd spawned in one tick) is looked up once.
            match &mut run {
                Some((kind, top)) if *kind == agent.kind => *top = (*top).max(n),
                _ => {
                    if let Some((kind, top)) = run.replace((&agent.kind, n)) {
                        note_number(&mut self.numbers, kind, top);
                    }
                }
            }
        }
        if let Some((kind, top)) = run {
            note_number(&mut self.numbers, kind, top);
        }
    }

    /// Rebuilds the spatial index from the agents as they stand.
    pub fn reindex(&mut self) {
        let (w, h) = (self.grid.width(), self.grid.height());
        self.index.rebuild(&self.agents, w, h, self.tick);
    }

    /// Re-indexes the agents' positions after they moved, keeping the ids, kinds and radii
    /// from the last [`World::reindex`]: only for agents that changed nothing else since (the
    /// simulation's tick; a change from outside goes through a full reindex).
    pub fn reindex_moved(&mut self) {
        let (w, h) = (self.grid.width(), self.grid.height());
        self.index.moved(&self.agents, w, h, self.tick);
    }

    /// [`World::reindex_moved`] with the agents' positions and velocities as they now stand
    /// given in order (`positions[i]` is `agents[i].pos`, `velocities[i]` its `vel`), so the
    /// agents themselves are not read again; lists of another length re-index the agents
    /// afresh.
    pub fn reindex_moved_to(&mut self, positions: &[DVec2], velocities: &[DVec2]) {
        let (w, h) = (self.grid.width(), self.grid.height());
        match positions.len() == self.agents.len() && velocities.len() == self.agents.len() {
            true => self
                .index
                .moved_to(&self.agents, positions, velocities, w, h, self.tick),
            false => self.index.rebuild(&self.agents, w, h, self.tick),
        }
    }

    /// Promises that the spatial index describes the agents exactly as they stand (their ids,
    /// order, kinds, positions, velocities, radii and avoidance) until [`World::unseal`]: targets then follow their
    /// agents through the index's compact copies instead of the `Agent` structs. Only the
    /// simulation seals, right after indexing the world it holds, and unseals before it or
    /// anyone else changes the agents.
    pub(crate) fn seal(&mut self) {
        self.sealed = Sealed(self.index.is_fresh(self.tick, self.agents.len()));
    }

    pub(crate) fn is_sealed(&self) -> bool {
        self.sealed.0
    }

    /// Withdraws [`World::seal`]'s promise: the agents are about to change.
    pub(crate) fn unseal(&mut self) {
        self.sealed = Sealed(false);
    }

    /// The spatial index, if it describes the agents as they stand now.
    pub fn spatial(&self) -> Option<&SpatialIndex> {
        self.index
            .is_fresh(self.tick, self.agents.len())
            .then_some(&self.index)
    }

    /// The index of the agent with this id.
    pub fn agent_index(&self, id: &str) -> Option<usize> {
        // The index may be a tick old; an entry is trusted only if it still names this id.
        if let Some(i) = self.index.id(&self.agents, id) {
            return Some(i);
        }
        self.agents.iter().position(|a| a.id == id)
    }

    /// The agent with this id.
    pub fn agent(&self, id: &str) -> Option<&Agent> {
        self.agent_index(id).map(|i| &self.agents[i])
    }

    /// Indices of the agents within `radius` of `centre` (of `kind` if given, never `exclude`),
    /// ascending.
    pub fn agents_within(
        &self,
        centre: DVec2,
        radius: f64,
        kind: Option<&str>,
        exclude: Option<usize>,
    ) -> Vec<usize> {
        match self.spatial() {
            Some(index) => index.within(centre, radius, kind, |i| Some(i) != exclude),
            None => (0..self.agents.len())
                .filter(|&i| self.agents[i].pos.distance_squared(centre) <= radius * radius)
                .filter(|&i| Some(i) != exclude && kind.is_none_or(|k| self.agents[i].kind == k))
                .collect(),
        }
    }

    /// Calls `visit` with the index of every agent within `radius` of `centre` (of `kind` if
    /// given), each once, in no promised order (the index's cell order, or ascending without
    /// a fresh index): [`World::agents_within`] without its list, for callers that gather
    /// into a buffer of their own and sort what they keep.
    pub fn visit_agents_within(
        &self,
        centre: DVec2,
        radius: f64,
        kind: Option<&str>,
        mut visit: impl FnMut(usize),
    ) {
        match self.spatial() {
            Some(index) => index.visit_within(centre, radius, kind, visit),
            None => {
                for (i, a) in self.agents.iter().enumerate() {
                    if a.pos.distance_squared(centre) <= radius * radius
                        && kind.is_none_or(|k| a.kind == k)
                    {
                        visit(i);
                    }
                }
            }
        }
    }

    /// Indices of the agents whose bodies overlap agent `i`'s (the distance between centres
    /// at most the sum of the radii, as contacts are found), ascending.
    pub fn touching(&self, i: usize) -> Vec<usize> {
        let Some(me) = self.agents.get(i) else {
            return Vec::new();
        };
        let widest = match self.spatial() {
            Some(index) => index.max_radius(),
            None => self.agents.iter().map(|a| a.radius).fold(0.0, f64::max),
        };
        let near = self.agents_within(me.pos, me.radius + widest, None, Some(i));
        near.into_iter()
            .filter(|&j| {
                let other = &self.agents[j];
                me.pos.distance(other.pos) <= me.radius + other.radius
            })
            .collect()
    }

    /// The index of the agent nearest to `centre` (of `kind` if given, never `exclude`); ties
    /// go to the agent listed first.
    pub fn nearest_agent(
        &self,
        centre: DVec2,
        kind: Option<&str>,
        exclude: Option<usize>,
    ) -> Option<usize> {
        let keep = |i: usize| Some(i) != exclude;
        match self.spatial() {
            Some(index) => index.nearest(centre, kind, keep),
            None => (0..self.agents.len())
                .filter(|&i| keep(i) && kind.is_none_or(|k| self.agents[i].kind == k))
                .min_by(|&a, &b| {
                    centre
                        .distance_squared(self.agents[a].pos)
                        .total_cmp(&centre.distance_squared(self.agents[b].pos))
                }),
        }
    }

    /// The agent nearest to agent `index` of its own kind, itself excluded: what
    /// `nearest_agent(agents[index].pos, Some(&agents[index].kind), Some(index))` answers.
    /// While the world is sealed the kind is the index's number for it, so no name is read
    /// or compared.
    pub fn nearest_of_own_kind(&self, index: usize) -> Option<usize> {
        let keep = |i: usize| i != index;
        match self.sealed.0 {
            true => self
                .index
                .nearest_of_kind_of(index, self.index.pos(index)?, keep),
            false => {
                let agent = self.agents.get(index)?;
                self.nearest_agent(agent.pos, Some(&agent.kind), Some(index))
            }
        }
    }

    /// Whether `kind` (a name's bytes, as a script hands it over) is agent `index`'s kind;
    /// read from the index's copy while the world is sealed.
    pub fn is_kind_of(&self, index: usize, kind: &[u8]) -> bool {
        match self.sealed.0 {
            true => self
                .index
                .kind_name_of(index)
                .is_some_and(|k| k.as_bytes() == kind),
            false => self
                .agents
                .get(index)
                .is_some_and(|a| a.kind.as_bytes() == kind),
        }
    }

    /// Agent `index`'s kind as the index numbers it, while the world is sealed (`None` when
    /// not): equal numbers are equal kinds for as long as the [`World::roster`] holds.
    pub fn kind_rank_of(&self, index: usize) -> Option<u32> {
        match self.sealed.0 {
            true => self.index.kind_rank_of(index),
            false => None,
        }
    }

    /// The number the index gives the kind named `kind` (a name's bytes), while the world is
    /// sealed and some agent has that kind; `None` otherwise.
    pub fn kind_rank_named(&self, kind: &[u8]) -> Option<u32> {
        match self.sealed.0 {
            true => self.index.kind_rank(std::str::from_utf8(kind).ok()?),
            false => None,
        }
    }

    /// Where the agent at `index` is (read from the index's compact copy while the world is
    /// sealed, which holds the same position).
    pub fn agent_pos(&self, index: usize) -> Option<DVec2> {
        match self.sealed.0 {
            true => self.index.pos(index),
            false => self.agents.get(index).map(|a| a.pos),
        }
    }

    /// A reference to the agent at `index`, for a target (sharing the index's copy of its id
    /// while the world is sealed, so no string is copied).
    pub fn agent_ref(&self, index: usize) -> Option<AgentRef> {
        match self.sealed.0 {
            true => AgentRef::listed(self.index.names(), index),
            false => Some(AgentRef::new(self.agents.get(index)?.id.as_str(), index)),
        }
    }

    /// The index of the agent a reference names: its hint if the agent there still has the
    /// id, else a lookup by id.
    pub fn resolve(&self, agent: &AgentRef) -> Option<usize> {
        let i = agent.index();
        let holds = match self.sealed.0 {
            true => agent.is_listed(self.index.names(), i),
            false => self.agents.get(i).is_some_and(|a| a.id == agent.id()),
        };
        match holds {
            true => Some(i),
            false => self.agent_index(agent.id()),
        }
    }

    /// Where a target is now, or `None` if it names an agent that is gone or a point that is
    /// not finite; a point far off the map is moved to within one tile of it
    /// ([`World::bound_pos`]), so no primitive works in proportion to its distance.
    pub fn target_pos(&self, target: &Target) -> Option<DVec2> {
        match target {
            Target::Point(p) => self.bound_pos(*p),
            Target::Agent(r) => {
                let i = self.resolve(r)?;
                match self.sealed.0 {
                    true => self.index.pos(i),
                    false => Some(self.agents[i].pos),
                }
            }
        }
    }

    /// Whether a circle overlaps any blocked tile (or leaves the map).
    pub fn circle_hits_wall(&self, centre: DVec2, radius: f64) -> bool {
        // The usual case, answered by one look-up: a body no wider than a tile whose centre is
        // on a tile with free neighbours all round reaches no other tile.
        let open = |tile| self.grid.index(tile).is_some_and(|i| self.open[i]);
        if radius <= 0.5 && open(tile_of(centre)) {
            return false;
        }
        let min = tile_of(centre - DVec2::splat(radius));
        let max = tile_of(centre + DVec2::splat(radius));
        for y in min.y..=max.y {
            for x in min.x..=max.x {
                let tile = IVec2::new(x, y);
                if !self.is_blocked(tile) {
                    continue;
                }
                // Closest point of the tile's square [x-0.5, x+0.5] to the centre.
                let c = centre_of(tile);
                let closest = centre.clamp(c - DVec2::splat(0.5), c + DVec2::splat(0.5));
                if closest.distance_squared(centre) < radius * radius {
                    return true;
                }
            }
        }
        false
    }
}

fn cost_of(terrain: &Terrain) -> f32 {
    if terrain.blocked {
        f32::INFINITY
    } else {
        terrain.cost as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_s_number_is_its_digits_after_the_kind() {
        assert_eq!(number_of("drone-3", "drone"), Some(3));
        assert_eq!(number_of("drone-007", "drone"), Some(7));
        assert_eq!(
            number_of("drone-18446744073709551615", "drone"),
            Some(u64::MAX)
        );
        for id in [
            "drone-", "drone-3a", "drone-+3", "drone3", "drones-3", "hive-3",
        ] {
            assert_eq!(number_of(id, "drone"), None, "{id}");
        }
        assert_eq!(number_of("drone-18446744073709551616", "drone"), None);
    }

    fn world_from_rows(rows: &[&str]) -> World {
        World::from_ascii(rows)
    }

    #[test]
    fn tiles_outside_the_map_are_blocked() {
        let w = world_from_rows(&["...", ".#.", "..."]);
        assert!(w.is_blocked(IVec2::new(1, 1)));
        assert!(!w.is_blocked(IVec2::new(0, 0)));
        assert!(w.is_blocked(IVec2::new(-1, 0)));
        assert!(w.is_blocked(IVec2::new(3, 0)));
    }

    #[test]
    fn open_tiles_answer_as_the_full_wall_test_would() {
        let mut w = world_from_rows(&["......", "..#...", "......", "......"]);
        let wall = w.terrain().by_name("wall").unwrap();
        let floor = w.terrain().by_name("floor").unwrap();
        let mut r = rng::stream(2, "walls", "test");
        for round in 0..3 {
            match round {
                1 => assert!(w.set_terrain(IVec2::new(4, 2), wall)),
                2 => assert!(w.set_terrain(IVec2::new(2, 1), floor)),
                _ => {}
            }
            for _ in 0..4000 {
                let centre = DVec2::new(
                    rng::unit_f64(&mut r) * 7.0 - 0.75,
                    rng::unit_f64(&mut r) * 5.0 - 0.75,
                );
                let radius = rng::unit_f64(&mut r) * 0.7;
                // The wall test without the open-tile shortcut.
                let (min, max) = (
                    tile_of(centre - DVec2::splat(radius)),
                    tile_of(centre + DVec2::splat(radius)),
                );
                let mut hits = false;
                for y in min.y..=max.y {
                    for x in min.x..=max.x {
                        let c = centre_of(IVec2::new(x, y));
                        let closest = centre.clamp(c - DVec2::splat(0.5), c + DVec2::splat(0.5));
                        hits |= w.is_blocked(IVec2::new(x, y))
                            && closest.distance_squared(centre) < radius * radius;
                    }
                }
                assert_eq!(
                    w.circle_hits_wall(centre, radius),
                    hits,
                    "{centre} {radius}"
                );
            }
        }
    }

    #[test]
    fn the_map_key_follows_the_content_not_the_history() {
        let mut w = world_from_rows(&["....", ".#..", "...."]);
        let first = w.map_key();
        let [wall, floor, mud] = ["wall", "floor", "mud"].map(|n| w.terrain().by_name(n).unwrap());
        assert!(w.set_terrain(IVec2::new(3, 2), wall));
        let walled = w.map_key();
        assert_ne!(walled, first);
        // Painted back: the same content, the same key, although the version moved on.
        assert!(w.set_terrain(IVec2::new(3, 2), floor));
        assert_eq!(w.map_key(), first);
        assert_eq!(w.map_version(), 2);
        // Mud costs differently from floor, and a wall elsewhere is another map.
        assert!(w.set_terrain(IVec2::new(0, 0), mud));
        assert_ne!(w.map_key(), first);
        assert!(w.set_terrain(IVec2::new(0, 0), floor));
        assert!(w.set_terrain(IVec2::new(2, 2), wall));
        assert_ne!(w.map_key(), walled);
        // The same cells in another shape are another map; a fresh world of the same rows
        // has the same key.
        assert_ne!(world_from_rows(&["......", ".#...."]).map_key(), first);
        assert_eq!(world_from_rows(&["....", ".#..", "...."]).map_key(), first);
        assert_eq!(
            w.map_key(),
            MapKey::of(4, 3, w.costs()),
            "kept in step cell by cell"
        );
    }

    #[test]
    fn circle_against_walls() {
        let w = world_from_rows(&["...", ".#.", "..."]);
        // Centre of a free tile next to the wall, small radius: clear.
        assert!(!w.circle_hits_wall(DVec2::new(0.0, 1.0), 0.3));
        // Pushed towards the wall by 0.25: the circle reaches into [0.5, 1.5].
        assert!(w.circle_hits_wall(DVec2::new(0.25, 1.0), 0.3));
        // Diagonal neighbour of the wall's corner at (0.5, 0.5): distance 0.707 from (0,0).
        assert!(!w.circle_hits_wall(DVec2::new(0.0, 0.0), 0.3));
    }

    #[test]
    fn a_target_follows_its_agent_by_id_when_the_index_goes_stale() {
        let mut w = world_from_rows(&["....."]);
        for (id, x) in [("a", 0), ("b", 2), ("c", 4)] {
            w.agents.push(Agent::new(id, IVec2::new(x, 0)));
        }
        w.reindex();
        let b = w.agent_ref(1).unwrap();
        assert_eq!((b.id(), w.resolve(&b)), ("b", Some(1)));
        assert_eq!(
            w.target_pos(&Target::Agent(b.clone())),
            Some(DVec2::new(2.0, 0.0))
        );
        // "a" leaves: "b" is now listed first; the old hint points at "c".
        w.agents.remove(0);
        assert_eq!(w.resolve(&b), Some(0));
        assert_eq!(
            w.target_pos(&Target::Agent(b.clone())),
            Some(DVec2::new(2.0, 0.0))
        );
        // Same id, other index: the same target.
        assert_eq!(b, AgentRef::new("b", 0));
        assert_ne!(b, AgentRef::new("c", 1));
        assert_eq!(w.resolve(&AgentRef::from("c")), Some(1));
        assert_eq!(w.resolve(&AgentRef::from("a")), None);
        assert_eq!(w.target_pos(&Target::Agent("a".into())), None);
        assert_eq!(format!("{b:?}"), "\"b\"");
    }

    #[test]
    fn references_from_the_shared_id_list_compare_and_resolve_by_id() {
        let mut w = world_from_rows(&["....."]);
        for (id, x) in [("a", 0), ("b", 2), ("c", 4)] {
            w.agents.push(Agent::new(id, IVec2::new(x, 0)));
        }
        w.reindex();
        w.seal();
        let b = w.agent_ref(1).unwrap();
        assert_eq!((b.id(), w.resolve(&b)), ("b", Some(1)));
        assert_eq!(b, AgentRef::new("b", 7));
        assert_eq!(AgentRef::new("b", 7), b);
        assert_ne!(b, w.agent_ref(2).unwrap());
        assert_eq!(w.agent_ref(3), None);
        // An own-string reference with a right or a wrong hint, against the sealed index.
        assert_eq!(w.resolve(&AgentRef::new("c", 2)), Some(2));
        assert_eq!(w.resolve(&AgentRef::new("c", 0)), Some(2));
        assert_eq!(
            w.target_pos(&Target::Agent(b.clone())),
            Some(DVec2::new(2.0, 0.0))
        );
        // The agents change and are indexed again: a new list; the old reference still names
        // "b", now at index 0.
        w.unseal();
        w.agents.remove(0);
        w.reindex();
        w.seal();
        let b_now = w.agent_ref(0).unwrap();
        assert_eq!(b, b_now);
        assert_eq!(w.resolve(&b), Some(0));
        // A clone may be changed by whoever holds it: it starts unsealed.
        assert!(!w.clone().is_sealed());
    }

    #[test]
    fn round_to_i32_is_round_as_i32() {
        let mut r = rng::stream(9, "round", "test");
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            0.49999999999999994,
            -0.49999999999999994,
            2147483646.5,
            2147483647.4,
            2147483647.5,
            -2147483648.4,
            -2147483648.5,
            3e9,
            -3e9,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            4503599627370497.0,
        ];
        values.extend((-1000..1000).flat_map(|k| [k as f64 + 0.5, k as f64 - 0.5]));
        for _ in 0..10_000 {
            let scale = [1.0, 100.0, 1e6][values.len() % 3];
            values.push((rng::unit_f64(&mut r) - 0.5) * scale);
        }
        for v in values {
            assert_eq!(round_to_i32(v), v.round() as i32, "{v}");
        }
    }

    #[test]
    fn tile_rounding_puts_integers_at_centres() {
        assert_eq!(tile_of(DVec2::new(2.0, 1.0)), IVec2::new(2, 1));
        assert_eq!(tile_of(DVec2::new(2.49, 0.51)), IVec2::new(2, 1));
    }

    #[test]
    fn nearest_of_own_kind_agrees_with_nearest_agent_sealed_or_not() {
        let mut w = world_from_rows(&[".........."; 10]);
        let mut r = rng::stream(5, "own-kind", "test");
        // Enough of one kind that the search goes by cells, a few of another by list.
        for i in 0..400 {
            let mut a = Agent::new(format!("a{i}"), IVec2::ZERO);
            a.pos = DVec2::new(rng::unit_f64(&mut r) * 9.0, rng::unit_f64(&mut r) * 9.0);
            a.kind = if i % 50 == 0 { "wolf" } else { "sheep" }.into();
            w.agents.push(a);
        }
        w.reindex();
        let scan: Vec<_> = (0..w.agents.len())
            .map(|i| {
                let a = &w.agents[i];
                w.nearest_agent(a.pos, Some(&a.kind), Some(i))
            })
            .collect();
        for sealed in [false, true] {
            if sealed {
                w.seal();
            }
            assert_eq!(w.is_sealed(), sealed);
            for (i, want) in scan.iter().enumerate() {
                assert_eq!(w.nearest_of_own_kind(i), *want, "agent {i}");
                assert_eq!(w.agent_pos(i), Some(w.agents[i].pos));
                assert!(w.is_kind_of(i, w.agents[i].kind.as_bytes()), "agent {i}");
                assert!(!w.is_kind_of(i, b"shee"), "agent {i}");
            }
        }
        assert_eq!(w.nearest_of_own_kind(400), None);
        assert!(!w.is_kind_of(400, b"sheep"));
    }
}
