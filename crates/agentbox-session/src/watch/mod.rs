//! Watching: turns file-system events into "these files changed" for the files a session uses
//! (the scene, its scripts, the modules they require). The only module that names notify.
//!
//! It watches each file's folder, not the file, so editors' atomic saves (write a temporary
//! file, rename it over), delete-then-recreate and files that do not exist yet are all seen.
//! There is no debouncer: events are drained and coalesced each time the caller polls (once a
//! frame or tick), so a save is seen as soon as the next poll, and a burst of saves becomes one
//! change. A folder that disappears is reported and looked for again every
//! [`RECHECK`]; when it is back, its files count as changed. The watcher never fails after it
//! is made: a broken backend or a watch that cannot be set is reported and retried.
//!
//! One save is one change. Writing a file in place raises several events (the truncate, each
//! write, the close) that may straddle two polls, so each watched file's contents are
//! fingerprinted when it is first watched and each time it is reported: an event that leaves
//! the bytes as they were last reported (the close after a write already seen, a `touch`) is
//! not a change. A file that is gone fingerprints as "missing", so deleting it, and bringing
//! it back, are changes.
//!
//! It reads watched files only to fingerprint them and knows nothing about scenes or scripts.

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// How often folders are checked for having gone or come back, and a broken backend retried.
pub const RECHECK: Duration = Duration::from_millis(100);

/// What one poll found.
#[derive(Debug, Default, PartialEq)]
pub struct Changes {
    /// Watched files that changed, each once, in path order, as the caller named them.
    pub files: Vec<PathBuf>,
    /// Things to tell the user: a folder gone or back, a watch that could not be set.
    pub notes: Vec<String>,
}

/// A watched folder's state.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Folder {
    Watching,
    /// Gone (or never there): looked for again every [`RECHECK`].
    Missing,
}

/// Reports changes to a set of files.
pub struct FileWatcher {
    watcher: Option<RecommendedWatcher>,
    sender: Sender<notify::Result<Event>>,
    events: Receiver<notify::Result<Event>>,
    /// Events received while waiting, not yet polled.
    pending: VecDeque<notify::Result<Event>>,
    /// Absolute path → the path as the caller knows it.
    files: BTreeMap<PathBuf, PathBuf>,
    /// Absolute path → its contents' fingerprint when last reported (or first watched).
    seen: BTreeMap<PathBuf, Fingerprint>,
    folders: BTreeMap<PathBuf, Folder>,
    notes: Vec<String>,
    last_check: Instant,
}

/// A hash of a file's bytes, or `None` if it cannot be read (gone, not there yet, not a regular
/// file or larger than a scene may be: the loaders then say why).
type Fingerprint = Option<u64>;

fn fingerprint(path: &Path) -> Fingerprint {
    use agentbox_core::files::{Disk, FileKind, Files};
    let bytes = Disk.read(path, FileKind::Watched).ok()?;
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    Some(h.finish())
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn make_watcher(tx: &Sender<notify::Result<Event>>) -> notify::Result<RecommendedWatcher> {
    let tx = tx.clone();
    notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })
}

impl Default for FileWatcher {
    fn default() -> Self {
        Self::new()
    }
}

impl FileWatcher {
    /// A watcher with nothing to watch yet. If the system's watcher cannot start, that is
    /// reported by the next poll and retried.
    pub fn new() -> Self {
        let (tx, rx) = channel();
        let mut notes = Vec::new();
        let watcher = match make_watcher(&tx) {
            Ok(w) => Some(w),
            Err(e) => {
                notes.push(format!("cannot watch files ({e}); retrying"));
                None
            }
        };
        FileWatcher {
            watcher,
            sender: tx,
            events: rx,
            pending: VecDeque::new(),
            files: BTreeMap::new(),
            seen: BTreeMap::new(),
            folders: BTreeMap::new(),
            notes,
            last_check: Instant::now(),
        }
    }

