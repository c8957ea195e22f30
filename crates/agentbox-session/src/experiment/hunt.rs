//! `agentbox hunt`: looks for the scenario that breaks a scene's `expect:`. It draws scenarios
//! (a seed, and a value for each `--vary PATH=A..B`: scene numbers by the paths `sweep` takes),
//! runs the scene's expectations on each, keeps every one that fails, and shrinks each
//! distinct failure (by the failing expectation: its kind and name or agent) towards the
//! scene's own values and the smallest seed while it still fails the same way, as QuickCheck
//! and proptest shrink. A drawn scenario that does not load (an agent on a wall or off the
//! map) is drawn again, never reported.
//!
//! - **Deterministic.** The draws come from a ChaCha8 stream of `--seed`; tries run on worker
//!   threads in batches, and are judged in the order drawn.
//! - **Shards.** With a shard, this process runs its share of the tries (round robin by try
//!   number) and shrinks what it found.
//!
//! It drives sessions and writes the shrunk scenes (beside the scene, so its relative paths
//! hold) and their sessions (through `testrun`); it must not draw or name mlua.

use super::{parse_seeds, Shard, StudyError};
use crate::session::Session;
use crate::testrun::{self, Outcome, SessionsTo};
use agentbox_core::expect::{Expectations, Failure};
use agentbox_core::files::{Disk, FileKind, Files};
use agentbox_core::scene::{self, numbers};
use agentbox_core::world::rng;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// What `agentbox hunt` was asked.
pub struct HuntOptions {
    pub scene: PathBuf,
    /// `PATH=A..B` each.
    pub vary: Vec<String>,
    pub seeds: String,
    /// Scenarios to try (ones that do not load are drawn again and not counted).
    pub tries: usize,
    /// The draws' random seed.
    pub seed: u64,
    /// Where the sessions go (default: beside the scene).
    pub sessions: Option<PathBuf>,
    pub jobs: Option<usize>,
    pub shard: Option<String>,
    pub shards: Option<u64>,
}

/// One varied number: its path, range (both ends included) and the scene's own value.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub path: String,
    pub low: f64,
    pub high: f64,
    /// Whole numbers only (both ends and the scene's value are whole).
    pub whole: bool,
    pub own: f64,
}

/// A scenario: a seed and a value for each varied path.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub seed: u64,
    pub values: Vec<(String, f64)>,
}

impl Scenario {
    /// `seed=N PATH=V ...`, as the summary prints it.
    pub fn describe(&self) -> String {
        let mut parts = vec![format!("seed={}", self.seed)];
        parts.extend(
            self.values
                .iter()
                .map(|(p, v)| format!("{p}={}", numbers::format_number(*v))),
        );
        parts.join(" ")
    }
}

/// A distinct failure, shrunk.
pub struct Found {
    /// What failed (`reach: `guard``, `lua `name``).
    pub key: String,
    /// The reason, as `agentbox test` prints it, for the shrunk scenario.
    pub reason: String,
    /// The try that first failed this way (from 1), and the scenario it drew.
    pub first_try: usize,
    pub drawn: Scenario,
    pub shrunk: Scenario,
    /// Scenarios run while shrinking.
    pub shrink_runs: usize,
    /// The shrunk scenario's scene file, its session (or why none), and the command to open it.
    pub scene_file: PathBuf,
    pub session: Result<PathBuf, String>,
    pub command: Option<String>,
}

/// How a hunt ended.
pub struct Hunted {
    pub tries: usize,
    /// Draws that did not load and were drawn again.
    pub redrawn: usize,
    /// Tries that failed an expectation.
    pub failing: usize,
    pub found: Vec<Found>,
}

/// At most this many draws per try before giving up (every draw failing to load).
const REDRAWS: usize = 1000;
/// At most this many runs while shrinking one failure.
const SHRINK_RUNS: usize = 400;

/// Parses `PATH=A..B` against the scene's text (the path must name a number there).
pub fn parse_vary(text: &str, scene_text: &str, scene: &Path) -> Result<Range, String> {
    let bad = |why: &str| {
        format!("--vary {text:?}: {why} (write PATH=A..B, such as agents.intruder.at.0=1..20)")
    };
    let (path, range) = text.split_once('=').ok_or_else(|| bad("no `=`"))?;
    let path = path.trim();
    if path.is_empty() {
        return Err(bad("the path before `=` is empty"));
    }
    let (a, b) = range
        .split_once("..")
        .ok_or_else(|| bad("no `..` in the range"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad(&format!("`{}` is not a number", s.trim())))
    };
    let (low, high) = (number(a)?, number(b)?);
    if high < low {
        return Err(bad("the range is empty (B is below A)"));
    }
    let own = numbers::locate(scene_text, path)
        .map_err(|e| format!("{}: error: --vary {e}", scene.display()))?
        .value;
    let whole = [low, high, own].iter().all(|v| v.fract() == 0.0);
    Ok(Range {
        path: path.to_string(),
        low,
        high,
        whole,
        own,
    })
}

