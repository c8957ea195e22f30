//! `agentbox compare` and `merge` end to end: the shipped pursuit study (the interceptor ahead
//! of the plain chaser), compare's runs being headless runs, shards as separate processes
//! merged into the unsharded file, an interrupted study resumed, substitutions of required
//! modules, bad input, the cluster examples run as their engines would run them, and a scene
//! whose scripts spawn and remove agents compared over seeds.

use crate::common;
use agentbox_session::experiment;
use common::{agentbox, root, scratch, stderr, stdout, SHARD_VARS};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const INTERCEPTOR: &str = "interceptor:scripts/plain_chaser.lua=scripts/interceptor.lua";

/// `agentbox` from the project root, with `env` set and no inherited shard variables.
fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agentbox"));
    c.args(args).current_dir(root());
    for v in SHARD_VARS {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().expect("agentbox runs")
}

fn text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn the_interceptor_is_ahead_of_the_plain_chaser_over_40_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pursuit.jsonl");
    let (page, sessions) = (dir.path().join("pursuit.html"), dir.path().join("failed"));
    let o = run(
        &[
            "compare",
            "scenes/pursuit.yaml",
            "--variant",
            "chaser",
            "--variant",
            INTERCEPTOR,
            "--seeds",
            "1..40",
            "--out",
            s(&out),
            "--report",
            s(&page),
            "--sessions",
            s(&sessions),
        ],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = stdout(&o);
    report_says_what_the_terminal_says(&summary, &text(&page));
    failed_runs_open_where_they_ended(&stderr(&o), &sessions, &out);
    assert!(
        summary.contains("80 of 80 runs, 300 ticks each"),
        "{summary}"
    );
    assert!(summary.contains("2000 resamples"), "{summary}");
    assert!(summary.contains("baseline: chaser"), "{summary}");
    let merged = experiment::merge(std::slice::from_ref(&out), None).unwrap();
    // The header names the build, the scene and the hash of every script read.
    let h = &merged.header;
    assert_eq!((h.ticks, h.seeds), (300, [1, 40]));
    assert!(h.build.starts_with("agentbox "), "{}", h.build);
    for script in [
        "scripts/plain_chaser.lua",
        "scripts/interceptor.lua",
        "scripts/runner.lua",
    ] {
        let bytes = std::fs::read(root().join(script)).unwrap();
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(h.scripts.get(script), Some(&hex), "{script}");
    }
    let v = &merged.summary.variants;
    assert_eq!(
        (v[0].name.as_str(), v[1].name.as_str()),
        ("chaser", "interceptor")
    );
    let (chaser, interceptor) = (&v[0].reach[0], &v[1].reach[0]);
    assert_eq!(chaser.key, "hunter->prey");
    let (c, i) = (
        chaser.time.clone().unwrap(),
        interceptor.time.clone().unwrap(),
    );
    assert_eq!((c.n, i.n), (40, 40));
    assert!(
        i.high < c.low,
        "the interceptor's interval [{}, {}] is below the chaser's [{}, {}]",
        i.low,
        i.high,
        c.low,
        c.high
    );
    assert!(interceptor.reached >= chaser.reached);
    let diff = interceptor.time_diff.clone().unwrap();
    assert!(diff.high < 0.0, "paired difference {diff:?}");
    // The seed moves the starts: the runs differ.
    for name in ["chaser", "interceptor"] {
        let runs: Vec<_> = merged.runs.iter().filter(|r| r.variant == name).collect();
        let times: std::collections::BTreeSet<Option<u64>> =
            runs.iter().map(|r| r.reach["hunter->prey"]).collect();
        let gaps: std::collections::BTreeSet<u64> = runs
            .iter()
            .map(|r| r.metrics["gap"].unwrap().to_bits())
            .collect();
        assert!(times.len() >= 10, "{name}: {times:?}");
        assert_eq!(
            gaps.len(),
            40,
            "{name}: every seed's pair ends apart differently"
        );
    }
}

