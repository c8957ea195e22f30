//! Hot reload through `agentbox headless --realtime`: the binary runs a scene in real time
//! while the test edits its files the ways editors do (in place, atomic rename, delete and
//! recreate, half-written, bursts, a folder that goes away) and reads the trace and stderr.

use crate::common;

use common::scratch;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running `agentbox headless --realtime` and what it has printed.
struct Live {
    child: Child,
    trace: Receiver<Value>,
    latest: Option<Value>,
    stderr: Arc<Mutex<String>>,
    dir: PathBuf,
}

impl Live {
    fn start(dir: &Path, scene: &str) -> Live {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentbox"))
            .args([
                "headless",
                scene,
                "--ticks",
                "100000000",
                "--realtime",
                "--trace",
                "-",
            ])
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agentbox runs");
        let (tx, rx) = channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line).expect("trace line is JSON");
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let mut live = Live {
            child,
            trace: rx,
            latest: None,
            stderr,
            dir: dir.to_path_buf(),
        };
        live.until("the first tick", |_| true);
        live
    }

    /// Reads trace lines until one satisfies `pred`; fails the test if agentbox exits first or
    /// none does within [`common::PATIENCE`].
    fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let found = common::patiently(|| {
            let next = self.trace.recv_timeout(Duration::from_millis(100));
            if let Ok(line) = next {
                self.latest = Some(line.clone());
                return pred(&line).then_some(line);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "agentbox exited ({status}) waiting for {what}; stderr:\n{}",
                    self.err()
                );
            }
            None
        });
        found.unwrap_or_else(|| {
            panic!(
                "timed out waiting for {what}; last trace line: {:?}\nstderr:\n{}",
                self.latest,
                self.err()
            )
        })
    }

    /// Waits until stderr contains `needle`.
    fn until_err(&mut self, needle: &str) {
        let found = common::patiently(|| {
            if self.err().contains(needle) {
                return Some(());
            }
            // Keep reading the trace so the process never blocks on a full pipe.
            while self.trace.try_recv().is_ok() {}
            std::thread::sleep(common::POLL);
            None
        });
        if found.is_none() {
            panic!("stderr never said {needle:?}:\n{}", self.err());
        }
    }

    fn err(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Writes in place (truncate, write).
    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path(name), text).unwrap();
    }

    /// Saves like many editors: write a temporary file, rename it over the old one.
    fn atomic_save(&self, name: &str, text: &str) {
        let target = self.path(name);
        let tmp = target.with_extension("lua.swp~");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &target).unwrap();
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent<'a>(line: &'a Value, id: &str) -> Option<&'a Value> {
    line["agents"].as_array()?.iter().find(|a| a["id"] == id)
}

fn action(line: &Value, id: &str) -> String {
    agent(line, id)
        .and_then(|a| a["action"].as_str())
        .unwrap_or("")
        .to_string()
}

fn error(line: &Value, id: &str) -> String {
    agent(line, id)
        .and_then(|a| a["error"].as_str())
        .unwrap_or("")
        .to_string()
}

const SCENE: &str = r#"
name: live
tick_rate: 100
map:
  rows: |
    ##########
    #........#
    #........#
    #........#
    ##########
agents:
  - id: a
    at: [1, 1]
    script: scripts/a.lua
"#;

/// Version 1: stands still and counts ticks in memory.
const STILL: &str = r#"
local M = {}
function M.decide(self, world)
  self.memory.n = (self.memory.n or 0) + 1
  return move.stop()
end
return M
"#;

/// Version 2: walks east, but only if its memory survived the reload (on_reload saw it).
const WALK: &str = r#"
local M = {}
function M.on_reload(self)
  self.memory.kept = (self.memory.n or 0) > 0
end
function M.decide(self, world)
  self.memory.n = (self.memory.n or 0) + 1
  if not self.memory.kept then error("memory was lost in the reload", 0) end
  return move.to({ x = 8, y = 1 })
