//! Agent views: the tables `world:agent`, `world:agents` and `world:nearest` return, and the
//! engine fields of each agent's `self` (`id`, `kind`, `pos`, `vel`, `tile`, `heading`,
//! `speed`, `action`, `sense`).
//!
//! Each agent index has one view table (`store[i+1]`), made once. A view is a handle: it holds
//! no raw field, ever. Every read of it goes through the shared agent metatable's `__index`,
//! one raw C function ([`field_index`]) that reads the field from the world being decided at
//! that moment. So nothing is copied into Lua per agent and round, a view is never stale, and
//! no script can write a field another script reads. `__newindex` refuses every write to a
//! view and to the engine's fields of `self`.
//!
//! `pos`, `vel` and `tile` are read-only proxies: one empty table per agent index and part
//! (`proxies[3i+1]`, `[3i+2]`, `[3i+3]`), made the first time a script reads it, sharing one
//! metatable whose `__index` ([`part_index`]) reads `x` or `y` from the world. An agent's `self`
//! keeps its proxies as raw fields once read (its own table, so `self.pos` costs a table
//! lookup), and shares them with its view. `self` holds `id`, `kind`, `params` and `memory` raw;
//! its other engine fields are read through the same `__index` as a view's.
//!
//! Part proxies are read-only tables (patched Lua, `lua_setreadonly`): every write goes to
//! `__newindex`, even to a field they hold. While an agent decides, the proxies its `self`
//! holds are lent to it (see [`FAST_SLOTS`]): for that one call each holds the agent's numbers
//! as raw `x` and `y`, so `self.pos.x` is a field read, not a call into C. The fields are
//! emptied again when `decide` returns or raises; the numbers are the ones [`part_xy`] gives
//! [`part_index`] ([`lent_numbers`] reads them without making the pair of [`Num`]s).
//!
//! The two raw functions (`raw.rs`, with the other raw twins) are the only readers of the
//! fields a script reads; what they cannot do themselves, making a proxy or `self.memory` on
//! first read, they ask of [`fill`] (through mlua). A binding handed a proxy or a view as a
//! position (`nav.los(self.pos, prey.pos)`, `move.path_to(prey)`) reads the same numbers from
//! the world without a call through Lua ([`Views::proxy_xy`], `convert::to_pos`).
//!
//! A view is a snapshot of the tick being decided, to be read, not written: `self.pos`,
//! `view.pos` and friends show the current tick's numbers at every read, so a script that keeps
//! a position copies its numbers.

use super::decide_loop::host;
use super::lent::LentWorld;
use super::raw::{field_index, part_index, raw_closure};
use crate::ffi::{lua_hashsize, lua_lend, lua_lendback, lua_setreadonly};
use agentbox_core::world::spatial::FastMap;
use agentbox_core::world::{Agent, World};
use mlua::ffi;
use mlua::{Lua, LuaString, Table, Value};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::rc::Rc;

/// The field names of agents (and `decide`, which the decision loop reads), as Lua strings in
/// [`Views::names`].
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
pub const KIND: usize = 7;
pub const POS: usize = 8;
pub const VEL: usize = 9;
pub const TILE: usize = 10;
pub const DECIDE: usize = 11;
/// Not a name in [`KEY_NAMES`]: another agent's `label` (on `self`, `label` is the method
/// that sets it), read by `field_index` as a scalar.
pub const LABEL: usize = KEY_NAMES.len();

/// The raw fields a linked `self` may hold of the engine's: its part proxies.
const SELF_PARTS: [usize; 3] = [POS, VEL, TILE];

/// The most hash slots a table is made with from [`Views::sized_table`]'s hint (a script that
/// fills one agent's table with hundreds of keys does not make every later agent's that big
/// up front).
const MAX_HINT: usize = 16;

/// What a view is called in the error of a `rawset` on it.
const VIEW_LOCK: &str = "another agent's view";

/// What a `self` is called in the error of a `rawset` on it.
const SELF_LOCK: &str = "self";

/// What `getmetatable` gives for a view or a `self`.
pub const AGENT_LOCK: &str = "agent (locked)";

/// What `getmetatable` gives for a part proxy.
const PART_LOCK: &str = "agent part (read-only)";

/// Per-state views, kept in the Lua state's app data.
pub struct Views {
    /// The world being decided (or checked by an `expect` predicate), as lent to Lua.
    lent: Rc<LentWorld>,
    /// The world roster the views' agents were last checked against.
    checked: Cell<agentbox_core::world::Roster>,
    /// Agents below this index have been looked at by [`Views::prepare`].
    prepared: Cell<usize>,
    /// Bumped whenever a view index starts showing another agent (caches keyed by index check
    /// it).
    roster: Cell<u64>,
    /// `[i+1]`: the view table of agent index `i`.
    store: Table,
    /// `[3i+1]`, `[3i+2]` and `[3i+3]`: its `pos`, `vel` and `tile` proxies, once read.
    proxies: Table,
    /// The metatable of views and `self` tables.
    meta: Table,
    /// The metatable every part proxy shares.
    part_meta: Table,
    /// By agent index: the view table's address (0: no view made) and the agent it was made or
    /// last checked for.
    ptrs: RefCell<Vec<usize>>,
    /// By agent index, the id of the agent its view was made or last checked for: one string,
    /// which a new agent's slot shares ([`Views::id_at`]).
    ids: RefCell<Vec<Rc<str>>>,
    /// View table address → agent index.
    by_ptr: RefCell<FastMap<usize, u32>>,
    /// `self` table address → the agent index it is linked to.
    selves: RefCell<FastMap<usize, u32>>,
    /// Part proxy address → agent index and part (`POS`, `VEL` or `TILE`).
    parts: RefCell<FastMap<usize, (u32, u8)>>,
    /// By agent index: which parts its `self` holds raw (bit `1 << k`, `k` the part's place
    /// in [`SELF_PARTS`]; a hint of what its `decide` reads, the proxy is looked up all the
    /// same), and [`HAS_MEMORY`] once its `memory` is made. One byte per agent, the only
    /// thing the decision loop reads of an agent whose script reads neither (a crowd of
    /// 20,000: 20 KB, not the 480 KB of [`OwnTables`]s).
    own_bits: RefCell<Vec<u8>>,
    /// By agent index: where its own tables are ([`OwnTables`]), read only when `own_bits` says so.
    own: RefCell<Vec<OwnTables>>,
    /// The part proxy read last, and its entry (`pos.x` is most often followed by `pos.y`).
    last_part: Cell<(usize, (u32, u8))>,
    /// The address and agent index of the view handed out or read last (views live as long
    /// as the state, so an address names one view for good).
    last: Cell<(usize, usize)>,
    /// The field names as Lua strings, in [`KEY_NAMES`] order.
    pub names: Vec<LuaString>,
    /// The names of `self`'s methods (`acts::METHOD_NAMES`), held so their addresses name
    /// them for the state's life (short strings are interned: every string with one of
    /// these names is that object), and those addresses ([`Views::method_slot`]).
    _method_names: Vec<LuaString>,
    method_keys: [usize; super::acts::METHOD_NAMES.len()],
    /// The `self` table of the agent deciding now (null between decisions), and its index.
    deciding: Cell<*const c_void>,
    deciding_index: Cell<Option<usize>>,
    /// Registry reference of what the decision loop needs to lend the deciding agent its own
    /// parts (see [`FAST_SLOTS`]).
    pub fast_ref: c_int,
    /// Each script's number in `hints` (a Rust map, so finding it makes no Lua string: a
    /// long path string made per table landed between an agent's `self` and its `params`).
    hint_keys: RefCell<std::collections::BTreeMap<std::path::PathBuf, usize>>,
    /// By [`Views::room`]'s key (the script's number and the use): whose table of that use
    /// was made last, and the room read of it last ([`SizeHint`]).
    hints: RefCell<Vec<SizeHint>>,
}

