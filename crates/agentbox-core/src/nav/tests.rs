//! Behaviour of the searches as a whole: costs against a plain Dijkstra on random grids, the
//! corner rules, footprints, limits, a classic worked example of A* with integer costs.

use super::*;
use crate::world::{rng, Tile, World};
use glam::IVec2;
use std::collections::BinaryHeap;

fn t(x: i32, y: i32) -> IVec2 {
    IVec2::new(x, y)
}

/// A tile of a `w` x `h` map, drawn from `r` (x first, then y).
fn random_tile(r: &mut rand_chacha::ChaCha8Rng, w: i32, h: i32) -> IVec2 {
    t(
        rng::int_in(r, 0, w as i64 - 1) as i32,
        rng::int_in(r, 0, h as i64 - 1) as i32,
    )
}

/// The textbook Dijkstra over the same move model, written independently of `Search`.
fn dijkstra(grid: &NavGrid, from: IVec2, to: IVec2, o: &PathOptions) -> Option<f64> {
    let body = grid.footprint_costs(o.size.max(1));
    let (w, h) = (grid.width(), grid.height());
    let free = |x: i32, y: i32| {
        x >= 0 && y >= 0 && x < w && y < h && body[(y * w + x) as usize].is_finite()
    };
    if !free(from.x, from.y) || !free(to.x, to.y) {
        return None;
    }
    let (s, d) = o.step_costs.units();
    let mut dist = vec![f64::INFINITY; body.len()];
    let mut heap = BinaryHeap::new();
    dist[(from.y * w + from.x) as usize] = 0.0;
    heap.push((std::cmp::Reverse(0u64), from.x, from.y));
    while let Some((std::cmp::Reverse(bits), x, y)) = heap.pop() {
        let here = f64::from_bits(bits);
        if here > dist[(y * w + x) as usize] {
            continue;
        }
        if (x, y) == (to.x, to.y) {
            return Some(here);
        }
        for dy in -1..=1 {
            for dx in -1..=1 {
                if (dx, dy) == (0, 0) || !free(x + dx, y + dy) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal {
                    let (a, b) = (free(x + dx, y), free(x, y + dy));
                    let ok = match o.diagonal {
                        Diagonal::Never => false,
                        Diagonal::NoCornerCutting => a && b,
                        Diagonal::IfOneSideFree => a || b,
                        Diagonal::Always => true,
                    };
                    if !ok {
                        continue;
                    }
                }
                let i = ((y + dy) * w + x + dx) as usize;
                let terrain = if o.ignore_terrain_cost {
                    1.0
                } else {
                    body[i] as f64
                };
                let nd = here + terrain * if diagonal { d } else { s };
                if nd < dist[i] {
                    dist[i] = nd;
                    heap.push((std::cmp::Reverse(nd.to_bits()), x + dx, y + dy));
                }
            }
        }
    }
    None
}

/// Checks that a path is a legal walk under the options and returns its cost, recomputed.
/// The three rules with diagonal steps, in the order the randomised tests cycle through them.
const DIAGONAL_RULES: [Diagonal; 3] = [
    Diagonal::NoCornerCutting,
    Diagonal::IfOneSideFree,
    Diagonal::Always,
];

/// The default search's options under `rule`, and plain A*'s under the same rule (its oracle).
fn default_and_astar(rule: Diagonal) -> (PathOptions, PathOptions) {
    let auto = PathOptions {
        diagonal: rule,
        ..Default::default()
    };
    let astar = PathOptions {
        algorithm: Algorithm::AStar,
        ..auto
    };
    (auto, astar)
}

/// Runs the query `(from, to)` again with the search log on: the same answer as `r` (the
/// query's answer without it), and one logged expansion for each it counted. The log.
fn logged_agrees(
    search: &mut Search,
    grid: &NavGrid,
    (from, to): (Tile, Tile),
    opts: &PathOptions,
    r: &PathResult,
) -> Vec<SearchEvent> {
    let (logged, log) = search.find_logged(grid, from, to, opts);
    assert_eq!(&logged, r);
    let expands = log
        .iter()
        .filter(|e| matches!(e, SearchEvent::Expand { .. }))
        .count();
    assert_eq!(expands, r.expanded);
    log
}

