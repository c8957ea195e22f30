//! `agentbox paths`: solves every query of a MovingAI scenario file with agentbox's searches
//! under the benchmark's rules, re-costs each returned path with [`agentbox_core::movingai::recost`]
//! (not with the search's own numbers) and compares it with the file's optimal length. The
//! searches asked for take turns on each query, each call timed by the thread's CPU clock, over
//! several rounds; the times are printed as the median and minimum over the rounds.
//!
//! Reads files through `movingai`; prints the summary; names no engine crate.

use crate::bench::{thread_cpu_time, CLOCK};
use agentbox_core::movingai::{self, Map, Scenario};
use agentbox_core::nav::{landmarks, Algorithm, Heuristic, NavGrid, PathOptions, Search};
use std::io::Write;
use std::path::Path;

/// Why `agentbox paths` stopped.
#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    /// A flag or a file it cannot use: the message says which and why.
    #[error("{0}")]
    Input(String),
    /// The map or the scenario file could not be read or parsed.
    #[error(transparent)]
    File(#[from] movingai::MovingAiError),
    /// The report could not be written (a closed pipe among others: see its kind).
    #[error("error: cannot write the output: {0}")]
    Write(#[from] std::io::Error),
}

impl From<String> for PathsError {
    fn from(message: String) -> Self {
        PathsError::Input(message)
    }
}

/// Lengths within this of the optimal one count as optimal.
pub const TOLERANCE: f64 = 1e-3;

/// The searches `--algo` can name.
pub const ALGOS: [&str; 4] = ["auto", "astar", "jps", "dijkstra"];

/// Options for an `--algo` name under MovingAI's rules (octile, no corner cutting).
pub fn options_for(algo: &str) -> Option<PathOptions> {
    let mut o = PathOptions::default();
    match algo {
        "auto" => {}
        "astar" => o.algorithm = Algorithm::AStar,
        "jps" => o.algorithm = Algorithm::Jps,
        "dijkstra" => {
            o.algorithm = Algorithm::AStar;
            o.heuristic = Heuristic::Zero;
        }
        _ => return None,
    }
    Some(o)
}

/// The tally of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Scenarios checked (each once, whatever the number of searches).
    pub queries: usize,
    /// Scenarios every search solved optimally.
    pub optimal: usize,
    /// Scenarios some search solved with a longer or illegal path (and none left unsolved).
    pub suboptimal: usize,
    /// Scenarios some search found no path for.
    pub unsolved: usize,
    /// Per search, in the order asked.
    pub searches: Vec<Timing>,
    /// One line per query and search that was not optimal.
    pub problems: Vec<String>,
    /// CPU milliseconds to build the map's landmark distances, once before the queries (the
    /// default search's heuristic uses them); `None` when not built.
    pub landmarks_ms: Option<f64>,
    /// The landmarks' sampled gain ([`agentbox_core::nav::Landmarks::gain`]).
    pub landmark_gain: f64,
}

/// The CPU time of one search over the rounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    pub algo: String,
    /// Per round: the mean per-query CPU time, microseconds.
    pub round_means_us: Vec<f64>,
    /// Per round: the median per-query CPU time, microseconds.
    pub round_medians_us: Vec<f64>,
    /// Mean nodes expanded per query (jump points for jump point search).
    pub mean_expanded: f64,
}

impl Timing {
    /// The median over the rounds of the mean per-query time.
    pub fn mean_us(&self) -> f64 {
        median(&self.round_means_us)
    }
}

/// The median of a list (the mean of the middle two for an even count; 0 when empty).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn minimum(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

impl Report {
    /// The summary line: the counts, and the first search's mean per-query CPU time (median
    /// over the rounds).
    pub fn summary(&self) -> String {
        let mean = self.searches.first().map_or(0.0, Timing::mean_us);
        format!(
            "paths: {} queries, {} optimal, {} suboptimal, {} unsolved, mean {:.1} us/query",
            self.queries, self.optimal, self.suboptimal, self.unsolved, mean
        )
    }