/// The page holds the terminal's paired differences in the same figures, the sentence in
/// words, "reached" (never "caught"), and names each dot's variant and seed with the command
/// that opens its run.
fn report_says_what_the_terminal_says(summary: &str, page: &str) {
    let vs = summary
        .lines()
        .find_map(|l| l.trim().strip_prefix("vs baseline: reached "))
        .expect("the terminal prints the paired difference of the reach");
    let (reached, time) = vs.split_once(", time ").unwrap();
    assert!(reached.starts_with('+'), "{vs}");
    for figure in [reached, time] {
        assert!(page.contains(figure), "the page lacks {figure:?}");
    }
    let words = summary
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("in words: interceptor reaches the prey")
        })
        .expect("the terminal says it in words");
    assert!(
        words.starts_with(" in 100% of 40 seeds against "),
        "{words}"
    );
    assert!(page.contains(&format!("interceptor reaches the prey{words}")));
    assert!(!summary.contains("caught") && !page.contains("caught"));
    for seed in [1, 17, 40] {
        for variant in ["chaser", "interceptor"] {
            assert!(
                page.contains(&format!("<title>{variant} seed {seed}: ")),
                "no dot names {variant} seed {seed}"
            );
        }
    }
    assert!(page.contains(
        "agentbox compare scenes/pursuit.yaml --variant interceptor:scripts/plain_chaser.lua=scripts/interceptor.lua --seeds 17 --ticks 300 --open"
    ));
}

/// `--sessions DIR` wrote a session of each run that never reached, which replays exactly to
/// the run's end and says so.
fn failed_runs_open_where_they_ended(said: &str, dir: &Path, out: &Path) {
    let runs = experiment::merge(&[out.to_path_buf()], None).unwrap().runs;
    let failed: Vec<_> = runs
        .iter()
        .filter(|r| r.reach["hunter->prey"].is_none())
        .collect();
    assert!(!failed.is_empty());
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), failed.len(), "{said}");
    let run = failed[0];
    let file = dir.join(format!("{}.seed-{}.session.json", run.variant, run.seed));
    assert!(
        said.contains(&format!(
            "agentbox run scenes/pursuit.yaml --session {}",
            agentbox_session::shell::shell_word(&file.display().to_string())
        )),
        "{said}"
    );
    let rec = agentbox_session::history::load_recording(&file).unwrap();
    let focus = rec.focus.clone().unwrap();
    assert_eq!(
        (rec.ticks, focus.tick, rec.seed),
        (300, 300, Some(run.seed))
    );
    assert!(
        focus.why.contains("never reached hunter->prey"),
        "{}",
        focus.why
    );
    agentbox_session::history::replay(&rec, rec.ticks, |_, _| {})
        .expect("the session replays its recorded hashes");
}

#[test]
fn a_compare_run_is_the_headless_run_of_its_seed() {
    let o = run(
        &[
            "compare",
            "scenes/pursuit.yaml",
            "--seeds",
            "1..2",
            "--jobs",
            "2",
        ],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "a header and two runs");
    assert_eq!(lines[0]["agentbox"], "compare");
    assert!(stderr(&o).contains("baseline: baseline"), "{}", stderr(&o));
    for line in &lines[1..] {
        let seed = line["seed"].as_u64().unwrap().to_string();
        let trace = common::trace("scenes/pursuit.yaml", 300, &["--seed", &seed]);
        let d: Vec<f64> = trace
            .iter()
            .map(|t| common::distance(common::pos(t, "hunter-1"), common::pos(t, "prey-1")))
            .collect();
        // Trace positions are rounded to 1e-4.
        let first = d
            .iter()
            .position(|&d| d <= 0.6 + 1e-3)
            .map(|i| i as u64 + 1);
        let reach = line["reach"]["hunter->prey"].as_u64();
        assert_eq!(reach, first, "seed {seed}");
        let contacts: usize = trace
            .iter()
            .map(|t| t["events"].as_array().unwrap().len())
            .sum();
        assert_eq!(
            line["contacts"].as_u64(),
            Some(contacts as u64),
            "seed {seed}"
        );
        let x = common::pos(&trace[299], "prey-1").0;
        assert!((line["metrics"]["prey_x"].as_f64().unwrap() - x).abs() < 1e-3);
    }
}