/// A `w` x `h` map with about `share`% of its tiles blocked at random, and its free tiles.
fn scattered_map(
    w: usize,
    h: usize,
    share: u64,
    next: &mut impl FnMut() -> u64,
) -> (World, Vec<IVec2>) {
    let rows: Vec<String> = (0..h)
        .map(|_| {
            (0..w)
                .map(|_| if next() % 100 < share { '#' } else { '.' })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let world = World::from_ascii(&refs);
    let free: Vec<IVec2> = (0..w * h)
        .map(|i| IVec2::new((i % w) as i32, (i / w) as i32))
        .filter(|&c| !world.is_blocked(c))
        .collect();
    (world, free)
}

fn walk_cost(grid: &NavGrid, path: &[IVec2], o: &PathOptions) -> f64 {
    let body = grid.footprint_costs(o.size.max(1));
    let w = grid.width();
    let free = |p: IVec2| grid.index(p).is_some_and(|i| body[i].is_finite());
    let (s, d) = o.step_costs.units();
    let mut cost = 0.0;
    for pair in path.windows(2) {
        let step = pair[1] - pair[0];
        assert!(
            step.abs().max_element() == 1,
            "not a neighbour step: {pair:?}"
        );
        assert!(free(pair[1]), "enters a blocked position {:?}", pair[1]);
        let diagonal = step.x != 0 && step.y != 0;
        if diagonal {
            let (a, b) = (free(pair[0] + t(step.x, 0)), free(pair[0] + t(0, step.y)));
            let ok = match o.diagonal {
                Diagonal::Never => false,
                Diagonal::NoCornerCutting => a && b,
                Diagonal::IfOneSideFree => a || b,
                Diagonal::Always => true,
            };
            assert!(ok, "diagonal step {pair:?} breaks {:?}", o.diagonal);
        }
        let terrain = if o.ignore_terrain_cost {
            1.0
        } else {
            body[(pair[1].y * w + pair[1].x) as usize] as f64
        };
        cost += terrain * if diagonal { d } else { s };
    }
    cost
}

/// Over 80 lines on purpose: one property checked over every rule, heuristic and algorithm
/// on the same random grids, with the set-up that names what each case is.
#[test]
fn costs_match_dijkstra_on_random_grids() {
    let mut r = rng::stream(42, "nav", "property");
    let mut search = Search::new();
    let rules = [
        Diagonal::Never,
        Diagonal::NoCornerCutting,
        Diagonal::IfOneSideFree,
        Diagonal::Always,
    ];
    let mut compared = 0;
    for case in 0..600 {
        let w = rng::int_in(&mut r, 1, 24) as i32;
        let h = rng::int_in(&mut r, 1, 24) as i32;
        let wall = rng::unit_f64(&mut r) * 0.4;
        let uniform = case % 3 == 0;
        let costs: Vec<f32> = (0..w * h)
            .map(|_| {
                if rng::unit_f64(&mut r) < wall {
                    f32::INFINITY
                } else if uniform {
                    2.0
                } else {
                    [1.0, 1.0, 2.0, 3.0, 7.5][rng::int_in(&mut r, 0, 4) as usize]
                }
            })
            .collect();
        let grid = NavGrid::new(w, h, &costs).unwrap();
        let mut o = PathOptions {
            diagonal: rules[rng::int_in(&mut r, 0, 3) as usize],
            size: if case % 5 == 0 { 2 } else { 1 },
            ignore_terrain_cost: case % 7 == 0,
            ..Default::default()
        };
        o.heuristic = match rng::int_in(&mut r, 0, 3) {
            0 => Heuristic::Octile,
            1 => Heuristic::Euclidean,
            2 => Heuristic::Zero,
            // Manhattan is admissible only without diagonal steps.
            _ if o.diagonal == Diagonal::Never => Heuristic::Manhattan,
            _ => Heuristic::Octile,
        };
        if case % 4 == 1 {
            o.step_costs = StepCosts::Source;
        }
        if case % 2 == 0 {
            o.algorithm = Algorithm::AStar;
        }
        for _ in 0..6 {
            let a = random_tile(&mut r, w, h);
            let b = random_tile(&mut r, w, h);
            let expected = dijkstra(&grid, a, b, &o);
            let got = search.find_on(&grid, a, b, &o);
            match (expected, &got.path) {
                (None, None) => {}
                (Some(e), Some(p)) => {
                    compared += 1;
                    assert_eq!((p[0], *p.last().unwrap()), (a, b));
                    let walked = walk_cost(&grid, p, &o);
                    assert!(
                        (walked - got.cost).abs() < 1e-6,
                        "case {case}: reported {} walked {walked}",
                        got.cost
                    );
                    assert!(
                        (walked - e).abs() < 1e-6,
                        "case {case} {o:?} {a}->{b}: {walked} vs Dijkstra {e}"
                    );
                    assert!(got.complete);
                }
                _ => panic!(
                    "case {case} {o:?} {a}->{b}: Dijkstra {expected:?}, search {:?}",
                    got.path
                ),
            }
        }
    }
    assert!(compared > 1500, "only {compared} paths compared");
}

/// Jump point search, under every diagonal rule, returns a path as cheap as plain A*'s and
/// the independent Dijkstra's, on random maps from open to cluttered and on maps of rooms.
#[test]
fn jump_point_search_runs_where_valid_and_matches_astar() {
    let mut r = rng::stream(7, "nav", "jps");
    let mut search = Search::new();
    let mut jps_runs = [0; 4];
    let rules = [
        Diagonal::Never,
        Diagonal::NoCornerCutting,
        Diagonal::IfOneSideFree,
        Diagonal::Always,
    ];
    for case in 0..1200 {
        let (w, h) = (
            rng::int_in(&mut r, 2, 40) as i32,
            rng::int_in(&mut r, 2, 40) as i32,
        );
        let wall = rng::unit_f64(&mut r) * 0.45;
        // Every third map is rooms: walls on a lattice with doors, plus scattered blocks.
        let rooms = case % 3 == 0;
        let period = rng::int_in(&mut r, 3, 8) as i32;
        let costs: Vec<f32> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let lattice = rooms && (x % period == 0 || y % period == 0);
                let blocked = if lattice {
                    rng::unit_f64(&mut r) < 0.8
                } else {
                    rng::unit_f64(&mut r) < wall * if rooms { 0.3 } else { 1.0 }
                };
                if blocked {
                    f32::INFINITY
                } else {
                    1.0
                }
            })
            .collect();
        let grid = NavGrid::new(w, h, &costs).unwrap();
        let rule = rules[case % 4];
        let (jps, astar) = default_and_astar(rule);
        for _ in 0..5 {
            let a = random_tile(&mut r, w, h);
            let b = random_tile(&mut r, w, h);
            let j = search.find_on(&grid, a, b, &jps);
            let s = search.find_on(&grid, a, b, &astar);
            if grid.free(a.x, a.y) && grid.free(b.x, b.y) {
                assert!(j.used_jps && !s.used_jps);
                jps_runs[case % 4] += 1;
            }
            assert_eq!(j.path.is_some(), s.path.is_some(), "{rule:?} {a}->{b}");
            let truth = dijkstra(&grid, a, b, &jps);
            assert_eq!(j.path.is_some(), truth.is_some(), "{rule:?} {a}->{b}");
            if let Some(p) = &j.path {
                assert_eq!((p[0], *p.last().unwrap()), (a, b));
                let walked = walk_cost(&grid, p, &jps);
                assert!(
                    (walked - s.cost).abs() < 1e-9 && (walked - j.cost).abs() < 1e-9,
                    "case {case} {rule:?} {a}->{b}: jps {walked} ({}) astar {}",
                    j.cost,
                    s.cost
                );
                assert!((walked - truth.unwrap_or(f64::NAN)).abs() < 1e-9);
            }
        }
    }
    assert!(jps_runs.iter().all(|&n| n > 300), "{jps_runs:?}");
    // Not valid with terrain costs, bodies, a limit or Manhattan's estimate: A* runs.
    let w = World::from_ascii(&["..:..", "....."]);
    let mut s = Search::new();
    assert!(
        !s.find(&w, t(0, 0), t(4, 0), &PathOptions::default())
            .used_jps
    );
    let open = World::from_ascii(&["....", "...."]);
    for o in [
        PathOptions {
            size: 2,
            ..Default::default()
        },
        PathOptions {
            max_expanded: Some(100),
            ..Default::default()
        },
        PathOptions {
            heuristic: Heuristic::Manhattan,
            ..Default::default()
        },
    ] {
        assert!(!s.find(&open, t(0, 0), t(2, 0), &o).used_jps, "{o:?}");
    }
}

