//! Every broken-scene case from the walking-skeleton issue gives a located error
//! (`FILE:LINE:COL: error: message`) and exit 1 from `agentbox check`, never a panic.

use crate::common;
use common::*;

const GOOD_AGENT: &str =
    "local M = {}\nfunction M.decide(self, world) return move.stop() end\nreturn M\n";

/// `(name, scene text, expected "LINE:COL", words the message must contain)`.
const CASES: &[(&str, &str, &str, &str)] = &[
    ("malformed yaml", "map:\n  rows: \"unterminated\n", "2:9", "YAML syntax error: unclosed quote"),
    ("tab indentation", "map:\n\trows: |\n    ...\n", "2:1", "not tabs"),
    ("unknown key", "map:\n  rows: |\n    ...\ncolour: red\n", "4:1", "unknown field `colour`"),
    ("unknown agent key", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    sped: 3\n", "7:5", "unknown field `sped`"),
    ("wrong type", "tick_rate: fast\nmap:\n  rows: |\n    ...\n", "1:12", "tick_rate: expected a whole number (0 or more), got text \"fast\""),
    ("wrong type in agent", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: here\n", "6:9", "at: expected a list of two numbers [x, y], got text \"here\""),
    ("a position of three numbers", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0, 1]\n", "6:9", "at: expected a list of two numbers [x, y], got 3 items"),
    ("text for a tile coordinate", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [x, 0]\n", "6:10", "at[0]: expected a whole number, got text \"x\""),
    ("a number for a flag", "terrain:\n  mud: { blocked: 3 }\nmap:\n  rows: |\n    ...\n", "2:19", "blocked: expected true or false, got the number 3"),
    ("a list for an id", "map:\n  rows: |\n    ...\nagents:\n  - id: [1]\n    at: [0, 0]\n", "5:9", "id: expected text, got a list"),
    ("a fraction for the seed", "seed: 1.5\nmap:\n  rows: |\n    ...\n", "1:7", "seed: expected a whole number (0 or more), got the number 1.5"),
    ("an unclosed list after an unknown key", "map:\n  rows: |\n    ...\ngarbage: [\n", "4:10", "YAML syntax error: unclosed bracket '['"),
    ("an unclosed mapping after an unknown key", "map:\n  rows: |\n    ...\nagents: []\ngarbage: {a: 1\n", "5:10", "YAML syntax error: unclosed bracket '{'"),
    ("a list left open before the next key", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0\n    speed: 3\n", "6:9", "YAML syntax error: unclosed bracket '['"),
    ("ragged rows", "map:\n  rows: |\n    ....\n    ...\n", "4:5", "ragged map: row 1 has 3"),
    ("unknown map character", "map:\n  rows: |\n    ....\n    ..X.\n", "4:7", "unknown map character 'X'"),
    ("agent outside the map", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [5, 0]\n", "6:9", "outside the 3x1 map"),
    ("agent on a wall", "map:\n  rows: |\n    .#.\nagents:\n  - id: a\n    at: [1, 0]\n", "6:9", "blocked tile (wall)"),
    ("duplicate ids", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n  - id: a\n    at: [2, 0]\n", "7:9", "duplicate agent id `a`"),
    ("missing script", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    script: nowhere.lua\n", "7:13", "script not found"),
    ("negative speed", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    speed: -2\n", "7:12", "speed must be from 0"),
    ("negative cost", "terrain:\n  mud: { cost: -1 }\nmap:\n  rows: |\n    ...\n", "2:16", "cost must be a number above 0"),
    ("zero tick rate", "tick_rate: 0\nmap:\n  rows: |\n    ...\n", "1:12", "tick_rate must be from 1"),
    ("unknown legend terrain", "map:\n  legend: { 'B': brick }\n  rows: |\n    .B.\n", "2:18", "unknown terrain `brick`"),
    ("bad colour", "terrain:\n  brick: { blocked: true, color: red }\nmap:\n  rows: |\n    ...\n", "2:34", "color must look like"),
    ("empty file", "", "1:1", "scene file is empty"),
    ("only comments", "# nothing here\n\n", "1:1", "scene file is empty"),
    ("not yaml at all", "just some words\n", "1:1", "a scene must be a YAML mapping"),
    ("a list instead of a mapping", "- 1\n- 2\n", "1:1", "a scene must be a YAML mapping"),
    ("no map", "name: x\nagents: []\n", "1:1", "scene has no `map`"),
    ("empty map", "map:\n  rows: \"\"\n", "2:9", "map has no rows"),
    ("misspelt shape", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    shape: diamnod\n", "7:12", "unknown shape `diamnod` (did you mean diamond?)"),
    ("agent colour by name", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    color: red\n", "7:12", "color must look like \"#d55e00\""),
    ("spawn shape", "map:\n  rows: |\n    ...\nspawn:\n  - { count: 2, kind: b, shape: sqare }\n", "5:33", "unknown shape `sqare` (did you mean square?)"),
    ("script and control", "map:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    script: ok.lua\n    control: keyboard\n", "8:14", "either a script or a control"),
];

#[test]
fn every_broken_scene_gives_its_located_error() {
    for (name, text, at, words) in CASES {
        let dir = scratch(&[("scene.yaml", text), ("ok.lua", GOOD_AGENT)]);
        let out = agentbox_in(dir.path(), &["check", "scene.yaml"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: exit 1 ({err})");
        let expected = format!("scene.yaml:{at}: error: ");
        let line = err
            .lines()
            .find(|l| l.starts_with(&expected))
            .unwrap_or_else(|| {
                panic!("{name}: expected a line starting {expected:?}, got:\n{err}")
            });
        assert!(
            line.contains(words),
            "{name}: {line:?} should mention {words:?}"
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
        // serde's type words never reach a designer.
        for word in [
            "f64",
            "i64",
            "u64",
            "a string",
            "a boolean",
            "sequence",
            "invalid type",
            "invalid length",
            "an array of length",
        ] {
            assert!(!err.contains(word), "{name}: {word:?} in {err}");
        }
    }
}

#[test]
fn binary_garbage_is_reported_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scene.yaml"),
        [0x89, b'P', b'N', b'G', 0, 0xff, 0xfe, 10],
    )
    .unwrap();
    let out = agentbox_in(dir.path(), &["check", "scene.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("scene.yaml:1:1: error: not a text file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_reports_every_problem_of_a_scene_not_just_the_first() {
    let text = "map:\n  rows: |\n    .#.\nagents:\n  - id: a\n    at: [1, 0]\n    speed: -1\n  - id: b\n    at: [9, 9]\n";
    let dir = scratch(&[("scene.yaml", text)]);
    let out = agentbox_in(dir.path(), &["check", "scene.yaml"]);
    let err = stderr(&out);
    assert_eq!(
        err.lines().filter(|l| l.contains(": error: ")).count(),
        3,
        "{err}"
    );
}

#[test]
fn a_missing_file_and_a_good_folder() {
    let out = agentbox(&["check", "scenes/does-not-exist.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("scenes/does-not-exist.yaml:1:1: error: cannot read scene file"));
    let ok = agentbox(&["check", "scenes"]);
    assert!(
        ok.status.success(),
        "the shipped scenes check clean: {}",
        stderr(&ok)
    );
    assert!(stdout(&ok).contains("ok: scenes/maze.yaml"));
}

#[test]
fn headless_refuses_a_broken_scene_with_the_same_located_error() {
    let dir = scratch(&[("scene.yaml", "map:\n  rows: |\n    ..\n    ...\n")]);
    let out = agentbox_in(dir.path(), &["headless", "scene.yaml", "--ticks", "5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("scene.yaml:4:5: error: ragged map"),
        "{}",
        stderr(&out)
    );
}

/// A keyboard agent's `route:` leg that runs into a wall is a located warning from `check`,
/// which still succeeds; legs that keep clear of walls say nothing.
#[test]
fn a_route_leg_through_a_wall_is_a_located_warning_and_check_still_passes() {
    let scene = "map:\n  rows: |\n    ......\n    ..#...\n    ......\n    ......\nagents:\n  - id: player\n    at: [0, 0]\n    control: keyboard\n    route: [[5, 0], [5, 3],\n            [0, 1], [0, 3]]\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), scene).unwrap();
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout(&out).contains("ok: s.yaml"), "{}", stdout(&out));
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    // Only the leg from [5, 3] to [0, 1] passes the wall at [2, 1]; it is the third point.
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("s.yaml:12:13: warning: the route of `player` from [5, 3] to [0, 1] runs into a wall near [2, 1];"),
        "{err}"
    );
}

/// The four-mistake scene (a text `tick_rate`, a one-number `at`, a negative `speed`
/// and a misspelt key): one `check` run reports all four, located, and exits 1.
#[test]
fn four_independent_mistakes_are_reported_in_one_run() {
    let out = agentbox(&["check", "tests/fixtures/four_mistakes.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let errors: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.contains(": error: "))
        .map(|l| l.replace("tests/fixtures/four_mistakes.yaml:", ""))
        .collect();
    assert_eq!(
        errors,
        [
            "4:12: error: tick_rate: expected a whole number (0 or more), got text \"fast\"",
            "11:9: error: agents[0].at: expected a list of two numbers [x, y], got 1 item",
            "12:12: error: speed must be from 0 to 1000 tiles per second, got -2",
            "15:5: error: agents[1]: unknown field `spede` (did you mean speed?)",
        ]
    );
}
