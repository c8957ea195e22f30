//! A running scene with everything around it: the last good scene, the simulation, the script
//! host, and how file changes are applied (script reloads, scene reloads in place, reset).
//! The headless runner and the window both drive a `Session` and call [`Session::sync`] with
//! their [`FileWatcher`] once a frame or tick, so reloads work the same way in both; it reads
//! no clock and draws nothing. A scene saved while it runs is built on another thread when it
//! comes through [`Session::sync`] (`headless --realtime`; only the core's scene building
//! leaves: the Lua state stays on the session's thread) and applied by the first `sync` after
//! it is built; [`Session::apply_changes`] (the history, which records each change at the
//! tick it applies, and so the window) builds it at once.

use crate::watch::FileWatcher;
use agentbox_core::files::{Disk, Files};
use agentbox_core::scene::live::Prepared;
use agentbox_core::scene::save::SaveError;
use agentbox_core::scene::{self, Scene, SceneErrors};
use agentbox_core::sim::{Event, Simulation, TickReport};
use agentbox_core::world::reload::{Edits, Field};
use agentbox_core::world::{centre_of, Agent, Brain, ScriptError, Tile, World};
use agentbox_lua::ScriptHost;
/// What scripts drew and the sight queries they made in a tick (`Session::take_drawn`), for
/// the window.
pub use agentbox_lua::{DrawColor, DrawFrame, DrawShape, SightQuery};
use glam::DVec2;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// What [`Session::tick_observed`] shows a tick's decisions to, with the world they were
/// made for.
pub(crate) type Observer<'a> = dyn FnMut(&World, &[(usize, agentbox_core::sim::Decision)]) + 'a;

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The scene: every mistake found, each located (`FILE:LINE:COL: error: ...`).
    #[error(transparent)]
    Scene(#[from] SceneErrors),
    /// The Lua state could not be made.
    #[error("cannot start Lua: {0}")]
    Lua(String),
    /// The scene's `budget:` could not be set on the Lua state.
    #[error("{0}")]
    Budget(String),
}

/// One scene being run.
pub struct Session {
    scene: Scene,
    seed_override: Option<u64>,
    sim: Simulation,
    host: ScriptHost,
    /// The latest scene reload error, shown until a good version loads.
    scene_error: Option<String>,
    /// Whether script errors stay off stderr (the test runner reports them itself).
    quiet: bool,
    /// Where the scene and scripts are read from (the disk, a history's recorded files, a
    /// study's files read once).
    files: Rc<dyn Files>,
    /// A saved scene being built on another thread ([`Session::sync`]).
    loading: Option<Loading>,
}

/// A scene save being read and built off the tick: the version it is compared with, and where
/// the built result comes.
struct Loading {
    last: scene::live::Last,
    done: std::sync::mpsc::Receiver<Result<Prepared, SceneErrors>>,
}

/// Frees `value` on another thread (a scene's worth of agents takes milliseconds to free);
/// here if no thread can be had.
fn drop_elsewhere<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("agentbox-free".into())
        .spawn(move || drop(value));
}

/// What applying a file change did, for the terminal and the window.
#[derive(Clone, Debug, PartialEq)]
pub enum Reload {
    ScriptOk(PathBuf),
    ScriptFailed(String),
    /// The scene reloaded, with the edits its agents took (see `world::reload`).
    SceneOk(PathBuf, Edits),
    SceneFailed(String),
    /// Something the file watcher wants the user to know (a folder gone or back).
    Watch(String),
}

impl std::fmt::Display for Reload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reload::ScriptOk(p) => write!(f, "reloaded {}", p.display()),
            Reload::SceneOk(p, edits) if edits.is_empty() => {
                write!(f, "reloaded scene {}", p.display())
            }
            Reload::SceneOk(p, edits) => {
                write!(f, "reloaded scene {}: {}", p.display(), edits.summary())
            }
            Reload::ScriptFailed(e) | Reload::SceneFailed(e) => {
                write!(f, "{e} (keeping the last good version)")
            }
            Reload::Watch(note) => write!(f, "{note}"),
        }
    }
}