/// When the direct route (diagonal first, then straight) is free, jump point search returns
/// it, at A*'s cost, in two expansions; elsewhere it searches.
#[test]
fn a_free_direct_route_is_the_answer_at_astars_cost() {
    let mut r = rng::stream(11, "nav", "direct");
    let mut search = Search::new();
    let (mut direct, mut searched) = (0, 0);
    for case in 0..600 {
        let (w, h) = (
            rng::int_in(&mut r, 2, 60) as i32,
            rng::int_in(&mut r, 2, 60) as i32,
        );
        let wall = rng::unit_f64(&mut r) * 0.2 * (case % 3) as f64;
        let costs: Vec<f32> = (0..w * h)
            .map(|_| {
                if rng::unit_f64(&mut r) < wall {
                    f32::INFINITY
                } else {
                    1.0
                }
            })
            .collect();
        let grid = NavGrid::new(w, h, &costs).unwrap();
        let rule = DIAGONAL_RULES[case % 3];
        let (fast, full) = default_and_astar(rule);
        for _ in 0..10 {
            let a = random_tile(&mut r, w, h);
            let b = random_tile(&mut r, w, h);
            let f = search.find_on(&grid, a, b, &fast);
            let s = search.find_on(&grid, a, b, &full);
            assert_eq!(f.path.is_some(), s.path.is_some(), "case {case} {a}->{b}");
            let Some(p) = &f.path else { continue };
            assert!((f.cost - s.cost).abs() < 1e-9, "case {case} {a}->{b}");
            assert!((walk_cost(&grid, p, &fast) - s.cost).abs() < 1e-9);
            // The direct route: diagonal steps while both coordinates differ, then straight.
            let mut route = vec![a];
            while *route.last().unwrap() != b {
                let c = *route.last().unwrap();
                route.push(c + (b - c).signum());
            }
            let free = |p: IVec2| grid.free(p.x, p.y);
            let legal = route.windows(2).all(|s| {
                let (c, d) = (s[0], s[1] - s[0]);
                free(s[1])
                    && (d.x == 0
                        || d.y == 0
                        || match rule {
                            Diagonal::NoCornerCutting => free(c + t(d.x, 0)) && free(c + t(0, d.y)),
                            Diagonal::IfOneSideFree => free(c + t(d.x, 0)) || free(c + t(0, d.y)),
                            _ => true,
                        })
            });
            if legal && a != b {
                assert_eq!(p, &route, "case {case} {rule:?}");
                assert_eq!(f.expanded, 2);
                direct += 1;
            } else {
                searched += 1;
            }
        }
    }
    assert!(
        direct > 1000 && searched > 500,
        "{direct} direct, {searched} searched"
    );
}

