//! The command line: `run`, `headless`, `check` and `paths`, the experiments `compare` and
//! `merge`, and the tools `test`, `schema`, `api` and `bench`.
//! Parses arguments with clap and calls the library; `main.rs` only calls [`main`].

mod api;
mod bench;
mod check;
mod headless;
mod hunt;
mod study;
mod tune;

use agentbox_core::scene;
use clap::{Parser, Subcommand};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

// The exit codes every command shares (docs/cli.md's table lists them).

/// The exit status of `compare` and `merge` when some runs are missing.
pub(crate) const INCOMPLETE_EXIT: u8 = 4;

/// The exit status of `hunt` when it found a scenario that breaks the scene's `expect:`.
pub(crate) const FOUND_EXIT: u8 = 6;

/// The exit status of `headless` when a script failed to load or raised an error.
pub(crate) const SCRIPT_ERROR_EXIT: u8 = 3;

/// The exit status of a bad `--branch-at`/`--replace` (as for other usage errors), and of a
/// `--stop-when` expression that does not compile or raises an error at some tick.
pub(crate) const USAGE_EXIT: u8 = 2;

/// The exit status of `headless --stop-when EXPR` when EXPR held after none of the ticks (a
/// script error's 3 comes first).
pub(crate) const NEVER_HELD_EXIT: u8 = 5;

