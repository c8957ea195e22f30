//! Steering v3: the body keys (`radius`, `max_force`, `avoid`, `avoid_horizon`) and their
//! located errors, Reynolds' steering primitives and their combinations (`move.blend`,
//! `move.first`), and ORCA avoidance, each driven through the real binary on small scenes
//! a designer would write, each run twice to show the trace is the same bytes.

use crate::common::{agentbox, distance, scratch, stderr, trace_twice};
use serde_json::Value;
use std::path::Path;

/// An open map `w` x `h` as scene rows.
fn open_map(w: usize, h: usize) -> String {
    let row = ".".repeat(w);
    let mut s = String::from("map:\n  rows: |\n");
    for _ in 0..h {
        s.push_str(&format!("    {row}\n"));
    }
    s
}

/// Runs `scene` in `dir` headless for `ticks` twice (two processes), asserts the two traces
/// are the same bytes and returns the parsed lines.
fn run_twice(dir: &Path, scene: &str, ticks: u64) -> Vec<Value> {
    trace_twice(&dir.join(scene), ticks)
}

/// Every agent's `(x, y)` in a trace line.
fn positions(line: &Value) -> Vec<(String, (f64, f64))> {
    line["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let (x, y) = (a["x"].as_f64().unwrap(), a["y"].as_f64().unwrap());
            (a["id"].as_str().unwrap().to_string(), (x, y))
        })
        .collect()
}

/// The smallest distance between two agents in a trace line.
fn closest_pair(line: &Value) -> f64 {
    let p = positions(line);
    let mut best = f64::INFINITY;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            best = best.min(distance(p[i].1, p[j].1));
        }
    }
    best
}

fn at(line: &Value, id: &str) -> (f64, f64) {
    crate::common::pos(line, id)
}

/// 7 walkers a side, each facing one coming the other way in its own row of a corridor, at
/// `speed`, each walking with `call` (Lua, to `{self.params.x, self.memory.y}`): none may
/// overlap another by more than 0.1 tile and all must arrive.
fn head_on(call: &str, speed: f64) {
    let mut scene = String::from("map:\n  rows: |\n");
    scene.push_str(&format!("    {}\n", "#".repeat(32)));
    for _ in 0..7 {
        scene.push_str(&format!("    #{}#\n", ".".repeat(30)));
    }
    scene.push_str(&format!("    {}\nagents:\n", "#".repeat(32)));
    for row in 1..=7 {
        for (side, from, to) in [("e", 1, 30), ("w", 30, 1)] {
            scene.push_str(&format!(
                "  - {{ id: {side}{row}, at: [{from}, {row}], script: walk.lua, avoid: true, speed: {speed}, params: {{ x: {to} }} }}\n"
            ));
        }
    }
    let script = format!("return {{ decide = function(self, world)\n  self.memory.y = self.memory.y or self.tile.y\n  return {call}\nend }}\n");
    let dir = scratch(&[("c.yaml", &scene), ("walk.lua", &script)]);
    let lines = run_twice(dir.path(), "c.yaml", 900);
    for line in &lines {
        let d = closest_pair(line);
        assert!(
            d >= 0.6 - 0.1,
            "{call}: tick {}: two walkers {d} apart",
            line["tick"]
        );
    }
    let last = lines.last().unwrap();
    for (id, (x, _)) in positions(last) {
        let goal = if id.starts_with('e') { 30.0 } else { 1.0 };
        assert!((x - goal).abs() < 0.1, "{call}: {id} ended at x {x}");
    }
}

#[test]
fn head_on_avoiders_in_the_same_rows_never_overlap_and_all_arrive() {
    let to = "{ self.params.x, self.memory.y }";
    head_on(&format!("move.arrive({to}, {{ slow = 1 }})"), 3.0);
    head_on(&format!("move.to({to})"), 4.0);
    // Fast route followers: avoidance may turn them off the last tile of their route.
    head_on(&format!("move.path_to({to})"), 6.0);
}

#[test]
fn separate_spreads_a_packed_block() {
    let mut scene = open_map(40, 40);
    scene.push_str("agents:\n");
    for k in 0..20 {
        let (x, y) = (18 + k % 5, 18 + k / 5);
        scene.push_str(&format!(
            "  - {{ id: a{k}, at: [{x}, {y}], script: s.lua }}\n"
        ));
    }
    let script = "return { decide = function(self, world) return move.separate{radius = 2} end }\n";
    let dir = scratch(&[("s.yaml", &scene), ("s.lua", script)]);
    let lines = run_twice(dir.path(), "s.yaml", 300);
    assert!(closest_pair(&lines[0]) < 1.5);
    let spread = closest_pair(lines.last().unwrap());
    assert!(spread >= 1.5, "the closest two are {spread} apart");
}