/// What running a scenario gave: it did not load, or its failures (empty: it passed).
enum Ran {
    NoLoad,
    Failures(Vec<Failure>),
}

/// The key a failure is told apart by: its kind and the name or agent it is about (the reason
/// up to its second backquote, or up to its `:`).
pub fn failure_key(reason: &str) -> String {
    let ticks = reason.match_indices('`').map(|(i, _)| i).nth(1);
    match ticks {
        Some(i) => reason[..=i].to_string(),
        None => reason.split(':').next().unwrap_or(reason).to_string(),
    }
}

/// Runs one scenario's expectations headless.
fn run(path: &Path, text: &str, s: &Scenario) -> Ran {
    let Ok(bytes) = numbers::set_numbers(text, &s.values) else {
        return Ran::NoLoad;
    };
    let Ok(scene) = scene::parse_with_seed(path, bytes.as_bytes(), Some(s.seed)) else {
        return Ran::NoLoad;
    };
    let Some(spec) = scene.expect.clone() else {
        return Ran::Failures(Vec::new());
    };
    let files: Rc<dyn Files> = Rc::new(Disk);
    let Ok(mut session) =
        Session::from_scene(scene, Some(s.seed), true, agentbox_lua::Echo::Off, files)
    else {
        return Ran::NoLoad;
    };
    let errors = session.current_errors();
    let (world, host) = session.world_and_host();
    let mut expectations = Expectations::new(&spec, host);
    expectations.script_errors(errors);
    expectations.observe(world, None, host);
    for _ in 0..expectations.ticks() {
        let report = session.tick();
        let (world, host) = session.world_and_host();
        expectations.observe(world, Some(&report), host);
    }
    let (world, host) = session.world_and_host();
    Ran::Failures(expectations.failures(world, host))
}

/// Draws a value in a range.
fn draw(r: &mut ChaCha8Rng, range: &Range) -> f64 {
    if range.whole {
        rng::int_in(r, range.low as i64, range.high as i64) as f64
    } else {
        range.low + rng::unit_f64(r) * (range.high - range.low)
    }
}

/// Scenarios one step simpler than `s`: the smallest seed, or half-way or one nearer to it;
/// each value at the scene's own, or half-way or one nearer to it. Most radical first.
fn simpler(s: &Scenario, ranges: &[Range], first_seed: u64) -> Vec<Scenario> {
    let mut out = Vec::new();
    if s.seed > first_seed {
        let mut seeds = vec![
            first_seed,
            first_seed + (s.seed - first_seed) / 2,
            s.seed - 1,
        ];
        seeds.dedup();
        for seed in seeds.into_iter().filter(|&x| x < s.seed) {
            out.push(Scenario { seed, ..s.clone() });
        }
    }
    for (i, range) in ranges.iter().enumerate() {
        let now = s.values[i].1;
        let gap = range.own - now;
        if gap == 0.0 {
            continue;
        }
        let mut tries = vec![range.own];
        if range.whole {
            tries.push(now + (gap / 2.0).trunc());
            tries.push(now + gap.signum());
        } else if gap.abs() > (range.high - range.low) * 1e-3 {
            tries.push(now + gap / 2.0);
        }
        tries.dedup();
        for v in tries.into_iter().filter(|v| *v != now) {
            let mut next = s.clone();
            next.values[i].1 = v;
            out.push(next);
        }
    }
    out
}

/// Shrinks a failing scenario while it still fails with `key`: the simplest found, its
/// failure, and the runs it took.
fn shrink(
    path: &Path,
    text: &str,
    ranges: &[Range],
    first_seed: u64,
    start: Scenario,
    failure: Failure,
    key: &str,
) -> (Scenario, Failure, usize) {
    let (mut now, mut failure, mut runs) = (start, failure, 0);
    'outer: while runs < SHRINK_RUNS {
        for next in simpler(&now, ranges, first_seed) {
            runs += 1;
            if let Ran::Failures(fs) = run(path, text, &next) {
                if let Some(f) = fs.into_iter().find(|f| failure_key(&f.reason) == key) {
                    now = next;
                    failure = f;
                    continue 'outer;
                }
            }
            if runs >= SHRINK_RUNS {
                break 'outer;
            }
        }
        break;
    }
    (now, failure, runs)
}

