//! Scripting: the agents' decision layer in Lua 5.4. This is the only module that names mlua.
//!
//! One Lua state runs every script of a scene. Each script file is a module (a table with
//! `decide` and optionally `init` and `on_reload`) loaded in its own sandbox; each agent has a
//! persistent `self` table whose `memory` survives ticks and reloads. The host implements
//! [`Decider`], so the simulation asks it for actions without knowing about Lua. It reads
//! script files; it never changes the world, draws or watches files.

mod api;
mod budget;
mod convert;
mod errors;
mod inspect;
mod sandbox;

use crate::sim::{Decider, Decision};
use crate::world::{rng, Agent, Brain, World};
use api::{CurrentWorld, LuaWorld};
use budget::Budget;
use convert::{fill_agent_view, json_to_lua, LuaAction};
use mlua::chunk::ChunkMode;
use mlua::{AnyUserData, Function, Lua, LuaOptions, RegistryKey, StdLib, Table, Value};
use sandbox::CurrentRng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub use budget::{DEFAULT_INSTRUCTIONS, DEFAULT_MEMORY};

/// A loaded script module: its table, and how many times it has been (re)loaded.
struct Module {
    table: RegistryKey,
    generation: u64,
}

/// Per-agent Lua state.
struct Slot {
    this: RegistryKey,
    script: PathBuf,
    /// The module generation `init`/`on_reload` last ran for; `None` before `init`.
    seen_generation: Option<u64>,
    rng: Option<rand_chacha::ChaCha8Rng>,
}

/// Runs the scene's Lua scripts.
pub struct ScriptHost {
    lua: Lua,
    seed: u64,
    budget: Rc<Budget>,
    instructions: u64,
    move_t: Table,
    nav_t: Table,
    world_ud: AnyUserData,
    modules: BTreeMap<PathBuf, Module>,
    /// The current load error of each script that has one (kept until a good version loads).
    load_errors: BTreeMap<PathBuf, String>,
    slots: BTreeMap<String, Slot>,
    generations: u64,
}

