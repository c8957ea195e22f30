//! `headless`: run a scene without a window and write its trace (JSON Lines), paced to the
//! wall clock with `--realtime`, or branched from a recorded session.

use super::{Stop, SCRIPT_ERROR_EXIT};
use agentbox_core::sim::trace;
use agentbox_session::session::Session;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A failed trace write: a closed pipe is a quiet end; any other error is reported.
pub(super) fn trace_failed(e: io::Error) -> Stop {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Stop::ClosedPipe;
    }
    Stop::Failed(format!("error: cannot write the trace: {e}"))
}

/// What `headless` was asked to run.
pub(super) struct Run<'a> {
    pub scene: &'a Path,
    pub ticks: u64,
    pub seed: Option<u64>,
    /// Where the trace goes (`-` for stdout) and whether it carries each agent's memory.
    pub trace: Option<(&'a str, bool)>,
    pub realtime: bool,
    /// `--branch-at` and its `--replace` files.
    pub branch: Option<(u64, &'a [String])>,
    /// `--monitors FILE.csv`.
    pub monitors: Option<&'a Path>,
}

/// How a headless run that went to its end ended.
pub(super) enum Ran {
    Clean,
    /// A script failed to load or raised an error (or was stopped by a limit).
    ScriptsFailed,
}

/// Ticks `session` `ticks` times, writing a trace line (to `out`) and a monitors row (to
/// `monitors_to`) after each: whether a script failed on the way, or why the run stopped.
fn step_and_write(
    session: &mut Session,
    ticks: u64,
    mut out: Option<&mut Box<dyn Write>>,
    memory: bool,
    monitors_to: Option<&Path>,
) -> Result<bool, Stop> {
    let mut watch = match monitors_to.map(|to| MonitorsCsv::create(to, session)) {
        None => None,
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => return Err(Stop::Failed(e)),
    };
    let mut failed = false;
    for _ in 0..ticks {
        if watch.is_some() {
            session.host_mut().collect_plots(true);
        }
        let report = session.tick();
        failed |= !report.new_errors.is_empty();
        if let Some(w) = out.as_mut() {
            if let Err(e) = writeln!(w, "{}", trace_line(session, &report.events, memory)) {
                return Err(trace_failed(e));
            }
        }
        if let Some(watch) = watch.as_mut() {
            watch.write_tick(session).map_err(Stop::Failed)?;
        }
    }
    if let Some(watch) = watch {
        watch.finish().map_err(Stop::Failed)?;
    }
    Ok(failed)
}

/// The exit code of a headless run: a script error is exit 3 unless `--allow-errors`.
pub(super) fn exit_code(ran: Ran, allow_errors: bool) -> ExitCode {
    match ran {
        Ran::ScriptsFailed if !allow_errors => {
            eprintln!(
                "headless: a script failed (see above): exit {SCRIPT_ERROR_EXIT}; --allow-errors exits 0"
            );
            ExitCode::from(SCRIPT_ERROR_EXIT)
        }
        Ran::ScriptsFailed | Ran::Clean => ExitCode::SUCCESS,
    }
}

/// Runs a scene headless and writes its trace.
pub(super) fn headless(run: Run) -> Result<Ran, Stop> {
    let Run {
        scene: path,
        ticks,
        seed,
        trace,
        realtime,
        branch,
        monitors: monitors_to,
    } = run;
    let trace_to = trace.map(|(to, _)| to);
    let memory = trace.is_some_and(|(_, m)| m);
    if let Some((at, replace)) = branch {
        return headless_branch(path, ticks, seed, trace_to, memory, at, replace);
    }
    let mut session = Session::open(path, seed)?;
    let mut failed = !session.current_errors().is_empty();
    let mut out = trace_writer(trace_to)?;
    if realtime {
        let written = agentbox_session::realtime::run(
            &mut session,
            ticks,
            |message| eprintln!("{message}"),
            |session, report| {
                failed |= !report.new_errors.is_empty();
                match out.as_mut() {
                    Some(w) => writeln!(w, "{}", trace_line(session, &report.events, memory))
                        .and_then(|()| w.flush()),
                    None => Ok(()),
                }
            },
        );
        written.map_err(trace_failed)?;
    }
    let ticks = if realtime { 0 } else { ticks };
    failed |= step_and_write(&mut session, ticks, out.as_mut(), memory, monitors_to)?;
    if let Some(mut w) = out {
        w.flush().map_err(trace_failed)?;
    }
    failed |= !session.current_errors().is_empty();
    Ok(if failed {
        Ran::ScriptsFailed
    } else {
        Ran::Clean
    })
}

/// `headless --monitors FILE.csv`: the scene's monitors and the scripts' plots after each tick,
/// one `tick,name,value` line per point (the points `compare --monitors` writes for a run).
struct MonitorsCsv {
    monitors: agentbox_session::experiment::monitors::Monitors,
    out: io::BufWriter<std::fs::File>,
    path: PathBuf,
}

impl MonitorsCsv {
    fn create(path: &Path, session: &Session) -> Result<MonitorsCsv, String> {
        let scene = session.scene();
        let monitors = agentbox_session::experiment::monitors::Monitors::new(
            &scene.monitors,
            session.world().seed,
            scene.budget.instructions,
            agentbox_lua::Echo::Stderr,
        )?;
        let cannot = |e: io::Error| format!("{}: error: cannot write: {e}", path.display());
        let mut out = io::BufWriter::new(std::fs::File::create(path).map_err(cannot)?);
        writeln!(out, "tick,name,value").map_err(cannot)?;
        Ok(MonitorsCsv {
            monitors,
            out,
            path: path.to_path_buf(),
        })
    }

    fn write_tick(&mut self, session: &mut Session) -> Result<(), String> {
        let (world, host) = session.world_and_host();
        let plots = host.take_plots();
        let due = self.monitors.due(world.tick);
        for p in self.monitors.observe(world, plots, due) {
            writeln!(
                self.out,
                "{},{},{}",
                p.tick,
                agentbox_session::experiment::monitors::csv_field(&p.name),
                p.value
            )
            .map_err(|e| format!("{}: error: cannot write: {e}", self.path.display()))?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), String> {
        self.out
            .flush()
            .map_err(|e| format!("{}: error: cannot write: {e}", self.path.display()))
    }
}

/// One trace line for the session's world, with each agent's memory when `memory` is set.
pub(super) fn trace_line(
    session: &Session,
    events: &[agentbox_core::sim::Event],
    memory: bool,
) -> String {
    if memory {
        trace::line_with_memory(session.world(), events, &session.memories_json())
    } else {
        trace::line(session.world(), events)
    }
}

/// Where the trace goes: nowhere, stdout (`-`) or a file (an unwritable one is reported).
pub(super) fn trace_writer(trace_to: Option<&str>) -> Result<Option<Box<dyn Write>>, Stop> {
    Ok(match trace_to {
        None => None,
        Some("-") => Some(Box::new(io::BufWriter::new(io::stdout().lock()))),
        Some(file) => match std::fs::File::create(file) {
            Ok(f) => Some(Box::new(io::BufWriter::new(f))),
            Err(e) => {
                return Err(Stop::Failed(format!(
                    "{file}: error: cannot write the trace: {e}"
                )))
            }
        },
    })
}

/// `headless --branch-at T --replace SCRIPT=OTHER...`: the plain run up to T, then OTHER
/// stands in for SCRIPT (see `history::branch_run`).
pub(super) fn headless_branch(
    path: &Path,
    ticks: u64,
    seed: Option<u64>,
    trace_to: Option<&str>,
    memory: bool,
    at: u64,
    replace: &[String],
) -> Result<Ran, Stop> {
    use agentbox_session::history::{self, History};
    let mut hist = History::open(path, seed)?;
    let mut replacements = Vec::new();
    for spec in replace {
        replacements.push(history::resolve_replacement(hist.session(), spec)?);
    }
    if at > ticks {
        return Err(Stop::Usage(format!(
            "error: --branch-at {at} is after the last tick ({ticks})"
        )));
    }
    let mut failed = !hist.session().current_errors().is_empty();
    let mut out = trace_writer(trace_to)?;
    let ran = history::branch_run(
        &mut hist,
        ticks,
        at,
        &replacements,
        |session, report| {
            failed |= !report.new_errors.is_empty();
            match out.as_mut() {
                Some(w) => writeln!(w, "{}", trace_line(session, &report.events, memory)),
                None => Ok(()),
            }
        },
        |reload| eprintln!("tick {at}: {reload}"),
    );
    ran.and_then(|()| out.as_mut().map_or(Ok(()), |w| w.flush()))
        .map_err(trace_failed)?;
    failed |= !hist.session().current_errors().is_empty();
    Ok(if failed {
        Ran::ScriptsFailed
    } else {
        Ran::Clean
    })
}
