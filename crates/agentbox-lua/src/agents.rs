//! Every agent's Lua state: its slot (its `self` table, in the registry, with the script it
//! runs and what the raw loop needs of it), its memory owner number, its random stream, and the
//! agents stopped because all scripts together hit the memory cap while they held the most.
//! Also what the host shows of an agent's memory (the inspector, `--trace-memory`).
//!
//! It holds Lua tables but runs no script; it never changes the world.

use crate::budget::Budget;
use crate::calls::{display, MB, SUSPENDED};
use crate::convert::json_to_lua;
use crate::modules::Modules;
use crate::sandbox::Rngs;
use crate::views::{self, Views};
use crate::{decide_loop, inspect, memory, registry_table, SELVES};
use agentbox_core::sim::Decision;
use agentbox_core::world::spatial::{FastMap, Fnv1a};
use agentbox_core::world::{rng, Agent, Brain, ErrorKind, Roster, ScriptError, World};
use mlua::{ffi, Lua, Table, Value};
use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_int, c_void};
use std::path::Path;
use std::rc::Rc;

/// Per-agent Lua state.
pub struct Slot {
    /// The agent's id, one string shared with the maps keyed by it.
    pub id: Rc<str>,
    /// The number its Lua memory is counted under (see `budget.rs`); the same for an id for
    /// the host's life, so blocks an agent left behind never count against another.
    pub owner: u32,
    pub this: SelfRef,
    /// `this` as a registry reference and an address, for the raw decision loop.
    pub this_ref: std::ffi::c_int,
    pub this_ptr: *const c_void,
    /// How many cache lines from `this_ptr` hold its header, its fields and its `params`
    /// (`decide_loop::prefetch_self`).
    pub lines: u8,
    /// The script it runs, shared by the slots made for it together.
    pub script: Rc<Path>,
    /// The module generation `init`/`on_reload` last ran for; `None` before `init`.
    pub seen_generation: Option<u64>,
    /// The agent index and view table `self` shares its `pos`, `vel` and `tile` with.
    pub linked: Option<(usize, usize)>,
    /// When this slot was last readied through mlua (`ScriptHost::prepare_one`): the host's load count, its module
    /// table's registry reference, and the world roster. While no script has loaded since,
    /// the module, its generation and `init` are known good, so the raw loop may run it; while
    /// the roster stays, so is the agent's script.
    pub checked: Option<(u64, std::ffi::c_int, Roster)>,
}

/// An agent's `self` table, held by a reference in the Lua registry (made by `luaL_ref`, so
/// a crowd's slots can be made in one raw call, [`Agents::make_slots`]).
pub struct SelfRef(c_int);

impl SelfRef {
    /// Holds the table on top of the stack in the registry (popping it).
    ///
    /// # Safety
    /// A live state with a table on top; it may raise a memory error.
    unsafe fn pop(state: *mut ffi::lua_State) -> SelfRef {
        // SAFETY: the caller's contract.
        SelfRef(unsafe { ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX) })
    }

    /// Holds `table` in the registry.
    fn new(lua: &Lua, table: &Table) -> mlua::Result<SelfRef> {
        // SAFETY: `exec_raw` pushes the table; `SelfRef::pop` takes it, and the reference is
        // pushed as an integer in its place.
        let id = unsafe {
            lua.exec_raw::<i64>(table, |state| {
                let r = SelfRef::pop(state);
                ffi::lua_pushinteger(state, r.0 as ffi::lua_Integer);
            })?
        };
        Ok(SelfRef(id as c_int))
    }

    /// The registry reference.
    pub fn id(&self) -> c_int {
        self.0
    }

    /// The table.
    pub fn table(&self, lua: &Lua) -> mlua::Result<Table> {
        // SAFETY: pushes the registry entry, which `exec_raw` hands back as a table (an error
        // if it is none).
        unsafe {
            lua.exec_raw::<Table>((), |state| {
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, self.0 as ffi::lua_Integer);
            })
        }
    }

    /// Lets the registry drop the table.
    fn release(self, lua: &Lua) {
        // SAFETY: frees the reference; `luaL_unref` neither allocates nor raises.
        let _ = unsafe {
            lua.exec_raw::<()>((), |state| {
                ffi::luaL_unref(state, ffi::LUA_REGISTRYINDEX, self.0);
            })
        };
    }
}

/// Agents' slots by agent id, and each agent index's slot as found for the current world
/// roster (forgotten when the roster changes or a slot goes).
#[derive(Default)]
pub struct Slots {
    pub all: Vec<Option<Slot>>,
    pub free: Vec<usize>,
    /// Every agent id the host has run: its memory owner number, kept for the host's life, and
    /// its slot while it has one. One map (and one string per id, shared with the slot) for
    /// both, not two.
    by_id: FastMap<Rc<str>, Known>,
    pub at: Vec<usize>,
    pub roster: Roster,
}

