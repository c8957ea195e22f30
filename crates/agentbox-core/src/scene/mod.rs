//! Scene loading: a YAML scene file (format in `docs/scenes.md`, schema in `schema.rs`) becomes a
//! [`World`] plus the list of scripts it uses, or a list of located errors (`FILE:LINE:COL: error:
//! message`).
//!
//! Whatever the bytes, loading never panics. This module reads the scene file and checks that
//! script files exist; it never runs scripts (that is `script`'s job) and names no engine crate.
//!
//! ```
//! use agentbox_core::scene;
//! use std::path::Path;
//!
//! let yaml = "name: Tiny\n\
//!             map:\n  rows: |\n    #####\n    #...#\n    #####\n\
//!             agents:\n  - id: a\n    at: [1, 1]\n";
//! let tiny = scene::parse(Path::new("tiny.yaml"), yaml.as_bytes()).expect("a valid scene");
//! assert_eq!(tiny.world.agents[0].id, "a");
//! assert_eq!(tiny.world.tick_rate, 30); // the default
//!
//! // Every error names its place in the file.
//! let bad = yaml.replace("[1, 1]", "[1, 9]");
//! let errors = scene::parse(Path::new("tiny.yaml"), bad.as_bytes()).unwrap_err();
//! assert_eq!(
//!     errors.0[0].to_string(),
//!     "tiny.yaml:9:9: error: agent `a` at [1, 9] is outside the 5x3 map"
//! );
//! ```

mod body;
mod build;
pub mod entries;
pub mod error;
pub mod file;
pub mod live;
mod look;
pub mod numbers;
pub mod save;
pub mod schema;
mod shape;
pub mod spawn;
pub(crate) mod tree;
pub mod tunable;

pub use error::{SceneError, SceneErrors, SceneWarning};
pub use shape::suggestion;

use crate::world::World;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// A loaded scene: the world at tick 0 and the scripts its agents use.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scene file, as given.
    pub path: PathBuf,
    /// The world before the first tick. A session keeps its scene without the agents (its
    /// running world has them) and gets them back with [`Scene::rebuild`].
    pub world: World,
    /// The bytes the scene was built from and the seed that replaced its own, kept so the
    /// start can be built again instead of kept as a second copy of every agent.
    pub source: Source,
    /// Every script an agent uses, as resolved from the scene file's folder.
    pub scripts: BTreeSet<PathBuf>,
    /// Limits for the scripts (`budget:`).
    pub budget: ScriptBudget,
    /// The scene's `expect:` section, checked against the world (agent ids, terrain names,
    /// tiles) but not run: `agentbox test` runs it.
    pub expect: Option<file::ExpectSpec>,
    /// The scene's `metrics:`: a name to a Lua expression, in name order.
    pub metrics: std::collections::BTreeMap<String, String>,
    /// The scene's `monitors:` (none: empty).
    pub monitors: file::MonitorsSpec,
    /// Params declared with a range (`{ value, min, max, step }`), agents' then groups'.
    pub tunables: Vec<tunable::Tunable>,
    /// The `spawn:` entries, in file order.
    pub groups: Vec<spawn::SpawnGroup>,
    /// What loads but looks wrong (a `route:` leg through a wall), in file order.
    pub warnings: Vec<SceneWarning>,
}

/// What a scene was built from: its file's bytes (shared, not copied, by clones) and the seed
/// given instead of the file's (`--seed`), if any.
#[derive(Clone)]
pub struct Source {
    pub bytes: std::sync::Arc<[u8]>,
    pub seed: Option<u64>,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Source({} bytes, seed {:?})",
            self.bytes.len(),
            self.seed
        )
    }
}

impl Source {
    /// The scene at `path` built again from these bytes and seed, `scripts` (the scripts
    /// found when it first built) standing for the disk: see [`Scene::rebuild`].
    pub fn rebuild(&self, path: &Path, scripts: &BTreeSet<PathBuf>) -> Result<Scene, SceneErrors> {
        build::build_knowing(path, &self.bytes, self.seed, Some(scripts))
    }
}

impl Scene {
    /// The scene built again from the bytes and seed it was built from, the scripts it found
    /// standing for the disk: the same world, agents and all, whatever the files hold now.
    /// What a session calls to reset (and to compare with a saved version) instead of keeping
    /// every agent's start twice. It builds the whole scene, so it costs what loading did.
    pub fn rebuild(&self) -> Result<Scene, SceneErrors> {
        self.source.rebuild(&self.path, &self.scripts)
    }
}

/// The scene's `budget:`: how much one script call and all scripts together may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptBudget {
    /// Instructions one call of `init`/`decide`/`on_reload` may run once it runs long.
    pub instructions: u64,
    /// Megabytes the Lua state may hold.
    pub memory_mb: u64,
    /// The most agents the scene may hold once scripts spawn.
    pub max_agents: u64,
    /// Milliseconds of thread CPU time one call may take (`budget.cpu_ms`); `None`: the
    /// larger of 250 and 2.5 us per instruction.
    pub cpu_ms: Option<u64>,
}

