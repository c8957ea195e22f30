//! `agentbox sweep` end to end: two swept parameters (a tunable by its name and a spawn
//! group's speed by a scene path) over seeds, compare's lines with `"params"` and
//! `"monitors"`, shards merged into the unsharded file, the monitors CSV, the report, and bad
//! paths refused with clear errors.

use crate::common;
use common::{root, stderr, stdout};
use std::path::Path;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::unsharded_in(&root(), args)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn lines(p: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const SWEEP: [&str; 8] = [
    "sweep",
    "scenes/tunables.yaml",
    "--param",
    "hunter.lead=0..1:0.5",
    "--param",
    "spawn.prey.speed=4..5:1",
    "--seeds",
    "1..3",
];

#[test]
fn a_sweep_over_two_parameters_runs_every_point_and_seed() {
    let dir = tempfile::tempdir().unwrap();
    let (out, csv, html) = (
        dir.path().join("s.jsonl"),
        dir.path().join("m.csv"),
        dir.path().join("r.html"),
    );
    let mut args = SWEEP.to_vec();
    args.extend([
        "--ticks",
        "120",
        "--out",
        s(&out),
        "--monitors",
        s(&csv),
        "--report",
        s(&html),
    ]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("18 of 18 runs"), "{}", stdout(&o));
    let all = lines(&out);
    let header = &all[0];
    assert_eq!(header["variants"].as_array().unwrap().len(), 6);
    assert_eq!(
        header["variants"][1]["params"],
        serde_json::json!({"hunter.lead": 0.0, "spawn.prey.speed": 5.0})
    );
    let runs = &all[1..];
    assert_eq!(runs.len(), 18);
    let mut seen = std::collections::BTreeSet::new();
    for r in runs {
        let p = &r["params"];
        let (lead, speed) = (
            p["hunter.lead"].as_f64().unwrap(),
            p["spawn.prey.speed"].as_f64().unwrap(),
        );
        assert!(
            [0.0, 0.5, 1.0].contains(&lead) && [4.0, 5.0].contains(&speed),
            "{r}"
        );
        assert_eq!(
            r["variant"],
            format!("hunter.lead={lead},spawn.prey.speed={speed}")
        );
        seen.insert((r["variant"].to_string(), r["seed"].as_u64().unwrap()));
        // Final monitors: the value every 10 ticks and the plots folded by their rules.
        let m = &r["monitors"];
        assert_eq!(m["hunters"], 1.0, "{r}");
        assert!(m["gap"].as_f64().unwrap() >= 0.0, "{r}");
        assert!(m["prey_x"].as_f64().unwrap() > 2.0, "{r}");
        assert_eq!(
            m["prey_x"], r["metrics"]["prey_x"],
            "monitor and metric agree at the end"
        );
        assert_eq!(r["errors"], 0, "{r}");
    }
    assert_eq!(seen.len(), 18);
    // The swept numbers really change the runs: the prey's speed moves where it ends.
    let prey_x = |speed: f64| {
        runs.iter()
            .filter(|r| {
                r["params"]["spawn.prey.speed"] == speed && r["params"]["hunter.lead"] == 0.0
            })
            .map(|r| r["metrics"]["prey_x"].as_f64().unwrap())
            .sum::<f64>()
    };
    assert!(
        prey_x(5.0) > prey_x(4.0),
        "{} vs {}",
        prey_x(5.0),
        prey_x(4.0)
    );
    // The CSV is long: variant,seed,tick,name,value, with values every 10 ticks and plots every
    // tick; the monitors never changed the run (a sweep without them gives the same lines).
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut rows = text.lines();
    assert_eq!(rows.next(), Some("variant,seed,tick,name,value"));
    let rows: Vec<&str> = rows.collect();
    let prey_rows = rows.iter().filter(|r| r.contains(",prey_x,")).count();
    let gap_rows = rows.iter().filter(|r| r.contains(",gap,")).count();
    assert_eq!(prey_rows, 18 * 12, "every 10 ticks of 120");
    assert_eq!(gap_rows, 18 * 120, "every tick");
    assert!(
        rows[0].starts_with("\"hunter.lead=0,spawn.prey.speed=4\",1,1,"),
        "{}",
        rows[0]
    );
    let plain = dir.path().join("plain.jsonl");
    let mut args = SWEEP.to_vec();
    args.extend(["--ticks", "120", "--out", s(&plain), "--jobs", "1"]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&out).unwrap());
    // The report is one offline page with the heat map of the two parameters.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("Heat maps: hunter.lead across, spawn.prey.speed down"));
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains("<script"));
}

