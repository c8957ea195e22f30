//! Experiments (`tune.rs` and `hunt.rs` search with the same runner): `agentbox compare` runs a scene over a range of seeds for each variant (a set
//! of script substitutions), in parallel, one [`Session`] per run, and records one JSON line
//! per run after a header; `agentbox merge` joins the files of a study's shards. Both print the
//! summary (`summary.rs`).
//!
//! - **Read once.** The scene file and every script and module are read at most once per study
//!   (`files.rs`): each run builds its world from the same scene bytes and its scripts from the
//!   same script bytes, whatever is saved meanwhile. Their SHA-256s go in the header.
//! - **Deterministic.** A run depends only on the scene, its variant's scripts and its seed;
//!   lines are written in the study's order (variant, then seed) whatever order the runs
//!   finish in, so a file is the same for any `--jobs`, and a resumed file equals an
//!   uninterrupted one.
//! - **Metrics** (`metrics:` in the scene) run at the end of a run in a fresh Lua state of
//!   their own, through the [`Metrics`] trait, so they never change the run.
//!
//! It drives sessions and reads and writes its own files; it must not draw, watch files, name
//! mlua, or hold simulation or expectation logic (reach comes from `expect::FirstReach`).

mod cma;
mod files;
pub mod hunt;
pub mod monitors;
pub mod record;
pub mod report;
pub mod sessions;
pub mod summary;
pub mod sweep;
pub mod tune;
pub mod tune_report;

use crate::session::Session;
use agentbox_core::expect::{FirstReach, Metrics};
use agentbox_core::files::{Disk, FileKind, Files};
use agentbox_core::scene::{self, Scene};
use agentbox_core::sim::Event;
use agentbox_lua::ScriptHost;
use files::{Library, Reader, VariantFiles};
use record::{Header, Recorded, RunLine, VariantSpec};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

pub use summary::Summary;

/// Why a study (`compare`, `sweep`) or a merge stopped: bad input, or output it could not
/// write. A closed pipe keeps its kind (see [`StudyError::is_closed_pipe`]), so a reader that
/// stops early (`agentbox compare ... | head -1`) is not taken for a failure.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A flag, the scene, a script or an `--out` file the study cannot use: the message says
    /// which and why.
    #[error("{0}")]
    Input(String),
    /// A file (`--out`, `--monitors`) could not be written.
    #[error("{}: error: cannot write: {source}", .path.display())]
    WriteFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The runs could not be written to standard output.
    #[error("error: cannot write the runs: {0}")]
    WriteRuns(#[source] std::io::Error),
    /// The HTML report (`--report`) could not be written.
    #[error("{}: error: cannot write the report: {source}", .path.display())]
    WriteReport {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl StudyError {
    /// Whether the runs went to a reader that has gone (a closed pipe): a quiet end.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, StudyError::WriteRuns(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    fn write_file(path: &Path) -> impl FnOnce(std::io::Error) -> StudyError + '_ {
        move |source| StudyError::WriteFile {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<String> for StudyError {
    fn from(message: String) -> Self {
        StudyError::Input(message)
    }
}

impl From<&str> for StudyError {
    fn from(message: &str) -> Self {
        StudyError::Input(message.to_string())
    }
}

/// Ticks a run lasts when neither `--ticks` nor `expect.ticks` says.
pub const DEFAULT_TICKS: u64 = 300;

/// A variant from the command line: `NAME` or `NAME:FROM=TO;FROM=TO...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub name: String,
    pub replace: Vec<(PathBuf, PathBuf)>,
    /// A sweep's point: scene numbers to rewrite, by path (none for `compare`).
    pub params: Vec<(String, f64)>,
}

impl Variant {
    /// Parses `NAME[:FROM=TO;FROM=TO...]`: split at the first `:`, each item at its first `=`
    /// (so `C:\x.lua` survives on the right of a `=`; a FROM with a drive letter should be
    /// written relative).
    pub fn parse(text: &str) -> Result<Variant, String> {
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (text, None),
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("--variant {text:?}: the name before `:` is empty"));
        }
        let mut replace = Vec::new();
        for item in rest.unwrap_or("").split(';') {
            if item.trim().is_empty() {
                continue;
            }
            let Some((from, to)) = item.split_once('=') else {
                return Err(format!(
                    "--variant {text:?}: `{item}` is not FROM=TO (a script and its replacement)"
                ));
            };
            if from.is_empty() || to.is_empty() {
                return Err(format!("--variant {text:?}: `{item}` has an empty side"));
            }
            replace.push((PathBuf::from(from), PathBuf::from(to)));
        }
        Ok(Variant {
            name: name.to_string(),
            replace,
            params: Vec::new(),
        })
    }
}

/// Parses `A..B` (both included) or a single seed `N`.
pub fn parse_seeds(text: &str) -> Result<[u64; 2], String> {
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("--seeds {text:?}: `{s}` is not a seed (0 or more)"))
    };
    let (a, b) = match text.split_once("..") {
        Some((a, b)) => (number(a)?, number(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let n = number(text)?;
            (n, n)
        }
    };
    if a > b {
        return Err(format!(
            "--seeds {text:?}: the first seed is after the last"
        ));
    }
    if b - a >= MAX_SEEDS {
        return Err(format!("--seeds {text:?}: at most {MAX_SEEDS} seeds"));
    }
    Ok([a, b])
}

/// At most this many seeds in one study.
const MAX_SEEDS: u64 = 10_000_000;

