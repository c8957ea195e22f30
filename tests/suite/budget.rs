//! The scene's `budget:` key: validated with located errors, and applied to the scripts.

use crate::common;

use common::{agentbox_in, scratch, stderr, stdout};

fn scene(budget: &str) -> String {
    format!(
        "name: budget\n{budget}map:\n  rows: |\n    ......\nagents:\n  - id: a\n    at: [0, 0]\n    script: a.lua\n  - id: w\n    at: [1, 0]\n    script: walk.lua\n"
    )
}

const WALK: &str = "return { decide = function(self) return move.to({ x = 5, y = 0 }) end }\n";

/// `s.yaml` in `dir` run headless for `ticks`, its trace on standard output,
/// errors allowed.
fn run(dir: &std::path::Path, ticks: &str) -> std::process::Output {
    agentbox_in(
        dir,
        &[
            "headless",
            "s.yaml",
            "--ticks",
            ticks,
            "--trace",
            "-",
            "--allow-errors",
        ],
    )
}

fn last_error(trace: &str, id: &str) -> String {
    let last: serde_json::Value = serde_json::from_str(trace.lines().last().unwrap()).unwrap();
    last["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .and_then(|a| a["error"].as_str())
        .unwrap_or("")
        .to_string()
}

#[test]
fn budget_values_out_of_range_are_located_errors() {
    let dir = scratch(&[
        (
            "s.yaml",
            &scene("budget:\n  instructions: 5\n  memory_mb: 4096\n  cpu_ms: 0\n"),
        ),
        ("a.lua", WALK),
        ("walk.lua", WALK),
    ]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("s.yaml:3:17: error: budget.instructions must be from 10000"),
        "{err}"
    );
    assert!(
        err.contains("s.yaml:4:14: error: budget.memory_mb must be from 8 to 768"),
        "{err}"
    );
    assert!(
        err.contains("s.yaml:5:11: error: budget.cpu_ms must be from 10 to 600000 milliseconds"),
        "{err}"
    );
    let dir = scratch(&[
        ("s.yaml", &scene("budget: { cpu_mss: 100 }\n")),
        ("a.lua", WALK),
        ("walk.lua", WALK),
    ]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert!(
        stderr(&out).contains("unknown field `cpu_mss`") && stderr(&out).contains("cpu_ms"),
        "{}",
        stderr(&out)
    );
    let dir = scratch(&[
        ("s.yaml", &scene("budget: { instuctions: 10 }\n")),
        ("a.lua", WALK),
        ("walk.lua", WALK),
    ]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert!(
        stderr(&out).contains("unknown field `instuctions`"),
        "{}",
        stderr(&out)
    );
}

/// A script file that cannot compile within a call's budget (a long `x or x or ...`, which
/// the parser walked in quadratic time: 19.5 s for 100k operands) is a located error at load
/// and in `check`: the budget, not the clock, stops the parser (a wall-clock bound here would
/// be a timed unit test; the error itself says the instruction count ran out).
#[test]
fn a_file_too_costly_to_compile_is_a_located_error_in_check_and_at_load() {
    let chain = vec!["x"; 100_000].join(" or ");
    let source = format!("local x = false\nlocal M = {{}}\nlocal y = {chain}\nfunction M.decide() return move.stop() end\nreturn M\n");
    let dir = scratch(&[
        ("s.yaml", &scene("")),
        ("a.lua", &source),
        ("walk.lua", WALK),
    ]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("a.lua:3: error: instruction budget exceeded"),
        "{}",
        stderr(&out)
    );
    let out = run(dir.path(), "3");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        last_error(&stdout(&out), "a").contains("a.lua:3: error: instruction budget exceeded"),
        "{}",
        stdout(&out)
    );
    assert!(last_error(&stdout(&out), "w").is_empty());
}

#[test]
fn the_memory_budget_applies_to_the_scene() {
    let hog = "return { decide = function(self)\n  local s = string.rep('0123456789abcdef', 2 * 1024 * 1024)\n  return move.stop()\nend }\n";
    for (budget, fails) in [("", false), ("budget: { memory_mb: 16 }\n", true)] {
        let dir = scratch(&[
            ("s.yaml", &scene(budget)),
            ("a.lua", hog),
            ("walk.lua", WALK),
        ]);
        let out = run(dir.path(), "3");
        assert!(out.status.success(), "{}", stderr(&out));
        let error = last_error(&stdout(&out), "a");
        assert_eq!(
            error.contains("memory limit exceeded") && error.contains("all scripts together 16 MB"),
            fails,
            "{error}"
        );
        assert_eq!(last_error(&stdout(&out), "w"), "");
    }
}

#[test]
fn the_instruction_budget_applies_to_the_scene() {
    let busy = "return { decide = function(self)\n  local s = 0\n  for i = 1, 50000000 do s = s + i end\n  return move.stop()\nend }\n";
    let dir = scratch(&[
        ("s.yaml", &scene("budget: { instructions: 10000 }\n")),
        ("a.lua", busy),
        ("walk.lua", WALK),
    ]);
    let out = run(dir.path(), "3");
    assert!(out.status.success(), "{}", stderr(&out));
    let error = last_error(&stdout(&out), "a");
    assert_eq!(
        error,
        "a.lua:3: error: instruction budget exceeded; the agent is suspended until its script is saved, the scene is reset or it is resumed (U in the window)"
    );
}

/// Every way `decide` can fail, on tick `at` (`world:tick()`): the message must not depend on
/// whether the agent was deciding for the first time or had been running for a while (after
/// its first tick an agent is decided by the raw loop, before it by the full path).
fn failing(at: u64) -> Vec<(&'static str, String)> {
    let body = |id: &str, fail: &str| {
        format!(
            "local M = {{}}\nfunction M.decide(self, world)\n  if world:tick() >= {at} then\n    {fail}\n  end\n  return move.chase(world:nearest(self))\nend\nreturn M\n-- {id}\n"
        )
    };
    vec![
        ("raise", body("raise", "error(\"boom\")")),
        ("table", body("table", "error({})")),
        ("nil", body("nil", "return nil")),
        ("number", body("number", "return 5")),
        ("other", body("other", "return world")),
        ("loop", body("loop", "while true do end")),
        (
            "bomb",
            body(
                "bomb",
                "local s = string.rep(string.rep(\"x\", 1000), 1000) self.memory.t = {} for i = 1, 1e9 do self.memory.t[i] = s .. i end",
            ),
        ),
        ("bad_call", body("bad_call", "return move.chase(42)")),
    ]
}

#[test]
fn failures_read_the_same_on_the_first_tick_and_later() {
    let run = |at: u64| {
        let scripts = failing(at);
        let mut scene = String::from(
            "name: failures\nbudget: { instructions: 100000, memory_mb: 64 }\nmap:\n  rows: |\n    ..........\n    ..........\nagents:\n",
        );
        for (n, (id, _)) in scripts.iter().enumerate() {
            scene.push_str(&format!(
                "  - id: {id}\n    at: [{}, {}]\n    script: {id}.lua\n",
                n,
                n % 2
            ));
        }
        scene.push_str("  - id: walker\n    at: [9, 1]\n    script: walk.lua\n");
        let mut files: Vec<(String, String)> = scripts
            .iter()
            .map(|(id, text)| (format!("{id}.lua"), text.clone()))
            .collect();
        files.push(("s.yaml".into(), scene));
        files.push(("walk.lua".into(), WALK.into()));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let dir = scratch(&refs);
        let ticks = (at + 2).to_string();
        let out = run(dir.path(), &ticks);
        assert!(out.status.success(), "{}", stderr(&out));
        let trace = stdout(&out);
        let errors: Vec<(String, String)> = scripts
            .iter()
            .map(|(id, _)| (id.to_string(), last_error(&trace, id)))
            .collect();
        let walker: serde_json::Value =
            serde_json::from_str(trace.lines().last().unwrap()).unwrap();
        let walked = walker["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == "walker")
            .map(|a| a["x"].as_f64().unwrap())
            .unwrap();
        (errors, walked)
    };
    let (first, _) = run(0);
    let (later, walked) = run(4);
    for (id, message) in &first {
        assert!(
            message.starts_with(&format!("{id}.lua")),
            "{id}: every failure names its script: {message:?}"
        );
    }
    assert_eq!(first, later, "failing on tick 0 vs on tick 4");
    assert!(
        walked < 9.0,
        "the well-behaved agent kept walking: x = {walked}"
    );
    let by_id: std::collections::BTreeMap<_, _> = later.into_iter().collect();
    assert_eq!(by_id["raise"], "raise.lua:4: error: boom");
    assert!(by_id["nil"].ends_with("got nil"), "{}", by_id["nil"]);
    assert!(
        by_id["loop"].contains("instruction budget exceeded"),
        "{}",
        by_id["loop"]
    );
    assert!(
        by_id["bomb"].contains("memory limit exceeded"),
        "{}",
        by_id["bomb"]
    );
}