/// What [`Slots`] keeps of an agent id.
#[derive(Clone, Copy)]
struct Known {
    /// Its memory owner number (see [`Slot::owner`]).
    owner: u32,
    /// Its slot, or [`NO_SLOT`].
    slot: u32,
}

const NO_SLOT: u32 = u32::MAX;

impl Slots {
    pub fn get(&self, id: &str) -> Option<&Slot> {
        self.all.get(self.slot_of(id)?)?.as_ref()
    }

    /// The slot number of agent `id`, if it has a slot.
    pub fn slot_of(&self, id: &str) -> Option<usize> {
        let known = self.by_id.get(id)?;
        (known.slot != NO_SLOT).then_some(known.slot as usize)
    }

    /// Agent `id`'s id as the slots and the map share it, and its memory owner number (a new
    /// one, the next, for an id not seen before).
    fn owner_of(&mut self, id: &str) -> (Rc<str>, u32) {
        if let Some((id, known)) = self.by_id.get_key_value(id) {
            return (Rc::clone(id), known.owner);
        }
        let (id, owner) = (Rc::<str>::from(id), self.by_id.len() as u32 + 1);
        let slot = NO_SLOT;
        self.by_id.insert(Rc::clone(&id), Known { owner, slot });
        (id, owner)
    }

    /// Starts a round for a world with this agent roster.
    pub fn begin_round(&mut self, roster: Roster) {
        if !roster.is_known() || roster != self.roster {
            self.at.clear();
            self.roster = roster;
        }
    }

    /// Room for `agents` slots in all ([`room_for`]).
    pub fn reserve(&mut self, agents: usize) {
        room_for(&mut self.all, agents);
        room_for(&mut self.at, agents);
    }

    /// The slot number of the agent at `index` (with id `id`).
    pub fn find(&mut self, index: usize, id: &str) -> Option<usize> {
        if let Some(&k) = self.at.get(index) {
            if k != usize::MAX {
                return Some(k);
            }
        }
        let k = self.slot_of(id)?;
        self.found_at(index, k);
        Some(k)
    }

    /// Notes that the agent at `index` has slot `k`, for [`Slots::find`] under the current
    /// roster.
    fn found_at(&mut self, index: usize, k: usize) {
        if self.at.len() <= index {
            self.at.resize(index + 1, usize::MAX);
        }
        self.at[index] = k;
    }

    /// Puts `slot` in place of any slot of its agent (whose number it then takes), finding
    /// the agent's id once; its number and the slot it replaced. The slot takes the id's
    /// memory owner number and the string the map holds for it: for an id not seen before,
    /// the next number (as [`Slots::owner_of`] gives) and the slot's own string, so a caller
    /// that has the id as an `Rc<str>` need not look it up first.
    pub fn insert(&mut self, mut slot: Slot) -> (usize, Option<Slot>) {
        let next = self.by_id.len() as u32 + 1;
        let known = match self.by_id.entry(Rc::clone(&slot.id)) {
            Entry::Occupied(known) => {
                slot.id = Rc::clone(known.key());
                known.into_mut()
            }
            Entry::Vacant(new) => new.insert(Known {
                owner: next,
                slot: NO_SLOT,
            }),
        };
        slot.owner = known.owner;
        // As `remove` would: the old slot's number is freed, then taken again below.
        let mut old = None;
        if known.slot != NO_SLOT {
            let k = std::mem::replace(&mut known.slot, NO_SLOT) as usize;
            self.at.clear();
            self.free.push(k);
            old = self.all.get_mut(k).and_then(Option::take);
        }
        let k = match self.free.pop() {
            Some(k) => k,
            None => {
                self.all.push(None);
                self.all.len() - 1
            }
        };
        known.slot = k as u32;
        self.all[k] = Some(slot);
        (k, old)
    }

    pub fn remove(&mut self, id: &str) -> Option<Slot> {
        let known = self.by_id.get_mut(id)?;
        if known.slot == NO_SLOT {
            return None;
        }
        let k = std::mem::replace(&mut known.slot, NO_SLOT) as usize;
        self.at.clear();
        self.free.push(k);
        self.all.get_mut(k)?.take()
    }

    /// Room for `more` agent ids not seen before, so a spawned crowd's ids go into the map
    /// without it growing (and rehashing) on the way.
    fn reserve_ids(&mut self, more: usize) {
        self.by_id.reserve(more);
    }

    /// The ids of the agents with a slot.
    pub fn ids(&self) -> Vec<Rc<str>> {
        let with_slot = self.by_id.iter().filter(|(_, known)| known.slot != NO_SLOT);
        with_slot.map(|(id, _)| Rc::clone(id)).collect()
    }
}

