//! Agent views: the tables `world:agent`, `world:agents` and `world:nearest` return, and the
//! engine fields of each agent's `self` (`id`, `kind`, `pos`, `vel`, `tile`, `heading`,
//! `speed`, `action`, `sense`).
//!
//! Each agent index has one view table, with `pos`, `vel` and `tile` sub-tables, made once and
//! then refreshed in place at most once per round of decisions, writing only what changed
//! since it was last written. An agent's `self` shares its view's `pos`, `vel` and `tile`
//! tables, so refreshing the view refreshes `self` too. The hot refresh writes through the raw
//! Lua C API (an mlua table write is a protected call costing hundreds of nanoseconds); making
//! a view, or remaking one whose index now holds another agent, goes through mlua.
//!
//! A view is a snapshot of one tick, to be read, not written: `self.pos`, `view.pos` and
//! friends change in place every tick, so a script that keeps a position copies its numbers.

use crate::world::spatial::FastMap;
use crate::world::{Agent, World};
use glam::{DVec2, IVec2};
use mlua::ffi;
use mlua::{Lua, LuaString, Table, Value};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::rc::Rc;

/// The field names a refresh writes (and `decide`, which the decision loop reads), in the
/// order of [`Keys`].
pub const KEY_NAMES: [&str; 12] = [
    "x", "y", "heading", "speed", "action", "sense", "id", "kind", "pos", "vel", "tile", "decide",
];
pub const X: usize = 0;
pub const Y: usize = 1;
const HEADING: usize = 2;
const SPEED: usize = 3;
const ACTION: usize = 4;
const SENSE: usize = 5;
pub const ID: usize = 6;
const KIND: usize = 7;
pub const POS: usize = 8;
const VEL: usize = 9;
const TILE: usize = 10;
pub const DECIDE: usize = 11;

/// Where the store table and the field-name strings sit for raw writes: stack slots of a
/// decision batch, or upvalues of a raw C function.
#[derive(Clone, Copy)]
pub struct Keys {
    pub store: c_int,
    pub names: [c_int; KEY_NAMES.len()],
}

/// The scalar fields as last written to one table, so unchanged ones are skipped.
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    pub made: bool,
    heading: f64,
    speed: f64,
    /// The address of the action's (static) name.
    action: usize,
    sense: Option<f64>,
}

impl Written {
    fn same(&self, agent: &Agent) -> bool {
        self.made
            && self.heading.to_bits() == agent.heading.to_bits()
            && self.speed.to_bits() == agent.speed.to_bits()
            && self.action == agent.action.name().as_ptr() as usize
            && self.sense.map(f64::to_bits) == agent.sense.map(f64::to_bits)
    }

    fn of(agent: &Agent) -> Self {
        Written {
            made: true,
            heading: agent.heading,
            speed: agent.speed,
            action: agent.action.name().as_ptr() as usize,
            sense: agent.sense,
        }
    }
}

/// One agent index's view.
#[derive(Clone, Debug, Default)]
struct Entry {
    /// The round the view was last refreshed in (0: never made).
    round: u64,
    /// The agent it shows.
    id: String,
    /// The view table's address.
    ptr: usize,
    pos: DVec2,
    vel: DVec2,
    tile: IVec2,
    scalars: Written,
}

/// Per-state views, kept in the Lua state's app data.
pub struct Views {
    /// Bumped at every round of decisions; a view filled in an earlier round is refreshed.
    round: Cell<u64>,
    /// The world roster the views' agents were last checked against.
    checked: Cell<u64>,
    /// The last round every view was refreshed in one sweep.
    swept: Cell<u64>,
    /// Agents below this index have been looked at by [`Views::prepare`].
    prepared: Cell<usize>,
    /// Bumped whenever a view index starts showing another agent (caches keyed by index check
    /// it).
    roster: Cell<u64>,
    /// For agent index `i`: `[4i+1]` the view, `[4i+2]` its pos, `[4i+3]` vel, `[4i+4]` tile.
    store: Table,
    entries: RefCell<Vec<Entry>>,
    /// View table address → agent index.
    by_ptr: RefCell<FastMap<usize, u32>>,
    /// The address and agent index of the view handed out last.
    last: Cell<(usize, usize)>,
    /// The field names as Lua strings, in [`KEY_NAMES`] order.
    pub names: Vec<LuaString>,
    /// The `self` table of the agent deciding now (null between decisions), and its index.
    deciding: Cell<*const c_void>,
    deciding_index: Cell<Option<usize>>,
}