#[derive(Parser)]
#[command(
    name = "agentbox",
    version,
    about = "A sandbox for prototyping game agent AI: YAML scenes, hot-reloaded Lua decisions, Rust-native movement and A*."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Open a window and run a scene; scripts and the scene reload when saved.
    Run {
        /// The scene file (.yaml) to open, e.g. scenes/chase.yaml.
        #[arg(value_name = "SCENE")]
        scene: PathBuf,
        /// Override the scene's seed.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Save a PNG of the window after the last frame (needs --frames).
        #[arg(long, value_name = "FILE", requires = "frames")]
        screenshot: Option<PathBuf>,
        /// Quit after this many frames, running ticks by frame count (one per frame at x1)
        /// instead of the clock, so runs and screenshots are reproducible.
        #[arg(long, value_name = "N")]
        frames: Option<u64>,
        /// Replay keyboard and mouse input from a JSON Lines file (events stamped by frame).
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// Record keyboard and mouse input to a file that --input can replay.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// When the window closes, print how long building each frame took (wall-clock time
        /// on the main thread, before the GPU presents the frame): mean and 95th percentile;
        /// then the process's CPU time per frame (all threads, software OpenGL included).
        #[arg(long)]
        frame_stats: bool,
        /// Open a saved session file (Ctrl+E in the window writes one): its run is replayed to
        /// its last tick, and can be scrubbed and branched.
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
        /// Write the run as an animated GIF (every frame drawn, or every K-th with
        /// --gif-every), e.g. `--frames 90 --gif chase.gif`.
        #[arg(long, value_name = "FILE")]
        gif: Option<PathBuf>,
        /// Keep every K-th frame in the --gif file (a smaller file; each shown K times as long).
        #[arg(long, value_name = "K", requires = "gif", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        gif_every: u64,
    },
    /// Run a scene for a number of ticks without a window.
    Headless {
        /// The scene file (.yaml) to run, e.g. scenes/chase.yaml.
        #[arg(value_name = "SCENE")]
        scene: PathBuf,
        /// How many ticks to run.
        #[arg(long, value_name = "N")]
        ticks: u64,
        /// Override the scene's seed.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Write the JSON Lines trace to FILE, or to standard output with `-`.
        #[arg(long, value_name = "FILE|-")]
        trace: Option<String>,
        /// Pace ticks to the wall clock at the scene's tick_rate and reload scripts and the
        /// scene when they are saved, as the window does (reloads and errors go to stderr;
        /// the trace is flushed every tick).
        #[arg(long)]
        realtime: bool,
        /// Exit 0 even when a script failed to load or raised an error (otherwise exit 3).
        #[arg(long)]
        allow_errors: bool,
        /// Branch the run after tick T: ticks up to T are the plain run's, and from T+1 each
        /// --replace applies, exactly as saving OTHER over SCRIPT at tick T in the window.
        #[arg(
            long,
            value_name = "T",
            requires = "replace",
            conflicts_with = "realtime"
        )]
        branch_at: Option<u64>,
        /// With --branch-at: SCRIPT=OTHER, OTHER's text standing in for SCRIPT (an agent's
        /// script or a required module; memory kept, `on_reload` called). Repeatable. A SCRIPT
        /// the scene does not use is an error (exit 2).
        #[arg(long, value_name = "SCRIPT=OTHER", requires = "branch_at")]
        replace: Vec<String>,
        /// Add each scripted agent's `self.memory` to its trace entry as `memory` (JSON:
        /// sorted keys, "<function>"/"<cycle>" placeholders, at most 256 values per agent).
        #[arg(long, requires = "trace")]
        trace_memory: bool,
        /// Write the scene's monitors (every K ticks) and the scripts' plots (every tick) to a
        /// CSV file in long format: tick,name,value. The trace is the same with or without it.
        #[arg(
            long,
            value_name = "FILE.csv",
            conflicts_with = "realtime",
            conflicts_with = "branch_at"
        )]
        monitors: Option<PathBuf>,
        /// Stop after the first tick where the Lua expression EXPR holds (the read-only `world`
        /// of `expect:` predicates, asked after each tick, never before tick 1): the trace ends
        /// at that tick, `stopped at tick T: EXPR` goes to stderr, exit 0. Exit 5 when it
        /// never held, 2 when it does not compile or raises (naming the tick).
        #[arg(long, value_name = "EXPR", conflicts_with = "realtime")]
        stop_when: Option<String>,
    },
    /// Validate scenes (files or folders of .yaml) and compile the scripts they use.
    Check {
        /// Scene files, or folders whose .yaml files are all checked.
        #[arg(required = true, value_name = "SCENE|FOLDER")]
        paths: Vec<PathBuf>,
    },
    /// Solve a MovingAI scenario file and check every path against its optimal length.
    Paths {
        /// The MovingAI .map file.
        #[arg(long, value_name = "FILE")]
        map: PathBuf,
        /// The MovingAI .scen file.
        #[arg(long, value_name = "FILE")]
        scen: PathBuf,
        /// Searches, separated by commas, taking turns on each query: auto (jump point search
        /// where valid, else A*), astar, jps, dijkstra.
        #[arg(long, default_value = "auto")]
        algo: String,
        /// Rounds over the whole file; times are the median and minimum over them.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
    },
    /// Run the expectations of scenes (files or folders; default `scenes/`) headless, in
    /// parallel; exit 1 if any fails.
    Test {
        /// Scene files, or folders whose .yaml files are all run (default: scenes/).
        #[arg(value_name = "SCENE|FOLDER")]
        paths: Vec<PathBuf>,
        /// Scenes run at once (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Write each failing check's session file (the run up to the tick it failed at,
        /// opening there with its agent selected) into DIR instead of beside its scene
        /// (SCENE.failed-N.session.json, which the window's Ctrl+O lists).
        #[arg(long, value_name = "DIR", conflicts_with = "no_sessions")]
        sessions: Option<PathBuf>,
        /// Write no session files for failing checks.
        #[arg(long)]
        no_sessions: bool,
    },
    /// Compare script variants over a range of seeds: one JSON line per run after a header,
    /// then a summary (catch rates, times to reach, metrics with 95% bootstrap intervals,
    /// differences from the baseline paired by seed). Exit 0 when every run completed, 1 on
    /// bad input, 4 when a run could not be made; script errors are counted, not fatal.
    Compare {
        /// The scene file (.yaml) to run, e.g. scenes/pursuit.yaml.
        #[arg(value_name = "SCENE")]
        scene: PathBuf,
        /// A variant: NAME, or NAME:FROM=TO;FROM=TO... substituting scripts or required
        /// modules at load (split at the first `:`, each item at its first `=`). One with no
        /// substitutions is the baseline. Repeat for more; none means one baseline.
        #[arg(long = "variant", value_name = "NAME[:FROM=TO;...]")]
        variants: Vec<String>,
        #[command(flatten)]
        study: StudyArgs,
    },
    /// Sweep scene numbers over a grid: every combination of the --param values is a variant
    /// of `compare` (same runner, output, shards, resume and merge), each line carrying
    /// "params":{PATH: value}. Exit codes as compare's.
    Sweep {
        /// The scene file (.yaml) to run, e.g. scenes/pursuit.yaml.
        #[arg(value_name = "SCENE")]
        scene: PathBuf,
        /// An axis: PATH=A..B:STEP, values A + i*STEP up to B inclusive (PATH=V for one value).
        /// PATH is a number in the scene (agents.hunter.params.space, spawn.0.speed; agents by
        /// id, spawn groups by index or kind) or a tunable's name (OWNER.PARAM). Repeat for more.
        #[arg(long = "param", required = true, value_name = "PATH=A..B:STEP")]
        params: Vec<String>,
        #[command(flatten)]
        study: StudyArgs,
    },
    /// Search tunables' values for the best objective: a seeded CMA-ES over their declared
    /// ranges and steps, each candidate a `compare` run over the seeds. Prints the best values
    /// and how they compare with the scene's own. Exit 0 when the search finished, 1 on bad
    /// input, 4 when a shard waits for the other shards' records.
    Tune(tune::TuneArgs),
    /// Hunt for the scenario that breaks the scene's `expect:`: draw seeds and scene numbers,
    /// keep what fails, shrink each distinct failure towards the scene's own values and the
    /// first seed, and write it as a scene and a session that opens at the failing tick.
    /// Exit 0 when nothing failed, 6 when a failure was found, 1 on bad input.
    Hunt(hunt::HuntArgs),
    /// Merge the files of a study's shards: check their headers match, print the summary,
    /// and with --out write the runs in the study's order. Exit 0 when every run is there,
    /// 1 on bad input, 4 when runs are missing.
    Merge {
        /// The shards' files (from `compare --out`).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Write the merged study here (header and runs, as one unsharded run writes them).
        #[arg(long, value_name = "FILE.jsonl")]
        out: Option<PathBuf>,
        /// Also write one self-contained HTML page of the merged study.
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
    },
    /// Print the JSON Schema of the scene format (for yaml-language-server).
    Schema,
    /// Print the Lua API as lua-language-server stubs, a reference page, a .luarc.json or a
    /// .luacheckrc, or set up linting in a folder of scripts with --write (types/agentbox.lua,
    /// .luarc.json, .luacheckrc; in an agentbox checkout docs/lua-api.md too).
    Api {
        /// The `---@meta` stubs.
        #[arg(long, group = "what")]
        stubs: bool,
        /// The reference page in Markdown.
        #[arg(long, group = "what")]
        markdown: bool,
        /// The .luarc.json.
        #[arg(long, group = "what")]
        luarc: bool,
        /// The .luacheckrc: the sandbox's globals and the API tables for luacheck.
        #[arg(long, group = "what")]
        luacheckrc: bool,
        /// Write the editor stubs (types/agentbox.lua), .luarc.json and .luacheckrc into DIR
        /// (default: the current folder), so EmmyLua, lua-language-server and luacheck check
        /// the scripts there; in an agentbox checkout, the reference page docs/lua-api.md too.
        #[arg(long, group = "what", value_name = "DIR", num_args = 0..=1, default_missing_value = ".")]
        write: Option<PathBuf>,
    },
    /// Measure a scene's ticks headless: ms per tick, ns per agent decision (CPU time of one
    /// thread, with wall time alongside).
    Bench {
        /// The scene file (.yaml) to measure, e.g. scenes/crowd.yaml.
        #[arg(value_name = "SCENE")]
        scene: PathBuf,
        /// Ticks measured.
        #[arg(long, default_value_t = 60, value_name = "N")]
        ticks: u64,
        /// Ticks run first and not measured.
        #[arg(long, default_value_t = 10, value_name = "N")]
        warmup: u64,
        /// Also run the behaviour of scripts/crowd.lua written in Rust, side by side with the
        /// Lua run (taking turns of 10 ticks, so both see the same machine load), and compare.
        #[arg(long, conflicts_with = "against", group = "peer")]
        native: bool,
        /// Also run this other scene (with its own scripts) in turns of 10 ticks with SCENE
        /// and report SCENE's CPU time per tick over the other's: the median of the rounds.
        #[arg(long, value_name = "OTHER", group = "peer")]
        against: Option<PathBuf>,
        /// With --against or --native: the largest ratio SCENE/OTHER (or Lua/Rust) allowed, by
        /// the median of the rounds; prints MET or NOT MET (the exit status stays 0 either
        /// way), or NOT JUDGED when a decision failed on either side (a run with failed
        /// decisions warns and exits 1 whatever the goal).
        #[arg(long, value_name = "RATIO", requires = "peer")]
        goal: Option<f64>,
    },
}