#[test]
fn cohere_gathers_scattered_agents() {
    let mut scene = open_map(30, 30);
    scene.push_str("seed: 3\nspawn:\n  - { count: 16, kind: sheep, script: c.lua }\n");
    let script = "return { decide = function(self, world) return move.cohere{radius = 50} end }\n";
    let dir = scratch(&[("c.yaml", &scene), ("c.lua", script)]);
    let lines = run_twice(dir.path(), "c.yaml", 300);
    let spread = |line: &Value| {
        let p = positions(line);
        let n = p.len() as f64;
        let c = p
            .iter()
            .fold((0.0, 0.0), |s, (_, q)| (s.0 + q.0 / n, s.1 + q.1 / n));
        p.iter().map(|(_, q)| distance(*q, c)).fold(0.0, f64::max)
    };
    assert!(spread(&lines[0]) > 6.0, "not scattered to begin with");
    let end = spread(lines.last().unwrap());
    assert!(end <= 3.0, "the farthest is {end} from the centre");
}

#[test]
fn a_blend_of_chase_east_and_evade_from_the_north_heads_south_east() {
    let mut scene = open_map(30, 30);
    scene.push_str("agents:\n  - { id: a, at: [10, 10], script: b.lua }\n  - { id: flag, at: [28, 10] }\n  - { id: owl, at: [10, 2] }\n");
    let script = "return { decide = function(self, world)\n  return move.blend{{move.chase(\"flag\"), 1}, {move.evade(\"owl\"), 1}}\nend }\n";
    let dir = scratch(&[("b.yaml", &scene), ("b.lua", script)]);
    let lines = run_twice(dir.path(), "b.yaml", 10);
    let (x, y) = at(lines.last().unwrap(), "a");
    let (dx, dy) = (x - 10.0, y - 10.0);
    assert!(dx > 0.5 && dy > 0.5, "moved by {dx}, {dy}");
    assert!((dx / dy - 1.0).abs() < 0.25, "not south-east: {dx}, {dy}");
    // Clamped to the speed: 4 tiles/s for 10 ticks of 1/30 s.
    assert!(distance((x, y), (10.0, 10.0)) <= 4.0 / 3.0 + 1e-3);
}

#[test]
fn first_moves_away_from_a_neighbour_then_goes_to_its_point() {
    let mut scene = open_map(30, 20);
    scene.push_str("agents:\n  - { id: a, kind: walker, at: [10, 10], script: f.lua }\n  - { id: rock, kind: rock, at: [11, 10] }\n");
    let script = "return { decide = function(self, world)\n  return move.first{move.separate{radius = 2}, move.to({3, 16})}\nend }\n";
    let dir = scratch(&[("f.yaml", &scene), ("f.lua", script)]);
    let lines = run_twice(dir.path(), "f.yaml", 200);
    let rock = (11.0, 10.0);
    // While the rock is within 2 tiles, each tick takes it straight away from the rock.
    let mut before = (10.0, 10.0);
    let mut left_at = None;
    for (t, line) in lines.iter().enumerate() {
        let now = at(line, "a");
        if distance(before, rock) < 2.0 {
            assert!(distance(now, rock) > distance(before, rock), "tick {t}");
            assert!((now.1 - 10.0).abs() < 1e-9, "tick {t}: left the rock's row");
        } else if left_at.is_none() {
            left_at = Some(t);
        }
        before = now;
    }
    assert!(left_at.is_some_and(|t| t < 20), "{left_at:?}");
    assert_eq!(at(lines.last().unwrap(), "a"), (3.0, 16.0));
}

#[test]
fn arrive_slows_inside_its_radius_and_stops_on_its_point() {
    let mut scene = open_map(30, 10);
    scene.push_str("agents:\n  - { id: a, at: [2, 5], speed: 4, script: a.lua }\n");
    let script =
        "return { decide = function(self, world) return move.arrive({20, 5}, {slow = 4}) end }\n";
    let dir = scratch(&[("a.yaml", &scene), ("a.lua", script)]);
    let lines = run_twice(dir.path(), "a.yaml", 300);
    let xs: Vec<f64> = std::iter::once(2.0)
        .chain(lines.iter().map(|l| at(l, "a").0))
        .collect();
    assert!(xs.iter().all(|&x| x <= 20.0), "overshot");
    assert_eq!(*xs.last().unwrap(), 20.0);
    let speeds: Vec<(f64, f64)> = xs.windows(2).map(|w| (w[0], w[1] - w[0])).collect();
    let full = 4.0 / 30.0;
    for &(x, v) in &speeds {
        if x < 15.5 {
            assert!((v - full).abs() < 1e-3, "at {x}: {v}");
        } else if x > 16.5 && x < 20.0 {
            assert!(v < full * 0.9, "at {x}: {v} inside the radius");
        }
    }
    let inside: Vec<f64> = speeds
        .iter()
        .filter(|s| s.0 > 16.0 && s.1 > 0.0)
        .map(|s| s.1)
        .collect();
    assert!(inside.windows(2).all(|w| w[1] <= w[0] + 1e-3), "{inside:?}");
}