/// A hive spawning a drone every 4 ticks on a tile its random stream picks; each drone flies
/// east to a row its own stream picks and leaves at the far side.
const SPAWNING_STUDY: [(&str, &str); 3] = [
    (
        "scene.yaml",
        "name: spawning study
seed: 1
tick_rate: 30
map:
  rows: |
    ..............
    ..............
    ..............
    ..............
    ..............
    ..............
    ..............
agents:
  - { id: hive, kind: hive, at: [1, 3], script: hive.lua, speed: 0 }
spawn:
  - { count: 1, kind: drone, tiles: [[1, 0]], script: drone.lua, speed: 9, radius: 0.3 }
expect:
  ticks: 80
  reach:
    - { agent: drone, target: [12, 3], within: 0.6 }
metrics:
  out: \"#world:agents({ kind = 'drone' })\"
",
    ),
    (
        "hive.lua",
        "local M = {}
function M.decide(self, world)
  if world:tick() % 4 == 0 then
    world:spawn({ kind = \"drone\", at = { 2, math.random(0, 6) } })
  end
  return move.stop()
end
return M
",
    ),
    (
        "drone.lua",
        "local M = {}
function M.init(self) self.memory.goal = { 12, math.random(1, 5) } end
function M.decide(self, world)
  if self.pos.x > 11.5 then self:remove() end
  return move.to(self.memory.goal)
end
return M
",
    ),
];

#[test]
fn compare_over_a_spawning_scene_gives_each_seeds_headless_run() {
    let dir = scratch(&SPAWNING_STUDY);
    let scene = dir.path().join("scene.yaml");
    let runs = |jobs: &str| -> Vec<serde_json::Value> {
        let o = run(
            &["compare", s(&scene), "--seeds", "1..4", "--jobs", jobs],
            &[],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let mut lines: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines.sort_by_key(|l| l["seed"].as_u64());
        lines
    };
    let lines = runs("2");
    assert_eq!(lines.len(), 4);
    assert_eq!(lines, runs("1"), "the same runs whatever runs at once");
    let mut reaches = std::collections::BTreeSet::new();
    for line in &lines {
        let seed = line["seed"].as_u64().unwrap().to_string();
        let trace = common::trace(s(&scene), 80, &["--seed", &seed]);
        let drones = |t: &serde_json::Value| -> Vec<(f64, f64)> {
            let agents = t["agents"].as_array().unwrap();
            agents
                .iter()
                .filter(|a| a["id"].as_str().unwrap().starts_with("drone-"))
                .map(|a| (a["x"].as_f64().unwrap(), a["y"].as_f64().unwrap()))
                .collect()
        };
        let events = |kind: &str| {
            trace
                .iter()
                .flat_map(|t| t["events"].as_array().unwrap())
                .filter(|e| e["type"] == kind)
                .count()
        };
        assert!(events("spawn") >= 19, "seed {seed}: a drone every 4 ticks");
        assert!(events("remove") >= 5, "seed {seed}: drones leave");
        // Trace positions are rounded to 1e-4.
        let first = trace
            .iter()
            .position(|t| {
                drones(t)
                    .into_iter()
                    .any(|d| common::distance(d, (12.0, 3.0)) <= 0.6 + 1e-3)
            })
            .map(|i| i as u64 + 1);
        assert_eq!(
            line["reach"]["drone->[12,3]"].as_u64(),
            first,
            "seed {seed}"
        );
        reaches.insert(first);
        assert_eq!(
            line["contacts"].as_u64(),
            Some(events("contact") as u64),
            "seed {seed}"
        );
        assert_eq!(
            line["metrics"]["out"].as_f64(),
            Some(drones(&trace[79]).len() as f64),
            "seed {seed}"
        );
        assert_eq!(line["errors"], 0, "seed {seed}");
    }
    assert!(
        reaches.len() > 1,
        "the seeds spawn differently: {reaches:?}"
    );
}

fn study(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "compare",
        "scenes/pursuit.yaml",
        "--variant",
        "chaser",
        "--variant",
        INTERCEPTOR,
        "--ticks",
        "150",
        "--jobs",
        "2",
        "--out",
        s(out),
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

fn args(a: &[String]) -> Vec<&str> {
    a.iter().map(String::as_str).collect()
}

#[test]
fn three_shards_in_separate_processes_merge_into_the_unsharded_study() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.jsonl");
    let o = run(&args(&study(&full, &["--seeds", "1..12"])), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let shard = |k: u32| dir.path().join(format!("shard{k}.jsonl"));
    // One shard by flag, one as a Kubernetes Indexed Job, one as a Slurm array task.
    let a1 = study(&shard(1), &["--seeds", "1..12", "--shard", "1/3"]);
    let a2 = study(&shard(2), &["--seeds", "1..12", "--shards", "3"]);
    let a3 = study(&shard(3), &["--seeds", "1..12"]);
    let children: Vec<_> = [
        command(&args(&a1), &[]),
        command(&args(&a2), &[("JOB_COMPLETION_INDEX", "1")]),
        command(
            &args(&a3),
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
        ),
    ]
    .into_iter()
    .map(|mut c| {
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    })
    .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let mut seen = std::collections::BTreeSet::new();
    for k in 1..=3 {
        let t = text(&shard(k));
        assert!(t
            .lines()
            .next()
            .unwrap()
            .contains(&format!("\"shard\":\"{k}/3\"")));
        let runs: Vec<&str> = t.lines().skip(1).collect();
        assert_eq!(runs.len(), 8, "24 runs in 3 shards");
        for r in runs {
            assert!(seen.insert(r.to_string()), "a run in two shards: {r}");
        }
    }
    let merged = dir.path().join("merged.jsonl");
    let shards: Vec<PathBuf> = (1..=3).map(shard).collect();
    let mut m = vec!["merge".to_string()];
    m.extend(shards.iter().map(|p| s(p).to_string()));
    m.extend(["--out".to_string(), s(&merged).to_string()]);
    let o = run(&args(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("24 of 24 runs"), "{}", stdout(&o));
    let (full_text, merged_text) = (text(&full), text(&merged));
    let sorted = |t: &str| {
        let mut l: Vec<String> = t.lines().skip(1).map(String::from).collect();
        l.sort();
        l
    };
    assert_eq!(sorted(&merged_text), sorted(&full_text));
    assert_eq!(
        merged_text, full_text,
        "the merged file is the unsharded file"
    );
    // Two shards of three: runs are missing (exit 4); another study's file: refused (exit 1).
    let o = run(&["merge", s(&shards[0]), s(&shards[1])], &[]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("8 of 24 runs are missing"),
        "{}",
        stderr(&o)
    );
    let other = dir.path().join("other.jsonl");
    let o = run(
        &args(&study(&other, &["--seeds", "1..3", "--shard", "2/3"])),
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["merge", s(&shards[0]), s(&other)], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not match"), "{}", stderr(&o));
}

#[test]
fn an_interrupted_study_resumes_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.jsonl");
    let paused = dir.path().join("paused.jsonl");
    // 2,000 runs of about 1.5 ms: at one job the interrupted copy takes about 3 s, so the
    // interruption lands part way even when this test's thread waits a second for a core.
    let seeds = ["--seeds", "1..1000"];
    let o = run(&args(&study(&whole, &seeds)), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let total = text(&whole).lines().count();
    assert_eq!(total, 2001);
    // Start it again elsewhere, one run at a time, and stop it (Ctrl-C) as soon as its first
    // lines are in the file.
    let mut a = study(&paused, &seeds);
    let jobs = a.iter().position(|x| x == "--jobs").unwrap();
    a[jobs + 1] = "1".into();
    let mut child = command(&args(&a), &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = common::patiently(|| {
        if std::fs::read_to_string(&paused).map_or(0, |t| t.lines().count()) >= 2 {
            return Some(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the study ended ({status}) before it could be interrupted");
        }
        std::thread::sleep(common::POLL);
        None
    });
    assert!(started.is_some(), "the study never wrote a run");
    interrupt(&mut child);
    let _ = child.wait();
    // Whole lines only: the interruption may have torn the last one.
    let cut = text(&paused).matches('\n').count();
    assert!(
        cut < total,
        "the study was interrupted ({cut} of {total} lines)"
    );
    // An interrupted write leaves a torn line: it is dropped, not taken for a run.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&paused)
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"variant\":\"cha").unwrap();
    drop(f);
    let o = run(&args(&study(&paused, &seeds)), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains(&format!("{} already recorded", cut - 1)),
        "{said}"
    );
    assert_eq!(
        text(&paused),
        text(&whole),
        "the resumed file is the whole study"
    );
    // Done: running it again makes nothing.
    let o = run(&args(&study(&paused, &seeds)), &[]);
    assert!(
        stdout(&o).starts_with("0 runs made, 2000 already recorded"),
        "{}",
        stdout(&o)
    );
    // Another study into the same file is refused, and the file is left alone.
    let o = run(&args(&study(&paused, &["--seeds", "1..1001"])), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("header differs"), "{}", stderr(&o));
    assert!(stderr(&o).contains("`seeds`"), "{}", stderr(&o));
    assert_eq!(text(&paused), text(&whole));
    // Nor is a file that is not a study, even one without a whole line.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes").unwrap();
    let o = run(&args(&study(&notes, &["--seeds", "1..2"])), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not an `agentbox compare` file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(text(&notes), "my notes");
}

/// Stops a child part way, as Ctrl-C does: the study has no handler, so SIGINT and SIGTERM both
/// end it at once. SIGTERM, because a child of a script run in the background (`cmd &` in a
/// non-interactive shell, as a CI runner may do) inherits SIGINT as ignored, and then runs to
/// the end: seen in a fresh-clone `.ci/run` started with `nohup bash -c ... &`.
fn interrupt(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) with the pid of a child this test started and has not yet waited
        // for, so the pid cannot have been reused.
        let r = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        assert_eq!(r, 0);
    }
    #[cfg(not(unix))]
    child.kill().unwrap();
}

const GOAL_SCENE: &str = r#"
name: goals
map:
  rows: |
    ############
    #..........#
    ############
agents:
  - { id: walker, at: [1, 1], script: walker.lua, speed: 4 }
  - { id: broken, at: [10, 1], script: broken.lua }
metrics:
  x: world:agent("walker").pos.x
  nothing: nil
  broken: "1 +"
"#;

#[test]
fn variants_replace_required_modules_and_script_errors_are_counted() {
    let dir = scratch(&[
        ("goals.yaml", GOAL_SCENE),
        (
            "walker.lua",
            "local goal = require(\"lib.goal\")\nlocal M = {}\nfunction M.decide(self, world) return move.to(goal) end\nreturn M\n",
        ),
        ("broken.lua", "local M = {}\nfunction M.decide(self, world) error(\"boom\") end\nreturn M\n"),
        ("lib/goal.lua", "return {3, 1}\n"),
        ("lib/far.lua", "return {9, 1}\n"),
    ]);
    let scene = dir.path().join("goals.yaml");
    let module = dir.path().join("lib/goal.lua");
    let far = format!("far:{}={}", s(&module), s(&dir.path().join("lib/far.lua")));
    let o = run(
        &[
            "compare",
            s(&scene),
            "--variant",
            "near",
            "--variant",
            &far,
            "--seeds",
            "1..2",
            "--ticks",
            "60",
        ],
        &[],
    );
    assert!(
        o.status.success(),
        "script errors are not fatal: {}",
        stderr(&o)
    );
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    let x = |i: usize| lines[i]["metrics"]["x"].as_f64().unwrap();
    assert!(
        (x(1) - 3.0).abs() < 0.1 && (x(3) - 9.0).abs() < 0.1,
        "{lines:?}"
    );
    for line in &lines[1..] {
        assert_eq!(
            line["errors"], 3,
            "the failing script, the nil metric and the broken one: {line}"
        );
        assert_eq!(line["metrics"]["nothing"], serde_json::Value::Null);
        assert_eq!(line["metrics"]["broken"], serde_json::Value::Null);
    }
    assert!(
        stderr(&o).contains("warning: metric `broken` does not compile"),
        "{}",
        stderr(&o)
    );
    let scripts = lines[0]["scripts"].as_object().unwrap();
    assert!(
        scripts.keys().any(|k| k.ends_with("far.lua")),
        "{scripts:?}"
    );
    assert!(
        scripts.keys().any(|k| k.ends_with("goal.lua")),
        "{scripts:?}"
    );
}

#[test]
fn bad_input_exits_1_with_a_clear_message() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["compare", "scenes/none.yaml", "--seeds", "1..2"],
            "cannot read scene file",
        ),
        (
            &["compare", "scenes/pursuit.yaml", "--seeds", "5..2"],
            "after the last",
        ),
        (
            &[
                "compare",
                "scenes/pursuit.yaml",
                "--seeds",
                "1",
                "--variant",
                "x:scripts/hunter.lua=scripts/interceptor.lua",
            ],
            "neither a script of",
        ),
        (
            &[
                "compare",
                "scenes/pursuit.yaml",
                "--seeds",
                "1",
                "--variant",
                "x:scripts/plain_chaser.lua",
            ],
            "is not FROM=TO",
        ),
        (
            &[
                "compare",
                "scenes/pursuit.yaml",
                "--seeds",
                "1",
                "--variant",
                "a",
                "--variant",
                "a",
            ],
            "two variants have this name",
        ),
        (
            &[
                "compare",
                "scenes/pursuit.yaml",
                "--seeds",
                "1",
                "--shard",
                "4/3",
            ],
            "does not exist",
        ),
    ];
    for (a, message) in cases {
        let o = agentbox(a);
        assert_eq!(o.status.code(), Some(1), "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{a:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{a:?}");
    }
}

/// The `agentbox compare` words of a shell command line in the examples, split as a shell
/// would split these simple ones.
fn words(line: &str) -> Vec<String> {
    line.split_whitespace()
        .map(|w| w.trim_matches('"').to_string())
        .collect()
}

#[test]
fn the_cluster_examples_parse_and_run_as_their_engines_would_run_them() {
    let dir = tempfile::tempdir().unwrap();
    // Kubernetes: an Indexed Job whose completions are the study's --shards.
    let job: serde_json::Value =
        serde_saphyr::from_str(&text(&root().join("examples/cluster/job.yaml"))).unwrap();
    assert_eq!(job["kind"], "Job");
    assert_eq!(job["apiVersion"], "batch/v1");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let completions = spec["completions"].as_u64().unwrap();
    let container = &spec["template"]["spec"]["containers"][0];
    assert!(spec["template"]["spec"]["restartPolicy"].as_str().is_some());
    let cmd: Vec<String> = container["command"]
        .as_array()
        .unwrap()
        .iter()
        .chain(container["args"].as_array().into_iter().flatten())
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let shell = cmd.last().unwrap().clone();
    assert_eq!(&cmd[..2], ["sh", "-c"], "{cmd:?}");
    let line = shell
        .lines()
        .find(|l| l.contains("agentbox compare"))
        .unwrap();
    let w = words(line);
    let at = |flag: &str| w.iter().position(|x| x == flag).map(|i| w[i + 1].clone());
    assert_eq!(at("--shards"), Some(completions.to_string()));
    // Run each index's command line as the Job would, then merge.
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_agentbox"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out_dir = s(dir.path()).to_string();
    for index in 0..completions {
        let mut c = Command::new("sh");
        c.arg("-c").arg(&shell).current_dir(root());
        for v in SHARD_VARS {
            c.env_remove(v);
        }
        c.env("PATH", &path)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("RESULTS", &out_dir)
            .env("SEEDS", "1..6")
            .env("TICKS", "60");
        let o = c.output().unwrap();
        assert!(o.status.success(), "index {index}: {}", stderr(&o));
    }
    let files: Vec<PathBuf> = (0..completions)
        .map(|i| dir.path().join(format!("shard-{i}.jsonl")))
        .collect();
    let m = experiment::merge(&files, None).unwrap();
    assert_eq!(m.runs.len() as u64, m.header.total_runs());
    assert_eq!(m.header.total_runs(), 12);

    // Slurm: an array job of N tasks running the same study.
    let script = text(&root().join("examples/cluster/slurm.sh"));
    assert!(script.starts_with("#!/bin/bash"));
    let array = script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array="))
        .unwrap();
    let (lo, hi) = array.split_once('-').unwrap();
    let (lo, hi): (u64, u64) = (lo.parse().unwrap(), hi.trim().parse().unwrap());
    let slurm = dir.path().join("slurm");
    std::fs::create_dir(&slurm).unwrap();
    for task in lo..=hi {
        let mut c = Command::new("bash");
        c.arg(root().join("examples/cluster/slurm.sh"))
            .current_dir(root());
        for v in SHARD_VARS {
            c.env_remove(v);
        }
        c.env("PATH", &path)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_MIN", lo.to_string())
            .env("SLURM_ARRAY_TASK_MAX", hi.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", (hi - lo + 1).to_string())
            .env("RESULTS", s(&slurm))
            .env("SEEDS", "1..6")
            .env("TICKS", "60");
        let o = c.output().unwrap();
        assert!(o.status.success(), "task {task}: {}", stderr(&o));
    }
    let files: Vec<PathBuf> = (lo..=hi)
        .map(|t| slurm.join(format!("shard-{t}.jsonl")))
        .collect();
    let m2 = experiment::merge(&files, None).unwrap();
    assert_eq!(m2.runs, m.runs, "both engines ran the same study");
}

/// What scripts `print` during a study stays off unless `--prints` asks for it; then each
/// line says which run printed it: `[VARIANT seed=N] text`, for prints at load and while
/// deciding alike.
#[test]
fn study_prints_are_off_unless_asked_and_then_say_their_run() {
    let scene =
        "map:\n  rows: |\n    .....\nagents:\n  - { id: talker, at: [0, 0], script: talk.lua }\n";
    let talk = "print(\"loaded\")\nreturn { decide = function(self, world)\n  print(\"tick \" .. world:tick())\n  return move.stop()\nend }\n";
    let dir = scratch(&[("s.yaml", scene), ("talk.lua", talk)]);
    let scene = dir.path().join("s.yaml");
    let study = |extra: &[&str]| {
        let mut args = vec!["compare", s(&scene), "--seeds", "6..7", "--ticks", "2"];
        args.extend_from_slice(extra);
        let out = run(&args, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let quiet = study(&[]);
    assert!(
        !quiet.contains("loaded") && !quiet.contains("tick 1"),
        "prints are off by default:\n{quiet}"
    );
    let told = study(&["--prints", "--jobs", "1"]);
    for seed in [6, 7] {
        for line in [
            "talk.lua:1: loaded",
            "talk.lua:3: tick 0",
            "talk.lua:3: tick 1",
        ] {
            let prefix = format!("[baseline seed={seed}] ");
            assert!(
                told.lines()
                    .any(|l| l.starts_with(&prefix) && l.ends_with(line)),
                "{prefix}...{line} in:\n{told}"
            );
        }
    }
    assert_eq!(
        told.lines().filter(|l| l.contains("talk.lua:")).count(),
        told.lines()
            .filter(|l| l.starts_with("[baseline seed="))
            .count(),
        "every print line carries its run:\n{told}"
    );
}

/// Resuming a study whose script changed since its file was written is refused, and the
/// message names the file that changed (not two maps of hashes).
#[test]
fn a_resume_refused_for_a_changed_script_names_the_script() {
    let scene =
        "map:\n  rows: |\n    .....\nagents:\n  - { id: a, at: [0, 0], script: still.lua }\n";
    let still = "return { decide = function(self, world) return move.stop() end }\n";
    let dir = scratch(&[("s.yaml", scene), ("still.lua", still)]);
    let (scene, out) = (dir.path().join("s.yaml"), dir.path().join("study.jsonl"));
    let args = [
        "compare",
        s(&scene),
        "--seeds",
        "1..2",
        "--ticks",
        "2",
        "--out",
        s(&out),
    ];
    let o = run(&args, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = text(&out);
    std::fs::write(dir.path().join("still.lua"), format!("-- edited\n{still}")).unwrap();
    let o = run(&args, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("(its header differs: ")
            && err.contains("still.lua changed since the file was written"),
        "{err}"
    );
    let hex_run = err
        .split(|c: char| !c.is_ascii_hexdigit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(hex_run < 64, "no hashes in the message: {err}");
    assert_eq!(text(&out), before, "the file is left alone");
}

/// `--open` makes the study's one run again as a session (here with no display, so the window
/// itself cannot open: the session is written first) that opens at the tick its reach happened
/// in the study, with the reaching agent: replayed, that is the first tick within reach.
#[test]
fn open_writes_the_run_that_opens_at_its_reach() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("one.jsonl");
    let one = [
        "compare",
        "scenes/pursuit.yaml",
        "--variant",
        INTERCEPTOR,
        "--seeds",
        "17",
    ];
    let o = run(&[&one[..], &["--out", s(&out)]].concat(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let study = experiment::merge(&[out], None).unwrap().runs;
    let reached = study[0].reach["hunter->prey"].expect("the interceptor reaches");
    let mut open = command(
        &[&one[..], &["--open", "--sessions", s(dir.path())]].concat(),
        &[],
    );
    let o = open.env_remove("DISPLAY").output().unwrap();
    let said = stderr(&o);
    let file = dir.path().join("interceptor.seed-17.session.json");
    assert!(
        said.contains(&format!("wrote {}", file.display())),
        "{said}"
    );
    let rec = agentbox_session::history::load_recording(&file).unwrap();
    let focus = rec.focus.clone().unwrap();
    assert_eq!((rec.ticks, focus.tick), (reached, reached));
    assert_eq!(focus.agent.as_deref(), Some("hunter"));
    let target = agentbox_core::scene::file::TargetSpec::Agent("prey".into());
    let mut near = Vec::new();
    agentbox_session::history::replay(&rec, rec.ticks, |session, _| {
        let d = agentbox_core::expect::reach_distance(session.world(), "hunter", &target);
        near.push(d.is_some_and(|d| d <= 0.6));
    })
    .unwrap();
    assert_eq!(
        near.iter().position(|&n| n),
        Some(reached as usize - 1),
        "{near:?}"
    );
}
