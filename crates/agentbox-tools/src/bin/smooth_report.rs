//! How much shorter string pulling (`move.path_to(tile, {smooth = true})`,
//! `agentbox_core::movement::smooth`) makes the routes on the MovingAI maps in
//! `data/movingai/`: for each map, the first N scenario queries (or all), the grid path of the
//! default search, its smoothed corners for a body of radius 0.3, and the mean lengths, with
//! the straight-line distance as the floor no route can beat. Not a timing: run it anywhere.
//!
//! ```text
//! cargo run --release -p agentbox-tools --bin smooth_report                 # 200 queries a map
//! cargo run --release -p agentbox-tools --bin smooth_report -- --queries 50 arena2
//! ```
//!
//! Every smoothed leg is checked clear (`smooth::clear`) and the tool exits non-zero if one is
//! not, or if a smoothed route is longer than its grid path.

use agentbox_core::movement::smooth;
use agentbox_core::movingai::{self, Map};
use agentbox_core::nav::{cache, PathOptions};
use agentbox_core::world::World;
use std::path::PathBuf;

const MAPS: [&str; 5] = [
    "arena2",
    "random512-10-0",
    "Berlin_0_512",
    "maze512-1-0",
    "8room_000",
];

/// The body radius the routes are smoothed for (the default agent's).
const RADIUS: f64 = 0.3;

/// A world of the map: `.` free, `#` blocked.
fn world_of(map: &Map) -> World {
    let rows: Vec<String> = (0..map.height)
        .map(|y| {
            (0..map.width)
                .map(|x| {
                    if map.free(glam::IVec2::new(x, y)) {
                        '.'
                    } else {
                        '#'
                    }
                })
                .collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    World::from_ascii(&rows)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut queries = Some(200usize);
    let mut only = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--all" => queries = None,
            "--queries" => {
                i += 1;
                queries = args.get(i).and_then(|n| n.parse().ok());
            }
            name => only.push(name.to_string()),
        }
        i += 1;
    }
    let dir = PathBuf::from("data/movingai");
    let mut bad = false;
    println!(
        "map                 queries  grid (tiles)  smoothed  saved   straight line  corners/grid"
    );
    for name in MAPS
        .iter()
        .filter(|m| only.is_empty() || only.iter().any(|o| m.contains(o.as_str())))
    {
        let map =
            movingai::load_map(&dir.join(format!("{name}.map"))).unwrap_or_else(|e| panic!("{e}"));
        let scens = movingai::load_scen(&dir.join(format!("{name}.map.scen")))
            .unwrap_or_else(|e| panic!("{e}"));
        let world = world_of(&map);
        let picked: Vec<_> = match queries {
            Some(n) => scens
                .iter()
                .step_by((scens.len() / n.max(1)).max(1))
                .take(n)
                .collect(),
            None => scens.iter().collect(),
        };
        let (mut grid_sum, mut smooth_sum, mut straight_sum) = (0.0, 0.0, 0.0);
        let (mut cells, mut corners, mut n) = (0usize, 0usize, 0usize);
        for s in &picked {
            let (result, _) = cache::find(&world, s.start, s.goal, &PathOptions::default());
            let Some(path) = result.path else { continue };
            let pulled = smooth::smooth(&world, &path, RADIUS);
            let (g, l) = (smooth::length(&path), smooth::length(&pulled));
            if l > g + 1e-9
                || pulled
                    .windows(2)
                    .any(|w| !smooth::clear(&world, w[0], w[1], RADIUS))
            {
                eprintln!(
                    "{name}: query at line {} smoothed badly ({g} -> {l})",
                    s.line
                );
                bad = true;
            }
            grid_sum += g;
            smooth_sum += l;
            straight_sum += s.start.as_dvec2().distance(s.goal.as_dvec2());
            cells += path.len();
            corners += pulled.len();
            n += 1;
        }
        let k = n.max(1) as f64;
        println!(
            "{name:<18} {n:>8}  {:>12.2}  {:>8.2}  {:>5.1}%  {:>13.2}  {:>12.3}",
            grid_sum / k,
            smooth_sum / k,
            100.0 * (1.0 - smooth_sum / grid_sum.max(1e-12)),
            straight_sum / k,
            corners as f64 / cells.max(1) as f64
        );
    }
    if bad {
        std::process::exit(1);
    }
}
