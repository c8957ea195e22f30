//! "Bounded by the map": hostile coordinates handed to primitives and queries (far points, the
//! largest integers, NaN and infinities) never cost more than the map's size. Each case runs the
//! real binary headless with a hostile agent beside a healthy one that must still reach its
//! goal; the child runs under a 1 GiB address-space limit (so a runaway allocation aborts at
//! once instead of swapping) and a CPU-time limit, and its own peak resident size is read from
//! `wait4`.

#![cfg(unix)]

use crate::common;

use common::limited::{run_limited, Run};
use common::*;

/// The peak resident size a run of this small scene must stay under, in KiB.
const MAX_RSS_KB: i64 = 128 * 1024;

/// A 30x12 map with a wall between the healthy agent and its goal (rows indented for the
/// scene's `rows: |` block).
const MAP: &str = concat!(
    "    ..............................\n",
    "    ..............................\n",
    "    ..............................\n",
    "    ..........#...................\n",
    "    ..........#...................\n",
    "    ..........#...................\n",
    "    ..........#...................\n",
    "    ..........#...................\n",
    "    ..........#...................\n",
    "    ..............................\n",
    "    ..............................\n",
    "    ..............................\n",
);
const WIDTH: f64 = 30.0;
const HEIGHT: f64 = 12.0;
/// Where the healthy agent must arrive, round the wall.
const GOAL: (f64, f64) = (25.0, 6.0);

const HEALTHY: &str =
    "return { decide = function(self) return move.path_to(self.params.goal) end }\n";

/// A scene with the healthy agent and one hostile agent (`motion`, `script`, `params`).
fn scene(motion: &str, script: &str, params: &str) -> String {
    format!(
        "name: bounds\nseed: 3\nmap:\n  rows: |\n{MAP}agents:\n  - id: good\n    at: [2, 6]\n    speed: 6\n    script: good.lua\n    params: {{ goal: [{}, {}] }}\n  - id: bad\n    at: [3, 2]\n    motion: {motion}\n    speed: 5\n    script: {script}\n    params: {params}\n",
        GOAL.0, GOAL.1
    )
}

/// Runs `scene_text` (with the healthy script and `bad.lua` = `bad`) headless for 200 ticks:
/// checks the exit, the memory and the healthy agent's arrival, and hands back the run and
/// the trace for the hostile agent's checks.
fn run_beside_healthy(scene_text: &str, bad: &str) -> (Run, Vec<serde_json::Value>) {
    let dir = scratch(&[
        ("scene.yaml", scene_text),
        ("good.lua", HEALTHY),
        ("bad.lua", bad),
    ]);
    let run = run_limited(
        dir.path(),
        &[
            "headless",
            "scene.yaml",
            "--ticks",
            "200",
            "--trace",
            "-",
            "--allow-errors",
        ],
    );
    assert_eq!(
        (run.code, run.signal),
        (Some(0), None),
        "exit status; stderr:\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(
        run.max_rss_kb > 0 && run.max_rss_kb < MAX_RSS_KB,
        "peak resident size {} KiB",
        run.max_rss_kb
    );
    let trace: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each trace line is JSON"))
        .collect();
    assert_eq!(trace.len(), 200);
    let end = pos(trace.last().unwrap(), "good");
    assert!(
        distance(end, GOAL) < 0.1,
        "the healthy agent reaches its goal, ended at {end:?}"
    );
    for line in &trace {
        let (x, y) = pos(line, "bad");
        assert!(
            (-0.5..WIDTH - 0.5).contains(&x) && (-0.5..HEIGHT - 0.5).contains(&y),
            "the hostile agent stays on the map: ({x}, {y}) at {}",
            line["tick"]
        );
    }
    (run, trace)
}

/// The hostile agent's script error in the last trace line, if any.
fn bad_error(trace: &[serde_json::Value]) -> Option<String> {
    let agents = trace.last()?["agents"].as_array()?;
    let bad = agents.iter().find(|a| a["id"] == "bad")?;
    bad["error"].as_str().map(str::to_string)
}

fn decide(body: &str) -> String {
    format!("local M = {{}}\nfunction M.decide(self, world)\n  {body}\nend\nreturn M\n")
}

#[test]
fn trace_around_a_far_point_is_bounded_and_keeps_tracing() {
    for variant in ["sight", "improved", "basic"] {
        let bad = decide(&format!(
            "return move.trace_around({{x = 1e18, y = 1e18}}, {{variant = \"{variant}\"}})"
        ));
        let (_, trace) = run_beside_healthy(&scene("tiles", "bad.lua", "{}"), &bad);
        assert_eq!(bad_error(&trace), None, "{variant}");
        // Bounded, not ignored: it heads for the far corner (the basic variant loops at the
        // wall on the way, as in the book).
        let (x, _) = pos(trace.last().unwrap(), "bad");
        assert!(x > 9.0, "{variant}: {x}");
    }
}