#[test]
fn each_corner_rule_on_an_ascii_map() {
    // From (0, 0) to (1, 1) past the wall at (1, 0); and between two walls at (1, 1).
    let w = World::from_ascii(&[".#.", "...", "#.."]);
    let with = |d| PathOptions {
        diagonal: d,
        ..Default::default()
    };
    let len = |a, b, d| find_path(&w, a, b, &with(d)).map(|p| p.len());
    assert_eq!(len(t(0, 0), t(1, 1), Diagonal::NoCornerCutting), Some(3));
    assert_eq!(len(t(0, 0), t(1, 1), Diagonal::IfOneSideFree), Some(2));
    assert_eq!(len(t(0, 0), t(1, 1), Diagonal::Always), Some(2));
    assert_eq!(len(t(0, 0), t(1, 1), Diagonal::Never), Some(3));
    // Squeezing between two blocked side cells: only `Always` does it.
    let pinch = World::from_ascii(&[".#", "#."]);
    assert_eq!(
        find_path(&pinch, t(0, 0), t(1, 1), &with(Diagonal::Always)).map(|p| p.len()),
        Some(2)
    );
    for d in [
        Diagonal::Never,
        Diagonal::NoCornerCutting,
        Diagonal::IfOneSideFree,
    ] {
        assert_eq!(find_path(&pinch, t(0, 0), t(1, 1), &with(d)), None, "{d:?}");
    }
    // 4-connected never steps diagonally even on an open map.
    let open = World::from_ascii(&["...", "...", "..."]);
    let p = find_path(&open, t(0, 0), t(2, 2), &with(Diagonal::Never)).unwrap();
    assert_eq!(p.len(), 5);
    assert!(p.windows(2).all(|s| (s[1] - s[0]).abs().element_sum() == 1));
}