    /// Sets the files to report on (exactly these, from now on).
    pub fn watch(&mut self, files: &[PathBuf]) {
        self.files = files.iter().map(|f| (absolute(f), f.clone())).collect();
        let files = &self.files;
        self.seen.retain(|f, _| files.contains_key(f));
        for abs in self.files.keys() {
            if !self.seen.contains_key(abs) {
                self.seen.insert(abs.clone(), fingerprint(abs));
            }
        }
        let wanted: BTreeSet<PathBuf> = self
            .files
            .keys()
            .map(|f| f.parent().map(Path::to_path_buf).unwrap_or_default())
            .collect();
        let unwanted: Vec<PathBuf> = self
            .folders
            .keys()
            .filter(|f| !wanted.contains(*f))
            .cloned()
            .collect();
        for folder in unwanted {
            if let (Some(Folder::Watching), Some(w)) =
                (self.folders.remove(&folder), self.watcher.as_mut())
            {
                let _ = w.unwatch(&folder);
            }
        }
        for folder in wanted {
            if !self.folders.contains_key(&folder) {
                let state = self.start(&folder);
                if state == Folder::Missing {
                    self.notes.push(format!(
                        "{}: folder not found; watching for it to appear",
                        folder.display()
                    ));
                }
                self.folders.insert(folder, state);
            }
        }
    }

    /// Starts watching a folder; `Missing` if it cannot be watched now.
    fn start(&mut self, folder: &Path) -> Folder {
        let Some(w) = self.watcher.as_mut() else {
            return Folder::Missing;
        };
        if !folder.is_dir() {
            return Folder::Missing;
        }
        match w.watch(folder, RecursiveMode::NonRecursive) {
            Ok(()) => Folder::Watching,
            Err(e) => {
                self.notes
                    .push(format!("cannot watch {}: {e}; retrying", folder.display()));
                Folder::Missing
            }
        }
    }

