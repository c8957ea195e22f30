//! Side-by-side timing of agentbox's grid search against two crates, on the MovingAI maps in
//! `data/movingai/` and on maps this bench generates (random 512x512 maps at 10 to 40%
//! obstacles, maps of rooms): same process, same queries, CPU time of this thread, the
//! searches interleaved. Run from the project root:
//!
//! ```text
//! cargo bench -p agentbox-tools --bench pathfinding_race                  # 100 queries per map, 3 rounds
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --all         # every query of the MovingAI maps
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --queries 300 --rounds 5
//! cargo bench -p agentbox-tools --bench pathfinding_race -- arena2 rooms  # only the maps whose names contain these
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --rules       # only part 2, the diagonal rules
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --default     # only part 1, the default rule
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --auto-only   # only agentbox's default search (for a profiler; no verdicts)
//! cargo bench -p agentbox-tools --bench pathfinding_race -- --default --per-query q.csv  # part 1's queries one by one
//! ```
//!
//! **Part 1, the default rule** (issue 35 goal 2): agentbox's default search (`auto`: jump
//! point search, with the bound of the map's two active landmarks, read lazily, on queries
//! whose start they show a detour from), agentbox's plain A*, `pathfinding::astar` (integer octile costs, the fast
//! way) and agentbox's plain jump point search. The grid's preparation (stop bits, landmarks)
//! is timed apart and its memory printed. Goal: the default search at least 10x
//! `pathfinding::astar` on every map, all optimal.
//!
//! **Part 2, the other diagonal rules** (issue 35 goal 3): under `diagonal = "always"` and
//! `"never"`, agentbox's default search (jump point search for that rule), agentbox's A* and
//! `grid_pathfinding`'s jump point search (whose diagonal steps are allowed between any free
//! cells, as `always`, or not at all with `allow_diagonal_move = false`, as `never`; it costs
//! steps 70 and 99, so its paths are re-costed exactly here and counted when dearer than the
//! optimum); under `"one_side"` (which the crate lacks), agentbox's default search against its
//! own A*. Goals: at least 2x the crate for `always` and `never`, at least 5x A* for
//! `one_side`, all optimal.
//!
//! Each round runs every picked query once with each search, in an order that rotates from
//! query to query and round to round and runs backwards every other time
//! (`agentbox_session::paths::turn_order`), so a neighbour loading the machine slows all
//! alike and each search follows each other one equally often. Each call is timed on its own
//! with the thread's CPU clock (`agentbox_session::bench::thread_cpu_time`). Printed per map
//! and search: the median per-query CPU time (each query's median over the rounds, then the
//! median over the queries), the median and minimum over the rounds of the per-round median
//! and mean, and the nodes expanded per query (jump points for the jump point searches).
//!
//! The goal's figure is a ratio of medians (`pathfinding::astar`'s median per-query time over
//! the default search's), not of totals: a few slow queries move the means, not the verdict.
//! `--per-query FILE` writes part 1's queries one line each (CSV: map, ends, optimal and
//! octile length, the active landmarks' bound at the start, each search's median us over the
//! rounds and nodes expanded), to see which queries are dear against `pathfinding::astar`.
//!
//! Every path agentbox returns is walked on the map under its rule and re-costed, and must
//! match the optimum: the scenario file's length on the MovingAI maps under the default rule,
//! agentbox's plain A* (checked against an independent Dijkstra in the core's tests)
//! elsewhere; `pathfinding::astar` must match too. The bench exits non-zero if any disagrees.