#[test]
fn line_of_sight_agrees_with_no_corner_cutting_moves() {
    // Wherever sight passes between neighbours, the default search steps there directly.
    let w = World::from_ascii(&["..#..", ".#...", ".....", "..#.#"]);
    for y in 0..4 {
        for x in 0..5 {
            for (dx, dy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                let (a, b) = (t(x, y), t(x + dx, y + dy));
                if w.is_blocked(a) || w.is_blocked(b) {
                    continue;
                }
                let direct =
                    find_path(&w, a, b, &PathOptions::default()).is_some_and(|p| p.len() == 2);
                assert_eq!(line_of_sight(&w, a, b), direct, "{a} {b}");
            }
        }
    }
}

#[test]
fn footprints_need_room_for_the_whole_body() {
    // A wall at column 3 with a one-tile gap (row 2) and a two-tile gap (rows 4-5).
    let w = World::from_ascii(&[
        "...#....", "...#....", "........", "...#....", "........", "........", "...#....",
    ]);
    let body = |n| PathOptions {
        size: n,
        ..Default::default()
    };
    let small = find_path(&w, t(0, 0), t(6, 0), &body(1)).unwrap();
    assert!(
        small.iter().any(|p| p.x == 3 && p.y == 2),
        "one tile takes the narrow gap: {small:?}"
    );
    let big = find_path(&w, t(0, 0), t(6, 0), &body(2)).unwrap();
    for p in &big {
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            assert!(!w.is_blocked(*p + t(dx, dy)), "body over a wall at {p}");
        }
    }
    assert!(
        big.iter().any(|p| p.x == 3 && p.y == 4),
        "two tiles take the wide gap: {big:?}"
    );
    // A 3x3 body passes neither gap.
    assert!(find_path(&w, t(0, 0), t(5, 0), &body(3)).is_none());
    assert!(find_path(&w, t(0, 0), t(0, 3), &body(3)).is_some());
    // A body that sticks out of the map cannot stand there.
    assert!(find_path(&w, t(0, 0), t(7, 6), &body(2)).is_none());
}

#[test]
fn unreachable_blocked_and_outside_goals_give_no_path() {
    let w = World::from_ascii(&["..#..", "..#..", "..#.."]);
    let o = PathOptions::default();
    assert_eq!(find_path(&w, t(0, 0), t(4, 0), &o), None);
    assert_eq!(find_path(&w, t(0, 0), t(2, 0), &o), None); // goal on a wall
    assert_eq!(find_path(&w, t(2, 1), t(0, 0), &o), None); // start on a wall
    assert_eq!(find_path(&w, t(0, 0), t(9, 0), &o), None);
    assert_eq!(find_path(&w, t(-1, 0), t(1, 0), &o), None);
    let astar = PathOptions {
        algorithm: Algorithm::AStar,
        ..o
    };
    assert_eq!(find_path(&w, t(0, 0), t(4, 2), &astar), None);
}

#[test]
fn start_equal_to_goal_is_a_one_tile_path_of_cost_zero() {
    let w = World::from_ascii(&["..."]);
    for algorithm in [Algorithm::Auto, Algorithm::AStar] {
        let r = Search::new().find(
            &w,
            t(1, 0),
            t(1, 0),
            &PathOptions {
                algorithm,
                ..Default::default()
            },
        );
        assert_eq!(r.path, Some(vec![t(1, 0)]));
        assert_eq!(r.cost, 0.0);
        assert!(r.complete);
    }
}

