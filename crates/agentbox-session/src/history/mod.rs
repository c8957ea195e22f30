//! Time travel: a run's exact history, rewinding to any tick, and branching from there.
//!
//! A [`History`] wraps the live [`Session`] and records everything that changes the run, as
//! data ([`Recording`]): the scene file and every version of every script and module it read,
//! with the tick at which it was loaded (through the log of its `HistoryFiles`), and every
//! input (keyboard direction, painted tiles, dragged agents, the goal, resumes), each stamped
//! with the number of ticks done when it was applied.
//!
//! Lua state beyond `self.memory` (module locals, upvalues, globals) cannot be copied, so a
//! rewind never restores a copy: [`replay`] opens a fresh session that reads only the recorded
//! bytes (strict `HistoryFiles`) and re-simulates from tick 0 with the recorded inputs. Every
//! [`HASH_EVERY`] ticks the live run records the hash of its trace line, and a replay checks
//! its own against it, so a replay that went astray is reported, never shown as the past.
//!
//! After a rewind to tick T, [`History::branch`] makes the replayed session the live one: the
//! abandoned future's inputs are dropped (returned, for a ghost), and the scripts, modules and
//! scene as they are on disk now are applied at T (as a save at T would be), so the first tick
//! that runs new code is T+1. A headless branch ([`branch_run`]) does the same with another
//! file's bytes standing in for a script.
//!
//! This module reads files only through `HistoryFiles` (`files.rs`) and a recording's file
//! (`file.rs`); it names no engine crate and draws nothing.

mod file;
mod files;
mod frames;

pub use file::{load as load_recording, save as save_recording, SessionFileError};
pub(crate) use files::HistoryFiles;
pub use files::{Blob, FileRead};
pub use frames::{Frame, Frames, TickView, FRAMES_MAX_BYTES, FRAME_EVERY};

use crate::session::{OpenError, Reload, Session};
use crate::shell::shell_word;
use crate::watch::FileWatcher;
use agentbox_core::files::{Disk, FileKind, Files};
use agentbox_core::sim::{trace, TickReport};
use agentbox_core::world::{centre_of, TerrainId, Tile};
use glam::IVec2;
use std::collections::BTreeMap;
use std::hash::Hasher;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The live run hashes its trace line every this many ticks; a replay checks its own there.
pub const HASH_EVERY: u64 = 64;

/// One input to the run, applied between ticks.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Files were read: at the start (the scene, its scripts and modules) or because these
    /// files changed (`changed`, as [`Session::apply_changes`] takes them).
    Files {
        changed: Vec<PathBuf>,
        reads: Vec<(PathBuf, FileRead)>,
    },
    /// The direction keyboard-controlled agents move in.
    Keyboard(IVec2),
    /// A tile painted with a terrain.
    Terrain { tile: Tile, id: TerrainId },
    /// An agent dropped on a tile (its route and velocity cleared).
    Place { agent: String, tile: Tile },
    /// The designer's goal set or cleared.
    Goal(Option<Tile>),
    /// A suspended agent resumed.
    Resume(String),
    /// A tunable (`OWNER.PARAM`) set from the next tick (the window's sliders).
    Tunable { name: String, value: f64 },
    /// A number, string or boolean set in an agent's `self.memory` at a key path from the
    /// next tick (the inspector's memory view).
    SetMemory {
        agent: String,
        path: Vec<String>,
        value: serde_json::Value,
    },
}

/// An input and when it was applied: after `at` ticks, before tick `at + 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedInput {
    pub at: u64,
    pub input: Input,
}

/// Everything needed to run a history again.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The scene file, as the session names it.
    pub scene: PathBuf,
    pub seed: Option<u64>,
    /// In the order applied; the first is the opening read of the files.
    pub events: Vec<TimedInput>,
    /// Ticks run.
    pub ticks: u64,
    /// The trace line's hash after every [`HASH_EVERY`]th tick.
    pub hashes: BTreeMap<u64, u64>,
    /// Where the window opens it (a failing test's tick and agent); none: at its last tick.
    pub focus: Option<Focus>,
}