/// Makes the views of a state and stores them in its app data.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    let names = KEY_NAMES
        .iter()
        .map(|k| lua.create_string(k))
        .collect::<mlua::Result<Vec<_>>>()?;
    lua.set_app_data(Rc::new(Views {
        round: Cell::new(1),
        checked: Cell::new(0),
        swept: Cell::new(0),
        prepared: Cell::new(0),
        roster: Cell::new(0),
        store: lua.create_table()?,
        entries: RefCell::new(Vec::new()),
        by_ptr: RefCell::new(FastMap::default()),
        last: Cell::new((0, 0)),
        names,
        deciding: Cell::new(std::ptr::null()),
        deciding_index: Cell::new(None),
    }));
    Ok(())
}

/// The views of this state.
pub fn get(lua: &Lua) -> mlua::Result<Rc<Views>> {
    lua.app_data_ref::<Rc<Views>>()
        .map(|v| Rc::clone(&v))
        .ok_or_else(|| mlua::Error::RuntimeError("agentbox views are not installed".into()))
}

fn store_index(index: usize, part: usize) -> i64 {
    (4 * index + part + 1) as i64
}

impl Views {
    /// Starts a new round for `world`: every view is refreshed on its next use, and views
    /// whose index now holds another agent are remade. Unless the world's agent list is the
    /// one already checked (same [`World::roster`]), every view's agent is compared, so the
    /// hot refresh need not.
    pub fn begin_round(&self, world: &World) {
        self.round.set(self.round.get() + 1);
        if world.roster != 0 && world.roster == self.checked.get() {
            return;
        }
        for (entry, agent) in self.entries.borrow_mut().iter_mut().zip(&world.agents) {
            if entry.round != 0 && entry.id != agent.id {
                entry.round = 0;
            }
        }
        self.checked.set(world.roster);
        self.prepared.set(0);
    }

    pub fn roster(&self) -> u64 {
        self.roster.get()
    }

    /// Makes the views of agents that have none yet, in agent order, so each agent's tables
    /// sit together in memory (made on first use they would be scattered in query order).
    /// Only scripted agents' views are made ahead (their `self` shares them); others wait
    /// until a query needs them, so a scene of many unscripted agents costs no Lua memory.
    pub fn prepare(&self, lua: &Lua, world: &World) -> mlua::Result<()> {
        let from = self.prepared.get();
        for (index, agent) in world.agents.iter().enumerate().skip(from) {
            let made = self
                .entries
                .borrow()
                .get(index)
                .is_some_and(|e| e.round != 0);
            if !made && matches!(agent.brain, crate::world::Brain::Script(_)) {
                self.make(lua, agent, index)?;
            }
            self.prepared.set(index + 1);
        }
        Ok(())
    }

    /// The table holding every view and its parts.
    pub fn store(&self) -> &Table {
        &self.store
    }

    /// Marks `this` (the `self` of agent `index`) as deciding now (`None`: nobody).
    pub fn set_deciding(&self, this: Option<(*const c_void, usize)>) {
        self.deciding.set(this.map_or(std::ptr::null(), |(p, _)| p));
        self.deciding_index.set(this.map(|(_, i)| i));
    }

    /// The `self` table address and index of the agent deciding now.
    pub fn deciding(&self) -> Option<(*const c_void, usize)> {
        let p = self.deciding.get();
        match self.deciding_index.get() {
            Some(i) if !p.is_null() => Some((p, i)),
            _ => None,
        }
    }