#[test]
fn the_expansion_limit_returns_the_path_to_the_closest_node() {
    let w = World::from_ascii(&["..........", "..........", ".........."]);
    let o = PathOptions {
        max_expanded: Some(4),
        keep_sets: true,
        ..Default::default()
    };
    let r = Search::new().find(&w, t(0, 1), t(9, 1), &o);
    assert!(!r.complete);
    assert_eq!(r.expanded, 4);
    let p = r.path.unwrap();
    assert_eq!(p[0], t(0, 1));
    let end = *p.last().unwrap();
    assert_eq!(end, t(3, 1), "straight towards the goal: {p:?}");
    let sets = r.sets.unwrap();
    assert_eq!(sets.closed.len(), 4);
    assert!(sets.closed.contains(&end) && !sets.open.is_empty());
    assert!(sets.open.iter().all(|c| !sets.closed.contains(c)));
    // Unreachable goal with a limit: the closest reachable node.
    let walled = World::from_ascii(&["...#.", "...#.", "...#."]);
    let o = PathOptions {
        max_expanded: Some(1000),
        ..Default::default()
    };
    let r = Search::new().find(&walled, t(0, 1), t(4, 1), &o);
    assert!(!r.complete);
    assert_eq!(r.path.unwrap().last(), Some(&t(2, 1)));
}

/// A classic worked example of A* with integer costs: a 9-wide map numbered row by row from 0,
/// start 29 (column 2, row 3), goal 33 (column 6, row 3), a wall at column 4 (cells 22, 31, 40); 4
/// directions, G +10 a step, H = Manhattan x 10, ties to the node added last.
#[test]
fn the_source_worked_example_seed_001() {
    let w = World::from_ascii(&[
        ".........",
        ".........",
        "....#....",
        "....#....",
        "....#....",
        ".........",
        ".........",
    ]);
    let o = |limit| PathOptions {
        diagonal: Diagonal::Never,
        heuristic: Heuristic::Manhattan,
        step_costs: StepCosts::Source,
        max_expanded: limit,
        keep_sets: true,
        ..Default::default()
    };
    let number = |c: &IVec2| c.y * 9 + c.x;
    let numbers = |v: &[IVec2]| {
        let mut n: Vec<i32> = v.iter().map(number).collect();
        n.sort();
        n
    };
    let (start, goal) = (t(2, 3), t(6, 3));
    let mut s = Search::new();
    // After the start: OPEN 20, 28, 30, 38; CLOSED 29.
    let r = s.find(&w, start, goal, &o(Some(1)));
    let sets = r.sets.unwrap();
    assert_eq!(numbers(&sets.open), vec![20, 28, 30, 38]);
    assert_eq!(numbers(&sets.closed), vec![29]);
    // Node 28: G 10, H 50, F 60; node 30: G 10, H 30, F 40, the lowest, taken next.
    let r = s.find(&w, start, goal, &o(Some(2)));
    let sets = r.sets.unwrap();
    assert_eq!(numbers(&sets.open), vec![20, 21, 28, 38, 39]);
    assert_eq!(numbers(&sets.closed), vec![29, 30]);
    assert_eq!(r.path.unwrap().last().map(number), Some(30));
    assert_eq!(r.cost, 10.0);
    // All of OPEN at F 60; the last added (39) is taken, 40 is the wall, 48 joins OPEN.
    let r = s.find(&w, start, goal, &o(Some(3)));
    let sets = r.sets.unwrap();
    assert_eq!(numbers(&sets.open), vec![20, 21, 28, 38, 48]);
    assert_eq!(numbers(&sets.closed), vec![29, 30, 39]);
    // To the end: round the wall, 8 steps of 10.
    let r = s.find(&w, start, goal, &o(None));
    assert!(r.complete);
    assert_eq!(r.cost, 80.0);
    assert_eq!(r.path.unwrap().len(), 9);
}

