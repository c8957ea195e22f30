//! The command line: `run`, `headless`, `check` and `paths`, the experiments `compare` and
//! `merge`, and the tools `test`, `schema`, `api` and `bench`.
//! Parses arguments with clap and calls the library; `main.rs` only calls [`main`].

use agentbox_core::scene;
use agentbox_core::sim::trace;
use agentbox_lua::ScriptHost;
use agentbox_session::session::Session;
use clap::{Parser, Subcommand};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
        /// on the main thread, before the GPU presents the frame): mean and 95th percentile.
        #[arg(long)]
        frame_stats: bool,
        /// Open a saved session file (Ctrl+E in the window writes one): its run is replayed to
        /// its last tick, and can be scrubbed and branched.
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
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
    /// .luacheckrc, or write them all (types/agentbox.lua, docs/lua-api.md, .luarc.json,
    /// .luacheckrc) with --write.
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
        /// Write every generated file under the current folder (the project root).
        #[arg(long, group = "what")]
        write: bool,
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
        #[arg(long, conflicts_with = "against")]
        native: bool,
        /// Also run this other scene (with its own scripts) in turns of 10 ticks with SCENE
        /// and report SCENE's CPU time per tick over the other's: the median of the rounds.
        #[arg(long, value_name = "OTHER")]
        against: Option<PathBuf>,
        /// With --against: the largest ratio SCENE/OTHER allowed; prints MET or NOT MET (the
        /// exit status stays 0 either way), or NOT JUDGED when a decision failed on either
        /// side (a run with failed decisions warns and exits 1 whatever the goal).
        #[arg(long, value_name = "RATIO", requires = "against")]
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
}

/// Runs the command line; the process exit code.
///
/// Output piped into a reader that stops early (`agentbox headless ... | head`) ends the
/// program quietly with status 0, as ripgrep does it: no signal handling (Rust ignores SIGPIPE,
/// so the write fails); every write to stdout returns its error up to here, and a
/// `BrokenPipe` ends the run as a success. Any other output error is reported.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes to stdout, returning the error instead of panicking as `print!` does.
fn say(text: std::fmt::Arguments) -> io::Result<()> {
    io::stdout().lock().write_fmt(text)
}

fn run(command: Command) -> io::Result<ExitCode> {
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
        } => {
            let options = agentbox_window::WindowOptions {
                screenshot,
                frames,
                input,
                record,
                frame_stats,
                session,
            };
            match agentbox_window::run_window(&scene, seed, options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
            }
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
        } => {
            let branch = branch_at.map(|at| (at, replace.as_slice()));
            let trace = trace.as_deref().map(|to| (to, trace_memory));
            let code = headless(
                &scene,
                ticks,
                seed,
                trace,
                realtime,
                branch,
                monitors.as_deref(),
            )?;
            match code {
                Ran::ScriptsFailed if !allow_errors => {
                    eprintln!(
                        "headless: a script failed (see above): exit {SCRIPT_ERROR_EXIT}; --allow-errors exits 0"
                    );
                    ExitCode::from(SCRIPT_ERROR_EXIT)
                }
                Ran::ScriptsFailed | Ran::Clean => ExitCode::SUCCESS,
                Ran::Failed(code) => code,
            }
        }
        Command::Check { paths } => check(&paths)?,
        Command::Paths {
            map,
            scen,
            algo,
            rounds,
        } => match agentbox_session::paths::run(&map, &scen, &algo, rounds) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
        Command::Test { paths, jobs } => test(&paths, jobs)?,
        Command::Bench {
            scene,
            ticks,
            warmup,
            native,
            against,
            goal,
        } => match against {
            Some(other) => bench_against(&scene, &other, ticks, warmup, goal)?,
            None => bench(&scene, ticks, warmup, native)?,
        },
        Command::Api {
            stubs,
            markdown,
            luarc,
            luacheckrc,
            write,
        } => api(stubs, markdown, luarc, luacheckrc, write)?,
        Command::Compare {
            scene,
            variants,
            study: args,
        } => study(scene, variants, Vec::new(), args)?,
        Command::Sweep {
            scene,
            params,
            study: args,
        } => study(scene, Vec::new(), params, args)?,
        Command::Merge { files, out, report } => {
            match agentbox_session::experiment::merge(&files, out.as_deref()) {
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
                Ok(merged) => {
                    if let Some(path) = &report {
                        if let Err(e) = agentbox_session::experiment::report::write(
                            path,
                            &merged.header,
                            &merged.runs,
                            &merged.summary,
                        ) {
                            eprintln!("{e}");
                            return Ok(ExitCode::FAILURE);
                        }
                    }
                    say(format_args!("{}", merged.summary.text()))?;
                    if merged.runs.len() as u64 == merged.header.total_runs() {
                        ExitCode::SUCCESS
                    } else {
                        eprintln!(
                            "merge: {} of {} runs are missing",
                            merged.header.total_runs() - merged.runs.len() as u64,
                            merged.header.total_runs()
                        );
                        ExitCode::from(INCOMPLETE_EXIT)
                    }
                }
            }
        }
        Command::Schema => {
            say(format_args!("{}", scene::schema::json()))?;
            ExitCode::SUCCESS
        }
    })
}