    /// One line per search: mean and median per-query CPU time, each as the median (min) over
    /// the rounds, and the mean expansions.
    pub fn timing_lines(&self) -> Vec<String> {
        self.searches
            .iter()
            .map(|t| {
                format!(
                    "{:<9} mean {:.1} us/query (min {:.1}), median query {:.1} us (min {:.1}), {:.0} expanded/query",
                    t.algo,
                    t.mean_us(),
                    minimum(&t.round_means_us),
                    median(&t.round_medians_us),
                    minimum(&t.round_medians_us),
                    t.mean_expanded
                )
            })
            .collect()
    }
}

/// Which search runs at `turn` (of `n`) on query `q` of `round`: the order rotates from query
/// to query and round to round, and every other rotation runs backwards, cycling through all
/// `2 n` orders, so over the queries each search follows each other one (whose run of the same
/// query warms the caches for it) equally often. A forward rotation alone puts the same search
/// right after another in `n - 1` of `n` orders and never the other way round; forward and
/// backward by the parity of `q + round` alone (the race bench before this) still favoured one.
pub fn turn_order(n: usize, q: usize, round: usize, turn: usize) -> usize {
    let p = (q + round) % (2 * n);
    if p < n {
        (p + turn) % n
    } else {
        (p - n + n - 1 - turn) % n
    }
}

/// Solves and checks every scenario on the map with each search in `algos` (names and
/// options), `rounds` times. The searches take turns on each query, in an order that rotates
/// from query to query and round to round and runs backwards every other time ([`turn_order`]), and each call is timed alone by the thread's CPU
/// clock. Paths are checked in the first round (the searches are deterministic).
pub fn check(
    map: &Map,
    scens: &[Scenario],
    algos: &[(String, PathOptions)],
    rounds: usize,
    scen_name: &str,
) -> Report {
    let mut report = Report::default();
    let Some(mut grid) = NavGrid::new(map.width, map.height, &map.costs) else {
        return report;
    };
    // Built once for the map, as the navigation cache does, and timed apart from the queries.
    let started = thread_cpu_time();
    if map.costs.len() >= landmarks::MIN_CELLS && grid.build_landmarks() {
        report.landmarks_ms = Some(thread_cpu_time().saturating_sub(started).as_secs_f64() * 1e3);
        report.landmark_gain = grid.landmarks().map_or(0.0, |l| l.gain);
    }
    let rounds = rounds.max(1);
    let n = algos.len();
    let mut search = Search::new();
    // [round][algo][query], microseconds.
    let mut us = vec![vec![vec![0.0; scens.len()]; n]; rounds];
    let mut expanded = vec![0usize; n];
    // Per query: 0 optimal, 1 suboptimal, 2 unsolved (the worst over the searches).
    let mut verdict = vec![0u8; scens.len()];
    for (round, times) in us.iter_mut().enumerate() {
        for (q, s) in scens.iter().enumerate() {
            for turn in 0..n {
                let k = turn_order(n, q, round, turn);
                let (name, opts) = &algos[k];
                let started = thread_cpu_time();
                let result = search.find_on(&grid, s.start, s.goal, opts);
                times[k][q] = thread_cpu_time().saturating_sub(started).as_secs_f64() * 1e6;
                if round > 0 {
                    continue;
                }
                expanded[k] += result.expanded;
                let at = format!("{scen_name}:{}", s.line);
                let (worse, problem) = judge(map, s, result.path.as_deref(), &at, name);
                verdict[q] = verdict[q].max(worse);
                report.problems.extend(problem);
            }
        }
    }
    report.queries = scens.len();
    for v in verdict {
        match v {
            0 => report.optimal += 1,
            1 => report.suboptimal += 1,
            _ => report.unsolved += 1,
        }
    }
    for (k, (name, _)) in algos.iter().enumerate() {
        let per_round: Vec<&Vec<f64>> = us.iter().map(|round| &round[k]).collect();
        report.searches.push(Timing {
            algo: name.clone(),
            round_means_us: per_round
                .iter()
                .map(|r| r.iter().sum::<f64>() / r.len().max(1) as f64)
                .collect(),
            round_medians_us: per_round.iter().map(|r| median(r)).collect(),
            mean_expanded: expanded[k] as f64 / scens.len().max(1) as f64,
        });
    }
    report
}

