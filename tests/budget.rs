//! The scene's `budget:` key: validated with located errors, and applied to the scripts.

mod common;

use common::{agentbox_in, scratch, stderr, stdout};

fn scene(budget: &str) -> String {
    format!(
        "name: budget\n{budget}map:\n  rows: |\n    ......\nagents:\n  - id: a\n    at: [0, 0]\n    script: a.lua\n  - id: w\n    at: [1, 0]\n    script: walk.lua\n"
    )
}

const WALK: &str = "return { decide = function(self) return move.to({ x = 5, y = 0 }) end }\n";

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
            &scene("budget:\n  instructions: 5\n  memory_mb: 4096\n"),
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

#[test]
fn the_memory_budget_applies_to_the_scene() {
    let hog = "return { decide = function(self)\n  local s = string.rep('0123456789abcdef', 2 * 1024 * 1024)\n  return move.stop()\nend }\n";
    for (budget, fails) in [("", false), ("budget: { memory_mb: 16 }\n", true)] {
        let dir = scratch(&[
            ("s.yaml", &scene(budget)),
            ("a.lua", hog),
            ("walk.lua", WALK),
        ]);
        let out = agentbox_in(
            dir.path(),
            &["headless", "s.yaml", "--ticks", "3", "--trace", "-"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let error = last_error(&stdout(&out), "a");
        assert_eq!(
            error.contains("memory limit exceeded (16 MB"),
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
    let out = agentbox_in(
        dir.path(),
        &["headless", "s.yaml", "--ticks", "3", "--trace", "-"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let error = last_error(&stdout(&out), "a");
    assert_eq!(
        error,
        "a.lua:3: instruction budget exceeded (an endless loop?)"
    );
}
