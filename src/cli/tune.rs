//! `agentbox tune`: search tunables' values toward an objective, print the best against the
//! scene's own values, write the report, and with `--write` save the best values into the
//! scene as the window's Ctrl+S does (only the `value:` text changes).

use super::{say, Stop, INCOMPLETE_EXIT};
use agentbox_session::experiment::tune::{self, TuneOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// What `agentbox tune` takes.
#[derive(clap::Args)]
pub(super) struct TuneArgs {
    /// The scene file (.yaml) whose tunables to search, e.g. scenes/tunables.yaml.
    #[arg(value_name = "SCENE")]
    scene: PathBuf,
    /// A tunable to search, by its name OWNER.PARAM (as the window's sliders and sweep name
    /// it). Repeat for more.
    #[arg(long = "tunable", required = true, value_name = "NAME")]
    tunables: Vec<String>,
    /// A Lua expression of `summary`, the candidate's summary over the seeds:
    /// summary.reach["hunter->prey"].rate (or .time, mean ticks to reach, a miss counting as
    /// the limit), summary.metrics.gap.mean (or .median, .low, .high), summary.errors.
    #[arg(long, value_name = "EXPR")]
    objective: String,
    /// Higher objective is better.
    #[arg(long, group = "goal", required = true)]
    maximize: bool,
    /// Lower objective is better.
    #[arg(long, group = "goal", required = true)]
    minimize: bool,
    /// Seeds each candidate runs with, both ends included: A..B (or one seed N).
    #[arg(long, value_name = "A..B")]
    seeds: String,
    /// Evaluations in all, the scene's own values (the first) included.
    #[arg(long, default_value_t = 40, value_name = "N")]
    evals: usize,
    /// The search's random seed: the same seed gives the same search.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Ticks per run (default: the scene's expect.ticks, else 300).
    #[arg(long, value_name = "N")]
    ticks: Option<u64>,
    /// Runs at once (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Record every evaluation here (resumable: a record of the same search is replayed and
    /// continued).
    #[arg(long, value_name = "F.jsonl")]
    out: Option<PathBuf>,
    /// Evaluate only shard K of N of each generation (needs --out; the other shards' records
    /// are read beside it). Without it, JOB_COMPLETION_INDEX (with --shards) or a Slurm array.
    #[arg(long, value_name = "K/N", requires = "out")]
    shard: Option<String>,
    /// The completions of a Kubernetes Indexed Job (see --shard).
    #[arg(long, value_name = "N")]
    shards: Option<u64>,
    /// Also write an HTML page: convergence, the best against the scene's own values (paired
    /// by seed), and how each tunable relates to the objective.
    #[arg(long, value_name = "F.html")]
    report: Option<PathBuf>,
    /// Save the best values into the scene (only their `value:` text changes).
    #[arg(long)]
    write: bool,
}

pub(super) fn tune(args: TuneArgs) -> Result<ExitCode, Stop> {
    let options = TuneOptions {
        scene: args.scene,
        tunables: args.tunables,
        objective: args.objective,
        maximize: args.maximize,
        seeds: args.seeds,
        evals: args.evals,
        seed: args.seed,
        ticks: args.ticks,
        jobs: args.jobs,
        out: args.out,
        shard: args.shard,
        shards: args.shards,
    };
    let _ = args.minimize;
    let done = tune::tune(&options, |k| std::env::var(k).ok())?;
    say(format_args!(
        "{} evaluations made, {} already recorded, {} repeats of scored values (no run)\n",
        done.ran, done.skipped, done.repeats
    ))?;
    if !done.complete {
        say(format_args!(
            "this shard evaluated its share; run it again once the other shards' records have theirs\n"
        ))?;
        return Ok(ExitCode::from(INCOMPLETE_EXIT));
    }
    let Some(best) = done.best().cloned() else {
        return Ok(ExitCode::SUCCESS);
    };
    let current = &done.evaluations[0];
    say(format_args!(
        "current: {} → {} = {}\nbest (evaluation {}): {} → {} = {}\n",
        tune::values_name(&current.values),
        options.objective,
        current.objective,
        best.eval,
        tune::values_name(&best.values),
        options.objective,
        best.objective,
    ))?;
    if let Some(path) = &args.report {
        let compared = tune::compare_best(&options, &done, &best)?;
        agentbox_session::experiment::tune_report::write(path, &done, &compared)?;
        say(format_args!("report: {}\n", path.display()))?;
    }
    if args.write {
        let changes: Vec<(String, f64)> = best.values.into_iter().collect();
        let changed = agentbox_core::scene::save::save_numbers(&options.scene, &changes)
            .map_err(|e| Stop::Failed(e.to_string()))?;
        say(format_args!(
            "{}: {}\n",
            options.scene.display(),
            if changed {
                "the best values are saved"
            } else {
                "already holds the best values"
            }
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
