//! The parallel runner behind `agentbox test`: runs scenes' expectations headless, one
//! recorded [`History`] per scene, on worker threads (each thread makes its own Lua state:
//! they cannot move between threads). Results come back to the calling thread in the order
//! the scenes were given, whatever order they finish in. Each failing check leaves a session
//! file of the run up to the tick it failed at, which opens there in the window with the
//! agent it is about selected.
//!
//! It lives above `expect` (which is pure logic and must not reach a session) and beside
//! `cli`; it never draws or watches files.

use crate::history::{self, Focus, History};
use agentbox_core::expect::{Expectations, Failure};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// What running one scene's expectations gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every expectation held over this many ticks.
    Passed { ticks: u64 },
    /// Why the scene failed (a scene error, a broken expectation), one a line.
    Failed(Vec<Failed>),
    /// The scene has no `expect:` section.
    Skipped,
}

/// One reason a scene failed, and the session file that opens where it failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failed {
    pub reason: String,
    /// The session file written for it (a broken expectation), or why none could be.
    pub session: Option<Result<PathBuf, String>>,
}

/// Where failing checks' session files go: beside their scene (`chase.failed-1.session.json`,
/// listed by the window's Ctrl+O), in a folder, or nowhere.
#[derive(Clone, Debug, PartialEq)]
pub enum SessionsTo {
    BesideScene,
    Folder(PathBuf),
    Nowhere,
}

/// The session file of a scene's `n`th failing check (from 1) (`chase.failed-2.session.json`).
pub fn failure_session_path(scene: &Path, n: usize, to: &SessionsTo) -> Option<PathBuf> {
    let stem = scene.file_stem()?.to_string_lossy();
    let name = format!("{stem}.failed-{n}.session.json");
    match to {
        SessionsTo::BesideScene => Some(scene.with_file_name(name)),
        SessionsTo::Folder(dir) => Some(dir.join(name)),
        SessionsTo::Nowhere => None,
    }
}

/// Removes the failure sessions an earlier run left for `scene` (only names this runner
/// writes), so the window's list shows this run's.
fn remove_old_sessions(scene: &Path, to: &SessionsTo) {
    for n in 1.. {
        let Some(file) = failure_session_path(scene, n, to) else {
            return;
        };
        if std::fs::remove_file(&file).is_err() {
            return;
        }
    }
}

/// Runs one scene's expectations (writing no session files).
pub fn run_scene(path: &Path) -> Outcome {
    run_scene_saving(path, &SessionsTo::Nowhere)
}

/// Runs one scene's expectations; each failing check's run, cut at the tick it failed at,
/// goes to a session file (`to`) that opens there with its agent selected.
pub fn run_scene_saving(path: &Path, to: &SessionsTo) -> Outcome {
    run_scene_seeded(path, None, to)
}

/// Like [`run_scene_saving`], with the scene's seed overridden (`agentbox hunt`'s scenarios).
pub fn run_scene_seeded(path: &Path, seed: Option<u64>, to: &SessionsTo) -> Outcome {
    let plain = |text: String| {
        text.lines()
            .map(|reason| Failed {
                reason: reason.to_string(),
                session: None,
            })
            .collect()
    };
    let mut history = match History::open_with(path, seed, true) {
        Ok(h) => h,
        Err(e) => return Outcome::Failed(plain(e.to_string())),
    };
    let Some(spec) = history.session().scene().expect.clone() else {
        return Outcome::Skipped;
    };
    let errors = history.session().current_errors();
    let (world, host) = history.session_mut().world_and_host();
    let mut expectations = Expectations::new(&spec, host);
    expectations.script_errors(errors);
    expectations.observe(world, None, host);
    let ticks = expectations.ticks();
    for _ in 0..ticks {
        let report = history.tick();
        let (world, host) = history.session_mut().world_and_host();
        expectations.observe(world, Some(&report), host);
    }
    let (world, host) = history.session_mut().world_and_host();
    let failures = expectations.failures(world, host);
    remove_old_sessions(path, to);
    if failures.is_empty() {
        return Outcome::Passed { ticks };
    }
    let failed = failures
        .into_iter()
        .enumerate()
        .map(|(i, failure)| {
            let session = failure_session_path(path, i + 1, to)
                .map(|file| save_failure(history.recording(), &failure, &file).map(|()| file));
            Failed {
                reason: failure.reason,
                session,
            }
        })
        .collect();
    Outcome::Failed(failed)
}

/// Writes the run up to the tick `failure` names, opening there with its agent selected.
fn save_failure(rec: &history::Recording, failure: &Failure, file: &Path) -> Result<(), String> {
    let focus = Focus {
        tick: failure.tick,
        agent: failure.agent.clone(),
        why: failure.reason.clone(),
    };
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    history::save_recording(&rec.cut_at(failure.tick, Some(focus)), file).map_err(|e| e.to_string())
}

/// Runs every scene on up to `jobs` threads (failing checks' sessions going `to`); `done` is
/// called on this thread for each scene, in the order given, as soon as it and every scene
/// before it have finished.
pub fn run_all(
    files: &[PathBuf],
    jobs: usize,
    to: &SessionsTo,
    mut done: impl FnMut(&Path, &Outcome),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    let jobs = jobs.clamp(1, files.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let outcome = std::panic::catch_unwind(|| run_scene_saving(path, to))
                    .unwrap_or_else(|_| {
                        Outcome::Failed(vec![Failed {
                            reason: "internal error: the run panicked".into(),
                            session: None,
                        }])
                    });
                if tx.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut waiting: Vec<Option<Outcome>> = vec![None; files.len()];
        let mut released = 0;
        for (i, outcome) in rx {
            waiting[i] = Some(outcome);
            while let Some(Some(o)) = waiting.get(released) {
                done(&files[released], o);
                released += 1;
            }
        }
    });
}