/// What sizes the next table of one use of one script ([`Views::sized_table`]): the agent
/// whose table was made last, read again through the host's own `self` of that agent (the
/// registry's `agentbox.selves`) while it has one, and the room read last. Never a weak
/// reference to the table: whether it was still there would hang on when the collector ran,
/// and with it the next table's slots, so the order `pairs` visits its keys in.
#[derive(Clone, Default)]
struct SizeHint {
    agent: Option<String>,
    room: usize,
}

/// The agents' own bits, borrowed for a run of agents ([`Views::lends`]).
pub struct Lends<'a>(std::cell::Ref<'a, Vec<u8>>);

impl Lends<'_> {
    /// Whether the agent at `index` has none of its own parts to lend.
    #[inline]
    pub fn nothing(&self, index: usize) -> bool {
        self.0.get(index).copied().unwrap_or(0) & !HAS_MEMORY == 0
    }
}

/// The bit of [`Views::own_bits`] saying an agent's `memory` was made.
const HAS_MEMORY: u8 = 1 << 7;

/// Where an agent index's own tables are, one record per agent (the decision loop reads them
/// in agent order: one stream of cache lines, not one per field).
#[derive(Clone, Copy, Default)]
struct OwnTables {
    /// Its `pos` proxy's address (0 until made), so the most common read, the deciding
    /// agent's own `self.pos.x`, is found without the map.
    pos: usize,
    /// The address of the `memory` table its `self` was given (0: none yet) and the bytes
    /// from there its header and slots span ([`table_span`]), for [`Views::prefetch_own`].
    memory: usize,
    memory_bytes: usize,
}

/// What [`Views::fast_ref`] holds, in this order, and the decision loop keeps on its stack:
/// the proxies table, the strings `"x"` and `"y"`, and the part names `"pos"`, `"vel"` and
/// `"tile"` (in `SELF_PARTS` order).
///
/// Every part proxy is a read-only table (`lua_setreadonly`, patched Lua) with nodes for `x`
/// and `y` and both empty, so reads go to its `__index` ([`part_index`]) and every write, even
/// to a field it holds, to its `__newindex` (the same refusal). While an agent decides, each
/// proxy of its own that its `self` holds is lent the agent's numbers from the world being
/// decided as its raw `x` and `y` (`lua_lend`, one call that allocates nothing, finding the
/// proxy in `self`'s own field, which the script reads anyway, not in the proxies table, a
/// cache line more per agent): `self.pos.x`
/// is then a plain field read, no metamethod and no call. Once `decide` returns (or raises),
/// the fields are emptied again (`lua_lendback`), so a proxy kept elsewhere reads the world
/// through [`part_index`] again. Only the deciding agent's own proxies are ever lent.
pub const FAST_SLOTS: c_int = 6;
pub const FAST_PROXIES: c_int = 0;
const FAST_X: c_int = 1;
const FAST_Y: c_int = 2;
const FAST_PARTS: c_int = 3;

