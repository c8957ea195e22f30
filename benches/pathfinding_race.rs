//! Side-by-side timing of agentbox's grid search and the `pathfinding` crate's `astar` (integer
//! costs, the fast way) on the MovingAI maps in `data/movingai/`, same process, same
//! queries. Run from the project root:
//!
//! ```text
//! cargo bench --bench pathfinding_race            # 300 queries per map, evenly spread
//! cargo bench --bench pathfinding_race -- --all   # every query of every map
//! cargo bench --bench pathfinding_race -- arena2  # only the maps whose names contain this
//! ```
//!
//! Prints per map the mean microseconds per query of agentbox (auto: jump point search here),
//! agentbox's plain A*, and pathfinding::astar, with the speedups. Exits non-zero if any search
//! disagrees with the scenario's optimal length.

use agentbox::movingai::{self, Map, Scenario};
use agentbox::nav::{Algorithm, NavGrid, PathOptions, Search};
use glam::IVec2;
use std::path::PathBuf;
use std::time::Instant;

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

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64() * 1e6)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    // Other arguments (not cargo's `--bench`) pick maps by name.
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/movingai");
    if !dir.join("arena2.map").is_file() {
        eprintln!(
            "error: MovingAI maps not found at {} (they are part of the repository)",
            dir.display()
        );
        std::process::exit(2);
    }
    let mut bad = 0;
    println!(
        "{:<16} {:>7} {:>12} {:>12} {:>14} {:>9} {:>9}",
        "map", "queries", "auto us", "astar us", "pathfinding us", "auto x", "astar x"
    );
    for name in MAPS {
        if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        let map =
            movingai::load_map(&dir.join(format!("{name}.map"))).unwrap_or_else(|e| panic!("{e}"));
        let scens: Vec<Scenario> = movingai::load_scen(&dir.join(format!("{name}.map.scen")))
            .unwrap_or_else(|e| panic!("{e}"));
        let step = if all { 1 } else { scens.len().div_ceil(300) };
        let picked: Vec<&Scenario> = scens.iter().step_by(step).collect();
        let grid = NavGrid::new(map.width, map.height, &map.costs).expect("valid map");
        let mut search = Search::new();
        let auto = PathOptions::default();
        let astar = PathOptions {
            algorithm: Algorithm::AStar,
            ..Default::default()
        };
        let (mut t_auto, mut t_astar, mut t_pf) = (0.0, 0.0, 0.0);
        for s in &picked {
            let (a, ta) = time(|| search.find_on(&grid, s.start, s.goal, &auto));
            let (b, tb) = time(|| search.find_on(&grid, s.start, s.goal, &astar));
            let (c, tc) = time(|| pathfinding_astar(&map, s.start, s.goal));
            t_auto += ta;
            t_astar += tb;
            t_pf += tc;
            let pf = c.map(|c| c as f64 / S as f64);
            let ok = |v: Option<f64>, tol: f64| v.is_some_and(|v| (v - s.optimal).abs() <= tol);
            // pathfinding's integer diagonal is rounded: allow 1e-5 per step.
            if !ok(a.path.as_ref().map(|_| a.cost), 1e-3)
                || !ok(b.path.as_ref().map(|_| b.cost), 1e-3)
                || !ok(pf, 1e-3 + s.optimal * 1e-5)
            {
                bad += 1;
                eprintln!(
                    "{name} line {}: optimal {} auto {:?} astar {:?} pathfinding {:?}",
                    s.line, s.optimal, a.cost, b.cost, pf
                );
            }
        }
        let n = picked.len() as f64;
        println!(
            "{:<16} {:>7} {:>12.1} {:>12.1} {:>14.1} {:>8.1}x {:>8.1}x",
            name,
            picked.len(),
            t_auto / n,
            t_astar / n,
            t_pf / n,
            t_pf / t_auto,
            t_pf / t_astar
        );
    }
    if bad > 0 {
        eprintln!("{bad} queries disagree with the optimal length");
        std::process::exit(1);
    }
}
