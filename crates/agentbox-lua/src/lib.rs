//! Scripting: the agents' decision layer in Lua 5.4. This is the only module that names mlua.
//!
//! One Lua state runs every script of a scene. Each script file is a module (a table with
//! `decide` and optionally `init` and `on_reload`) loaded in its own sandbox; each agent has a
//! persistent `self` table whose `memory` survives ticks and reloads. The host implements
//! [`Decider`], so the simulation asks it for actions without knowing about Lua. It reads
//! script files; it never changes the world, draws or watches files.

mod bindings;
mod budget;
mod convert;
mod decide_loop;
mod draw;
mod errors;
mod files;
mod inspect;
mod label;
mod lent;
mod memory;
mod metric;
mod output;
pub mod plot;
mod predicate;
mod raw;
pub mod registry;
mod sandbox;
pub mod sources;
mod tunable;
mod views;

use agentbox_core::sim::{Decider, Decision};
use agentbox_core::world::script_error::error_line;
use agentbox_core::world::spatial::{FastMap, Fnv1a};
use agentbox_core::world::{rng, Agent, Brain, ErrorKind, ScriptError, World};
use budget::{Budget, Stop};
use convert::json_to_lua;
use decide_loop::{Batch, Outcome, Ready};
use lent::LentWorld;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, LuaOptions, MultiValue, RegistryKey, StdLib, Table, Value};
use raw::RawContext;
use sandbox::{Requires, Rngs};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub use budget::{Mode as BudgetMode, DEFAULT_INSTRUCTIONS, DEFAULT_MEMORY};
pub use draw::{
    Color as DrawColor, Drawn, Frame as DrawFrame, Query as SightQuery, Shape as DrawShape,
};
pub use files::ScriptFiles;
pub use sandbox::read_script;

/// The registry table of every agent's `self` by id, for `world:memory(id)`.
pub(crate) const SELVES: &str = "agentbox.selves";

/// A loaded script module: its table, how many times it has been (re)loaded, and the load
/// whose `require`s it used.
struct Module {
    table: RegistryKey,
    generation: u64,
    load: u64,
}

/// Per-agent Lua state.
struct Slot {
    /// The agent's id.
    id: String,
    /// The number its Lua memory is counted under (see `budget.rs`); the same for an id for
    /// the host's life, so blocks an agent left behind never count against another.
    owner: u32,
    this: RegistryKey,
    /// `this` as a registry reference and an address, for the raw decision loop.
    this_ref: std::ffi::c_int,
    this_ptr: *const c_void,
    /// How many cache lines from `this_ptr` hold its header, its fields and its `params`
    /// (`decide_loop::prefetch_self`).
    lines: u8,
    script: PathBuf,
    /// The module generation `init`/`on_reload` last ran for; `None` before `init`.
    seen_generation: Option<u64>,
    /// The agent index and view table `self` shares its `pos`, `vel` and `tile` with.
    linked: Option<(usize, usize)>,
    /// When this slot was last readied through mlua (`prepare_one`): the host's load count, its module
    /// table's registry reference, and the world roster. While no script has loaded since,
    /// the module, its generation and `init` are known good, so the raw loop may run it; while
    /// the roster stays, so is the agent's script.
    checked: Option<(u64, std::ffi::c_int, u64)>,
}

/// Agents' slots by agent id, and each agent index's slot as found for the current world
/// roster (forgotten when the roster changes or a slot goes).
#[derive(Default)]
struct Slots {
    all: Vec<Option<Slot>>,
    free: Vec<usize>,
    by_id: FastMap<String, usize>,
    at: Vec<usize>,
    roster: u64,
}

impl Slots {
    fn get(&self, id: &str) -> Option<&Slot> {
        self.all.get(*self.by_id.get(id)?)?.as_ref()
    }

    /// Starts a round for a world with this agent roster.
    fn begin_round(&mut self, roster: u64) {
        if roster == 0 || roster != self.roster {
            self.at.clear();
            self.roster = roster;
        }
    }

