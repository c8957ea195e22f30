//! Agent views: the tables `world:agent`, `world:agents` and `world:nearest` return, and the
//! engine fields of each agent's `self` (`id`, `kind`, `pos`, `vel`, `tile`, `heading`,
//! `speed`, `action`, `sense`).
//!
//! Each agent index has one view table (`store[i+1]`), made once and then refreshed in place
//! at most once per round of decisions. A view has no raw field of its own at first: `id` and
//! `kind` are read through the shared agent metatable's `__index` every time (so no script can
//! write them), and the others are lazy: `__index` fills one in the first time a script reads
//! it (`pos`, `vel` and `tile` become read-only proxies of tables of their own, `parts[3i+1]`,
//! `parts[3i+2]` and `parts[3i+3]`), and from then on it is a raw field refreshed every round.
//! `__newindex` refuses every write to a view and to the engine's fields of `self`. So a crowd whose
//! scripts read no positions (`world:nearest` gives the distance) costs nothing per agent
//! and round here, and one that reads positions costs two numbers written per agent whose
//! `pos` was read.
//!
//! An agent's `self` has the same metatable and shares its view's `pos`, `vel` and `tile`
//! tables once read, so refreshing the view refreshes `self` too; the lazy scalars `self` has
//! read are written before each of its decisions. The hot refresh writes through the raw Lua
//! C API (an mlua table write is a protected call costing hundreds of nanoseconds); making a
//! view, or remaking one whose index now holds another agent, goes through mlua.
//!
//! A view is a snapshot of one tick, to be read, not written: `self.pos`, `view.pos` and
//! friends change in place every tick, so a script that keeps a position copies its numbers.

use crate::world::spatial::FastMap;
use crate::world::{Agent, World};
use glam::DVec2;
use mlua::ffi;
use mlua::{Function, Lua, LuaString, Table, Value};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::rc::Rc;

/// The field names the refresh writes (and `decide`, which the decision loop reads), in the
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

/// The lazy fields, by the bit each has in a mask of filled-in fields.
const LAZY: [usize; 7] = [VEL, TILE, HEADING, SPEED, ACTION, SENSE, POS];
const VEL_BIT: u8 = 1;
const TILE_BIT: u8 = 2;
const POS_BIT: u8 = 64;
/// The bits of the scalar lazy fields (`heading`, `speed`, `action`, `sense`).
const SCALAR_BITS: u8 = !(VEL_BIT | TILE_BIT | POS_BIT);

fn bit_of(key: usize) -> u8 {
    LAZY.iter().position(|&k| k == key).map_or(0, |p| 1 << p)
}

/// Where the view store, the parts store and the field-name strings sit for raw writes:
/// stack slots of a decision batch, or upvalues of a raw C function.
#[derive(Clone, Copy)]
pub struct Keys {
    pub store: c_int,
    pub parts: c_int,
    pub names: [c_int; KEY_NAMES.len()],
}

/// Per agent index, in arrays walked in index order every round.
#[derive(Default)]
struct State {
    /// The round the view was last refreshed in (0: no view made).
    rounds: Vec<u64>,
    /// The position last written to its `pos` table (once read).
    pos: Vec<DVec2>,
    /// The view table's address.
    ptrs: Vec<usize>,
    /// The lazy fields the view has filled in (`pos`, `vel` and `tile` here also stand for
    /// `self`'s, which share the tables).
    live: Vec<u8>,
    /// The lazy scalars the `self` linked to this index has filled in.
    self_live: Vec<u8>,
    /// The agent the view shows (compared when the world's agent list changes).
    ids: Vec<String>,
    /// The indices whose view has filled in a lazy field since it was made, in index order
    /// (once sorted): what the sweep refreshes.
    filled: Vec<u32>,
    /// Whether `filled` needs sorting.
    unsorted: bool,
}