/// The options `compare` and `sweep` share: seeds, ticks, jobs, output, shards, report and
/// monitors.
#[derive(clap::Args)]
struct StudyArgs {
    /// Seeds to run each variant (or sweep point) with, both ends included: A..B (or one seed N).
    #[arg(long, value_name = "A..B")]
    seeds: String,
    /// Ticks per run (default: the scene's expect.ticks, else 300).
    #[arg(long, value_name = "N")]
    ticks: Option<u64>,
    /// Runs at once, each on its own thread (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write the runs to FILE (resumable: runs already in it are skipped; its header must
    /// match) and the summary to standard output. Without it, runs go to standard output
    /// and the summary to standard error.
    #[arg(long, value_name = "FILE.jsonl")]
    out: Option<PathBuf>,
    /// Run only shard K of N (1-based). Without it, the shard comes from
    /// JOB_COMPLETION_INDEX (with --shards) or SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// The number of shards N of a Kubernetes Indexed Job (its completions), whose
    /// 0-based JOB_COMPLETION_INDEX picks the shard.
    #[arg(long, value_name = "N")]
    shards: Option<u64>,
    /// Also write one self-contained HTML page (summary table, distributions per variant, and
    /// for a sweep heat maps over two swept parameters).
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Write the scene's monitors and the scripts' plots, every run, to a CSV file in
    /// long format: variant,seed,tick,name,value (without it monitors run only at the end).
    #[arg(long, value_name = "FILE.csv")]
    monitors: Option<PathBuf>,
    /// Show what the runs' scripts print, on standard error, each line after
    /// `[VARIANT seed=N]` (without it, prints are off).
    #[arg(long)]
    prints: bool,
    /// Write a session file (DIR/VARIANT.seed-N.session.json) of each run that failed an
    /// expectation (a reach that never happened, a script error), or with --worst of the N
    /// worst runs; `agentbox run SCENE --session FILE` opens one paused at its first reach
    /// (the reaching agent selected) or at its end.
    #[arg(long, value_name = "DIR")]
    sessions: Option<PathBuf>,
    /// With --sessions: the N worst runs by MEASURE instead: a reach AGENT->TARGET (its time
    /// to reach), a metric, a monitor, contacts or errors; highest is worst, or lowest with
    /// `-` (3:-score).
    #[arg(long, value_name = "N:MEASURE", requires = "sessions")]
    worst: Option<String>,
    /// Open the study's one run (one variant or sweep point, one seed) in the window, paused
    /// at its first reach or its end (its session goes to --sessions DIR, else the temporary
    /// folder). The report prints this command for every run.
    #[arg(long, conflicts_with_all = ["out", "shard", "shards", "report", "monitors", "worst"])]
    open: bool,
}

