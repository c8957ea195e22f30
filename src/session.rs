//! A running scene with everything around it: the last good scene, the simulation, the script
//! host, and how file changes are applied (script reloads, scene reloads in place, reset).
//! The headless runner and the window both drive a `Session`; it reads no clock, draws
//! nothing and watches nothing itself (callers hand it the paths that changed).

use crate::scene::{self, Scene};
use crate::script::ScriptHost;
use crate::sim::{Simulation, TickReport};
use crate::world::{Agent, World};
use std::path::{Path, PathBuf};

/// One scene being run.
pub struct Session {
    scene: Scene,
    seed_override: Option<u64>,
    sim: Simulation,
    host: ScriptHost,
    /// The latest scene reload error, shown until a good version loads.
    scene_error: Option<String>,
}

/// What applying a file change did, for the terminal and the window.
#[derive(Clone, Debug, PartialEq)]
pub enum Reload {
    ScriptOk(PathBuf),
    ScriptFailed(String),
    SceneOk(PathBuf),
    SceneFailed(String),
}

impl std::fmt::Display for Reload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reload::ScriptOk(p) => write!(f, "reloaded {}", p.display()),
            Reload::SceneOk(p) => write!(f, "reloaded scene {}", p.display()),
            Reload::ScriptFailed(e) | Reload::SceneFailed(e) => {
                write!(f, "{e} (keeping the last good version)")
            }
        }
    }
}

fn seeded(mut world: World, seed: Option<u64>) -> World {
    if let Some(s) = seed {
        world.seed = s;
        for agent in &mut world.agents {
            agent.rng = crate::world::rng::stream(s, &agent.id, "move");
        }
    }
    world
}

impl Session {
    /// Loads a scene and its scripts. Scene errors are returned as printable lines; script
    /// errors are not fatal (the agents stand still and show the error until it is fixed).
    pub fn open(path: &Path, seed: Option<u64>) -> Result<Self, String> {
        let scene = scene::load(path).map_err(|e| e.to_string())?;
        let world = seeded(scene.world.clone(), seed);
        let mut host = ScriptHost::new(world.seed).map_err(|e| format!("cannot start Lua: {e}"))?;
        for script in &scene.scripts {
            if let Err(e) = host.load(script) {
                eprintln!("{e}");
            }
        }
        Ok(Session {
            sim: Simulation::new(world),
            scene,
            seed_override: seed,
            host,
            scene_error: None,
        })
    }

    pub fn world(&self) -> &World {
        self.sim.world()
    }

    pub fn scene_path(&self) -> &Path {
        &self.scene.path
    }

    pub fn sim_mut(&mut self) -> &mut Simulation {
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

    /// Writes the running map's rows back into the scene file (atomically, the rest of the
    /// file untouched). The watcher then reloads the scene, which keeps the agents running.
    pub fn save_map(&self) -> Result<(), String> {
        scene::save::save_map(&self.scene.path, self.sim.world())
    }

    /// Applies one tick; new script errors go to stderr.
    pub fn tick(&mut self) -> TickReport {
        let report = self.sim.step(&mut self.host);
        for (id, message) in &report.new_errors {
            eprintln!("{message} (agent {id})");
        }
        report
    }

    /// The scene file and every script it uses: what a watcher should watch.
    pub fn watched_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.scene.path.clone()];
        files.extend(self.scene.scripts.iter().cloned());
        files
    }

    /// Errors to show now: the scene's, then each failing script's.
    pub fn current_errors(&self) -> Vec<String> {
        let mut out: Vec<String> = self.scene_error.iter().cloned().collect();
        out.extend(self.host.load_errors().values().cloned());
        out
    }

    /// Applies a change to a watched file.
    pub fn file_changed(&mut self, path: &Path) -> Option<Reload> {
        if path == self.scene.path {
            return Some(self.reload_scene());
        }
        if self.scene.scripts.contains(path) || self.host.knows(path) {
            return Some(match self.host.load(path) {
                Ok(()) => Reload::ScriptOk(path.to_path_buf()),
                Err(e) => Reload::ScriptFailed(e),
            });
        }
        None
    }

    /// Re-reads the scene; on success applies it in place (map replaced, agents matched by
    /// id keep their state unless their own entry changed), on failure keeps running.
    fn reload_scene(&mut self) -> Reload {
        let path = self.scene.path.clone();
        let new = match scene::load(&path) {
            Ok(s) => s,
            Err(e) => {
                let message = e.to_string();
                self.scene_error = Some(message.clone());
                return Reload::SceneFailed(message);
            }
        };
        self.scene_error = None;
        for script in new.scripts.difference(&self.scene.scripts) {
            if let Err(e) = self.host.load(script) {
                eprintln!("{e}");
            }
        }
        let old_start = std::mem::replace(&mut self.scene, new);
        let start = &self.scene.world;
        let world = self.sim.world_mut();
        world.replace_map(start.grid().clone(), start.terrain().clone());
        world.waypoints = start.waypoints.clone();
        world.tick_rate = start.tick_rate;
        world.name = start.name.clone();
        let mut agents = Vec::with_capacity(start.agents.len());
        for fresh in &start.agents {
            let unchanged = old_start
                .world
                .agents
                .iter()
                .find(|a| a.id == fresh.id)
                .is_some_and(|old| same_entry(old, fresh));
            let running = world.agents.iter().find(|a| a.id == fresh.id);
            match running {
                Some(r) if unchanged && !world.is_blocked(r.tile()) => agents.push(r.clone()),
                _ => agents.push(fresh.clone()),
            }
        }
        world.agents = agents;
        let snapshot = world.clone();
        self.host.retain_agents(&snapshot);
        Reload::SceneOk(path)
    }

    /// Back to the scene's start (R in the window): positions, memory and tick.
    pub fn reset(&mut self) {
        self.sim = Simulation::new(seeded(self.scene.world.clone(), self.seed_override));
        self.host.reset_agents();
    }
}

/// Whether an agent's scene entry is the same in two versions of the scene.
fn same_entry(a: &Agent, b: &Agent) -> bool {
    a.pos == b.pos
        && a.kind == b.kind
        && a.speed == b.speed
        && a.params == b.params
        && a.crumbs.max == b.crumbs.max
        && a.brain == b.brain
        && a.motion == b.motion
        && a.turn_rate == b.turn_rate
        && a.walk == b.walk
}
