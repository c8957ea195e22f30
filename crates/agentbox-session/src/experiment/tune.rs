//! `agentbox tune`: searches the values of some of a scene's tunables for the best objective,
//! with a seeded separable CMA-ES (`cma.rs`) over their declared ranges (snapped to their
//! steps). Each evaluation is a `compare` run of the candidate over the seeds on the study
//! runner (its numbers written into the scene text as `sweep` writes them); the objective is a
//! Lua expression of the candidate's summary (`ScriptHost::evaluate_objective`).
//!
//! - **Record.** `--out` holds a header, then one line per evaluation. The search depends only
//!   on `--seed` and the objective values, so a resumed record replays what it holds and goes
//!   on: it equals an uninterrupted one.
//! - **Evaluation 0** is the scene's own values; the search starts there.
//! - **Shards.** With a shard, this process evaluates its share of each generation (round
//!   robin) and records those lines; the next generation starts once the merged record
//!   (`--out` of every shard, read back) has the whole generation.
//!
//! It drives the study runner and reads and writes its record; it must not draw, name mlua or
//! write the scene (the CLI's `--write` does, through `scene::save`).

use super::cma::Cma;
use super::record::{self, Header, RunLine};
use super::summary::{self, Summary, VariantSummary};
use super::{parse_seeds, prepare, run_all, sweep, CompareOptions, Shard, StudyError, Variant};
use agentbox_core::scene::{self, tunable::Tunable};
use agentbox_lua::ScriptHost;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// What `agentbox tune` was asked.
pub struct TuneOptions {
    pub scene: PathBuf,
    pub tunables: Vec<String>,
    pub objective: String,
    /// Higher objective is better (else lower).
    pub maximize: bool,
    pub seeds: String,
    /// Evaluations in all, the scene's own values included.
    pub evals: usize,
    /// The search's random seed.
    pub seed: u64,
    pub ticks: Option<u64>,
    pub jobs: Option<usize>,
    pub out: Option<PathBuf>,
    pub shard: Option<String>,
    pub shards: Option<u64>,
}

/// The first line of a tune record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneHeader {
    /// Always `"tune"`.
    pub agentbox: String,
    pub build: String,
    pub scene: String,
    pub scene_sha256: String,
    pub tunables: Vec<String>,
    pub objective: String,
    /// `"maximize"` or `"minimize"`.
    pub goal: String,
    pub seeds: [u64; 2],
    pub seed: u64,
    pub evals: usize,
    /// `K/N` for one shard's record.
    pub shard: Option<String>,
}

/// One evaluated candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// 0 is the scene's own values.
    pub eval: usize,
    pub generation: usize,
    /// Each tunable's value.
    pub values: BTreeMap<String, f64>,
    pub objective: f64,
}

/// How a search ended.
pub struct Tuned {
    pub header: TuneHeader,
    pub tunables: Vec<Tunable>,
    /// Every evaluation in order (this shard's and the others' as far as merged).
    pub evaluations: Vec<Evaluation>,
    /// Evaluations this process ran, ones the record already had, and candidates that
    /// repeated already scored values (scored without a run).
    pub ran: usize,
    pub skipped: usize,
    pub repeats: usize,
    /// False when a shard stopped to wait for the other shards' lines.
    pub complete: bool,
}

impl Tuned {
    /// The best evaluation (the first of equals).
    pub fn best(&self) -> Option<&Evaluation> {
        let better = |a: f64, b: f64| {
            if self.header.goal == "maximize" {
                a > b
            } else {
                a < b
            }
        };
        self.evaluations.iter().fold(None, |best, e| match best {
            Some(b) if !better(e.objective, b.objective) => Some(b),
            _ => Some(e),
        })
    }
}

