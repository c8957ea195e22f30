//! `agentbox paths`: solves every query of a MovingAI scenario file with agentbox's search under
//! the benchmark's rules, re-costs each returned path with [`crate::movingai::recost`] (not
//! with the search's own numbers) and compares it with the file's optimal length.
//!
//! Reads files through `movingai`; prints the summary; names no engine crate.

use crate::movingai::{self, Map, Scenario};
use crate::nav::{Algorithm, Heuristic, NavGrid, PathOptions, Search};
use std::path::Path;
use std::time::Instant;

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
    pub queries: usize,
    pub optimal: usize,
    pub suboptimal: usize,
    pub unsolved: usize,
    /// Mean search time per query, microseconds.
    pub mean_us: f64,
    /// Mean nodes expanded per query (jump points for jump point search).
    pub mean_expanded: f64,
    /// One line per query that was not optimal.
    pub problems: Vec<String>,
}

impl Report {
    /// The summary line.
    pub fn summary(&self) -> String {
        format!(
            "paths: {} queries, {} optimal, {} suboptimal, {} unsolved, mean {:.1} us/query",
            self.queries, self.optimal, self.suboptimal, self.unsolved, self.mean_us
        )
    }
}

/// Solves and checks every scenario on the map.
pub fn check(map: &Map, scens: &[Scenario], opts: &PathOptions, scen_name: &str) -> Report {
    let mut report = Report::default();
    let Some(grid) = NavGrid::new(map.width, map.height, &map.costs) else {
        return report;
    };
    let mut search = Search::new();
    let mut total = std::time::Duration::ZERO;
    let mut expanded = 0usize;
    for s in scens {
        report.queries += 1;
        let started = Instant::now();
        let result = search.find_on(&grid, s.start, s.goal, opts);
        total += started.elapsed();
        expanded += result.expanded;
        let at = format!("{scen_name}:{}", s.line);
        match result.path {
            None => {
                report.unsolved += 1;
                report.problems.push(format!(
                    "{at}: no path found, expected length {}",
                    s.optimal
                ));
            }
            Some(path) => match movingai::recost(map, s.start, s.goal, &path) {
                Ok(len) if (len - s.optimal).abs() <= TOLERANCE => report.optimal += 1,
                Ok(len) => {
                    report.suboptimal += 1;
                    report.problems.push(format!(
                        "{at}: path length {len:.8}, expected {:.8}",
                        s.optimal
                    ));
                }
                Err(why) => {
                    report.suboptimal += 1;
                    report.problems.push(format!("{at}: illegal path: {why}"));
                }
            },
        }
    }
    if report.queries > 0 {
        report.mean_us = total.as_secs_f64() * 1e6 / report.queries as f64;
        report.mean_expanded = expanded as f64 / report.queries as f64;
    }
    report
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

/// The whole command: loads, checks, prints problems (at most `show`) and the summary line.
/// Ok(true) when every query was optimal.
pub fn run(map_path: &Path, scen_path: &Path, algo: &str) -> Result<bool, String> {
    let opts = options_for(algo).ok_or_else(|| {
        format!(
            "error: unknown --algo {algo:?} (one of {})",
            ALGOS.join(", ")
        )
    })?;
    let map = movingai::load_map(map_path)?;
    let scens = movingai::load_scen(scen_path)?;
    let name = scen_path.display().to_string();
    validate(&map, &scens, &name)?;
    let report = check(&map, &scens, &opts, &name);
    const SHOW: usize = 20;
    for p in report.problems.iter().take(SHOW) {
        eprintln!("{p}");
    }
    if report.problems.len() > SHOW {
        eprintln!("... and {} more", report.problems.len() - SHOW);
    }
    println!("mean expanded: {:.0} nodes/query", report.mean_expanded);
    println!("{}", report.summary());
    Ok(report.queries == report.optimal)
}
