//! Headless scenarios for the movement primitives of `docs/algorithms.md`, run through the binary
//! on the demo scenes: each asserts what a reader of the book expects the rule to do.

use crate::common;

use common::{agentbox, distance, pos, scratch, stderr, stdout, trace};
use serde_json::Value;

/// The scene's map rows, read with the library's own loader.
fn map_rows(scene: &str) -> Vec<Vec<char>> {
    let text = std::fs::read_to_string(common::root().join(scene)).unwrap();
    let yaml: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    yaml["map"]["rows"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| l.chars().collect())
        .collect()
}

fn tile(p: (f64, f64)) -> (usize, usize) {
    (p.0.round() as usize, p.1.round() as usize)
}

/// The tick of the first contact between `a` and `b`, if any.
fn first_contact(lines: &[Value], a: &str, b: &str) -> Option<u64> {
    lines.iter().find_map(|l| {
        l["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| {
                e["type"] == "contact"
                    && ((e["a"] == a && e["b"] == b) || (e["a"] == b && e["b"] == a))
            })
            .then(|| l["tick"].as_u64().unwrap())
    })
}

#[test]
fn the_road_followers_never_leave_the_road_in_2000_ticks() {
    let rows = map_rows("scenes/road.yaml");
    let lines = trace("scenes/road.yaml", 2000, &[]);
    assert_eq!(lines.len(), 2000);
    let mut visited = std::collections::BTreeSet::new();
    for line in &lines {
        for car in ["car1", "car2", "car3"] {
            let (x, y) = tile(pos(line, car));
            assert_eq!(
                rows[y][x], '=',
                "{car} off the road at tick {}",
                line["tick"]
            );
            visited.insert((car, x, y));
        }
    }
    // They drive the loop rather than shuttling on a few tiles.
    let road_tiles: usize = rows.iter().flatten().filter(|&&c| c == '=').count();
    for car in ["car1", "car2", "car3"] {
        let seen = visited.iter().filter(|v| v.0 == car).count();
        assert!(
            seen * 10 >= road_tiles * 9,
            "{car} saw {seen} of {road_tiles} road tiles"
        );
    }
}

#[test]
fn the_wall_tracer_visits_every_room() {
    // The six rooms of scenes/rooms.yaml as (x0, y0, x1, y1) inclusive.
    let rooms = [
        (1, 1, 8, 6),
        (10, 1, 18, 6),
        (20, 1, 28, 6),
        (1, 8, 8, 12),
        (10, 8, 18, 12),
        (20, 8, 28, 12),
    ];
    let lines = trace("scenes/rooms.yaml", 900, &[]);
    let mut seen = [false; 6];
    for line in &lines {
        let (x, y) = tile(pos(line, "troll"));
        for (i, r) in rooms.iter().enumerate() {
            if (r.0..=r.2).contains(&x) && (r.1..=r.3).contains(&y) {
                seen[i] = true;
            }
        }
    }
    assert_eq!(seen, [true; 6], "rooms visited");
}

#[test]
fn the_slower_interceptor_catches_the_faster_prey_and_the_plain_chaser_does_not() {
    // The prey runs 5 tiles/s east in a straight line for 11 s; both hunters run 4 tiles/s,
    // and the plain chaser even starts nearer to the prey.
    let lines = trace("scenes/intercept.yaml", 330, &[]);
    let caught = first_contact(&lines, "interceptor", "prey");
    assert!(
        caught.is_some_and(|t| t < 200),
        "interceptor contact: {caught:?}"
    );
    assert_eq!(first_contact(&lines, "chaser", "prey"), None);
    // The prey kept its straight line while being chased.
    assert!(lines.iter().all(|l| pos(l, "prey").1 == 3.0));
}

#[test]
fn the_troll_reaches_the_player_by_following_crumbs() {
    let lines = trace("scenes/crumbs.yaml", 900, &[]);
    let met = first_contact(&lines, "troll", "player");
    assert!(met.is_some(), "the troll never reached the player");
    let last = lines.last().unwrap();
    assert!(distance(pos(last, "troll"), pos(last, "player")) < 0.6);
    // A troll that only wandered at random would not cross the map behind the player: it
    // passed through the far room on the right.
    assert!(lines.iter().any(|l| pos(l, "troll").0 >= 24.0));
}