/// Why a command stopped before its end. Every library error a command passes up becomes
/// one of these (the `From`s below), and [`main`] is the one place that turns it into a message
/// and an exit status.
#[derive(Debug)]
pub(crate) enum Stop {
    /// Output went to a reader that has gone (`agentbox compare ... | head -1`): a quiet end,
    /// status 0.
    ClosedPipe,
    /// Bad input, or a file that could not be read or written: the message, status 1.
    Failed(String),
    /// Arguments that make no sense together (as clap's own usage errors): the message,
    /// status 2 ([`USAGE_EXIT`]).
    Usage(String),
}

impl Stop {
    /// The exit status of each kind of stop: the one place errors become exit codes.
    fn exit_code(&self) -> ExitCode {
        match self {
            Stop::ClosedPipe => ExitCode::SUCCESS,
            Stop::Failed(_) => ExitCode::FAILURE,
            Stop::Usage(_) => ExitCode::from(USAGE_EXIT),
        }
    }
}

impl From<agentbox_session::session::OpenError> for Stop {
    fn from(e: agentbox_session::session::OpenError) -> Self {
        Stop::Failed(e.to_string())
    }
}

/// A `--replace` that cannot stand in for a script is a usage error, as clap's are.
impl From<agentbox_session::history::BranchError> for Stop {
    fn from(e: agentbox_session::history::BranchError) -> Self {
        Stop::Usage(format!("error: {e}"))
    }
}

impl From<agentbox_session::bench::BenchError> for Stop {
    fn from(e: agentbox_session::bench::BenchError) -> Self {
        Stop::Failed(e.to_string())
    }
}

impl From<agentbox_window::WindowError> for Stop {
    fn from(e: agentbox_window::WindowError) -> Self {
        Stop::Failed(e.to_string())
    }
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::ClosedPipe
        } else {
            Stop::Failed(format!("error: cannot write the output: {e}"))
        }
    }
}

impl From<agentbox_session::experiment::StudyError> for Stop {
    fn from(e: agentbox_session::experiment::StudyError) -> Self {
        if e.is_closed_pipe() {
            Stop::ClosedPipe
        } else {
            Stop::Failed(e.to_string())
        }
    }
}

impl From<agentbox_session::paths::PathsError> for Stop {
    fn from(e: agentbox_session::paths::PathsError) -> Self {
        use agentbox_session::paths::PathsError;
        match e {
            PathsError::Write(e) => e.into(),
            PathsError::Input(message) => Stop::Failed(message),
            PathsError::File(e) => Stop::Failed(e.to_string()),
        }
    }
}