/// Makes the views of a state, reading the world `lent` holds, and stores them in its app data.
pub fn install(lua: &Lua, lent: Rc<LentWorld>) -> mlua::Result<()> {
    let names = KEY_NAMES
        .iter()
        .map(|k| lua.create_string(k))
        .collect::<mlua::Result<Vec<_>>>()?;
    let method_names = super::acts::METHOD_NAMES
        .iter()
        .map(|k| lua.create_string(k))
        .collect::<mlua::Result<Vec<_>>>()?;
    let mut method_keys = [0; super::acts::METHOD_NAMES.len()];
    for (key, name) in method_keys.iter_mut().zip(&method_names) {
        // The string object's address, as `lua_toidentity` gives it for the key an `__index`
        // is called with (mlua's `to_pointer` is the address of its bytes).
        // SAFETY: `exec_raw` pushes the string at 1; reading its identity, emptying the stack
        // and pushing an integer cannot raise.
        *key = unsafe {
            lua.exec_raw::<usize>(name, |state| {
                let at = crate::ffi::lua_toidentity(state, 1) as usize;
                ffi::lua_settop(state, 0);
                ffi::lua_pushinteger(state, at as ffi::lua_Integer);
            })?
        };
    }
    let (proxies, part_meta) = (lua.create_table()?, lua.create_table()?);
    let refuse = lua.create_function(refuse_part)?;
    let fast = lua.create_table()?;
    fast.raw_push(&proxies)?;
    fast.raw_push(&names[X])?;
    fast.raw_push(&names[Y])?;
    for part in SELF_PARTS {
        fast.raw_push(&names[part])?;
    }
    // SAFETY: takes a registry reference of the table `exec_raw` pushed (kept for the state's
    // life); `luaL_ref` can raise only on allocation, which `exec_raw` protects.
    let fast_ref = unsafe {
        lua.exec_raw::<i64>(fast, |state| {
            let r = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
            ffi::lua_pushinteger(state, r as ffi::lua_Integer);
        })?
    } as c_int;
    let views = Rc::new(Views {
        lent,
        checked: Cell::new(agentbox_core::world::Roster::UNKNOWN),
        prepared: Cell::new(0),
        roster: Cell::new(0),
        store: lua.create_table()?,
        proxies,
        meta: lua.create_table()?,
        part_meta,
        ptrs: RefCell::new(Vec::new()),
        ids: RefCell::new(Vec::new()),
        by_ptr: RefCell::new(FastMap::default()),
        selves: RefCell::new(FastMap::default()),
        parts: RefCell::new(FastMap::default()),
        own_bits: RefCell::new(Vec::new()),
        own: RefCell::new(Vec::new()),
        last_part: Cell::new((0, (0, 0))),
        last: Cell::new((0, 0)),
        names,
        _method_names: method_names,
        method_keys,
        deciding: Cell::new(std::ptr::null()),
        deciding_index: Cell::new(None),
        fast_ref,
        hint_keys: RefCell::new(std::collections::BTreeMap::new()),
        hints: RefCell::new(Vec::new()),
    });
    // The raw functions find the views through a light userdata: the `Rc` in the app data
    // keeps them alive (and in place) as long as the state.
    let at = Value::LightUserData(mlua::LightUserData(Rc::as_ptr(&views) as *mut c_void));
    let fill = lua.create_function(fill)?;
    let index = raw_closure(
        lua,
        field_index,
        vec![
            at.clone(),
            Value::Function(fill),
            Value::Table(views.proxies.clone()),
            Value::Table(super::acts::self_methods(lua)?),
        ],
    )?;
    views.meta.raw_set("__index", index)?;
    views
        .meta
        .raw_set("__newindex", lua.create_function(refuse_field)?)?;
    views.meta.raw_set("__metatable", AGENT_LOCK)?;
    views
        .part_meta
        .raw_set("__index", raw_closure(lua, part_index, vec![at])?)?;
    views.part_meta.raw_set("__newindex", refuse)?;
    views.part_meta.raw_set("__metatable", PART_LOCK)?;
    lua.set_app_data(views);
    Ok(())
}

/// The views of this state.
pub fn get(lua: &Lua) -> mlua::Result<Rc<Views>> {
    lua.app_data_ref::<Rc<Views>>()
        .map(|v| Rc::clone(&v))
        .ok_or_else(|| mlua::Error::RuntimeError("agentbox views are not installed".into()))
}

/// The proxies-table slot of agent `index`'s part `key` (`POS`, `VEL` or `TILE`).
pub fn part_slot(index: usize, key: usize) -> i64 {
    let k = match key {
        VEL => 1,
        TILE => 2,
        _ => 0,
    };
    (3 * index + k + 1) as i64
}

/// Which engine field a key names, if any (`memory` is not one: it is the script's).
#[inline]
pub fn field_of(key: &[u8]) -> Option<usize> {
    // A match on the bytes (by length, then a word compare), not a walk of `KEY_NAMES`
    // comparing each: every read of a view's field asks this. The test below keeps it
    // `KEY_NAMES`'s order.
    Some(match key {
        b"heading" => HEADING,
        b"speed" => SPEED,
        b"action" => ACTION,
        b"sense" => SENSE,
        b"id" => ID,
        b"kind" => KIND,
        b"pos" => POS,
        b"vel" => VEL,
        b"tile" => TILE,
        _ => return None,
    })
}

/// The `x` and `y` of part `part` (`POS`, `VEL` or `TILE`) of agent `index` in `world`: what
/// a part proxy shows, whether read through [`part_index`] or lent to the deciding agent.
pub fn part_xy(world: &World, index: usize, part: usize) -> Option<[Num; 2]> {
    let pair = |v: glam::DVec2| [Num::Float(v.x), Num::Float(v.y)];
    Some(match part {
        POS => pair(world.agent_pos(index)?),
        VEL => pair(world.agents.get(index)?.vel),
        _ => {
            let t = world.agents.get(index)?.tile();
            [Num::Int(t.x as i64), Num::Int(t.y as i64)]
        }
    })
}

/// [`part_xy`] as [`Views::lend`] hands it to `lua_lend`: both numbers as floats, and 1 when
/// they are integers (a tile), read without making the pair of [`Num`]s.
#[inline]
fn lent_numbers(world: &World, index: usize, part: usize) -> Option<(f64, f64, c_int)> {
    Some(match part {
        POS => {
            let p = world.agent_pos(index)?;
            (p.x, p.y, 0)
        }
        VEL => {
            let v = world.agents.get(index)?.vel;
            (v.x, v.y, 0)
        }
        _ => {
            let t = world.agents.get(index)?.tile();
            (t.x as f64, t.y as f64, 1)
        }
    })
}

/// A coordinate of a part: tiles are integers.
#[derive(Clone, Copy)]
pub enum Num {
    Float(f64),
    Int(i64),
}

impl Num {
    /// As a float (a tile coordinate is exact).
    fn float(self) -> f64 {
        match self {
            Num::Float(n) => n,
            Num::Int(n) => n as f64,
        }
    }
}

/// The Lua value of a scalar field.
pub enum Scalar<'a> {
    Number(f64),
    Text(&'a str),
    Nil,
}

/// A scalar field of `agent` (`id`, `kind`, `heading`, `speed`, `action`, `sense`).
pub fn scalar(field: usize, agent: &Agent) -> Scalar<'_> {
    match KEY_NAMES[field] {
        "id" => Scalar::Text(&agent.id),
        "kind" => Scalar::Text(&agent.kind),
        "heading" => Scalar::Number(agent.heading()),
        "speed" => Scalar::Number(agent.speed),
        "action" => Scalar::Text(agent.action.name()),
        "sense" => agent.sense.map_or(Scalar::Nil, Scalar::Number),
        _ => Scalar::Nil,
    }
}