#[test]
fn improved_and_sight_tracing_get_round_the_mountains_where_basic_tracing_loops() {
    let lines = trace("scenes/mountains.yaml", 600, &[]);
    assert!(first_contact(&lines, "improved", "flag_improved").is_some());
    assert!(first_contact(&lines, "sight", "flag_sight").is_some());
    assert_eq!(first_contact(&lines, "basic", "flag_basic"), None);
    // Basic tracing is still inside the range's pocket, going back and forth.
    let (x, _) = pos(lines.last().unwrap(), "basic");
    assert!(x < 24.0, "{x}");
    let late: std::collections::BTreeSet<(usize, usize)> =
        lines[300..].iter().map(|l| tile(pos(l, "basic"))).collect();
    assert!(late.len() <= 4, "loops on a few tiles: {late:?}");
}

#[test]
fn the_swarm_keeps_together_behind_its_leader_and_apart_from_each_other() {
    let lines = trace("scenes/swarm.yaml", 900, &[]);
    let birds: Vec<String> = (0..10).map(|i| format!("bird{i}")).collect();
    for line in lines.iter().skip(150).step_by(50) {
        let leader = pos(line, "leader");
        let ps: Vec<(f64, f64)> = birds.iter().map(|b| pos(line, b)).collect();
        // The flock follows its leader. A potential field has local minima behind obstacles,
        // so one bird may be caught behind a rock; the rest stay with the leader.
        let mut gaps: Vec<f64> = ps.iter().map(|&p| distance(p, leader)).collect();
        gaps.sort_by(f64::total_cmp);
        assert!(
            gaps[8] < 8.0,
            "tick {}: birds from the leader {gaps:?}",
            line["tick"]
        );
        // Mates repel: the mean distance to the nearest mate stays well above zero.
        let mean_nn = ps
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                ps.iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, &q)| distance(p, q))
                    .fold(f64::INFINITY, f64::min)
            })
            .sum::<f64>()
            / ps.len() as f64;
        assert!(
            mean_nn > 0.9,
            "tick {}: mean nearest mate {mean_nn}",
            line["tick"]
        );
    }
}

#[test]
fn tile_agents_step_from_centre_to_centre_and_the_bresenham_chaser_closes_in() {
    let lines = trace("scenes/tile_chase.yaml", 600, &[]);
    for line in &lines {
        // The 4-way basic chaser is never off-centre on both axes.
        let (x, y) = pos(line, "basic");
        assert!(x.fract() == 0.0 || y.fract() == 0.0, "basic at ({x}, {y})");
        // The 8-way line-of-sight chaser is off-centre on both axes only mid-diagonal.
        let (x, y) = pos(line, "los");
        let (fx, fy) = (x.fract(), y.fract());
        assert!(
            fx == 0.0 || fy == 0.0 || (fx - fy).abs() < 2e-4 || (fx + fy - 1.0).abs() < 2e-4,
            "los at ({x}, {y})"
        );
    }
    let gap = |l: &Value| distance(pos(l, "los"), pos(l, "prey"));
    assert!(gap(&lines[599]) < gap(&lines[0]));
}

#[test]
fn the_random_avoider_finds_the_flag_and_its_walk_repeats_with_the_seed() {
    let a = agentbox(&[
        "headless",
        "scenes/wander.yaml",
        "--ticks",
        "400",
        "--trace",
        "-",
    ]);
    let b = agentbox(&[
        "headless",
        "scenes/wander.yaml",
        "--ticks",
        "400",
        "--trace",
        "-",
    ]);
    assert_eq!(stdout(&a), stdout(&b));
    let c = agentbox(&[
        "headless",
        "scenes/wander.yaml",
        "--ticks",
        "400",
        "--trace",
        "-",
        "--seed",
        "99",
    ]);
    assert_ne!(stdout(&a), stdout(&c), "another seed, another random walk");
    let lines: Vec<Value> = stdout(&a)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        first_contact(&lines, "explorer1", "flag").is_some()
            || first_contact(&lines, "explorer2", "flag").is_some()
    );
}