    /// Whether a value is the `self` table of the agent deciding now.
    pub fn is_deciding_self(&self, value: &Value) -> bool {
        let d = self.deciding.get();
        !d.is_null() && matches!(value, Value::Table(t) if t.to_pointer() == d)
    }

    /// The agent index a view table stands for, if it is a view refreshed this round.
    pub fn current_index(&self, ptr: *const c_void) -> Option<usize> {
        // Most often the view the last query handed out (`move.chase(world:nearest(...))`).
        let (last_ptr, last) = self.last.get();
        let i = if last_ptr == ptr as usize {
            last
        } else {
            *self.by_ptr.borrow().get(&(ptr as usize))? as usize
        };
        let entries = self.entries.borrow();
        (entries.get(i)?.round == self.round.get()).then_some(i)
    }

    /// The view of agent `index`, made or refreshed for this round (through mlua: for the
    /// query functions; the hot paths use [`Self::refresh_raw`]).
    pub fn view(&self, lua: &Lua, world: &World, index: usize) -> mlua::Result<Table> {
        let agent = &world.agents[index];
        let (fresh, same) = {
            let entries = self.entries.borrow();
            match entries.get(index) {
                Some(e) if e.round != 0 => (e.round == self.round.get(), true),
                _ => (false, false),
            }
        };
        if !(fresh && same) {
            if same {
                self.refresh_safe(agent, index)?;
            } else {
                self.make(lua, agent, index)?;
            }
        }
        self.store.raw_get(store_index(index, 0))
    }

    /// Makes (or remakes, for another agent) the view at `index`, writing every field.
    fn make(&self, lua: &Lua, agent: &Agent, index: usize) -> mlua::Result<()> {
        let n = &self.names;
        let (view, pos, vel, tile) = match self.store.raw_get::<Value>(store_index(index, 0))? {
            Value::Table(view) => (
                view,
                self.store.raw_get::<Table>(store_index(index, 1))?,
                self.store.raw_get::<Table>(store_index(index, 2))?,
                self.store.raw_get::<Table>(store_index(index, 3))?,
            ),
            _ => {
                let view = lua.create_table_with_capacity(0, 10)?;
                let pos = lua.create_table_with_capacity(0, 2)?;
                let vel = lua.create_table_with_capacity(0, 2)?;
                let tile = lua.create_table_with_capacity(0, 2)?;
                self.store.raw_set(store_index(index, 0), &view)?;
                self.store.raw_set(store_index(index, 1), &pos)?;
                self.store.raw_set(store_index(index, 2), &vel)?;
                self.store.raw_set(store_index(index, 3), &tile)?;
                (view, pos, vel, tile)
            }
        };
        view.raw_set(&n[ID], agent.id.as_str())?;
        view.raw_set(&n[KIND], agent.kind.as_str())?;
        view.raw_set(&n[POS], &pos)?;
        view.raw_set(&n[VEL], &vel)?;
        view.raw_set(&n[TILE], &tile)?;
        let t = self.write_safe(&view, &pos, &vel, &tile, agent)?;
        let ptr = view.to_pointer() as usize;
        self.by_ptr.borrow_mut().insert(ptr, index as u32);
        let mut entries = self.entries.borrow_mut();
        if entries.len() <= index {
            entries.resize(index + 1, Entry::default());
        }
        entries[index] = Entry {
            round: self.round.get(),
            id: agent.id.clone(),
            ptr,
            pos: agent.pos,
            vel: agent.vel,
            tile: t,
            scalars: Written::of(agent),
        };
        self.roster.set(self.roster.get() + 1);
        Ok(())
    }