end
return M
"#;

/// Version 3: chases nothing in particular: heads for its own tile (action `chase`).
const CHASE: &str = r#"
local M = {}
function M.decide(self, world)
  return move.chase({ x = 1, y = 3 })
end
return M
"#;

const BROKEN: &str =
    "local M = {}\nfunction M.decide(self, world)\n  return move.stop(\nend\nreturn M\n";

#[test]
fn script_saves_in_place_atomic_partial_and_in_bursts() {
    let dir = scratch(&[("scene.yaml", SCENE), ("scripts/a.lua", STILL)]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    live.until("v1 standing", |l| action(l, "a") == "stop");

    // In place: the new code runs, with its memory and on_reload.
    live.write("scripts/a.lua", WALK);
    live.until("v2 walking with memory kept", |l| {
        action(l, "a") == "to" && error(l, "a").is_empty()
    });
    live.until_err("reloaded scripts/a.lua");

    // A syntax error keeps the last good version and says where.
    live.write("scripts/a.lua", BROKEN);
    live.until_err(
        "scripts/a.lua:4: error: unexpected symbol near 'end' (keeping the last good version)",
    );
    live.until("v2 still walking", |l| action(l, "a") == "to");

    // Atomic save (temp file renamed over).
    live.atomic_save("scripts/a.lua", CHASE);
    live.until("v3 chasing", |l| action(l, "a") == "chase");

    // A partial write (the editor's first chunk), then the rest.
    let half = &STILL[..STILL.len() / 2];
    live.write("scripts/a.lua", half);
    live.write("scripts/a.lua", STILL);
    live.until("v1 after a partial write", |l| action(l, "a") == "stop");

    // A burst of saves ending on one version: that version wins.
    for i in 0..40 {
        let text = if i % 2 == 0 { BROKEN } else { WALK };
        live.write("scripts/a.lua", text);
    }
    live.write("scripts/a.lua", CHASE);
    live.until("the burst's last version", |l| action(l, "a") == "chase");
}

#[test]
fn a_script_that_fails_its_first_load_reloads_when_fixed() {
    let dir = scratch(&[("scene.yaml", SCENE), ("scripts/a.lua", BROKEN)]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    live.until("the load error in the trace", |l| {
        error(l, "a").starts_with("scripts/a.lua:4:")
    });
    live.atomic_save("scripts/a.lua", CHASE);
    live.until("the fixed version", |l| {
        action(l, "a") == "chase" && error(l, "a").is_empty()
    });
}

#[test]
fn a_deleted_script_keeps_its_last_version_until_recreated() {
    let dir = scratch(&[("scene.yaml", SCENE), ("scripts/a.lua", CHASE)]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    live.until("chasing", |l| action(l, "a") == "chase");
    std::fs::remove_file(live.path("scripts/a.lua")).unwrap();
    live.until_err("scripts/a.lua: error: cannot read script");
    live.until("still chasing without its file", |l| {
        action(l, "a") == "chase" && error(l, "a").is_empty()
    });
    live.write("scripts/a.lua", STILL);
    live.until("the recreated version", |l| action(l, "a") == "stop");
}

#[test]
fn editing_a_required_module_reloads_the_scripts_that_use_it() {
    let main = r#"
local pick = require("lib.pick")
local M = {}
function M.decide(self, world) return pick(self) end
return M
"#;
    let pick_stop = "return function(self) return move.stop() end\n";
    let pick_chase = "return function(self) return move.chase({ x = 1, y = 3 }) end\n";
    let dir = scratch(&[
        ("scene.yaml", SCENE),
        ("scripts/a.lua", main),
        ("scripts/lib/pick.lua", pick_stop),
    ]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    live.until("the module's stop", |l| action(l, "a") == "stop");
    live.atomic_save("scripts/lib/pick.lua", pick_chase);
    live.until("the edited module's chase", |l| action(l, "a") == "chase");
    live.until_err("reloaded scripts/a.lua");
    // A module that breaks keeps the last good script and points into the module.
    live.write(
        "scripts/lib/pick.lua",
        "return function(self) return move.stop( end\n",
    );
    live.until_err("scripts/lib/pick.lua:1:");
    live.until("still chasing", |l| action(l, "a") == "chase");
    // A module that does not exist yet is picked up when it appears.
    live.write(
        "scripts/a.lua",
        "local p = require('lib.later')\nreturn { decide = function(self) return p(self) end }\n",
    );
    live.until_err("module \"lib.later\" not found");
    live.write("scripts/lib/later.lua", pick_stop);
    live.until("the module created later", |l| action(l, "a") == "stop");
}

#[test]
fn scene_edits_apply_in_place() {
    let scene = |rows: &str, agents: &str| {
        format!("name: live\ntick_rate: 100\nmap:\n  rows: |\n{rows}agents:\n{agents}")
    };
    let rows = "    ##########\n    #........#\n    #........#\n    #........#\n    ##########\n";
    let walled = "    ##########\n    #........#\n    #....#...#\n    #........#\n    ##########\n";
    let a = "  - id: a\n    at: [1, 1]\n    script: scripts/walk.lua\n";
    let b = "  - id: b\n    at: [8, 3]\n";
    let walk = r#"
local M = {}
function M.decide(self, world)
  if self.memory.arrived then return move.stop() end
  local dx, dy = self.pos.x - 5, self.pos.y - 2
  if dx * dx + dy * dy < 0.0001 then
    self.memory.arrived = true
    return move.stop()
  end
  return move.to({ x = 5, y = 2 })
end
return M
"#;
    let dir = scratch(&[
        ("scene.yaml", &scene(rows, &format!("{a}{b}"))),
        ("scripts/walk.lua", walk),
    ]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    // a reaches (5, 2) and stops there (its memory counts to 30).
    live.until("a at (5, 2)", |l| {
        agent(l, "a").is_some_and(|a| {
            let (x, y) = (a["x"].as_f64().unwrap(), a["y"].as_f64().unwrap());
            (x - 5.0).abs() < 0.05 && (y - 2.0).abs() < 0.05
        }) && action(l, "a") == "stop"
    });
    // Paint a wall under a, drop b, add c: a is moved to the nearest free tile (the row
    // above comes first on a tie), keeps its memory (it stays stopped), b leaves, c appears.
    let c = "  - id: c\n    at: [2, 3]\n";
    std::fs::write(live.path("scene.yaml"), scene(walled, &format!("{a}{c}"))).unwrap();
    let line = live.until("the new scene", |l| agent(l, "c").is_some());
    assert!(agent(&line, "b").is_none(), "b left");
    let moved = agent(&line, "a").unwrap();
    assert_eq!(
        (moved["x"].as_f64(), moved["y"].as_f64()),
        (Some(5.0), Some(1.0))
    );
    assert_eq!(action(&line, "a"), "stop", "a kept its memory");
    live.until_err("reloaded scene scene.yaml");
    // A broken scene keeps the running one and says where.
    std::fs::write(
        live.path("scene.yaml"),
        scene(walled, &format!("{a}{c}  - id: d\n    at: [99, 1]\n")),
    )
    .unwrap();
    live.until_err("scene.yaml:");
    live.until_err("outside the");
    let line = live.until("ticking on", |l| agent(l, "c").is_some());
    assert!(agent(&line, "d").is_none());
}

/// The issue's live tuning through the file: the runner's `speed` edited while it runs. It
/// keeps its place and its memory, moves at the new speed from the reload on, the terminal
/// names what was applied and the trace has it on the tick it applied.
#[test]
fn an_edited_speed_keeps_the_agent_its_place_and_memory() {
    let scene = |speed: &str| {
        format!(
            "name: tune\ntick_rate: 50\nmap:\n  rows: |\n    {}\nagents:\n  - id: runner\n    at: [0, 0]\n    speed: {speed}\n    script: run.lua\n",
            ".".repeat(80)
        )
    };
    let run = "local M = {}\nfunction M.decide(self, world)\n  self.memory.n = (self.memory.n or 0) + 1\n  self:label('n' .. self.memory.n)\n  return move.to({ x = 79, y = 0 })\nend\nreturn M\n";
    let dir = scratch(&[("scene.yaml", &scene("1")), ("run.lua", run)]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    let x = |l: &Value| agent(l, "runner").unwrap()["x"].as_f64().unwrap();
    let n = |l: &Value| {
        let label = agent(l, "runner").unwrap()["label"]
            .as_str()
            .unwrap_or("n0");
        label[1..].parse::<u64>().unwrap()
    };
    let before = live.until("the runner a tile on", |l| x(l) > 1.0);
    std::fs::write(live.path("scene.yaml"), scene("0.5")).unwrap();
    let reloaded = live.until("the reload's event", |l| {
        l["events"]
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e["type"] == "reload"))
    });
    assert_eq!(
        reloaded["events"][0],
        serde_json::json!({"type": "reload", "agent": "runner", "fields": ["speed"]})
    );
    assert!(x(&reloaded) > x(&before), "it went on from where it was");
    assert!(n(&reloaded) > n(&before), "its memory went on counting");
    let next = live.until("the tick after", |l| {
        l["tick"] == reloaded["tick"].as_u64().unwrap() + 1
    });
    let step = x(&next) - x(&reloaded);
    assert!(
        (step - 0.5 / 50.0).abs() < 1e-3,
        "moves at the new speed: {step} a tick"
    );
    assert_eq!(n(&next), n(&reloaded) + 1);
    live.until_err("reloaded scene scene.yaml: runner speed");
}

#[test]
fn a_folder_that_disappears_is_reported_and_picked_up_when_back() {
    let dir = scratch(&[("scene.yaml", SCENE), ("scripts/a.lua", STILL)]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    live.until("standing", |l| action(l, "a") == "stop");
    std::fs::rename(live.path("scripts"), live.path("scripts.away")).unwrap();
    live.until_err("folder disappeared");
    live.until("still running on the last good version", |l| {
        action(l, "a") == "stop"
    });
    std::fs::write(live.path("scripts.away/a.lua"), CHASE).unwrap();
    std::fs::rename(live.path("scripts.away"), live.path("scripts")).unwrap();
    live.until_err("folder is back");
    live.until("the version that came back", |l| action(l, "a") == "chase");
}

#[test]
fn one_save_prints_one_reload_line() {
    use std::io::Write;
    // A second agent whose script is saved last, as a marker (below).
    let scene = format!("{SCENE}  - id: z\n    at: [8, 3]\n    script: scripts/z.lua\n");
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("scripts/a.lua", STILL),
        ("scripts/z.lua", STILL),
    ]);
    let mut live = Live::start(dir.path(), "scene.yaml");
    live.until("standing", |l| action(l, "a") == "stop");
    // An editor's save: truncate, write, and close a moment later, so the close's event comes
    // after the session has already reloaded the written bytes.
    let mut f = std::fs::File::create(live.path("scripts/a.lua")).unwrap();
    f.write_all(CHASE.as_bytes()).unwrap();
    f.flush().unwrap();
    live.until("the saved version", |l| action(l, "a") == "chase");
    drop(f);
    // Then a save of the marker: the watcher delivers events in the order they happened, so
    // once z.lua's save is reloaded the close of a.lua has been polled too, in the same poll or
    // an earlier one; and a poll reloads its scripts in path order, a.lua before z.lua. So a
    // second reload line for a.lua would already be on stderr.
    live.write("scripts/z.lua", CHASE);
    live.until_err("reloaded scripts/z.lua");
    let err = live.err();
    assert_eq!(
        err.matches("reloaded scripts/a.lua").count(),
        1,
        "one save, one reload line; stderr:\n{err}"
    );
}
