//! Scripting: the agents' decision layer in Lua 5.4. This is the only crate that names mlua.
//!
//! One Lua state runs every script of a scene. Each script file is a module (a table with
//! `decide` and optionally `init` and `on_reload`) loaded in its own sandbox; each agent has a
//! persistent `self` table whose `memory` survives ticks and reloads. The host implements
//! [`Decider`], so the simulation asks it for actions without knowing about Lua. It reads
//! script files; it never changes the world, draws or watches files.
//!
//! [`ScriptHost`] is made of parts with one job each: [`calls`] calls a script's functions
//! under the budget and the message handler, [`modules`] keeps the loaded scripts' books,
//! [`agents`] every agent's Lua state, [`round`] runs a round of decisions (with the raw loop
//! of `decide_loop.rs`), `lent.rs` lends the world to Lua for a call, and `raw.rs` holds the
//! context the raw C functions read. The functions scripts call are declared in `bindings/`.

pub mod acts;
mod agents;
mod bindings;
mod bounded;
mod budget;
mod calls;
mod convert;
mod decide_loop;
mod draw;
mod errors;
pub mod expression;
mod ffi;
mod files;
mod host_memory;
mod inspect;
mod label;
mod lent;
pub mod lint;
mod memory;
mod memory_edit;
mod memory_key;
mod metric;
mod modules;
mod objective;
mod output;
pub mod plot;
mod predicate;
mod raw;
pub mod registry;
mod round;
mod sandbox;
mod shared_tiles;
mod tunable;
mod views;

use agentbox_core::sim::{Decider, Decision};
use agentbox_core::world::{Agent, Brain, ScriptError, World};
use agents::Agents;
use budget::Budget;
use calls::{display, in_script, Calls};
use lent::LentWorld;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, LuaOptions, MultiValue, StdLib, Table, Value};
use modules::Modules;
use raw::RawContext;
use round::Turns;
use sandbox::{Requires, Rngs};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub use budget::{net_wakeups, Mode as BudgetMode, DEFAULT_INSTRUCTIONS, DEFAULT_MEMORY};
pub use draw::{
    Color as DrawColor, Drawn, Frame as DrawFrame, Query as SightQuery, Shape as DrawShape,
};
pub use memory_key::MemoryKeys;
pub use output::Echo;

/// The registry table of every agent's `self` by id, for `world:memory(id)`.
pub(crate) const SELVES: &str = "agentbox.selves";

/// Why a [`ScriptHost`] could not start: the Lua state, its sandbox or its libraries could
/// not be made (in practice only when memory runs out).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StartError(#[source] mlua::Error);

/// Runs the scene's Lua scripts.
pub struct ScriptHost {
    lua: Lua,
    /// Calls a script's functions under the budget and the message handler.
    calls: Calls,
    /// The loaded scripts and their load errors.
    modules: Modules,
    /// Every agent's Lua state.
    agents: Agents,
    /// The plan of the round's turns, kept while nothing it depends on changes.
    turns: Turns,
    /// What the raw C functions and the decision loop read.
    raw: Rc<RawContext>,
    /// The world lent to Lua while a round, a predicate or a metric runs.
    lent: Rc<LentWorld>,
    /// The `world` argument of every call (see `bindings::world::world_table`).
    world_table: Table,
    /// The world roster of the last round: when it changes, agents that left are forgotten.
    last_roster: agentbox_core::world::Roster,
}

/// Runs `f` (a raw call making a batch of new agents' tables, every one kept) with the
/// collector stopped, restarting it after if it was running: a collection in the middle of
/// such a batch finds nothing of it to free, yet a crowd spawned in one tick ran several,
/// each walking the registry and the tables the batch grows. The restart leaves a
/// collection due at the next allocation, as the batch's allocations would have.
pub(crate) fn collector_paused<R>(lua: &Lua, f: impl FnOnce() -> R) -> R {
    let running = lua.gc_is_running();
    if running {
        lua.gc_stop();
    }
    let result = f();
    if running {
        lua.gc_restart();
    }
    result
}

/// The table kept in the registry under `name`, made on first use (agents' `self`s by id,
/// compiled `expect:` predicates and `metrics:`, by handle).
pub(crate) fn registry_table(lua: &Lua, name: &str) -> mlua::Result<Table> {
    match lua.named_registry_value::<Option<Table>>(name)? {
        Some(t) => Ok(t),
        None => {
            let t = lua.create_table()?;
            lua.set_named_registry_value(name, &t)?;
            Ok(t)
        }
    }
}