/// The name Lua reports for a script (`scripts/x.lua`).
fn display(path: &Path) -> String {
    path.display().to_string()
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
        sandbox::prepare(&lua)?;
        let budget = Rc::new(Budget::default());
        budget::install(&lua, Rc::clone(&budget), DEFAULT_MEMORY)?;
        lua.set_app_data(CurrentRng(rng::stream(seed, "", "load")));
        let move_t = api::move_table(&lua)?;
        let nav_t = api::nav_table(&lua)?;
        let world_ud = lua.create_userdata(LuaWorld)?;
        Ok(ScriptHost {
            lua,
            seed,
            budget,
            instructions: DEFAULT_INSTRUCTIONS,
            move_t,
            nav_t,
            world_ud,
            modules: BTreeMap::new(),
            load_errors: BTreeMap::new(),
            slots: BTreeMap::new(),
            generations: 0,
        })
    }

    /// Sets the instruction budget of one call of `init`, `decide` or `on_reload`.
    pub fn set_instruction_budget(&mut self, instructions: u64) {
        self.instructions = instructions.max(1000);
    }

    /// Loads (or reloads) a script file. On failure the last good version stays in use and the
    /// error (`file.lua:LINE: message`) is returned and kept for [`Self::load_errors`].
    pub fn load(&mut self, path: &Path) -> Result<(), String> {
        match self.compile(path) {
            Ok(table) => {
                self.generations += 1;
                let table = self
                    .lua
                    .create_registry_value(table)
                    .map_err(|e| errors::describe(&e))?;
                self.modules.insert(
                    path.to_path_buf(),
                    Module {
                        table,
                        generation: self.generations,
                    },
                );
                self.load_errors.remove(path);
                Ok(())
            }
            Err(message) => {
                self.load_errors.insert(path.to_path_buf(), message.clone());
                Err(message)
            }
        }
    }

    /// Reads, compiles and runs a module body in a fresh sandbox; checks its shape.
    fn compile(&self, path: &Path) -> Result<Table, String> {
        let name = display(path);
        let source = std::fs::read(path).map_err(|e| format!("{name}: cannot read script: {e}"))?;
        let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let env = sandbox::new_env(&self.lua, &root, &self.move_t, &self.nav_t)
            .map_err(|e| errors::describe_in(&name, &e))?;
        // Required modules load afresh with the script, so a changed helper is picked up.
        self.forget_required_modules(&root);
        let function = self
            .lua
            .load(source)
            .set_name(format!("@{name}"))
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function()
            .map_err(|e| errors::describe_in(&name, &e))?;
        self.budget.arm(self.instructions);
        let result = function.call::<Value>(());
        self.budget.disarm();
        let value = result.map_err(|e| errors::describe_in(&name, &e))?;
        let Value::Table(table) = value else {
            return Err(format!(
                "{name}: a script must return a table of functions (`local M = {{}} ... return M`), got {}",
                value.type_name()
            ));
        };
        match table.raw_get::<Value>("decide") {
            Ok(Value::Function(_)) => Ok(table),
            _ => Err(format!(
                "{name}: the returned table has no decide(self, world) function"
            )),
        }
    }

    fn forget_required_modules(&self, root: &Path) {
        if let Ok(loaded) = self.lua.named_registry_value::<Table>("agentbox.loaded") {
            let prefix = root.to_string_lossy().into_owned();
            let keys: Vec<String> = loaded
                .pairs::<String, Value>()
                .filter_map(Result::ok)
                .map(|(k, _)| k)
                .filter(|k| k.starts_with(&prefix))
                .collect();
            for k in keys {
                let _ = loaded.raw_set(k, Value::Nil);
            }
        }
    }

    /// Load errors of scripts that have no good version yet or whose last save failed.
    pub fn load_errors(&self) -> &BTreeMap<PathBuf, String> {
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
        let memory: Value = this.raw_get("memory").ok()?;
        Some(inspect::pretty(&memory))
    }

    /// Forgets the Lua state of agents that are no longer in the world.
    pub fn retain_agents(&mut self, world: &World) {
        let ids: std::collections::BTreeSet<&str> =
            world.agents.iter().map(|a| a.id.as_str()).collect();
        let gone: Vec<String> = self
            .slots
            .keys()
            .filter(|k| !ids.contains(k.as_str()))
            .cloned()
            .collect();
        for id in gone {
            if let Some(slot) = self.slots.remove(&id) {
                let _ = self.lua.remove_registry_value(slot.this);
            }
        }
    }

    /// Forgets every agent's `self` (a reset to the scene's start).
    pub fn reset_agents(&mut self) {
        let slots = std::mem::take(&mut self.slots);
        for (_, slot) in slots {
            let _ = self.lua.remove_registry_value(slot.this);
        }
        self.lua
            .set_app_data(CurrentRng(rng::stream(self.seed, "", "load")));
    }

    fn new_slot(&self, agent: &Agent, script: &Path) -> mlua::Result<Slot> {
        let this = self.lua.create_table()?;
        this.raw_set("params", json_to_lua(&self.lua, &agent.params)?)?;
        this.raw_set("memory", self.lua.create_table()?)?;
        Ok(Slot {
            this: self.lua.create_registry_value(this)?,
            script: script.to_path_buf(),
            seen_generation: None,
            rng: Some(rng::stream(self.seed, &agent.id, "lua")),
        })
    }

    /// Calls a module function with the budget armed.
    fn call(&self, f: &Function, args: impl mlua::IntoLuaMulti) -> mlua::Result<Value> {
        self.budget.arm(self.instructions);
        let result = f.call::<Value>(args);
        self.budget.disarm();
        result
    }

    fn decide_one(&mut self, agent: &Agent, script: &Path) -> Decision {
        let name = display(script);
        let Some(module) = self.modules.get(script) else {
            let why = self
                .load_errors
                .get(script)
                .cloned()
                .unwrap_or_else(|| format!("{name}: script not loaded"));
            return Decision::Failed(why);
        };
        let generation = module.generation;
        let table: Table = match self.lua.registry_value(&module.table) {
            Ok(t) => t,
            Err(e) => return Decision::Failed(errors::describe_in(&name, &e)),
        };
        let fresh = !self.slots.contains_key(&agent.id)
            || self
                .slots
                .get(&agent.id)
                .is_some_and(|s| s.script != script);
        if fresh {
            match self.new_slot(agent, script) {
                Ok(slot) => {
                    if let Some(old) = self.slots.insert(agent.id.clone(), slot) {
                        let _ = self.lua.remove_registry_value(old.this);
                    }
                }
                Err(e) => return Decision::Failed(errors::describe_in(&name, &e)),
            }
        }
        let slot = self.slots.get_mut(&agent.id).expect("slot just ensured");
        let this: Table = match self.lua.registry_value(&slot.this) {
            Ok(t) => t,
            Err(e) => return Decision::Failed(errors::describe_in(&name, &e)),
        };
        let seen = slot.seen_generation;
        slot.seen_generation = Some(generation);
        let rng = slot.rng.take();
        if let Some(r) = rng {
            self.lua.set_app_data(CurrentRng(r));
        }
        let outcome = self.run_agent(&table, &this, agent, seen, generation, &name);
        if let Some(CurrentRng(r)) = self.lua.remove_app_data::<CurrentRng>() {
            if let Some(slot) = self.slots.get_mut(&agent.id) {
                slot.rng = Some(r);
            }
        }
        self.lua
            .set_app_data(CurrentRng(rng::stream(self.seed, "", "load")));
        outcome
    }

    fn run_agent(
        &self,
        module: &Table,
        this: &Table,
        agent: &Agent,
        seen: Option<u64>,
        generation: u64,
        name: &str,
    ) -> Decision {
        let failed = |e: mlua::Error| Decision::Failed(errors::describe_in(name, &e));
        if let Err(e) = fill_agent_view(&self.lua, this, agent) {
            return failed(e);
        }
        let hook = match seen {
            None => Some("init"),
            Some(g) if g != generation => Some("on_reload"),
            _ => None,
        };
        if let Some(hook) = hook {
            if let Ok(Value::Function(f)) = module.raw_get::<Value>(hook) {
                if let Err(e) = self.call(&f, this.clone()) {
                    return failed(e);
                }
            }
        }
        let decide = match module.raw_get::<Value>("decide") {
            Ok(Value::Function(f)) => f,
            _ => return Decision::Failed(format!("{name}: no decide function")),
        };
        match self.call(&decide, (this.clone(), self.world_ud.clone())) {
            Ok(Value::UserData(ud)) => match ud.borrow::<LuaAction>() {
                Ok(a) => Decision::Act(a.0.clone()),
                Err(_) => Decision::Failed(format!(
                    "{name}: decide returned a userdata that is not an action; return move.stop(), move.chase(...) and so on"
                )),
            },
            Ok(other) => Decision::Failed(format!(
                "{name}: decide must return an action such as move.stop(), got {}",
                if other.is_nil() { "nil" } else { other.type_name() }
            )),
            Err(e) => failed(e),
        }
    }
}

impl Decider for ScriptHost {
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)> {
        self.lua.set_app_data(CurrentWorld(Rc::clone(world)));
        let mut out = Vec::new();
        for (index, agent) in world.agents.iter().enumerate() {
            if let Brain::Script(script) = &agent.brain {
                out.push((index, self.decide_one(agent, script)));
            }
        }
        self.lua.remove_app_data::<CurrentWorld>();
        out
    }
}