/// Which shard this process runs, 1-based: `K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl Shard {
    fn new(k: u64, n: u64, what: &str) -> Result<Shard, String> {
        if n == 0 || k == 0 || k > n {
            return Err(format!(
                "{what}: shard {k} of {n} does not exist (shards are 1..=N, N at least 1)"
            ));
        }
        Ok(Shard { k, n })
    }

    /// The shard to run: `--shard K/N`; else `JOB_COMPLETION_INDEX` (0-based, a Kubernetes
    /// Indexed Job) with N from `--shards`; else the task of a Slurm array (see
    /// [`slurm_array_shard`]); else none.
    pub fn choose(
        flag: Option<&str>,
        shards: Option<u64>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Shard>, String> {
        let int = |what: &str, v: &str| {
            v.trim()
                .parse::<u64>()
                .map_err(|_| format!("{what}={v:?} is not a whole number"))
        };
        if let Some(text) = flag {
            let (k, n) = text
                .split_once('/')
                .ok_or_else(|| format!("--shard {text:?}: write it as K/N, such as 2/8"))?;
            return Shard::new(int("--shard", k)?, int("--shard", n)?, "--shard").map(Some);
        }
        if let Some(index) = env("JOB_COMPLETION_INDEX") {
            let n = shards.ok_or(
                "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): give the job's completions as --shards N",
            )?;
            let i = int("JOB_COMPLETION_INDEX", &index)?;
            return Shard::new(i + 1, n, "JOB_COMPLETION_INDEX").map(Some);
        }
        if let Some(id) = env("SLURM_ARRAY_TASK_ID") {
            return slurm_array_shard(&id, &env, &int).map(Some);
        }
        if shards.is_some() {
            return Err("--shards N is for a Kubernetes Indexed Job, but JOB_COMPLETION_INDEX is not set; use --shard K/N".into());
        }
        Ok(None)
    }

    /// Whether the run at `index` in the study's order is this shard's (round robin).
    pub fn has(&self, index: u64) -> bool {
        index % self.n == self.k - 1
    }
}

/// The shard of a Slurm array task: task `SLURM_ARRAY_TASK_ID` of an array from
/// `SLURM_ARRAY_TASK_MIN` (0 if unset) in steps of `SLURM_ARRAY_TASK_STEP` (1 if unset) is shard
/// `(id - min) / step + 1` of `SLURM_ARRAY_TASK_COUNT`. Arrays whose tasks are not evenly
/// stepped (`--array=0,3,5`) are refused, as is a one-task array whose task is not its array's
/// first (`sbatch --array=2`, one task submitted again), which would otherwise run the whole
/// study into that task's file.
fn slurm_array_shard(
    id: &str,
    env: &impl Fn(&str) -> Option<String>,
    int: &impl Fn(&str, &str) -> Result<u64, String>,
) -> Result<Shard, String> {
    let id = int("SLURM_ARRAY_TASK_ID", id)?;
    let count = env("SLURM_ARRAY_TASK_COUNT")
        .ok_or("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")?;
    let n = int("SLURM_ARRAY_TASK_COUNT", &count)?;
    let read = |name: &str, default: u64| match env(name) {
        Some(v) => int(name, &v),
        None => Ok(default),
    };
    let min = read("SLURM_ARRAY_TASK_MIN", 0)?;
    let step = read("SLURM_ARRAY_TASK_STEP", 1)?.max(1);
    let offset = id
        .checked_sub(min)
        .ok_or_else(|| format!("SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"))?;
    let resubmit = "run that task again with `scontrol requeue JOBID_TASK` (it resumes its own file), or give its shard yourself with --shard K/N";
    if n == 1 && id != 0 {
        return Err(format!(
            "this Slurm array has one task, number {id}: that looks like one task of a larger array submitted again (sbatch --array={id}), which would run the whole study into one shard's file; {resubmit}"
        ));
    }
    if let Some(max) = env("SLURM_ARRAY_TASK_MAX") {
        let max = int("SLURM_ARRAY_TASK_MAX", &max)?;
        let stepped = max >= min && (max - min) % step == 0 && (max - min) / step + 1 == n;
        if !stepped {
            return Err(format!(
                "the Slurm array's {n} tasks are not evenly spaced from {min} to {max} in steps of {step} (a listed array such as --array=0,3,5), so no task can tell which shard it is; submit a range such as --array=0-{last} or --array=0-{stepped_last}:2, or give each task --shard K/{n}",
                last = n.saturating_sub(1),
                stepped_last = 2 * n.saturating_sub(1),
            ));
        }
    }
    if offset % step != 0 {
        return Err(format!(
            "SLURM_ARRAY_TASK_ID {id} is not on the array's steps of {step} from {min}"
        ));
    }
    Shard::new(offset / step + 1, n, "SLURM_ARRAY_TASK_ID")
}

/// What `agentbox compare` was asked.
pub struct CompareOptions {
    pub scene: PathBuf,
    pub variants: Vec<String>,
    pub seeds: String,
    pub ticks: Option<u64>,
    pub jobs: Option<usize>,
    pub out: Option<PathBuf>,
    pub shard: Option<String>,
    pub shards: Option<u64>,
    /// Show a progress bar on standard error.
    pub progress: bool,
    /// `agentbox sweep`'s axes (`PATH=A..B:STEP`): each point of their grid is a variant.
    pub params: Vec<String>,
    /// Write monitors and plots of every run here (long CSV: variant,seed,tick,name,value).
    pub monitors: Option<PathBuf>,
    /// Show what the runs' scripts `print` (on standard error, each line after
    /// `[VARIANT seed=N]`); off by default.
    pub prints: bool,
    /// `--sessions DIR` (with `--worst N:MEASURE`): write sessions of some runs.
    pub sessions: Option<sessions::SessionsSpec>,
}

