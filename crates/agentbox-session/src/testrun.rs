//! The parallel runner behind `agentbox test`: runs scenes' expectations headless, one
//! [`Session`] per scene, on worker threads (each thread makes its own Lua state: they cannot
//! move between threads). Results come back to the calling thread in the order the scenes
//! were given, whatever order they finish in.
//!
//! It lives above `expect` (which is pure logic and must not reach a session) and beside
//! `cli`; it never draws or watches files.

use crate::session::Session;
use agentbox_core::expect::Expectations;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// What running one scene's expectations gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every expectation held over this many ticks.
    Passed { ticks: u64 },
    /// Why the scene failed (a scene error, a broken expectation), one reason a line.
    Failed(Vec<String>),
    /// The scene has no `expect:` section.
    Skipped,
}

/// Runs one scene's expectations.
pub fn run_scene(path: &Path) -> Outcome {
    let mut session = match Session::open_with(path, None, true) {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(e.to_string().lines().map(str::to_string).collect()),
    };
    let Some(spec) = session.scene().expect.clone() else {
        return Outcome::Skipped;
    };
    let errors = session.current_errors();
    let (world, host) = session.world_and_host();
    let mut expectations = Expectations::new(&spec, host);
    expectations.script_errors(errors);
    expectations.observe(world, None, host);
    let ticks = expectations.ticks();
    for _ in 0..ticks {
        let report = session.tick();
        let (world, host) = session.world_and_host();
        expectations.observe(world, Some(&report), host);
    }
    let (world, host) = session.world_and_host();
    let reasons = expectations.finish(world, host);
    if reasons.is_empty() {
        Outcome::Passed { ticks }
    } else {
        Outcome::Failed(reasons)
    }
}

/// Runs every scene on up to `jobs` threads; `done` is called on this thread for each scene,
/// in the order given, as soon as it and every scene before it have finished.
pub fn run_all(files: &[PathBuf], jobs: usize, mut done: impl FnMut(&Path, &Outcome)) {
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
                let outcome = std::panic::catch_unwind(|| run_scene(path)).unwrap_or_else(|_| {
                    Outcome::Failed(vec!["internal error: the run panicked".into()])
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