    /// Writes an agent's changing fields to its view and the view's parts; its tile.
    fn write_safe(
        &self,
        view: &Table,
        pos: &Table,
        vel: &Table,
        tile: &Table,
        agent: &Agent,
    ) -> mlua::Result<IVec2> {
        let n = &self.names;
        pos.raw_set(&n[X], agent.pos.x)?;
        pos.raw_set(&n[Y], agent.pos.y)?;
        vel.raw_set(&n[X], agent.vel.x)?;
        vel.raw_set(&n[Y], agent.vel.y)?;
        let t = agent.tile();
        tile.raw_set(&n[X], t.x)?;
        tile.raw_set(&n[Y], t.y)?;
        self.write_scalars_safe(view, agent)?;
        Ok(t)
    }

    fn write_scalars_safe(&self, t: &Table, agent: &Agent) -> mlua::Result<()> {
        let n = &self.names;
        t.raw_set(&n[HEADING], agent.heading)?;
        t.raw_set(&n[SPEED], agent.speed)?;
        t.raw_set(&n[ACTION], agent.action.name())?;
        t.raw_set(&n[SENSE], agent.sense)?;
        Ok(())
    }

    /// Refreshes a made view of the same agent through mlua.
    fn refresh_safe(&self, agent: &Agent, index: usize) -> mlua::Result<()> {
        let part = |k| self.store.raw_get::<Table>(store_index(index, k));
        let t = self.write_safe(&part(0)?, &part(1)?, &part(2)?, &part(3)?, agent)?;
        let mut entries = self.entries.borrow_mut();
        let e = &mut entries[index];
        e.round = self.round.get();
        e.pos = agent.pos;
        e.vel = agent.vel;
        e.tile = t;
        e.scalars = Written::of(agent);
        Ok(())
    }

    /// Points an agent's `self` at its view's parts and writes its own scalars (through
    /// mlua: when a slot is new or its agent moved to another index).
    pub fn link_self(
        &self,
        lua: &Lua,
        world: &World,
        this: &Table,
        index: usize,
    ) -> mlua::Result<Written> {
        let agent = &world.agents[index];
        self.view(lua, world, index)?;
        let n = &self.names;
        this.raw_set(&n[ID], agent.id.as_str())?;
        this.raw_set(&n[KIND], agent.kind.as_str())?;
        this.raw_set(&n[POS], self.store.raw_get::<Table>(store_index(index, 1))?)?;
        this.raw_set(&n[VEL], self.store.raw_get::<Table>(store_index(index, 2))?)?;
        this.raw_set(
            &n[TILE],
            self.store.raw_get::<Table>(store_index(index, 3))?,
        )?;
        self.write_scalars_safe(this, agent)?;
        Ok(Written::of(agent))
    }

    /// Refreshes the view of agent `index` for this round through the raw C API; false if it
    /// has no view yet or its view showed another agent (then [`Self::view`] must make it).
    /// Trusts [`Self::begin_round`] to have checked which agent each view shows.
    ///
    /// # Safety
    /// `state` is this Lua state inside a protected call, with `keys` valid there; no Rust
    /// value that needs dropping may be alive in the caller's frames across this call (a
    /// memory error raised here unwinds with `longjmp`).
    pub unsafe fn refresh_raw(
        &self,
        state: *mut ffi::lua_State,
        keys: &Keys,
        agent: &Agent,
        index: usize,
    ) -> bool {
        let round = self.round.get();
        let (pos, vel, tile, scalars) = {
            let entries = self.entries.borrow();
            match entries.get(index) {
                Some(e) if e.round != 0 => {
                    if e.round == round {
                        return true;
                    }
                    (e.pos, e.vel, e.tile, e.scalars)
                }
                _ => return false,
            }
        };
        let t = agent.tile();
        let bits = |v: DVec2| (v.x.to_bits(), v.y.to_bits());
        if bits(pos) != bits(agent.pos) {
            ffi::lua_rawgeti(state, keys.store, store_index(index, 1));
            set_number(state, keys, X, agent.pos.x);
            set_number(state, keys, Y, agent.pos.y);
            ffi::lua_settop(state, -2);
        }
        if bits(vel) != bits(agent.vel) {
            ffi::lua_rawgeti(state, keys.store, store_index(index, 2));
            set_number(state, keys, X, agent.vel.x);
            set_number(state, keys, Y, agent.vel.y);
            ffi::lua_settop(state, -2);
        }
        if t != tile {
            ffi::lua_rawgeti(state, keys.store, store_index(index, 3));
            set_integer(state, keys, X, t.x as i64);
            set_integer(state, keys, Y, t.y as i64);
            ffi::lua_settop(state, -2);
        }
        let mut written = scalars;
        if !scalars.same(agent) {
            ffi::lua_rawgeti(state, keys.store, store_index(index, 0));
            write_scalars_raw(state, keys, &mut written, agent);
            ffi::lua_settop(state, -2);
        }
        if let Some(e) = self.entries.borrow_mut().get_mut(index) {
            e.round = round;
            e.pos = agent.pos;
            e.vel = agent.vel;
            e.tile = t;
            e.scalars = written;
        }
        true
    }