/// A variant's summary as the objective's `summary` table: `reach[KEY]` with `rate`, `time`
/// (mean ticks, a miss counting as the limit), `reached`, `runs`; `metrics[NAME]` with `mean`,
/// `median`, `low`, `high`, `n`; `runs`, `errors`, `contacts`.
pub fn summary_table(summary: &Summary, v: &VariantSummary) -> serde_json::Value {
    let stats = |s: &Option<summary::Stats>| match s {
        Some(s) => serde_json::json!({
            "mean": s.mean, "median": s.median, "low": s.low, "high": s.high, "n": s.n
        }),
        None => serde_json::json!({}),
    };
    let reach: serde_json::Map<String, serde_json::Value> = v
        .reach
        .iter()
        .map(|r| {
            let rate = if r.runs == 0 {
                0.0
            } else {
                r.reached as f64 / r.runs as f64
            };
            let time = r.time.as_ref().map_or(summary.ticks as f64, |s| s.mean);
            (
                r.key.clone(),
                serde_json::json!({ "rate": rate, "time": time, "reached": r.reached, "runs": r.runs }),
            )
        })
        .collect();
    let metrics: serde_json::Map<String, serde_json::Value> = v
        .metrics
        .iter()
        .map(|m| (m.name.clone(), stats(&m.stats)))
        .collect();
    serde_json::json!({
        "reach": reach, "metrics": metrics, "runs": v.runs,
        "errors": v.errors, "contacts": v.contacts, "ticks": summary.ticks,
    })
}

/// The scene's tunables named in `names`, in that order; an error naming a missing one and
/// the ones the scene has.
fn chosen(scene_path: &std::path::Path, names: &[String]) -> Result<Vec<Tunable>, String> {
    if names.is_empty() {
        return Err("tune: give at least one --tunable NAME (OWNER.PARAM)".into());
    }
    let scene = scene::load(scene_path).map_err(|e| e.to_string())?;
    let mut out: Vec<Tunable> = Vec::new();
    for name in names {
        if out.iter().any(|t| &t.name == name) {
            return Err(format!("--tunable {name}: named twice"));
        }
        let Some(t) = scene.tunables.iter().find(|t| &t.name == name) else {
            let have: Vec<&str> = scene.tunables.iter().map(|t| t.name.as_str()).collect();
            return Err(format!(
                "{}: error: --tunable {name}: the scene has no such tunable (it has: {})",
                scene_path.display(),
                if have.is_empty() {
                    "none".to_string()
                } else {
                    have.join(", ")
                }
            ));
        };
        out.push(t.clone());
    }
    Ok(out)
}

/// A point of the unit cube as the tunables' values, each snapped to its step from its min.
fn values_at(tunables: &[Tunable], x: &[f64]) -> BTreeMap<String, f64> {
    tunables
        .iter()
        .zip(x)
        .map(|(t, &u)| {
            let raw = t.min + reflect(u) * (t.max - t.min);
            let v = match t.step {
                Some(s) => (t.min + ((raw - t.min) / s).round() * s).min(t.max),
                None => raw,
            };
            (t.name.clone(), tidy(v))
        })
        .collect()
}

/// A coordinate folded back into 0..=1 as a mirror folds it (-0.2 is 0.2, 1.3 is 0.7), so a
/// search centred on a bound still draws distinct values instead of piling onto the bound.
fn reflect(u: f64) -> f64 {
    if !u.is_finite() {
        return 0.0;
    }
    let folded = u.rem_euclid(2.0);
    if folded > 1.0 {
        2.0 - folded
    } else {
        folded
    }
}

/// A value rounded to 12 significant digits, as sweep writes its points.
fn tidy(v: f64) -> f64 {
    format!("{v:.11e}").parse().unwrap_or(v)
}

/// The tunables' values as a point of the unit cube.
fn unit_of(tunables: &[Tunable], values: &BTreeMap<String, f64>) -> Vec<f64> {
    tunables
        .iter()
        .map(|t| (values.get(&t.name).copied().unwrap_or(t.value) - t.min) / (t.max - t.min))
        .collect()
}