/// What [`field_index`] cannot do without mlua: the first read of a part (`pos`, `vel`,
/// `tile`) makes its proxy, and the first read of `self.memory` makes the table. A `self`
/// keeps what it read as a raw field.
fn fill(lua: &Lua, (table, key): (Table, LuaString)) -> mlua::Result<Value> {
    let views = get(lua)?;
    let Some((index, is_self)) = views.owner(table.to_pointer() as usize) else {
        return Ok(Value::Nil);
    };
    let value = match field_of(&key.as_bytes()) {
        Some(field @ (POS | VEL | TILE)) => Value::Table(views.part(lua, index, field)?),
        None if is_self && &key.as_bytes()[..] == b"memory" => {
            let (script, id) = views
                .lent()
                .with(|w| match w.agents.get(index) {
                    Some(Agent {
                        brain: agentbox_core::world::Brain::Script(path),
                        id,
                        ..
                    }) => (path.to_path_buf(), id.clone()),
                    _ => Default::default(),
                })
                .unwrap_or_default();
            let (memory, slots) = views.sized_table(lua, &script, TableUse::Memory, 0, &id)?;
            let at = memory.to_pointer() as usize;
            views.set_own(index, HAS_MEMORY, |own| {
                own.memory = at;
                own.memory_bytes = table_span(slots);
            });
            Value::Table(memory)
        }
        // `self:label(name)` (`label.rs`), `self:inbox()` and the other methods of
        // `acts.rs`: handed out at each read, never kept on `self`.
        None if is_self && super::acts::self_method(&key.as_bytes()).is_some() => {
            let name = super::acts::self_method(&key.as_bytes()).unwrap_or_default();
            return lua.named_registry_value(name);
        }
        _ => return Ok(Value::Nil),
    };
    if is_self {
        table.raw_set(&key, &value)?;
        if let Some(k) =
            field_of(&key.as_bytes()).and_then(|f| SELF_PARTS.iter().position(|&p| p == f))
        {
            views.set_own(index, 1 << k, |_| {});
        }
    }
    Ok(value)
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
        Value::String(s) => {
            crate::bounded::prefix(&s.as_bytes(), crate::bounded::QUOTE_BYTES).into_owned()
        }
        other => crate::bounded::describe(other),
    };
    let engine = matches!(&key, Value::String(s) if KEY_NAMES[..DECIDE].iter().any(|n| n.as_bytes() == &s.as_bytes()[..]) || super::acts::self_method(&s.as_bytes()).is_some());
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

impl Views {
    /// The world lent to Lua, which the fields are read from.
    #[inline]
    pub fn lent(&self) -> &LentWorld {
        &self.lent
    }

    /// The agent index a view or linked `self` table stands for, and whether it is a `self`.
    pub fn owner(&self, ptr: usize) -> Option<(usize, bool)> {
        // Most often the view a query handed out last, or read last (`prey.pos.x - ...,
        // prey.pos.y - ...`).
        let (last_ptr, last) = self.last.get();
        if last_ptr == ptr {
            return Some((last, false));
        }
        if let Some(&i) = self.by_ptr.borrow().get(&ptr) {
            self.last.set((ptr, i as usize));
            return Some((i as usize, false));
        }
        self.selves.borrow().get(&ptr).map(|&i| (i as usize, true))
    }

    /// Starts a round for `world`. Unless the world's agent list is the one already checked
    /// (same [`World::roster`]), every view's agent is compared, and caches keyed by view index
    /// are told ([`Self::roster`]) when one shows another agent.
    pub fn begin_round(&self, world: &World) {
        if world.roster().is_known() && world.roster() == self.checked.get() {
            return;
        }
        let ptrs = self.ptrs.borrow();
        let mut ids = self.ids.borrow_mut();
        for ((ptr, id), agent) in ptrs.iter().zip(ids.iter_mut()).zip(&world.agents) {
            if *ptr != 0 && **id != *agent.id {
                *id = Rc::from(agent.id.as_str());
                self.roster.set(self.roster.get() + 1);
            }
        }
        self.checked.set(world.roster());
        self.prepared.set(0);
    }

    pub fn roster(&self) -> u64 {
        self.roster.get()
    }

    /// Makes the views of agents that have none yet, in agent order, so each agent's tables
    /// sit together in memory (made on first use they would be scattered in query order).
    /// Only scripted agents' views are made ahead (their `self` shares them); others wait
    /// until a query needs them, so a scene of many unscripted agents costs no Lua memory.
    /// All of them are made in one raw call (a crowd spawned in one tick makes 10,000).
    pub fn prepare(&self, lua: &Lua, world: &World) -> mlua::Result<()> {
        let from = self.prepared.get();
        let wanted: Vec<usize> = (world.agents.iter().enumerate().skip(from))
            .filter(|(index, agent)| {
                self.view_ptr(*index).is_none()
                    && matches!(agent.brain, agentbox_core::world::Brain::Script(_))
            })
            .map(|(index, _)| index)
            .collect();
        if !wanted.is_empty() {
            // The lists by index grow once to the crowd's size, not by doubling past it.
            let room = world.agents.len();
            let (mut ptrs, mut ids) = (self.ptrs.borrow_mut(), self.ids.borrow_mut());
            let more = room.saturating_sub(ptrs.len());
            ptrs.reserve_exact(more);
            let more = room.saturating_sub(ids.len());
            ids.reserve_exact(more);
            drop((ptrs, ids));
            self.by_ptr.borrow_mut().reserve(wanted.len());
            let mut made = vec![0usize; wanted.len()];
            let args = (&self.store, &self.meta);
            // The store's array part grows once, to the power of two doubling would reach.
            let store_room = room.next_power_of_two().min(c_int::MAX as usize) as c_int;
            // `exec_raw` pushes the store (1) and the metatable (2); each view is made, locked
            // (its metatable marks it read-only, see [`Views::lock_name`]) and stored, so the
            // stack is back at 2 after each, its room made first. An allocation failure raises
            // through `exec_raw`'s protected call; only references and numbers live here.
            // SAFETY: as said above.
            crate::collector_paused(lua, || unsafe {
                lua.exec_raw::<()>(args, |state| {
                    crate::ffi::lua_reservearray(state, 1, store_room);
                    for (&index, ptr) in wanted.iter().zip(made.iter_mut()) {
                        ffi::lua_createtable(state, 0, 0);
                        ffi::lua_pushvalue(state, 2);
                        ffi::lua_setmetatable(state, -2);
                        *ptr = ffi::lua_topointer(state, -1) as usize;
                        ffi::lua_rawseti(state, 1, index as ffi::lua_Integer + 1);
                    }
                    ffi::lua_settop(state, 0);
                })
            })?;
            for (&index, ptr) in wanted.iter().zip(made) {
                self.made(&world.agents[index], index, ptr);
            }
        }
        self.prepared.set(from.max(world.agents.len()));
        Ok(())
    }

