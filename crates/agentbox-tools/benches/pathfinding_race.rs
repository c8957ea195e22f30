//! Side-by-side timing of agentbox's grid search and the `pathfinding` crate's `astar` (integer
//! octile costs, the fast way) on the MovingAI maps in `data/movingai/`: same process, same
//! queries, CPU time of this thread, the algorithms interleaved. Run from the project root:
//!
//! ```text
//! cargo bench -p agentbox-tools --bench pathfinding_race                  # 100 queries per map, 3 rounds
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --all         # every query of every map
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --queries 300 --rounds 5
//! cargo bench -p agentbox-tools --bench pathfinding_race -- arena2        # only the maps whose names contain this
//! ```
//!
//! Each round runs every picked query once with each of the four searches — agentbox's
//! default (`auto`: jump point search whose heuristic also takes the bound of the map's landmark
//! distances on the maps where a sample shows they pay, built once per map and timed apart;
//! on large maps both JPS columns expand equally cheap successors at once, without the open
//! list), agentbox's plain A*, `pathfinding::astar`
//! and agentbox's plain jump point search — in an order that rotates from query to query and
//! round to round and runs backwards every other time, through all eight orders
//! (`agentbox_session::paths::turn_order`), so a neighbour loading the machine slows all four alike and
//! each search follows each other one (whose run of the same query warms the caches) equally
//! often. Each call is timed on its own with the thread's CPU clock
//! (`agentbox_session::bench::thread_cpu_time`).
//!
//! Printed per map and search: the median per-query CPU time (each query's median over the
//! rounds, then the median over the queries) and the mean per query, as the minimum and median
//! over the rounds. Speedups compare medians. Two comparisons are kept apart: like for like
//! (agentbox's A* against the crate's A*: same algorithm, same expansions) and the default
//! search (jump point search) against the crate's A*. Goal lines say MET or NOT MET: the
//! default search at least 3x `pathfinding::astar` on every map (stretch: 10x).
//!
//! Every path agentbox returns is re-costed from the map by `movingai::recost`, and the
//! crate's cost is checked too, against the scenario file's optimal length; the bench exits
//! non-zero if any disagrees.

use agentbox_core::movingai::{self, Map, Scenario};
use agentbox_core::nav::{Algorithm, NavGrid, PathOptions, Search};
use agentbox_session::bench::thread_cpu_time;
use glam::IVec2;
use std::path::PathBuf;

const MAPS: [&str; 5] = [
    "arena2",
    "random512-10-0",
    "Berlin_0_512",
    "maze512-1-0",
    "8room_000",
];

/// Integer step costs for pathfinding: 10000 straight, round(10000 sqrt 2) diagonal.
const S: u32 = 10_000;
const D: u32 = 14_142;

/// The goal and the stretch goal: the default search's speedup over `pathfinding::astar`.
const GOAL: f64 = 3.0;
const STRETCH: f64 = 10.0;

fn pathfinding_astar(map: &Map, start: IVec2, goal: IVec2) -> Option<u32> {
    let (w, h) = (map.width, map.height);
    let free = |x: i32, y: i32| {
        x >= 0 && y >= 0 && x < w && y < h && map.costs[(y * w + x) as usize].is_finite()
    };
    let result = pathfinding::prelude::astar(
        &(start.x, start.y),
        |&(x, y)| {
            let mut out: Vec<((i32, i32), u32)> = Vec::with_capacity(8);
            for (dx, dy) in [(0, -1), (1, 0), (0, 1), (-1, 0)] {
                if free(x + dx, y + dy) {
                    out.push(((x + dx, y + dy), S));
                }
            }
            for (dx, dy) in [(-1, -1), (1, -1), (1, 1), (-1, 1)] {
                if free(x + dx, y + dy) && free(x + dx, y) && free(x, y + dy) {
                    out.push(((x + dx, y + dy), D));
                }
            }
            out
        },
        |&(x, y)| {
            let (dx, dy) = ((x - goal.x).unsigned_abs(), (y - goal.y).unsigned_abs());
            S * dx.max(dy) + (D - S) * dx.min(dy)
        },
        |&p| p == (goal.x, goal.y),
    );
    result.map(|(_, cost)| cost)
}

