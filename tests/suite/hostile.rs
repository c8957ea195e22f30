//! The hostile-script corpus (`tests/hostile/*.lua`): each script tries to escape the sandbox,
//! run forever, exhaust memory, change what others see or return garbage. Its first line says
//! the error it must get (`-- expect: ...`). Each runs in a scene next to a well-behaved
//! walker, which must reach its goal with no error: one bad script never stops the scene. A
//! case may ask for more of the run on its second line (`-- run with: --monitors m.csv`,
//! for what only a run with monitors collects, such as `plot`'s series). The
//! run (with `--allow-errors`) stays within 1 GiB and its CPU limit, and a second run in
//! another process gives a byte-identical trace, and neither the trace nor stderr holds a heap
//! address (`0x` and hex digits). The count stops every case, never the CPU-time net: no trace
//! line has its `replay_may_differ` event.

#![cfg(unix)]

use crate::common;

use common::{pos, scratch};
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

/// The options a hostile script asks its run for on its second line (`-- run with: ...`):
/// only `--monitors FILE` (a file in the scene's folder), so a case cannot ask for more.
fn run_with(source: &str) -> Vec<String> {
    let Some(options) = source
        .lines()
        .nth(1)
        .and_then(|l| l.strip_prefix("-- run with: "))
    else {
        return Vec::new();
    };
    let options: Vec<String> = options.split_whitespace().map(str::to_string).collect();
    assert!(
        matches!(options.as_slice(), [flag, file] if flag == "--monitors" && !file.contains('/')),
        "a hostile case may ask only for `-- run with: --monitors FILE`, not {options:?}"
    );
    options
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
    let options = run_with(&source);
    let mut args = vec![
        "headless",
        "scene.yaml",
        "--ticks",
        TICKS,
        "--trace",
        "-",
        "--allow-errors",
    ];
    args.extend(options.iter().map(String::as_str));
    let run = common::limited::run_limited(dir.path(), &args);
    if run.code != Some(0) {
        return Some(format!(
            "{name}: agentbox ended with {:?} (signal {:?}): {}",
            run.code, run.signal, run.stderr
        ));
    }
    if run.max_rss_kb >= 1024 * 1024 {
        return Some(format!("{name}: peak resident size {} KiB", run.max_rss_kb));
    }
    let again = common::limited::run_limited(dir.path(), &args);
    if again.stdout != run.stdout {
        return Some(format!("{name}: a second run gave another trace"));
    }
    let (stdout, stderr) = (run.stdout, run.stderr);
    if let Some(address) = address_in(&stdout).or_else(|| address_in(&stderr)) {
        return Some(format!(
            "{name}: an address reached the trace or stderr: {address}"
        ));
    }
    // The count catches every known case first: the CPU-time net (a clock, whose stop a
    // replay may not repeat) is for what nobody thought of.
    if stdout.contains(r#""type":"replay_may_differ""#) {
        return Some(format!("{name}: the CPU-time net fired, not the count"));
    }
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect();
    if lines.len() != TICKS.parse::<usize>().unwrap() {
        return Some(format!(
            "{name}: expected {TICKS} trace lines, got {}",
            lines.len()
        ));
    }
    let last = lines.last().unwrap();
    let (x, y) = pos(last, "walker");
    if (x - 10.0).abs() > 0.05 || (y - 3.0).abs() > 0.05 {
        return Some(format!(
            "{name}: the walker did not reach its goal: ({x}, {y})"
        ));
    }
    let walker_error = last["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "walker")
        .and_then(|a| a.get("error").cloned());
    if let Some(e) = walker_error {
        return Some(format!("{name}: the walker got an error: {e}"));
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
    if !stderr.contains(&expected) {
        return Some(format!("{name}: the error was not printed: {stderr}"));
    }
    None
}

/// The first heap address in `text` (`0x` and at least six hex digits), with some context:
/// no message, error or print line may hold one (a script could read it through `pcall`).
pub fn address_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(2)).find_map(|i| {
        let hex = bytes[i + 2..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        (bytes[i] == b'0' && bytes[i + 1] == b'x' && hex >= 6).then(|| {
            let (from, to) = (i.saturating_sub(60), (i + 2 + hex + 20).min(bytes.len()));
            String::from_utf8_lossy(&bytes[from..to]).into_owned()
        })
    })
}

/// Enough ticks for the walker to cross its room (9 tiles at 4 tiles/s, 30 ticks/s).
const TICKS: &str = "90";

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
    // The file os_execute.lua tries to make: /tmp itself, not the temporary folder the
    // environment names, which may be another.
    let marker = PathBuf::from("/tmp/agentbox-pwned");
    let _ = std::fs::remove_file(&marker);
    assert!(run_one(&common::root().join("tests/hostile/os_execute.lua")).is_none());
    assert!(!marker.exists());
}
