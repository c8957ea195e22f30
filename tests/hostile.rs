//! The hostile-script corpus (`tests/hostile/*.lua`): each script tries to escape the sandbox,
//! run forever, exhaust memory or return garbage. Its first line says the error it must get
//! (`-- expect: ...`). Each runs in a scene next to a well-behaved walker, which must keep
//! walking: one bad script never stops the scene.

mod common;

use common::{agentbox_in, pos, scratch, stderr, stdout};
use std::path::PathBuf;

const WALKER: &str = r#"
local M = {}
function M.decide(self, world)
  local label = string.format("%s-%d", self.id, math.floor(world:tick()))
  local joined = table.concat({ label, "ok" }, " ")
  assert(#joined > 0 and nav.los(self.pos, { x = 10, y = 3 }))
  return move.to({ x = 10, y = 3 })
end
return M
"#;

const SCENE: &str = r#"
name: hostile
tick_rate: 30
map:
  rows: |
    ############
    #..........#
    #..........#
    #..........#
    ############
agents:
  - id: hostile
    at: [1, 1]
    script: scripts/hostile.lua
  - id: walker
    at: [1, 3]
    script: scripts/walker.lua
"#;

fn expectation(source: &str) -> String {
    source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("-- expect: "))
        .expect("each hostile script starts with `-- expect: ...`")
        .trim()
        .to_string()
}

/// Runs one hostile script; returns a description of what went wrong, if anything.
fn run_one(path: &PathBuf) -> Option<String> {
    let source = std::fs::read_to_string(path).unwrap();
    let expected = expectation(&source);
    let dir = scratch(&[
        ("scene.yaml", SCENE),
        ("scripts/hostile.lua", &source),
        ("scripts/walker.lua", WALKER),
    ]);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    // The error names the file as the scene does: scripts/hostile.lua.
    let expected = expected.replace(&name, "hostile.lua");
    let out = agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "4", "--trace", "-"],
    );
    if !out.status.success() {
        return Some(format!("{name}: agentbox failed: {}", stderr(&out)));
    }
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect();
    if lines.len() != 4 {
        return Some(format!(
            "{name}: expected 4 trace lines, got {}",
            lines.len()
        ));
    }
    let last = &lines[3];
    let walked = pos(last, "walker").0 - pos(&lines[0], "walker").0;
    if walked < 0.3 {
        return Some(format!("{name}: the walker stopped (moved {walked})"));
    }
    let hostile = last["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "hostile")
        .unwrap();
    let error = hostile["error"].as_str().unwrap_or("");
    if !error.contains(&expected) {
        return Some(format!(
            "{name}: expected an error containing {expected:?}, got {error:?}"
        ));
    }
    if !error.starts_with("scripts/hostile.lua") {
        return Some(format!(
            "{name}: the error does not name the script: {error:?}"
        ));
    }
    if !stderr(&out).contains(&expected) {
        return Some(format!(
            "{name}: the error was not printed: {}",
            stderr(&out)
        ));
    }
    None
}

#[test]
fn every_hostile_script_gets_a_clear_error_and_the_scene_goes_on() {
    let folder = common::root().join("tests/hostile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lua"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "the corpus is in tests/hostile");
    // Two at a time: the budget and memory cases each take a moment.
    let failures: Vec<String> = files
        .chunks(files.len().div_ceil(2))
        .map(|chunk| {
            let chunk = chunk.to_vec();
            std::thread::spawn(move || chunk.iter().filter_map(run_one).collect::<Vec<_>>())
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_hostile_script_cannot_create_files() {
    let marker = std::env::temp_dir().join("agentbox-pwned");
    let _ = std::fs::remove_file(&marker);
    assert!(run_one(&common::root().join("tests/hostile/os_execute.lua")).is_none());
    assert!(!marker.exists());
}