fn seeded(mut world: World, seed: Option<u64>) -> World {
    if let Some(s) = seed {
        world.seed = s;
        for agent in &mut world.agents {
            agent.rng = agentbox_core::world::rng::AgentRng::new(s, &agent.id);
        }
    }
    world
}

impl Session {
    /// Loads a scene and its scripts. Scene errors are returned as printable lines; script
    /// errors are not fatal (the agents stand still and show the error until it is fixed).
    pub fn open(path: &Path, seed: Option<u64>) -> Result<Self, OpenError> {
        Self::open_with(path, seed, false)
    }

    /// Like [`Session::open`]; with `quiet`, script errors are kept (see
    /// [`Session::current_errors`] and the tick reports) but not printed.
    pub fn open_with(path: &Path, seed: Option<u64>, quiet: bool) -> Result<Self, OpenError> {
        Self::open_reading(path, seed, quiet, Rc::new(Disk))
    }

    /// Like [`Session::open_with`], reading the scene, its scripts and their modules through
    /// `files` then and on every reload (a history's recorded files, see `history/`).
    pub(crate) fn open_reading(
        path: &Path,
        seed: Option<u64>,
        quiet: bool,
        files: Rc<dyn Files>,
    ) -> Result<Self, OpenError> {
        let scene = scene::load_from(&*files, path, seed)?;
        Self::from_scene(scene, seed, quiet, agentbox_lua::Echo::Stderr, files)
    }

    /// A session of a scene already loaded (with `seed` applied, as [`scene::load_with_seed`]
    /// does), whose scripts and modules are read through `files` (an experiment's, read once).
    /// With `quiet`, script errors are kept, not printed; scripts' `print` lines go where
    /// `prints` says (from the first script loaded).
    pub(crate) fn from_scene(
        scene: Scene,
        seed: Option<u64>,
        quiet: bool,
        prints: agentbox_lua::Echo,
        files: Rc<dyn Files>,
    ) -> Result<Self, OpenError> {
        // The running world takes the agents; the scene keeps the rest and the bytes to build
        // them again (`Scene::rebuild`), not a second copy of every agent.
        let mut scene = scene;
        let agents = std::mem::take(&mut scene.world.agents);
        let mut world = scene.world.clone();
        world.agents = agents;
        let world = seeded(world, seed);
        let mut host = ScriptHost::new(world.seed).map_err(|e| OpenError::Lua(e.to_string()))?;
        host.set_print_echo(prints);
        host.set_files(Rc::clone(&files));
        apply_budget(&mut host, &scene).map_err(OpenError::Budget)?;
        for script in &scene.scripts {
            if let Err(e) = host.load(script) {
                if !quiet {
                    eprintln!("{e}");
                }
            }
        }
        Ok(Session {
            quiet,
            sim: Simulation::new(world),
            scene,
            seed_override: seed,
            host,
            scene_error: None,
            files,
            loading: None,
        })
    }

    /// Whether script errors stay off stderr (a replay is quiet; the run it becomes may not be).
    pub(crate) fn set_quiet(&mut self, quiet: bool) {
        self.quiet = quiet;
    }

    pub fn world(&self) -> &World {
        self.sim.world()
    }

    pub fn scene_path(&self) -> &Path {
        &self.scene.path
    }

    /// The loaded scene (its map, scripts and expectations). Its world holds no agents: the
    /// running world has them, and [`Session::start_world`] builds their start again.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The shared world and the script host together, for expectation checks.
    pub fn world_and_host(&mut self) -> (&Rc<World>, &mut ScriptHost) {
        (self.sim.world_rc(), &mut self.host)
    }

    pub(crate) fn sim_mut(&mut self) -> &mut Simulation {
        &mut self.sim
    }

    /// The running world, for the window's direct edits (painting, dragging an agent, the
    /// designer's goal).
    pub fn world_mut(&mut self) -> &mut World {
        self.sim.world_mut()
    }