/// How a study ended.
pub struct Finished {
    /// The summary of every run in the file (all of them, with `--out`; this process's
    /// otherwise).
    pub summary: Summary,
    /// Runs this process made, and runs it skipped because the file had them.
    pub ran: usize,
    pub skipped: usize,
    /// Runs that could not be made (an internal error), with why.
    pub failed: Vec<String>,
    /// What the user should know but that stops nothing (a metric that does not compile: it
    /// is null and counted as an error in every run).
    pub warnings: Vec<String>,
    /// The study's header and every run in the file, in the study's order (for `--report`).
    pub header: Header,
    pub runs: Vec<RunLine>,
    /// With `--sessions`: each picked run's variant and seed, and its session file or why
    /// it could not be written.
    pub sessions: Vec<sessions::Written>,
}

/// Everything a run needs, shared by the worker threads.
struct Plan {
    /// Keep every monitor point (`--monitors`), not only the last tick's.
    all_points: bool,
    /// Show the runs' `print` lines (`--prints`).
    prints: bool,
    scene_path: PathBuf,
    scene_bytes: Vec<u8>,
    ticks: u64,
    variants: Vec<PlanVariant>,
}

/// One variant as the runs need it.
struct PlanVariant {
    name: String,
    files: Arc<VariantFiles>,
    /// The scene text with a sweep point's numbers written in (none: the scene as read).
    scene_bytes: Option<Vec<u8>>,
    params: BTreeMap<String, f64>,
}

/// The scene built for one variant and seed.
fn scene_for(plan: &Plan, variant: usize, seed: u64) -> Result<Scene, String> {
    let bytes = plan
        .variants
        .get(variant)
        .and_then(|v| v.scene_bytes.as_deref())
        .unwrap_or(&plan.scene_bytes);
    scene::parse_with_seed(&plan.scene_path, bytes, Some(seed)).map_err(|e| e.to_string())
}

impl Plan {
    /// Where the `print` lines of a run go: nowhere, or after `[VARIANT seed=N]`.
    fn echo(&self, variant: &str, seed: u64) -> agentbox_lua::Echo {
        if self.prints {
            agentbox_lua::Echo::Prefixed(format!("[{variant} seed={seed}]"))
        } else {
            agentbox_lua::Echo::Off
        }
    }
}

/// A run's line, and its monitor points (all of them with `--monitors`, else none).
type Run = (RunLine, Vec<monitors::Point>);

/// Makes one run.
fn run_one(plan: &Plan, variant: usize, seed: u64) -> Result<Run, String> {
    let scene = scene_for(plan, variant, seed)?;
    let PlanVariant {
        name,
        files,
        params,
        ..
    } = &plan.variants[variant];
    let reader: Rc<dyn Files> = Rc::new(Reader(Arc::clone(files)));
    let metrics = scene.metrics.clone();
    let instructions = scene.budget.instructions;
    let echo = plan.echo(name, seed);
    let mut watch = monitors::Monitors::new(&scene.monitors, seed, instructions, echo.clone())?;
    let watching = !watch.is_empty();
    let mut points = Vec::new();
    let mut session = Session::from_scene(scene, Some(seed), true, echo.clone(), reader)
        .map_err(|e| e.to_string())?;
    let mut errors = session.current_errors().len() as u64;
    let mut reach = FirstReach::new(session.scene().expect.as_ref());
    reach.observe(session.world());
    let mut contacts = 0;
    for t in 0..plan.ticks {
        let last = t + 1 == plan.ticks;
        // Plots are collected only when someone reads them: every tick for the CSV, else the
        // last tick, whose values the line reports.
        let collect = watching && (plan.all_points || last);
        if collect {
            session.host_mut().collect_plots(true);
        }
        let report = session.tick();
        if collect {
            let (world, host) = session.world_and_host();
            let plots = host.take_plots();
            let evaluate = last || (plan.all_points && watch.due(world.tick));
            let seen = watch.observe(world, plots, evaluate);
            if plan.all_points {
                points.extend(seen);
            }
        }
        errors += report.new_errors.len() as u64;
        contacts += report
            .events
            .iter()
            .filter(|e| matches!(e, Event::Contact { .. }))
            .count() as u64;
        reach.observe(session.world());
    }
    // What `world:memory(id)` reads in a metric: the agents' memories as the run left them.
    let memories = if metrics.is_empty() {
        BTreeMap::new()
    } else {
        session.memories_json()
    };
    let (world, _) = session.world_and_host();
    let measured = measure(world, &metrics, (seed, instructions), memories, echo)?;
    errors += measured.values().filter(|v| v.is_err()).count() as u64;
    let values = measured
        .into_iter()
        .map(|(name, value)| (name, value.ok()))
        .collect();
    let line = RunLine {
        variant: name.clone(),
        seed,
        ticks: plan.ticks,
        reach: reach.results().into_iter().collect(),
        contacts,
        errors,
        metrics: values,
        params: params.clone(),
        monitors: watch.latest().clone(),
    };
    Ok((line, points))
}