/// The step log is the real search: as many expansions as it reports, the goal expanded last,
/// the same result as an unlogged run, and JPS opens only jump points (fewer than A*).
#[test]
fn the_logged_search_replays_the_real_one() {
    use crate::nav::{cache, Algorithm, PathOptions, Search, SearchEvent};
    let world = World::from_ascii(&[
        "..........",
        "..#####...",
        "......#...",
        "..#...#...",
        "..#.......",
    ]);
    let (from, to) = (IVec2::new(0, 0), IVec2::new(9, 4));
    let mut opens = Vec::new();
    for algorithm in [Algorithm::AStar, Algorithm::Jps] {
        let opts = PathOptions {
            algorithm,
            ..Default::default()
        };
        let (logged, log, plain) = cache::with_grid(&world, 1, |g, _| {
            let mut s = Search::new();
            let (r, log) = s.find_logged(g, from, to, &opts);
            (r, log, Search::new().find_on(g, from, to, &opts))
        })
        .unwrap();
        assert_eq!(logged, plain);
        let expands: Vec<_> = log
            .iter()
            .filter_map(|e| match e {
                SearchEvent::Expand { node, .. } => Some(*node),
                _ => None,
            })
            .collect();
        assert_eq!(expands.len(), logged.expanded, "{algorithm:?}");
        assert_eq!(expands.first(), Some(&from));
        assert_eq!(expands.last(), Some(&to));
        opens.push(log.len() - expands.len());
    }
    assert!(opens[1] < opens[0], "JPS opens fewer nodes: {opens:?}");
}

