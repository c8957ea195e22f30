//! The books of the loaded scripts: each script file's module table (its last good version),
//! the generation and load it came from, the load error of each script whose last save failed
//! (kept until a good version loads), and through the loads, the module files each script
//! `require`d (so a change to one reloads the scripts that use it).
//!
//! Reading and running a script's body is the host's (`ScriptHost::load`, under the budget);
//! this only keeps the books.

use crate::errors;
use crate::sandbox::Requires;
use agentbox_core::world::script_error::error_line;
use agentbox_core::world::ScriptError;
use mlua::{Lua, RegistryKey, Table};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A loaded script module: its table, how many times it has been (re)loaded, and the load
/// whose `require`s it used.
pub struct Module {
    pub table: RegistryKey,
    pub generation: u64,
    load: u64,
}

/// Every script's module and load error.
#[derive(Default)]
pub struct Modules {
    loaded: BTreeMap<PathBuf, Module>,
    /// The current load error of each script that has one (kept until a good version loads).
    load_errors: BTreeMap<PathBuf, ScriptError>,
    /// The load id of each script's last failed attempt (its `require`s are watched too).
    failed_loads: BTreeMap<PathBuf, u64>,
    /// Bumped at every good load: a module's generation.
    generations: u64,
    /// Bumped at every load attempt (scripts, predicates, metrics): the id their `require`s
    /// are logged under.
    loads: u64,
}

impl Modules {
    /// A new load id.
    pub fn next_load(&mut self) -> u64 {
        self.loads += 1;
        self.loads
    }

    /// The generation of the last good load (0 before any).
    pub fn generation(&self) -> u64 {
        self.generations
    }

    /// The module of `path`, if a version of it loaded.
    pub fn get(&self, path: &Path) -> Option<&Module> {
        self.loaded.get(path)
    }

    /// Keeps `table` as the module of `path`, made by load `load`: the previous version and
    /// any failed attempt are forgotten.
    pub fn keep(
        &mut self,
        lua: &Lua,
        path: &Path,
        load: u64,
        table: Table,
    ) -> Result<(), ScriptError> {
        self.generations += 1;
        let table = lua
            .create_registry_value(table)
            .map_err(|e| errors::script_error(&e))?;
        let old = self.loaded.insert(
            path.to_path_buf(),
            Module {
                table,
                generation: self.generations,
                load,
            },
        );
        if let Some(old) = old {
            forget_load(lua, old.load);
            let _ = lua.remove_registry_value(old.table);
        }
        if let Some(failed) = self.failed_loads.remove(path) {
            forget_load(lua, failed);
        }
        self.load_errors.remove(path);
        lua.expire_registry_values();
        Ok(())
    }

    /// Records that load `load` of `path` failed with `error` (the last good version stays);
    /// the error as a located line, as kept for [`Modules::load_errors`].
    pub fn fail(
        &mut self,
        lua: &Lua,
        path: &Path,
        load: u64,
        mut error: ScriptError,
    ) -> ScriptError {
        if let Some(failed) = self.failed_loads.insert(path.to_path_buf(), load) {
            forget_load(lua, failed);
        }
        error.message = error_line(&error.message);
        self.load_errors.insert(path.to_path_buf(), error.clone());
        error
    }

    /// Every module file a script asked for (found or not), in its good or its failed load.
    pub fn required_files(lua: &Lua) -> BTreeSet<PathBuf> {
        let Some(log) = lua.app_data_ref::<Requires>() else {
            return BTreeSet::new();
        };
        log.0.values().flatten().cloned().collect()
    }

    /// The scripts that asked for `module` (and so reload when it changes).
    pub fn dependents(&self, lua: &Lua, module: &Path) -> Vec<PathBuf> {
        let Some(log) = lua.app_data_ref::<Requires>() else {
            return Vec::new();
        };
        let uses = |load: u64| log.0.get(&load).is_some_and(|f| f.contains(module));
        let mut out: BTreeSet<PathBuf> = BTreeSet::new();
        for (script, m) in &self.loaded {
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

    /// Whether a script is known (loaded or failed).
    pub fn knows(&self, path: &Path) -> bool {
        self.loaded.contains_key(path) || self.load_errors.contains_key(path)
    }
}

/// Forgets the `require`s load `load` asked for.
fn forget_load(lua: &Lua, load: u64) {
    if let Some(mut log) = lua.app_data_mut::<Requires>() {
        log.0.remove(&load);
    }
}