    /// The table holding every view.
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

    /// The slot in `acts::self_methods`' list part of the `self` method whose name is the
    /// string at address `key` (`lua_toidentity`), if it is one.
    #[inline]
    pub fn method_slot(&self, key: *const c_void) -> Option<ffi::lua_Integer> {
        let at = self.method_keys.iter().position(|&k| k == key as usize)?;
        Some(at as ffi::lua_Integer + 1)
    }

    /// Whether a value is the `self` table of the agent deciding now.
    pub fn is_deciding_self(&self, value: &Value) -> bool {
        let d = self.deciding.get();
        !d.is_null() && matches!(value, Value::Table(t) if t.to_pointer() == d)
    }

    /// The agent index a view table stands for (a view's identity: its fields are read through
    /// its metatable).
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

    /// The view of agent `index`, made if it has none.
    pub fn view(&self, lua: &Lua, world: &World, index: usize) -> mlua::Result<Table> {
        if self.view_ptr(index).is_none() {
            self.make(lua, &world.agents[index], index)?;
        }
        self.store.raw_get(index + 1)
    }

    /// Makes the view at `index`.
    fn make(&self, lua: &Lua, agent: &Agent, index: usize) -> mlua::Result<()> {
        let view = lua.create_table_with_capacity(0, 0)?;
        view.set_metatable(Some(self.meta.clone()))?;
        self.store.raw_set(index + 1, &view)?;
        self.made(agent, index, view.to_pointer() as usize);
        Ok(())
    }

    /// Records the view made for `agent` at `index`, at address `ptr`.
    fn made(&self, agent: &Agent, index: usize, ptr: usize) {
        self.by_ptr.borrow_mut().insert(ptr, index as u32);
        let (mut ptrs, mut ids) = (self.ptrs.borrow_mut(), self.ids.borrow_mut());
        if ptrs.len() <= index {
            ptrs.resize(index + 1, 0);
        }
        ptrs[index] = ptr;
        let id = || Rc::from(agent.id.as_str());
        if ids.len() <= index {
            // Views are made in agent order, so the list most often grows by this one.
            if ids.len() < index {
                ids.resize(index, Rc::from(""));
            }
            ids.push(id());
        } else if *ids[index] != *agent.id {
            ids[index] = id();
        }
    }

    /// The id of the agent whose view is at `index` (as last made or checked, see
    /// [`Views::begin_round`]), shared; `None` if it has no view.
    pub fn id_at(&self, index: usize) -> Option<Rc<str>> {
        let ptrs = self.ptrs.borrow();
        (ptrs.get(index).is_some_and(|&p| p != 0)).then(|| Rc::clone(&self.ids.borrow()[index]))
    }

    /// The `pos`, `vel` or `tile` proxy of agent `index`, made if it has none (what a view's
    /// `__index` hands out for it).
    pub fn part(&self, lua: &Lua, index: usize, field: usize) -> mlua::Result<Table> {
        let at = part_slot(index, field);
        if let Value::Table(p) = self.proxies.raw_get::<Value>(at)? {
            return Ok(p);
        }
        // Nodes for `x` and `y`, left empty, so lending them numbers allocates nothing; then
        // read-only (see `FAST_SLOTS`).
        let proxy = lua.create_table_with_capacity(0, 2)?;
        for axis in [X, Y] {
            proxy.raw_set(&self.names[axis], 0)?;
            proxy.raw_set(&self.names[axis], Value::Nil)?;
        }
        proxy.set_metatable(Some(self.part_meta.clone()))?;
        // SAFETY: `exec_raw` pushes the proxy; marking it read-only neither allocates nor raises.
        unsafe {
            lua.exec_raw::<()>(&proxy, |state| lua_setreadonly(state, 1))?;
        }
        super::sandbox::protect(lua, &proxy, &format!("an agent's {}", KEY_NAMES[field]))?;
        self.proxies.raw_set(at, &proxy)?;
        let ptr = proxy.to_pointer() as usize;
        self.parts
            .borrow_mut()
            .insert(ptr, (index as u32, field as u8));
        if field == POS {
            self.set_own(index, 0, |own| own.pos = ptr);
        }
        Ok(proxy)
    }

    /// The agent index and part of the proxy at `ptr`, remembered for the next read
    /// (`pos.x` is most often followed by `pos.y`).
    pub fn part_at(&self, ptr: usize) -> Option<(u32, u8)> {
        match self.last_part.get() {
            (last, part) if last == ptr => Some(part),
            _ => {
                let part = self.part_of(ptr)?;
                self.last_part.set((ptr, part));
                Some(part)
            }
        }
    }

    /// The numbers the part proxy at `ptr` shows now (its `__index` reads them from the world
    /// being decided, and the numbers lent to the deciding agent's own are the same), as a
    /// point; `None` when `ptr` is no part proxy or no world is lent (then its `__index` gives
    /// nil, which the caller reads through Lua as before).
    pub fn proxy_xy(&self, ptr: usize) -> Option<glam::DVec2> {
        let (index, part) = self.part_at(ptr)?;
        // SAFETY: the reference is used and dropped within this call, which runs inside the
        // loan (a Lua call made while the world is lent).
        let world = unsafe { self.lent.get() }?;
        let [x, y] = part_xy(world, index as usize, part as usize)?;
        Some(glam::DVec2::new(x.float(), y.float()))
    }

    /// The agent index and part of the proxy at `ptr`.
    fn part_of(&self, ptr: usize) -> Option<(u32, u8)> {
        if let Some(me) = self.deciding_index.get() {
            if self.own.borrow().get(me).map(|own| own.pos) == Some(ptr) {
                return Some((me as u32, POS as u8));
            }
        }
        self.parts.borrow().get(&ptr).copied()
    }