#[test]
fn wander_avoid_towards_a_far_target_is_bounded_for_tile_and_free_agents() {
    for motion in ["tiles", "free"] {
        let bad = decide("return move.wander_avoid({x = -1e18, y = 1e18})");
        let (_, trace) = run_beside_healthy(&scene(motion, "bad.lua", "{}"), &bad);
        assert_eq!(bad_error(&trace), None, "{motion}");
    }
}

#[test]
fn the_wanderer_with_an_out_of_map_goal_in_params_runs_on() {
    let wanderer = root().join("scripts/wanderer.lua");
    let text = scene(
        "tiles",
        &wanderer.display().to_string(),
        "{ goal: [4294967295, 5] }",
    );
    let dir = scratch(&[("scene.yaml", &text), ("good.lua", HEALTHY)]);
    let check = agentbox_in(dir.path(), &["check", "scene.yaml"]);
    assert!(check.status.success(), "{}", stderr(&check));
    let (_, trace) = run_beside_healthy(&text, "");
    assert_eq!(bad_error(&trace), None);
    // It wanders towards the right edge, where the bounded goal lies just off the map.
    let (x, _) = pos(trace.last().unwrap(), "bad");
    assert!(x > 3.0, "{x}");
}

#[test]
fn line_of_sight_to_a_far_point_is_false_at_once() {
    // Sees nothing at 1e18 (off the map is blocked), so it walks to its corner; a wrong answer
    // or an error would keep it where it stands.
    let bad = decide(
        "if nav.los({x = 0, y = 0}, {x = 1e18, y = 1e18}) then error(\"saw 1e18\") end\n  \
         if nav.los({x = 1e18, y = 1e18}, {x = 0, y = 0}) then error(\"was seen\") end\n  \
         assert(#nav.line({0, 0}, {1e18, -1e18}) == 31)\n  \
         assert(nav.path({1, 1}, {4294967295, 5}) == nil)\n  \
         return move.to({29, 0})",
    );
    let (_, trace) = run_beside_healthy(&scene("free", "bad.lua", "{}"), &bad);
    assert_eq!(bad_error(&trace), None);
    assert!(distance(pos(trace.last().unwrap(), "bad"), (29.0, 0.0)) < 0.1);
}

#[test]
fn non_finite_coordinates_are_errors_naming_the_argument_and_the_line() {
    let cases = [
        (
            "nav.los({x = 0, y = 0}, {x = 0/0, y = 1})",
            "bad argument #2 to 'nav.los': x is not a finite number (got nan)",
        ),
        (
            "return move.to({1, math.huge})",
            "bad argument #1 to 'move.to': y is not a finite number (got inf)",
        ),
        (
            "return move.trace_around({x = -math.huge, y = 0}, {variant = \"sight\"})",
            "bad argument #1 to 'move.trace_around': x is not a finite number (got -inf)",
        ),
        (
            "return move.wander_avoid({0/0, 0/0})",
            "bad argument #1 to 'move.wander_avoid': x is not a finite number (got nan)",
        ),
        (
            "return move.potential{target = {1, 1/0}}",
            "bad argument #1 to 'move.potential' (field 'target'): y is not a finite number (got inf)",
        ),
        (
            "world:blocked(0/0, 2)",
            "bad argument #1 to 'world:blocked': x is not a finite number (got nan)",
        ),
    ];
    for (call, message) in cases {
        let bad = decide(call);
        let (run, trace) = run_beside_healthy(&scene("tiles", "bad.lua", "{}"), &bad);
        let expected = format!("bad.lua:3: error: {message}");
        assert_eq!(
            bad_error(&trace).as_deref(),
            Some(expected.as_str()),
            "{call}"
        );
        assert!(run.stderr.contains(&expected), "{call}: {}", run.stderr);
        // It never moved.
        assert_eq!(pos(trace.last().unwrap(), "bad"), (3.0, 2.0), "{call}");
    }
}

#[test]
fn out_of_map_positions_the_scene_knows_are_located_errors() {
    let cases = [
        ("at: [3, 2]", "at: [4294967295, 5]", "outside the 30x12 map"),
        (
            "name: bounds",
            "name: bounds\nwaypoints: [[1, 1], [-1, 40]]",
            "waypoint at [-1, 40] is outside the 30x12 map",
        ),
    ];
    for (from, to, words) in cases {
        let text = scene("tiles", "bad.lua", "{}").replacen(from, to, 1);
        let dir = scratch(&[
            ("scene.yaml", &text),
            ("good.lua", HEALTHY),
            ("bad.lua", HEALTHY),
        ]);
        let out = agentbox_in(dir.path(), &["check", "scene.yaml"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("scene.yaml:") && l.contains(": error: "))
            .unwrap_or_else(|| panic!("a located error, got:\n{err}"));
        assert!(line.contains(words), "{line}");
    }
}