/// How a search answered scenario `s`: 0 optimal, 1 suboptimal or illegal, 2 unsolved, with
/// the problem (named `at` and by the search's `name`) unless optimal.
fn judge(
    map: &Map,
    s: &Scenario,
    path: Option<&[glam::IVec2]>,
    at: &str,
    name: &str,
) -> (u8, Option<String>) {
    match path {
        None => (
            2,
            Some(format!(
                "{at}: no path found, expected length {} ({name})",
                s.optimal
            )),
        ),
        Some(path) => match movingai::recost(map, s.start, s.goal, path) {
            Ok(len) if (len - s.optimal).abs() <= TOLERANCE => (0, None),
            Ok(len) => (
                1,
                Some(format!(
                    "{at}: path length {len:.8}, expected {:.8} ({name})",
                    s.optimal
                )),
            ),
            Err(why) => (1, Some(format!("{at}: illegal path: {why} ({name})"))),
        },
    }
}

/// Checks that every scenario fits the map.
fn validate(map: &Map, scens: &[Scenario], scen_name: &str) -> Result<(), String> {
    for s in scens {
        for (what, t) in [("start", s.start), ("goal", s.goal)] {
            if !map.free(t) {
                return Err(format!(
                    "{scen_name}:{}: error: {what} [{}, {}] is outside the map or blocked",
                    s.line, t.x, t.y
                ));
            }
        }
    }
    Ok(())
}

/// The whole command: loads, checks with each search of the comma-separated `algos` over
/// `rounds` rounds, prints problems (at most `show`), a timing line per search and the
/// summary line to `out`. Ok(true) when every query was optimal.
pub fn run(
    map_path: &Path,
    scen_path: &Path,
    algos: &str,
    rounds: usize,
    out: &mut dyn Write,
) -> Result<bool, PathsError> {
    let mut chosen = Vec::new();
    for algo in algos.split(',').map(str::trim) {
        let opts = options_for(algo).ok_or_else(|| {
            format!(
                "error: unknown --algo {algo:?} (one or more of {}, separated by commas)",
                ALGOS.join(", ")
            )
        })?;
        if chosen.iter().any(|(name, _)| name == algo) {
            return Err(PathsError::Input(format!(
                "error: --algo names {algo:?} twice"
            )));
        }
        chosen.push((algo.to_string(), opts));
    }
    if rounds == 0 {
        return Err(PathsError::Input(
            "error: --rounds must be at least 1".into(),
        ));
    }
    let map = movingai::load_map(map_path)?;
    let scens = movingai::load_scen(scen_path)?;
    let name = scen_path.display().to_string();
    validate(&map, &scens, &name)?;
    let report = check(&map, &scens, &chosen, rounds, &name);
    const SHOW: usize = 20;
    for p in report.problems.iter().take(SHOW) {
        eprintln!("{p}");
    }
    if report.problems.len() > SHOW {
        eprintln!("... and {} more", report.problems.len() - SHOW);
    }
    writeln!(
        out,
        "clock: {}; {rounds} round(s), searches interleaved; median (min) over the rounds",
        CLOCK
    )?;
    if let Some(ms) = report.landmarks_ms {
        writeln!(
            out,
            "landmarks: {} built once in {ms:.1} ms CPU (not in the query times); {:.0}% of sampled pairs gain over 5% ({})",
            landmarks::COUNT,
            report.landmark_gain * 100.0,
            if report.landmark_gain >= landmarks::MIN_GAIN { "used" } else { "not used: below the map's threshold" }
        )?;
    }
    for line in report.timing_lines() {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "{}", report.summary())?;
    Ok(report.queries == report.optimal)
}

#[cfg(test)]
mod tests {
    use super::turn_order;

    /// Each order is a permutation, and over `2 n` queries every search runs right after
    /// every other one equally often.
    #[test]
    fn every_search_follows_every_other_equally_often() {
        for n in 2..=5 {
            let mut after = vec![vec![0; n]; n];
            for q in 0..2 * n {
                let order: Vec<usize> = (0..n).map(|t| turn_order(n, q, 0, t)).collect();
                let mut sorted = order.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>());
                for pair in order.windows(2) {
                    after[pair[1]][pair[0]] += 1;
                }
            }
            for (a, row) in after.iter().enumerate() {
                for (b, &count) in row.iter().enumerate() {
                    if a != b {
                        assert_eq!(count, after[b][a], "n {n}: {a} after {b}");
                    }
                }
            }
        }
    }
}