    /// Links an agent's `self` to agent index `index` (its engine fields are read through the
    /// metatable; its parts are its view's) and writes its `id` and `kind`. A `self` that was
    /// linked to another index forgets that index's parts.
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
            for k in SELF_PARTS {
                this.raw_set(&n[k], Value::Nil)?;
            }
            if let Some(bits) = self.own_bits.borrow_mut().get_mut(index) {
                *bits &= HAS_MEMORY;
            }
            this.set_metatable(Some(self.meta.clone()))?;
            // Read-only as a proxy is: a field the engine has put on `self` (after the first
            // `self.pos`) still takes no write, since every write reaches `refuse_field`.
            // SAFETY: `exec_raw` pushes `this` at 1; `lua_setreadonly` only sets a flag of it.
            unsafe { lua.exec_raw::<()>(this, |state| lua_setreadonly(state, 1))? };
            self.selves.borrow_mut().insert(ptr, index as u32);
        }
        this.raw_set(&n[ID], agent.id.as_str())?;
        this.raw_set(&n[KIND], agent.kind.as_str())?;
        Ok(())
    }

    /// Room for `more` new `self` tables ([`Views::linked_new_self`]), so a spawned crowd's go
    /// into the map without it growing on the way.
    pub fn reserve_selves(&self, more: usize) {
        self.selves.borrow_mut().reserve(more);
    }

    /// Records a `self` (at `ptr`) linked to agent `index` outside [`Views::link_self`]: made
    /// with the views' metatable, locked by it and given its `id` and `kind` in the same
    /// raw call (`agents::Agents::make_slots`), and holding no part yet.
    pub fn linked_new_self(&self, ptr: usize, index: usize) {
        if let Some(bits) = self.own_bits.borrow_mut().get_mut(index) {
            *bits &= HAS_MEMORY;
        }
        self.selves.borrow_mut().insert(ptr, index as u32);
    }

    /// The metatable of views and `self` tables.
    pub fn meta(&self) -> &Table {
        &self.meta
    }

    /// What a view or a `self` is called in the error of a change refused (`rawset`, a
    /// memory edit); `None` for any other table. Views and `self` tables are known by their
    /// metatable, which no script can set or take (it is locked), not listed one by one
    /// among the protected tables: a crowd's 40,000 entries there cost 1.6 MB.
    pub fn lock_name(&self, table: &Table) -> Option<&'static str> {
        let meta = table.metatable()?;
        if meta.to_pointer() != self.meta.to_pointer() {
            return None;
        }
        let ptr = table.to_pointer() as usize;
        Some(match self.by_ptr.borrow().contains_key(&ptr) {
            true => VIEW_LOCK,
            false => SELF_LOCK,
        })
    }

    /// Asks the CPU to start loading the tables of agent `index`'s own that its `decide` is
    /// likely to touch and its `self` does not lie next to: its `pos` proxy (lent to it) and
    /// its `memory` table, as first made, each with its slots (made with the table, so they
    /// follow its header: [`table_span`]). A hint only (see `decide_loop::prefetch_self`): nothing is
    /// read, and an address that is stale costs nothing but the hint.
    pub fn prefetch_own(&self, index: usize) {
        let bits = self.own_bits.borrow().get(index).copied().unwrap_or(0);
        if bits & (1 | HAS_MEMORY) == 0 {
            return;
        }
        let own = self.own.borrow();
        let Some(own) = own.get(index) else {
            return;
        };
        if bits & 1 != 0 {
            prefetch_span(own.pos, table_span(2));
        }
        prefetch_span(own.memory, own.memory_bytes);
    }

    /// Which parts the `self` of agent `index` holds raw (bit `1 << k` for `SELF_PARTS[k]`).
    pub fn self_parts(&self, index: usize) -> u8 {
        self.own_bits.borrow().get(index).copied().unwrap_or(0) & !HAS_MEMORY
    }

    /// [`Views::self_parts`] of agent `index`, and [`Views::prefetch_own`] of the agent `ahead`
    /// after it, in one look at the bits (the decision loop does both for every agent).
    #[inline]
    pub fn self_parts_ahead(&self, index: usize, ahead: usize) -> u8 {
        let own_bits = self.own_bits.borrow();
        let later = own_bits.get(index + ahead).copied().unwrap_or(0);
        let parts = own_bits.get(index).copied().unwrap_or(0) & !HAS_MEMORY;
        drop(own_bits);
        if later & (1 | HAS_MEMORY) != 0 {
            self.prefetch_own(index + ahead);
        }
        parts
    }

    /// Which agents have none of their own parts to lend (see [`Self::self_parts_ahead`]),
    /// read for a run of agents at once: the decision loop runs such agents in one call of the
    /// VM (`lua_agentbatch`), where nothing is lent.
    pub fn lends(&self) -> Lends<'_> {
        Lends(self.own_bits.borrow())
    }

    /// Sets `bits` in agent `index`'s [`Views::own_bits`] and changes where its own tables are.
    fn set_own(&self, index: usize, bits: u8, change: impl FnOnce(&mut OwnTables)) {
        let mut own_bits = self.own_bits.borrow_mut();
        let mut own = self.own.borrow_mut();
        if own.len() <= index {
            own.resize(index + 1, OwnTables::default());
            own_bits.resize(index + 1, 0);
        }
        own_bits[index] |= bits;
        change(&mut own[index]);
    }

    /// Lends agent `index` the parts of `parts` its `self` (at `this`) holds (see
    /// [`FAST_SLOTS`]): pushes each one's proxy, found in `self`, with its numbers from `world`
    /// as its raw `x` and `y`. Marks each part lent in `lent` as soon as it is (so a
    /// raised error leaves it saying what to give back); their proxies are left on the stack
    /// in part order for [`Views::end_lend`].
    ///
    /// # Safety
    /// A live state with room for four values, the [`FAST_SLOTS`] values from `fast` on; no
    /// Rust value needing a drop in the caller's frames (a raised error unwinds them).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn lend(
        state: *mut ffi::lua_State,
        fast: c_int,
        this: c_int,
        world: &World,
        index: usize,
        parts: u8,
        lent: &mut u8,
    ) {
        let mut bits = parts & ((1 << SELF_PARTS.len()) - 1);
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let field = SELF_PARTS[k];
            // The numbers, read in Rust under `host` (a panic becomes a Lua error).
            // SAFETY: the caller's contract.
            let numbers = unsafe { host(state, || lent_numbers(world, index, field)) };
            let Some((x, y, ints)) = numbers else {
                continue;
            };
            // SAFETY: the caller's contract (the key strings sit at `fast`'s slots, `self` at
            // `this`); this neither allocates nor raises.
            let pushed = unsafe {
                lua_lend(
                    state,
                    this,
                    fast + FAST_PARTS + k as c_int,
                    fast + FAST_X,
                    fast + FAST_Y,
                    x,
                    y,
                    ints,
                )
            };
            if pushed != 0 {
                *lent |= 1 << k;
            }
        }
    }

    /// Takes the numbers lent back from the proxies lent (`lent`, left on the stack from
    /// `first` on by [`Views::lend`]).
    ///
    /// # Safety
    /// A live state, the [`FAST_SLOTS`] values from `fast` on, the proxies from `first` on.
    pub unsafe fn end_lend(state: *mut ffi::lua_State, first: c_int, lent: u8) {
        for n in 0..lent.count_ones() as c_int {
            // SAFETY: the caller's contract; this neither allocates nor raises.
            unsafe { lua_lendback(state, first + n) };
        }
    }

    /// The proxies-table slots of agent `index`'s parts, by their place in `SELF_PARTS`.
    pub fn part_slots(&self, index: usize) -> impl Iterator<Item = (usize, ffi::lua_Integer)> {
        SELF_PARTS
            .iter()
            .enumerate()
            .map(move |(k, &field)| (k, part_slot(index, field)))
    }

    /// A new table for `use_` (`self` or `memory`, with the script's path), made with the hash
    /// room the last table made for the same use has grown to by now (at least `min`, at
    /// most [`MAX_HINT`]). The agents of a crowd share a script and fill their tables alike, so
    /// each table is made at its final size at once, its slots allocated right after its
    /// header, instead of regrown during its first `decide`, into memory far from the header
    /// (an agent's `self` grew from 4 to 8 slots on its fifth field: every later read of it
    /// then touched two distant places; `docs/benchmarks.md`, crowd section).
    /// `agent` is the agent whose `self` holds (or is) the table. Also gives the number of
    /// hash slots it was made with.
    pub fn sized_table(
        &self,
        lua: &Lua,
        script: &std::path::Path,
        use_: TableUse,
        min: usize,
        agent: &str,
    ) -> mlua::Result<(Table, usize)> {
        let (key, room) = self.room(lua, script, use_, min)?;
        let table = lua.create_table_with_capacity(0, room)?;
        self.made_for(key, agent);
        Ok((table, slots_of(room)))
    }

    /// The key of `use_` for `script` (for [`Views::made_for`]), and the room a table made for
    /// it now gets (see [`Views::sized_table`]): what the table made last has grown to, read
    /// through its agent's `self` if the host still keeps one for it, else the room read last.
    pub fn room(
        &self,
        lua: &Lua,
        script: &std::path::Path,
        use_: TableUse,
        min: usize,
    ) -> mlua::Result<(usize, usize)> {
        let number = {
            let mut keys = self.hint_keys.borrow_mut();
            let next = keys.len();
            match keys.get(script) {
                Some(&n) => n,
                None => *keys.entry(script.to_path_buf()).or_insert(next),
            }
        };
        let key = 2 * number + use_ as usize;
        let agent = {
            let mut hints = self.hints.borrow_mut();
            if hints.len() <= key {
                hints.resize(key + 1, SizeHint::default());
            }
            hints[key].agent.clone()
        };
        if let Some(agent) = agent {
            if let Some(room) = room_of(lua, &agent, use_)? {
                self.hints.borrow_mut()[key].room = room;
            }
        }
        let room = self.hints.borrow()[key].room;
        Ok((key, room.clamp(min, MAX_HINT)))
    }

    /// Notes that the table of `key` ([`Views::room`]) made last is `agent`'s.
    pub fn made_for(&self, key: usize, agent: &str) {
        if let Some(hint) = self.hints.borrow_mut().get_mut(key) {
            hint.agent = Some(agent.to_string());
        }
    }

    /// Forgets a `self` table that is going away.
    pub fn unlink_self(&self, ptr: *const c_void) {
        self.selves.borrow_mut().remove(&(ptr as usize));
    }

    /// Pushes the view table of agent `index` (which must have one) from the view store at
    /// stack slot `store`.
    ///
    /// # Safety
    /// A live state with room for one value, the store at `store`.
    pub unsafe fn push_view_raw(&self, state: *mut ffi::lua_State, store: c_int, index: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            ffi::lua_rawgeti(state, store, index as i64 + 1);
        }
        // The address as recorded when the view was made (`lua_topointer` costs a call).
        if let Some(ptr) = self.view_ptr(index) {
            self.last.set((ptr, index));
        }
    }

    /// [`Views::push_view_raw`] for a view whose address `ptr` the caller read already
    /// ([`Views::view_ptr`]).
    ///
    /// # Safety
    /// As [`Views::push_view_raw`].
    #[inline]
    pub unsafe fn push_view_at(
        &self,
        state: *mut ffi::lua_State,
        store: c_int,
        index: usize,
        ptr: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            ffi::lua_rawgeti(state, store, index as i64 + 1);
        }
        self.last.set((ptr, index));
    }

    /// The address of the view table of agent `index`, if it has one.
    pub fn view_ptr(&self, index: usize) -> Option<usize> {
        self.ptrs.borrow().get(index).copied().filter(|&p| p != 0)
    }
}