    /// An agent's `self.memory`, pretty-printed (scripted agents after their first decision).
    pub fn memory_text(&self, agent_id: &str) -> Option<String> {
        self.host.memory_text(agent_id)
    }

    /// Collect what scripts draw and the sight queries they make (the window), or not.
    pub fn set_drawing(&mut self, on: bool) {
        self.host.set_drawing(on);
    }

    /// What scripts drew and asked in the ticks since the last call.
    pub fn take_drawn(&mut self) -> DrawFrame {
        self.host.take_drawn()
    }

    /// Every scripted agent's `self.memory` as JSON by id (`headless --trace-memory`).
    pub fn memories_json(&self) -> std::collections::BTreeMap<String, serde_json::Value> {
        self.host.memories_json()
    }

    /// One agent's `self.memory` as JSON (what `world:memory(id)` reads back at a past tick).
    pub fn memory_json(&self, agent_id: &str) -> Option<serde_json::Value> {
        self.host.memory_json(agent_id)
    }

    /// Every agent's memory key, in the world's agent order: equal keys, equal
    /// [`Session::memory_text`] and [`Session::memory_json`] (`agentbox_lua::MemoryKeys`).
    pub fn memory_keys(&self, keys: &mut agentbox_lua::MemoryKeys) {
        self.host.memory_keys(self.sim.world(), keys);
    }

    /// Bytes of Lua memory an agent's calls allocated and still hold (what its share of the
    /// memory budget counts).
    pub fn memory_held(&self, agent_id: &str) -> Option<usize> {
        self.host.memory_held(agent_id)
    }

    /// Writes the running map's rows back into the scene file (the designer's terrain, not
    /// what scripts set with `world:set_tile`) (atomically, the rest of the
    /// file untouched). The watcher then reloads the scene, which keeps the agents running.
    pub fn save_map(&self) -> Result<(), SaveError> {
        scene::save::save_map(&self.scene.path, &self.sim.world().designers_map())
    }

    /// Sets a tunable (`OWNER.PARAM`) from the next tick: the value, moved into its range and
    /// onto its step, goes into the `params` of every agent it applies to, in the world and in
    /// each one's Lua `self`. The value set, or `None` if the scene has no such tunable.
    pub fn set_tunable(&mut self, name: &str, value: f64) -> Option<f64> {
        let t = self.scene.tunables.iter().find(|t| t.name == name)?.clone();
        let value = t.clamp(value);
        let mut ids = Vec::new();
        // Agents that shared a map before share the changed one: (the map before, after).
        let mut changed: Vec<(agentbox_core::world::Params, agentbox_core::world::Params)> =
            Vec::new();
        for a in &mut self.sim.world_mut().agents {
            if t.applies_to(&a.id, &a.kind) {
                if let Some((_, after)) = changed
                    .iter()
                    .find(|(before, _)| std::sync::Arc::ptr_eq(before, &a.params))
                {
                    a.params = std::sync::Arc::clone(after);
                } else if a.params.is_object() {
                    let before = std::sync::Arc::clone(&a.params);
                    let mut map = (*a.params).clone();
                    if let Some(map) = map.as_object_mut() {
                        map.insert(t.param.clone(), serde_json::json!(value));
                    }
                    a.params = std::sync::Arc::new(map);
                    changed.push((before, std::sync::Arc::clone(&a.params)));
                }
                ids.push(a.id.clone());
            }
        }
        for id in ids {
            self.host.set_param(&id, &t.param, value);
        }
        Some(value)
    }

    /// Sets one number, string or boolean in an agent's `self.memory` from the next tick
    /// (`ScriptHost::set_memory`: `path` is the key path, every table on it already there).
    pub fn set_memory(
        &mut self,
        agent: &str,
        path: &[String],
        value: &serde_json::Value,
    ) -> Result<(), String> {
        self.host.set_memory(agent, path, value)
    }