use agentbox_core::movingai::{self, Map};
use agentbox_core::nav::{Algorithm, Diagonal, NavGrid, PathOptions, PathResult, Search};
use agentbox_session::bench::thread_cpu_time;
use glam::IVec2;
use grid_util::grid::ValueGrid;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--auto-only`: run agentbox's default search alone (its paths still checked), so a profiler
/// (callgrind, perf) sees only it; the verdicts are not printed.
static AUTO_ONLY: AtomicBool = AtomicBool::new(false);

/// `--per-query FILE`: where part 1 writes its per-query lines (see the module's docs).
static PER_QUERY: std::sync::OnceLock<std::sync::Mutex<std::fs::File>> = std::sync::OnceLock::new();

const MOVINGAI: [&str; 5] = [
    "arena2",
    "random512-10-0",
    "Berlin_0_512",
    "maze512-1-0",
    "8room_000",
];

/// Integer step costs for pathfinding: 10000 straight, round(10000 sqrt 2) diagonal.
const S: u32 = 10_000;
const D: u32 = 14_142;

/// Goal 2: the default search's speedup over `pathfinding::astar`, default rule.
const GOAL_DEFAULT: f64 = 10.0;
/// Goal 3: the default search's speedup over `grid_pathfinding` (always, never) and over
/// agentbox's A* (one_side).
const GOAL_CRATE_JPS: f64 = 2.0;
const GOAL_ONE_SIDE: f64 = 5.0;

/// One map with its queries: start, goal and the optimal length when a file gives it.
struct Case {
    name: String,
    map: Map,
    queries: Vec<(IVec2, IVec2, Option<f64>)>,
}

/// A small deterministic generator (xorshift64*), so the generated maps are the same in every
/// run and on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A `size` x `size` map with each cell blocked with probability `share`.
fn random_map(size: i32, share: f64, seed: u64) -> Map {
    let mut r = Rng(seed);
    let costs = (0..size * size)
        .map(|_| if r.unit() < share { f32::INFINITY } else { 1.0 })
        .collect();
    Map {
        width: size,
        height: size,
        costs,
    }
}

/// A `size` x `size` map of square rooms `room` cells wide, walls one cell thick, each wall
/// with one to three doors two cells wide, and a few scattered blocks (`clutter`) inside.
fn room_map(size: i32, room: i32, clutter: f64, seed: u64) -> Map {
    let mut r = Rng(seed);
    let (w, n) = (size as usize, (size * size) as usize);
    let mut costs = vec![1.0f32; n];
    for y in 0..size {
        for x in 0..size {
            if (x % room == 0 || y % room == 0) || r.unit() < clutter {
                costs[y as usize * w + x as usize] = f32::INFINITY;
            }
        }
    }
    // Doors: in each wall segment between two rooms.
    for ry in 0..size / room + 1 {
        for rx in 0..size / room + 1 {
            for horizontal in [true, false] {
                for _ in 0..1 + r.below(3) {
                    let along = 1 + r.below((room - 2).max(1) as u64) as i32;
                    for k in 0..2 {
                        let (x, y) = if horizontal {
                            (rx * room + along + k, ry * room)
                        } else {
                            (rx * room, ry * room + along + k)
                        };
                        if x > 0 && y > 0 && x < size - 1 && y < size - 1 {
                            costs[y as usize * w + x as usize] = 1.0;
                        }
                    }
                }
            }
        }
    }
    Map {
        width: size,
        height: size,
        costs,
    }
}

/// `count` queries between free cells that A* under the default rule connects, with that
/// optimum left to be filled in by the race (`None`).
fn random_queries(map: &Map, count: usize, seed: u64) -> Vec<(IVec2, IVec2, Option<f64>)> {
    let grid = NavGrid::new(map.width, map.height, &map.costs).expect("valid map");
    let free: Vec<IVec2> = (0..map.width * map.height)
        .filter(|&i| map.costs[i as usize].is_finite())
        .map(|i| IVec2::new(i % map.width, i / map.width))
        .collect();
    let mut r = Rng(seed);
    let mut search = Search::new();
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count && tries < count * 50 {
        tries += 1;
        let a = free[r.below(free.len() as u64) as usize];
        let b = free[r.below(free.len() as u64) as usize];
        // Not too short: at least a sixth of the map apart.
        if (a - b).abs().max_element() < map.width / 6 {
            continue;
        }
        if search
            .find_on(&grid, a, b, &PathOptions::default())
            .path
            .is_some()
        {
            out.push((a, b, None));
        }
    }
    out
}

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

/// `grid_pathfinding`'s grid for a map: diagonal steps between any free cells, or none.
fn crate_grid(map: &Map, diagonal: bool) -> grid_pathfinding::PathingGrid {
    let mut g = grid_pathfinding::PathingGrid::new(map.width as usize, map.height as usize, false);
    g.allow_diagonal_move = diagonal;
    for y in 0..map.height {
        for x in 0..map.width {
            if map.costs[(y * map.width + x) as usize].is_infinite() {
                g.set(x, y, true);
            }
        }
    }
    g.generate_components();
    g
}

/// The crate's path, walked under `rule` and costed exactly (1 straight, sqrt 2 diagonal);
/// `None` when there is none or it breaks the rule.
fn crate_path(
    g: &grid_pathfinding::PathingGrid,
    map: &Map,
    rule: Diagonal,
    a: IVec2,
    b: IVec2,
) -> Option<f64> {
    let start = grid_util::point::Point::new(a.x, a.y);
    let goal = grid_util::point::Point::new(b.x, b.y);
    let path = g.get_path_single_goal(start, goal, false)?;
    let tiles: Vec<IVec2> = path.iter().map(|p| IVec2::new(p.x, p.y)).collect();
    walk(map, &tiles, rule, a, b)
}

/// A path's exact cost when it runs from `a` to `b` by legal steps under `rule`.
fn walk(map: &Map, path: &[IVec2], rule: Diagonal, a: IVec2, b: IVec2) -> Option<f64> {
    if path.first() != Some(&a) || path.last() != Some(&b) || !path.iter().all(|&t| map.free(t)) {
        return None;
    }
    let mut cost = 0.0;
    for pair in path.windows(2) {
        let d = pair[1] - pair[0];
        if d.abs().max_element() != 1 {
            return None;
        }
        if d.x != 0 && d.y != 0 {
            let (p, q) = (
                map.free(pair[0] + IVec2::new(d.x, 0)),
                map.free(pair[0] + IVec2::new(0, d.y)),
            );
            let ok = match rule {
                Diagonal::Never => false,
                Diagonal::NoCornerCutting => p && q,
                Diagonal::IfOneSideFree => p || q,
                Diagonal::Always => true,
            };
            if !ok {
                return None;
            }
            cost += std::f64::consts::SQRT_2;
        } else {
            cost += 1.0;
        }
    }
    Some(cost)
}

/// The median of a list (the mean of the middle two for an even count; NaN when empty).
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

/// Per search: each round's per-query CPU times, microseconds, `[search][round][query]`.
struct Times {
    us: Vec<Vec<Vec<f64>>>,
}

impl Times {
    fn new(searches: usize, rounds: usize, queries: usize) -> Self {
        Times {
            us: vec![vec![vec![0.0; queries]; rounds]; searches],
        }
    }

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

    /// Prints one line per search.
    fn print(&self, names: &[&str], expanded: &[usize], queries: usize) {
        println!(
            "  {:<22} {:>10} {:>20} {:>20} {:>10}",
            "search", "median us", "round medians us", "round means us", "expanded"
        );
        for (k, name) in names.iter().enumerate() {
            let (med, means) = (self.round_medians(k), self.round_means(k));
            println!(
                "  {:<22} {:>10.1} {:>11.1} ({:>6.1}) {:>11.1} ({:>6.1}) {:>10}",
                name,
                self.median(k),
                median(&med),
                min(&med),
                median(&means),
                min(&means),
                if expanded[k] == usize::MAX {
                    "-".to_string()
                } else {
                    format!("{:.0}", expanded[k] as f64 / queries.max(1) as f64)
                }
            );
        }
    }
}

/// What a goal line reports: the map (and rule), the speedup, its worst round, the peer.
struct Goal {
    what: String,
    speedup: f64,
    worst: f64,
    target: f64,
}

/// Times one agentbox search call; its result and microseconds.
fn timed_find(
    search: &mut Search,
    grid: &NavGrid,
    a: IVec2,
    b: IVec2,
    o: &PathOptions,
) -> (PathResult, f64) {
    let started = thread_cpu_time();
    let r = search.find_on(grid, a, b, o);
    (r, (thread_cpu_time() - started).as_secs_f64() * 1e6)
}

/// Part 1 on one map; returns how many results disagreed with the optimum.
fn race_default(case: &Case, rounds: usize, goals: &mut Vec<Goal>) -> usize {
    const NAMES: [&str; 4] = [
        "agentbox auto",
        "agentbox A*",
        "pathfinding::astar",
        "agentbox JPS",
    ];
    let map = &case.map;
    let started = thread_cpu_time();
    let mut grid = NavGrid::new(map.width, map.height, &map.costs).expect("valid map");
    let build_ms = (thread_cpu_time() - started).as_secs_f64() * 1e3;
    // The default search's landmark distances, built once as the navigation cache does.
    let started = thread_cpu_time();
    let landmarks =
        map.costs.len() >= agentbox_core::nav::landmarks::MIN_CELLS && grid.build_landmarks();
    let landmarks_ms = (thread_cpu_time() - started).as_secs_f64() * 1e3;
    let mut search = Search::new();
    let opts = [
        PathOptions::default(),
        PathOptions {
            algorithm: Algorithm::AStar,
            ..Default::default()
        },
        PathOptions::default(),
        PathOptions {
            algorithm: Algorithm::Jps,
            ..Default::default()
        },
    ];
    let queries = &case.queries;
    let mut times = Times::new(NAMES.len(), rounds, queries.len());
    let mut expanded = [0usize, 0, usize::MAX, 0];
    let mut expanded_q = vec![[0usize; 4]; queries.len()];
    let mut bad = 0;
    for round in 0..rounds {
        for (q, &(a, b, optimal)) in queries.iter().enumerate() {
            for turn in 0..NAMES.len() {
                let k = agentbox_session::paths::turn_order(NAMES.len(), q, round, turn);
                if k != 0 && AUTO_ONLY.load(Ordering::Relaxed) {
                    continue;
                }
                let length = if k == 2 {
                    let started = thread_cpu_time();
                    let c = pathfinding_astar(map, a, b);
                    times.us[k][round][q] = (thread_cpu_time() - started).as_secs_f64() * 1e6;
                    c.map(|c| c as f64 / S as f64)
                } else {
                    let (r, us) = timed_find(&mut search, &grid, a, b, &opts[k]);
                    times.us[k][round][q] = us;
                    if round == 0 {
                        expanded[k] += r.expanded;
                        expanded_q[q][k] = r.expanded;
                    }
                    r.path
                        .as_ref()
                        .and_then(|p| walk(map, p, Diagonal::NoCornerCutting, a, b))
                };
                // pathfinding's integer diagonal is rounded: allow 1e-5 per step.
                let optimal = optimal.unwrap_or(f64::NAN);
                let tol = if k == 2 { 1e-3 + optimal * 1e-5 } else { 1e-3 };
                if length.is_none_or(|l| (l - optimal).abs() > tol) {
                    bad += 1;
                    eprintln!(
                        "{} {a}->{b}: optimal {optimal}, {} found {length:?}",
                        case.name, NAMES[k]
                    );
                }
            }
        }
    }
    if let Some(file) = PER_QUERY.get() {
        write_per_query(file, case, &grid, &times, &expanded_q);
    }
    let bytes = grid.bits().map_or(0, |b| b.bytes()) + grid.landmarks().map_or(0, |l| l.bytes());
    println!(
        "\n{} (default rule): {} queries; preparation: stop bits {build_ms:.2} ms CPU, {}; {:.1} MB",
        case.name,
        queries.len(),
        if landmarks {
            let gain = grid.landmarks().map_or(0.0, |l| l.gain);
            format!(
                "{} landmarks {landmarks_ms:.1} ms CPU ({:.0}% of sampled pairs gain over 5%; {})",
                grid.landmarks().map_or(0, |l| l.count()),
                gain * 100.0,
                if gain >= agentbox_core::nav::landmarks::MIN_GAIN {
                    "read lazily where a query's start promises a detour"
                } else {
                    "not used"
                }
            )
        } else if map.costs.len() >= agentbox_core::nav::landmarks::MIN_CELLS {
            format!("no landmarks (routes hardly bent: refused after the first search, {landmarks_ms:.1} ms CPU)")
        } else {
            "no landmarks (small map)".to_string()
        },
        bytes as f64 / (1 << 20) as f64
    );
    times.print(&NAMES, &expanded, queries.len());
    let like = times.round_ratios(2, 1);
    println!(
        "  like for like, A* against A*: agentbox {:.2}x pathfinding::astar (rounds: median {:.2}x, min {:.2}x)",
        times.median(2) / times.median(1),
        median(&like),
        min(&like)
    );
    let rounds_speedup = times.round_ratios(2, 0);
    goals.push(Goal {
        what: format!(
            "goal 2: default search vs pathfinding::astar on {}",
            case.name
        ),
        speedup: times.median(2) / times.median(0),
        worst: min(&rounds_speedup),
        target: GOAL_DEFAULT,
    });
    bad
}

/// Part 1's queries on one map, one CSV line each, to `--per-query`'s file (see the module's
/// docs); a failed write is reported and ends the run.
fn write_per_query(
    file: &std::sync::Mutex<std::fs::File>,
    case: &Case,
    grid: &NavGrid,
    times: &Times,
    expanded: &[[usize; 4]],
) {
    use std::io::Write;
    let mut out = String::new();
    for (q, &(a, b, optimal)) in case.queries.iter().enumerate() {
        let (dx, dy) = ((a.x - b.x).abs() as f64, (a.y - b.y).abs() as f64);
        let octile = dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy);
        let bound = grid
            .landmarks()
            .map_or(0.0, |l| l.active((a.x, a.y), (b.x, b.y)).1);
        let us = |k: usize| median(&times.us[k].iter().map(|r| r[q]).collect::<Vec<_>>());
        out += &format!(
            "{},{},{},{},{},{:.3},{:.3},{:.3},{:.1},{:.1},{:.1},{:.1},{},{},{}\n",
            case.name,
            a.x,
            a.y,
            b.x,
            b.y,
            optimal.unwrap_or(f64::NAN),
            octile,
            bound,
            us(0),
            us(1),
            us(2),
            us(3),
            expanded[q][0],
            expanded[q][1],
            expanded[q][3],
        );
    }
    let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = f.write_all(out.as_bytes()) {
        eprintln!("error: --per-query: {e}");
        std::process::exit(2);
    }
}

/// Part 2 on one map under one rule; returns how many results disagreed with the optimum.
fn race_rule(case: &Case, rule: Diagonal, rounds: usize, goals: &mut Vec<Goal>) -> usize {
    let map = &case.map;
    let mut grid = NavGrid::new(map.width, map.height, &map.costs).expect("valid map");
    // As the navigation cache does: the default rule's landmarks on a large map (timed in part
    // 1), then this rule's own, which the first query under the rule would build (timed here).
    let rule_ms = (map.costs.len() >= agentbox_core::nav::landmarks::MIN_CELLS
        && grid.build_landmarks())
    .then(|| {
        let started = thread_cpu_time();
        let built = grid.landmarks_for(rule).is_some();
        (built, (thread_cpu_time() - started).as_secs_f64() * 1e3)
    })
    .filter(|&(built, _)| built)
    .map(|(_, ms)| ms);
    let peer = match rule {
        Diagonal::Always => Some(true),
        Diagonal::Never => Some(false),
        _ => None,
    };
    let started = thread_cpu_time();
    let crate_grid = peer.map(|diagonal| crate_grid(map, diagonal));
    let crate_ms = (thread_cpu_time() - started).as_secs_f64() * 1e3;
    let names: Vec<&str> = if peer.is_some() {
        vec!["agentbox auto (JPS)", "agentbox A*", "grid_pathfinding JPS"]
    } else {
        vec!["agentbox auto (JPS)", "agentbox A*"]
    };
    let auto = PathOptions {
        diagonal: rule,
        ..Default::default()
    };
    let astar = PathOptions {
        algorithm: Algorithm::AStar,
        ..auto
    };
    let mut search = Search::new();
    // The optimum under this rule: agentbox's A*, run once before the race.
    let optimum: Vec<Option<f64>> = case
        .queries
        .iter()
        .map(|&(a, b, _)| {
            let r = search.find_on(&grid, a, b, &astar);
            r.path.map(|_| r.cost)
        })
        .collect();
    let mut times = Times::new(names.len(), rounds, case.queries.len());
    let mut expanded = vec![0usize; names.len()];
    if peer.is_some() {
        expanded[2] = usize::MAX;
    }
    let (mut bad, mut crate_dearer, mut crate_missing) = (0, 0, 0);
    for round in 0..rounds {
        for (q, &(a, b, _)) in case.queries.iter().enumerate() {
            for turn in 0..names.len() {
                let k = agentbox_session::paths::turn_order(names.len(), q, round, turn);
                if k != 0 && AUTO_ONLY.load(Ordering::Relaxed) {
                    continue;
                }
                let length = match (k, &crate_grid) {
                    (2, Some(g)) => {
                        let started = thread_cpu_time();
                        let c = crate_path(g, map, rule, a, b);
                        times.us[k][round][q] = (thread_cpu_time() - started).as_secs_f64() * 1e6;
                        c
                    }
                    _ => {
                        let o = if k == 0 { &auto } else { &astar };
                        let (r, us) = timed_find(&mut search, &grid, a, b, o);
                        times.us[k][round][q] = us;
                        if round == 0 {
                            expanded[k] += r.expanded;
                        }
                        r.path.as_ref().and_then(|p| walk(map, p, rule, a, b))
                    }
                };
                let ok = match (length, optimum[q]) {
                    (None, None) => true,
                    (Some(l), Some(o)) => (l - o).abs() < 1e-6,
                    _ => false,
                };
                if ok || round > 0 {
                    continue;
                }
                if k == 2 {
                    // The crate's misses are counted and reported, not failures of this bench.
                    match length {
                        Some(_) => crate_dearer += 1,
                        None => crate_missing += 1,
                    }
                } else {
                    bad += 1;
                    eprintln!(
                        "{} {rule:?} {a}->{b}: optimal {:?}, {} found {length:?}",
                        case.name, optimum[q], names[k]
                    );
                }
            }
        }
    }
    println!(
        "\n{} (diagonal {rule:?}): {} queries; {}{}",
        case.name,
        case.queries.len(),
        match rule_ms {
            Some(ms) => format!(
                "the rule's {} landmarks built in {ms:.1} ms CPU ({:.1} MB)",
                grid.landmarks_for(rule).map_or(0, |l| l.count()),
                grid.landmarks_for(rule).map_or(0, |l| l.bytes()) as f64 / (1 << 20) as f64
            ),
            None => "no landmarks for this rule".to_string(),
        },
        if peer.is_some() {
            format!(
                "; grid_pathfinding's grid built in {crate_ms:.1} ms CPU; its path dearer than optimal on {crate_dearer}, missing or illegal on {crate_missing}"
            )
        } else {
            String::new()
        }
    );
    times.print(&names, &expanded, case.queries.len());
    let (peer_k, target, what) = if peer.is_some() {
        (2, GOAL_CRATE_JPS, "grid_pathfinding JPS")
    } else {
        (1, GOAL_ONE_SIDE, "agentbox A*")
    };
    let rounds_speedup = times.round_ratios(peer_k, 0);
    goals.push(Goal {
        what: format!(
            "goal 3: default search vs {what}, diagonal {rule:?}, on {}",
            case.name
        ),
        speedup: times.median(peer_k) / times.median(0),
        worst: min(&rounds_speedup),
        target,
    });
    bad
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    let only_rules = args.iter().any(|a| a == "--rules");
    let only_default = args.iter().any(|a| a == "--default");
    AUTO_ONLY.store(args.iter().any(|a| a == "--auto-only"), Ordering::Relaxed);
    if let Some(at) = args.iter().position(|a| a == "--per-query") {
        let Some(path) = args.get(at + 1) else {
            eprintln!("error: --per-query needs a file name");
            std::process::exit(2);
        };
        let mut file = std::fs::File::create(path).unwrap_or_else(|e| {
            eprintln!("error: --per-query {path}: {e}");
            std::process::exit(2);
        });
        let header = "map,sx,sy,gx,gy,optimal,octile,landmark_bound,auto_us,astar_us,\
                      pathfinding_us,jps_us,auto_expanded,astar_expanded,jps_expanded\n";
        if let Err(e) = std::io::Write::write_all(&mut file, header.as_bytes()) {
            eprintln!("error: --per-query {path}: {e}");
            std::process::exit(2);
        }
        let _ = PER_QUERY.set(std::sync::Mutex::new(file));
    }
    let per_map = number(&args, "--queries").unwrap_or(100);
    let rounds = number(&args, "--rounds").unwrap_or(3);
    // Other arguments (not cargo's `--bench`, nor a number after an option) pick maps by name.
    // An existing file is skipped: `target/release/deps/pathfinding_race-*` also matches the
    // binary's `.d` file, which would otherwise pick no map at all.
    let only: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            let after_option = *i > 0
                && matches!(
                    args[i - 1].as_str(),
                    "--queries" | "--rounds" | "--per-query"
                );
            !a.starts_with("--") && !after_option && !std::path::Path::new(a).is_file()
        })
        .map(|(_, a)| a)
        .collect();
    let picked = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/movingai"));
    if !dir.join("arena2.map").is_file() {
        eprintln!(
            "error: MovingAI maps not found at {} (they are part of the repository)",
            dir.display()
        );
        std::process::exit(2);
    }
    let mut cases = Vec::new();
    for name in MOVINGAI.iter().filter(|n| picked(n)) {
        let map =
            movingai::load_map(&dir.join(format!("{name}.map"))).unwrap_or_else(|e| panic!("{e}"));
        let scens = movingai::load_scen(&dir.join(format!("{name}.map.scen")))
            .unwrap_or_else(|e| panic!("{e}"));
        let step = if all {
            1
        } else {
            scens.len().div_ceil(per_map)
        };
        let queries = scens
            .iter()
            .step_by(step)
            .map(|s| (s.start, s.goal, Some(s.optimal)))
            .collect();
        cases.push(Case {
            name: name.to_string(),
            map,
            queries,
        });
    }
    // Maps of our own, held back from the code's tuning: random at 10 to 40% obstacles, rooms.
    let generated: Vec<(String, Box<dyn Fn() -> Map>)> = vec![
        (
            "ours-random512-10".into(),
            Box::new(|| random_map(512, 0.10, 11)),
        ),
        (
            "ours-random512-20".into(),
            Box::new(|| random_map(512, 0.20, 12)),
        ),
        (
            "ours-random512-30".into(),
            Box::new(|| random_map(512, 0.30, 13)),
        ),
        (
            "ours-random512-40".into(),
            Box::new(|| random_map(512, 0.40, 14)),
        ),
        (
            "ours-rooms512-32".into(),
            Box::new(|| room_map(512, 32, 0.0, 21)),
        ),
        (
            "ours-rooms512-16-clutter".into(),
            Box::new(|| room_map(512, 16, 0.05, 22)),
        ),
    ];
    for (name, make) in generated.iter().filter(|(n, _)| picked(n)) {
        let map = make();
        let queries = random_queries(&map, per_map, name.len() as u64 * 7919);
        cases.push(Case {
            name: name.clone(),
            map,
            queries,
        });
    }
    if cases.is_empty() {
        eprintln!("error: no map's name contains any of {only:?}");
        std::process::exit(2);
    }
    // The generated maps' optimum under the default rule: agentbox's A*, before the race.
    let mut search = Search::new();
    let astar = PathOptions {
        algorithm: Algorithm::AStar,
        ..Default::default()
    };
    for case in &mut cases {
        let grid = NavGrid::new(case.map.width, case.map.height, &case.map.costs).expect("map");
        for q in case.queries.iter_mut().filter(|q| q.2.is_none()) {
            q.2 = Some(search.find_on(&grid, q.0, q.1, &astar).cost);
        }
    }
    println!(
        "clock: {}; {} round(s); each figure: median (min) over the rounds",
        agentbox_session::bench::CLOCK,
        rounds
    );
    let mut bad = 0;
    let mut goals: Vec<Goal> = Vec::new();
    if !only_rules {
        println!("\n== part 1: the default rule (no corner cutting), issue 35 goal 2 ==");
        for case in &cases {
            bad += race_default(case, rounds, &mut goals);
        }
    }
    if !only_default {
        println!("\n== part 2: the other diagonal rules, issue 35 goal 3 ==");
        for case in &cases {
            for rule in [Diagonal::Always, Diagonal::Never, Diagonal::IfOneSideFree] {
                bad += race_rule(case, rule, rounds, &mut goals);
            }
        }
    }
    println!();
    if AUTO_ONLY.load(Ordering::Relaxed) {
        goals.clear();
        println!("--auto-only: agentbox's default search alone, no verdicts");
    }
    for g in &goals {
        println!(
            "{} >= {}x: {:.2}x (worst round {:.2}x): {}",
            g.what,
            g.target,
            g.speedup,
            g.worst,
            if g.speedup >= g.target {
                "MET"
            } else {
                "NOT MET"
            }
        );
    }
    if bad > 0 {
        eprintln!("{bad} results disagree with the optimal length");
        std::process::exit(1);
    }
}