/// Reads a tune record: its header and evaluations (a torn last line is dropped).
fn read_record(
    path: &std::path::Path,
) -> Result<Option<(TuneHeader, Vec<Evaluation>, u64)>, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: error: cannot read: {e}", path.display())),
    };
    let good_len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let text = std::str::from_utf8(&bytes[..good_len])
        .map_err(|e| format!("{}: error: not a text file: {e}", path.display()))?;
    let mut lines = text.lines().enumerate();
    let Some((_, first)) = lines.next() else {
        return Ok(None);
    };
    let header: TuneHeader = serde_json::from_str(first).map_err(|e| {
        format!(
            "{}:1: error: not the header of an `agentbox tune` record: {e}",
            path.display()
        )
    })?;
    let mut evals = Vec::new();
    for (i, line) in lines {
        evals.push(serde_json::from_str(line).map_err(|e| {
            format!(
                "{}:{}: error: not an evaluation: {e}",
                path.display(),
                i + 1
            )
        })?);
    }
    Ok(Some((header, evals, good_len as u64)))
}

/// Runs each candidate (a set of tunable values) over the seeds: its summary, in order.
pub(super) fn run_candidates(
    opts: &TuneOptions,
    candidates: &[(String, BTreeMap<String, f64>)],
) -> Result<(Header, Vec<RunLine>, Summary), StudyError> {
    let seeds = parse_seeds(&opts.seeds)?;
    let variants: Vec<Variant> = candidates
        .iter()
        .map(|(name, values)| Variant {
            name: name.clone(),
            replace: Vec::new(),
            params: values.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        })
        .collect();
    let compare = CompareOptions {
        scene: opts.scene.clone(),
        variants: Vec::new(),
        seeds: opts.seeds.clone(),
        ticks: opts.ticks,
        jobs: opts.jobs,
        out: None,
        shard: None,
        shards: None,
        progress: false,
        params: Vec::new(),
        monitors: None,
        prints: false,
        sessions: None,
    };
    let (plan, header, _) = prepare(&compare, &variants, seeds, None)?;
    let todo: Vec<(usize, u64)> = (0..variants.len())
        .flat_map(|v| (seeds[0]..=seeds[1]).map(move |s| (v, s)))
        .collect();
    let jobs = opts
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut runs = Vec::new();
    run_all(&plan, &todo, jobs, |result| {
        let (line, _) = result.map_err(StudyError::Input)?;
        runs.push(line);
        Ok(())
    })?;
    let summary = summary::summarise(&header, &runs);
    Ok((header, runs, summary))
}

/// Scores each candidate: the objective over its summary.
fn score(
    opts: &TuneOptions,
    host: &mut ScriptHost,
    candidates: &[(String, BTreeMap<String, f64>)],
) -> Result<Vec<f64>, StudyError> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let (_, _, summary) = run_candidates(opts, candidates)?;
    candidates
        .iter()
        .map(|(name, _)| {
            let v = summary
                .variants
                .iter()
                .find(|v| &v.name == name)
                .ok_or_else(|| StudyError::Input(format!("internal error: no runs of {name}")))?;
            host.evaluate_objective(&opts.objective, &summary_table(&summary, v))
                .map_err(StudyError::Input)
        })
        .collect()
}

/// How many candidates a search may draw per distinct one asked for (`--evals`), repeats
/// included, before it ends.
const REPEAT_BOUND: usize = 10;