/// Runs a batch of scenarios on `jobs` threads; results in order.
fn run_batch(path: &Path, text: &str, batch: &[Scenario], jobs: usize) -> Vec<Ran> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Ran>> = (0..batch.len()).map(|_| None).collect();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Ran)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, batch.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(s) = batch.get(i) else { break };
                let ran = std::panic::catch_unwind(|| run(path, text, s)).unwrap_or(Ran::NoLoad);
                if tx.send((i, ran)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, ran) in rx {
            results[i] = Some(ran);
        }
    });
    results
        .into_iter()
        .map(|r| r.unwrap_or(Ran::NoLoad))
        .collect()
}

/// Whether a file is a scenario `hunt` wrote (`guard_corner.hunt-1.yaml`): a scene that fails
/// its `expect:` by construction, which a folder's `agentbox test` passes over.
pub fn is_hunt_scenario(path: &Path) -> bool {
    let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
        return false;
    };
    stem.rsplit_once(".hunt-").is_some_and(|(scene, n)| {
        !scene.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Writes the shrunk scenario as a scene beside the original (`guard_corner.hunt-1.yaml`),
/// with a comment saying where it came from.
fn write_scene(
    path: &Path,
    text: &str,
    n: usize,
    s: &Scenario,
    reason: &str,
) -> Result<PathBuf, String> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = path.with_file_name(format!("{stem}.hunt-{n}.yaml"));
    let body = numbers::set_numbers(text, &s.values).map_err(|e| e.to_string())?;
    let body = numbers::set_numbers(&body, &[("seed".to_string(), s.seed as f64)]).unwrap_or(body);
    let comment = format!(
        "# Found by agentbox hunt in {}: {}\n# fails: {}\n",
        path.display(),
        s.describe(),
        reason.replace('\n', " ")
    );
    std::fs::write(&file, comment + &body)
        .map_err(|e| format!("{}: error: cannot write: {e}", file.display()))?;
    Ok(file)
}

/// `agentbox hunt`.
pub fn hunt(
    opts: &HuntOptions,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Hunted, StudyError> {
    let seeds = parse_seeds(&opts.seeds)?;
    if opts.vary.is_empty() {
        return Err("hunt: give at least one --vary PATH=A..B".into());
    }
    if opts.tries == 0 {
        return Err("--tries must be at least 1".into());
    }
    let shard = Shard::choose(opts.shard.as_deref(), opts.shards, env)?;
    let bytes = Disk.read(&opts.scene, FileKind::Scene).map_err(|e| {
        format!(
            "{}: error: cannot read scene file: {e}",
            opts.scene.display()
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        format!(
            "{}: error: the scene is not UTF-8 text",
            opts.scene.display()
        )
    })?;
    let ranges = opts
        .vary
        .iter()
        .map(|v| parse_vary(v, &text, &opts.scene))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, r) in ranges.iter().enumerate() {
        if ranges[..i].iter().any(|o| o.path == r.path) {
            return Err(format!("--vary {}: varied twice", r.path).into());
        }
    }
    let own = Scenario {
        seed: seeds[0],
        values: ranges.iter().map(|r| (r.path.clone(), r.own)).collect(),
    };
    if matches!(run(&opts.scene, &text, &own), Ran::NoLoad) {
        return Err(format!("{}: error: the scene does not load", opts.scene.display()).into());
    }
    let jobs = opts
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut r = ChaCha8Rng::seed_from_u64(opts.seed);
    let (mut tries, mut redrawn, mut failing) = (0, 0, 0);
    let mut first: BTreeMap<String, (usize, Scenario, Failure)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut pending: Vec<(usize, Scenario)> = Vec::new();
    let mut draws = 0;
    while tries < opts.tries {
        // A batch of draws; the ones that do not load are drawn again.
        while pending.len() < jobs * 4 && tries + pending.len() < opts.tries {
            draws += 1;
            if draws > opts.tries * REDRAWS {
                return Err(
                    "hunt: almost no drawn scenario loads; narrow the --vary ranges".into(),
                );
            }
            let s = Scenario {
                seed: rng::int_in(&mut r, seeds[0] as i64, seeds[1] as i64) as u64,
                values: ranges
                    .iter()
                    .map(|range| (range.path.clone(), draw(&mut r, range)))
                    .collect(),
            };
            pending.push((tries + pending.len() + 1, s));
        }
        let batch: Vec<Scenario> = pending.iter().map(|(_, s)| s.clone()).collect();
        let mine: Vec<bool> = pending
            .iter()
            .map(|(n, _)| shard.is_none_or(|sh| sh.has(*n as u64 - 1)))
            .collect();
        let to_run: Vec<Scenario> = batch
            .iter()
            .zip(&mine)
            .filter(|(_, m)| **m)
            .map(|(s, _)| s.clone())
            .collect();
        let mut results = run_batch(&opts.scene, &text, &to_run, jobs).into_iter();
        for ((_, s), m) in pending.drain(..).zip(mine) {
            let ran = if m {
                results.next().unwrap_or(Ran::NoLoad)
            } else {
                Ran::Failures(Vec::new())
            };
            match ran {
                Ran::NoLoad => redrawn += 1,
                Ran::Failures(fs) => {
                    tries += 1;
                    if !fs.is_empty() {
                        failing += 1;
                    }
                    for f in fs {
                        let key = failure_key(&f.reason);
                        if let std::collections::btree_map::Entry::Vacant(e) =
                            first.entry(key.clone())
                        {
                            order.push(key);
                            e.insert((tries, s.clone(), f));
                        }
                    }
                }
            }
        }
    }
    let to = match &opts.sessions {
        Some(dir) => SessionsTo::Folder(dir.clone()),
        None => SessionsTo::BesideScene,
    };
    let mut found = Vec::new();
    for (n, key) in order.iter().enumerate() {
        let (first_try, drawn, failure) = first[key].clone();
        let (shrunk, failure, shrink_runs) = shrink(
            &opts.scene,
            &text,
            &ranges,
            seeds[0],
            drawn.clone(),
            failure,
            key,
        );
        let scene_file = write_scene(&opts.scene, &text, n + 1, &shrunk, &failure.reason)?;
        let (session, command) =
            match testrun::run_scene_seeded(&scene_file, Some(shrunk.seed), &to) {
                Outcome::Failed(fs) => {
                    let mine = fs.into_iter().find(|f| failure_key(&f.reason) == *key);
                    match mine.and_then(|f| f.session) {
                        Some(Ok(file)) => {
                            let command = format!(
                                "agentbox run {} --session {}",
                                crate::shell::shell_word(&scene_file.display().to_string()),
                                crate::shell::shell_word(&file.display().to_string())
                            );
                            (Ok(file), Some(command))
                        }
                        Some(Err(e)) => (Err(e), None),
                        None => (
                            Err("the written scene no longer fails this way".into()),
                            None,
                        ),
                    }
                }
                _ => (Err("the written scene no longer fails".into()), None),
            };
        found.push(Found {
            key: key.clone(),
            reason: failure.reason,
            first_try,
            drawn,
            shrunk,
            shrink_runs,
            scene_file,
            session,
            command,
        });
    }
    Ok(Hunted {
        tries,
        redrawn,
        failing,
        found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunt_scenarios_are_told_by_their_name() {
        assert!(is_hunt_scenario(Path::new(
            "scenes/guard_corner.hunt-1.yaml"
        )));
        assert!(is_hunt_scenario(Path::new("a.hunt-12.yml")));
        assert!(!is_hunt_scenario(Path::new("scenes/guard_corner.yaml")));
        assert!(!is_hunt_scenario(Path::new("scenes/a.hunt-x.yaml")));
        assert!(!is_hunt_scenario(Path::new("scenes/.hunt-1.yaml")));
    }

    #[test]
    fn failures_are_told_apart_by_kind_and_name() {
        assert_eq!(
            failure_key("reach: `guard` did not come within 1 of `intruder` by tick 600 (closest 3.2 at tick 10)"),
            "reach: `guard`"
        );
        assert_eq!(
            failure_key("lua `walls`: a is inside a wall"),
            "lua `walls`"
        );
        assert_eq!(failure_key("no_errors: x.lua:3: boom"), "no_errors");
    }

    #[test]
    fn shrinking_steps_go_towards_the_scenes_values_and_the_first_seed() {
        let ranges = [Range {
            path: "a".into(),
            low: 0.0,
            high: 20.0,
            whole: true,
            own: 4.0,
        }];
        let s = Scenario {
            seed: 9,
            values: vec![("a".into(), 14.0)],
        };
        let steps: Vec<String> = simpler(&s, &ranges, 1)
            .iter()
            .map(Scenario::describe)
            .collect();
        assert_eq!(
            steps,
            [
                "seed=1 a=14",
                "seed=5 a=14",
                "seed=8 a=14",
                "seed=9 a=4",
                "seed=9 a=9",
                "seed=9 a=13"
            ]
        );
    }
}