/// The median of a non-empty list (the mean of the middle two for an even count).
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The value of `--name N`, if given.
fn number(args: &[String], name: &str) -> Option<usize> {
    let at = args.iter().position(|a| a == name)?;
    match args.get(at + 1).and_then(|v| v.parse().ok()) {
        Some(n) if n > 0 => Some(n),
        _ => {
            eprintln!("error: {name} needs a positive number");
            std::process::exit(2);
        }
    }
}

const NAMES: [&str; 4] = [
    "agentbox auto",
    "agentbox A*",
    "pathfinding::astar",
    "agentbox JPS",
];

/// Per search: each round's per-query CPU times, microseconds.
struct Times {
    /// `[search][round][query]`.
    us: Vec<Vec<Vec<f64>>>,
}

impl Times {
    /// Per round: the median per-query time.
    fn round_medians(&self, k: usize) -> Vec<f64> {
        self.us[k].iter().map(|r| median(r)).collect()
    }

    /// Per round: the mean per-query time.
    fn round_means(&self, k: usize) -> Vec<f64> {
        self.us[k]
            .iter()
            .map(|r| r.iter().sum::<f64>() / r.len() as f64)
            .collect()
    }

    /// The median over the queries of each query's median over the rounds.
    fn median(&self, k: usize) -> f64 {
        let rounds = &self.us[k];
        let per_query: Vec<f64> = (0..rounds[0].len())
            .map(|q| median(&rounds.iter().map(|r| r[q]).collect::<Vec<_>>()))
            .collect();
        median(&per_query)
    }