impl State {
    fn grow(&mut self, len: usize) {
        if self.rounds.len() < len {
            self.rounds.resize(len, 0);
            self.pos.resize(len, DVec2::ZERO);
            self.ptrs.resize(len, 0);
            self.live.resize(len, 0);
            self.self_live.resize(len, 0);
            self.ids.resize(len, String::new());
        }
    }
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
    /// `[i+1]`: the view table of agent index `i`.
    store: Table,
    /// `[3i+1]`, `[3i+2]` and `[3i+3]`: its `pos`, `vel` and `tile` tables, once read (the
    /// storage the refresh writes; scripts get a read-only proxy of each, in `proxies`).
    parts: Table,
    /// The same indices: the read-only proxy of each part, the table scripts hold.
    proxies: Table,
    /// The metatable of views and `self` tables (`__index` fills in lazy fields).
    meta: Table,
    /// The `__newindex` every part proxy shares ([`refuse_part`]).
    refuse_part: Function,
    state: RefCell<State>,
    /// View table address → agent index.
    by_ptr: RefCell<FastMap<usize, u32>>,
    /// `self` table address → the agent index it is linked to.
    selves: RefCell<FastMap<usize, u32>>,
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
    let meta = lua.create_table()?;
    meta.raw_set("__index", lua.create_function(lazy_index)?)?;
    meta.raw_set("__newindex", lua.create_function(refuse_field)?)?;
    meta.raw_set("__metatable", "agent (locked)")?;
    lua.set_app_data(Rc::new(Views {
        round: Cell::new(1),
        checked: Cell::new(0),
        swept: Cell::new(0),
        prepared: Cell::new(0),
        roster: Cell::new(0),
        store: lua.create_table()?,
        parts: lua.create_table()?,
        proxies: lua.create_table()?,
        meta,
        refuse_part: lua.create_function(refuse_part)?,
        state: RefCell::new(State::default()),
        by_ptr: RefCell::new(FastMap::default()),
        selves: RefCell::new(FastMap::default()),
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

fn part_index(index: usize, key: usize) -> i64 {
    let k = match key {
        VEL => 1,
        TILE => 2,
        _ => 0,
    };
    (3 * index + k + 1) as i64
}

/// `__index` of views and `self` tables: fills in a lazy field from the current world (and
/// keeps it, refreshed every round from then on); `nil` for any other key.
fn lazy_index(lua: &Lua, (table, key): (Table, Value)) -> mlua::Result<Value> {
    let Value::String(key) = key else {
        return Ok(Value::Nil);
    };
    let views = get(lua)?;
    if key.as_bytes() == b"memory" {
        // A `self`'s memory, made the first time it is read.
        if !views
            .selves
            .borrow()
            .contains_key(&(table.to_pointer() as usize))
        {
            return Ok(Value::Nil);
        }
        let memory = lua.create_table()?;
        table.raw_set(&key, &memory)?;
        return Ok(Value::Table(memory));
    }
    if key.as_bytes() == b"id" || key.as_bytes() == b"kind" {
        // A view's identity, read each time (never kept raw, so never writable).
        let Some(&index) = views.by_ptr.borrow().get(&(table.to_pointer() as usize)) else {
            return Ok(Value::Nil);
        };
        return match lua.app_data_ref::<super::api::CurrentWorld>() {
            Some(w) => match w.0.agents.get(index as usize) {
                Some(a) if key.as_bytes() == b"id" => Ok(Value::String(lua.create_string(&a.id)?)),
                Some(a) => Ok(Value::String(lua.create_string(&a.kind)?)),
                None => Ok(Value::Nil),
            },
            None => Ok(Value::Nil),
        };
    }
    let Some(field) = LAZY
        .iter()
        .copied()
        .find(|&k| views.names[k].as_bytes() == key.as_bytes())
    else {
        return Ok(Value::Nil);
    };
    let ptr = table.to_pointer() as usize;
    let (index, is_self) = match views.by_ptr.borrow().get(&ptr) {
        Some(&i) => (i as usize, false),
        None => match views.selves.borrow().get(&ptr) {
            Some(&i) => (i as usize, true),
            None => return Ok(Value::Nil),
        },
    };
    super::api::with_world(lua, "reading an agent's fields", |w| {
        let Some(agent) = w.agents.get(index) else {
            return Ok(Value::Nil);
        };
        let bit = bit_of(field);
        let value = match field {
            POS | VEL | TILE => {
                let part = views.part(lua, index, field, agent)?;
                Value::Table(part)
            }
            _ => scalar(lua, field, agent)?,
        };
        table.raw_set(&key, &value)?;
        let mut state = views.state.borrow_mut();
        state.grow(index + 1);
        if is_self && bit & SCALAR_BITS != 0 {
            state.self_live[index] |= bit;
        } else {
            if state.live[index] == 0 {
                state.unsorted |= state.filled.last().is_some_and(|&i| i as usize > index);
                state.filled.push(index as u32);
            }
            state.live[index] |= bit;
        }
        Ok(value)
    })
}

/// `__newindex` of views and `self` tables: a view takes no writes, and `self` none to the
/// engine's fields (a script's own keys on `self` are kept, as before).
fn refuse_field(lua: &Lua, (table, key, value): (Table, Value, Value)) -> mlua::Result<()> {
    let views = get(lua)?;
    let is_self = views
        .selves
        .borrow()
        .contains_key(&(table.to_pointer() as usize));
    let name = match &key {
        Value::String(s) => s.to_string_lossy(),
        other => other.to_string().unwrap_or_default(),
    };
    let engine = views.names[..DECIDE]
        .iter()
        .any(|n| matches!(&key, Value::String(s) if s.as_bytes() == n.as_bytes()));
    if is_self && !engine {
        return table.raw_set(key, value);
    }
    let whose = if is_self {
        "self"
    } else {
        "another agent's view"
    };
    Err(super::errors::located(
        lua,
        format!(
            "cannot set `{name}` on {whose}: agents' fields belong to the engine and are read-only; keep your own data in self.memory"
        ),
    ))
}

/// `__newindex` of every part proxy (one function for all): the error names the part by
/// what the proxy was registered as (`an agent's pos`).
fn refuse_part(lua: &Lua, (proxy, _, _): (Table, Value, Value)) -> mlua::Result<()> {
    let what = super::sandbox::protected_tables(lua)?
        .raw_get::<Option<String>>(proxy)?
        .unwrap_or_else(|| "an agent's field".into());
    Err(super::errors::located(
        lua,
        format!(
            "cannot change {what}: it is read-only (copy the numbers into your own table, e.g. self.memory)"
        ),
    ))
}

/// A read-only proxy of a part table (`pos`, `vel`, `tile`): reads go to `storage` (one
/// table lookup more), writes raise the sandbox's read-only error (`refuse`, shared).
fn read_only_proxy(
    lua: &Lua,
    storage: &Table,
    refuse: &Function,
    what: &str,
) -> mlua::Result<Table> {
    let proxy = lua.create_table()?;
    let meta = lua.create_table_with_capacity(0, 3)?;
    meta.raw_set("__index", storage)?;
    meta.raw_set("__newindex", refuse)?;
    meta.raw_set("__metatable", "agent part (read-only)")?;
    proxy.set_metatable(Some(meta))?;
    super::sandbox::protect(lua, &proxy, &format!("an agent's {what}"))?;
    Ok(proxy)
}

/// The Lua value of a scalar lazy field.
fn scalar(lua: &Lua, field: usize, agent: &Agent) -> mlua::Result<Value> {
    Ok(match field {
        HEADING => Value::Number(agent.heading()),
        SPEED => Value::Number(agent.speed),
        ACTION => Value::String(lua.create_string(agent.action.name())?),
        SENSE => agent.sense.map_or(Value::Nil, Value::Number),
        _ => Value::Nil,
    })
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
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        for ((round, id), agent) in state.rounds.iter_mut().zip(&state.ids).zip(&world.agents) {
            if *round != 0 && *id != agent.id {
                *round = 0;
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
                .state
                .borrow()
                .rounds
                .get(index)
                .is_some_and(|&r| r != 0);
            if !made && matches!(agent.brain, crate::world::Brain::Script(_)) {
                self.make(lua, agent, index)?;
            }
            self.prepared.set(index + 1);
        }
        Ok(())
    }

    /// The table holding every view.
    pub fn store(&self) -> &Table {
        &self.store
    }

    /// The table holding every view's `pos`, `vel` and `tile` tables.
    pub fn parts(&self) -> &Table {
        &self.parts
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

    /// Whether agent `index` has a view refreshed this round.
    fn current(&self, index: usize) -> bool {
        self.state.borrow().rounds.get(index) == Some(&self.round.get())
    }

    /// The agent index a view table stands for, refreshed this round or not (a view's
    /// identity: its `id` and `kind` are read through its metatable).
    pub fn index_of(&self, ptr: *const c_void) -> Option<usize> {
        // Most often the view the last query handed out (`move.chase(world:nearest(...))`).
        let (last_ptr, last) = self.last.get();
        if last_ptr == ptr as usize {
            return Some(last);
        }
        self.by_ptr
            .borrow()
            .get(&(ptr as usize))
            .map(|&i| i as usize)
    }

    /// The agent index a view table stands for, if it is a view refreshed this round.
    pub fn current_index(&self, ptr: *const c_void) -> Option<usize> {
        self.index_of(ptr).filter(|&i| self.current(i))
    }

    /// The view of agent `index`, made or refreshed for this round (through mlua: for the
    /// query functions; the hot paths use [`Self::refresh_raw`]).
    pub fn view(&self, lua: &Lua, world: &World, index: usize) -> mlua::Result<Table> {
        let agent = &world.agents[index];
        let round = self.state.borrow().rounds.get(index).copied().unwrap_or(0);
        if round == 0 {
            self.make(lua, agent, index)?;
        } else if round != self.round.get() {
            self.refresh_safe(lua, agent, index)?;
        }
        self.store.raw_get(index + 1)
    }

    /// Makes (or remakes, for another agent) the view at `index`.
    fn make(&self, lua: &Lua, agent: &Agent, index: usize) -> mlua::Result<()> {
        let n = &self.names;
        let view = match self.store.raw_get::<Value>(index + 1)? {
            Value::Table(view) => {
                // It showed another agent: its filled-in fields were that agent's.
                for &k in &LAZY {
                    view.raw_set(&n[k], Value::Nil)?;
                }
                view
            }
            _ => {
                let view = lua.create_table_with_capacity(0, 2)?;
                view.set_metatable(Some(self.meta.clone()))?;
                super::sandbox::protect(lua, &view, "another agent's view")?;
                self.store.raw_set(index + 1, &view)?;
                view
            }
        };
        // No raw fields at all: `id` and `kind` too are read through the metatable, so a
        // script cannot write them (`view.id = "x"` would change what every script sees).
        let ptr = view.to_pointer() as usize;
        self.by_ptr.borrow_mut().insert(ptr, index as u32);
        {
            let mut state = self.state.borrow_mut();
            state.grow(index + 1);
            state.rounds[index] = self.round.get();
            state.pos[index] = agent.pos;
            state.ptrs[index] = ptr;
            state.live[index] = 0;
            state.ids[index] = agent.id.clone();
        }
        self.roster.set(self.roster.get() + 1);
        Ok(())
    }

    /// The `pos`, `vel` or `tile` table of agent `index`, made if it has none, with its values
    /// now.
    fn part(&self, lua: &Lua, index: usize, field: usize, agent: &Agent) -> mlua::Result<Table> {
        let at = part_index(index, field);
        let (table, proxy) = match (
            self.parts.raw_get::<Value>(at)?,
            self.proxies.raw_get::<Value>(at)?,
        ) {
            (Value::Table(t), Value::Table(p)) => (t, p),
            _ => {
                let t = lua.create_table_with_capacity(0, 2)?;
                let what = match field {
                    POS => "pos",
                    VEL => "vel",
                    _ => "tile",
                };
                let p = read_only_proxy(lua, &t, &self.refuse_part, what)?;
                self.parts.raw_set(at, &t)?;
                self.proxies.raw_set(at, &p)?;
                (t, p)
            }
        };
        let n = &self.names;
        if field == POS {
            table.raw_set(&n[X], agent.pos.x)?;
            table.raw_set(&n[Y], agent.pos.y)?;
            let mut state = self.state.borrow_mut();
            state.grow(index + 1);
            state.pos[index] = agent.pos;
        } else if field == VEL {
            table.raw_set(&n[X], agent.vel.x)?;
            table.raw_set(&n[Y], agent.vel.y)?;
        } else {
            let t = agent.tile();
            table.raw_set(&n[X], t.x)?;
            table.raw_set(&n[Y], t.y)?;
        }
        Ok(proxy)
    }

    /// Writes the lazy fields in `live` to `table` (a view or a `self`) and the shared parts.
    fn write_live_safe(
        &self,
        lua: &Lua,
        table: &Table,
        index: usize,
        live: u8,
        agent: &Agent,
    ) -> mlua::Result<()> {
        for (b, &field) in LAZY.iter().enumerate() {
            if live & (1 << b) == 0 {
                continue;
            }
            match field {
                POS | VEL | TILE => {
                    self.part(lua, index, field, agent)?;
                }
                _ => table.raw_set(&self.names[field], scalar(lua, field, agent)?)?,
            }
        }
        Ok(())
    }

    /// Refreshes a made view of the same agent through mlua.
    fn refresh_safe(&self, lua: &Lua, agent: &Agent, index: usize) -> mlua::Result<()> {
        let live = self.state.borrow().live[index];
        if live != 0 {
            let view: Table = self.store.raw_get(index + 1)?;
            self.write_live_safe(lua, &view, index, live, agent)?;
        }
        self.state.borrow_mut().rounds[index] = self.round.get();
        Ok(())
    }

    /// Links an agent's `self` to its view (sharing `pos`, `vel` and `tile` once read) and
    /// writes its own filled-in lazy fields (through mlua: when a slot is new, its agent moved
    /// to another index, or it decides outside the raw loop).
    pub fn link_self(
        &self,
        lua: &Lua,
        world: &World,
        this: &Table,
        index: usize,
    ) -> mlua::Result<()> {
        let agent = &world.agents[index];
        self.view(lua, world, index)?;
        let ptr = this.to_pointer() as usize;
        let n = &self.names;
        let linked = self.selves.borrow().get(&ptr) == Some(&(index as u32));
        if !linked {
            // New, or it was linked to another index: what it filled in was that index's.
            for &k in &LAZY {
                this.raw_set(&n[k], Value::Nil)?;
            }
            this.set_metatable(Some(self.meta.clone()))?;
            super::sandbox::protect(lua, this, "self")?;
            self.state.borrow_mut().self_live[index] = 0;
            self.selves.borrow_mut().insert(ptr, index as u32);
        }
        this.raw_set(&n[ID], agent.id.as_str())?;
        this.raw_set(&n[KIND], agent.kind.as_str())?;
        let state = self.state.borrow();
        let live = (state.self_live[index] & SCALAR_BITS) | (state.live[index] & !SCALAR_BITS);
        drop(state);
        if live != 0 {
            self.write_live_safe(lua, this, index, live, agent)?;
        }
        Ok(())
    }

    /// Forgets a `self` table that is going away.
    pub fn unlink_self(&self, ptr: *const c_void) {
        self.selves.borrow_mut().remove(&(ptr as usize));
    }

    /// The lazy scalars the `self` linked to agent `index` has filled in.
    pub fn self_live(&self, index: usize) -> u8 {
        self.state
            .borrow()
            .self_live
            .get(index)
            .map_or(0, |&l| l & SCALAR_BITS)
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
        world: &World,
        index: usize,
    ) -> bool {
        // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
        // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
        unsafe {
            let round = self.round.get();
            let (written, live) = {
                let s = self.state.borrow();
                match s.rounds.get(index) {
                    Some(&r) if r == round => return true,
                    Some(&r) if r != 0 => (s.pos[index], s.live[index]),
                    _ => return false,
                }
            };
            // The compact copy of the position: the agent itself is read only for the other lazy
            // fields a script asked for.
            let mut pos = written;
            if live & POS_BIT != 0 {
                pos = match world.agent_pos(index) {
                    Some(p) => p,
                    None => return false,
                };
                if written.x.to_bits() != pos.x.to_bits() || written.y.to_bits() != pos.y.to_bits()
                {
                    ffi::lua_rawgeti(state, keys.parts, part_index(index, POS));
                    set_number(state, keys, X, pos.x);
                    set_number(state, keys, Y, pos.y);
                    ffi::lua_settop(state, -2);
                }
            }
            if live & !POS_BIT != 0 {
                if let Some(agent) = world.agents.get(index) {
                    write_live_raw(state, keys, index, live, agent);
                }
            }
            let mut s = self.state.borrow_mut();
            s.rounds[index] = round;
            s.pos[index] = pos;
            true
        }
    }

    /// Refreshes, once per round, every view that has filled in a lazy field (a script may
    /// keep one across ticks, and read its fields raw), in agent order: memory is written in
    /// the order it was laid out, instead of view by view as queries pick neighbours at
    /// random. The others have nothing to refresh; a query refreshes what it hands out.
    ///
    /// # Safety
    /// As [`Self::refresh_raw`].
    pub unsafe fn sweep_raw(&self, state: *mut ffi::lua_State, keys: &Keys, world: &World) {
        // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
        // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
        unsafe {
            let round = self.round.get();
            if self.swept.replace(round) == round {
                return;
            }
            {
                let mut s = self.state.borrow_mut();
                if s.unsorted {
                    s.filled.sort_unstable();
                    s.filled.dedup();
                    s.unsorted = false;
                }
            }
            // By position in the list, holding no borrow across a refresh (which may raise).
            for k in 0.. {
                let next = self.state.borrow().filled.get(k).copied();
                let Some(index) = next else { break };
                self.refresh_raw(state, keys, world, index as usize);
            }
        }
    }

    /// Pushes the view table of agent `index` (made and refreshed).
    ///
    /// # Safety
    /// As [`Self::refresh_raw`].
    pub unsafe fn push_view_raw(&self, state: *mut ffi::lua_State, keys: &Keys, index: usize) {
        // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
        // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
        unsafe {
            ffi::lua_rawgeti(state, keys.store, index as i64 + 1);
            // The address as recorded when the view was made (`lua_topointer` costs a call).
            let ptr = self.state.borrow().ptrs.get(index).copied().unwrap_or(0);
            self.last.set((ptr, index));
        }
    }

    /// The address of the view table of agent `index`, if it has one.
    pub fn view_ptr(&self, index: usize) -> Option<usize> {
        let s = self.state.borrow();
        (*s.rounds.get(index)? != 0).then(|| s.ptrs[index])
    }
}

/// Writes the lazy fields in `live` of agent `index`'s view (its shared parts, and its
/// scalars to the view table).
///
/// # Safety
/// As [`Views::refresh_raw`].
unsafe fn write_live_raw(
    state: *mut ffi::lua_State,
    keys: &Keys,
    index: usize,
    live: u8,
    agent: &Agent,
) {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        if live & VEL_BIT != 0 {
            ffi::lua_rawgeti(state, keys.parts, part_index(index, VEL));
            set_number(state, keys, X, agent.vel.x);
            set_number(state, keys, Y, agent.vel.y);
            ffi::lua_settop(state, -2);
        }
        if live & TILE_BIT != 0 {
            let t = agent.tile();
            ffi::lua_rawgeti(state, keys.parts, part_index(index, TILE));
            set_integer(state, keys, X, t.x as i64);
            set_integer(state, keys, Y, t.y as i64);
            ffi::lua_settop(state, -2);
        }
        if live & SCALAR_BITS != 0 {
            ffi::lua_rawgeti(state, keys.store, index as i64 + 1);
            write_scalars_raw(state, keys, live, agent);
            ffi::lua_settop(state, -2);
        }
    }
}

/// Writes the lazy scalars in `live` to the table on top of the stack.
///
/// # Safety
/// As [`Views::refresh_raw`]; the table is on top of the stack.
pub unsafe fn write_scalars_raw(state: *mut ffi::lua_State, keys: &Keys, live: u8, agent: &Agent) {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        if live & bit_of(HEADING) != 0 {
            set_number(state, keys, HEADING, agent.heading());
        }
        if live & bit_of(SPEED) != 0 {
            set_number(state, keys, SPEED, agent.speed);
        }
        if live & bit_of(ACTION) != 0 {
            let name = agent.action.name();
            ffi::lua_pushvalue(state, keys.names[ACTION]);
            ffi::lua_pushlstring(state, name.as_ptr() as *const _, name.len());
            ffi::lua_rawset(state, -3);
        }
        if live & bit_of(SENSE) != 0 {
            ffi::lua_pushvalue(state, keys.names[SENSE]);
            match agent.sense {
                Some(s) => ffi::lua_pushnumber(state, s),
                None => ffi::lua_pushnil(state),
            }
            ffi::lua_rawset(state, -3);
        }
    }
}

unsafe fn set_number(state: *mut ffi::lua_State, keys: &Keys, key: usize, value: f64) {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        ffi::lua_pushvalue(state, keys.names[key]);
        ffi::lua_pushnumber(state, value);
        ffi::lua_rawset(state, -3);
    }
}

unsafe fn set_integer(state: *mut ffi::lua_State, keys: &Keys, key: usize, value: i64) {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        ffi::lua_pushvalue(state, keys.names[key]);
        ffi::lua_pushinteger(state, value);
        ffi::lua_rawset(state, -3);
    }
}