/// Room in `list` for `total` entries in all: exactly that on its first growth (a crowd's
/// first round, so 20,000 agents do not get room for 32,768), by doubling after it (a scene
/// spawning an agent a tick would otherwise copy the whole list every tick).
pub(crate) fn room_for<T>(list: &mut Vec<T>, total: usize) {
    let more = total.saturating_sub(list.len());
    if list.capacity() == 0 {
        list.reserve_exact(more);
    } else {
        list.reserve(more);
    }
}

/// The Lua state of every agent the host runs.
pub struct Agents {
    /// Per agent; looked up for every decision, never iterated in an order that shows.
    pub slots: Slots,
    /// Agents stopped because all scripts together hit the memory cap while they held the
    /// most (by slot, with the bytes they held), told at their next turn.
    pub victims: RefCell<BTreeMap<usize, usize>>,
    /// Agents whose `init` failed in the call just made (it runs again next tick).
    init_failures: RefCell<BTreeSet<String>>,
    /// Bumped whenever a slot changes (so a plan of turns made before is out of date).
    pub changes: u64,
    /// The streams `math.random` draws from.
    pub rngs: Rc<Rngs>,
    /// The scene's seed, which each agent's stream is drawn from.
    seed: u64,
    /// The world roster [`Agents::make_slots`] last looked at (a steady crowd is not looked
    /// at again).
    made_for: Roster,
}

/// What [`Agents::make_slots`] knows of a script: its module's generation and registry
/// reference and whether `init` is due before a new agent's first decision, and where its
/// `self` tables' size hint is kept and how much room it gives.
struct ScriptInfo<'w> {
    script: &'w Path,
    /// The path its slots share.
    shared: Rc<Path>,
    module: Option<(u64, c_int, bool)>,
    hint: (usize, usize),
}

/// One agent [`Agents::make_slots`] makes a slot for.
struct NewSelf<'w> {
    index: usize,
    agent: &'w Agent,
    script: usize,
    /// Its `params` in the table of templates.
    params: ffi::lua_Integer,
    /// Its `self`'s registry reference and address, once made.
    made: Option<(c_int, usize)>,
}

/// The id the `self`-by-id table takes when [`selves_with_room`] makes it larger: its own,
/// not the next of the running owner's counter (just below the shared tiles' ids, far past
/// any count the host reaches). The table is the host's and no script reaches it.
const SELVES_ID: u32 = (1 << 30) - 1;

/// The `self`-by-id table (`agentbox.selves`) with hash slots for `wanted` entries. It holds
/// about one entry a slot and would grow to take a spawned batch by rehashing, once per
/// doubling; when it has too few slots, a larger one is made under its own id
/// ([`SELVES_ID`]: every object made after it keeps the id it would have had), the entries
/// copied into it once, and the registry pointed at it.
fn selves_with_room(lua: &Lua, wanted: usize) -> mlua::Result<Table> {
    let selves = registry_table(lua, SELVES)?;
    // SAFETY: `exec_raw` pushes the table (1), which is replaced by its hash size (what the
    // call returns); reading the size neither allocates nor raises.
    let slots: ffi::lua_Integer = unsafe {
        lua.exec_raw(&selves, |state| {
            let slots = crate::ffi::lua_hashsize(state, 1);
            ffi::lua_settop(state, 0);
            ffi::lua_pushinteger(state, slots.into());
        })?
    };
    if usize::try_from(slots).is_ok_and(|slots| slots >= wanted) {
        return Ok(selves);
    }
    let size = wanted
        .max(2 * slots.max(0) as usize)
        .min(c_int::MAX as usize);
    let make = || lua.create_table_with_capacity(0, size);
    let larger = match lua.app_data_ref::<Rc<Budget>>() {
        Some(budget) => budget.with_next_id(SELVES_ID, make)?,
        None => make()?,
    };
    // `exec_raw` pushes the old table (1) and the new (2); `lua_next` walks the old one with
    // its key and value at 3 and 4, each copied with a key copy at 5. The new table has room
    // for every key: `lua_rawset` does not allocate (an allocation failure would raise
    // through `exec_raw`'s protected call, the registry still holding the old table).
    // SAFETY: as said above; the stack holds at most five values (`LUA_MINSTACK` is 20).
    unsafe {
        lua.exec_raw::<()>((&selves, &larger), |state| {
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                ffi::lua_pushvalue(state, 3);
                ffi::lua_rotate(state, -2, 1);
                ffi::lua_rawset(state, 2);
            }
            ffi::lua_settop(state, 0);
        })?;
    }
    lua.set_named_registry_value(SELVES, &larger)?;
    Ok(larger)
}

impl Agents {
    pub fn new(seed: u64, rngs: Rc<Rngs>) -> Self {
        Agents {
            slots: Slots::default(),
            victims: Default::default(),
            init_failures: Default::default(),
            changes: 0,
            rngs,
            seed,
            made_for: Roster::UNKNOWN,
        }
    }

