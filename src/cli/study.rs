//! `compare`, `sweep` and `merge`: run a study over seeds and variants, or join its shards.

use super::{say, Stop, StudyArgs, INCOMPLETE_EXIT};
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `compare` and `sweep`: run the study, print what stops nothing, the summary (to standard
/// output with `--out`, else to standard error, after the runs), and write the report.
pub(super) fn study(
    scene: PathBuf,
    variants: Vec<String>,
    params: Vec<String>,
    args: StudyArgs,
) -> Result<ExitCode, Stop> {
    use std::io::IsTerminal;
    let StudyArgs {
        seeds,
        ticks,
        jobs,
        out,
        shard,
        shards,
        report,
        monitors,
        prints,
        sessions,
        worst,
        open,
    } = args;
    use agentbox_session::experiment::sessions::{parse_worst, Pick, SessionsSpec};
    let pick = match &worst {
        Some(w) => parse_worst(w).map_err(Stop::Usage)?,
        None => Pick::Failed,
    };
    let open_in = open.then(|| sessions.clone().unwrap_or_else(std::env::temp_dir));
    let sessions = sessions
        .filter(|_| !open)
        .map(|dir| SessionsSpec { dir, pick });
    let options = agentbox_session::experiment::CompareOptions {
        scene,
        variants,
        seeds,
        ticks,
        jobs,
        out,
        shard,
        shards,
        progress: io::stderr().is_terminal(),
        params,
        monitors,
        prints,
        sessions,
    };
    if let Some(dir) = open_in {
        return open_run(&options, &dir);
    }
    let summary_to_stdout = options.out.is_some();
    let done = agentbox_session::experiment::compare(&options, |k| std::env::var(k).ok())?;
    for e in done.warnings.iter().chain(&done.failed) {
        eprintln!("{e}");
    }
    if options.sessions.is_some() && done.sessions.is_empty() {
        eprintln!(
            "sessions: no run failed an expectation (--worst N:MEASURE picks runs by a measure)"
        );
    }
    say_sessions(&options.scene, &done.sessions);
    if let Some(path) = &report {
        agentbox_session::experiment::report::write(path, &done.header, &done.runs, &done.summary)?;
    }
    let text = format!(
        "{} runs made, {} already recorded\n{}",
        done.ran,
        done.skipped,
        done.summary.text()
    );
    if summary_to_stdout {
        say(format_args!("{text}"))?;
    } else {
        eprint!("{text}");
    }
    Ok(if done.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(INCOMPLETE_EXIT)
    })
}

/// `--open`: the study's one run made again with a recorded history, its session written into
/// `dir`, then opened in the window.
fn open_run(
    options: &agentbox_session::experiment::CompareOptions,
    dir: &Path,
) -> Result<ExitCode, Stop> {
    let file = agentbox_session::experiment::open_run(options, dir, |k| std::env::var(k).ok())?;
    eprintln!(
        "wrote {}; it opens again with: agentbox run {} --session {}",
        file.display(),
        super::check::shell_word(&options.scene),
        super::check::shell_word(&file)
    );
    let window = agentbox_window::WindowOptions {
        session: Some(file),
        ..Default::default()
    };
    agentbox_window::run_window(&options.scene, None, window)?;
    Ok(ExitCode::SUCCESS)
}

/// What `--sessions` wrote: a line per run with the command that opens it (on stderr, beside
/// the summary).
fn say_sessions(scene: &Path, written: &[agentbox_session::experiment::sessions::Written]) {
    if written.is_empty() {
        return;
    }
    eprintln!("sessions of {} runs:", written.len());
    for agentbox_session::experiment::sessions::Written {
        variant,
        seed,
        file,
    } in written
    {
        match file {
            Ok(file) => eprintln!(
                "  {variant} seed {seed}: agentbox run {} --session {}",
                super::check::shell_word(scene),
                super::check::shell_word(file)
            ),
            Err(e) => eprintln!("  {variant} seed {seed}: no session: {e}"),
        }
    }
}

/// `merge`: join shard files into one record (and a report), and say whether any run is
/// missing (exit 4).
pub(super) fn merge(
    files: &[PathBuf],
    out: Option<&Path>,
    report: Option<&Path>,
) -> Result<ExitCode, Stop> {
    let merged = agentbox_session::experiment::merge(files, out)?;
    if let Some(path) = report {
        agentbox_session::experiment::report::write(
            path,
            &merged.header,
            &merged.runs,
            &merged.summary,
        )?;
    }
    say(format_args!("{}", merged.summary.text()))?;
    let missing = merged
        .header
        .total_runs()
        .saturating_sub(merged.runs.len() as u64);
    if missing == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "merge: {missing} of {} runs are missing",
        merged.header.total_runs()
    );
    Ok(ExitCode::from(INCOMPLETE_EXIT))
}
