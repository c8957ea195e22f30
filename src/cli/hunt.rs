//! `agentbox hunt`: search for the scenario that breaks a scene's `expect:`, and print each
//! distinct failure, shrunk, with the command that opens its session at the failing tick.

use super::{say, Stop, FOUND_EXIT};
use agentbox_session::experiment::hunt::{self, HuntOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// What `agentbox hunt` takes.
#[derive(clap::Args)]
pub(super) struct HuntArgs {
    /// The scene file (.yaml) whose `expect:` to break, e.g. scenes/guard_corner.yaml.
    #[arg(value_name = "SCENE")]
    scene: PathBuf,
    /// A number to vary: PATH=A..B, both ends included (whole numbers when A, B and the
    /// scene's value are whole). PATH as in sweep: agents.intruder.at.0, spawn.0.speed, or a
    /// tunable's name OWNER.PARAM. Repeat for more.
    #[arg(long = "vary", required = true, value_name = "PATH=A..B")]
    vary: Vec<String>,
    /// Seeds to draw from, both ends included (shrinking goes towards the first).
    #[arg(long, default_value = "1..1000", value_name = "A..B")]
    seeds: String,
    /// Scenarios to try (a drawn one that does not load is drawn again and not counted).
    #[arg(long, default_value_t = 200, value_name = "N")]
    tries: usize,
    /// The draws' random seed: the same seed draws the same scenarios.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Write the failures' sessions into DIR (default: beside the scene). The shrunk scenes
    /// go beside the scene (SCENE.hunt-N.yaml), so its relative paths hold.
    #[arg(long, value_name = "DIR")]
    sessions: Option<PathBuf>,
    /// Scenarios run at once (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Run only shard K of N of the tries (1-based). Without it, JOB_COMPLETION_INDEX (with
    /// --shards) or a Slurm array's task.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// The completions of a Kubernetes Indexed Job (see --shard).
    #[arg(long, value_name = "N")]
    shards: Option<u64>,
}

pub(super) fn hunt(args: HuntArgs) -> Result<ExitCode, Stop> {
    let options = HuntOptions {
        scene: args.scene,
        vary: args.vary,
        seeds: args.seeds,
        tries: args.tries,
        seed: args.seed,
        sessions: args.sessions,
        jobs: args.jobs,
        shard: args.shard,
        shards: args.shards,
    };
    let done = hunt::hunt(&options, |k| std::env::var(k).ok())?;
    say(format_args!(
        "{} tries ({} draws that did not load drawn again), {} failed\n",
        done.tries, done.redrawn, done.failing
    ))?;
    for (i, f) in done.found.iter().enumerate() {
        say(format_args!(
            "failure {}: {}\n  first at try {}: {}\n  shrunk ({} runs): {}\n  scene: {}\n",
            i + 1,
            f.reason,
            f.first_try,
            f.drawn.describe(),
            f.shrink_runs,
            f.shrunk.describe(),
            f.scene_file.display()
        ))?;
        match (&f.session, &f.command) {
            (Ok(_), Some(command)) => say(format_args!("  open it: {command}\n"))?,
            (Err(e), _) => say(format_args!("  no session: {e}\n"))?,
            _ => {}
        }
    }
    Ok(if done.found.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(FOUND_EXIT)
    })
}