/// Where a session opens: paused after tick `tick`, `agent` selected, `why` in the status line.
#[derive(Clone, Debug, PartialEq)]
pub struct Focus {
    pub tick: u64,
    pub agent: Option<String>,
    pub why: String,
}

impl Recording {
    /// The run up to tick `to` only (its inputs up to then, none after), opening at `focus`.
    pub fn cut_at(&self, to: u64, focus: Option<Focus>) -> Recording {
        let to = to.min(self.ticks);
        Recording {
            scene: self.scene.clone(),
            seed: self.seed,
            events: self
                .events
                .iter()
                .filter(|e| e.at < to || e.at == 0)
                .cloned()
                .collect(),
            ticks: to,
            hashes: self.hashes.range(..=to).map(|(&k, &v)| (k, v)).collect(),
            focus,
        }
    }

    /// The ticks at which files were (re)loaded after the start, for the timeline's marks.
    pub fn reload_ticks(&self) -> Vec<u64> {
        self.events
            .iter()
            .skip(1)
            .filter(|e| matches!(e.input, Input::Files { .. }))
            .map(|e| e.at)
            .collect()
    }

    /// The recorded bytes of `path` as of tick `at` (the last read of it at or before),
    /// if it was read and could be.
    pub fn version_at(&self, path: &Path, at: u64) -> Option<Blob> {
        let mut found = None;
        for event in self.events.iter().take_while(|e| e.at <= at) {
            if let Input::Files { reads, .. } = &event.input {
                for (p, read) in reads {
                    if p == path {
                        found = read.as_ref().ok().cloned();
                    }
                }
            }
        }
        found
    }
}

/// The hash of a trace line (FNV-1a).
pub fn line_hash(line: &str) -> u64 {
    line_hash_bytes(line.as_bytes())
}

/// The FNV-1a hash of bytes (a trace line, a file version's key in a session file).
pub fn line_hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = agentbox_core::world::spatial::Fnv1a::default();
    h.write(bytes);
    h.finish()
}

/// The live run and its history.
pub struct History {
    live: Session,
    /// The files the live session reads through (logged, and pinned while replaying).
    files: HistoryFiles,
    recording: Recording,
    keyboard: IVec2,
    /// Whether the live session keeps script errors off stderr (replays always do).
    quiet: bool,
    /// Past ticks kept for showing without Lua (the window turns them on).
    frames: Option<Frames>,
}

impl History {
    /// Opens a scene, recording from its start.
    pub fn open(path: &Path, seed: Option<u64>) -> Result<Self, OpenError> {
        Self::open_with(path, seed, false)
    }

    /// Like [`History::open`]; `quiet` keeps script errors off stderr.
    pub fn open_with(path: &Path, seed: Option<u64>, quiet: bool) -> Result<Self, OpenError> {
        Self::open_reading(path, seed, quiet, HistoryFiles::disk())
    }

    /// Like [`History::open_with`], reading the files through `files` (pins first, then its
    /// base), every read logged into the recording, so the session replays those bytes.
    pub(crate) fn open_reading(
        path: &Path,
        seed: Option<u64>,
        quiet: bool,
        files: HistoryFiles,
    ) -> Result<Self, OpenError> {
        files.set_logging(true);
        let live = Session::open_reading(path, seed, quiet, Rc::new(files.clone()))?;
        let reads = files.take_log();
        Ok(History {
            files,
            recording: Recording {
                scene: live.scene_path().to_path_buf(),
                seed,
                events: vec![TimedInput {
                    at: 0,
                    input: Input::Files {
                        changed: Vec::new(),
                        reads,
                    },
                }],
                ticks: 0,
                hashes: BTreeMap::new(),
                focus: None,
            },
            live,
            keyboard: IVec2::ZERO,
            quiet,
            frames: None,
        })
    }