    /// A tunable's value now: the first agent it applies to has it in its params (the scene's
    /// value when none does).
    pub fn tunable_value(&self, t: &scene::tunable::Tunable) -> f64 {
        t.value_in(self.world())
    }

    /// Writes every tunable's value now into the scene file (each `value:` rewritten where it
    /// stands, comments kept); true if the file changed. The watcher then reloads the scene,
    /// which keeps the agents running, now with these values as the scene's.
    pub fn save_tunables(&self) -> Result<bool, SaveError> {
        let changes: Vec<(String, f64)> = self
            .scene
            .tunables
            .iter()
            .map(|t| (t.name.clone(), self.tunable_value(t)))
            .collect();
        if changes.is_empty() {
            return Ok(false);
        }
        scene::save::save_numbers(&self.scene.path, &changes)
    }

    /// Applies one tick; new script errors go to stderr, one line per message.
    pub fn tick(&mut self) -> TickReport {
        let report = self.sim.step(&mut self.host);
        if !self.quiet {
            for line in error_lines(&report.new_errors) {
                eprintln!("{line}");
            }
        }
        report
    }

    /// [`Session::tick`], with the tick's decisions shown to `observe` (with the world they
    /// were made for) before they are applied: the history keeps them, so a past tick can be
    /// shown again without Lua.
    pub(crate) fn tick_observed(&mut self, observe: &mut Observer) -> TickReport {
        struct Observed<'a> {
            host: &'a mut ScriptHost,
            observe: &'a mut Observer<'a>,
        }
        impl agentbox_core::sim::Decider for Observed<'_> {
            fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, agentbox_core::sim::Decision)> {
                let decisions = agentbox_core::sim::Decider::decide(self.host, world);
                (self.observe)(world, &decisions);
                decisions
            }
            // Labels and print lines go on as from the host itself: an observed tick is the
            // same tick (a default here would drop them from the trace and its hashes).
            fn take_remarks(&mut self) -> agentbox_core::sim::Remarks {
                agentbox_core::sim::Decider::take_remarks(self.host)
            }
            fn give_back(&mut self, effects: Vec<(usize, agentbox_core::world::Effect)>) {
                agentbox_core::sim::Decider::give_back(self.host, effects);
            }
        }
        let report = self.sim.step(&mut Observed {
            host: &mut self.host,
            observe,
        });
        if !self.quiet {
            for line in error_lines(&report.new_errors) {
                eprintln!("{line}");
            }
        }
        report
    }

    /// The scene file, every script it uses and every module they require: what a watcher
    /// should watch.
    pub fn watched_files(&self) -> Vec<PathBuf> {
        let mut files: BTreeSet<PathBuf> = self.scene.scripts.iter().cloned().collect();
        files.extend(self.host.required_files());
        files.insert(self.scene.path.clone());
        files.into_iter().collect()
    }

    /// The scene's world before the first tick, agents and all, built again from the bytes
    /// the scene was read from (as a reset does): it costs a scene load, so call it once per
    /// edit, not per frame.
    pub fn start_world(&self) -> Result<World, SceneErrors> {
        Ok(seeded(self.scene.rebuild()?.world, self.seed_override))
    }

    /// The script host (for measurements and tests).
    pub fn host_mut(&mut self) -> &mut ScriptHost {
        &mut self.host
    }

    /// Applies what changed on disk since the last call: the scene first, then every script
    /// that changed or requires a module that changed, each once; then watches the files the
    /// session now uses. The window calls this every frame, `headless --realtime` every tick.
    ///
    /// A saved scene is read here and built on another thread while the ticks go on; a later
    /// call applies it once built (its `SceneOk` or `SceneFailed` comes then), so a save to a
    /// large scene does not stall the run. [`Session::apply_changes`] applies at once.
    pub fn sync(&mut self, watcher: &mut FileWatcher) -> Vec<Reload> {
        let changes = watcher.poll();
        let mut out: Vec<Reload> = changes.notes.into_iter().map(Reload::Watch).collect();
        let landed = self.land_scene();
        let anything = landed.is_some() || !changes.files.is_empty();
        out.extend(landed);
        if !anything {
            if !out.is_empty() {
                watcher.watch(&self.watched_files());
            }
            return out;
        }
        out.extend(self.apply_changes_with(&changes.files, true));
        watcher.watch(&self.watched_files());
        out
    }

    /// Whether a saved scene is being built on another thread (see [`Session::sync`]).
    pub fn scene_loading(&self) -> bool {
        self.loading.is_some()
    }

    /// Applies that these files changed: the scene first, then every script that changed or
    /// requires a module that changed, each once. [`Session::sync`] calls it with what the
    /// watcher saw; a history replays it with the files it recorded.
    pub fn apply_changes(&mut self, files: &[PathBuf]) -> Vec<Reload> {
        self.apply_changes_with(files, false)
    }

    /// [`Session::apply_changes`]; with `background`, a changed scene is built on another
    /// thread and applied by a later [`Session::sync`].
    fn apply_changes_with(&mut self, files: &[PathBuf], background: bool) -> Vec<Reload> {
        let mut out = Vec::new();
        let mut scripts: BTreeSet<PathBuf> = BTreeSet::new();
        let mut scene_changed = false;
        for file in files {
            if *file == self.scene.path {
                scene_changed = true;
            }
            if self.scene.scripts.contains(file) || self.host.knows(file) {
                scripts.insert(file.clone());
            }
            scripts.extend(self.host.dependents(file));
        }
        if scene_changed {
            let reload = if background {
                self.start_loading()
            } else {
                Some(self.reload_scene())
            };
            if let Some(Reload::SceneOk(..)) = reload {
                // New scripts were loaded by the scene reload.
                scripts.retain(|s| self.host.knows(s));
            }
            out.extend(reload);
        }
        for script in scripts {
            out.push(self.reload_script(&script));
        }
        out
    }

    fn reload_script(&mut self, path: &Path) -> Reload {
        match self.host.load(path) {
            Ok(()) => {
                // A new version may have fixed what stopped them (`sync` reloads a module's
                // dependents too, so a fixed module resumes them as well).
                self.resume_where(|a| matches!(&a.brain, Brain::Script(s) if **s == *path));
                Reload::ScriptOk(path.to_path_buf())
            }
            Err(e) => Reload::ScriptFailed(e.into()),
        }
    }

    /// Lets the suspended agents `pick` chooses run again (their error cleared); how many.
    fn resume_where(&mut self, pick: impl Fn(&Agent) -> bool) -> usize {
        if !self
            .sim
            .world()
            .agents
            .iter()
            .any(|a| a.suspended && pick(a))
        {
            return 0;
        }
        let world = self.sim.world_mut();
        let mut n = 0;
        for agent in world.agents.iter_mut().filter(|a| a.suspended && pick(a)) {
            agent.suspended = false;
            agent.error = None;
            n += 1;
        }
        n
    }

    /// The designer's "resume" (the inspector's U): the agent's script is called again from
    /// the next tick. False if it was not suspended.
    pub fn resume(&mut self, agent_id: &str) -> bool {
        self.resume_where(|a| a.id == agent_id) > 0
    }

    /// Errors to show now: the scene's, then each failing script's.
    pub fn current_errors(&self) -> Vec<String> {
        let mut out: Vec<String> = self.scene_error.iter().cloned().collect();
        out.extend(self.host.load_errors().values().map(|e| e.message.clone()));
        out
    }

    /// Re-reads the scene now; on success applies it in place (map replaced, agents matched
    /// by id keep their state unless their own entry changed), on failure keeps running. A
    /// load under way on another thread (from [`Session::sync`]) is dropped: this reads the
    /// file as it is now.
    fn reload_scene(&mut self) -> Reload {
        self.loading = None;
        let last = scene::live::Last::of(&self.scene);
        let prepared = scene::read(&*self.files, &self.scene.path)
            .and_then(|bytes| Prepared::make(&last, &bytes, self.seed_override));
        self.apply_prepared(prepared)
    }

    /// Reads the scene file now and builds it (and the last good version again, to compare)
    /// on another thread, so the ticks go on meanwhile; [`Session::land_scene`] applies it
    /// once built. A load already under way is dropped (this one reads the newer file). Only
    /// the core's parsing and building leave this thread: the Lua state never does.
    fn start_loading(&mut self) -> Option<Reload> {
        let bytes = match scene::read(&*self.files, &self.scene.path) {
            Ok(bytes) => bytes,
            Err(e) => return Some(self.apply_prepared(Err(e))),
        };
        let last = scene::live::Last::of(&self.scene);
        let seed = self.seed_override;
        let (send, done) = std::sync::mpsc::channel();
        let job = last.clone();
        let spawned = std::thread::Builder::new()
            .name("agentbox-scene-load".into())
            .spawn(move || {
                // The receiver may be gone (a newer save, the session closed): nothing to do.
                let _ = send.send(Prepared::make(&job, &bytes, seed));
            });
        match spawned {
            Ok(_) => {
                self.loading = Some(Loading { last, done });
                None
            }
            // No thread to be had: load here, as before.
            Err(_) => Some(self.reload_scene()),
        }
    }

    /// Applies the scene load under way if it is built; None while it is not (or none is
    /// under way).
    fn land_scene(&mut self) -> Option<Reload> {
        let loading = self.loading.as_ref()?;
        let prepared = match loading.done.try_recv() {
            Ok(prepared) => prepared,
            Err(std::sync::mpsc::TryRecvError::Empty) => return None,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                // Building never panics; should the thread end without an answer, read the
                // file here.
                return Some(self.reload_scene());
            }
        };
        let loading = self.loading.take()?;
        if !loading.last.is(&self.scene) {
            // The scene changed meanwhile (an edit applied at once): compare with it instead.
            return Some(self.reload_scene());
        }
        Some(self.apply_prepared(prepared))
    }

    /// Applies a saved version of the scene built and compared with the last good one: the
    /// map replaced, agents matched by id keep their state unless their own entry changed,
    /// added and removed entries come and go; or, for a scene that does not build, the error
    /// kept and shown while the last good version runs on.
    ///
    /// Applying is O(agents): agents are matched through maps by id, the running agents are
    /// moved (not cloned) into the new list, and the script host reads the running world in
    /// place (`live_bench save`, docs/benchmarks.md).
    fn apply_prepared(&mut self, prepared: Result<Prepared, SceneErrors>) -> Reload {
        let path = self.scene.path.clone();
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => {
                let message = e.to_string();
                self.scene_error = Some(message.clone());
                return Reload::SceneFailed(message);
            }
        };
        if let Err(e) = apply_budget(&mut self.host, &prepared.new) {
            self.scene_error = Some(e.clone());
            return Reload::SceneFailed(e);
        }
        self.scene_error = None;
        for script in prepared.new.scripts.difference(&self.scene.scripts) {
            if let Err(e) = self.host.load(script) {
                eprintln!("{e}");
            }
        }
        let live = prepared.reload();
        let world = self.sim.world_mut();
        let start = &prepared.new.world;
        world.replace_map(start.grid().clone(), start.terrain().clone());
        world.waypoints = start.waypoints.clone();
        world.templates = start.templates.clone();
        world.tick_rate = start.tick_rate;
        world.name = start.name.clone();
        let applied = live.apply(world);
        drop(live);
        world.note_numbers();
        let mut agents = std::mem::take(&mut world.agents);
        for agent in &mut agents {
            step_out_of_walls(world, agent);
        }
        world.agents = agents;
        let Prepared { old, mut new, .. } = prepared;
        // Kept without its agents, as at the start; the two versions' agents are freed on
        // another thread, off the tick.
        let agents = std::mem::take(&mut new.world.agents);
        drop_elsewhere((old, agents));
        let old_start = std::mem::replace(&mut self.scene, new);
        // The Lua side: agents gone take their `self` with them; an edited one keeps its
        // `self` and memory, with new params or a new script if those changed.
        let world = self.sim.world();
        self.host.retain_agents(world);
        for (id, fields) in &applied.changed {
            let params = fields.contains(&Field::Params);
            let script = fields
                .iter()
                .any(|f| matches!(f, Field::Script | Field::Control));
            if !params && !script {
                continue;
            }
            if let Some(agent) = world.agents.iter().find(|a| &a.id == id) {
                self.host.adopt_entry(agent, params, script);
            }
        }
        for id in &applied.added {
            self.host.forget_agent(id);
        }
        // A tunable whose value the file changed (a save, or an edit by hand) takes it now.
        let changed: Vec<(String, f64)> = self
            .scene
            .tunables
            .iter()
            .filter(|t| {
                old_start
                    .tunables
                    .iter()
                    .find(|o| o.name == t.name)
                    .is_none_or(|o| o.value != t.value)
            })
            .map(|t| (t.name.clone(), t.value))
            .collect();
        for (name, value) in changed {
            self.set_tunable(&name, value);
        }
        self.sim.note(Event::reloaded(&applied));
        Reload::SceneOk(path, applied)
    }

    /// Back to the scene's start (R in the window): positions, memory and tick.
    pub fn reset(&mut self) {
        match self.start_world() {
            Ok(start) => {
                self.sim = Simulation::new(start);
                self.host.reset_agents();
            }
            // The bytes built before and build the same way again; should they not, the run
            // goes on and says why.
            Err(e) => self.scene_error = Some(format!("cannot reset: {e}")),
        }
    }
}

