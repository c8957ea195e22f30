//! Sessions of a study's runs, so an outlier opens in the window: `--sessions DIR` writes the
//! runs that failed an expectation (a reach that never happened, a script error) or, with
//! `--worst N:MEASURE`, the N worst by a measure; `--open` writes the one run a study names and
//! the command line opens it. Each session is the run re-made with a recorded history (the
//! same scene text, substitutions and seed, so the same run), cut at the tick its first reach
//! happened or at its end, and opens there paused with the reaching agent selected.
//!
//! It re-runs and writes files; it never draws.

use super::files::Reader;
use super::record::{Header, RunLine};
use super::Plan;
use crate::history::{self, Focus, History, HistoryFiles};
use crate::shell::shell_word;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Which runs `--sessions` writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Pick {
    /// Every run that failed an expectation: a reach that never happened, or a script error.
    Failed,
    /// The `n` worst by `measure` (highest worst; with `lowest`, lowest worst).
    Worst {
        n: usize,
        measure: String,
        lowest: bool,
    },
}

/// A run `--sessions` picked, and its session file or why it could not be written.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub variant: String,
    pub seed: u64,
    pub file: Result<PathBuf, String>,
}

/// `--sessions DIR` and what it picks.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionsSpec {
    pub dir: PathBuf,
    pub pick: Pick,
}

/// `--worst N:MEASURE`: MEASURE is a reach (`AGENT->TARGET`, its time to reach, a miss counting
/// as the tick limit), a metric, a monitor, `contacts` or `errors`; the highest is worst, or
/// the lowest with a `-` before it (`5:-score`).
pub fn parse_worst(text: &str) -> Result<Pick, String> {
    let bad = || format!("--worst {text:?}: give N:MEASURE, e.g. 5:hunter->prey or 3:-score");
    let (n, measure) = text.split_once(':').ok_or_else(bad)?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    let (measure, lowest) = match measure.strip_prefix('-') {
        Some(m) => (m, true),
        None => (measure, false),
    };
    if n == 0 || measure.is_empty() {
        return Err(bad());
    }
    Ok(Pick::Worst {
        n,
        measure: measure.to_string(),
        lowest,
    })
}

/// A run's value of `measure`, if it has one (see [`parse_worst`]).
fn value(run: &RunLine, measure: &str) -> Option<f64> {
    if let Some(t) = run.reach.get(measure) {
        return Some(t.unwrap_or(run.ticks) as f64);
    }
    if let Some(v) = run.metrics.get(measure) {
        return *v;
    }
    if let Some(v) = run.monitors.get(measure) {
        return *v;
    }
    match measure {
        "contacts" => Some(run.contacts as f64),
        "errors" => Some(run.errors as f64),
        _ => None,
    }
}

/// Whether a run failed an expectation: a reach that never happened, or a script error.
pub fn failed(run: &RunLine) -> bool {
    run.errors > 0 || run.reach.values().any(Option::is_none)
}

/// The runs `pick` names, in the study's order for failures, worst first for a measure; an
/// error for a measure no run has.
pub fn picked<'a>(runs: &'a [RunLine], pick: &Pick) -> Result<Vec<&'a RunLine>, String> {
    match pick {
        Pick::Failed => Ok(runs.iter().filter(|r| failed(r)).collect()),
        Pick::Worst { n, measure, lowest } => {
            let mut valued: Vec<(f64, &RunLine)> = runs
                .iter()
                .filter_map(|r| Some((value(r, measure)?, r)))
                .filter(|(v, _)| v.is_finite())
                .collect();
            if valued.is_empty() && !runs.is_empty() {
                return Err(format!(
                    "--worst: no run has a value of `{measure}` (a reach AGENT->TARGET, a metric, a monitor, contacts or errors)"
                ));
            }
            valued.sort_by(|a, b| {
                let order = a.0.total_cmp(&b.0);
                if *lowest {
                    order
                } else {
                    order.reverse()
                }
            });
            Ok(valued.into_iter().take(*n).map(|(_, r)| r).collect())
        }
    }
}

/// Where a run's session opens: after the first reach that happened (its agent selected), or
/// at the end.
pub fn focus_of(run: &RunLine) -> Focus {
    let first = run
        .reach
        .iter()
        .filter_map(|(key, t)| Some((t.as_ref().copied()?, key)))
        .min();
    let who = format!("{} seed {}", run.variant, run.seed);
    match first {
        Some((tick, key)) => Focus {
            tick,
            agent: key.split_once("->").map(|(agent, _)| agent.to_string()),
            why: format!("{who}: reached {key} at tick {tick}"),
        },
        None => {
            let missed: Vec<&str> = run.reach.keys().map(String::as_str).collect();
            let why = if missed.is_empty() {
                format!("{who}: the end of the run")
            } else {
                format!(
                    "{who}: never reached {} in {} ticks",
                    missed.join(", "),
                    run.ticks
                )
            };
            Focus {
                tick: run.ticks,
                agent: None,
                why,
            }
        }
    }
}

