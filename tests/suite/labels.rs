//! Why each agent acted, headless: `self:label` in the trace, `print` lines as trace events
//! within the print bounds, `--trace-memory`, `world:memory` for `expect:` (and refused to
//! agents' scripts), `draw.*` doing nothing headless, and `nav.sees`.

use crate::common;
use common::*;
use serde_json::Value;

const SCENE: &str = "\
name: why
seed: 5
map:
  rows: |
    ..........
    ....#.....
    ..........
agents:
  - { id: a, at: [0, 0], script: a.lua }
  - { id: b, at: [9, 0] }
expect:
  ticks: 10
  lua:
    - name: memory is readable from expect
      when: every_tick
      check: |
        local m = world:memory(\"a\")
        if world:tick() >= 1 and (m == nil or m.n ~= world:tick()) then
          return false, \"memory of a: \" .. tostring(m and m.n)
        end
        if m and pcall(function() m.n = 0 end) then return false, \"the copy is writable\" end
        return true
";

/// Labels itself by the parity of the tick, prints on ticks 3 and 4, keeps a cycle and a
/// function in memory, draws (a no-op headless) and asks `nav.sees` in several ways.
const SCRIPT: &str = "\
local M = {}
function M.decide(self, world)
  local m = self.memory
  m.n = (m.n or 0) + 1
  m.me = m
  m.f = print
  m.list = {3, 2, 1}
  if m.n % 2 == 0 then self:label(\"even\") elseif m.n == 5 then self:label(nil) else self:label(\"odd\") end
  if m.n == 3 or m.n == 4 then print(\"hello\", m.n) end
  draw.circle(self, 1) draw.line(self, {1, 1}) draw.text(self, \"hi\") draw.cone(self, 0, 90, 5) draw.tile({2, 2})
  draw.circle(\"not a position\")
  local b = world:agent(\"b\")
  m.sees_all = nav.sees(self, b)
  m.sees_east = nav.sees(self, {5, 0}, {fov = 90, facing = 0, range = 6})
  m.sees_far = nav.sees(self, {9, 0}, {range = 6})
  m.sees_back = nav.sees({5, 0}, self, {fov = 60, facing = 0})
  m.sees_wall = nav.sees(self, {6, 2})
  m.no_peek = not pcall(function() return world:memory(\"a\") end)
  return move.stop()
end
return M
";

fn agent<'a>(line: &'a Value, id: &str) -> &'a Value {
    line["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["id"] == id))
        .unwrap_or_else(|| panic!("agent {id} in {line}"))
}

#[test]
fn labels_prints_and_memory_are_in_the_trace() {
    let dir = scratch(&[("scene.yaml", SCENE), ("a.lua", SCRIPT)]);
    let run = |extra: &[&str]| {
        let mut args = vec!["headless", "scene.yaml", "--ticks", "6", "--trace", "-"];
        args.extend_from_slice(extra);
        let out = agentbox_in(dir.path(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let text = run(&["--trace-memory"]);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let labels: Vec<Option<&str>> = lines
        .iter()
        .map(|l| agent(l, "a")["label"].as_str())
        .collect();
    assert_eq!(
        labels,
        [
            Some("odd"),
            Some("even"),
            Some("odd"),
            Some("even"),
            None,
            Some("even")
        ]
    );
    // An agent that never labels has no `label` field at all.
    assert!(agent(&lines[0], "b").get("label").is_none());
    // print lines are events of the tick they were printed in, prefixed with file:line.
    let prints: Vec<(u64, &Value)> = lines
        .iter()
        .flat_map(|l| {
            let tick = l["tick"].as_u64().unwrap();
            l["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |e| (tick, e))
        })
        .filter(|(_, e)| e["type"] == "print")
        .collect();
    assert_eq!(prints.len(), 2, "{text}");
    assert_eq!(prints[0].0, 3);
    assert_eq!(prints[0].1["agent"], "a");
    assert_eq!(prints[0].1["text"], "a.lua:9: hello\t3");
    // Memory: sorted keys, placeholders for the function and the cycle, lists as arrays.
    let m = &agent(&lines[5], "a")["memory"];
    let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(m["n"], 6);
    assert_eq!(m["me"], "<cycle>");
    assert_eq!(m["f"], "<function>");
    assert_eq!(m["list"], serde_json::json!([3, 2, 1]));
    // nav.sees: all round sees b across the open floor; in the cone and range; out of range;
    // from a position facing away.
    assert_eq!(m["sees_all"], true);
    assert_eq!(m["sees_east"], true);
    assert_eq!(m["sees_far"], false);
    assert_eq!(m["sees_back"], false);
    assert_eq!(m["sees_wall"], false, "the wall at 4, 1 is on the line");
    // An agent's own script cannot read memory.
    assert_eq!(m["no_peek"], true);
    assert!(agent(&lines[5], "b").get("memory").is_none());
    // Without --trace-memory the lines have no memory; and runs are byte-identical.
    let plain = run(&[]);
    assert!(!plain.contains("\"memory\""));
    assert_eq!(plain, run(&[]));
    assert_eq!(text, run(&["--trace-memory"]));
    // draw.* did nothing headless: no error for the bad call, no trace change.
    assert!(!plain.contains("error"), "{plain}");
}

#[test]
fn world_memory_serves_expect() {
    let dir = scratch(&[("scene.yaml", SCENE), ("a.lua", SCRIPT)]);
    let out = agentbox_in(dir.path(), &["test", "scene.yaml"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn a_bad_label_is_a_located_error_and_print_is_bounded_in_the_trace() {
    let script = "\
local M = {}
function M.decide(self, world)
  if world:tick() == 0 then
    for i = 1, 100 do print(string.rep(\"x\", 100)) end
    return move.stop()
  end
  self:label(string.rep(\"y\", 33))
  return move.stop()
end
return M
";
    let dir = scratch(&[("scene.yaml", SCENE), ("a.lua", script)]);
    let out = agentbox_in(
        dir.path(),
        &[
            "headless",
            "scene.yaml",
            "--ticks",
            "2",
            "--trace",
            "-",
            "--allow-errors",
        ],
    );
    let text = stdout(&out);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // 4 KiB per agent and tick: 40 lines of 101 bytes with their prefix.
    let printed = lines[0]["events"].as_array().unwrap().len();
    assert!((30..=40).contains(&printed), "{printed}");
    let error = agent(&lines[1], "a")["error"].as_str().unwrap();
    assert!(
        error.starts_with("a.lua:7:") && error.contains("self:label: a label is at most 32 bytes"),
        "{error}"
    );
    assert!(stderr(&out).contains("bytes of print output dropped"));
}

#[test]
fn world_memory_serves_metrics() {
    let scene = format!("{SCENE}metrics:\n  n: world:memory(\"a\").n\n");
    let dir = scratch(&[("scene.yaml", &scene), ("a.lua", SCRIPT)]);
    let out = agentbox_in(
        dir.path(),
        &["compare", "scene.yaml", "--seeds", "1..1", "--ticks", "6"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let run = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l.get("seed").is_some())
        .unwrap_or_else(|| panic!("a run line in {text}"));
    assert_eq!(run["metrics"]["n"], 6.0, "{text}");
}

/// The window ticks through the history with frames kept (each tick's decisions observed);
/// that tick must be the same tick: labels and print lines included, line for line.
#[test]
fn a_tick_with_frames_kept_writes_the_same_trace_with_labels_and_prints() {
    let scene = root().join("scenes/guard.yaml");
    let mut plain =
        agentbox_session::session::Session::open_with(&scene, None, true).expect("guard opens");
    let mut kept =
        agentbox_session::history::History::open_with(&scene, None, true).expect("opens");
    kept.keep_frames(true);
    let (mut prints, mut labelled) = (0, 0);
    for _ in 0..300 {
        let a = plain.tick();
        let b = kept.tick();
        let la = agentbox_core::sim::trace::line(plain.world(), &a.events);
        let lb = agentbox_core::sim::trace::line(kept.session().world(), &b.events);
        assert_eq!(la, lb, "tick {}", plain.world().tick);
        prints += b.prints().count();
        labelled += lb.contains("\"label\"") as usize;
    }
    assert!(
        prints > 0 && labelled > 0,
        "prints {prints}, labelled ticks {labelled}"
    );
}