/// Sets the host's limits from the scene's `budget:` (headless, the window and `bench` alike).
pub(crate) fn apply_budget(host: &mut ScriptHost, scene: &Scene) -> Result<(), String> {
    host.set_instruction_budget(scene.budget.instructions);
    host.set_cpu_budget(scene.budget.cpu_ms);
    host.set_memory_limit((scene.budget.memory_mb as usize) * 1024 * 1024);
    host.set_max_agents(scene.budget.max_agents as usize);
    Ok(())
}

/// The free tile nearest to `from` (by straight-line distance; ties go to the smaller row,
/// then the smaller column), if the map has one.
fn nearest_free_tile(world: &World, from: Tile) -> Option<Tile> {
    let (w, h) = (world.grid().width(), world.grid().height());
    let limit = w.max(h) + from.x.abs().max(from.y.abs());
    let mut best: Option<(i64, i32, i32)> = None;
    for r in 0..=limit {
        if let Some((d, _, _)) = best {
            if (r as i64) * (r as i64) > d {
                break;
            }
        }
        for y in from.y - r..=from.y + r {
            for x in from.x - r..=from.x + r {
                if (x - from.x).abs().max((y - from.y).abs()) != r {
                    continue;
                }
                let tile = Tile::new(x, y);
                if world.is_blocked(tile) {
                    continue;
                }
                let d = ((x - from.x) as i64).pow(2) + ((y - from.y) as i64).pow(2);
                let key = (d, y, x);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
    }
    best.map(|(_, y, x)| Tile::new(x, y))
}

/// Moves an agent that a map change left inside a wall to the centre of the nearest free
/// tile (or of its own tile, if that is free and only its body overlaps a new wall); its route
/// is dropped so it re-plans.
fn step_out_of_walls(world: &World, agent: &mut Agent) {
    if !world.circle_hits_wall(agent.pos, agent.radius) {
        return;
    }
    if let Some(tile) = nearest_free_tile(world, agent.tile()) {
        agent.pos = centre_of(tile);
        agent.vel = DVec2::ZERO;
        agent.route = None;
    }
}

/// One line per message of new agent errors, in order of first appearance, naming the agent
/// or the first agent and how many others: a script that fails for a crowd of 20,000 agents
/// (a syntax error, say) prints one line, not 20,000. At most 64 KiB of lines a tick
/// (`ScriptError::MAX_BYTES_PER_TICK`); past that one note says how many bytes were dropped.
fn error_lines(errors: &[(String, ScriptError)]) -> Vec<String> {
    let mut grouped: Vec<(&str, &str, usize)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (id, error) in errors {
        let message = &error.message;
        match at.get(message.as_str()) {
            Some(&k) => grouped[k].2 += 1,
            None => {
                at.insert(message, grouped.len());
                grouped.push((message, id, 0));
            }
        }
    }
    let mut lines = Vec::new();
    let (mut written, mut dropped) = (0, 0);
    for (message, id, others) in grouped {
        let line = match others {
            0 => format!("{message} (agent {id})"),
            1 => format!("{message} (agent {id} and 1 other)"),
            n => format!("{message} (agent {id} and {n} others)"),
        };
        if written + line.len() + 1 > ScriptError::MAX_BYTES_PER_TICK {
            dropped += line.len() + 1;
        } else {
            written += line.len() + 1;
            lines.push(line);
        }
    }
    if dropped > 0 {
        lines.push(format!(
            "note: {dropped} bytes of error messages dropped this tick: at most {} KiB are written per tick",
            ScriptError::MAX_BYTES_PER_TICK / 1024
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    #[test]
    fn error_lines_are_bounded_per_tick_with_a_note() {
        let errors: Vec<(String, ScriptError)> = (0..100)
            .map(|i| {
                let text = format!("a.lua:1: {i} {}", "x".repeat(2000));
                (format!("a{i}"), ScriptError::runtime(text))
            })
            .collect();
        let lines = error_lines(&errors);
        let written: usize = lines.iter().map(|l| l.len() + 1).sum();
        assert!(
            written <= ScriptError::MAX_BYTES_PER_TICK + 200,
            "{written}"
        );
        let note = lines.last().unwrap();
        assert!(note.starts_with("note: ") && note.contains("bytes of error messages dropped"));
        // Whole lines only, in order.
        assert!(lines[0].starts_with("a.lua:1: 0 x") && lines[0].ends_with("(agent a0)"));
        assert_eq!(lines.len() - 1, 32);
    }

    #[test]
    fn the_nearest_free_tile_is_found_deterministically() {
        let w = World::from_ascii(&["#####", "#...#", "#.#.#", "#...#", "#####"]);
        // Free tiles are their own nearest.
        assert_eq!(
            nearest_free_tile(&w, IVec2::new(1, 1)),
            Some(IVec2::new(1, 1))
        );
        // The centre wall has four free neighbours at distance 1: the upper one wins.
        assert_eq!(
            nearest_free_tile(&w, IVec2::new(2, 2)),
            Some(IVec2::new(2, 1))
        );
        // A corner wall: (1, 1) is at distance sqrt(2), nothing nearer is free.
        assert_eq!(
            nearest_free_tile(&w, IVec2::new(0, 0)),
            Some(IVec2::new(1, 1))
        );
        // Outside the map, the nearest tile inside.
        assert_eq!(
            nearest_free_tile(&w, IVec2::new(9, 2)),
            Some(IVec2::new(3, 2))
        );
        let walls = World::from_ascii(&["###", "###"]);
        assert_eq!(nearest_free_tile(&walls, IVec2::new(1, 1)), None);
    }

    #[test]
    fn an_agent_in_a_new_wall_steps_out_and_drops_its_route() {
        let w = World::from_ascii(&["....", ".#..", "...."]);
        let mut a = Agent::new("a", IVec2::new(1, 1));
        a.vel = DVec2::new(1.0, 0.0);
        step_out_of_walls(&w, &mut a);
        assert_eq!(a.pos, DVec2::new(1.0, 0.0));
        assert_eq!(a.vel, DVec2::ZERO);
        // Only the body overlapping a wall: back to its own tile's centre.
        let mut b = Agent::new("b", IVec2::new(2, 1));
        b.pos = DVec2::new(1.75, 1.0);
        step_out_of_walls(&w, &mut b);
        assert_eq!(b.pos, DVec2::new(2.0, 1.0));
    }
}