impl ScriptHost {
    /// A host for a scene with this seed, with the default budgets.
    pub fn new(seed: u64) -> Result<Self, StartError> {
        Self::start(seed).map_err(StartError)
    }

    fn start(seed: u64) -> mlua::Result<Self> {
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
        lua.set_app_data(bindings::world::UnknownAgent::default());
        label::install(&lua)?;
        acts::install(&lua)?;
        let lent = Rc::new(LentWorld::default());
        lua.set_app_data(Rc::clone(&lent));
        views::install(&lua, Rc::clone(&lent))?;
        let raw = raw::install(&lua)?;
        acts::install_raw(&lua, &raw)?;
        let move_table = bindings::table(&lua, &bindings::moves::MOVE)?;
        lua.set_named_registry_value("agentbox.move", move_table)?;
        let nav_table = bindings::table(&lua, &bindings::nav::NAV)?;
        lua.set_named_registry_value("agentbox.nav", nav_table)?;
        draw::install(&lua);
        let draw_table = bindings::table(&lua, &bindings::draw::DRAW)?;
        sandbox::protect(&lua, &draw_table, "draw")?;
        lua.set_named_registry_value("agentbox.draw", draw_table)?;
        let world_table = bindings::world::world_table(&lua)?;
        let calls = Calls::install(&lua, budget)?;
        Ok(ScriptHost {
            lua,
            calls,
            modules: Modules::default(),
            agents: Agents::new(seed, rngs),
            turns: Turns::default(),
            raw,
            lent,
            world_table,
            last_roster: agentbox_core::world::Roster::UNKNOWN,
        })
    }

    /// Sets the work budget of one call of `init`, `decide` or `on_reload` (see `budget.rs`).
    pub fn set_instruction_budget(&mut self, instructions: u64) {
        self.calls.budget().set_instructions(instructions);
    }

    /// Sets the thread CPU time one call may take (`budget.cpu_ms`; `None`: the default from
    /// the instruction budget), the net under the count (see `budget.rs`).
    pub fn set_cpu_budget(&mut self, ms: Option<u64>) {
        self.calls.budget().set_cpu_ms(ms);
    }

    /// Caps the memory of the whole Lua state, in bytes (one agent may hold a quarter of it, at
    /// most 64 MB).
    pub fn set_memory_limit(&mut self, bytes: usize) {
        self.calls.budget().set_memory_limit(bytes);
    }

    /// The most agents the world may hold once scripts spawn (`budget.max_agents`).
    pub fn set_max_agents(&mut self, max: usize) {
        if let Ok(acts) = acts::get(&self.lua) {
            acts.max_agents.set(max);
        }
    }

    /// Whether the work budget is enforced (the default) or not (for measuring its cost).
    pub fn set_budget_mode(&mut self, mode: BudgetMode) {
        self.calls.budget().set_mode(mode);
    }

    /// Reads every later script load and `require` through `files` instead of the disk.
    pub fn set_files(&mut self, files: Rc<dyn agentbox_core::files::Files>) {
        self.lua.set_app_data(files::Installed(files));
    }

    /// Runs a full garbage collection (before measuring memory).
    pub fn collect_garbage(&self) {
        let _ = self.lua.gc_collect();
        let _ = self.lua.gc_collect();
    }