    /// Room for `agents` slots and their random streams (see [`Slots::reserve`]).
    pub fn reserve(&mut self, agents: usize) {
        self.slots.reserve(agents);
        self.rngs.reserve(agents);
    }

    /// A new slot for `agent` running `script`: its `self` with its `params`, made with the
    /// room the last `self` of the script has grown to.
    pub fn new_slot(
        &mut self,
        lua: &Lua,
        views: &Views,
        agent: &Agent,
        script: &Path,
    ) -> mlua::Result<Slot> {
        let (id, owner) = self.slots.owner_of(&agent.id);
        // Room for the fields every `self` holds (params, id, kind, pos) without regrowing, or
        // for as many as the last `self` of this script holds by now (`Views::sized_table`);
        // `memory` is made on first use (see `views`), so a crowd that never reads it keeps
        // its tables small.
        let (this, slots) = views.sized_table(lua, script, views::TableUse::Self_, 4, &agent.id)?;
        this.raw_set("params", json_to_lua(lua, &agent.params)?)?;
        let this_ptr = this.to_pointer();
        registry_table(lua, SELVES)?.raw_set(agent.id.as_str(), &this)?;
        let key = SelfRef::new(lua, &this)?;
        Ok(Slot {
            id,
            owner,
            this_ref: key.id(),
            this_ptr,
            lines: decide_loop::self_lines(slots),
            this: key,
            script: Rc::from(script),
            seen_generation: None,
            linked: None,
            checked: None,
        })
    }

    /// Makes, in one raw call, the slot of every scripted agent of `world` that has none (a
    /// crowd spawned in one tick, a scene's first round) and links its `self` to its view,
    /// as [`Agents::new_slot`] and `Views::link_self` would one by one (its `self` with room
    /// as the script's last one has grown to, a copy of its `params`, its `id` and `kind`). An
    /// agent whose script has no `init` is then ready for the raw loop, as
    /// `ScriptHost::prepare_one` would leave it (nothing of the script runs before its first
    /// `decide`); one whose `init` is due still goes through `prepare_one`, which finds its
    /// slot made. Runs no script. Views must have been made (`Views::prepare`).
    pub fn make_slots(
        &mut self,
        lua: &Lua,
        views: &Views,
        modules: &Modules,
        world: &World,
    ) -> mlua::Result<()> {
        let roster = world.roster();
        if roster.is_known() && roster == self.made_for {
            return Ok(());
        }
        // Sized for the agents more than there are slots: grown by doubling, a 10,000-agent
        // batch copied the list a dozen times.
        let live = self.slots.all.len() - self.slots.free.len();
        let missing = world.agents.len().saturating_sub(live);
        let mut new = Vec::with_capacity(missing);
        for (index, agent) in world.agents.iter().enumerate() {
            if matches!(agent.brain, Brain::Script(_))
                && !agent.suspended
                && views.view_ptr(index).is_some()
                && self.slots.find(index, &agent.id).is_none()
            {
                new.push(index);
            }
        }
        if !new.is_empty() {
            // The collector is stopped from the first Lua value made here (the views'
            // batch has just left a collection due) to the last: a collection between
            // the batches would find nothing of either to free.
            crate::collector_paused(lua, || self.make_slots_of(lua, views, modules, world, &new))?;
        }
        self.made_for = roster;
        Ok(())
    }