#[test]
fn motion_keys_are_validated_with_locations() {
    let dir = scratch(&[
        (
            "bad.yaml",
            "map:\n  rows: |\n    .....\nagents:\n  - id: a\n    at: [0, 0]\n    motion: hover\n  - id: b\n    at: [1, 0]\n    motion: tiles\n    turn_rate: 90\n  - id: c\n    at: [2, 0]\n    directions: 6\n  - id: d\n    at: [3, 0]\n    route: [[1, 0]]\n  - id: e\n    at: [4, 0]\n    control: keyboard\n    route: [[9, 0]]\n",
        ),
        (
            "good.yaml",
            "map:\n  rows: |\n    .....\nagents:\n  - id: a\n    at: [0, 0]\n    motion: tiles\n    directions: 4\n  - id: b\n    at: [1, 0]\n    turn_rate: 90\n  - id: e\n    at: [4, 0]\n    control: keyboard\n    route: [[0, 0], [4, 0]]\n",
        ),
    ]);
    let bad = dir.path().join("bad.yaml");
    let out = agentbox(&["check", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    for (line, what) in [
        (7, "unknown motion \"hover\""),
        (11, "turn_rate only applies to free motion"),
        (14, "directions must be 4 or 8"),
        (17, "route is the scripted walk"),
        (21, "route point 0 of `e` at [9, 0] is outside"),
    ] {
        assert!(
            err.contains(&format!("bad.yaml:{line}:")) && err.contains(what),
            "{what} at line {line}:\n{err}"
        );
    }
    let good = dir.path().join("good.yaml");
    let out = agentbox(&["check", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn bad_primitive_arguments_are_script_errors_with_the_line() {
    let dir = scratch(&[
        (
            "s.yaml",
            "map:\n  rows: |\n    .....\nagents:\n  - id: a\n    at: [0, 0]\n    script: a.lua\n",
        ),
        (
            "a.lua",
            "local M = {}\nfunction M.decide(self, world)\n  return move.trace_around({4, 0}, { variant = \"sideways\" })\nend\nreturn M\n",
        ),
    ]);
    let scene = dir.path().join("s.yaml");
    let out = agentbox(&[
        "headless",
        scene.to_str().unwrap(),
        "--ticks",
        "1",
        "--trace",
        "-",
        "--allow-errors",
    ]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains(
            "a.lua:3: error: move.trace_around: variant must be basic, improved or sight"
        ),
        "{text}"
    );
}

#[test]
fn every_move_binding_returns_its_action() {
    let script = r#"
local M = {}
local calls = {
  function(w) return move.basic_chase("flag") end,
  function(w) return move.basic_evade("flag") end,
  function(w) return move.los_chase("flag") end,
  function(w) return move.intercept(w:agent("flag")) end,
  function(w) return move.potential{ target = "flag", A = 1, B = 2, n = 1, m = 2 } end,
  function(w) return move.swarm{ kind = "walker", target = "flag" } end,
  function(w) return move.wander_avoid({ 6, 2 }) end,
  function(w) return move.trace_around("flag", { variant = "basic" }) end,
  function(w) return move.follow_crumbs("flag", { trail = 3 }) end,
  function(w) return move.follow_road() end,
  function(w) return move.wall_trace{ hand = "right" } end,
}
function M.decide(self, world)
  return calls[world:tick() % #calls + 1](world)
end
return M
"#;
    let dir = scratch(&[
        (
            "s.yaml",
            "map:\n  rows: |\n    ........\n    ..====..\n    ........\nagents:\n  - id: w\n    kind: walker\n    at: [0, 0]\n    script: s.lua\n  - id: flag\n    at: [6, 2]\n",
        ),
        ("s.lua", script),
    ]);
    let scene = dir.path().join("s.yaml");
    let out = agentbox(&[
        "headless",
        scene.to_str().unwrap(),
        "--ticks",
        "11",
        "--trace",
        "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<String> = stdout(&out)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(v["agents"][0].get("error").is_none(), "{l}");
            v["agents"][0]["action"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "basic_chase",
            "basic_evade",
            "los_chase",
            "intercept",
            "potential",
            "swarm",
            "wander_avoid",
            "trace_around",
            "follow_crumbs",
            "follow_road",
            "wall_trace"
        ]
    );
}