/// A run's session file name: `VARIANT.seed-N.session.json`, the variant's name made safe for
/// a file name.
pub fn file_name(run: &RunLine) -> String {
    let safe: String = run
        .variant
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_=.,".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.seed-{}.session.json", run.seed)
}

/// The one-line command that opens the run of `variant` and `seed` of the study `header`
/// describes in the window, at its first reach or its end: the study narrowed to that variant
/// (or sweep point) and seed, with `--open`. Paths are the header's, as given when it ran.
pub fn open_command(header: &Header, variant: &str, seed: u64) -> Option<String> {
    let variant = header.variants.iter().find(|v| v.name == variant)?;
    let scene = shell_word(&header.scene);
    let tail = format!("--seeds {seed} --ticks {} --open", header.ticks);
    if !variant.params.is_empty() {
        // In the sweep's axis order (the point's name lists them so), so the point is named
        // as in the study.
        let order: Vec<&str> = variant
            .name
            .split(',')
            .filter_map(|part| part.split_once('=').map(|(path, _)| path))
            .collect();
        let mut paths: Vec<(&String, &f64)> = variant.params.iter().collect();
        paths.sort_by_key(|(path, _)| order.iter().position(|o| o == path));
        let params: Vec<String> = paths
            .iter()
            .map(|(path, value)| format!("--param {}", shell_word(&format!("{path}={value}"))))
            .collect();
        return Some(format!(
            "agentbox sweep {scene} {} {tail}",
            params.join(" ")
        ));
    }
    let mut spec = variant.name.clone();
    for (i, [from, to]) in variant.replace.iter().enumerate() {
        spec.push(if i == 0 { ':' } else { ';' });
        spec.push_str(&format!("{from}={to}"));
    }
    Some(format!(
        "agentbox compare {scene} --variant {} {tail}",
        shell_word(&spec)
    ))
}

/// Re-makes `run` (of the plan's variant `variant`) with a recorded history up to its focus
/// tick and writes the session to `file`.
pub(super) fn write(plan: &Plan, variant: usize, run: &RunLine, file: &Path) -> Result<(), String> {
    let v = plan
        .variants
        .get(variant)
        .ok_or_else(|| format!("no variant {}", run.variant))?;
    let files = HistoryFiles::over(Rc::new(Reader(std::sync::Arc::clone(&v.files))));
    // A sweep point's scene text stands in for the scene file, as in the study's runs.
    if let Some(bytes) = &v.scene_bytes {
        files.pin(&plan.scene_path, Ok(history::Blob::from(bytes.as_slice())));
    }
    let mut history = History::open_reading(&plan.scene_path, Some(run.seed), true, files)
        .map_err(|e| e.to_string())?;
    let focus = focus_of(run);
    for _ in 0..focus.tick.min(plan.ticks) {
        history.tick();
    }
    let rec = history.recording().cut_at(focus.tick, Some(focus));
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    history::save_recording(&rec, file).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn run(variant: &str, seed: u64, reach: Option<u64>, score: f64) -> RunLine {
        RunLine {
            variant: variant.into(),
            seed,
            ticks: 100,
            reach: BTreeMap::from([("h->p".to_string(), reach)]),
            contacts: 0,
            errors: 0,
            metrics: BTreeMap::from([("score".to_string(), Some(score))]),
            params: BTreeMap::new(),
            monitors: BTreeMap::new(),
        }
    }

    #[test]
    fn failures_and_the_worst_runs_are_picked_and_focused_at_their_reach() {
        let runs = [
            run("a", 1, Some(30), 5.0),
            run("a", 2, None, 1.0),
            run("b", 1, Some(80), 9.0),
        ];
        let seeds = |p: &Pick| -> Vec<(String, u64)> {
            picked(&runs, p)
                .unwrap()
                .iter()
                .map(|r| (r.variant.clone(), r.seed))
                .collect()
        };
        assert_eq!(seeds(&Pick::Failed), [("a".to_string(), 2)]);
        let slowest = parse_worst("2:h->p").unwrap();
        assert_eq!(
            seeds(&slowest),
            [("a".to_string(), 2), ("b".to_string(), 1)]
        );
        let lowest = parse_worst("1:-score").unwrap();
        assert_eq!(seeds(&lowest), [("a".to_string(), 2)]);
        assert!(picked(&runs, &parse_worst("1:nothing").unwrap()).is_err());
        assert!(parse_worst("x:score").is_err() && parse_worst("0:score").is_err());

        let reached = focus_of(&runs[0]);
        assert_eq!((reached.tick, reached.agent.as_deref()), (30, Some("h")));
        assert_eq!(reached.why, "a seed 1: reached h->p at tick 30");
        let missed = focus_of(&runs[1]);
        assert_eq!((missed.tick, missed.agent), (100, None));
        assert_eq!(
            file_name(&run("space=2,x/y", 3, None, 0.0)),
            "space=2,x_y.seed-3.session.json"
        );
    }
}