    /// Bytes the Lua state holds now from the process's allocator: its blocks, with small
    /// ones counted by the slabs of the VM's pool they lie in (free blocks in those slabs and
    /// up to 1 MiB of empty slabs included; `vendor/lua-src/PATCHES.md`, `0024-small-block-pool`).
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Loads (or reloads) a script file. On failure the last good version stays in use and the
    /// error (`file.lua:LINE: message`) is returned and kept for [`Self::load_errors`].
    pub fn load(&mut self, path: &Path) -> Result<(), ScriptError> {
        let load = self.modules.next_load();
        match self.compile(path, load) {
            Ok(table) => self.modules.keep(&self.lua, path, load, table),
            Err(error) => Err(self.modules.fail(&self.lua, path, load, error)),
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
        let source = files::read_script(&self.lua, path)
            .map_err(|e| ScriptError::runtime(format!("{name}: cannot read script: {e}")))?;
        let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let ctx = sandbox::new_context(&self.lua, &root, load).map_err(|e| located(&e))?;
        let env = sandbox::new_env(&self.lua, &ctx).map_err(|e| located(&e))?;
        // Compiling is work too (the patched parser charges its tokens and jump lists): a file
        // that cannot compile within a call's budget is a located error, not a frozen scene.
        let (function, _) = self.calls.budget().call(|| {
            self.lua
                .load(source)
                .set_name(format!("@{name}"))
                .set_mode(ChunkMode::Text)
                .set_environment(env)
                .into_function()
        });
        let function = function.map_err(|e| located(&e))?;
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
        Modules::required_files(&self.lua)
    }

    /// The scripts that asked for `module` (and so reload when it changes).
    pub fn dependents(&self, module: &Path) -> Vec<PathBuf> {
        self.modules.dependents(&self.lua, module)
    }

    /// Load errors of scripts that have no good version yet or whose last save failed.
    pub fn load_errors(&self) -> &BTreeMap<PathBuf, ScriptError> {
        self.modules.load_errors()
    }

    /// Whether a script is used by this host (loaded or failed).
    pub fn knows(&self, path: &Path) -> bool {
        self.modules.knows(path)
    }

    /// An agent's `self.memory`, pretty-printed for the inspector; `None` before its first
    /// decision or for agents without a script.
    pub fn memory_text(&self, agent_id: &str) -> Option<String> {
        self.agents.memory_text(&self.lua, agent_id)
    }

    /// Every agent's memory key in `world.agents`' order (`memory_key.rs`): equal keys, equal
    /// [`ScriptHost::memory_text`] and [`ScriptHost::memory_json`], found without making
    /// either. One raw call for the whole world.
    pub fn memory_keys(&self, world: &World, keys: &mut MemoryKeys) {
        self.agents.memory_keys(&self.lua, world, keys);
    }

    /// Every agent's `self.memory` as JSON (`memory::to_json`: sorted keys, placeholders,
    /// capped per agent), by agent id, for the agents this host runs (`--trace-memory`).
    pub fn memories_json(&self) -> BTreeMap<String, serde_json::Value> {
        self.agents.memories_json(&self.lua)
    }

    /// One agent's `self.memory` as JSON (as [`ScriptHost::memories_json`]); `None` for an
    /// agent this host does not run.
    pub fn memory_json(&self, agent_id: &str) -> Option<serde_json::Value> {
        self.agents.memory_json(&self.lua, agent_id)
    }

    /// The memories `world:memory(id)` gives for agents this host does not run (a metric's
    /// own Lua state reads the run's memories this way): agent id → `self.memory` as JSON.
    pub fn set_memories(&mut self, memories: BTreeMap<String, serde_json::Value>) {
        self.lua.set_app_data(memory::Snapshot(memories));
    }

    /// Where scripts' `print` lines are echoed from now on (standard error by default); the
    /// lines agents print while deciding are kept for the trace whatever this says.
    pub fn set_print_echo(&self, echo: Echo) {
        if let Some(out) = self.lua.app_data_ref::<Rc<output::Output>>() {
            out.set_echo(echo);
        }
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

    /// The table kept in the registry under `name`, made on first use.
    fn registry_table(&self, name: &str) -> mlua::Result<Table> {
        registry_table(&self.lua, name)
    }

    /// Bytes of Lua memory an agent's calls allocated and still hold (what its quota counts);
    /// `None` for an agent the host has not run.
    pub fn memory_held(&self, agent_id: &str) -> Option<usize> {
        self.agents.memory_held(self.calls.budget(), agent_id)
    }

    /// Forgets the Lua state of agents that are no longer in the world.
    pub fn retain_agents(&mut self, world: &World) {
        self.agents.retain(&self.lua, &self.raw.views, world);
    }

    /// An agent's scene entry changed while it runs (a scene reload): its `self` and memory
    /// are kept; `self.params` is made again from the agent's params when `params` changed,
    /// and a new script (`agent.brain`) runs its `init` with the memory kept. An agent that
    /// no longer runs a script loses its `self`.
    pub fn adopt_entry(&mut self, agent: &Agent, params: bool, script: bool) {
        let new_script = match &agent.brain {
            Brain::Script(path) => Some(&**path),
            _ => None,
        };
        if script && new_script.is_none() {
            self.forget_agent(&agent.id);
            return;
        }
        let script = if script { new_script } else { None };
        if self
            .agents
            .adopt_entry(&self.lua, agent, params, script)
            .is_err()
        {
            // The `self` could not be updated (Lua out of memory): the agent starts over
            // with `init` rather than run with stale params.
            self.forget_agent(&agent.id);
        }
    }

    /// Forgets one agent's `self` (its scene entry changed): it starts over with `init`.
    pub fn forget_agent(&mut self, id: &str) {
        self.agents.forget(&self.lua, &self.raw.views, id);
    }

    /// Forgets every agent's `self` (a reset to the scene's start).
    pub fn reset_agents(&mut self) {
        self.agents.reset(&self.lua, &self.raw.views);
    }

    /// Calls a Lua function under the instruction budget and the message handler: its first
    /// result, or the error as a one-line message. An agent the VM named for the shared
    /// memory cap is stopped first.
    fn call(&self, f: &Function, args: MultiValue) -> Result<Value, ScriptError> {
        let (result, stop) = self.calls.start(f, args);
        self.agents.stop_victim(&self.lua, self.calls.budget());
        self.calls.finish(&self.lua, result, stop)
    }
}

impl Decider for ScriptHost {
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)> {
        if let Ok(acts) = acts::get(&self.lua) {
            acts.begin_round();
        }
        // Agents that left (removed, or gone with a reload) take their Lua state with them.
        if world.roster() != self.last_roster {
            self.last_roster = world.roster();
            self.retain_agents(world);
        }
        let lent = Rc::clone(&self.lent);
        lent.lend(world, || self.decide_round(world))
    }

    fn take_remarks(&mut self) -> agentbox_core::sim::Remarks {
        let labels = match self.lua.app_data_ref::<Rc<label::Labels>>() {
            Some(l) => l.take(),
            None => Vec::new(),
        };
        let prints = match self.lua.app_data_ref::<Rc<output::Output>>() {
            Some(out) => out.take_lines(),
            None => Vec::new(),
        };
        let effects = match acts::get(&self.lua) {
            Ok(acts) => acts.take(),
            Err(_) => Vec::new(),
        };
        agentbox_core::sim::Remarks {
            labels,
            prints,
            effects,
        }
    }

    fn give_back(&mut self, effects: Vec<(usize, agentbox_core::world::Effect)>) {
        if let Ok(acts) = acts::get(&self.lua) {
            acts.give_back(effects);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScriptHost;
    use agentbox_core::sim::Simulation;
    use agentbox_core::world::{Agent, Brain, ErrorKind, Tile, World};
    use mlua::Table;

    /// Writes each script into `dir`, loads it and adds an agent running it at tile (0, 0).
    fn add_scripted(
        host: &mut ScriptHost,
        dir: &std::path::Path,
        world: &mut World,
        agents: &[(&str, &str)],
    ) {
        for &(id, text) in agents {
            let path = dir.join(format!("{id}.lua"));
            std::fs::write(&path, text).unwrap();
            host.load(&path).unwrap();
            let mut agent = Agent::new(id, Tile::new(0, 0));
            agent.brain = Brain::Script(path.into());
            world.agents.push(agent);
        }
    }

    /// Drawings keep their fixed bounds whatever a script passes: a 64 KiB text is kept as
    /// its first 64 bytes, a 64 KiB colour name makes a problem of at most 256 bytes that
    /// quotes it briefly, and neither holds an address. (Each read of the string is paid for,
    /// a unit per 16 bytes, so a loop over a far larger one ends on the budget.)
    #[test]
    fn huge_drawing_arguments_are_cut_before_they_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let script = "local big = string.rep(\"t\", 64 * 1024)\nreturn { decide = function(self)\n  for i = 1, 100 do draw.text(self, big, \"red\") draw.line(self, {1, 0}, big) draw.circle(self, {}, 1) end\n  return move.stop()\nend }\n";
        let path = dir.path().join("d.lua");
        std::fs::write(&path, script).unwrap();
        let mut host = ScriptHost::new(0).unwrap();
        host.set_drawing(true);
        host.load(&path).unwrap();
        let mut world = World::from_ascii(&["...."]);
        let mut agent = Agent::new("d", Tile::new(0, 0));
        agent.brain = Brain::Script(path.into());
        world.agents.push(agent);
        let mut sim = Simulation::new(world);
        sim.step(&mut host);
        assert!(sim.world().agent("d").unwrap().error.is_none());
        let frame = host.take_drawn();
        assert_eq!(frame.shapes.len(), crate::draw::MAX_SHAPES);
        for shape in &frame.shapes {
            if let crate::draw::Shape::Text { text, .. } = &shape.shape {
                assert_eq!(text.len(), crate::draw::MAX_TEXT);
            }
        }
        assert!(!frame.problems.is_empty());
        for (_, problem) in &frame.problems {
            assert!(problem.len() <= crate::draw::MAX_PROBLEM, "{problem}");
            // The temporary folder's random name may hold "0x"; the message after the
            // script's location must not (no addresses of Lua values).
            let message = problem
                .split_once("d.lua:")
                .map_or(problem.as_str(), |(_, m)| m);
            assert!(!message.contains("0x"), "{problem}");
        }
        assert!(
            frame
                .problems
                .iter()
                .any(|(_, p)| p.contains("(65536 bytes)")),
            "{:?}",
            frame.problems
        );
    }

    /// A crowd sharing one script is decided in runs of one call of the VM each
    /// (`lua_agentbatch`): an agent that raises, spends its budget (even inside a `pcall`) or
    /// returns something that is no action gets its own located error and stop, as when each
    /// agent had its own call, and the agents around it act, in the full path (the first
    /// tick) and the raw loop (the later ones).
    #[test]
    fn each_agent_of_a_batch_keeps_its_own_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let script = "local shared\nreturn { decide = function(self, world)\n  local id = self.id\n  if id == 'raises' then error('it raised') end\n  if id == 'loops' then while true do end end\n  if id == 'nothing' then return nil end\n  if id == 'swallows' then pcall(function() while true do end end) end\n  if id == 'keeps' then shared = shared or move.stop() return shared end\n  return move.chase(world:nearest(self))\nend }\n";
        let path = dir.path().join("crowd.lua");
        std::fs::write(&path, script).unwrap();
        let mut host = ScriptHost::new(0).unwrap();
        host.load(&path).unwrap();
        let ids = [
            "first", "raises", "keeps", "loops", "middle", "nothing", "swallows", "last",
        ];
        let mut world = World::from_ascii(&["................"]);
        for (x, id) in ids.iter().enumerate() {
            let mut agent = Agent::new(*id, Tile::new(2 * x as i32, 0));
            agent.brain = Brain::Script(path.as_path().into());
            world.agents.push(agent);
        }
        let mut sim = Simulation::new(world);
        for tick in 0..3 {
            sim.step(&mut host);
            let world = sim.world();
            let error = |id: &str| world.agent(id).unwrap().error.clone();
            for id in ["first", "keeps", "middle", "last"] {
                assert!(error(id).is_none(), "tick {tick}: {id}: {:?}", error(id));
            }
            let raised = error("raises").expect("its own error");
            assert_eq!(raised.kind, ErrorKind::Runtime);
            assert!(
                raised.message.contains("crowd.lua:4:") && raised.message.contains("it raised"),
                "tick {tick}: {raised}"
            );
            let nothing = error("nothing").expect("its own error");
            assert!(
                nothing
                    .message
                    .contains("decide must return an action such as move.stop(), got nil"),
                "tick {tick}: {nothing}"
            );
            for id in ["loops", "swallows"] {
                let agent = world.agent(id).unwrap();
                assert!(agent.suspended, "tick {tick}: {id} is suspended");
                if tick == 0 {
                    let stopped = agent.error.clone().expect("its budget stop");
                    assert_eq!(stopped.kind, ErrorKind::Budget, "{id}: {stopped}");
                }
            }
        }
        let first = sim.world().agent("first").unwrap();
        assert!(
            first.pos.x > 0.1,
            "the first agent chased its neighbour: {}",
            first.pos.x
        );
    }

    /// A script in a folder whose name has spaces (`My Games/`), short or past Lua's 60 bytes
    /// of place, has its errors located once: a binding's bad argument in the full path (an
    /// agent's first tick) and in the raw loop (its later ticks), an `error` of its own, and a
    /// syntax error on load, each `PLACE:LINE: message` with the place as Lua writes it.
    #[test]
    fn errors_of_scripts_in_folders_with_spaces_name_their_place_once() {
        let root = tempfile::tempdir().unwrap();
        let long = format!("My Games/{}/prototype two", "a long folder name ".repeat(3));
        for folder in ["plain", "My Games", long.as_str()] {
            let dir = root.path().join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            let script = "return { decide = function(self, world)\n  local t = world:tick()\n  if t == 0 or t == 3 then return move.trace_around({4, 0}, { variant = 'sideways' }) end\n  if t == 5 then error('out of ideas') end\n  return move.stop()\nend }\n";
            let mut world = World::from_ascii(&["......"]);
            let mut host = ScriptHost::new(0).unwrap();
            add_scripted(&mut host, &dir, &mut world, &[("spaced", script)]);
            let path = dir.join("spaced.lua");
            let place = |message: &str, line| {
                let rest = after_place(message, &path, line);
                rest.strip_prefix("error: ").unwrap_or(rest).to_string()
            };
            let mut sim = Simulation::new(world);
            for tick in 0..6 {
                sim.step(&mut host);
                let error = sim.world().agent("spaced").unwrap().error.clone();
                match tick {
                    0 | 3 => {
                        let rest = place(&error.unwrap().message, 3);
                        assert!(
                            rest.starts_with("move.trace_around: variant must be"),
                            "{rest}"
                        );
                    }
                    5 => assert_eq!(place(&error.unwrap().message, 4), "out of ideas"),
                    _ => assert!(error.is_none(), "tick {tick}: {error:?}"),
                }
            }
            let broken = dir.join("broken.lua");
            std::fs::write(
                &broken,
                "return { decide = function(self)\n  return move.stop(\nend }\n",
            )
            .unwrap();
            let error = host.load(&broken).unwrap_err();
            after_place(&error.message, &broken, 3);
        }
    }

    /// What follows a script's place and `line` at the start of `message` (`PLACE:LINE: `),
    /// checking that the place is `path` as Lua writes it (whole, or `...` and its end past 60
    /// bytes) and that no place follows.
    fn after_place<'a>(message: &'a str, path: &std::path::Path, line: u32) -> &'a str {
        let path = path.display().to_string();
        let (place, rest) = message
            .split_once(&format!(".lua:{line}: "))
            .unwrap_or_else(|| panic!("no place at line {line}: {message}"));
        let place = format!("{place}.lua");
        let named = place == path
            || place
                .strip_prefix("...")
                .is_some_and(|tail| path.ends_with(tail));
        assert!(named, "{message}");
        assert!(!rest.contains(".lua:"), "the place twice: {message}");
        rest
    }

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
        add_scripted(
            &mut host,
            dir.path(),
            &mut world,
            &[("caller", caller), ("walker", walker)],
        );
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

    /// The CPU-time net: work the count does not see (a binding that spins without charging,
    /// registered by this test only: no shipped binding does) is stopped once the call has
    /// taken `budget.cpu_ms`; the agent is suspended with the kind `cpu`, and the tick says a
    /// replay may differ from there. The walker beside it goes on.
    #[test]
    fn the_cpu_net_stops_a_call_the_count_cannot_see() {
        use agentbox_core::sim::Event;
        let dir = tempfile::tempdir().unwrap();
        let spinner = "return { decide = function(self, world)\n  for i = 1, 1e9 do nav.spin() end\n  return move.stop()\nend }\n";
        let walker = "return { decide = function(self) return move.to({ x = 5, y = 0 }) end }\n";
        let mut world = World::from_ascii(&["......"]);
        let mut host = ScriptHost::new(0).unwrap();
        host.set_cpu_budget(Some(100));
        {
            let nav: Table = host.lua.named_registry_value("agentbox.nav").unwrap();
            let spin = host
                .lua
                .create_function(|_, ()| {
                    let start = std::time::Instant::now();
                    while start.elapsed() < std::time::Duration::from_millis(20) {
                        std::hint::spin_loop();
                    }
                    Ok(())
                })
                .unwrap();
            nav.raw_set("spin", spin).unwrap();
        }
        add_scripted(
            &mut host,
            dir.path(),
            &mut world,
            &[("spinner", spinner), ("walker", walker)],
        );
        let mut sim = Simulation::new(world);
        let report = sim.step(&mut host);
        let spinner = sim.world().agent("spinner").unwrap();
        let error = spinner.error.as_ref().expect("the net stopped the call");
        assert_eq!(error.kind, ErrorKind::Cpu, "{error}");
        assert!(
            error
                .message
                .contains("spinner.lua:2: error: cpu time limit exceeded"),
            "{error}"
        );
        assert!(spinner.suspended);
        let net = Event::ReplayMayDiffer {
            agent: "spinner".into(),
            reason: "cpu".into(),
        };
        assert!(report.events.contains(&net), "{:?}", report.events);
        // Suspended: the next ticks do not call it again, and say nothing more.
        let report = sim.step(&mut host);
        assert!(!report.events.contains(&net));
        assert!(sim.world().agent("walker").unwrap().error.is_none());
        assert!(sim.world().agent("walker").unwrap().pos.x > 0.1);
    }
}