    /// [`Agents::make_slots`] for the agents at `new` (scripted, not suspended, with a view
    /// and without a slot).
    fn make_slots_of(
        &mut self,
        lua: &Lua,
        views: &Views,
        modules: &Modules,
        world: &World,
        new: &[usize],
    ) -> mlua::Result<()> {
        let roster = world.roster();
        let mut scripts: Vec<ScriptInfo> = Vec::new();
        // One allocation for the batch: grown by doubling, a 10,000-agent batch's list (56
        // bytes an agent) was copied a dozen times and last taken fresh from the system (0.9
        // MB, every page of it faulted in) only to be freed at the end of the call.
        let mut wanted: Vec<NewSelf> = Vec::with_capacity(new.len());
        let mut params: Vec<(*const serde_json::Value, &serde_json::Value)> = Vec::new();
        // Per template: whether it holds a table (an object or array within), which its
        // copies copy too.
        let mut nested: Vec<bool> = Vec::new();
        for &index in new {
            let agent = &world.agents[index];
            let Brain::Script(script) = &agent.brain else {
                continue;
            };
            // Agents of one template share its path: the same address is the same script.
            let same = |s: &ScriptInfo| std::ptr::eq(s.script, &**script) || s.script == &**script;
            let at = match scripts.iter().position(same) {
                Some(at) => at,
                None => {
                    let module = match modules.get(script) {
                        Some(m) => {
                            let table: Table = lua.registry_value(&m.table)?;
                            let init = matches!(table.raw_get("init")?, Value::Function(_));
                            Some((m.generation, m.table.id(), init))
                        }
                        None => None,
                    };
                    let hint = views.room(lua, script, views::TableUse::Self_, 4)?;
                    scripts.push(ScriptInfo {
                        script,
                        shared: Rc::from(&**script),
                        module,
                        hint,
                    });
                    scripts.len() - 1
                }
            };
            if scripts[at].module.is_none() {
                // Not loaded: `prepare_one` tells the agent why.
                continue;
            }
            let ptr = std::sync::Arc::as_ptr(&agent.params);
            let n = match params.iter().position(|(p, _)| *p == ptr) {
                Some(n) => n,
                None => {
                    params.push((ptr, &agent.params));
                    nested.push(holds_a_table(&agent.params));
                    params.len() - 1
                }
            };
            wanted.push(NewSelf {
                index,
                agent,
                script: at,
                params: n as ffi::lua_Integer + 1,
                made: None,
            });
        }
        if wanted.is_empty() {
            return Ok(());
        }
        // The maps keyed by id and by `self` grow once for the whole batch.
        self.slots.reserve_ids(wanted.len());
        views.reserve_selves(wanted.len());
        let templates = lua.create_table_with_capacity(params.len(), 0)?;
        for (n, (_, value)) in params.iter().enumerate() {
            templates.raw_set(n + 1, json_to_lua(lua, value)?)?;
        }
        let selves_wanted = (self.slots.all.len() - self.slots.free.len()) + wanted.len();
        let n = &views.names;
        let args = (
            views.meta(),
            selves_with_room(lua, selves_wanted)?,
            templates,
            "params",
            &n[views::ID],
            &n[views::KIND],
        );
        // Per script, the registry reference and kind of its first `self` made below.
        let mut first: Vec<Option<(c_int, &str)>> = vec![None; scripts.len()];
        // `exec_raw` pushes the six values above (stack 1..6); each agent's `self` is made
        // at 7, with its id string at 8, and the stack is back at 6 after each. The first
        // `self` of each script is made field by field; the next ones of that script are
        // copies of it (`lua_clonetable`: the same slots, no key hashed), their `params`,
        // `id` and (if another) `kind` then set: keys a copy holds, so each set only
        // replaces a value. Its metatable locks it (`Views::lock_name`). An allocation
        // failure raises through `exec_raw`'s protected call: what was made by then is in
        // `wanted` (references and numbers only live across the calls).
        // SAFETY: as said above.
        let result = crate::collector_paused(lua, || unsafe {
            lua.exec_raw::<()>(args, |state| {
                for new in wanted.iter_mut() {
                    let kind = new.agent.kind.as_str();
                    let same_kind = match first[new.script] {
                        Some((this, first_kind)) => {
                            ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, this.into());
                            crate::ffi::lua_clonetable(state, 7);
                            ffi::lua_copy(state, 8, 7);
                            ffi::lua_settop(state, 7);
                            first_kind == kind
                        }
                        None => {
                            let (_, room) = scripts[new.script].hint;
                            ffi::lua_createtable(state, 0, room as c_int);
                            false
                        }
                    };
                    ffi::lua_pushvalue(state, 4);
                    ffi::lua_rawgeti(state, 3, new.params);
                    if ffi::lua_type(state, -1) == ffi::LUA_TTABLE {
                        push_copy(state, -1, nested[new.params as usize - 1]);
                        ffi::lua_rotate(state, -2, 1);
                        ffi::lua_settop(state, -2);
                    }
                    ffi::lua_rawset(state, 7);
                    ffi::lua_pushvalue(state, 1);
                    ffi::lua_setmetatable(state, 7);
                    crate::ffi::lua_setreadonly(state, 7);
                    let id = new.agent.id.as_bytes();
                    ffi::lua_pushlstring(state, id.as_ptr().cast(), id.len());
                    ffi::lua_pushvalue(state, 5);
                    ffi::lua_pushvalue(state, 8);
                    ffi::lua_rawset(state, 7);
                    if !same_kind {
                        ffi::lua_pushvalue(state, 6);
                        ffi::lua_pushlstring(state, kind.as_ptr().cast(), kind.len());
                        ffi::lua_rawset(state, 7);
                    }
                    ffi::lua_pushvalue(state, 8);
                    ffi::lua_pushvalue(state, 7);
                    ffi::lua_rawset(state, 2);
                    ffi::lua_settop(state, 7);
                    let ptr = ffi::lua_topointer(state, 7) as usize;
                    let this = SelfRef::pop(state);
                    new.made = Some((this.0, ptr));
                    if first[new.script].is_none() {
                        first[new.script] = Some((this.0, kind));
                    }
                }
                ffi::lua_settop(state, 0);
            })
        });
        // The next `self` of each script is sized by the last one made here, read through
        // the host's `agentbox.selves` (see `Views::room`): only that one is noted.
        let mut noted = vec![false; scripts.len()];
        for new in wanted.iter().rev().filter(|w| w.made.is_some()) {
            if !std::mem::replace(&mut noted[new.script], true) {
                views.made_for(scripts[new.script].hint.0, &new.agent.id);
            }
        }
        let generations = modules.generation();
        self.changes += 1;
        for new in &wanted {
            let Some((this, ptr)) = new.made else {
                break;
            };
            let info = &scripts[new.script];
            let Some((generation, module, init)) = info.module else {
                continue;
            };
            // The id string its view was made with, shared (else a new one); `insert` finds
            // it in the map (or adds it) and gives the slot its owner number.
            let id = match views.id_at(new.index) {
                Some(id) if *id == *new.agent.id => id,
                _ => Rc::from(new.agent.id.as_str()),
            };
            let ready = !init;
            let slot = Slot {
                id,
                owner: 0,
                this: SelfRef(this),
                this_ref: this,
                this_ptr: ptr as *const c_void,
                lines: decide_loop::self_lines(views::slots_of(info.hint.1)),
                script: Rc::clone(&info.shared),
                seen_generation: ready.then_some(generation),
                linked: views.view_ptr(new.index).map(|p| (new.index, p)),
                checked: ready.then_some((generations, module, roster)),
            };
            let k = self.insert(lua, views, slot);
            // Its first decision finds the slot without looking its id up.
            self.slots.found_at(new.index, k);
            views.linked_new_self(ptr, new.index);
        }
        result
    }

    /// Puts `slot` in place of any slot of its agent, with a fresh random stream; its number.
    pub fn insert(&mut self, lua: &Lua, views: &Views, slot: Slot) -> usize {
        let stream = rng::stream_key(self.seed, &slot.id, "lua");
        let (k, old) = self.slots.insert(slot);
        self.rngs.start(k, stream);
        if let Some(old) = old {
            views.unlink_self(old.this_ptr);
            old.this.release(lua);
        }
        k
    }

    /// Forgets one agent's `self`: it starts over with `init`.
    pub fn forget(&mut self, lua: &Lua, views: &Views, id: &str) {
        self.changes += 1;
        if let Some(k) = self.slots.slot_of(id) {
            self.victims.borrow_mut().remove(&k);
        }
        if let Ok(selves) = registry_table(lua, SELVES) {
            let _ = selves.raw_set(id, Value::Nil);
        }
        if let Some(slot) = self.slots.remove(id) {
            views.unlink_self(slot.this_ptr);
            slot.this.release(lua);
        }
    }

    /// Keeps an agent's `self` (and so its `memory`) across an edit of its scene entry: a new
    /// `params` table from the entry, and a new script, whose `init` then runs with the memory
    /// kept. False if the agent has no `self` yet (it is made at its first decision).
    pub fn adopt_entry(
        &mut self,
        lua: &Lua,
        agent: &Agent,
        params: bool,
        script: Option<&Path>,
    ) -> mlua::Result<bool> {
        let Some(k) = self.slots.slot_of(&agent.id) else {
            return Ok(false);
        };
        let Some(slot) = self.slots.all.get_mut(k).and_then(Option::as_mut) else {
            return Ok(false);
        };
        if params {
            let this = slot.this.table(lua)?;
            this.raw_set("params", json_to_lua(lua, &agent.params)?)?;
        }
        if let Some(script) = script {
            slot.script = Rc::from(script);
            slot.seen_generation = None;
            slot.checked = None;
            self.slots.at.clear();
            self.changes += 1;
        }
        Ok(true)
    }

    /// Forgets the agents that are no longer in `world`.
    pub fn retain(&mut self, lua: &Lua, views: &Views, world: &World) {
        // A slot whose agent is still at the index it was linked to stays, found without
        // hashing (a spawn leaves every agent where it was); the others are looked for in a
        // hashed set of the world's ids, made only if one is not found so. Only the gone ids
        // are copied: a scene save checks every agent here.
        let at_its_index = |slot: &Slot| {
            let index = slot.linked.map(|(index, _)| index);
            index
                .and_then(|i| world.agents.get(i))
                .is_some_and(|a| *a.id == *slot.id)
        };
        let mut ids: Option<std::collections::HashSet<&str, std::hash::BuildHasherDefault<Fnv1a>>> =
            None;
        let mut gone: Vec<Rc<str>> = Vec::new();
        for (id, known) in &self.slots.by_id {
            if known.slot == NO_SLOT {
                continue;
            }
            let slot = self
                .slots
                .all
                .get(known.slot as usize)
                .and_then(Option::as_ref);
            if slot.is_some_and(at_its_index) {
                continue;
            }
            let ids =
                ids.get_or_insert_with(|| world.agents.iter().map(|a| a.id.as_str()).collect());
            if !ids.contains(&**id) {
                gone.push(Rc::clone(id));
            }
        }
        for id in gone {
            self.forget(lua, views, &id);
        }
    }

    /// Forgets every agent (a reset to the scene's start).
    pub fn reset(&mut self, lua: &Lua, views: &Views) {
        self.changes += 1;
        for id in self.slots.ids() {
            self.forget(lua, views, &id);
        }
        // The ids keep their owner numbers (see `Slot::owner`).
        let by_id = std::mem::take(&mut self.slots.by_id);
        self.slots = Slots {
            by_id,
            ..Slots::default()
        };
        self.victims.borrow_mut().clear();
        self.rngs.reset();
    }

    /// An agent's `self` table.
    pub fn this(&self, lua: &Lua, agent_id: &str) -> Option<Table> {
        let slot = self.slots.get(agent_id)?;
        slot.this.table(lua).ok()
    }

    /// An agent's `self.memory`, pretty-printed for the inspector; `None` before its first
    /// decision or for agents without a script.
    pub fn memory_text(&self, lua: &Lua, agent_id: &str) -> Option<String> {
        let this = self.this(lua, agent_id)?;
        match this.raw_get("memory").ok()? {
            // Not read yet, so not made yet: empty.
            Value::Nil => Some("{}".into()),
            memory => Some(inspect::pretty(&memory)),
        }
    }

    /// Every agent's memory key, in `world.agents`' order (see `memory_key.rs`).
    pub fn memory_keys(&self, lua: &Lua, world: &World, keys: &mut crate::MemoryKeys) {
        let ids = world.agents.iter().map(|a| a.id.as_str());
        crate::memory_key::write_keys(lua, ids, |id| Some(self.slots.get(id)?.this.id()), keys);
    }

    /// One agent's `self.memory` as JSON (as [`Agents::memories_json`] writes it); `None`
    /// for an agent this host does not run.
    pub fn memory_json(&self, lua: &Lua, agent_id: &str) -> Option<serde_json::Value> {
        let this = self.this(lua, agent_id)?;
        Some(match this.raw_get("memory") {
            Ok(Value::Nil) | Err(_) => serde_json::Value::Object(Default::default()),
            Ok(memory) => memory::to_json(&memory),
        })
    }

    /// Every agent's `self.memory` as JSON, by agent id (see `ScriptHost::memories_json`).
    pub fn memories_json(&self, lua: &Lua) -> BTreeMap<String, serde_json::Value> {
        let mut out = BTreeMap::new();
        for slot in self.slots.all.iter().flatten() {
            let Ok(this) = slot.this.table(lua) else {
                continue;
            };
            let memory = match this.raw_get("memory") {
                Ok(Value::Nil) | Err(_) => serde_json::Value::Object(Default::default()),
                Ok(memory) => memory::to_json(&memory),
            };
            out.insert(slot.id.to_string(), memory);
        }
        out
    }

    /// Bytes of Lua memory an agent's calls allocated and still hold; `None` for an agent the
    /// host has not run.
    pub fn memory_held(&self, budget: &Budget, agent_id: &str) -> Option<usize> {
        let slot = self.slots.get(agent_id)?;
        Some(budget.held(slot.owner))
    }

    /// Notes that `id`'s `init` failed in the call just made.
    pub fn init_failed(&self, id: &str) {
        self.init_failures.borrow_mut().insert(id.to_string());
    }

    /// Whether `id`'s `init` failed in the call just made (and forgets it).
    pub fn take_init_failure(&self, id: &str) -> bool {
        self.init_failures.borrow_mut().remove(id)
    }

    /// Stops the agent the VM named when a call found the shared memory cap full (it held
    /// the most): releases its memory now, so the others go on within the cap, and tells it
    /// at its next turn.
    pub fn stop_victim(&self, lua: &Lua, budget: &Budget) {
        let Some(owner) = budget.take_victim() else {
            return;
        };
        let held = budget.held(owner);
        let found = self
            .slots
            .all
            .iter()
            .enumerate()
            .find_map(|(k, s)| s.as_ref().filter(|s| s.owner == owner).map(|s| (k, s)));
        if let Some((k, slot)) = found {
            if let Ok(this) = slot.this.table(lua) {
                clear_memory(lua, &this);
            }
            self.victims.borrow_mut().insert(k, held);
        }
    }

    /// The failure of the agent at `index`, if it was stopped for the shared cap (see
    /// [`Agents::stop_victim`]).
    pub fn victim_failure(
        &mut self,
        budget: &Budget,
        index: usize,
        agent: &Agent,
        script: &Path,
    ) -> Option<Decision> {
        if self.victims.borrow().is_empty() {
            return None;
        }
        let k = self.slots.find(index, &agent.id)?;
        let held = self.victims.borrow_mut().remove(&k)?;
        let cap = budget.memory_limit();
        let message = format!(
            "{}: stopped: all scripts together reached the {} MB memory cap and this agent held the most ({} MB); its memory was cleared and {}",
            display(script),
            cap / MB,
            held / MB,
            SUSPENDED
        );
        Some(Decision::Failed(ScriptError::new(
            ErrorKind::Memory,
            message,
        )))
    }

    /// Drops the memory of the agent in slot `k` and collects (it hit the memory limit).
    pub fn clear_memory_of(&self, lua: &Lua, k: usize) {
        if let Some(Some(slot)) = self.slots.all.get(k) {
            if let Ok(this) = slot.this.table(lua) {
                clear_memory(lua, &this);
            }
        }
    }
}

