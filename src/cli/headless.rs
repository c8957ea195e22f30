//! `headless`: run a scene without a window and write its trace (JSON Lines), paced to the
//! wall clock with `--realtime`, or branched from a recorded session; with `--stop-when`,
//! ending after the first tick where a Lua expression of the world holds.

use super::{Stop, NEVER_HELD_EXIT, SCRIPT_ERROR_EXIT};
use agentbox_core::sim::trace;
use agentbox_session::ask::{Question, StopWhen};
use agentbox_session::session::Session;
use std::io::{self, Write};
use std::ops::ControlFlow;
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
    /// `--stop-when EXPR`.
    pub stop_when: Option<&'a str>,
}

/// How a headless run that went to its end ended.
pub(super) struct Ran {
    /// A script failed to load or raised an error (or was stopped by a limit).
    scripts_failed: bool,
    /// With `--stop-when`: the expression and whether (after which tick) it held.
    stop_when: Option<(String, StopWhen)>,
}

/// How a name for `--stop-when` messages reads (`--stop-when:1: ...`).
const STOP_WHEN: &str = "--stop-when";

/// Compiles `--stop-when`'s expression in `session`'s host: a syntax error is a usage error.
fn compile_stop_when(session: &mut Session, text: Option<&str>) -> Result<Option<Question>, Stop> {
    text.map(|text| {
        Question::compile(session, STOP_WHEN, text)
            .map_err(|e| Stop::Usage(format!("error: {STOP_WHEN} {text:?}: {e}")))
    })
    .transpose()
}

/// Asks `question` after a tick: `Break` when it holds; an error names the tick (exit 2).
fn stop_here(question: Option<&Question>, session: &mut Session) -> Result<ControlFlow<u64>, Stop> {
    let Some(question) = question else {
        return Ok(ControlFlow::Continue(()));
    };
    let tick = session.world().tick;
    match question.ask(session) {
        Ok(answer) if answer.holds => Ok(ControlFlow::Break(tick)),
        Ok(_) => Ok(ControlFlow::Continue(())),
        Err(e) => Err(Stop::Usage(format!(
            "error: {STOP_WHEN} {:?} failed at tick {tick}: {e}",
            question.text()
        ))),
    }
}

/// What `--stop-when` gave over a run that stopped at `held` (or ran to its end).
fn stop_when_result(question: Option<Question>, held: Option<u64>) -> Option<(String, StopWhen)> {
    question.map(|q| {
        let result = held.map_or(StopWhen::NeverHeld, StopWhen::Held);
        (q.text().to_string(), result)
    })
}

/// Ticks `session` `ticks` times, writing a trace line (to `out`) and a monitors row (to
/// `monitors_to`) after each, and ending early after a tick where `stop_when` holds: whether a
/// script failed on the way and the tick it held at, or why the run stopped.
fn step_and_write(
    session: &mut Session,
    ticks: u64,
    mut out: Option<&mut Box<dyn Write>>,
    memory: bool,
    monitors_to: Option<&Path>,
    stop_when: Option<&Question>,
) -> Result<(bool, Option<u64>), Stop> {
    let mut watch = match monitors_to.map(|to| MonitorsCsv::create(to, session)) {
        None => None,
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => return Err(Stop::Failed(e)),
    };
    let mut failed = false;
    let mut held = None;
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
        if let ControlFlow::Break(tick) = stop_here(stop_when, session)? {
            held = Some(tick);
            break;
        }
    }
    if let Some(watch) = watch {
        watch.finish().map_err(Stop::Failed)?;
    }
    Ok((failed, held))
}

/// The exit code of a headless run: a script error is exit 3 unless `--allow-errors`; then a
/// `--stop-when` that never held is exit 5. Where `--stop-when` held is said first.
pub(super) fn exit_code(ran: Ran, allow_errors: bool) -> ExitCode {
    if let Some((text, StopWhen::Held(tick))) = &ran.stop_when {
        eprintln!("stopped at tick {tick}: {text}");
    }
    if ran.scripts_failed && !allow_errors {
        eprintln!(
            "headless: a script failed (see above): exit {SCRIPT_ERROR_EXIT}; --allow-errors exits 0"
        );
        return ExitCode::from(SCRIPT_ERROR_EXIT);
    }
    if let Some((text, StopWhen::NeverHeld)) = &ran.stop_when {
        eprintln!("headless: {STOP_WHEN} never held: {text} (exit {NEVER_HELD_EXIT})");
        return ExitCode::from(NEVER_HELD_EXIT);
    }
    ExitCode::SUCCESS
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
        stop_when,
    } = run;
    let trace_to = trace.map(|(to, _)| to);
    let memory = trace.is_some_and(|(_, m)| m);
    if let Some((at, replace)) = branch {
        let to = Branch { at, replace };
        return headless_branch(path, ticks, seed, trace_to, memory, to, stop_when);
    }
    let mut session = Session::open(path, seed)?;
    let question = compile_stop_when(&mut session, stop_when)?;
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
    let (stepped_failed, held) = step_and_write(
        &mut session,
        ticks,
        out.as_mut(),
        memory,
        monitors_to,
        question.as_ref(),
    )?;
    if let Some(mut w) = out {
        w.flush().map_err(trace_failed)?;
    }
    failed |= stepped_failed || !session.current_errors().is_empty();
    Ok(Ran {
        scripts_failed: failed,
        stop_when: stop_when_result(question, held),
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

/// `--branch-at T` and its `--replace SCRIPT=OTHER` specs.
pub(super) struct Branch<'a> {
    at: u64,
    replace: &'a [String],
}

/// `headless --branch-at T --replace SCRIPT=OTHER...`: the plain run up to T, then OTHER
/// stands in for SCRIPT (see `history::branch_run`).
fn headless_branch(
    path: &Path,
    ticks: u64,
    seed: Option<u64>,
    trace_to: Option<&str>,
    memory: bool,
    Branch { at, replace }: Branch,
    stop_when: Option<&str>,
) -> Result<Ran, Stop> {
    use agentbox_session::history::{self, History};
    let mut hist = History::open(path, seed)?;
    let question = compile_stop_when(hist.session_mut(), stop_when)?;
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
    let mut held = None;
    history::branch_run(
        &mut hist,
        ticks,
        at,
        &replacements,
        |session, report| {
            failed |= !report.new_errors.is_empty();
            if let Some(w) = out.as_mut() {
                writeln!(w, "{}", trace_line(session, &report.events, memory))
                    .map_err(trace_failed)?;
            }
            let flow = stop_here(question.as_ref(), session)?;
            if let ControlFlow::Break(tick) = flow {
                held = Some(tick);
            }
            Ok::<_, Stop>(flow.map_break(|_| ()))
        },
        |reload| eprintln!("tick {at}: {reload}"),
    )?;
    if let Some(w) = out.as_mut() {
        w.flush().map_err(trace_failed)?;
    }
    failed |= !hist.session().current_errors().is_empty();
    Ok(Ran {
        scripts_failed: failed,
        stop_when: stop_when_result(question, held),
    })
}