/// The hash slots a table made with room for `room` keys has.
pub fn slots_of(room: usize) -> usize {
    if room == 0 {
        0
    } else {
        room.next_power_of_two()
    }
}

/// The bytes from a table's address that its header and its hash slots span when both were
/// allocated together (the table made with its room at once): the header (56 bytes), the
/// allocator's and the memory counter's headers of the slots' block (24), then 24 bytes a
/// slot. Only a hint for prefetching: nothing is read from it.
fn table_span(slots: usize) -> usize {
    80 + 24 * slots
}

/// Asks the CPU for every cache line of `bytes` from `at` (0: nothing). A hint only.
fn prefetch_span(at: usize, bytes: usize) {
    if at == 0 {
        return;
    }
    let mut line = at & !63;
    while line < at + bytes {
        super::decide_loop::prefetch_line(line);
        line += 64;
    }
}

/// What a table from [`Views::sized_table`] is for.
#[derive(Clone, Copy)]
pub enum TableUse {
    /// An agent's `self`.
    Self_ = 0,
    /// An agent's `self.memory`.
    Memory = 1,
}

/// The number of hash slots `table` has now (patched Lua's `lua_hashsize`).
fn hash_size(lua: &Lua, table: &Table) -> mlua::Result<usize> {
    // SAFETY: `exec_raw` pushes the table; `lua_hashsize` reads its size, and the table is
    // popped and an integer pushed in its place, which cannot raise.
    let n = unsafe {
        lua.exec_raw::<i64>(table, |state| {
            let n = lua_hashsize(state, -1);
            ffi::lua_settop(state, -2);
            ffi::lua_pushinteger(state, n as ffi::lua_Integer);
        })?
    };
    Ok(n as usize)
}