/// Whether a `params` value holds a table within (an object or array in an object or array).
fn holds_a_table(value: &serde_json::Value) -> bool {
    let table = |v: &serde_json::Value| v.is_object() || v.is_array();
    match value {
        serde_json::Value::Object(map) => map.values().any(table),
        serde_json::Value::Array(items) => items.iter().any(table),
        _ => false,
    }
}

/// Pushes a copy of the table at `from` whose tables are copies too (a `params` table made by
/// `json_to_lua`: plain values, no cycles, no metatables), each entry in the slot it has in
/// the original (`lua_clonetable`), so the copy's `pairs` order is the original's. The copies
/// are made in the order the tables are met: the table, then each table within as `next`
/// finds it, depth first. `nested`: whether it holds a table (else it is not walked).
///
/// # Safety
/// A live state with a table at `from`; it may raise a memory error or, past the stack's
/// limit, a stack error.
unsafe fn push_copy(state: *mut ffi::lua_State, from: c_int, nested: bool) {
    // SAFETY: the caller's contract; the calls below stay in the stack room `luaL_checkstack`
    // made, and setting a key the copy holds (allowed in `lua_next`'s walk) allocates nothing.
    unsafe {
        let from = ffi::lua_absindex(state, from);
        ffi::luaL_checkstack(state, 4, c"params nested too deeply".as_ptr());
        crate::ffi::lua_clonetable(state, from);
        if !nested {
            return;
        }
        let to = ffi::lua_gettop(state);
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, to) != 0 {
            if ffi::lua_type(state, -1) == ffi::LUA_TTABLE {
                push_copy(state, -1, true);
                ffi::lua_pushvalue(state, -3);
                ffi::lua_rotate(state, -2, 1);
                ffi::lua_rawset(state, to);
            }
            ffi::lua_settop(state, -2);
        }
    }
}

