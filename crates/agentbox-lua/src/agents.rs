//! Every agent's Lua state: its slot (its `self` table, in the registry, with the script it
//! runs and what the raw loop needs of it), its memory owner number, its random stream, and the
//! agents stopped because all scripts together hit the memory cap while they held the most.
//! Also what the host shows of an agent's memory (the inspector, `--trace-memory`).
//!
//! It holds Lua tables but runs no script; it never changes the world.

use crate::budget::Budget;
use crate::calls::{display, MB, SUSPENDED};
use crate::convert::json_to_lua;
use crate::sandbox::Rngs;
use crate::views::{self, Views};
use crate::{decide_loop, inspect, memory, registry_table, SELVES};
use agentbox_core::sim::Decision;
use agentbox_core::world::spatial::{FastMap, Fnv1a};
use agentbox_core::world::{rng, Agent, ErrorKind, Roster, ScriptError, World};
use mlua::{Lua, RegistryKey, Table, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Per-agent Lua state.
pub struct Slot {
    /// The agent's id.
    pub id: String,
    /// The number its Lua memory is counted under (see `budget.rs`); the same for an id for
    /// the host's life, so blocks an agent left behind never count against another.
    pub owner: u32,
    pub this: RegistryKey,
    /// `this` as a registry reference and an address, for the raw decision loop.
    pub this_ref: std::ffi::c_int,
    pub this_ptr: *const c_void,
    /// How many cache lines from `this_ptr` hold its header, its fields and its `params`
    /// (`decide_loop::prefetch_self`).
    pub lines: u8,
    pub script: PathBuf,
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

/// Agents' slots by agent id, and each agent index's slot as found for the current world
/// roster (forgotten when the roster changes or a slot goes).
#[derive(Default)]
pub struct Slots {
    pub all: Vec<Option<Slot>>,
    pub free: Vec<usize>,
    pub by_id: FastMap<String, usize>,
    pub at: Vec<usize>,
    pub roster: Roster,
}

impl Slots {
    pub fn get(&self, id: &str) -> Option<&Slot> {
        self.all.get(*self.by_id.get(id)?)?.as_ref()
    }

    /// Starts a round for a world with this agent roster.
    pub fn begin_round(&mut self, roster: Roster) {
        if !roster.is_known() || roster != self.roster {
            self.at.clear();
            self.roster = roster;
        }
    }

    /// Room for `agents` slots in all: a crowd's first round then grows the list once to its
    /// size instead of by doubling (which left a 20,000-agent crowd room for 32,768).
    pub fn reserve(&mut self, agents: usize) {
        self.all
            .reserve_exact(agents.saturating_sub(self.all.len()));
    }

    /// The slot number of the agent at `index` (with id `id`).
    pub fn find(&mut self, index: usize, id: &str) -> Option<usize> {
        if let Some(&k) = self.at.get(index) {
            if k != usize::MAX {
                return Some(k);
            }
        }
        let k = *self.by_id.get(id)?;
        if self.at.len() <= index {
            self.at.resize(index + 1, usize::MAX);
        }
        self.at[index] = k;
        Some(k)
    }

    pub fn insert(&mut self, slot: Slot) -> (usize, Option<Slot>) {
        let old = self.remove(&slot.id.clone());
        let k = match self.free.pop() {
            Some(k) => k,
            None => {
                self.all.push(None);
                self.all.len() - 1
            }
        };
        self.by_id.insert(slot.id.clone(), k);
        self.all[k] = Some(slot);
        (k, old)
    }

    pub fn remove(&mut self, id: &str) -> Option<Slot> {
        let k = self.by_id.remove(id)?;
        self.at.clear();
        self.free.push(k);
        self.all.get_mut(k)?.take()
    }

    pub fn ids(&self) -> Vec<String> {
        self.by_id.keys().cloned().collect()
    }
}

/// The Lua state of every agent the host runs.
pub struct Agents {
    /// Per agent; looked up for every decision, never iterated in an order that shows.
    pub slots: Slots,
    /// Each agent id's memory owner number (see [`Slot::owner`]).
    owners: FastMap<String, u32>,
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
}

impl Agents {
    pub fn new(seed: u64, rngs: Rc<Rngs>) -> Self {
        Agents {
            slots: Slots::default(),
            owners: FastMap::default(),
            victims: Default::default(),
            init_failures: Default::default(),
            changes: 0,
            rngs,
            seed,
        }
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
        let next = self.owners.len() as u32 + 1;
        let owner = *self.owners.entry(agent.id.clone()).or_insert(next);
        // Room for the fields every `self` holds (params, id, kind, pos) without regrowing, or
        // for as many as the last `self` of this script holds by now (`Views::sized_table`);
        // `memory` is made on first use (see `views`), so a crowd that never reads it keeps
        // its tables small.
        let (this, slots) = views.sized_table(lua, script, views::TableUse::Self_, 4)?;
        this.raw_set("params", json_to_lua(lua, &agent.params)?)?;
        let this_ptr = this.to_pointer();
        registry_table(lua, SELVES)?.raw_set(agent.id.as_str(), &this)?;
        let key = lua.create_registry_value(this)?;
        Ok(Slot {
            id: agent.id.clone(),
            owner,
            this_ref: key.id(),
            this_ptr,
            lines: decide_loop::self_lines(slots),
            this: key,
            script: script.to_path_buf(),
            seen_generation: None,
            linked: None,
            checked: None,
        })
    }

    /// Puts `slot` in place of any slot of its agent, with a fresh random stream; its number.
    pub fn insert(&mut self, lua: &Lua, views: &Views, slot: Slot) -> usize {
        let stream = rng::stream_key(self.seed, &slot.id, "lua");
        let (k, old) = self.slots.insert(slot);
        self.rngs.start(k, stream);
        if let Some(old) = old {
            views.unlink_self(old.this_ptr);
            let _ = lua.remove_registry_value(old.this);
        }
        k
    }

    /// Forgets one agent's `self`: it starts over with `init`.
    pub fn forget(&mut self, lua: &Lua, views: &Views, id: &str) {
        self.changes += 1;
        if let Some(&k) = self.slots.by_id.get(id) {
            self.victims.borrow_mut().remove(&k);
        }
        if let Ok(selves) = registry_table(lua, SELVES) {
            let _ = selves.raw_set(id, Value::Nil);
        }
        if let Some(slot) = self.slots.remove(id) {
            views.unlink_self(slot.this_ptr);
            let _ = lua.remove_registry_value(slot.this);
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
        let Some(&k) = self.slots.by_id.get(agent.id.as_str()) else {
            return Ok(false);
        };
        let Some(slot) = self.slots.all.get_mut(k).and_then(Option::as_mut) else {
            return Ok(false);
        };
        if params {
            let this: Table = lua.registry_value(&slot.this)?;
            this.raw_set("params", json_to_lua(lua, &agent.params)?)?;
        }
        if let Some(script) = script {
            slot.script = script.to_path_buf();
            slot.seen_generation = None;
            slot.checked = None;
            self.slots.at.clear();
            self.changes += 1;
        }
        Ok(true)
    }

    /// Forgets the agents that are no longer in `world`.
    pub fn retain(&mut self, lua: &Lua, views: &Views, world: &World) {
        // A hashed set, and only the gone ids copied: a scene save checks every agent here.
        let ids: std::collections::HashSet<&str, std::hash::BuildHasherDefault<Fnv1a>> =
            world.agents.iter().map(|a| a.id.as_str()).collect();
        let gone: Vec<String> = (self.slots.by_id.keys())
            .filter(|id| !ids.contains(id.as_str()))
            .cloned()
            .collect();
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
        self.slots = Slots::default();
        self.victims.borrow_mut().clear();
        self.rngs.reset();
    }

    /// An agent's `self` table.
    pub fn this(&self, lua: &Lua, agent_id: &str) -> Option<Table> {
        let slot = self.slots.get(agent_id)?;
        lua.registry_value(&slot.this).ok()
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
            let Ok(this) = lua.registry_value::<Table>(&slot.this) else {
                continue;
            };
            let memory = match this.raw_get("memory") {
                Ok(Value::Nil) | Err(_) => serde_json::Value::Object(Default::default()),
                Ok(memory) => memory::to_json(&memory),
            };
            out.insert(slot.id.clone(), memory);
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
            if let Ok(this) = lua.registry_value::<Table>(&slot.this) {
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
            if let Ok(this) = lua.registry_value::<Table>(&slot.this) {
                clear_memory(lua, &this);
            }
        }
    }
}

/// Drops an agent's `self.memory` and collects, after it hit the memory limit.
pub fn clear_memory(lua: &Lua, this: &Table) {
    let _ = lua.create_table().and_then(|t| this.raw_set("memory", t));
    let _ = lua.gc_collect();
    let _ = lua.gc_collect();
}