/// On a large map (where jump point search expands a successor as cheap as its parent at
/// once, `Query::bypass`), under every diagonal rule, every path is as cheap as plain A*'s, the logged search replays the
/// real one (one `Expand` per expansion, the goal last), and the same query gives the same
/// path twice; without landmarks and with them (looked up lazily, `Search::pop_and_close_lazy`).
#[test]
fn immediate_expansion_on_large_maps_keeps_paths_optimal() {
    use crate::nav::{landmarks, NavGrid};
    let (w, h) = (150usize, 130usize);
    assert!(w * h >= landmarks::MIN_CELLS);
    let mut next = crate::nav::landmarks::xorshift(0x2545_F491_4F6C_DD1Du64);
    let rows: Vec<String> = (0..h)
        .map(|_| {
            (0..w)
                .map(|_| if next() % 100 < 15 { '#' } else { '.' })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let world = World::from_ascii(&refs);
    let mut grid = NavGrid::from_world(&world);
    let free: Vec<IVec2> = (0..w * h)
        .map(|i| IVec2::new((i % w) as i32, (i / w) as i32))
        .filter(|&c| !world.is_blocked(c))
        .collect();
    check_against_astar(&grid, &free, &mut next);
    assert!(grid.build_landmarks());
    check_against_astar(&grid, &free, &mut next);
}

/// 200 queries between `free` cells drawn by `next`, under every rule in turn: `auto` and
/// `jps` as cheap as A*, the same twice, and every tenth replayed by its log.
fn check_against_astar(grid: &crate::nav::NavGrid, free: &[IVec2], next: &mut impl FnMut() -> u64) {
    use crate::nav::{Algorithm, PathOptions, Search, SearchEvent};
    let rules = [
        Diagonal::NoCornerCutting,
        Diagonal::Always,
        Diagonal::IfOneSideFree,
        Diagonal::Never,
    ];
    let (mut a, mut b) = (Search::new(), Search::new());
    for k in 0..200 {
        let auto = PathOptions {
            diagonal: rules[k % 4],
            ..Default::default()
        };
        let astar = PathOptions {
            algorithm: Algorithm::AStar,
            ..auto
        };
        let jps = PathOptions {
            algorithm: Algorithm::Jps,
            ..auto
        };
        let s = free[next() as usize % free.len()];
        let g = free[next() as usize % free.len()];
        let plain = b.find_on(grid, s, g, &astar);
        for opts in [&auto, &jps] {
            let r = a.find_on(grid, s, g, opts);
            assert_eq!(r.path.is_some(), plain.path.is_some(), "{s} {g}");
            if let Some(path) = &r.path {
                assert!(
                    (walk_cost(grid, path, opts) - plain.cost).abs() < 1e-9,
                    "{s} {g} {:?}",
                    opts.diagonal
                );
                assert!((r.cost - plain.cost).abs() < 1e-9, "{s} {g}");
            }
            assert_eq!(a.find_on(grid, s, g, opts), r, "same answer twice");
            if k % 10 == 0 {
                let log = logged_agrees(&mut a, grid, (s, g), opts, &r);
                if r.path.is_some() {
                    assert!(
                        matches!(log.last(), Some(SearchEvent::Expand { node, .. }) if *node == g)
                    );
                }
            }
        }
    }
}

/// On large maps of scattered blocks (30% and 4% blocked), under the default rule and each
/// corner-cutting rule, the grid gets all its landmarks ([`landmarks::COUNT`]); each
/// landmark's table is its exact distance (the bound from a landmark's own cell is the
/// distance itself, checked against the textbook Dijkstra above); and every query under every
/// rule stays as cheap as plain A*.
#[test]
fn every_landmark_holds_exact_distances_and_paths_stay_optimal() {
    use crate::nav::{landmarks, NavGrid};
    let (w, h) = (150usize, 130usize);
    let mut next = crate::nav::landmarks::xorshift(0x9E37_79B9_7F4A_7C15u64);
    for share in [30, 4] {
        let (world, free) = scattered_map(w, h, share, &mut next);
        let mut grid = NavGrid::from_world(&world);
        assert!(grid.build_landmarks());
        for rule in [
            Diagonal::NoCornerCutting,
            Diagonal::IfOneSideFree,
            Diagonal::Always,
        ] {
            let l = grid.landmarks_for(rule).expect("landmarks for the rule");
            assert_eq!(l.count(), landmarks::COUNT, "{share}% {rule:?}");
            let o = PathOptions {
                diagonal: rule,
                ..Default::default()
            };
            for &(lx, ly) in &l.cells {
                let at = l.of(lx, ly);
                for _ in 0..20 {
                    let n = free[next() as usize % free.len()];
                    let truth = dijkstra(&grid, n, t(lx, ly), &o);
                    let bound = l.estimate(n.x, n.y, &at);
                    match truth {
                        Some(d) => assert!((bound - d).abs() < 1e-9, "{rule:?} {n} {d} {bound}"),
                        None => assert_eq!(bound, 0.0),
                    }
                }
            }
        }
        check_against_astar(&grid, &free, &mut next);
    }
}

/// On large maps (where the octile route is looked for first, `octile.rs`) of 3 to 30%
/// blocked cells, under each diagonal rule: a query whose optimum (plain A*'s) is the octile
/// distance is answered by a path of that length walkable under the rule, without a search
/// (two expansions, the start and the goal), and one whose optimum is longer gets a path of
/// that optimum;
/// the logged search replays the real one. Queries run in every direction, along both axes,
/// and across words of the free-cell bits (the map is 200 cells wide).
#[test]
fn an_octile_route_is_found_exactly_when_one_exists() {
    use crate::nav::{landmarks, NavGrid};
    let (w, h) = (200usize, 90usize);
    assert!(w * h >= landmarks::MIN_CELLS);
    let mut next = crate::nav::landmarks::xorshift(0x51_7CC1_B727_220Au64);
    let (mut routed, mut searched) = (0, 0);
    for share in [3, 10, 30] {
        let (world, free) = scattered_map(w, h, share, &mut next);
        let grid = NavGrid::from_world(&world);
        let mut s = Search::new();
        for k in 0..300 {
            let rule = DIAGONAL_RULES[k % 3];
            let (auto, astar) = default_and_astar(rule);
            let (a, b) = (
                free[next() as usize % free.len()],
                free[next() as usize % free.len()],
            );
            let plain = s.find_on(&grid, a, b, &astar);
            let r = s.find_on(&grid, a, b, &auto);
            assert_eq!(r.path.is_some(), plain.path.is_some(), "{a} {b}");
            let Some(path) = &r.path else { continue };
            let d = (a - b).abs();
            let octile =
                d.max_element() as f64 + (std::f64::consts::SQRT_2 - 1.0) * d.min_element() as f64;
            let exact = (plain.cost - octile).abs() < 1e-9;
            assert!(
                (walk_cost(&grid, path, &auto) - plain.cost).abs() < 1e-9,
                "{a} {b} {rule:?}"
            );
            assert_eq!(path.first(), Some(&a));
            assert_eq!(path.last(), Some(&b));
            // (A search may also end after two expansions, when a scan from the start finds
            // the goal: so only one way.)
            if exact && a != b {
                assert_eq!(r.expanded, 2, "{a} {b} {rule:?} {share}%");
            }
            if exact {
                routed += 1;
            } else {
                searched += 1;
            }
            if k % 10 == 0 {
                logged_agrees(&mut s, &grid, (a, b), &auto, &r);
            }
        }
    }
    // Both kinds of query were met, many times.
    assert!(routed > 100 && searched > 100, "{routed} {searched}");
}