    /// A saved recording, replayed to its last tick and made live (files that changed on
    /// disk since apply at once, as a branch at the end would apply them).
    pub fn resume_recording(rec: &Recording) -> Result<Self, String> {
        Self::resume_recording_with(rec, |_, _| {})
    }

    /// [`History::resume_recording`], showing `on_tick` every replayed tick (the window keeps
    /// what each left for its panels, as it does for live ticks).
    pub fn resume_recording_with(
        rec: &Recording,
        on_tick: impl FnMut(&Session, &TickReport),
    ) -> Result<Self, String> {
        let mut r = Replayer::new(rec)?;
        r.advance_to(rec.ticks, on_tick)?;
        let to = r.tick;
        let mut history = History {
            live: r.session,
            files: r.files,
            recording: rec.clone(),
            keyboard: IVec2::ZERO,
            quiet: false,
            frames: None,
        };
        // A session that says where to open (a failing test, a study's run) shows that run as
        // it was: its files as recorded (a variant's substitutions, a sweep point's scene),
        // until one is saved. Any other applies what changed on disk since, as a branch would.
        let apply_disk = rec.focus.is_none();
        for reload in history.settle_reading(to, apply_disk).1 {
            eprintln!("{reload}");
        }
        Ok(history)
    }

    /// The live session (read it; change it only through the history's methods).
    pub fn session(&self) -> &Session {
        &self.live
    }