/// Evaluates a scene's `metrics:` against a world, in a Lua state of their own (made here,
/// with the scene's seed and instruction budget), so nothing a metric does can reach the
/// scripts of the run it measures: each metric's number, or why there is none. `memories`
/// (agent id → `self.memory` as JSON) is what `world:memory(id)` gives a metric; what a
/// metric `print`s goes where `echo` says.
pub fn measure(
    world: &Rc<agentbox_core::world::World>,
    metrics: &BTreeMap<String, String>,
    (seed, instructions): (u64, u64),
    memories: BTreeMap<String, serde_json::Value>,
    echo: agentbox_lua::Echo,
) -> Result<BTreeMap<String, Result<f64, String>>, String> {
    if metrics.is_empty() {
        return Ok(BTreeMap::new());
    }
    let mut host =
        ScriptHost::new(seed).map_err(|e| format!("cannot start Lua for metrics: {e}"))?;
    host.set_instruction_budget(instructions);
    host.set_print_echo(echo);
    host.set_memories(memories);
    Ok(metrics
        .iter()
        .map(|(name, code)| {
            let value = host
                .compile_metric(name, code)
                .and_then(|h| host.run_metric(h, world))
                .map_err(|e| format!("metric `{name}`: {e}"));
            (name.clone(), value)
        })
        .collect())
}