/// Runs the command line; the process exit code.
///
/// Output piped into a reader that stops early (`agentbox headless ... | head`) ends the
/// program quietly with status 0, as ripgrep does it: no signal handling (Rust ignores SIGPIPE,
/// so the write fails); every write to stdout returns its error up to here, and a
/// `BrokenPipe` ends the run as a success ([`Stop::ClosedPipe`]). Any other error is reported.
pub(crate) fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(stop) => {
            if let Stop::Failed(message) | Stop::Usage(message) = &stop {
                eprintln!("{message}");
            }
            stop.exit_code()
        }
    }
}

/// Writes to stdout, returning the error instead of panicking as `print!` does.
fn say(text: std::fmt::Arguments) -> io::Result<()> {
    io::stdout().lock().write_fmt(text)
}

// Longer than most functions here: one arm per command, each only unpacking its arguments.
fn run(command: Command) -> Result<ExitCode, Stop> {
    Ok(match command {
        Command::Run {
            scene,
            seed,
            screenshot,
            frames,
            input,
            record,
            frame_stats,
            session,
            gif,
            gif_every,
        } => {
            let options = agentbox_window::WindowOptions {
                screenshot,
                frames,
                input,
                record,
                frame_stats,
                session,
                gif,
                gif_every,
            };
            agentbox_window::run_window(&scene, seed, options)?;
            ExitCode::SUCCESS
        }
        Command::Headless {
            scene,
            ticks,
            seed,
            trace,
            realtime,
            allow_errors,
            branch_at,
            replace,
            trace_memory,
            monitors,
            stop_when,
        } => {
            let run = headless::Run {
                scene: &scene,
                ticks,
                seed,
                trace: trace.as_deref().map(|to| (to, trace_memory)),
                realtime,
                branch: branch_at.map(|at| (at, replace.as_slice())),
                monitors: monitors.as_deref(),
                stop_when: stop_when.as_deref(),
            };
            headless::exit_code(headless::headless(run)?, allow_errors)
        }
        Command::Check { paths } => check::check(&paths)?,
        Command::Paths {
            map,
            scen,
            algo,
            rounds,
        } => {
            let mut out = io::stdout().lock();
            match agentbox_session::paths::run(&map, &scen, &algo, rounds, &mut out)? {
                true => ExitCode::SUCCESS,
                false => ExitCode::FAILURE,
            }
        }
        Command::Test {
            paths,
            jobs,
            sessions,
            no_sessions,
        } => {
            use agentbox_session::testrun::SessionsTo;
            let to = match (sessions, no_sessions) {
                (_, true) => SessionsTo::Nowhere,
                (Some(dir), false) => SessionsTo::Folder(dir),
                (None, false) => SessionsTo::BesideScene,
            };
            check::test(&paths, jobs, &to)?
        }
        Command::Bench {
            scene,
            ticks,
            warmup,
            native,
            against,
            goal,
        } => match against {
            Some(other) => bench::bench_against(&scene, &other, ticks, warmup, goal)?,
            None => bench::bench(&scene, ticks, warmup, native, goal)?,
        },
        Command::Api {
            stubs,
            markdown,
            luarc,
            luacheckrc,
            write,
        } => api::api(stubs, markdown, luarc, luacheckrc, write)?,
        Command::Compare {
            scene,
            variants,
            study: args,
        } => study::study(scene, variants, Vec::new(), args)?,
        Command::Sweep {
            scene,
            params,
            study: args,
        } => study::study(scene, Vec::new(), params, args)?,
        Command::Tune(args) => tune::tune(args)?,
        Command::Hunt(args) => hunt::hunt(args)?,
        Command::Merge { files, out, report } => {
            study::merge(&files, out.as_deref(), report.as_deref())?
        }
        Command::Schema => {
            say(format_args!("{}", scene::schema::json()))?;
            ExitCode::SUCCESS
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_argument_of_every_subcommand_has_help_text() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let mut missing = Vec::new();
        let mut seen = 0;
        for sub in cli.get_subcommands() {
            assert!(sub.get_about().is_some(), "{} has no about", sub.get_name());
            for arg in sub.get_arguments() {
                if matches!(arg.get_id().as_str(), "help" | "version") {
                    continue;
                }
                seen += 1;
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    missing.push(format!("{} {}", sub.get_name(), arg.get_id()));
                }
            }
        }
        assert!(
            seen > 20,
            "the subcommands' arguments were visited ({seen})"
        );
        assert_eq!(missing, Vec::<String>::new(), "arguments without help");
    }
}