/// The hash slots of `agent`'s table of `use_` now (its `self`, or the `memory` its `self`
/// holds), if the host keeps a `self` for it.
fn room_of(lua: &Lua, agent: &str, use_: TableUse) -> mlua::Result<Option<usize>> {
    let selves = crate::registry_table(lua, crate::SELVES)?;
    let Value::Table(this) = selves.raw_get::<Value>(agent)? else {
        return Ok(None);
    };
    let table = match use_ {
        TableUse::Self_ => this,
        TableUse::Memory => match this.raw_get::<Value>("memory")? {
            Value::Table(memory) => memory,
            _ => return Ok(None),
        },
    };
    hash_size(lua, &table).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the deciding agent is lent is what its proxies' `__index` shows: `part_xy`'s
    /// numbers, integers for a tile; nothing for an index the world does not have.
    #[test]
    fn lent_numbers_are_the_numbers_a_proxy_shows() {
        let mut world = World::from_ascii(&["......"; 4]);
        for (n, (x, y)) in [(0, 0), (4, 3), (2, 1)].into_iter().enumerate() {
            let mut agent = Agent::new(format!("a{n}"), agentbox_core::world::Tile::new(x, y));
            agent.pos += glam::DVec2::new(0.375 * n as f64, -0.25);
            agent.vel = glam::DVec2::new(n as f64 - 1.5, 0.5);
            world.agents.push(agent);
        }
        for index in 0..4 {
            for part in SELF_PARTS {
                let lent = lent_numbers(&world, index, part);
                let shown = part_xy(&world, index, part).map(|[x, y]| match (x, y) {
                    (Num::Int(x), Num::Int(y)) => (x as f64, y as f64, 1),
                    (x, y) => (x.float(), y.float(), 0),
                });
                assert_eq!(lent, shown, "agent {index}, part {}", KEY_NAMES[part]);
                assert_eq!(lent.is_some(), index < 3);
            }
        }
    }

    /// `field_of` names the engine fields of `KEY_NAMES` (not `x`, `y`, `decide`) and no
    /// other key.
    #[test]
    fn field_of_names_the_engine_fields() {
        for (k, name) in KEY_NAMES.iter().enumerate() {
            let want = (k != X && k != Y && k != DECIDE).then_some(k);
            assert_eq!(field_of(name.as_bytes()), want, "{name}");
        }
        for other in ["memory", "params", "label", "po", "poss", "", "POS"] {
            assert_eq!(field_of(other.as_bytes()), None, "{other}");
        }
    }

    /// A table is made with the hash room the last table of the same use grew to (at least
    /// the minimum, at most `MAX_HINT`); another use, or another script, keeps its own. The
    /// last table is read through its agent's `self` while the host keeps one: once that is
    /// gone, the room read last, whenever the collector runs.
    #[test]
    fn a_table_is_made_with_the_room_the_last_of_its_use_grew_to() {
        let lua = Lua::new();
        install(&lua, Rc::default()).unwrap();
        let views = get(&lua).unwrap();
        let selves = crate::registry_table(&lua, crate::SELVES).unwrap();
        let (a, b) = (std::path::Path::new("a.lua"), std::path::Path::new("b.lua"));
        let made = |script, use_, min, agent: &str| {
            let (table, slots) = views.sized_table(&lua, script, use_, min, agent).unwrap();
            if let TableUse::Self_ = use_ {
                selves.raw_set(agent, &table).unwrap();
            }
            (table, slots)
        };
        let (first, slots) = made(a, TableUse::Self_, 4, "a1");
        assert_eq!((slots, hash_size(&lua, &first).unwrap()), (4, 4));
        for key in ["id", "kind", "params", "memory", "pos"] {
            first.raw_set(key, true).unwrap();
        }
        assert_eq!(
            hash_size(&lua, &first).unwrap(),
            8,
            "a fifth key regrows it"
        );
        let (second, slots) = made(a, TableUse::Self_, 4, "a2");
        assert_eq!((slots, hash_size(&lua, &second).unwrap()), (8, 8));
        let (other, _) = made(b, TableUse::Self_, 4, "b1");
        assert_eq!(hash_size(&lua, &other).unwrap(), 4);
        let (memory, slots) = made(a, TableUse::Memory, 0, "a2");
        assert_eq!((slots, hash_size(&lua, &memory).unwrap()), (0, 0));
        second.raw_set("memory", &memory).unwrap();
        for n in 0..6 {
            memory.raw_set(format!("m{n}"), n).unwrap();
        }
        let (_, slots) = made(a, TableUse::Memory, 0, "a3");
        assert_eq!(slots, 8, "the last memory, read through its agent's self");
        for n in 0..100 {
            second.raw_set(format!("k{n}"), n).unwrap();
        }
        let (third, _) = made(a, TableUse::Self_, 4, "a3");
        assert_eq!(hash_size(&lua, &third).unwrap(), MAX_HINT);
        // Agent a3 goes (the host forgets its `self`), and its table with it: the next table
        // gets the room read last, however much of it the collector has freed.
        selves.raw_set("a3", Value::Nil).unwrap();
        drop(third);
        lua.gc_collect().unwrap();
        let (fourth, _) = made(a, TableUse::Self_, 4, "a4");
        assert_eq!(hash_size(&lua, &fourth).unwrap(), MAX_HINT);
    }
}