/// `agentbox tune`: the search, resumed from `--out` if it holds a record of the same search.
pub fn tune(opts: &TuneOptions, env: impl Fn(&str) -> Option<String>) -> Result<Tuned, StudyError> {
    let seeds = parse_seeds(&opts.seeds)?;
    let tunables = chosen(&opts.scene, &opts.tunables)?;
    if opts.evals < 2 {
        return Err("--evals must be at least 2 (the scene's own values and one candidate)".into());
    }
    let shard = Shard::choose(opts.shard.as_deref(), opts.shards, env)?;
    if shard.is_some() && opts.out.is_none() {
        return Err(
            "a tune shard needs --out FILE-K.jsonl: the shards read each other's records to go on"
                .into(),
        );
    }
    let scene_bytes = std::fs::read(&opts.scene).map_err(|e| {
        format!(
            "{}: error: cannot read scene file: {e}",
            opts.scene.display()
        )
    })?;
    let header = TuneHeader {
        agentbox: "tune".into(),
        build: record::build_name(),
        scene: opts.scene.display().to_string(),
        scene_sha256: super::files::sha256(&scene_bytes),
        tunables: opts.tunables.clone(),
        objective: opts.objective.clone(),
        goal: if opts.maximize {
            "maximize"
        } else {
            "minimize"
        }
        .into(),
        seeds,
        seed: opts.seed,
        evals: opts.evals,
        shard: shard.map(|s| format!("{}/{}", s.k, s.n)),
    };
    let mut host = ScriptHost::new(opts.seed).map_err(|e| format!("cannot start Lua: {e}"))?;
    // What the record (and, for a shard, its siblings' records) already holds, by evaluation.
    let mut known: BTreeMap<usize, Evaluation> = BTreeMap::new();
    let mut out: Option<std::fs::File> = None;
    // A record this run started: removed again if the scene's own values cannot be scored
    // (a bad objective), so the corrected command does not find "another search" there.
    let mut started: Option<PathBuf> = None;
    if let Some(path) = &opts.out {
        if let Some((old, evals, good_len)) = read_record(path)? {
            // A record of the same search may be continued with more (or fewer) evaluations.
            if (TuneHeader {
                evals: header.evals,
                ..old
            }) != header
            {
                return Err(format!(
                    "{}: error: holds another search (its header differs: scene, tunables, objective, seeds, --seed or build); give another --out",
                    path.display()
                )
                .into());
            }
            known.extend(evals.into_iter().map(|e| (e.eval, e)));
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(super::StudyError::write_file(path))?;
            f.set_len(good_len)
                .map_err(super::StudyError::write_file(path))?;
            out = Some(f);
        } else {
            let mut f = std::fs::File::create(path).map_err(StudyError::write_file(path))?;
            started = Some(path.clone());
            writeln!(f, "{}", record::line(&header)).map_err(StudyError::write_file(path))?;
            out = Some(f);
        }
        if let (Some(s), Some(f)) = (shard, &mut out) {
            use std::io::Seek;
            f.seek(std::io::SeekFrom::End(0))
                .map_err(StudyError::write_file(path))?;
            // The other shards' lines, read from their records beside this one.
            for k in (1..=s.n).filter(|&k| k != s.k) {
                let sibling = shard_path(path, s, k);
                if let Ok(Some((h, evals, _))) = read_record(&sibling) {
                    let unsharded = |h: &TuneHeader| TuneHeader {
                        shard: None,
                        ..h.clone()
                    };
                    if unsharded(&h) == unsharded(&header) {
                        known.extend(evals.into_iter().map(|e| (e.eval, e)));
                    }
                }
            }
        }
    }
    if let Some(f) = &mut out {
        use std::io::Seek;
        let path = opts.out.as_deref().unwrap_or(std::path::Path::new("-"));
        f.seek(std::io::SeekFrom::End(0))
            .map_err(StudyError::write_file(path))?;
    }
    let mine = |eval: usize| shard.is_none_or(|s| s.has(eval as u64));
    let mut evaluations = Vec::new();
    let (mut ran, mut skipped, mut repeats) = (0, 0, 0);
    // One generation's worth of candidates: evaluate what is not known, record, return all.
    let mut evaluate = |generation: usize,
                        batch: Vec<(usize, BTreeMap<String, f64>)>,
                        evaluations: &mut Vec<Evaluation>|
     -> Result<Option<Vec<f64>>, StudyError> {
        let todo: Vec<(String, BTreeMap<String, f64>)> = batch
            .iter()
            .filter(|(i, _)| !known.contains_key(i) && mine(*i))
            .map(|(i, v)| (format!("eval-{i}"), v.clone()))
            .collect();
        // A candidate snapped onto values already scored takes that score without a run: a
        // run of the same values over the same seeds is the same run.
        let mut fresh: Vec<(String, BTreeMap<String, f64>)> = Vec::new();
        for (name, values) in &todo {
            let seen = known.values().any(|e| &e.values == values)
                || fresh.iter().any(|(_, v)| v == values);
            if !seen {
                fresh.push((name.clone(), values.clone()));
            }
        }
        let fresh_scores = score(opts, &mut host, &fresh)?;
        ran += fresh.len();
        repeats += todo.len() - fresh.len();
        let scores: Vec<f64> = todo
            .iter()
            .map(|(_, values)| {
                fresh
                    .iter()
                    .zip(&fresh_scores)
                    .find(|((_, v), _)| v == values)
                    .map(|(_, s)| *s)
                    .or_else(|| {
                        known
                            .values()
                            .find(|e| &e.values == values)
                            .map(|e| e.objective)
                    })
                    .unwrap_or(f64::NAN)
            })
            .collect();
        for ((name, values), objective) in todo.iter().zip(scores) {
            let eval = name["eval-".len()..].parse().unwrap_or(0);
            let e = Evaluation {
                eval,
                generation,
                values: values.clone(),
                objective,
            };
            if let (Some(f), Some(path)) = (&mut out, &opts.out) {
                writeln!(f, "{}", record::line(&e)).map_err(StudyError::write_file(path))?;
            }
            known.insert(eval, e);
        }
        let mut objectives = Vec::new();
        for (i, values) in &batch {
            let Some(e) = known.get(i) else {
                return Ok(None);
            };
            if &e.values != values {
                return Err(format!("the record's evaluation {i} has other values than this search draws: give another --out").into());
            }
            if !todo.iter().any(|(n, _)| n == &format!("eval-{i}")) {
                skipped += 1;
            }
            objectives.push(e.objective);
            evaluations.push(e.clone());
        }
        Ok(Some(objectives))
    };
    let current: BTreeMap<String, f64> =
        tunables.iter().map(|t| (t.name.clone(), t.value)).collect();
    let mut complete = match evaluate(0, vec![(0, current.clone())], &mut evaluations) {
        Ok(done) => done.is_some(),
        Err(e) => {
            if let Some(path) = started {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
    };
    let mut cma = Cma::new(&unit_of(&tunables, &current), 0.3, opts.seed);
    let mut next = 1;
    // `--evals` counts distinct candidates (runs); repeats are free, but bounded, so a search
    // that has shrunk onto one point still ends.
    let distinct = |evaluations: &[Evaluation]| {
        let mut seen: Vec<&BTreeMap<String, f64>> = Vec::new();
        for e in evaluations {
            if !seen.contains(&&e.values) {
                seen.push(&e.values);
            }
        }
        seen.len()
    };
    while complete && distinct(&evaluations) < opts.evals && next < REPEAT_BOUND * opts.evals {
        let left = opts.evals - distinct(&evaluations);
        // A generation cut short to stay within `--evals` is the last, repeats or not: every
        // shard then draws the same generations.
        let last = left < cma.lambda();
        let xs: Vec<Vec<f64>> = cma.ask().into_iter().take(left).collect();
        let batch: Vec<(usize, BTreeMap<String, f64>)> = xs
            .iter()
            .enumerate()
            .map(|(k, x)| (next + k, values_at(&tunables, x)))
            .collect();
        next += batch.len();
        let Some(objectives) = evaluate(cma.generation() + 1, batch.clone(), &mut evaluations)?
        else {
            complete = false;
            break;
        };
        // The candidates as evaluated (snapped to the steps) teach the search.
        let taught: Vec<Vec<f64>> = batch.iter().map(|(_, v)| unit_of(&tunables, v)).collect();
        let costs: Vec<f64> = objectives
            .iter()
            .map(|o| if opts.maximize { -o } else { *o })
            .collect();
        if last {
            break;
        }
        cma.tell(&taught, &costs);
    }
    Ok(Tuned {
        header,
        tunables,
        evaluations,
        ran,
        skipped,
        repeats,
        complete,
    })
}

/// The best candidate against the scene's own values over the seeds: the study of both (the
/// scene's own the baseline, so its summary holds the differences paired by seed) and the
/// objective's difference per seed (each seed's run scored alone), best minus current.
pub struct Compared {
    pub summary: Summary,
    pub objective_diff: Option<summary::Stats>,
}

/// Runs the scene's own values and `best` over the seeds and compares them (see [`Compared`]).
pub fn compare_best(
    opts: &TuneOptions,
    tuned: &Tuned,
    best: &Evaluation,
) -> Result<Compared, StudyError> {
    let current = tuned
        .evaluations
        .first()
        .map(|e| e.values.clone())
        .unwrap_or_default();
    let (header, runs, summary) = run_candidates(
        opts,
        &[
            ("current".into(), current),
            ("best".into(), best.values.clone()),
        ],
    )?;
    let mut host = ScriptHost::new(opts.seed).map_err(|e| format!("cannot start Lua: {e}"))?;
    let mut diffs = Vec::new();
    for seed in header.seeds[0]..=header.seeds[1] {
        let one: Vec<RunLine> = runs.iter().filter(|r| r.seed == seed).cloned().collect();
        let s = summary::summarise(&header, &one);
        let score = |host: &mut ScriptHost, name: &str| -> Option<f64> {
            let v = s.variants.iter().find(|v| v.name == name)?;
            host.evaluate_objective(&opts.objective, &summary_table(&s, v))
                .ok()
        };
        if let (Some(b), Some(c)) = (score(&mut host, "best"), score(&mut host, "current")) {
            diffs.push(b - c);
        }
    }
    Ok(Compared {
        summary,
        objective_diff: summary::stats(&diffs),
    })
}

/// The record of shard `k` beside this shard's: `--out` names with `K` in place of this
/// shard's number (`tune-2.jsonl` → `tune-3.jsonl`), or `FILE.shard-K` when the name has none.
pub fn shard_path(path: &std::path::Path, me: Shard, k: u64) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mine = me.k.to_string();
    match name.rfind(&mine) {
        Some(at) => path.with_file_name(format!("{}{k}{}", &name[..at], &name[at + mine.len()..])),
        None => path.with_file_name(format!("{name}.shard-{k}")),
    }
}

/// The values as a sweep point's name (`OWNER.PARAM=V,...`).
pub fn values_name(values: &BTreeMap<String, f64>) -> String {
    let point: Vec<(String, f64)> = values.iter().map(|(k, v)| (k.clone(), *v)).collect();
    sweep::name(&point)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tunable(name: &str, min: f64, max: f64, step: Option<f64>) -> Tunable {
        Tunable {
            name: name.into(),
            owner: "a".into(),
            group: false,
            param: "p".into(),
            value: min,
            min,
            max,
            step,
        }
    }

    #[test]
    fn unit_points_map_onto_ranges_snapped_to_steps() {
        let ts = [
            tunable("a.x", 1.0, 8.0, Some(0.5)),
            tunable("a.y", 0.0, 1.0, None),
        ];
        let v = values_at(&ts, &[0.52, 0.25]);
        assert_eq!(v["a.x"], 4.5);
        assert_eq!(v["a.y"], 0.25);
        assert_eq!(values_at(&ts, &[1.0, 0.0])["a.x"], 8.0);
        let back = unit_of(&ts, &v);
        assert!((back[0] - 0.5).abs() < 1e-9);
    }

    #[test]
    fn points_beyond_a_bound_fold_back_inside() {
        let ts = [tunable("a.x", 0.0, 10.0, Some(1.0))];
        let at = |u: f64| values_at(&ts, &[u])["a.x"];
        assert_eq!(at(-0.2), 2.0);
        assert_eq!(at(1.3), 7.0);
        assert_eq!(at(2.1), 1.0);
        assert_eq!(at(f64::NAN), 0.0);
    }

    #[test]
    fn shard_records_are_found_by_their_number() {
        let me = Shard { k: 2, n: 3 };
        assert_eq!(
            shard_path(std::path::Path::new("r/tune-2.jsonl"), me, 3),
            PathBuf::from("r/tune-3.jsonl")
        );
        assert_eq!(
            shard_path(std::path::Path::new("r/t.jsonl"), me, 1),
            PathBuf::from("r/t.jsonl.shard-1")
        );
    }
}
