//! Real-time pacing for `agentbox headless SCENE --realtime`: runs a [`Session`] at the scene's
//! tick rate on the wall clock and applies file changes exactly as the window does (through
//! [`Session::sync`]), so hot reload can be driven and tested without a display.
//!
//! Between ticks it sleeps on the file watcher rather than on a timer, so a save is applied as
//! soon as its event arrives and the new code runs from the very next tick. It owns the
//! clock; it changes the world only through the session.

use crate::session::Session;
use crate::watch::FileWatcher;
use agentbox_core::sim::TickReport;
use std::time::{Duration, Instant};

/// A stall longer than this (a slow tick, a suspended process) is not caught up on.
const MAX_LAG: Duration = Duration::from_millis(250);

/// Runs `ticks` ticks paced to the scene's tick rate, reloading changed files before each
/// tick and as soon as they change. Reload events and errors go to `report`; `on_tick` sees
/// every tick (to write the trace) and may stop the run with an error.
pub fn run<E>(
    session: &mut Session,
    ticks: u64,
    mut report: impl FnMut(String),
    mut on_tick: impl FnMut(&Session, &TickReport) -> Result<(), E>,
) -> Result<(), E> {
    let mut watcher = FileWatcher::new();
    watcher.watch(&session.watched_files());
    let mut next = Instant::now();
    for _ in 0..ticks {
        loop {
            for reload in session.sync(&mut watcher) {
                report(reload.to_string());
            }
            let now = Instant::now();
            if now >= next {
                if now - next > MAX_LAG {
                    next = now;
                }
                break;
            }
            watcher.wait(next - now);
        }
        let tick = session.tick();
        on_tick(session, &tick)?;
        next += Duration::from_secs_f64(session.world().dt());
    }
    Ok(())
}
