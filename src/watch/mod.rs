//! Watching: turns file-system events into "this file changed" for the files a session uses.
//! The only module that names notify. It watches each file's folder (so editors' atomic saves
//! — write a temporary file, rename it over — are seen) and reports only watched files.

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};

/// Reports changes to a set of files.
pub struct FileWatcher {
    watcher: RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    /// Absolute path → the path as the session knows it.
    files: BTreeMap<PathBuf, PathBuf>,
    folders: BTreeSet<PathBuf>,
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl FileWatcher {
    pub fn new() -> notify::Result<Self> {
        let (tx, rx) = channel();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = tx.send(event);
        })?;
        Ok(FileWatcher {
            watcher,
            events: rx,
            files: BTreeMap::new(),
            folders: BTreeSet::new(),
        })
    }

    /// Sets the files to report on (added to what is watched; folders stay watched).
    pub fn watch(&mut self, files: &[PathBuf]) -> Vec<String> {
        let mut problems = Vec::new();
        for file in files {
            let abs = absolute(file);
            let folder = abs.parent().map(Path::to_path_buf).unwrap_or_default();
            if !self.folders.contains(&folder) {
                match self.watcher.watch(&folder, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        self.folders.insert(folder);
                    }
                    Err(e) => problems.push(format!("cannot watch {}: {e}", folder.display())),
                }
            }
            self.files.insert(abs, file.clone());
        }
        problems
    }

    /// The watched files that changed since the last call, each once, in path order.
    pub fn changed(&mut self) -> Vec<PathBuf> {
        let mut out = BTreeSet::new();
        while let Ok(event) = self.events.try_recv() {
            let Ok(event) = event else { continue };
            if event.kind.is_access() {
                continue;
            }
            for path in &event.paths {
                if let Some(known) = self.files.get(path) {
                    out.insert(known.clone());
                }
            }
        }
        out.into_iter().collect()
    }
}