    /// The live session, for what is not part of the run's history (memory reads, saving
    /// the map, the host's measurements). Changing the world through it is not recorded.
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.live
    }

    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Ticks run on the live branch.
    pub fn ticks(&self) -> u64 {
        self.recording.ticks
    }

    /// Keeps (or stops keeping) frames of the ticks from now on, so they can be shown without
    /// a replay ([`History::frame`]); each live tick then also copies every agent's memory
    /// text, and every [`FRAME_EVERY`] ticks the world.
    pub fn keep_frames(&mut self, on: bool) {
        self.frames = on.then(|| self.frames.take().unwrap_or_default());
    }

    /// The kept frames, if the window keeps them.
    pub fn frames(&self) -> Option<&Frames> {
        self.frames.as_ref()
    }

    /// Tick `to` of the live branch as it was shown then, from the kept frames (no Lua), if
    /// they reach it.
    pub fn frame(&self, to: u64) -> Option<Frame> {
        self.frames.as_ref()?.frame(to)
    }

    fn record(&mut self, input: Input) {
        if let Some(f) = self.frames.as_mut() {
            f.input();
        }
        self.recording.events.push(TimedInput {
            at: self.recording.ticks,
            input,
        });
    }

    /// Runs one tick of the live session and records it.
    pub fn tick(&mut self) -> TickReport {
        let report = match self.frames.as_mut() {
            None => self.live.tick(),
            Some(frames) => {
                let at = self.recording.ticks;
                frames.before_tick(
                    at,
                    self.live.world(),
                    self.keyboard,
                    self.live.current_errors(),
                );
                let report = self
                    .live
                    .tick_observed(&mut |world, d| frames.decided(at, world, d));
                let live = &self.live;
                frames.after_tick(
                    at + 1,
                    live.world(),
                    self.keyboard,
                    || live.current_errors(),
                    |keys| live.memory_keys(keys),
                    |id| live.memory_held(id),
                    |id| live.memory_text(id),
                    |id| live.memory_json(id),
                );
                report
            }
        };
        self.recording.ticks += 1;
        let t = self.recording.ticks;
        if t.is_multiple_of(HASH_EVERY) {
            let line = trace::line(self.live.world(), &report.events);
            self.recording.hashes.insert(t, line_hash(&line));
        }
        report
    }

    /// [`Session::sync`], recorded: applies what changed on disk since the last call.
    pub fn sync(&mut self, watcher: &mut FileWatcher) -> Vec<Reload> {
        let changes = watcher.poll();
        let mut out: Vec<Reload> = changes.notes.into_iter().map(Reload::Watch).collect();
        if !changes.files.is_empty() {
            out.extend(self.apply_changes(&changes.files));
        }
        if !out.is_empty() {
            watcher.watch(&self.live.watched_files());
        }
        out
    }

    /// [`Session::apply_changes`], recorded with the bytes every load read.
    pub fn apply_changes(&mut self, files: &[PathBuf]) -> Vec<Reload> {
        let out = self.live.apply_changes(files);
        let reads = self.files.take_log();
        self.record(Input::Files {
            changed: files.to_vec(),
            reads,
        });
        out
    }

    /// Sets the keyboard direction (recorded when it changes).
    pub fn set_keyboard(&mut self, dir: IVec2) {
        if dir != self.keyboard {
            self.keyboard = dir;
            self.record(Input::Keyboard(dir));
        }
        self.live.sim_mut().set_keyboard(dir);
    }

    /// Paints a tile; false if it is off the map or already that terrain (nothing recorded).
    pub fn set_terrain(&mut self, tile: Tile, id: TerrainId) -> bool {
        match self.live.world().grid().get(tile) {
            Some(old) if old != id => {}
            _ => return false,
        }
        apply(&mut self.live, &Input::Terrain { tile, id });
        self.record(Input::Terrain { tile, id });
        true
    }

    /// Drops an agent on a free tile other than its own; false (nothing recorded) otherwise.
    pub fn place(&mut self, agent: &str, tile: Tile) -> bool {
        let world = self.live.world();
        let ok = !world.is_blocked(tile)
            && world
                .agent_index(agent)
                .is_some_and(|i| world.agents[i].tile() != tile);
        if !ok {
            return false;
        }
        let input = Input::Place {
            agent: agent.to_string(),
            tile,
        };
        apply(&mut self.live, &input);
        self.record(input);
        true
    }

    /// Sets or clears the designer's goal.
    pub fn set_goal(&mut self, goal: Option<Tile>) {
        apply(&mut self.live, &Input::Goal(goal));
        self.record(Input::Goal(goal));
    }

    /// [`Session::set_tunable`], recorded when the scene has the tunable: the value set.
    pub fn set_tunable(&mut self, name: &str, value: f64) -> Option<f64> {
        let set = self.live.set_tunable(name, value)?;
        self.record(Input::Tunable {
            name: name.to_string(),
            value: set,
        });
        Some(set)
    }

    /// [`Session::set_memory`], recorded when it set the value; the error in words if not.
    pub fn set_memory(
        &mut self,
        agent: &str,
        path: &[String],
        value: serde_json::Value,
    ) -> Result<(), String> {
        self.live.set_memory(agent, path, &value)?;
        self.record(Input::SetMemory {
            agent: agent.to_string(),
            path: path.to_vec(),
            value,
        });
        Ok(())
    }

    /// [`Session::resume`], recorded when it resumed the agent.
    pub fn resume(&mut self, agent: &str) -> bool {
        let done = self.live.resume(agent);
        if done {
            self.record(Input::Resume(agent.to_string()));
        }
        done
    }

    /// Rewinds the live run to tick `to` and branches there: the replayed session becomes the
    /// live one, the inputs after `to` are dropped (returned: the abandoned future), and files
    /// that differ on disk from the versions the run had at `to` are applied now, as saves at
    /// `to` would be, so new code first runs at tick `to + 1`.
    pub fn branch(&mut self, to: u64) -> Result<(Recording, Vec<Reload>), String> {
        let mut r = Replayer::new(&self.recording)?;
        r.advance_to(to, |_, _| {})?;
        Ok(self.branch_from(r))
    }

    /// [`History::branch`] from a replay of this history already at the tick to branch at.
    pub fn branch_from(&mut self, replayed: Replayer) -> (Recording, Vec<Reload>) {
        let to = replayed.tick.min(self.recording.ticks);
        self.live = replayed.session;
        self.files = replayed.files;
        self.settle(to)
    }

    /// With `live` a replay of this history at tick `to`: drops the inputs after `to`
    /// (returned, with the old ticks), reads the disk again and applies what changed there.
    fn settle(&mut self, to: u64) -> (Recording, Vec<Reload>) {
        self.settle_reading(to, true)
    }

    /// [`History::settle`]; unless `apply_disk`, files that differ on disk are left as the
    /// recording has them (they apply when saved, as any edit does).
    fn settle_reading(&mut self, to: u64, apply_disk: bool) -> (Recording, Vec<Reload>) {
        let abandoned = self.recording.clone();
        if let Some(f) = self.frames.as_mut() {
            f.cut(to);
        }
        self.recording.events.retain(|e| e.at < to || is_opening(e));
        // An input of the old branch at exactly `to` came after the shown state: dropped too,
        // but the opening read (at 0) stays.
        self.recording.ticks = to;
        self.recording.hashes.retain(|&t, _| t <= to);
        self.keyboard = keyboard_at(&self.recording);
        let pinned = files_at(&self.recording, to);
        self.live.set_quiet(self.quiet);
        self.live.sim_mut().set_keyboard(self.keyboard);
        // From now on the live session reads the disk again.
        self.files.unpin_all();
        self.files.set_strict(false);
        self.files.set_logging(true);
        let mut changed = Vec::new();
        for (path, had) in pinned.into_iter().filter(|_| apply_disk) {
            // Each file read as what it is, with its own limit, as the session reads it.
            let kind = if path == self.recording.scene {
                FileKind::Scene
            } else {
                FileKind::Script
            };
            let now = Disk.read(&path, kind).map(Blob::from);
            if now != had {
                changed.push(path);
            }
        }
        let reloads = if changed.is_empty() {
            Vec::new()
        } else {
            self.apply_changes(&changed)
        };
        (abandoned, reloads)
    }
}

