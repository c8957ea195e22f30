//! Bad input is bounded: each input of the "unbounded" list (deep nesting, thousands of
//! waypoints, a FIFO or a device as the scene, a file too large, huge error messages, print
//! floods) gets a located error or a bounded output, never a hang or gigabytes. How long each
//! takes is shown by `agentbox bench-input`-style figures in docs/benchmarks.md and by fuzzing,
//! not timed here.

use crate::common;

use agentbox_core::scene;
use common::{agentbox_in, scratch, stderr};
use std::path::Path;

const HEAD: &str = "name: bad\nmap:\n  rows: |\n    .....\n    .....\n";

fn errors(text: &str) -> String {
    match scene::parse(Path::new("bad.yaml"), text.as_bytes()) {
        Ok(_) => panic!("the scene should be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_scene_nested_fifty_thousand_deep_gets_a_located_error() {
    // 200 KB: the shape that took 42 s to check.
    let deep = format!(
        "{HEAD}agents:\n  - id: a\n    at: [0, 0]\n    params: {}{}\n",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    // The 33rd bracket is the one too deep: column 13 + 32.
    assert_eq!(
        errors(&deep),
        "bad.yaml:9:45: error: nested too deeply: `[` and `{` may nest at most 32 deep"
    );
    let maps = format!(
        "{HEAD}agents:\n  - id: a\n    at: [0, 0]\n    params: {}1{}\n",
        "{a: ".repeat(50_000),
        "}".repeat(50_000)
    );
    assert!(errors(&maps).starts_with("bad.yaml:9:141: error: nested too deeply"));
    // Block nesting (indentation, `- - -`) stops at the YAML reader's limit, located too.
    let block = format!(
        "{HEAD}agents:\n  - id: a\n    at: [0, 0]\n    params:\n      {}x\n",
        "- ".repeat(100_000)
    );
    let e = errors(&block);
    assert!(
        e.starts_with("bad.yaml:10:")
            && e.ends_with(
                "error: nested too deeply: lists and mappings may nest at most 128 deep"
            ),
        "{e}"
    );
    // Nesting within the limits is fine.
    let ok = format!(
        "{HEAD}agents:\n  - id: a\n    at: [0, 0]\n    params: {{ a: {}1{} }}\n",
        "[".repeat(20),
        "]".repeat(20)
    );
    assert!(scene::parse(Path::new("ok.yaml"), ok.as_bytes()).is_ok());
}

#[test]
fn too_many_values_are_refused_before_parsing() {
    let mut text = format!("{HEAD}waypoints:\n");
    for i in 0..200_000 {
        text.push_str(&format!("  - [{}, {}]\n", i % 5, i % 2));
    }
    let e = errors(&text);
    assert!(
        e.ends_with("error: too many values: a scene file may have at most 500000 (keys, numbers, texts and lists); place crowds with `spawn:`"),
        "{e}"
    );
    // The 500,001st value, as the parser counts nodes: 9 before the waypoints (the top
    // mapping, name, its text, map, its mapping, rows, its text, waypoints, its list), then 3
    // per waypoint (the `[` list and two numbers) from line 7: the second number of a line.
    let line = 7 + (500_001 - 9 - 1) / 3;
    assert!(e.starts_with(&format!("bad.yaml:{line}:9: ")), "{e}");
}

#[test]
fn two_thousand_waypoints_are_refused_and_a_world_with_more_uses_the_first_256() {
    let mut text = format!("{HEAD}waypoints:\n");
    for i in 0..2_000 {
        text.push_str(&format!("  - [{}, {}]\n", i % 5, i % 2));
    }
    // Located at the first waypoint past the cap: line 7 is waypoint 0.
    assert_eq!(
        errors(&text),
        "bad.yaml:263:5: error: too many waypoints: 2000, the most is 256 (the route table grows with the cube of their number)"
    );
    // Built by other means: the table holds the first 256 and is built once.
    let mut world = agentbox_core::world::World::from_ascii(&["....................."; 20]);
    world.waypoints = (0..2_000)
        .map(|i| glam::IVec2::new(i % 20, (i / 20) % 20))
        .collect();
    let mut sim = agentbox_core::sim::Simulation::new(world);
    sim.step(&mut agentbox_core::sim::decider::NoDecisions);
    let table = &sim.world().waypoint_table;
    assert_eq!(table.nodes.len(), 256);
    assert_eq!(table.next.len(), 256 * 256);
    assert!(table.is_current(&sim.world().waypoints, sim.world().map_version()));
}

#[cfg(target_os = "linux")]
#[test]
fn a_fifo_a_device_or_a_proc_file_as_the_scene_is_refused_at_once() {
    let dir = scratch(&[]);
    let fifo = dir.path().join("scene.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo is needed here");
    let cases = [
        (fifo.to_str().unwrap(), "a FIFO, not a regular file"),
        ("/dev/zero", "a character device, not a regular file"),
        ("/dev/urandom", "a character device, not a regular file"),
    ];
    for (path, why) in cases {
        for command in [&["check", path][..], &["headless", path, "--ticks", "1"]] {
            let out = agentbox_in(dir.path(), command);
            assert!(!out.status.success(), "{command:?}");
            let err = stderr(&out);
            assert_eq!(
                err.lines().next().unwrap_or(""),
                format!("{path}:1:1: error: cannot read scene file: {why} (only regular files are read)"),
                "{command:?}"
            );
        }
    }
    // A /proc file reports size 0 but has text: it is read (up to the cap) and refused as a
    // scene for what it says.
    let out = agentbox_in(dir.path(), &["check", "/proc/self/status"]);
    assert!(stderr(&out).starts_with("/proc/self/status:1:1: error: unknown field `Name`"));
}

#[test]
fn a_scene_file_over_the_size_cap_is_refused() {
    let dir = scratch(&[]);
    let path = dir.path().join("huge.yaml");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(agentbox_core::files::MAX_SCENE_BYTES + 1)
        .unwrap();
    let out = agentbox_in(dir.path(), &["check", "huge.yaml"]);
    assert_eq!(
        stderr(&out).lines().next().unwrap_or(""),
        "huge.yaml:1:1: error: cannot read scene file: larger than 32 MiB, the most a file may have"
    );
}

#[test]
fn a_fifo_as_a_script_is_refused_without_hanging() {
    let dir = scratch(&[(
        "scene.yaml",
        "name: s\nmap:\n  rows: |\n    ...\nagents:\n  - id: a\n    at: [0, 0]\n    script: a.lua\n",
    )]);
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("a.lua"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo is needed here");
    let out = agentbox_in(dir.path(), &["check", "scene.yaml"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("a.lua"), "{err}");
}

const SCENE_ONE: &str =
    "name: s\nmap:\n  rows: |\n    .....\nagents:\n  - id: a\n    at: [0, 0]\n    script: a.lua\n  - id: b\n    at: [4, 0]\n    script: b.lua\n";

const WALKER: &str = "return { decide = function() return move.to({ x = 2, y = 0 }) end }\n";

fn run_twenty_ticks(script: &str) -> (String, String) {
    let dir = scratch(&[
        ("scene.yaml", SCENE_ONE),
        ("a.lua", script),
        ("b.lua", WALKER),
    ]);
    let out = agentbox_in(
        dir.path(),
        &[
            "headless",
            "scene.yaml",
            "--ticks",
            "20",
            "--allow-errors",
            "--trace",
            "t.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let trace = std::fs::read_to_string(dir.path().join("t.jsonl")).unwrap();
    assert_eq!(trace.lines().count(), 20);
    (trace, stderr(&out))
}

#[test]
fn the_fifty_megabyte_error_of_the_issue_is_stopped_by_the_budget() {
    // It wrote a 1 GB trace in 20 ticks; string.rep's charge to the work budget now stops it
    // once, and the agent is suspended (with a larger budget, the call's memory share does).
    let (trace, err) =
        run_twenty_ticks("return { decide = function() error(string.rep('x', 5e7)) end }\n");
    assert!(trace.len() < 20 * 600, "{} bytes of trace", trace.len());
    assert!(
        trace.contains(r#""error_kind":"budget","suspended":true"#),
        "{trace}"
    );
    assert!(err.len() < 600, "{err}");
}

#[test]
fn a_five_megabyte_error_every_tick_writes_four_kib_a_tick() {
    let (trace, err) =
        run_twenty_ticks("return { decide = function() error(string.rep('x', 5e6)) end }\n");
    for line in trace.lines() {
        // 4 KiB of error text at most, with the note of what was cut.
        assert!(line.len() < 4096 + 400, "{}", line.len());
        assert!(
            line.contains("xxx [... 4996169 bytes dropped]"),
            "{}",
            &line[..200]
        );
    }
    // The walker went on.
    let last: serde_json::Value = serde_json::from_str(trace.lines().last().unwrap()).unwrap();
    assert!(last["agents"][1]["x"].as_f64().unwrap() < 3.0, "{last}");
    // The error is printed once (it does not change), cut as well.
    assert!(err.len() < 4096 + 400, "{}", err.len());
}

#[test]
fn a_print_flood_writes_at_most_four_kib_per_agent_per_tick_and_says_what_was_dropped() {
    let dir = scratch(&[
        ("scene.yaml", SCENE_ONE),
        (
            "a.lua",
            "return { decide = function() for i = 1, 3000 do print(string.rep('y', 1000)) end return move.stop() end }\n",
        ),
        ("b.lua", WALKER),
    ]);
    let out = agentbox_in(
        dir.path(),
        &[
            "headless",
            "scene.yaml",
            "--ticks",
            "3",
            "--trace",
            "t.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    // 3 MB a tick asked for; 4 KiB a tick written, plus one note a tick.
    assert!(
        err.len() < 3 * (4096 + 300),
        "{} bytes of stderr",
        err.len()
    );
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("note: tick"))
        .collect();
    assert_eq!(notes.len(), 3, "{err}");
    for note in notes {
        assert!(
            note.contains("bytes of print output dropped (agent a)"),
            "{note}"
        );
    }
    let printed = err
        .lines()
        .filter(|l| l.starts_with("a.lua:1: yyy"))
        .count();
    assert_eq!(printed, 3 * 4, "four 1 KB lines a tick");
}

#[test]
fn print_from_many_agents_is_bounded_per_tick_in_all() {
    let mut scene =
        String::from("name: s\nmap:\n  rows: |\n    ..........\n    ..........\nagents:\n");
    for i in 0..20 {
        scene.push_str(&format!(
            "  - id: p{i}\n    at: [{}, {}]\n    script: a.lua\n",
            i % 10,
            i / 10
        ));
    }
    let dir = scratch(&[
        ("scene.yaml", &scene),
        (
            "a.lua",
            "return { decide = function() for i = 1, 20 do print(string.rep('z', 1000)) end return move.stop() end }\n",
        ),
    ]);
    let out = agentbox_in(
        dir.path(),
        &[
            "headless",
            "scene.yaml",
            "--ticks",
            "10",
            "--trace",
            "t.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    // Each agent writes four lines of 1,011 bytes (4 KiB), and 16 agents fill the tick's
    // 64 KiB: every tick writes 64 lines and drops the rest, with one note.
    let printed = err
        .lines()
        .filter(|l| l.starts_with("a.lua:1: zzz"))
        .count();
    assert_eq!(printed, 10 * 64);
    assert!(err.len() < 10 * (64 * 1024 + 300), "{}", err.len());
    let notes = err.lines().filter(|l| l.starts_with("note: tick")).count();
    assert_eq!(notes, 10);
}