/// Drops an agent's `self.memory` and collects, after it hit the memory limit.
///
/// Never aborts, at any moment: the fresh table is made in a protected call, and if even
/// that is refused (a full cap of memory no stop can free, such as module-level tables the
/// agents share), the old table is emptied in place instead, which allocates nothing.
pub fn clear_memory(lua: &Lua, this: &Table) {
    // `exec_raw` runs the closure in a protected call with `this` at 1 and room for 3 more
    // values; each call below uses at most 3 slots and only `this`'s `memory` field.
    // SAFETY: as above (an existing key: setting it allocates nothing).
    let fresh = unsafe {
        lua.exec_raw::<()>(this, |state| {
            ffi::lua_createtable(state, 0, 0);
            ffi::lua_setfield(state, 1, c"memory".as_ptr());
        })
    };
    if fresh.is_err() {
        // SAFETY: as above; clearing fields of a table while `lua_next` walks it is allowed,
        // and setting a field to nil never allocates.
        let _ = unsafe {
            lua.exec_raw::<()>(this, |state| {
                if ffi::lua_getfield(state, 1, c"memory".as_ptr()) != ffi::LUA_TTABLE {
                    return;
                }
                ffi::lua_pushnil(state);
                while ffi::lua_next(state, 2) != 0 {
                    ffi::lua_settop(state, -2);
                    ffi::lua_pushvalue(state, -1);
                    ffi::lua_pushnil(state);
                    ffi::lua_rawset(state, 2);
                }
            })
        };
    }
    let _ = lua.gc_collect();
    let _ = lua.gc_collect();
}

#[cfg(test)]
mod tests {
    use super::room_for;

    #[test]
    fn lists_grow_to_a_crowd_exactly_then_by_doubling() {
        let mut list: Vec<u64> = Vec::new();
        room_for(&mut list, 20_000);
        assert!(
            (20_000..32_768).contains(&list.capacity()),
            "{}",
            list.capacity()
        );
        list.resize(20_000, 0);
        // One agent spawned a tick for 5,000 ticks: a few regrowths, not one a tick.
        let mut regrowths = 0;
        for tick in 1..=5_000 {
            let before = list.capacity();
            room_for(&mut list, 20_000 + tick);
            list.push(0);
            regrowths += usize::from(list.capacity() != before);
        }
        assert!(regrowths <= 2, "the list regrew {regrowths} times");
    }
}