#[test]
fn two_avoiders_on_one_point_part_without_a_nan() {
    let mut scene = open_map(12, 5);
    scene.push_str("agents:\n  - { id: a, at: [5, 2], avoid: true, script: s.lua }\n  - { id: b, at: [5, 2], avoid: true, script: s.lua }\n");
    let script = "return { decide = function(self, world) return move.to({5, 2}) end }\n";
    let dir = scratch(&[("p.yaml", &scene), ("p.lua", script), ("s.lua", script)]);
    let lines = run_twice(dir.path(), "p.yaml", 60);
    for line in &lines {
        for (id, (x, y)) in positions(line) {
            assert!(x.is_finite() && y.is_finite(), "{id}: {x}, {y}");
        }
    }
    assert!(closest_pair(&lines[5]) > 0.3);
}

#[test]
fn max_force_limits_the_change_of_velocity() {
    let mut scene = open_map(30, 5);
    scene.push_str("tick_rate: 10\nagents:\n  - { id: a, at: [2, 2], speed: 4, max_force: 10, script: m.lua }\n");
    let script = "return { decide = function(self, world) return move.chase({28, 2}) end }\n";
    let dir = scratch(&[("m.yaml", &scene), ("m.lua", script)]);
    let lines = run_twice(dir.path(), "m.yaml", 10);
    let xs: Vec<f64> = lines.iter().map(|l| at(l, "a").0).collect();
    // 1 tile/s more each tick of 0.1 s up to 4: moves of 0.1, 0.2, 0.3, 0.4, 0.4...
    let steps: Vec<f64> = std::iter::once(xs[0] - 2.0)
        .chain(xs.windows(2).map(|w| w[1] - w[0]))
        .collect();
    for (k, want) in [0.1, 0.2, 0.3, 0.4, 0.4].iter().enumerate() {
        assert!((steps[k] - want).abs() < 1e-3, "{steps:?}");
    }
}

#[test]
fn body_keys_are_validated_with_locations() {
    let map = open_map(5, 1);
    let bad = format!(
        "{map}agents:\n  - id: a\n    at: [0, 0]\n    radius: -0.3\n  - id: b\n    at: [1, 0]\n    max_force: 0\n  - id: c\n    at: [2, 0]\n    avoid_horizon: 2\n  - id: d\n    at: [3, 0]\n    motion: tiles\n    avoid: true\n  - id: e\n    at: [4, 0]\n    avoide: true\nspawn:\n  - count: 1\n    kind: k\n    radius: 0\n"
    );
    let dir = scratch(&[("bad.yaml", &bad)]);
    let out = agentbox(&["check", dir.path().join("bad.yaml").to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    for (line, what) in [
        (7, "radius must be above 0"),
        (10, "max_force must be above 0"),
        (13, "avoid_horizon only applies with `avoid: true`"),
        (17, "avoid only applies to free motion"),
        (20, "avoid"),
        (24, "radius must be above 0"),
    ] {
        assert!(
            err.contains(&format!("bad.yaml:{line}:")) && err.contains(what),
            "{what} at line {line}:\n{err}"
        );
    }
}

#[test]
fn bad_blends_and_firsts_are_located_script_errors() {
    let scene = format!(
        "{}agents:\n  - {{ id: a, at: [1, 1], script: s.lua }}\n",
        open_map(5, 3)
    );
    for (body, what) in [
        ("move.blend{{5, 1}}", "part 1 must be a steering action"),
        (
            "move.blend{{move.chase({3, 1}), -1}}",
            "the weight of part 1 must be from 0",
        ),
        (
            "move.blend{{move.stop(), 1}, {move.wall_trace(), 1}}",
            "part 2 is move.wall_trace, which steps from tile to tile",
        ),
        ("move.first{}", "move.first: give at least one action"),
        (
            "move.first{move.los_chase({3, 1})}",
            "part 1 is move.los_chase",
        ),
        ("move.separate{radius = -2}", "radius must be above 0"),
    ] {
        let script = format!("return {{ decide = function(self, world)\n  return {body}\nend }}\n");
        let dir = scratch(&[("s.yaml", &scene), ("s.lua", &script)]);
        let path = dir.path().join("s.yaml");
        let out = agentbox(&["headless", path.to_str().unwrap(), "--ticks", "1"]);
        assert_eq!(out.status.code(), Some(3), "{body}");
        let err = stderr(&out);
        assert!(
            err.contains("s.lua:2:") && err.contains(what),
            "{body}:\n{err}"
        );
    }
}

#[test]
fn body_keys_and_blend_weights_sweep() {
    // A blend weight is a tunable in params; max_force and avoid_horizon are scene numbers.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.jsonl");
    let run = agentbox(&[
        "sweep",
        "scenes/flock.yaml",
        "--param",
        "bird.separate=0..2:2",
        "--param",
        "spawn.bird.max_force=5..40:35",
        "--seeds",
        "1",
        "--ticks",
        "40",
        "--jobs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = std::fs::read_to_string(&out).unwrap();
    let runs: Vec<Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(runs.len(), 4);
    let contacts: Vec<u64> = runs
        .iter()
        .map(|r| r["contacts"].as_u64().unwrap())
        .collect();
    // The swept numbers reach the run: not every variant ends the same.
    assert!(contacts.iter().any(|&c| c != contacts[0]), "{contacts:?}");
    assert_eq!(runs[3]["params"]["spawn.bird.max_force"], 40.0);
}