fn is_opening(e: &TimedInput) -> bool {
    e.at == 0 && matches!(&e.input, Input::Files { changed, .. } if changed.is_empty())
}

/// The keyboard direction the recording leaves.
fn keyboard_at(rec: &Recording) -> IVec2 {
    rec.events
        .iter()
        .rev()
        .find_map(|e| match e.input {
            Input::Keyboard(d) => Some(d),
            _ => None,
        })
        .unwrap_or(IVec2::ZERO)
}

/// Every file the recording read by tick `at`, with what its last read gave.
fn files_at(rec: &Recording, at: u64) -> BTreeMap<PathBuf, FileRead> {
    let mut out = BTreeMap::new();
    for event in rec.events.iter().take_while(|e| e.at <= at) {
        if let Input::Files { reads, .. } = &event.input {
            for (path, read) in reads {
                out.insert(path.clone(), read.clone());
            }
        }
    }
    out
}

/// Applies one input to a session.
fn apply(session: &mut Session, input: &Input) {
    match input {
        Input::Files { changed, .. } => {
            session.apply_changes(changed);
        }
        Input::Keyboard(dir) => session.sim_mut().set_keyboard(*dir),
        Input::Terrain { tile, id } => {
            // A session file may name a terrain the scene no longer has: no paint.
            if (*id as usize) < session.world().terrain().kinds().len() {
                session.world_mut().set_terrain(*tile, *id);
            }
        }
        Input::Place { agent, tile } => {
            let world = session.world_mut();
            if let Some(i) = world.agent_index(agent) {
                let a = &mut world.agents[i];
                a.pos = centre_of(*tile);
                a.route = None;
                a.vel = glam::DVec2::ZERO;
            }
        }
        Input::Goal(goal) => session.world_mut().goal = *goal,
        Input::Resume(agent) => {
            session.resume(agent);
        }
        Input::Tunable { name, value } => {
            session.set_tunable(name, *value);
        }
        Input::SetMemory { agent, path, value } => {
            // As recorded it applied; a hand-edited session file's bad edit changes nothing.
            let _ = session.set_memory(agent, path, value);
        }
    }
}