/// Runs `todo` (variant, seed pairs) on `jobs` threads; `done` gets each result on this
/// thread in the order of `todo`, as soon as it and all before it have finished.
fn run_all(
    plan: &Plan,
    todo: &[(usize, u64)],
    jobs: usize,
    mut done: impl FnMut(Result<Run, String>) -> Result<(), StudyError>,
) -> Result<(), StudyError> {
    let next = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<Run, String>)>();
    let jobs = jobs.clamp(1, todo.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(v, seed)) = todo.get(i) else { break };
                let result =
                    std::panic::catch_unwind(|| run_one(plan, v, seed)).unwrap_or_else(|_| {
                        Err(format!("internal error: the run of seed {seed} panicked"))
                    });
                if tx.send((i, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, Result<Run, String>> = BTreeMap::new();
        let mut released = 0;
        for (i, result) in rx {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&released) {
                released += 1;
                if let Err(e) = done(result) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

/// The header of a study, after reading its scripts once through a first session of each
/// variant (which also checks every substitution names a file the scene uses).
fn prepare(
    opts: &CompareOptions,
    variants: &[Variant],
    seeds: [u64; 2],
    shard: Option<Shard>,
) -> Result<(Plan, Header, Vec<String>), String> {
    let scene_bytes = Disk.read(&opts.scene, FileKind::Scene).map_err(|e| {
        format!(
            "{}: error: cannot read scene file: {e}",
            opts.scene.display()
        )
    })?;
    let library = Arc::new(Library::default());
    let mut plan = Plan {
        all_points: opts.monitors.is_some(),
        prints: opts.prints,
        scene_path: opts.scene.clone(),
        scene_bytes,
        ticks: 0,
        variants: Vec::new(),
    };
    let first = scene_for(&plan, usize::MAX, seeds[0])?;
    plan.ticks = opts
        .ticks
        .or(first.expect.as_ref().and_then(|e| e.ticks))
        .unwrap_or(DEFAULT_TICKS);
    for v in variants {
        plan_variant(&mut plan, opts, v, &library, seeds[0])?;
    }
    let warnings = metric_warnings(opts, &first, seeds[0])?;
    let header = Header {
        agentbox: "compare".into(),
        build: record::build_name(),
        scene: opts.scene.display().to_string(),
        scene_sha256: files::sha256(&plan.scene_bytes),
        ticks: plan.ticks,
        seeds,
        variants: variants
            .iter()
            .map(|v| VariantSpec {
                name: v.name.clone(),
                replace: v
                    .replace
                    .iter()
                    .map(|(f, t)| [f.display().to_string(), t.display().to_string()])
                    .collect(),
                params: sweep::record(&v.params),
            })
            .collect(),
        scripts: library.hashes(),
        shard: shard.map(|s| format!("{}/{}", s.k, s.n)),
    };
    Ok((plan, header, warnings))
}

/// Adds variant `v` to the plan: its files (served from `library`), its scene text (a sweep
/// point's numbers written in), and a first session at `seed` that reads its scripts, which
/// checks every substitution names a file the scene uses.
fn plan_variant(
    plan: &mut Plan,
    opts: &CompareOptions,
    v: &Variant,
    library: &Arc<Library>,
    seed: u64,
) -> Result<(), String> {
    for (from, to) in &v.replace {
        for (what, p) in [("FROM", from), ("TO", to)] {
            if !p.is_file() {
                return Err(format!(
                    "--variant {}: {what} {} is not a file",
                    v.name,
                    p.display()
                ));
            }
        }
    }
    let files = Arc::new(VariantFiles::new(Arc::clone(library), &v.replace));
    let reader: Rc<dyn Files> = Rc::new(Reader(Arc::clone(&files)));
    let scene_bytes = if v.params.is_empty() {
        None
    } else {
        let text = std::str::from_utf8(&plan.scene_bytes).map_err(|_| {
            format!(
                "{}: error: the scene is not UTF-8 text",
                opts.scene.display()
            )
        })?;
        let scene = opts.scene.display().to_string();
        Some(sweep::apply(&scene, text, &v.params)?.into_bytes())
    };
    plan.variants.push(PlanVariant {
        name: v.name.clone(),
        files: Arc::clone(&files),
        scene_bytes,
        params: sweep::record(&v.params),
    });
    let own = scene_for(plan, plan.variants.len() - 1, seed)
        .map_err(|e| format!("--variant {}: {e}", v.name))?;
    // This session only reads the scripts: what they print at load shows in the runs.
    Session::from_scene(own, Some(seed), true, agentbox_lua::Echo::Off, reader)
        .map_err(|e| e.to_string())?;
    for (from, _) in &v.replace {
        if !files.was_used(from) {
            return Err(format!(
                "--variant {}: {} is neither a script of {} nor a module its scripts require",
                v.name,
                from.display(),
                opts.scene.display()
            ));
        }
    }
    Ok(())
}

/// A warning for each of the scene's `metrics:` that does not compile (it is null in every run).
fn metric_warnings(opts: &CompareOptions, scene: &Scene, seed: u64) -> Result<Vec<String>, String> {
    let mut warnings = Vec::new();
    if !scene.metrics.is_empty() {
        let mut host = ScriptHost::new(seed).map_err(|e| format!("cannot start Lua: {e}"))?;
        for (name, code) in &scene.metrics {
            if let Err(e) = host.compile_metric(name, code) {
                warnings.push(format!(
                    "{}: warning: metric `{name}` does not compile (null in every run): {e}",
                    opts.scene.display()
                ));
            }
        }
    }
    Ok(warnings)
}

/// `agentbox compare`: runs the study (or this shard of it), skipping runs `--out` already
/// holds. `Err` is bad input or output that could not be written, with the message to print.
pub fn compare(
    opts: &CompareOptions,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Finished, StudyError> {
    let seeds = parse_seeds(&opts.seeds)?;
    let variants = variants_of(opts)?;
    if opts.ticks == Some(0) {
        return Err("--ticks must be at least 1".into());
    }
    let shard = Shard::choose(opts.shard.as_deref(), opts.shards, env)?;
    let (plan, header, warnings) = prepare(opts, &variants, seeds, shard)?;
    let (mut out, kept) = open_out(opts, &header)?;
    let write_failed = |e: std::io::Error| match &opts.out {
        Some(path) => StudyError::write_file(path)(e),
        None => StudyError::WriteRuns(e),
    };
    if kept.is_none() {
        writeln!(out, "{}", record::line(&header)).map_err(write_failed)?;
        out.flush().map_err(write_failed)?;
    }
    let kept = kept.unwrap_or_default();
    let (todo, skipped) = runs_to_make(&variants, seeds, shard, &kept);
    let jobs = opts
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = progress_bar(opts.progress, todo.len());
    let mut failed = Vec::new();
    let mut ran = 0;
    let mut made = kept;
    let mut csv = open_monitors_csv(opts)?;
    run_all(&plan, &todo, jobs, |result| {
        bar.inc(1);
        match result {
            Ok((run, points)) => {
                if let Some((f, path)) = &mut csv {
                    write_points(f, &run, &points).map_err(StudyError::write_file(path))?;
                }
                // Lines to a terminal are written round the bar, not through it; one write per
                // line, so an interruption seldom tears one.
                let line = record::line(&run) + "\n";
                bar.suspend(|| out.write_all(line.as_bytes()).and_then(|()| out.flush()))
                    .map_err(write_failed)?;
                ran += 1;
                made.push(run);
            }
            Err(e) => failed.push(e),
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    if let Some((mut f, path)) = csv {
        f.flush().map_err(StudyError::write_file(&path))?;
    }
    made.sort_by_key(|r| header.order(r));
    let sessions = match &opts.sessions {
        Some(spec) => write_sessions(&plan, &header, &made, spec)?,
        None => Vec::new(),
    };
    Ok(Finished {
        summary: summary::summarise(&header, &made),
        ran,
        skipped,
        failed,
        warnings,
        header,
        runs: made,
        sessions,
    })
}

/// `--sessions DIR`: the session of each run the spec picks (see [`sessions`]).
fn write_sessions(
    plan: &Plan,
    header: &Header,
    runs: &[RunLine],
    spec: &sessions::SessionsSpec,
) -> Result<Vec<sessions::Written>, StudyError> {
    let picked = sessions::picked(runs, &spec.pick)?;
    Ok(picked
        .into_iter()
        .filter_map(|run| {
            let (variant, _) = header.order(run)?;
            let file = spec.dir.join(sessions::file_name(run));
            Some(sessions::Written {
                variant: run.variant.clone(),
                seed: run.seed,
                file: sessions::write(plan, variant, run, &file).map(|()| file),
            })
        })
        .collect())
}

/// `--open`: makes the study's one run (one variant, one seed), writes its session into `dir`
/// and gives the file, for the window to open at the run's first reach or its end.
pub fn open_run(
    opts: &CompareOptions,
    dir: &Path,
    env: impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, StudyError> {
    let seeds = parse_seeds(&opts.seeds)?;
    let variants = variants_of(opts)?;
    if variants.len() != 1 || seeds[0] != seeds[1] {
        return Err(StudyError::Input(format!(
            "--open opens one run: give one variant (or sweep point) and one seed (this study has {} variants and seeds {}..{})",
            variants.len(),
            seeds[0],
            seeds[1]
        )));
    }
    let shard = Shard::choose(None, None, env)?;
    let (plan, _, _) = prepare(opts, &variants, seeds, shard)?;
    let (run, _) = run_one(&plan, 0, seeds[0]).map_err(StudyError::Input)?;
    let file = dir.join(sessions::file_name(&run));
    sessions::write(&plan, 0, &run, &file).map_err(StudyError::Input)?;
    Ok(file)
}

/// The study's variants: the `--variant`s given, or a sweep's grid points (`--param`), or one
/// baseline; an error for both kinds at once or two variants of one name.
fn variants_of(opts: &CompareOptions) -> Result<Vec<Variant>, String> {
    let mut variants = opts
        .variants
        .iter()
        .map(|v| Variant::parse(v))
        .collect::<Result<Vec<_>, _>>()?;
    if !opts.params.is_empty() {
        if !variants.is_empty() {
            return Err("sweep: give --param axes or --variant substitutions, not both".into());
        }
        let axes = opts
            .params
            .iter()
            .map(|p| sweep::parse_axis(p))
            .collect::<Result<Vec<_>, _>>()?;
        for point in sweep::points(&axes)? {
            variants.push(Variant {
                name: sweep::name(&point),
                replace: Vec::new(),
                params: point,
            });
        }
    }
    if variants.is_empty() {
        variants.push(Variant {
            name: "baseline".into(),
            replace: Vec::new(),
            params: Vec::new(),
        });
    }
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.name == v.name) {
            return Err(format!("--variant {}: two variants have this name", v.name));
        }
    }
    Ok(variants)
}

/// Where the runs' lines go, and the runs already there (see [`open_out`]).
type OpenedOut = (Box<dyn Write>, Option<Vec<RunLine>>);

/// Where the runs' lines go: standard output, or `--out` opened to append. `Some` with the
/// runs `--out` already holds when it holds this study (a line cut short by an interruption
/// dropped); `None` when the header is still to be written (a new, empty or cut-short file,
/// or standard output). A file of another study, or not of `agentbox compare`, is refused.
fn open_out(opts: &CompareOptions, header: &Header) -> Result<OpenedOut, StudyError> {
    let Some(path) = &opts.out else {
        return Ok((Box::new(std::io::BufWriter::new(std::io::stdout())), None));
    };
    let existing = if path.exists() {
        record::read(path)?
    } else {
        None
    };
    // A file with no whole line is either empty or a header cut short; anything else
    // is not ours to overwrite.
    if existing.is_none() {
        let start = std::fs::read(path).unwrap_or_default();
        let ours = br#"{"agentbox":"compare""#;
        if !start.is_empty() && !start.starts_with(&ours[..start.len().min(ours.len())]) {
            return Err(StudyError::Input(format!(
                "{}: error: not an `agentbox compare` file; give another --out",
                path.display()
            )));
        }
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(StudyError::write_file(path))?;
    let kept = match existing {
        Some(Recorded {
            header: old,
            runs,
            good_len,
        }) => {
            if old != *header {
                return Err(StudyError::Input(format!(
                    "{}: error: this file holds another study (its header differs: {}); give another --out or remove it",
                    path.display(),
                    header_difference(&old, header)
                )));
            }
            // Drop a line an interruption left half written.
            file.set_len(good_len)
                .map_err(StudyError::write_file(path))?;
            Some(runs)
        }
        None => {
            file.set_len(0).map_err(StudyError::write_file(path))?;
            None
        }
    };
    Ok((Box::new(file), kept))
}

/// The (variant, seed) runs this shard makes, in the study's order, leaving out those `kept`
/// already holds; and how many were left out so.
fn runs_to_make(
    variants: &[Variant],
    seeds: [u64; 2],
    shard: Option<Shard>,
    kept: &[RunLine],
) -> (Vec<(usize, u64)>, usize) {
    let done: std::collections::BTreeSet<(String, u64)> =
        kept.iter().map(|r| (r.variant.clone(), r.seed)).collect();
    let mut todo = Vec::new();
    let mut skipped = 0;
    let mut index = 0u64;
    for (v, variant) in variants.iter().enumerate() {
        for seed in seeds[0]..=seeds[1] {
            let mine = shard.is_none_or(|s| s.has(index));
            index += 1;
            if !mine {
                continue;
            }
            if done.contains(&(variant.name.clone(), seed)) {
                skipped += 1;
            } else {
                todo.push((v, seed));
            }
        }
    }
    (todo, skipped)
}

/// The progress bar of `runs` runs (`--progress`), or a hidden one.
fn progress_bar(show: bool, runs: usize) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(runs as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {rate}, {eta} left")
            .map(|style| {
                style.with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&rate(state.per_sec()));
                    },
                )
            })
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// A progress rate for people: `12.3 runs/s` (one decimal), or `1 run every 4.2 s` when runs
/// are slower than one a second.
fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return "-- runs/s".to_string();
    }
    if per_sec >= 1.0 {
        format!("{per_sec:.1} runs/s")
    } else {
        format!("1 run every {:.1} s", 1.0 / per_sec)
    }
}

/// The `--monitors` CSV file, created with its header line, and its path for messages.
fn open_monitors_csv(
    opts: &CompareOptions,
) -> Result<Option<(std::io::BufWriter<std::fs::File>, PathBuf)>, StudyError> {
    let Some(path) = &opts.monitors else {
        return Ok(None);
    };
    let mut f =
        std::io::BufWriter::new(std::fs::File::create(path).map_err(StudyError::write_file(path))?);
    writeln!(f, "variant,seed,tick,name,value").map_err(StudyError::write_file(path))?;
    Ok(Some((f, path.clone())))
}

/// One run's monitor points as CSV lines.
fn write_points(
    f: &mut impl Write,
    run: &RunLine,
    points: &[monitors::Point],
) -> std::io::Result<()> {
    let variant = monitors::csv_field(&run.variant);
    for p in points {
        writeln!(
            f,
            "{variant},{},{},{},{}",
            run.seed,
            p.tick,
            monitors::csv_field(&p.name),
            p.value
        )?;
    }
    Ok(())
}

/// How two headers differ, for the refusal message: the scene or the scripts that changed
/// since the file was written (by name, not their hashes), then every other field that
/// differs with its two values.
fn header_difference(old: &Header, new: &Header) -> String {
    let mut said = Vec::new();
    if old.scene == new.scene && old.scene_sha256 != new.scene_sha256 {
        said.push(format!("{} changed since the file was written", new.scene));
    }
    let changed: Vec<&str> = new
        .scripts
        .iter()
        .filter(|(name, hash)| old.scripts.get(*name).is_some_and(|h| h != *hash))
        .map(|(name, _)| name.as_str())
        .collect();
    let list = |names: &[&str]| names.join(", ");
    if !changed.is_empty() {
        said.push(format!(
            "{} changed since the file was written",
            list(&changed)
        ));
    }
    let (added, gone) = (scripts_only_in(new, old), scripts_only_in(old, new));
    if !added.is_empty() {
        said.push(format!("the study now also reads {}", list(&added)));
    }
    if !gone.is_empty() {
        said.push(format!("the study no longer reads {}", list(&gone)));
    }
    let (a, b) = (
        serde_json::to_value(old).unwrap_or_default(),
        serde_json::to_value(new).unwrap_or_default(),
    );
    if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
        for (key, value) in b {
            if matches!(key.as_str(), "scripts" | "scene_sha256") {
                continue;
            }
            if a.get(key) != Some(value) {
                said.push(format!(
                    "`{key}` was {} and is now {}",
                    a.get(key).map_or("missing".into(), |v| v.to_string()),
                    value
                ));
            }
        }
    }
    if said.is_empty() {
        "it is not the same".into()
    } else {
        said.join("; ")
    }
}

/// The scripts header `a` names and `b` does not.
fn scripts_only_in<'a>(a: &'a Header, b: &Header) -> Vec<&'a str> {
    a.scripts
        .keys()
        .filter(|name| !b.scripts.contains_key(*name))
        .map(String::as_str)
        .collect()
}