/// `compare` and `sweep`: run the study, print what stops nothing, the summary (to standard
/// output with `--out`, else to standard error, after the runs), and write the report.
fn study(
    scene: PathBuf,
    variants: Vec<String>,
    params: Vec<String>,
    args: StudyArgs,
) -> io::Result<ExitCode> {
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
    } = args;
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
    };
    let summary_to_stdout = options.out.is_some();
    let done = match agentbox_session::experiment::compare(&options, |k| std::env::var(k).ok()) {
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
        Ok(done) => done,
    };
    for e in done.warnings.iter().chain(&done.failed) {
        eprintln!("{e}");
    }
    if let Some(path) = &report {
        if let Err(e) = agentbox_session::experiment::report::write(
            path,
            &done.header,
            &done.runs,
            &done.summary,
        ) {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
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

fn api(
    stubs: bool,
    markdown: bool,
    luarc: bool,
    luacheckrc: bool,
    write: bool,
) -> io::Result<ExitCode> {
    use agentbox_lua::registry;
    if write {
        for (path, text) in registry::generated() {
            let path = Path::new(path);
            let written = path
                .parent()
                .map_or(Ok(()), |p| {
                    if p.as_os_str().is_empty() {
                        Ok(())
                    } else {
                        std::fs::create_dir_all(p)
                    }
                })
                .and_then(|()| std::fs::write(path, text));
            if let Err(e) = written {
                eprintln!("{}: error: cannot write: {e}", path.display());
                return Ok(ExitCode::FAILURE);
            }
            say(format_args!("wrote {}\n", path.display()))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let text = if markdown {
        registry::markdown()
    } else if luarc {
        registry::luarc()
    } else if luacheckrc {
        registry::luacheckrc()
    } else {
        let _ = stubs; // the default
        registry::stubs()
    };
    say(format_args!("{text}"))?;
    Ok(ExitCode::SUCCESS)
}

fn show_figures(what: &str, f: &agentbox_session::bench::Figures) -> io::Result<()> {
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

/// `bench SCENE --against OTHER [--goal RATIO]`.
fn bench_against(
    path: &Path,
    other: &Path,
    ticks: u64,
    warmup: u64,
    goal: Option<f64>,
) -> io::Result<ExitCode> {
    let pair = match agentbox_session::bench::against(path, other, warmup, ticks) {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    show_figures(&path.display().to_string(), &pair.first)?;
    show_figures(&other.display().to_string(), &pair.second)?;
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
        say(format_args!("{}\n", pair.verdict(goal)))?;
    }
    // Failed decisions make the comparison meaningless: a failure status, whatever the goal.
    Ok(if judged {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn bench(path: &Path, ticks: u64, warmup: u64, native: bool) -> io::Result<ExitCode> {
    if !native {
        match agentbox_session::bench::lua(path, warmup, ticks) {
            Ok(lua) => {
                show_figures("lua", &lua)?;
                if let Some(warning) = lua.failure_warning("lua") {
                    say(format_args!("{warning}\n"))?;
                    eprintln!("{warning}");
                    return Ok(ExitCode::FAILURE);
                }
            }
            Err(e) => {
                eprintln!("{e}");
                return Ok(ExitCode::FAILURE);
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (lua, rust) = match agentbox_session::bench::side_by_side(path, warmup, ticks) {
        Ok(both) => both,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    show_figures("lua", &lua)?;
    show_figures("rust", &rust)?;
    if let Some(warning) = lua.failure_warning("lua") {
        say(format_args!("{warning}\n"))?;
        eprintln!("{warning}");
        return Ok(ExitCode::FAILURE);
    }
    say(format_args!(
        "lua/rust: {:.2}x per tick, {:.2}x per decision (taking turns of {} ticks)\n",
        lua.ms_per_tick() / rust.ms_per_tick(),
        lua.ns_per_decision() / rust.ns_per_decision(),
        agentbox_session::bench::BLOCK
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn test(paths: &[PathBuf], jobs: Option<usize>) -> io::Result<ExitCode> {
    use agentbox_session::testrun::{run_all, Outcome};
    use std::io::IsTerminal;
    let default = [PathBuf::from("scenes")];
    let files = scene_files(if paths.is_empty() { &default } else { paths });
    if files.is_empty() {
        eprintln!("error: no scene files found");
        return Ok(ExitCode::FAILURE);
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(files.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let (mut passed, mut failed) = (0, 0);
    // The first output error, kept until the runner returns.
    let mut written = Ok(());
    run_all(&files, jobs, |path, outcome| {
        bar.inc(1);
        let line = bar.suspend(|| match outcome {
            Outcome::Passed { ticks } => {
                passed += 1;
                say(format_args!("pass {} ({ticks} ticks)\n", path.display()))
            }
            Outcome::Failed(reasons) => {
                failed += 1;
                say(format_args!("FAIL {}\n", path.display()))?;
                for r in reasons {
                    say(format_args!("    {r}\n"))?;
                }
                Ok(())
            }
            Outcome::Skipped => Ok(()),
        });
        written = std::mem::replace(&mut written, Ok(())).and(line);
    });
    bar.finish_and_clear();
    written?;
    if passed + failed == 0 {
        eprintln!("error: none of these scenes has an `expect:` section");
        return Ok(ExitCode::FAILURE);
    }
    say(format_args!("{passed} passed, {failed} failed\n"))?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A failed trace write: a closed pipe goes up to [`main`] (a quiet end); any other error is
/// reported here.
fn trace_failed(e: io::Error) -> io::Result<ExitCode> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Err(e);
    }
    eprintln!("error: cannot write the trace: {e}");
    Ok(ExitCode::FAILURE)
}

/// The exit status of `compare` and `merge` when some runs are missing.
pub const INCOMPLETE_EXIT: u8 = 4;

/// The exit status of `headless` when a script failed to load or raised an error.
pub const SCRIPT_ERROR_EXIT: u8 = 3;

/// How a headless run ended.
enum Ran {
    Clean,
    /// A script failed to load or raised an error (or was stopped by a limit).
    ScriptsFailed,
    /// The run could not go on (a bad scene, an unwritable trace): this status.
    Failed(ExitCode),
}

fn headless(
    path: &Path,
    ticks: u64,
    seed: Option<u64>,
    trace: Option<(&str, bool)>,
    realtime: bool,
    branch: Option<(u64, &[String])>,
    monitors_to: Option<&Path>,
) -> io::Result<Ran> {
    let trace_to = trace.map(|(to, _)| to);
    let memory = trace.is_some_and(|(_, m)| m);
    if let Some((at, replace)) = branch {
        return headless_branch(path, ticks, seed, trace_to, memory, at, replace);
    }
    let mut session = match Session::open(path, seed) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Ran::Failed(ExitCode::FAILURE));
        }
    };
    let mut failed = !session.current_errors().is_empty();
    let mut out = match trace_writer(trace_to) {
        Ok(out) => out,
        Err(code) => return Ok(Ran::Failed(code)),
    };
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
        if let Err(e) = written {
            return trace_failed(e).map(Ran::Failed);
        }
    }
    let mut watch = match monitors_to.map(|to| MonitorsCsv::create(to, &session)) {
        None => None,
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => {
            eprintln!("{e}");
            return Ok(Ran::Failed(ExitCode::FAILURE));
        }
    };
    for _ in 0..if realtime { 0 } else { ticks } {
        if watch.is_some() {
            session.host_mut().collect_plots(true);
        }
        let report = session.tick();
        failed |= !report.new_errors.is_empty();
        if let Some(w) = out.as_mut() {
            if let Err(e) = writeln!(w, "{}", trace_line(&session, &report.events, memory)) {
                return trace_failed(e).map(Ran::Failed);
            }
        }
        if let Some(watch) = watch.as_mut() {
            if let Err(e) = watch.write_tick(&mut session) {
                eprintln!("{e}");
                return Ok(Ran::Failed(ExitCode::FAILURE));
            }
        }
    }
    if let Some(watch) = watch {
        if let Err(e) = watch.finish() {
            eprintln!("{e}");
            return Ok(Ran::Failed(ExitCode::FAILURE));
        }
    }
    if let Some(mut w) = out {
        if let Err(e) = w.flush() {
            return trace_failed(e).map(Ran::Failed);
        }
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
fn trace_line(session: &Session, events: &[agentbox_core::sim::Event], memory: bool) -> String {
    if memory {
        trace::line_with_memory(session.world(), events, &session.memories_json())
    } else {
        trace::line(session.world(), events)
    }
}

/// Where the trace goes: nowhere, stdout (`-`) or a file (an unwritable one is reported).
fn trace_writer(trace_to: Option<&str>) -> Result<Option<Box<dyn Write>>, ExitCode> {
    Ok(match trace_to {
        None => None,
        Some("-") => Some(Box::new(io::BufWriter::new(io::stdout().lock()))),
        Some(file) => match std::fs::File::create(file) {
            Ok(f) => Some(Box::new(io::BufWriter::new(f))),
            Err(e) => {
                eprintln!("{file}: error: cannot write the trace: {e}");
                return Err(ExitCode::FAILURE);
            }
        },
    })
}

/// The exit status of a bad `--branch-at`/`--replace` (as for other usage errors).
pub const USAGE_EXIT: u8 = 2;

/// `headless --branch-at T --replace SCRIPT=OTHER...`: the plain run up to T, then OTHER
/// stands in for SCRIPT (see `history::branch_run`).
fn headless_branch(
    path: &Path,
    ticks: u64,
    seed: Option<u64>,
    trace_to: Option<&str>,
    memory: bool,
    at: u64,
    replace: &[String],
) -> io::Result<Ran> {
    use agentbox_session::history::{self, History};
    let mut hist = match History::open(path, seed) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Ran::Failed(ExitCode::FAILURE));
        }
    };
    let mut replacements = Vec::new();
    for spec in replace {
        match history::resolve_replacement(hist.session(), spec) {
            Ok(r) => replacements.push(r),
            Err(e) => {
                eprintln!("error: {}", e.0);
                return Ok(Ran::Failed(ExitCode::from(USAGE_EXIT)));
            }
        }
    }
    if at > ticks {
        eprintln!("error: --branch-at {at} is after the last tick ({ticks})");
        return Ok(Ran::Failed(ExitCode::from(USAGE_EXIT)));
    }
    let mut failed = !hist.session().current_errors().is_empty();
    let mut out = match trace_writer(trace_to) {
        Ok(out) => out,
        Err(code) => return Ok(Ran::Failed(code)),
    };
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
    if let Err(e) = ran.and_then(|()| out.as_mut().map_or(Ok(()), |w| w.flush())) {
        return trace_failed(e).map(Ran::Failed);
    }
    failed |= !hist.session().current_errors().is_empty();
    Ok(if failed {
        Ran::ScriptsFailed
    } else {
        Ran::Clean
    })
}

/// Scene files named by the arguments: files as given, folders' `.yaml`/`.yml` files sorted.
fn scene_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    out
}

fn check(paths: &[PathBuf]) -> io::Result<ExitCode> {
    let mut failures = 0;
    let files = scene_files(paths);
    if files.is_empty() {
        eprintln!("error: no scene files found");
        return Ok(ExitCode::FAILURE);
    }
    for file in files {
        let scene = match scene::load(&file) {
            Ok(s) => s,
            Err(errors) => {
                for e in &errors.0 {
                    eprintln!("{e}");
                }
                failures += 1;
                continue;
            }
        };
        // Warnings do not fail the check.
        for w in &scene.warnings {
            eprintln!("{w}");
        }
        let mut host = match ScriptHost::new(scene.world.seed) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("error: cannot start Lua: {e}");
                return Ok(ExitCode::FAILURE);
            }
        };
        let mut ok = true;
        for script in &scene.scripts {
            if let Err(e) = host.load(script) {
                eprintln!("{}", e.as_str());
                ok = false;
            }
        }
        if ok {
            say(format_args!(
                "ok: {} ({} agents, {} scripts)\n",
                file.display(),
                scene.world.agents.len(),
                scene.scripts.len()
            ))?;
        } else {
            failures += 1;
        }
    }
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
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