/// Runs a recording again in a fresh session that reads only the recorded bytes, up to tick
/// `to` (at most the ticks recorded); `on_tick` sees every tick. Inputs applied after `to`
/// ticks are not applied. An error if the recording does not start with its opening read, or
/// if a tick's trace hash differs from the recorded one (the replay went astray).
pub fn replay(
    rec: &Recording,
    to: u64,
    mut on_tick: impl FnMut(&Session, &TickReport),
) -> Result<Session, String> {
    let mut r = Replayer::new(rec)?;
    r.advance_to(to, &mut on_tick)?;
    Ok(r.session)
}

/// A replay that can be moved forward a bit at a time (the window's scrubbing): a fresh
/// session, its strict files and where it is in a copy of the recording.
pub struct Replayer {
    rec: Recording,
    session: Session,
    files: HistoryFiles,
    next: usize,
    tick: u64,
}

impl Replayer {
    /// A replay of `rec` at tick 0.
    pub fn new(rec: &Recording) -> Result<Self, String> {
        let files = HistoryFiles::strict();
        match rec.events.first() {
            Some(e) if is_opening(e) => {
                if let Input::Files { reads, .. } = &e.input {
                    pin_all(&files, reads);
                }
            }
            _ => return Err("the recording does not start with the scene's files".into()),
        }
        let session = Session::open_reading(&rec.scene, rec.seed, true, Rc::new(files.clone()))
            .map_err(|e| e.to_string())?;
        Ok(Replayer {
            rec: rec.clone(),
            session,
            files,
            next: 1,
            tick: 0,
        })
    }

    /// The tick the replayed session stands at.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Whether this replay is of `rec` (the same inputs up to where it stands).
    pub fn follows(&self, rec: &Recording) -> bool {
        self.rec.scene == rec.scene
            && self.rec.seed == rec.seed
            && rec.ticks >= self.tick
            && self.rec.events[..self.next] == rec.events[..self.next.min(rec.events.len())]
    }

    /// Runs on to tick `to` (no further than the recording; never back).
    pub fn advance_to(
        &mut self,
        to: u64,
        mut on_tick: impl FnMut(&Session, &TickReport),
    ) -> Result<(), String> {
        let to = to.min(self.rec.ticks);
        while self.tick < to {
            let t = self.tick;
            while let Some(e) = self.rec.events.get(self.next).filter(|e| e.at == t) {
                if let Input::Files { reads, .. } = &e.input {
                    pin_all(&self.files, reads);
                }
                apply(&mut self.session, &e.input);
                self.next += 1;
            }
            let report = self.session.tick();
            self.tick += 1;
            if let Some(&want) = self.rec.hashes.get(&self.tick) {
                let got = line_hash(&trace::line(self.session.world(), &report.events));
                if got != want {
                    return Err(format!(
                        "the replay differs from the recorded run at tick {}",
                        self.tick
                    ));
                }
            }
            on_tick(&self.session, &report);
        }
        Ok(())
    }
}

fn pin_all(files: &HistoryFiles, reads: &[(PathBuf, FileRead)]) {
    for (path, read) in reads {
        files.pin(path, read.clone());
    }
}

/// Why a headless branch cannot run: a usage error (the exit status 2).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct BranchError(pub String);