/// What `agentbox merge` gave.
pub struct Merged {
    pub header: Header,
    pub runs: Vec<RunLine>,
    pub summary: Summary,
}

/// `agentbox merge`: checks the files' headers describe one study (shards aside), joins their
/// runs in the study's order (a run in two files must be the same line), and summarises.
/// With `out`, writes the merged study, which equals one unsharded run's file.
pub fn merge(paths: &[PathBuf], out: Option<&Path>) -> Result<Merged, StudyError> {
    let mut header: Option<(Header, &Path)> = None;
    let mut runs: BTreeMap<(usize, u64), RunLine> = BTreeMap::new();
    for path in paths {
        let Some(file) = record::read(path)? else {
            return Err(StudyError::Input(format!(
                "{}: error: the file is empty",
                path.display()
            )));
        };
        match &header {
            None => header = Some((file.header.clone(), path)),
            Some((h, first)) if !h.same_study(&file.header) => {
                return Err(StudyError::Input(format!(
                    "{}: error: its header does not match {}'s ({})",
                    path.display(),
                    first.display(),
                    header_difference(h, &file.header)
                )))
            }
            Some(_) => {}
        }
        let h = &header.as_ref().map(|h| h.0.clone()).unwrap_or(file.header);
        for run in file.runs {
            let Some(key) = h.order(&run) else { continue };
            if let Some(old) = runs.get(&key) {
                if *old != run {
                    return Err(StudyError::Input(format!(
                        "{}: error: variant {} seed {} differs from the same run in another file",
                        path.display(),
                        run.variant,
                        run.seed
                    )));
                }
            }
            runs.insert(key, run);
        }
    }
    let Some((mut header, _)) = header else {
        return Err("error: no files to merge".into());
    };
    header.shard = None;
    let runs: Vec<RunLine> = runs.into_values().collect();
    if let Some(out) = out {
        let mut text = record::line(&header) + "\n";
        for run in &runs {
            text += &record::line(run);
            text.push('\n');
        }
        std::fs::write(out, text).map_err(StudyError::write_file(out))?;
    }
    let summary = summary::summarise(&header, &runs);
    Ok(Merged {
        header,
        runs,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The progress bar's rate is rounded to one decimal, never a long float.
    #[test]
    fn the_progress_rate_is_rounded() {
        assert_eq!(rate(12.345_678_9), "12.3 runs/s");
        assert_eq!(rate(1.0), "1.0 runs/s");
        assert_eq!(rate(0.238_095_238), "1 run every 4.2 s");
        assert_eq!(rate(0.0), "-- runs/s");
        assert_eq!(rate(f64::INFINITY), "-- runs/s");
    }

    /// Metrics that try to disturb a run: drawing random numbers, setting globals, writing to
    /// the world, raising.
    const NOSY: &str = r#"
tick: world:tick()
random: math.random(1, 6) + math.random()
globals: |
  _G.tampered = true
  rawset(_G, "decide", nil)
  return 1
write: |
  local ok = pcall(function() world:agent("hunter-1").pos.x = 0 end)
  return ok and 1 or 0
fails: error("no number here")
"#;

    #[test]
    fn metrics_never_change_the_trace_even_measured_after_every_tick() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenes/pursuit.yaml"
        ));
        let metrics: BTreeMap<String, String> = serde_saphyr::from_str(NOSY).unwrap();
        let trace = |measured: bool| {
            let mut session = Session::open_with(path, Some(3), true).unwrap();
            let mut lines = Vec::new();
            let mut seen = Vec::new();
            for _ in 0..120 {
                let report = session.tick();
                lines.push(agentbox_core::sim::trace::line(
                    session.world(),
                    &report.events,
                ));
                if measured {
                    let (world, _) = session.world_and_host();
                    seen.push(
                        measure(
                            world,
                            &metrics,
                            (3, 1_000_000),
                            BTreeMap::new(),
                            agentbox_lua::Echo::Stderr,
                        )
                        .unwrap(),
                    );
                }
            }
            (lines, seen)
        };
        let (plain, _) = trace(false);
        let (measured, seen) = trace(true);
        assert_eq!(plain.len(), 120);
        assert!(plain == measured, "measuring changed the trace");
        let last = &seen[119];
        assert_eq!(last["tick"], Ok(120.0));
        assert!(last["random"]
            .as_ref()
            .is_ok_and(|v| (1.0..7.0).contains(v)));
        assert_eq!(last["globals"], Ok(1.0));
        assert_eq!(last["write"], Ok(0.0), "views are read-only");
        assert!(
            last["fails"]
                .as_ref()
                .is_err_and(|e| e.contains("no number here")),
            "{:?}",
            last["fails"]
        );
    }

    #[test]
    fn variants_split_at_the_first_colon_and_each_item_at_its_first_equals() {
        assert_eq!(
            Variant::parse("base").unwrap(),
            Variant {
                name: "base".into(),
                replace: vec![],
                params: vec![]
            }
        );
        let v = Variant::parse(r"win:scripts\a.lua=C:\x\b.lua;lib/m.lua=lib/n.lua").unwrap();
        assert_eq!(v.name, "win");
        assert_eq!(
            v.replace,
            vec![
                (
                    PathBuf::from(r"scripts\a.lua"),
                    PathBuf::from(r"C:\x\b.lua")
                ),
                (PathBuf::from("lib/m.lua"), PathBuf::from("lib/n.lua")),
            ]
        );
        assert!(Variant::parse(":a=b").is_err());
        assert!(Variant::parse("x:a.lua").is_err());
        assert!(Variant::parse("x:=b").is_err());
    }

    #[test]
    fn seeds_are_inclusive() {
        assert_eq!(parse_seeds("1..40"), Ok([1, 40]));
        assert_eq!(parse_seeds("1..=40"), Ok([1, 40]));
        assert_eq!(parse_seeds("7"), Ok([7, 7]));
        assert!(parse_seeds("5..4").is_err());
        assert!(parse_seeds("a..4").is_err());
    }

    #[test]
    fn shards_come_from_the_flag_kubernetes_or_slurm() {
        let none = |_: &str| None;
        assert_eq!(Shard::choose(None, None, none), Ok(None));
        assert_eq!(
            Shard::choose(Some("2/3"), None, none),
            Ok(Some(Shard { k: 2, n: 3 }))
        );
        assert!(Shard::choose(Some("0/3"), None, none).is_err());
        assert!(Shard::choose(Some("4/3"), None, none).is_err());
        assert!(Shard::choose(None, Some(3), none).is_err());
        let k8s = |k: &str| (k == "JOB_COMPLETION_INDEX").then(|| "2".to_string());
        assert_eq!(
            Shard::choose(None, Some(3), k8s),
            Ok(Some(Shard { k: 3, n: 3 }))
        );
        assert!(Shard::choose(None, None, k8s).is_err(), "needs --shards");
        let slurm = |k: &str| match k {
            "SLURM_ARRAY_TASK_ID" => Some("5".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("3".to_string()),
            "SLURM_ARRAY_TASK_MIN" => Some("4".to_string()),
            _ => None,
        };
        assert_eq!(
            Shard::choose(None, None, slurm),
            Ok(Some(Shard { k: 2, n: 3 }))
        );
        let s = Shard { k: 2, n: 3 };
        let mine: Vec<u64> = (0..9).filter(|&i| s.has(i)).collect();
        assert_eq!(mine, vec![1, 4, 7]);
    }

    /// The variables Slurm 22.05 sets for a task of `sbatch --array=SPEC`, as read off a
    /// one-node cluster: task `id` of an array with these min, max, step and count.
    fn slurm_task(
        id: u64,
        min: u64,
        max: u64,
        step: u64,
        count: u64,
    ) -> Result<Option<Shard>, String> {
        Shard::choose(None, None, |k: &str| {
            let v = match k {
                "SLURM_ARRAY_TASK_ID" => id,
                "SLURM_ARRAY_TASK_MIN" => min,
                "SLURM_ARRAY_TASK_MAX" => max,
                "SLURM_ARRAY_TASK_STEP" => step,
                "SLURM_ARRAY_TASK_COUNT" => count,
                _ => return None,
            };
            Some(v.to_string())
        })
    }

    #[test]
    fn stepped_slurm_arrays_map_each_task_to_its_own_shard() {
        // --array=0-6:2: tasks 0, 2, 4 and 6 are shards 1 to 4 of 4.
        let shards: Vec<u64> = [0, 2, 4, 6]
            .iter()
            .map(|&id| slurm_task(id, 0, 6, 2, 4).unwrap().unwrap().k)
            .collect();
        assert_eq!(shards, vec![1, 2, 3, 4]);
        // --array=1-9:4: tasks 1, 5 and 9.
        assert_eq!(slurm_task(9, 1, 9, 4, 3), Ok(Some(Shard { k: 3, n: 3 })));
        // --array=0-3 (step 1), as before.
        assert_eq!(slurm_task(3, 0, 3, 1, 4), Ok(Some(Shard { k: 4, n: 4 })));
    }

    #[test]
    fn listed_arrays_and_one_task_submitted_again_are_refused_with_what_to_do() {
        // --array=0,3,5: three tasks from 0 to 5 in steps of 1.
        let listed = slurm_task(3, 0, 5, 1, 3).unwrap_err();
        assert!(
            listed.contains("--array=0,3,5") && listed.contains("--shard K/3"),
            "{listed}"
        );
        // sbatch --array=2: one task, number 2.
        let again = slurm_task(2, 2, 2, 1, 1).unwrap_err();
        assert!(
            again.contains("scontrol requeue") && again.contains("--shard K/N"),
            "{again}"
        );
        // A one-task array of task 0 is the whole study.
        assert_eq!(slurm_task(0, 0, 0, 1, 1), Ok(Some(Shard { k: 1, n: 1 })));
    }
}