    /// Refreshes every made view, in agent order, once per round: memory is written in the
    /// order it was laid out, instead of view by view as queries pick neighbours at random.
    ///
    /// # Safety
    /// As [`Self::refresh_raw`].
    pub unsafe fn sweep_raw(&self, state: *mut ffi::lua_State, keys: &Keys, world: &World) {
        let round = self.round.get();
        if self.swept.replace(round) == round {
            return;
        }
        for (index, agent) in world.agents.iter().enumerate() {
            self.refresh_raw(state, keys, agent, index);
        }
    }

    /// Pushes the view table of agent `index` (made and refreshed).
    ///
    /// # Safety
    /// As [`Self::refresh_raw`].
    pub unsafe fn push_view_raw(&self, state: *mut ffi::lua_State, keys: &Keys, index: usize) {
        ffi::lua_rawgeti(state, keys.store, store_index(index, 0));
        self.last
            .set((ffi::lua_topointer(state, -1) as usize, index));
    }

    /// Whether `self` at `ptr` is linked to the view at `index` (see [`Self::link_self`]).
    pub fn view_ptr(&self, index: usize) -> Option<usize> {
        self.entries
            .borrow()
            .get(index)
            .filter(|e| e.round != 0)
            .map(|e| e.ptr)
    }
}

/// Writes the scalar fields that changed to the table on top of the stack.
///
/// # Safety
/// As [`Views::refresh_raw`]; the table is on top of the stack.
pub unsafe fn write_scalars_raw(
    state: *mut ffi::lua_State,
    keys: &Keys,
    written: &mut Written,
    agent: &Agent,
) {
    if written.heading.to_bits() != agent.heading.to_bits() {
        set_number(state, keys, HEADING, agent.heading);
    }
    if written.speed.to_bits() != agent.speed.to_bits() {
        set_number(state, keys, SPEED, agent.speed);
    }
    let name = agent.action.name();
    if written.action != name.as_ptr() as usize {
        ffi::lua_pushvalue(state, keys.names[ACTION]);
        ffi::lua_pushlstring(state, name.as_ptr() as *const _, name.len());
        ffi::lua_rawset(state, -3);
    }
    if written.sense.map(f64::to_bits) != agent.sense.map(f64::to_bits) {
        ffi::lua_pushvalue(state, keys.names[SENSE]);
        match agent.sense {
            Some(s) => ffi::lua_pushnumber(state, s),
            None => ffi::lua_pushnil(state),
        }
        ffi::lua_rawset(state, -3);
    }
    *written = Written::of(agent);
}

unsafe fn set_number(state: *mut ffi::lua_State, keys: &Keys, key: usize, value: f64) {
    ffi::lua_pushvalue(state, keys.names[key]);
    ffi::lua_pushnumber(state, value);
    ffi::lua_rawset(state, -3);
}

unsafe fn set_integer(state: *mut ffi::lua_State, keys: &Keys, key: usize, value: i64) {
    ffi::lua_pushvalue(state, keys.names[key]);
    ffi::lua_pushinteger(state, value);
    ffi::lua_rawset(state, -3);
}