/// Why a branch could not be written as a folder (see [`export_branch`]).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run has no headless command: the message says why.
    #[error("no headless command: {0}")]
    NoCommand(&'static str),
    /// A folder could not be made.
    #[error("{}: cannot create: {source}", .path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One `--replace SCRIPT=OTHER`, resolved: the path as the session names it, and the bytes.
pub struct Replacement {
    pub script: PathBuf,
    pub other: Blob,
}

/// Resolves `--replace SCRIPT=OTHER` against the files a session uses, comparing canonical
/// paths: `SCRIPT` must be a script of an agent or a module one requires.
pub fn resolve_replacement(session: &Session, spec: &str) -> Result<Replacement, BranchError> {
    let Some((script, other)) = spec.split_once('=') else {
        return Err(BranchError(format!(
            "--replace {spec:?}: expected SCRIPT=OTHER"
        )));
    };
    let canon = |p: &str, what: &str| {
        std::fs::canonicalize(p).map_err(|e| BranchError(format!("--replace: {what} {p}: {e}")))
    };
    let want = canon(script, "SCRIPT")?;
    let other_path = canon(other, "OTHER")?;
    let scene = session.scene_path().to_path_buf();
    let found = session
        .watched_files()
        .into_iter()
        .filter(|f| *f != scene)
        .find(|f| std::fs::canonicalize(f).is_ok_and(|c| c == want));
    let Some(script) = found else {
        return Err(BranchError(format!(
            "--replace: {script}: no agent's script and no required module of {} is this file",
            scene.display()
        )));
    };
    let bytes = Disk
        .read(&other_path, FileKind::Script)
        .map_err(|e| BranchError(format!("--replace: OTHER {other}: {e}")))?;
    Ok(Replacement {
        script,
        other: Blob::from(bytes),
    })
}

/// A headless run that branches: `ticks` ticks of `history`, with every replacement applied
/// (together, as one save of all of them) after `at` ticks. `on_tick` sees every tick and
/// says whether the run goes on (`ControlFlow::Break` ends it after that tick).
pub fn branch_run<E>(
    history: &mut History,
    ticks: u64,
    at: u64,
    replacements: &[Replacement],
    mut on_tick: impl FnMut(&mut Session, &TickReport) -> Result<ControlFlow<()>, E>,
    mut on_reload: impl FnMut(&Reload),
) -> Result<(), E> {
    for t in 0..ticks {
        if t == at {
            for r in replacements {
                history.files.pin(&r.script, Ok(r.other.clone()));
            }
            let files: Vec<PathBuf> = replacements.iter().map(|r| r.script.clone()).collect();
            for reload in history.apply_changes(&files) {
                on_reload(&reload);
            }
        }
        let report = history.tick();
        if on_tick(history.session_mut(), &report)?.is_break() {
            break;
        }
    }
    Ok(())
}

/// Writes a branch as a folder a bug report can carry: the scene and every file as the run
/// first read it, and under `branch/` the versions applied at the branch tick; returns the
/// headless command that runs it (its paths quoted for a shell where they need it). Only a
/// recording whose inputs are file loads at the start and at one later tick (no window edits)
/// can be written so.
pub fn export_branch(rec: &Recording, dir: &Path) -> Result<String, ExportError> {
    let mut at = None;
    for e in rec.events.iter().skip(1) {
        match &e.input {
            Input::Files { .. } if at.is_none_or(|t| t == e.at) => at = Some(e.at),
            Input::Files { .. } => {
                return Err(ExportError::NoCommand(
                    "files were reloaded at more than one tick",
                ))
            }
            Input::Keyboard(d) if *d == IVec2::ZERO => {}
            _ => {
                return Err(ExportError::NoCommand(
                    "the run has window edits (paint, drag, goal, keys, resume)",
                ))
            }
        }
    }
    let start = files_at(rec, 0);
    let root = common_folder(start.keys().chain(std::iter::once(&rec.scene)));
    let rel = |p: &Path| p.strip_prefix(&root).unwrap_or(p).to_path_buf();
    let write = |to: PathBuf, read: &FileRead| -> Result<(), ExportError> {
        if let Ok(b) = read {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|source| ExportError::Create {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
            std::fs::write(&to, b).map_err(|source| ExportError::Write { path: to, source })?;
        }
        Ok(())
    };
    for (path, read) in &start {
        write(dir.join(rel(path)), read)?;
    }
    let mut command = format!(
        "agentbox headless {} --ticks {}",
        shell_word(&dir.join(rel(&rec.scene)).display().to_string()),
        rec.ticks
    );
    if let Some(seed) = rec.seed {
        command.push_str(&format!(" --seed {seed}"));
    }
    if let Some(t) = at {
        let then = files_at(rec, t);
        let mut replaced = 0;
        for (path, read) in &then {
            if start.get(path) == Some(read) {
                continue;
            }
            if *path == rec.scene {
                return Err(ExportError::NoCommand(
                    "the scene file changed at the branch",
                ));
            }
            let other = dir.join("branch").join(rel(path));
            write(other.clone(), read)?;
            command.push_str(&format!(
                " --replace {}",
                shell_word(&format!(
                    "{}={}",
                    dir.join(rel(path)).display(),
                    other.display()
                ))
            ));
            replaced += 1;
        }
        if replaced > 0 {
            command = command.replacen(" --replace", &format!(" --branch-at {t} --replace"), 1);
        }
    }
    Ok(command)
}

/// The deepest folder holding every path.
fn common_folder<'a>(paths: impl Iterator<Item = &'a PathBuf>) -> PathBuf {
    let mut common: Option<Vec<std::path::Component>> = None;
    for p in paths {
        let parts: Vec<_> = p.parent().unwrap_or(Path::new("")).components().collect();
        common = Some(match common {
            None => parts,
            Some(c) => c
                .into_iter()
                .zip(parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default().iter().collect()
}

/// Replays parked at every `every`th tick, so a jump replays at most `every` ticks instead of
/// all of them. A parked replay is used up by a jump (Lua state cannot be copied); the
/// window rebuilds missing ones a few ticks at a time ([`Parked::work`]), each from tick 0, so
/// they are as exact as any replay.
pub struct Parked {
    every: u64,
    slots: BTreeMap<u64, Replayer>,
    builder: Option<Replayer>,
}

impl Parked {
    /// Parks a replay at every `every` ticks (at least 1).
    pub fn new(every: u64) -> Self {
        Parked {
            every: every.max(1),
            slots: BTreeMap::new(),
            builder: None,
        }
    }

    /// The ticks with a parked replay.
    pub fn ticks(&self) -> Vec<u64> {
        self.slots.keys().copied().collect()
    }

    /// Forgets replays that are not of `rec` (after a branch or a reset).
    pub fn keep_following(&mut self, rec: &Recording) {
        self.slots.retain(|_, r| r.follows(rec));
        if self.builder.as_ref().is_some_and(|b| !b.follows(rec)) {
            self.builder = None;
        }
    }

    /// Runs up to `budget` ticks of replay towards the lowest missing slot of `rec`.
    pub fn work(&mut self, rec: &Recording, budget: u64) -> Result<(), String> {
        self.keep_following(rec);
        let missing = (1..=rec.ticks / self.every)
            .map(|k| k * self.every)
            .find(|t| !self.slots.contains_key(t));
        let Some(target) = missing else {
            return Ok(());
        };
        let mut builder = match self.builder.take() {
            Some(b) if b.tick() <= target => b,
            _ => Replayer::new(rec)?,
        };
        // The recording grows and may have branched after where the replay stands.
        builder.rec = rec.clone();
        let to = target.min(builder.tick() + budget);
        builder.advance_to(to, |_, _| {})?;
        if builder.tick() == target {
            self.slots.insert(target, builder);
        } else {
            self.builder = Some(builder);
        }
        Ok(())
    }

    /// A replay of `rec` at tick `to`: the parked one nearest below (used up), else from 0.
    pub fn take(&mut self, rec: &Recording, to: u64) -> Result<Replayer, String> {
        self.keep_following(rec);
        let from = self.slots.range(..=to).next_back().map(|(&t, _)| t);
        let mut r = match from.and_then(|t| self.slots.remove(&t)) {
            Some(r) => r,
            None => Replayer::new(rec)?,
        };
        r.rec = rec.clone();
        r.advance_to(to, |_, _| {})?;
        Ok(r)
    }
}