impl Default for ScriptBudget {
    fn default() -> Self {
        ScriptBudget {
            instructions: 2_000_000,
            memory_mb: 256,
            max_agents: 50_000,
            cpu_ms: None,
        }
    }
}

/// Reads and validates a scene file.
pub fn load(path: &Path) -> Result<Scene, SceneErrors> {
    load_with_seed(path, None)
}

/// Like [`load`], with the scene's seed replaced (`--seed`): spawned crowds are placed, and
/// the world seeded, from it.
pub fn load_with_seed(path: &Path, seed: Option<u64>) -> Result<Scene, SceneErrors> {
    load_from(&crate::files::Disk, path, seed)
}

/// Like [`load_with_seed`], reading the file through `files` (a history's recorded versions).
pub fn load_from(
    files: &dyn crate::files::Files,
    path: &Path,
    seed: Option<u64>,
) -> Result<Scene, SceneErrors> {
    build::build(path, &read(files, path)?, seed)
}

/// The bytes of the scene file at `path`, read through `files`, or the located error a load
/// would give.
pub fn read(files: &dyn crate::files::Files, path: &Path) -> Result<Vec<u8>, SceneErrors> {
    files
        .read(path, crate::files::FileKind::Scene)
        .map_err(|e| {
            SceneErrors(vec![SceneError {
                file: path.to_path_buf(),
                line: 1,
                column: 1,
                message: format!("cannot read scene file: {e}"),
            }])
        })
}

/// Validates scene bytes as if read from `path` (script paths resolve from its folder).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Scene, SceneErrors> {
    build::build(path, bytes, None)
}

/// Like [`parse`], with the seed replaced as [`load_with_seed`] does (an experiment reads the
/// scene file once and builds each seed's world from the same bytes).
pub fn parse_with_seed(path: &Path, bytes: &[u8], seed: Option<u64>) -> Result<Scene, SceneErrors> {
    build::build(path, bytes, seed)
}

/// Where the key of the entry `name` of the mapping at `section` (dotted: `metrics`,
/// `monitors.values`) starts in a scene file's text, as (line, column): how a message about
/// one metric points at it. None when the text does not parse or has no such entry.
pub fn entry_key_at(text: &str, section: &str, name: &str) -> Option<(usize, usize)> {
    let tree = tree::Tree::parse(text).ok()?;
    let mapping = tree.get(section)?;
    let (key, _) = tree.child(mapping, name)?;
    key.map(|k| (k.line, k.column))
}

/// Joins `relative` onto `base`'s folder and removes `.` and `..` where it can, so
/// `scenes/../scripts/a.lua` reads `scripts/a.lua` in messages.
pub fn resolve_relative(base: &Path, relative: &str) -> PathBuf {
    let joined = base.parent().unwrap_or(Path::new("")).join(relative);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rebuild gives the agents the first build gave, whatever the disk holds now (the
    /// scene's script deleted since), with the seed that replaced the file's.
    #[test]
    fn a_rebuild_gives_the_same_agents_whatever_the_disk_holds() {
        let dir = std::env::temp_dir().join(format!("agentbox-rebuild-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("walk.lua");
        std::fs::write(&script, "return {}\n").unwrap();
        let yaml = "name: r\nmap:\n  rows: |\n    ......\n    ......\n\
                    agents:\n  - id: a\n    at: [1, 1]\n    script: walk.lua\n    params: { gain: 2 }\n\
                    spawn:\n  - kind: boid\n    count: 4\n    speed: [1, 3]\n";
        let scene = parse_with_seed(&dir.join("r.yaml"), yaml.as_bytes(), Some(7)).unwrap();
        std::fs::remove_file(&script).unwrap();
        let again = scene.rebuild().expect("the same bytes build again");
        let _ = std::fs::remove_dir_all(&dir);
        let look = |s: &Scene| -> Vec<String> {
            (s.world.agents.iter())
                .map(|a| format!("{} {} {} {:?} {}", a.id, a.pos, a.speed, a.brain, a.params))
                .collect()
        };
        assert_eq!(look(&again), look(&scene));
        assert_eq!((again.world.seed, again.scripts), (7, scene.scripts));
    }

    #[test]
    fn relative_paths_are_tidied() {
        assert_eq!(
            resolve_relative(Path::new("scenes/chase.yaml"), "../scripts/a.lua"),
            PathBuf::from("scripts/a.lua")
        );
        assert_eq!(
            resolve_relative(Path::new("chase.yaml"), "../a.lua"),
            PathBuf::from("../a.lua")
        );
        assert_eq!(
            resolve_relative(Path::new("/x/s/c.yaml"), "./b/a.lua"),
            PathBuf::from("/x/s/b/a.lua")
        );
    }
}