#[test]
fn sweep_shards_merge_into_the_unsharded_file() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.jsonl");
    let mut args = SWEEP.to_vec();
    args.extend(["--ticks", "60", "--out", s(&whole)]);
    assert!(run(&args).status.success());
    let mut parts = Vec::new();
    for k in 1..=2 {
        let part = dir.path().join(format!("part{k}.jsonl"));
        let shard = format!("{k}/2");
        let mut args = SWEEP.to_vec();
        args.extend(["--ticks", "60", "--out", s(&part), "--shard", &shard]);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        parts.push(part);
    }
    let merged = dir.path().join("merged.jsonl");
    let html = dir.path().join("merged.html");
    let o = run(&[
        "merge",
        s(&parts[0]),
        s(&parts[1]),
        "--out",
        s(&merged),
        "--report",
        s(&html),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("Heat maps"));
}

#[test]
fn bad_sweep_paths_and_ranges_are_refused_clearly() {
    for (param, says) in [
        ("agents.wolf.speed=1..2:1", "no `agents`"),
        ("spawn.wolf.speed=1..2:1", "has no `wolf`"),
        ("spawn.prey.params.goal=1..2:1", "not a number"),
        (
            "hunter.prey=1..2:1",
            "no tunable `prey` (declare it as params:",
        ),
        (
            "hunter.laed=0..1:0.5",
            "`hunter` has no tunable `laed` (did you mean hunter.lead?)",
        ),
        ("wolf.lead=1..2:1", "no agent with id `wolf`"),
        ("hunter.lead=1..2", "no `:STEP`"),
        ("hunter.lead=2..1:1", "B is below A"),
        ("hunter.lead=0..5:1", "outside min..max"),
    ] {
        let o = run(&[
            "sweep",
            "scenes/tunables.yaml",
            "--param",
            param,
            "--seeds",
            "1",
            "--ticks",
            "5",
        ]);
        assert_eq!(o.status.code(), Some(1), "{param}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{param}: {}", stderr(&o));
    }
}

#[test]
fn headless_monitors_write_long_csv_and_leave_the_trace_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, watched, csv) = (
        dir.path().join("plain.jsonl"),
        dir.path().join("watched.jsonl"),
        dir.path().join("m.csv"),
    );
    let scene = "scenes/tunables.yaml";
    let a = run(&["headless", scene, "--ticks", "40", "--trace", s(&plain)]);
    assert!(a.status.success(), "{}", stderr(&a));
    let b = run(&[
        "headless",
        scene,
        "--ticks",
        "40",
        "--trace",
        s(&watched),
        "--monitors",
        s(&csv),
    ]);
    assert!(b.status.success(), "{}", stderr(&b));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&watched).unwrap(),
        "monitors changed the trace"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut rows = text.lines();
    assert_eq!(rows.next(), Some("tick,name,value"));
    let rows: Vec<Vec<&str>> = rows.map(|l| l.split(',').collect()).collect();
    // prey_x every 10 ticks (10, 20, 30, 40); the plots every tick.
    let prey: Vec<&str> = rows
        .iter()
        .filter(|r| r[1] == "prey_x")
        .map(|r| r[0])
        .collect();
    assert_eq!(prey, ["10", "20", "30", "40"], "{text}");
    for name in ["gap", "hunters"] {
        let ticks = rows.iter().filter(|r| r[1] == name).count();
        assert_eq!(ticks, 40, "{name} once per tick:\n{text}");
    }
    assert!(rows.iter().all(|r| r[2].parse::<f64>().is_ok()), "{text}");
    // With --realtime it is refused (clap), exit 2.
    let c = run(&[
        "headless",
        scene,
        "--ticks",
        "1",
        "--realtime",
        "--monitors",
        s(&csv),
    ]);
    assert_eq!(c.status.code(), Some(2), "{}", stderr(&c));
}
