//! `bench`: CPU time per tick of a scene, against a native Rust peer or another scene.

use super::{say, Stop};
use std::io;
use std::path::Path;
use std::process::ExitCode;
pub(super) fn show_figures(what: &str, f: &agentbox_session::bench::Figures) -> io::Result<()> {
    say(format_args!(
        "{what}: {} agents, {} ticks: {:.3} ms per tick ({:.1} ticks/s; wall {:.3} ms per tick), {:.0} ns per decision ({} decisions, {} failed)\n",
        f.agents,
        f.ticks,
        f.ms_per_tick(),
        f.ticks_per_second(),
        f.wall.as_secs_f64() * 1e3 / f.ticks.max(1) as f64,
        f.ns_per_decision(),
        f.decisions,
        f.failed
    ))
}

/// The limits the Lua run ran under, on a line of its own.
fn show_budget(f: &agentbox_session::bench::Figures) -> io::Result<()> {
    match f.budget_line() {
        Some(line) => say(format_args!("{line}\n")),
        None => Ok(()),
    }
}

/// `bench SCENE --against OTHER [--goal RATIO]`.
pub(super) fn bench_against(
    path: &Path,
    other: &Path,
    ticks: u64,
    warmup: u64,
    goal: Option<f64>,
) -> Result<ExitCode, Stop> {
    let pair = agentbox_session::bench::against(path, other, warmup, ticks)?;
    show_figures(&path.display().to_string(), &pair.first)?;
    show_figures(&other.display().to_string(), &pair.second)?;
    for (p, f) in [(path, &pair.first), (other, &pair.second)] {
        if let Some(line) = f.budget_line() {
            say(format_args!("{}: {line}\n", p.display()))?;
        }
    }
    let mut judged = true;
    for (p, f) in [(path, &pair.first), (other, &pair.second)] {
        if let Some(warning) = f.failure_warning(&p.display().to_string()) {
            say(format_args!("{warning}\n"))?;
            eprintln!("{warning}");
            judged = false;
        }
    }
    let (lo, hi) = pair
        .ratios
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
    let median = pair.median();
    say(format_args!(
        "{} / {}: {median:.2}x per tick, median of {} interleaved rounds of {} ticks (min {lo:.2}x, max {hi:.2}x; all ticks together {:.2}x; {})\n",
        path.display(),
        other.display(),
        pair.ratios.len(),
        agentbox_session::bench::BLOCK,
        pair.first.ms_per_tick() / pair.second.ms_per_tick(),
        agentbox_session::bench::CLOCK
    ))?;
    if let Some(goal) = goal {
        say(format_args!("{}\n", pair.verdict(goal, "the other scene")))?;
    }
    // Failed decisions make the comparison meaningless: a failure status, whatever the goal.
    Ok(if judged {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub(super) fn bench(
    path: &Path,
    ticks: u64,
    warmup: u64,
    native: bool,
    goal: Option<f64>,
) -> Result<ExitCode, Stop> {
    if !native {
        let lua = agentbox_session::bench::lua(path, warmup, ticks)?;
        show_figures("lua", &lua)?;
        show_budget(&lua)?;
        if let Some(warning) = lua.failure_warning("lua") {
            say(format_args!("{warning}\n"))?;
            eprintln!("{warning}");
            return Ok(ExitCode::FAILURE);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let pair = agentbox_session::bench::side_by_side(path, warmup, ticks)?;
    let (lua, rust) = (&pair.first, &pair.second);
    show_figures("lua", lua)?;
    show_figures("rust", rust)?;
    show_budget(lua)?;
    if let Some(warning) = lua.failure_warning("lua") {
        say(format_args!("{warning}\n"))?;
        eprintln!("{warning}");
        return Ok(ExitCode::FAILURE);
    }
    say(format_args!(
        "lua/rust: {:.2}x per tick, {:.2}x per decision (taking turns of {} ticks), median of the rounds {:.2}x\n",
        lua.ms_per_tick() / rust.ms_per_tick(),
        lua.ns_per_decision() / rust.ns_per_decision(),
        agentbox_session::bench::BLOCK,
        pair.median()
    ))?;
    if let Some(goal) = goal {
        say(format_args!("{}\n", pair.verdict(goal, "the Rust peer")))?;
    }
    Ok(ExitCode::SUCCESS)
}