    /// The slot number of the agent at `index` (with id `id`).
    fn find(&mut self, index: usize, id: &str) -> Option<usize> {
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

    fn insert(&mut self, slot: Slot) -> (usize, Option<Slot>) {
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

    fn remove(&mut self, id: &str) -> Option<Slot> {
        let k = self.by_id.remove(id)?;
        self.at.clear();
        self.free.push(k);
        self.all.get_mut(k)?.take()
    }

    fn ids(&self) -> Vec<String> {
        self.by_id.keys().cloned().collect()
    }
}

/// Runs the scene's Lua scripts.
pub struct ScriptHost {
    lua: Lua,
    seed: u64,
    budget: Rc<Budget>,
    raw: Rc<RawContext>,
    /// The world lent to Lua while a round, a predicate or a metric runs.
    lent: Rc<LentWorld>,
    /// The `world` argument of every call (see `bindings::world::world_table`).
    world_table: Table,
    /// The real `xpcall` and the message handler every budgeted call runs under.
    xpcall: Function,
    handler: Function,
    modules: BTreeMap<PathBuf, Module>,
    /// The current load error of each script that has one (kept until a good version loads).
    load_errors: BTreeMap<PathBuf, ScriptError>,
    /// The load id of each script's last failed attempt (its `require`s are watched too).
    failed_loads: BTreeMap<PathBuf, u64>,
    /// Per agent; looked up for every decision, never iterated in an order that shows.
    slots: Slots,
    /// The streams `math.random` draws from.
    rngs: Rc<Rngs>,
    generations: u64,
    loads: u64,
    /// The kind the message handler saw in the error it last handled (a bad argument), for
    /// the failure it becomes.
    handled: Rc<std::cell::Cell<Option<ErrorKind>>>,
    /// Whether the warning about an order that may differ between runs was given.
    warned_order: bool,
    /// Agents whose `init` failed in the call just made (it runs again next tick).
    init_failures: std::cell::RefCell<BTreeSet<String>>,
    /// Bumped whenever a slot changes (so [`Turns`] made before are out of date).
    slot_changes: u64,
    turns: Turns,
    /// Each agent id's memory owner number (see [`Slot::owner`]).
    owners: FastMap<String, u32>,
    /// Agents stopped because all scripts together hit the memory cap while they held the
    /// most (by slot, with the bytes they held), told at their next turn.
    victims: std::cell::RefCell<BTreeMap<usize, usize>>,
}

/// Reads a script file as the host does (regular files only, bounded in size).
pub fn read_script_file(path: &Path) -> std::io::Result<Vec<u8>> {
    sandbox::read_script(path)
}

/// The name Lua reports for a script (`scripts/x.lua`).
fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Whether a message already starts with a Lua place (`some/file.lua:12:`).
fn is_located(message: &str) -> bool {
    let Some((file, rest)) = message.split_once(".lua:") else {
        return false;
    };
    !file.contains(char::is_whitespace)
        && rest
            .split_once(':')
            .is_some_and(|(line, _)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
}

/// A message that names a place: as it is if it does, else prefixed with the script.
fn in_script(script: &str, message: &str) -> String {
    if message.starts_with(script) || is_located(message) {
        message.to_string()
    } else {
        format!("{script}: {message}")
    }
}

/// The message handler of budgeted calls: strings pass; any other error value becomes a
/// message naming the line that threw it (so `error({})` or `error()` still says where, and
/// so does an argument mlua could not convert, such as a number passed for an options table).
fn error_handler(
    lua: &Lua,
    value: Value,
    handled: &std::cell::Cell<Option<ErrorKind>>,
) -> mlua::Result<String> {
    let what = match &value {
        Value::String(s) => return Ok(s.to_string_lossy()),
        Value::Error(e) => {
            handled.set(Some(errors::kind_of(e)));
            let text = errors::describe(e);
            if is_located(&text) {
                return Ok(text);
            }
            errors::name_called(lua, text)
        }
        Value::Nil => "error thrown with nil instead of a message".to_string(),
        Value::Integer(_) | Value::Number(_) => format!(
            "error thrown with a number instead of a message: {}",
            value.to_string().unwrap_or_default()
        ),
        Value::Boolean(b) => format!("error thrown with a boolean instead of a message: {b}"),
        other => format!(
            "error thrown with a {} instead of a message",
            other.type_name()
        ),
    };
    Ok(match errors::caller_location(lua) {
        Some(at) => format!("{at}: {what}"),
        None => what,
    })
}

impl ScriptHost {
    /// A host for a scene with this seed, with the default budgets.
    pub fn new(seed: u64) -> mlua::Result<Self> {
        let libs = StdLib::STRING
            | StdLib::TABLE
            | StdLib::MATH
            | StdLib::UTF8
            | StdLib::COROUTINE
            | StdLib::OS;
        let lua = Lua::new_with(libs, LuaOptions::default())?;
        // Generational collection: a crowd makes short-lived garbage every tick (argument
        // tables, actions) beside long-lived `self` tables; the incremental collector's
        // cycles stalled single ticks of a large crowd for a whole stall budget (the figures:
        // docs/benchmarks.md, "A scene save to a running crowd"). mlua 0.12 does not export
        // its `GcMode`, so the mode is set through the C API.
        // SAFETY: `lua_gc` with LUA_GCGEN and two integer arguments (0: keep the defaults)
        // only switches the collector's mode; it pushes and pops nothing.
        unsafe {
            lua.exec_raw::<()>((), |state| {
                mlua::ffi::lua_gc(state, mlua::ffi::LUA_GCGEN, 0, 0);
            })
        }?;
        let budget = Rc::new(Budget::install(&lua, DEFAULT_MEMORY)?);
        lua.set_app_data(Rc::clone(&budget));
        sandbox::prepare(&lua)?;
        let rngs = Rc::new(Rngs::new(seed));
        lua.set_app_data(Rc::clone(&rngs));
        lua.set_app_data(Requires::default());
        lua.set_app_data(Rc::new(output::Output::default()));
        label::install(&lua)?;
        let lent = Rc::new(LentWorld::default());
        lua.set_app_data(Rc::clone(&lent));
        views::install(&lua, Rc::clone(&lent))?;
        let raw = raw::install(&lua)?;
        let move_table = bindings::table(&lua, &bindings::moves::MOVE)?;
        lua.set_named_registry_value("agentbox.move", move_table)?;
        let nav_table = bindings::table(&lua, &bindings::nav::NAV)?;
        lua.set_named_registry_value("agentbox.nav", nav_table)?;
        draw::install(&lua);
        let draw_table = bindings::table(&lua, &bindings::draw::DRAW)?;
        sandbox::protect(&lua, &draw_table, "draw")?;
        lua.set_named_registry_value("agentbox.draw", draw_table)?;
        let world_table = bindings::world::world_table(&lua)?;
        let xpcall: Function = lua.globals().raw_get("xpcall")?;
        let handled = Rc::new(std::cell::Cell::new(None));
        let seen = Rc::clone(&handled);
        let rust_handler =
            lua.create_function(move |lua, v: Value| error_handler(lua, v, &seen))?;
        lua.set_named_registry_value("agentbox.handler", rust_handler)?;
        // Converting its argument is all it does: that raises again if the error is a panic.
        let probe = lua.create_function(|_, _: Value| Ok(()))?;
        lua.set_named_registry_value("agentbox.probe", probe)?;
        // SAFETY: `message_handler` is a Lua C function: it keeps to the stack it is given
        // and to the two registry entries just set.
        let handler = unsafe { lua.create_c_function(errors::message_handler)? };
        Ok(ScriptHost {
            lua,
            seed,
            budget,
            raw,
            lent,
            world_table,
            xpcall,
            handler,
            modules: BTreeMap::new(),
            load_errors: BTreeMap::new(),
            failed_loads: BTreeMap::new(),
            slots: Slots::default(),
            rngs,
            generations: 0,
            loads: 0,
            handled,
            warned_order: false,
            init_failures: Default::default(),
            slot_changes: 0,
            turns: Turns::default(),
            owners: FastMap::default(),
            victims: Default::default(),
        })
    }

    /// Reads scripts and modules through `sources` from now on (see [`sources::Sources`]).
    pub fn set_sources(&mut self, sources: sources::Sources) {
        self.lua.set_app_data(sources);
    }

    /// Sets the work budget of one call of `init`, `decide` or `on_reload` (see `budget.rs`).
    pub fn set_instruction_budget(&mut self, instructions: u64) {
        self.budget.set_instructions(instructions);
    }

    /// Caps the memory of the whole Lua state, in bytes (one agent may hold a quarter of it, at
    /// most 64 MB).
    pub fn set_memory_limit(&mut self, bytes: usize) -> Result<(), String> {
        self.budget.set_memory_limit(bytes);
        Ok(())
    }

    /// Whether the work budget is enforced (the default) or not (for measuring its cost).
    pub fn set_budget_mode(&mut self, mode: BudgetMode) {
        self.budget.set_mode(mode);
    }

    /// Reads every later script load and `require` through `files` instead of the disk.
    pub fn set_files(&mut self, files: std::rc::Rc<dyn ScriptFiles>) {
        self.lua.set_app_data(files::Installed(files));
    }

    /// Runs a full garbage collection (before measuring memory).
    pub fn collect_garbage(&self) {
        let _ = self.lua.gc_collect();
        let _ = self.lua.gc_collect();
    }

    /// Bytes the Lua state holds now.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Loads (or reloads) a script file. On failure the last good version stays in use and the
    /// error (`file.lua:LINE: message`) is returned and kept for [`Self::load_errors`].
    pub fn load(&mut self, path: &Path) -> Result<(), ScriptError> {
        self.loads += 1;
        let load = self.loads;
        let result = self.compile(path, load);
        match result {
            Ok(table) => {
                self.generations += 1;
                let table = self
                    .lua
                    .create_registry_value(table)
                    .map_err(|e| errors::script_error(&e))?;
                let old = self.modules.insert(
                    path.to_path_buf(),
                    Module {
                        table,
                        generation: self.generations,
                        load,
                    },
                );
                if let Some(old) = old {
                    self.forget_load(old.load);
                    let _ = self.lua.remove_registry_value(old.table);
                }
                if let Some(failed) = self.failed_loads.remove(path) {
                    self.forget_load(failed);
                }
                self.load_errors.remove(path);
                self.lua.expire_registry_values();
                Ok(())
            }
            Err(mut error) => {
                if let Some(failed) = self.failed_loads.insert(path.to_path_buf(), load) {
                    self.forget_load(failed);
                }
                error.message = error_line(&error.message);
                self.load_errors.insert(path.to_path_buf(), error.clone());
                Err(error)
            }
        }
    }

    fn forget_load(&self, load: u64) {
        if let Some(mut log) = self.lua.app_data_mut::<Requires>() {
            log.0.remove(&load);
        }
    }

    /// Reads, compiles and runs a module body in a fresh sandbox; checks its shape.
    fn compile(&self, path: &Path, load: u64) -> Result<Table, ScriptError> {
        let name = display(path);
        let located = |e: &mlua::Error| {
            let mut error = errors::script_error(e);
            error.message = in_script(&name, &error.message);
            error
        };
        let source = files::read_source(&self.lua, path)
            .map_err(|e| ScriptError::runtime(format!("{name}: cannot read script: {e}")))?;
        let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let ctx = sandbox::new_context(&self.lua, &root, load).map_err(|e| located(&e))?;
        let env = sandbox::new_env(&self.lua, &ctx).map_err(|e| located(&e))?;
        let function = self
            .lua
            .load(source)
            .set_name(format!("@{name}"))
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function()
            .map_err(|e| located(&e))?;
        let value = self.call(&function, MultiValue::new()).map_err(|mut e| {
            e.message = in_script(&name, &e.message);
            e
        })?;
        let Value::Table(table) = value else {
            return Err(ScriptError::runtime(format!(
                "{name}: a script must return a table of functions (`local M = {{}} ... return M`), got {}",
                value.type_name()
            )));
        };
        match table.raw_get::<Value>("decide") {
            Ok(Value::Function(_)) => Ok(table),
            _ => Err(ScriptError::runtime(format!(
                "{name}: the returned table has no decide(self, world) function"
            ))),
        }
    }

    /// Every module file a script asked for (found or not), in its good or its failed load.
    pub fn required_files(&self) -> BTreeSet<PathBuf> {
        let Some(log) = self.lua.app_data_ref::<Requires>() else {
            return BTreeSet::new();
        };
        log.0.values().flatten().cloned().collect()
    }

    /// The scripts that asked for `module` (and so reload when it changes).
    pub fn dependents(&self, module: &Path) -> Vec<PathBuf> {
        let Some(log) = self.lua.app_data_ref::<Requires>() else {
            return Vec::new();
        };
        let uses = |load: u64| log.0.get(&load).is_some_and(|f| f.contains(module));
        let mut out: BTreeSet<PathBuf> = BTreeSet::new();
        for (script, m) in &self.modules {
            if uses(m.load) {
                out.insert(script.clone());
            }
        }
        for (script, load) in &self.failed_loads {
            if uses(*load) {
                out.insert(script.clone());
            }
        }
        out.into_iter().collect()
    }

    /// Load errors of scripts that have no good version yet or whose last save failed.
    pub fn load_errors(&self) -> &BTreeMap<PathBuf, ScriptError> {
        &self.load_errors
    }

    /// Whether a script is used by this host (loaded or failed).
    pub fn knows(&self, path: &Path) -> bool {
        self.modules.contains_key(path) || self.load_errors.contains_key(path)
    }

    /// An agent's `self.memory`, pretty-printed for the inspector; `None` before its first
    /// decision or for agents without a script.
    pub fn memory_text(&self, agent_id: &str) -> Option<String> {
        let slot = self.slots.get(agent_id)?;
        let this: Table = self.lua.registry_value(&slot.this).ok()?;
        match this.raw_get("memory").ok()? {
            // Not read yet, so not made yet: empty.
            Value::Nil => Some("{}".into()),
            memory => Some(inspect::pretty(&memory)),
        }
    }

    /// Every agent's `self.memory` as JSON (`memory::to_json`: sorted keys, placeholders,
    /// capped per agent), by agent id, for the agents this host runs (`--trace-memory`).
    pub fn memories_json(&self) -> BTreeMap<String, serde_json::Value> {
        let mut out = BTreeMap::new();
        for slot in self.slots.all.iter().flatten() {
            let Ok(this) = self.lua.registry_value::<Table>(&slot.this) else {
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

    /// The memories `world:memory(id)` gives for agents this host does not run (a metric's
    /// own Lua state reads the run's memories this way): agent id → `self.memory` as JSON.
    pub fn set_memories(&mut self, memories: BTreeMap<String, serde_json::Value>) {
        self.lua.set_app_data(memory::Snapshot(memories));
    }

    /// Collects what scripts draw (`draw.*`) and the sight queries they make from now on
    /// (`true`, the window), or not (the default: every `draw.*` returns at once).
    pub fn set_drawing(&mut self, on: bool) {
        if let Some(d) = draw::get(&self.lua) {
            d.enabled.set(on);
        }
    }

    /// What scripts drew and asked since the last call (empty while drawing is off).
    pub fn take_drawn(&mut self) -> draw::Frame {
        draw::get(&self.lua).map(|d| d.take()).unwrap_or_default()
    }

    /// The table kept in the registry under `name`, made on first use (compiled `expect:`
    /// predicates and `metrics:` keep their functions there, by handle).
    fn registry_table(&self, name: &str) -> mlua::Result<Table> {
        match self.lua.named_registry_value::<Option<Table>>(name)? {
            Some(t) => Ok(t),
            None => {
                let t = self.lua.create_table()?;
                self.lua.set_named_registry_value(name, &t)?;
                Ok(t)
            }
        }
    }

    /// Bytes of Lua memory an agent's calls allocated and still hold (what its quota counts);
    /// `None` for an agent the host has not run.
    pub fn memory_held(&self, agent_id: &str) -> Option<usize> {
        let slot = self.slots.get(agent_id)?;
        Some(self.budget.held(slot.owner))
    }

    /// Forgets the Lua state of agents that are no longer in the world.
    pub fn retain_agents(&mut self, world: &World) {
        // A hashed set, and only the gone ids copied: a scene save checks every agent here.
        let ids: std::collections::HashSet<&str, std::hash::BuildHasherDefault<Fnv1a>> =
            world.agents.iter().map(|a| a.id.as_str()).collect();
        let gone: Vec<String> = (self.slots.by_id.keys())
            .filter(|id| !ids.contains(id.as_str()))
            .cloned()
            .collect();
        for id in gone {
            self.forget_agent(&id);
        }
    }

    /// Forgets one agent's `self` (its scene entry changed): it starts over with `init`.
    pub fn forget_agent(&mut self, id: &str) {
        self.slot_changes += 1;
        if let Some(&k) = self.slots.by_id.get(id) {
            self.victims.borrow_mut().remove(&k);
        }
        if let Ok(selves) = self.registry_table(SELVES) {
            let _ = selves.raw_set(id, Value::Nil);
        }
        if let Some(slot) = self.slots.remove(id) {
            self.raw.views.unlink_self(slot.this_ptr);
            let _ = self.lua.remove_registry_value(slot.this);
        }
    }

    /// Forgets every agent's `self` (a reset to the scene's start).
    pub fn reset_agents(&mut self) {
        self.slot_changes += 1;
        for id in self.slots.ids() {
            self.forget_agent(&id);
        }
        self.slots = Slots::default();
        self.victims.borrow_mut().clear();
        self.rngs.reset();
    }

    fn new_slot(&mut self, agent: &Agent, script: &Path) -> mlua::Result<Slot> {
        let next = self.owners.len() as u32 + 1;
        let owner = *self.owners.entry(agent.id.clone()).or_insert(next);
        // Room for the fields every `self` holds (params, id, kind, pos) without regrowing, or
        // for as many as the last `self` of this script holds by now (`Views::sized_table`);
        // `memory` is made on first use (see `views`), so a crowd that never reads it keeps
        // its tables small.
        let (this, slots) =
            self.raw
                .views
                .sized_table(&self.lua, script, views::TableUse::Self_, 4)?;
        this.raw_set("params", json_to_lua(&self.lua, &agent.params)?)?;
        let this_ptr = this.to_pointer();
        self.registry_table(SELVES)?
            .raw_set(agent.id.as_str(), &this)?;
        let key = self.lua.create_registry_value(this)?;
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

    /// Calls a Lua function under the instruction budget and the message handler: its first
    /// result, or the error as a one-line message.
    fn call(&self, f: &Function, args: MultiValue) -> Result<Value, ScriptError> {
        let mut all = MultiValue::new();
        all.push_back(Value::Function(f.clone()));
        all.push_back(Value::Function(self.handler.clone()));
        all.extend(args);
        self.handled.set(None);
        let (result, stop) = self.budget.call(|| self.xpcall.call::<MultiValue>(all));
        self.stop_victim();
        let (message, hint) = match result {
            Ok(values) => {
                let mut values = values.into_iter();
                let ok = matches!(values.next(), Some(Value::Boolean(true)));
                let first = values.next().unwrap_or(Value::Nil);
                if ok && stop == Stop::None {
                    return Ok(first);
                }
                let message = match first {
                    _ if ok => String::new(),
                    Value::String(s) => s.to_string_lossy(),
                    other => error_handler(&self.lua, other, &self.handled).unwrap_or_default(),
                };
                (message, self.handled.take())
            }
            Err(e) => (errors::describe(&e), Some(errors::kind_of(&e))),
        };
        Err(self.failure(message, stop, hint))
    }

    /// Stops the agent the VM named when a call found the shared memory cap full (it held
    /// the most): releases its memory now, so the others go on within the cap, and tells it
    /// at its next turn.
    fn stop_victim(&self) {
        let Some(owner) = self.budget.take_victim() else {
            return;
        };
        let held = self.budget.held(owner);
        let found = self
            .slots
            .all
            .iter()
            .enumerate()
            .find_map(|(k, s)| s.as_ref().filter(|s| s.owner == owner).map(|s| (k, s)));
        if let Some((k, slot)) = found {
            if let Ok(this) = self.lua.registry_value::<Table>(&slot.this) {
                self.clear_memory(&this);
            }
            self.victims.borrow_mut().insert(k, held);
        }
    }

    /// The failure of an agent stopped for the shared cap, if it is one (see
    /// [`Self::stop_victim`]).
    fn victim_failure(&mut self, index: usize, agent: &Agent, script: &Path) -> Option<Decision> {
        if self.victims.borrow().is_empty() {
            return None;
        }
        let k = self.slots.find(index, &agent.id)?;
        let held = self.victims.borrow_mut().remove(&k)?;
        let cap = self.budget.memory_limit();
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

    /// The error a failed call makes: its kind from how it stopped (a limit), else from what
    /// the message handler saw; the message says which limit.
    fn failure(&self, message: String, stop: Stop, hint: Option<ErrorKind>) -> ScriptError {
        stop_error(message, stop, hint, self.budget.memory_limit())
    }

    /// Readies one agent for the decision loop through mlua, when its slot, `init`,
    /// `on_reload` or view is not settled: makes its slot and view, links its `self` and runs
    /// the hook that is due. Its `decide` is then called by the loop, as every agent's is. A
    /// failure here is the agent's decision for this tick.
    fn prepare_one(&mut self, world: &World, index: usize, script: &Path) -> Result<(), Decision> {
        self.slot_changes += 1;
        let agent = &world.agents[index];
        let name = display(script);
        let Some(module) = self.modules.get(script) else {
            let why = self
                .load_errors
                .get(script)
                .cloned()
                .unwrap_or_else(|| ScriptError::runtime(format!("{name}: script not loaded")));
            return Err(Decision::Failed(why));
        };
        let generation = module.generation;
        let module_ref = module.table.id();
        let table: Table = match self.lua.registry_value(&module.table) {
            Ok(t) => t,
            Err(e) => return Err(Decision::Failed(errors::error_in(&name, &e))),
        };
        let k = match self.slots.find(index, &agent.id) {
            Some(k)
                if self.slots.all[k]
                    .as_ref()
                    .is_some_and(|s| s.script == script) =>
            {
                k
            }
            _ => match self.new_slot(agent, script) {
                Ok(slot) => {
                    let (k, old) = self.slots.insert(slot);
                    self.rngs.start(k, rng::stream(self.seed, &agent.id, "lua"));
                    if let Some(old) = old {
                        self.raw.views.unlink_self(old.this_ptr);
                        let _ = self.lua.remove_registry_value(old.this);
                    }
                    k
                }
                Err(e) => return Err(Decision::Failed(errors::error_in(&name, &e))),
            },
        };
        let Some(slot) = self.slots.all.get_mut(k).and_then(Option::as_mut) else {
            return Err(Decision::Failed(ScriptError::runtime(format!(
                "{name}: agent state lost (this is a bug)"
            ))));
        };
        let this: Table = match self.lua.registry_value(&slot.this) {
            Ok(t) => t,
            Err(e) => return Err(Decision::Failed(errors::error_in(&name, &e))),
        };
        let views = Rc::clone(&self.raw.views);
        match views.link_self(&self.lua, world, &this, index) {
            Ok(()) => {
                slot.linked = views.view_ptr(index).map(|p| (index, p));
            }
            Err(e) => return Err(Decision::Failed(errors::error_in(&name, &e))),
        }
        let this_ptr = slot.this_ptr;
        let seen = slot.seen_generation;
        slot.seen_generation = Some(generation);
        self.rngs.enter(k);
        views.set_deciding(Some((this_ptr, index)));
        let owner = self.slots.all[k].as_ref().map_or(budget::HOST, |s| s.owner);
        self.budget.own(owner);
        let outcome = self.run_hook(&table, &this, agent, seen, generation, &name);
        self.budget.own(budget::HOST);
        views.set_deciding(None);
        let init_failed = self.init_failures.borrow_mut().remove(&agent.id);
        self.rngs.leave();
        let generations = self.generations;
        if let Some(slot) = self.slots.all.get_mut(k).and_then(Option::as_mut) {
            slot.checked = if init_failed {
                slot.seen_generation = None;
                None
            } else {
                Some((generations, module_ref, world.roster))
            };
        }
        match outcome {
            Some(failed) => Err(failed),
            None => Ok(()),
        }
    }

    /// Makes every agent's [`Turn`] for this round, unless the list made before still holds.
    /// Changes during the round (an agent readied through mlua) concern that agent, whose
    /// entry is then set.
    fn plan_turns(&mut self, world: &World) {
        let stamp = (
            self.generations,
            world.roster,
            self.raw.views.roster(),
            self.slot_changes,
        );
        if world.roster != 0 && self.turns.stamp == Some(stamp) {
            return;
        }
        let views = Rc::clone(&self.raw.views);
        let mut list = std::mem::take(&mut self.turns.list);
        list.clear();
        for (index, agent) in world.agents.iter().enumerate() {
            list.push(match agent.brain {
                Brain::Script(_) if agent.suspended => Turn::Skip,
                Brain::Script(_) => {
                    match ready(&mut self.slots, &views, self.generations, world, index) {
                        Some((k, r)) => Turn::Raw(k as u32, r),
                        None => Turn::Full,
                    }
                }
                _ => Turn::Skip,
            });
        }
        self.turns = Turns {
            stamp: Some(stamp),
            list,
        };
    }

    /// Runs the raw decision loop from agent `start` for as long as agents are ready for it;
    /// returns the index of the first agent it did not decide.
    fn run_fast(&mut self, world: &World, start: usize, out: &mut Vec<(usize, Decision)>) -> usize {
        let mut args = vec![
            Value::Function(self.handler.clone()),
            Value::Table(self.world_table.clone()),
            Value::String(self.raw.views.names[views::DECIDE].clone()),
        ];
        args.extend(self.raw.caches().into_iter().map(Value::Table));
        let mut batch = FastRound {
            turns: &self.turns.list,
            slots: &self.slots,
            budget: &self.budget,
            victims: &self.victims,
            world,
            cursor: start,
            current: None,
            out,
            rngs: &self.rngs,
            limit: self.budget.memory_limit(),
            handled: &self.handled,
            cleanup: None,
        };
        let raw = Rc::clone(&self.raw);
        let budget = Rc::clone(&self.budget);
        // SAFETY: `run_batch` gets the stack it documents (the arguments pushed here); the
        // batch lives in this frame, outside the protected call.
        let _ = unsafe {
            self.lua
                .exec_raw::<()>(MultiValue::from_iter(args), |state| {
                    decide_loop::run_batch(state, &raw, world, &budget, &mut batch);
                    mlua::ffi::lua_settop(state, 0);
                })
        };
        if batch.current.take().is_some() {
            // The batch stopped inside an agent's turn.
            batch.rngs.leave();
        }
        let (next, cleanup) = (batch.cursor, batch.cleanup);
        self.budget.own(budget::HOST);
        self.stop_victim();
        if let Some(k) = cleanup {
            if let Some(Some(slot)) = self.slots.all.get(k) {
                if let Ok(this) = self.lua.registry_value::<Table>(&slot.this) {
                    self.clear_memory(&this);
                }
            }
        }
        next
    }

    /// Drops an agent's `self.memory` and collects, after it hit the memory limit.
    fn clear_memory(&self, this: &Table) {
        let _ = self
            .lua
            .create_table()
            .and_then(|t| this.raw_set("memory", t));
        let _ = self.lua.gc_collect();
        let _ = self.lua.gc_collect();
    }

    fn init_failed(&self, id: &str) {
        self.init_failures.borrow_mut().insert(id.to_string());
    }

    /// Runs `init` (before the agent's first decision) or `on_reload` (after its script
    /// reloaded), if due and defined; the failure it made, if any.
    fn run_hook(
        &self,
        module: &Table,
        this: &Table,
        agent: &Agent,
        seen: Option<u64>,
        generation: u64,
        name: &str,
    ) -> Option<Decision> {
        let hook = match seen {
            None => "init",
            Some(g) if g != generation => "on_reload",
            _ => return None,
        };
        let Ok(Value::Function(f)) = module.raw_get::<Value>(hook) else {
            return None;
        };
        let args = MultiValue::from_iter([Value::Table(this.clone())]);
        let mut error = self.call(&f, args).err()?;
        if hook == "init" {
            // `init` runs again next tick until it succeeds.
            self.init_failed(&agent.id);
        }
        error.message = in_script(name, &error.message);
        if error.kind == ErrorKind::Memory {
            // A memory bomb kept in `self.memory` would starve every other script: drop this
            // agent's memory and collect before anyone else runs.
            self.clear_memory(this);
        }
        Some(Decision::Failed(error))
    }
}

/// A failure of the host's own for the agent running `script`.
fn internal(script: &Path, what: &str) -> Decision {
    let name = display(script);
    leaving(Decision::Failed(ScriptError::runtime(format!(
        "{name}: {what}"
    ))))
}

/// What `decide` returning a userdata that is no action says.
fn not_an_action(name: &str) -> String {
    format!(
        "{name}: decide returned a userdata that is not an action; return move.stop(), move.chase(...) and so on"
    )
}

/// What `decide` returning something other than an action says.
fn returned(name: &str, type_name: &str) -> String {
    format!("{name}: decide must return an action such as move.stop(), got {type_name}")
}

/// A decision as it leaves the host: a failure as a located error line (`file.lua:LINE:
/// error: message`). Only failures are touched, where they are made, not in a pass over the
/// round.
fn leaving(decision: Decision) -> Decision {
    match decision {
        Decision::Failed(mut e) => {
            e.message = error_line(&e.message);
            Decision::Failed(e)
        }
        act => act,
    }
}

/// The error of a call that failed with `message` (empty if a `pcall` swallowed it), given
/// how the budget and the memory limit saw it and the kind the message handler saw.
fn stop_error(message: String, stop: Stop, hint: Option<ErrorKind>, limit: usize) -> ScriptError {
    match stop {
        Stop::Budget => {
            let message = if message.is_empty() {
                format!("{} (stopped after a pcall caught it)", budget::BUDGET_MESSAGE)
            } else {
                message
            };
            ScriptError::new(ErrorKind::Budget, format!("{message}; {SUSPENDED}"))
        }
        Stop::Memory => ScriptError::new(
            ErrorKind::Memory,
            format!(
                "memory limit exceeded (an agent may hold {} MB, all scripts together {} MB); its memory was cleared and {SUSPENDED}",
                budget::agent_memory(limit) / MB,
                limit / MB
            ),
        ),
        Stop::None => ScriptError::new(hint.unwrap_or(ErrorKind::Runtime), message),
    }
}

/// How a stopped agent comes back, as its error says.
const SUSPENDED: &str =
    "the agent is suspended until its script is saved, the scene is reset or it is resumed (U in the window)";

const MB: usize = 1024 * 1024;

/// The host's side of one raw batch (see `decide_loop::run_batch`).
struct FastRound<'a> {
    turns: &'a [Turn],
    /// The slots, for each agent's memory owner.
    slots: &'a Slots,
    /// Told whose call allocates, and asked whether the VM named a victim.
    budget: &'a Budget,
    /// Agents stopped for the shared cap, whose turn is the full path's.
    victims: &'a std::cell::RefCell<BTreeMap<usize, usize>>,
    world: &'a World,
    /// The next agent index to look at; every agent before it has its decision.
    cursor: usize,
    /// The slot of the agent whose turn is under way.
    current: Option<usize>,
    out: &'a mut Vec<(usize, Decision)>,
    rngs: &'a Rngs,
    /// The memory limit (for the message of a memory stop).
    limit: usize,
    /// The kind the message handler saw.
    handled: &'a std::cell::Cell<Option<ErrorKind>>,
    /// A slot whose memory must be cleared (it hit the memory limit).
    cleanup: Option<usize>,
}

/// What the decision loop does with an agent index this round.
#[derive(Clone, Copy)]
enum Turn {
    /// Nothing: the agent has no script.
    Skip,
    /// Made ready through mlua first ([`ScriptHost::prepare_one`]), then decided in the loop.
    Full,
    /// Decide in the raw loop: the agent's slot and entry.
    /// (The slot as `u32` keeps the list at 40 bytes an entry with `Ready::lines`: a
    /// 20,000-agent crowd reads all of it every tick.)
    Raw(u32, Ready),
}

/// Every agent index's [`Turn`], found by [`ready`] once and reused for as long as nothing it
/// depends on changes (in a steady crowd, every round): the raw loop then reads one compact
/// entry per agent instead of the agent, its slot and its view.
#[derive(Default)]
struct Turns {
    /// What the list was made for: the load generation, the world's roster, the views'
    /// roster and the host's slot changes.
    stamp: Option<(u64, u64, u64, u64)>,
    list: Vec<Turn>,
}

/// The slot and raw-loop entry of the agent at `index`, if it is ready for the raw loop: its
/// slot was readied (`prepare_one`) since the last load, and `self` is linked to the view at
/// this index.
fn ready(
    slots: &mut Slots,
    views: &views::Views,
    generations: u64,
    world: &World,
    index: usize,
) -> Option<(usize, Ready)> {
    let agent = world.agents.get(index)?;
    let Brain::Script(script) = &agent.brain else {
        return None;
    };
    let k = slots.find(index, &agent.id)?;
    let slot = slots.all.get(k)?.as_ref()?;
    let (checked, module, roster) = slot.checked?;
    let same_script =
        (roster != 0 && roster == world.roster) || slot.script.as_os_str() == script.as_os_str();
    if checked != generations
        || slot.seen_generation.is_none()
        || !same_script
        || slot.linked != Some((index, views.view_ptr(index)?))
    {
        return None;
    }
    Some((
        k,
        Ready {
            index,
            module,
            this: slot.this_ref,
            this_ptr: slot.this_ptr,
            lines: slot.lines,
        },
    ))
}

impl FastRound<'_> {
    fn name(&self, index: usize) -> String {
        match self.world.agents.get(index).map(|a| &a.brain) {
            Some(Brain::Script(script)) => display(script),
            _ => String::new(),
        }
    }
}

impl Batch for FastRound<'_> {
    fn next(&mut self) -> Option<Ready> {
        loop {
            match *self.turns.get(self.cursor)? {
                Turn::Skip => self.cursor += 1,
                Turn::Full => return None,
                Turn::Raw(k, _) if self.victims.borrow().contains_key(&(k as usize)) => {
                    return None
                }
                Turn::Raw(k, ready) => {
                    let k = k as usize;
                    if let Some(Turn::Raw(_, later)) =
                        self.turns.get(self.cursor + decide_loop::AHEAD)
                    {
                        decide_loop::prefetch_self(later.this_ptr, later.lines);
                    }
                    if let Some(Some(slot)) = self.slots.all.get(k) {
                        self.budget.own(slot.owner);
                    }
                    self.rngs.enter(k);
                    self.current = Some(k);
                    return Some(ready);
                }
            }
        }
    }

    fn done(&mut self, ready: &Ready, outcome: Outcome) -> bool {
        let Some(k) = self.current.take() else {
            return false;
        };
        self.rngs.leave();
        let decision = match outcome {
            Outcome::Act(action) => Decision::Act(action),
            Outcome::Returned("userdata") => {
                Decision::Failed(ScriptError::runtime(not_an_action(&self.name(ready.index))))
            }
            Outcome::Returned(t) => {
                Decision::Failed(ScriptError::runtime(returned(&self.name(ready.index), t)))
            }
            Outcome::NoDecide => Decision::Failed(ScriptError::runtime(format!(
                "{}: no decide function",
                self.name(ready.index)
            ))),
            Outcome::Failed(message, stop) => {
                let mut error = stop_error(message, stop, self.handled.take(), self.limit);
                error.message = in_script(&self.name(ready.index), &error.message);
                let clear = error.kind == ErrorKind::Memory;
                self.out
                    .push((ready.index, leaving(Decision::Failed(error))));
                self.cursor = ready.index + 1;
                if clear {
                    self.cleanup = Some(k);
                    return false;
                }
                return !self.budget.victim_named();
            }
        };
        self.out.push((ready.index, leaving(decision)));
        self.cursor = ready.index + 1;
        // A victim named for the shared cap is stopped, and its memory released, before
        // anyone else runs.
        !self.budget.victim_named()
    }
}

impl Decider for ScriptHost {
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)> {
        let lent = Rc::clone(&self.lent);
        lent.lend(world, || self.decide_round(world))
    }

    fn take_said(&mut self) -> agentbox_core::sim::Said {
        let labels = match self.lua.app_data_ref::<Rc<label::Labels>>() {
            Some(l) => l.take(),
            None => Vec::new(),
        };
        let prints = match self.lua.app_data_ref::<Rc<output::Output>>() {
            Some(out) => out.take_lines(),
            None => Vec::new(),
        };
        agentbox_core::sim::Said { labels, prints }
    }
}

impl ScriptHost {
    /// One round of decisions, with `world` lent to Lua.
    fn decide_round(&mut self, world: &World) -> Vec<(usize, Decision)> {
        self.raw.views.begin_round(world);
        self.slots.begin_round(world.roster);
        // A failure here only means views are made one by one on first use.
        let _ = self.raw.views.prepare(&self.lua, world);
        self.plan_turns(world);
        // Sized for every agent up front: growing it by doubling copied megabytes per tick.
        let mut out = Vec::with_capacity(world.agents.len());
        let mut index = 0;
        while index < world.agents.len() {
            let agent = &world.agents[index];
            let Brain::Script(script) = &agent.brain else {
                index += 1;
                continue;
            };
            if agent.suspended {
                if !self.victims.borrow().is_empty() {
                    if let Some(k) = self.slots.find(index, &agent.id) {
                        self.victims.borrow_mut().remove(&k);
                    }
                }
                index += 1;
                continue;
            }
            if let Some(failed) = self.victim_failure(index, agent, script) {
                out.push((index, leaving(failed)));
                index += 1;
                continue;
            }
            if !matches!(self.turns.list.get(index), Some(Turn::Raw(..))) {
                if let Err(failed) = self.prepare_one(world, index, script) {
                    out.push((index, leaving(failed)));
                    index += 1;
                    continue;
                }
                let views = Rc::clone(&self.raw.views);
                match ready(&mut self.slots, &views, self.generations, world, index) {
                    Some((k, r)) if index < self.turns.list.len() => {
                        self.turns.list[index] = Turn::Raw(k as u32, r)
                    }
                    _ => {
                        out.push((index, internal(script, "agent state lost (this is a bug)")));
                        index += 1;
                        continue;
                    }
                }
            }
            let next = self.run_fast(world, index, &mut out);
            if next > index {
                index = next;
            } else {
                // The loop could not start (no room on the Lua stack).
                let why = "decide could not be called: the Lua stack is full";
                out.push((index, internal(script, why)));
                index += 1;
            }
        }
        if let Some(out) = self.lua.app_data_ref::<Rc<output::Output>>() {
            out.end_tick();
        }
        if self.budget.take_address_order() && !self.warned_order {
            self.warned_order = true;
            eprintln!(
                "warning: a script walked a table keyed by tables or functions with pairs/next; \
                 that order may differ between runs, so the trace may too (key such tables by \
                 id strings or numbers instead)"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::ScriptHost;
    use agentbox_core::sim::Simulation;
    use agentbox_core::world::{Agent, Brain, ErrorKind, Tile, World};
    use mlua::Table;

    /// A panic in a Rust function Lua calls becomes that agent's Lua error, in the full path
    /// (an agent's first tick) and in the raw loop (its later ticks), and the scene goes on.
    #[test]
    fn a_panic_in_a_binding_becomes_the_agents_lua_error() {
        let dir = tempfile::tempdir().unwrap();
        let caller = "return { decide = function(self, world)\n  local t = world:tick()\n  if t == 0 or t == 3 or t == 5 then nav.broken() end\n  return move.stop()\nend }\n";
        let walker = "return { decide = function(self) return move.to({ x = 5, y = 0 }) end }\n";
        let mut world = World::from_ascii(&["......"]);
        let mut host = ScriptHost::new(0).unwrap();
        {
            // A binding with a bug; the scripts load after it, so their `nav` has it.
            let nav: Table = host.lua.named_registry_value("agentbox.nav").unwrap();
            let broken = host
                .lua
                .create_function(|_, ()| -> mlua::Result<()> { panic!("a bug in a binding") })
                .unwrap();
            nav.raw_set("broken", broken).unwrap();
        }
        for (id, text) in [("caller", caller), ("walker", walker)] {
            let path = dir.path().join(format!("{id}.lua"));
            std::fs::write(&path, text).unwrap();
            host.load(&path).unwrap();
            let mut agent = Agent::new(id, Tile::new(0, 0));
            agent.brain = Brain::Script(path);
            world.agents.push(agent);
        }
        let mut sim = Simulation::new(world);
        let mut failures = 0;
        for tick in 0..6 {
            sim.step(&mut host);
            let caller = sim.world().agent("caller").unwrap();
            match &caller.error {
                Some(error) => {
                    failures += 1;
                    assert_eq!(error.kind, ErrorKind::Runtime, "tick {tick}: {error}");
                    assert!(
                        error.message.contains("a bug in a binding")
                            && error.message.contains("caller.lua:3:"),
                        "tick {tick}: {error}"
                    );
                    assert!(!caller.suspended);
                }
                None => assert!(
                    ![0, 3, 5].contains(&tick),
                    "tick {tick}: the panic was lost"
                ),
            }
            assert!(sim.world().agent("walker").unwrap().error.is_none());
        }
        assert_eq!(failures, 3);
        assert!(sim.world().agent("walker").unwrap().pos.x > 0.3);
    }
}