    /// Per round: the ratio of search `a`'s median to search `b`'s.
    fn round_ratios(&self, a: usize, b: usize) -> Vec<f64> {
        let (x, y) = (self.round_medians(a), self.round_medians(b));
        x.iter().zip(&y).map(|(x, y)| x / y).collect()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    let per_map = number(&args, "--queries").unwrap_or(100);
    let rounds = number(&args, "--rounds").unwrap_or(3);
    // Other arguments (not cargo's `--bench`, nor a number after an option) pick maps by name.
    let only: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            let after_option = *i > 0 && matches!(args[i - 1].as_str(), "--queries" | "--rounds");
            !a.starts_with("--") && !after_option
        })
        .map(|(_, a)| a)
        .collect();
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/movingai"));
    if !dir.join("arena2.map").is_file() {
        eprintln!(
            "error: MovingAI maps not found at {} (they are part of the repository)",
            dir.display()
        );
        std::process::exit(2);
    }
    println!(
        "clock: {}; {} round(s); each figure: median (min) over the rounds",
        agentbox_session::bench::CLOCK,
        rounds
    );
    let mut bad = 0;
    let mut goals: Vec<(String, f64, f64)> = Vec::new();
    for name in MAPS {
        if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        let map =
            movingai::load_map(&dir.join(format!("{name}.map"))).unwrap_or_else(|e| panic!("{e}"));
        let scens: Vec<Scenario> = movingai::load_scen(&dir.join(format!("{name}.map.scen")))
            .unwrap_or_else(|e| panic!("{e}"));
        let step = if all {
            1
        } else {
            scens.len().div_ceil(per_map)
        };
        let picked: Vec<&Scenario> = scens.iter().step_by(step).collect();
        // The grid a caller keeps for this map, built up front and timed apart.
        let started = thread_cpu_time();
        let mut grid = NavGrid::new(map.width, map.height, &map.costs).expect("valid map");
        let build_ms = (thread_cpu_time() - started).as_secs_f64() * 1e3;
        // The default search's landmark distances, built once as the navigation cache does.
        let started = thread_cpu_time();
        let landmarks =
            map.costs.len() >= agentbox_core::nav::landmarks::MIN_CELLS && grid.build_landmarks();
        let landmarks_ms = (thread_cpu_time() - started).as_secs_f64() * 1e3;
        let mut search = Search::new();
        let auto = PathOptions::default();
        let astar = PathOptions {
            algorithm: Algorithm::AStar,
            ..Default::default()
        };
        let jps = PathOptions {
            algorithm: Algorithm::Jps,
            ..Default::default()
        };
        let mut times = Times {
            us: vec![vec![vec![0.0; picked.len()]; rounds]; NAMES.len()],
        };
        let mut expanded = [0usize; NAMES.len()];
        for round in 0..rounds {
            for (q, s) in picked.iter().enumerate() {
                for turn in 0..NAMES.len() {
                    // The order rotates and runs backwards every other time, through all
                    // eight orders, so each search follows each other one (the one before
                    // warms the caches with the same query's cells) equally often.
                    let k = agentbox_session::paths::turn_order(NAMES.len(), q, round, turn);
                    let started = thread_cpu_time();
                    let (found, length) = match k {
                        0 | 1 | 3 => {
                            let opts = [&auto, &astar, &auto, &jps][k];
                            let r = search.find_on(&grid, s.start, s.goal, opts);
                            let us = (thread_cpu_time() - started).as_secs_f64() * 1e6;
                            times.us[k][round][q] = us;
                            if round == 0 {
                                expanded[k] += r.expanded;
                            }
                            let len = r
                                .path
                                .as_ref()
                                .and_then(|p| movingai::recost(&map, s.start, s.goal, p).ok());
                            (len.is_some(), len.unwrap_or(0.0))
                        }
                        _ => {
                            let c = pathfinding_astar(&map, s.start, s.goal);
                            let us = (thread_cpu_time() - started).as_secs_f64() * 1e6;
                            times.us[k][round][q] = us;
                            (c.is_some(), c.map_or(0.0, |c| c as f64 / S as f64))
                        }
                    };
                    // pathfinding's integer diagonal is rounded: allow 1e-5 per step.
                    let tol = if k == 2 {
                        1e-3 + s.optimal * 1e-5
                    } else {
                        1e-3
                    };
                    if !found || (length - s.optimal).abs() > tol {
                        bad += 1;
                        eprintln!(
                            "{name} line {}: optimal {}, {} found {}",
                            s.line,
                            s.optimal,
                            NAMES[k],
                            if found {
                                format!("{length}")
                            } else {
                                "no path".into()
                            }
                        );
                    }
                }
            }
        }
        let n = picked.len() as f64;
        println!(
            "\n{name}: {} queries; grid built in {build_ms:.2} ms CPU; {}; expanded per query: auto {:.0}, JPS {:.0}, A* {:.0}",
            picked.len(),
            if landmarks {
                let gain = grid.landmarks().map_or(0.0, |l| l.gain);
                format!(
                    "{} landmarks built in {landmarks_ms:.1} ms CPU, {:.0}% of sampled pairs gain over 5%: {}",
                    agentbox_core::nav::landmarks::COUNT,
                    gain * 100.0,
                    if gain >= agentbox_core::nav::landmarks::MIN_GAIN { "used" } else { "not used" }
                )
            } else {
                "no landmarks".to_string()
            },
            expanded[0] as f64 / n,
            expanded[3] as f64 / n,
            expanded[1] as f64 / n
        );
        println!(
            "  {:<20} {:>12} {:>20} {:>20}",
            "search", "median us", "round medians us", "round means us"
        );
        for (k, search_name) in NAMES.iter().enumerate() {
            let (med, means) = (times.round_medians(k), times.round_means(k));
            println!(
                "  {:<20} {:>12.1} {:>11.1} ({:>6.1}) {:>11.1} ({:>6.1})",
                search_name,
                times.median(k),
                median(&med),
                min(&med),
                median(&means),
                min(&means)
            );
        }
        let like = times.median(2) / times.median(1);
        let like_rounds = times.round_ratios(2, 1);
        println!(
            "  like for like, A* against A*: agentbox {:.2}x pathfinding::astar (rounds: median {:.2}x, min {:.2}x)",
            like,
            median(&like_rounds),
            min(&like_rounds)
        );
        let speedup = times.median(2) / times.median(0);
        let rounds_speedup = times.round_ratios(2, 0);
        println!(
            "  default search (auto): {:.2}x pathfinding::astar (rounds: median {:.2}x, min {:.2}x); plain JPS {:.2}x",
            speedup,
            median(&rounds_speedup),
            min(&rounds_speedup),
            times.median(2) / times.median(3)
        );
        goals.push((name.to_string(), speedup, min(&rounds_speedup)));
    }
    println!();
    for (name, speedup, worst) in &goals {
        for (what, target) in [("goal", GOAL), ("stretch", STRETCH)] {
            println!(
                "{what}: default search >= {target}x pathfinding::astar on {name}: {speedup:.2}x (worst round {worst:.2}x): {}",
                if *speedup >= target { "MET" } else { "NOT MET" }
            );
        }
    }
    if bad > 0 {
        eprintln!("{bad} results disagree with the optimal length");
        std::process::exit(1);
    }
}
