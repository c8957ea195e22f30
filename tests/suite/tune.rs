//! `agentbox tune` end to end: a search of the shipped tunables scene's `hunter.lead` toward an
//! objective over the summary, its record (deterministic for a --seed, resumed without a new
//! evaluation), its report, `--write` changing only the `value:` text, and bad input refused
//! with a clear message and exit 1.

use crate::common;
use common::{root, stderr, stdout};
use std::path::Path;
use std::process::Output;

fn run(dir: &Path, args: &[&str]) -> Output {
    common::unsharded_in(dir, args)
}

const OBJECTIVE: &str = "summary.reach['hunter->prey'].time";

fn tune(dir: &Path, out: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "tune",
        "scenes/tunables.yaml",
        "--tunable",
        "hunter.lead",
        "--objective",
        OBJECTIVE,
        "--minimize",
        "--seeds",
        "1..3",
        "--evals",
        "6",
        "--seed",
        "5",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    run(dir, &args)
}

#[test]
fn tune_searches_records_resumes_reports_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scenes")).unwrap();
    let scene = dir.path().join("scenes/tunables.yaml");
    std::fs::copy(root().join("scenes/tunables.yaml"), &scene).unwrap();
    std::os::unix::fs::symlink(root().join("scripts"), dir.path().join("scripts")).unwrap();
    let report = dir.path().join("tune.html");
    let first = tune(
        dir.path(),
        "a.jsonl",
        &["--report", report.to_str().unwrap()],
    );
    assert!(first.status.success(), "{}", stderr(&first));
    // "R evaluations made, 0 already recorded, P repeats of scored values (no run)"
    let said = stdout(&first);
    let counts: Vec<usize> = said
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .filter_map(|w| w.trim_end_matches(',').parse().ok())
        .collect();
    let [runs, 0, repeats] = counts[..] else {
        panic!("{said}")
    };
    assert!((2..=6).contains(&runs), "--evals 6 bounds the runs: {said}");
    let record = std::fs::read_to_string(dir.path().join("a.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = record
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + runs + repeats, "{record}");
    let mut distinct: Vec<f64> = lines[1..]
        .iter()
        .map(|l| l["values"]["hunter.lead"].as_f64().unwrap())
        .collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert_eq!(distinct.len(), runs, "one run per distinct value: {record}");
    assert_eq!(lines[0]["agentbox"], "tune");
    assert_eq!(
        lines[1]["values"]["hunter.lead"], 0.5,
        "evaluation 0 is the scene's own"
    );
    for l in &lines[1..] {
        let lead = l["values"]["hunter.lead"].as_f64().unwrap();
        assert!(
            (0.0..=3.0).contains(&lead) && (lead * 4.0).fract() == 0.0,
            "{lead} off the 0.25 steps"
        );
        assert!(l["objective"].as_f64().unwrap() > 0.0);
    }
    // The same --seed gives the same record; running it again makes nothing new.
    let again = tune(dir.path(), "b.jsonl", &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.jsonl")).unwrap(),
        record
    );
    let resumed = tune(dir.path(), "a.jsonl", &[]);
    assert!(
        stdout(&resumed).contains(&format!(
            "0 evaluations made, {} already recorded",
            runs + repeats
        )),
        "{}",
        stdout(&resumed)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.jsonl")).unwrap(),
        record
    );
    let page = std::fs::read_to_string(&report).unwrap();
    for part in [
        "Convergence",
        "Best against the scene's own values",
        "paired by seed",
        "hunter.lead",
    ] {
        assert!(page.contains(part), "the report lacks {part}");
    }
    // --write changes only the value text of the tunable.
    let before = std::fs::read_to_string(&scene).unwrap();
    let wrote = tune(dir.path(), "a.jsonl", &["--write"]);
    assert!(wrote.status.success(), "{}", stderr(&wrote));
    let best = lines[1..]
        .iter()
        .map(|l| {
            (
                l["objective"].as_f64().unwrap(),
                l["values"]["hunter.lead"].as_f64().unwrap(),
            )
        })
        .fold((f64::INFINITY, 0.0), |b, x| if x.0 < b.0 { x } else { b });
    let after = std::fs::read_to_string(&scene).unwrap();
    let expected = before.replace(
        "lead: { value: 0.5,",
        &format!(
            "lead: {{ value: {},",
            agentbox_core::scene::numbers::format_number(best.1)
        ),
    );
    assert_eq!(after, expected);
}

#[test]
fn tune_refuses_bad_input_with_a_clear_message() {
    let root = root();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bad.jsonl");
    let cases: [(&[&str], &str); 3] = [
        (
            &["--tunable", "hunter.nope", "--objective", OBJECTIVE],
            "no such tunable (it has: hunter.close, hunter.lead, hunter.lead_cap, hunter.margin)",
        ),
        (
            &["--tunable", "hunter.lead", "--objective", "summary.reach"],
            "gave table instead of a number",
        ),
        (
            &[
                "--tunable",
                "hunter.lead",
                "--objective",
                "summary.metrics.nope.mean",
            ],
            "--objective",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec![
            "tune",
            "scenes/tunables.yaml",
            "--minimize",
            "--seeds",
            "1..2",
            "--evals",
            "3",
        ];
        all.extend_from_slice(args);
        all.extend(["--out", out.to_str().unwrap()]);
        let o = run(&root, &all);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert!(
            !out.exists(),
            "{args:?}: a record of a search that could not start is left"
        );
    }
}

#[test]
fn tune_shards_take_turns_and_merge_into_the_unsharded_record() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scenes")).unwrap();
    std::fs::copy(
        root().join("scenes/tunables.yaml"),
        dir.path().join("scenes/tunables.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root().join("scripts"), dir.path().join("scripts")).unwrap();
    let evaluations = |file: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.path().join(file))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    // Each shard records its share of a generation, and stops (exit 4) until the other's
    // record holds the rest; run again in turns, both finish.
    let mut codes = Vec::new();
    for _ in 0..4 {
        for k in ["1", "2"] {
            let o = tune(
                dir.path(),
                &format!("tune-{k}.jsonl"),
                &["--shard", &format!("{k}/2")],
            );
            codes.push(o.status.code());
        }
    }
    assert_eq!(
        codes[0],
        Some(4),
        "the first shard waits for the second: {codes:?}"
    );
    assert_eq!(&codes[codes.len() - 2..], [Some(0), Some(0)], "{codes:?}");
    let whole = tune(dir.path(), "whole.jsonl", &[]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let mut merged = evaluations("tune-1.jsonl");
    merged.extend(evaluations("tune-2.jsonl"));
    merged.sort_by_key(|e| e["eval"].as_u64());
    assert_eq!(merged, evaluations("whole.jsonl"));
}