    /// Waits up to `timeout` for a file-system event (any event, so the caller may poll
    /// early); true if one arrived.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        if !self.pending.is_empty() {
            return true;
        }
        match self.events.recv_timeout(timeout) {
            Ok(event) => {
                self.pending.push_back(event);
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            // Never: the watcher holds a sender clone for as long as `self` lives.
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(timeout);
                false
            }
        }
    }

    /// The watched files that changed since the last poll, and anything to tell the user.
    pub fn poll(&mut self) -> Changes {
        let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
        let mut events: Vec<notify::Result<Event>> = self.pending.drain(..).collect();
        events.extend(self.events.try_iter());
        let mut recheck = self.last_check.elapsed() >= RECHECK;
        for event in events {
            let event = match event {
                Ok(e) => e,
                Err(e) => {
                    self.notes.push(format!("file watching: {e}"));
                    recheck = true;
                    continue;
                }
            };
            if matches!(event.kind, EventKind::Access(_)) && !is_close_write(&event.kind) {
                continue;
            }
            for path in &event.paths {
                if self.files.contains_key(path) {
                    changed.insert(path.clone());
                }
                if self.folders.get(path) == Some(&Folder::Watching) {
                    // The folder itself was removed or renamed: check it now.
                    recheck = true;
                }
            }
        }
        if recheck {
            self.last_check = Instant::now();
            self.recheck(&mut changed);
        }
        // Only files whose bytes differ from when they were last reported.
        let mut files: Vec<PathBuf> = Vec::new();
        for abs in changed {
            let now = fingerprint(&abs);
            if self.seen.get(&abs) != Some(&now) {
                self.seen.insert(abs.clone(), now);
                files.extend(self.files.get(&abs).cloned());
            }
        }
        files.sort();
        Changes {
            files,
            notes: std::mem::take(&mut self.notes),
        }
    }

    /// Notices folders that went away and picks up those that came back.
    fn recheck(&mut self, changed: &mut BTreeSet<PathBuf>) {
        if self.watcher.is_none() {
            match make_watcher(&self.sender) {
                Ok(w) => {
                    self.watcher = Some(w);
                    self.notes.push("file watching works again".into());
                    for state in self.folders.values_mut() {
                        *state = Folder::Missing;
                    }
                }
                Err(_) => return,
            }
        }
        let folders: Vec<(PathBuf, Folder)> =
            self.folders.iter().map(|(f, s)| (f.clone(), *s)).collect();
        for (folder, state) in folders {
            match state {
                Folder::Watching if !folder.is_dir() => {
                    if let Some(w) = self.watcher.as_mut() {
                        let _ = w.unwatch(&folder);
                    }
                    self.folders.insert(folder.clone(), Folder::Missing);
                    // Its files are gone: when they are back, they count as changed.
                    for (abs, seen) in self.seen.iter_mut() {
                        if abs.parent() == Some(folder.as_path()) {
                            *seen = None;
                        }
                    }
                    self.notes.push(format!(
                        "{}: folder disappeared; keeping the last good versions of its files and watching for it to come back",
                        folder.display()
                    ));
                }
                Folder::Missing if folder.is_dir() && self.start(&folder) == Folder::Watching => {
                    self.folders.insert(folder.clone(), Folder::Watching);
                    self.notes
                        .push(format!("{}: folder is back; reloading", folder.display()));
                    for abs in self.files.keys() {
                        if abs.parent() == Some(folder.as_path()) {
                            changed.insert(abs.clone());
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

fn is_close_write(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Access(notify::event::AccessKind::Close(
            notify::event::AccessMode::Write
        ))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polls until `want` shows up among the changes (or two seconds pass).
    fn poll_until(w: &mut FileWatcher, want: impl Fn(&Changes) -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(2) {
            w.wait(Duration::from_millis(20));
            if want(&w.poll()) {
                return true;
            }
        }
        false
    }

    #[test]
    fn sees_writes_atomic_saves_and_recreation() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.lua");
        std::fs::write(&file, "1").unwrap();
        let mut w = FileWatcher::new();
        w.watch(std::slice::from_ref(&file));
        w.poll();
        std::fs::write(&file, "2").unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
        let tmp = dir.path().join(".a.lua.tmp");
        std::fs::write(&tmp, "3").unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
        std::fs::remove_file(&file).unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
        std::fs::write(&file, "4").unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
        // The last write's trailing events (modify, close) may straddle polls: let them land.
        settle(&mut w);
        // Other files in the folder are not reported.
        std::fs::write(dir.path().join("other.txt"), "x").unwrap();
        assert!(
            w.wait(Duration::from_secs(2)),
            "the folder's watch saw the write"
        );
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(w.poll().files, Vec::<PathBuf>::new());
    }

    #[test]
    fn one_save_is_one_change_even_when_its_events_straddle_polls() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.lua");
        std::fs::write(&file, "1").unwrap();
        let mut w = FileWatcher::new();
        w.watch(std::slice::from_ref(&file));
        w.poll();
        // An editor's save: truncate and write, seen by a poll before the file is closed.
        let mut f = std::fs::File::create(&file).unwrap();
        f.write_all(b"2").unwrap();
        f.flush().unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
        drop(f);
        // The close (and any late modify) arrives after that poll: not a second change.
        assert!(w.wait(Duration::from_secs(2)), "the close raised an event");
        let mut later = Vec::new();
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(300) {
            w.wait(Duration::from_millis(20));
            later.extend(w.poll().files);
        }
        assert_eq!(later, Vec::<PathBuf>::new());
        // Rewriting the same bytes is not a change; different bytes are.
        std::fs::write(&file, "2").unwrap();
        assert!(w.wait(Duration::from_secs(2)));
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(w.poll().files, Vec::<PathBuf>::new());
        std::fs::write(&file, "3").unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
    }

    /// Polls until no event has arrived for 200 ms, dropping what it sees.
    fn settle(w: &mut FileWatcher) {
        while w.wait(Duration::from_millis(200)) {
            w.poll();
        }
        w.poll();
    }

    #[test]
    fn a_folder_that_goes_away_is_reported_and_picked_up_again() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("scripts");
        std::fs::create_dir(&folder).unwrap();
        let file = folder.join("a.lua");
        std::fs::write(&file, "1").unwrap();
        let mut w = FileWatcher::new();
        w.watch(std::slice::from_ref(&file));
        let away = dir.path().join("scripts.away");
        std::fs::rename(&folder, &away).unwrap();
        assert!(poll_until(&mut w, |c| c
            .notes
            .iter()
            .any(|n| n.contains("folder disappeared"))));
        std::fs::rename(&away, &folder).unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]
            && c.notes.iter().any(|n| n.contains("folder is back"))));
        std::fs::write(&file, "2").unwrap();
        assert!(poll_until(&mut w, |c| c.files == vec![file.clone()]));
    }
}
