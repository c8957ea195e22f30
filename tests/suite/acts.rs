//! Agents that act (issue 30): messages (`world:send`, `world:broadcast`, `self:inbox()`),
//! spawning and removing (`world:spawn`, `self:remove()`), doors (`world:set_tile`), hearing
//! (`world:noise`, `self:heard()`) and touch (`self:touching()`), each through the real binary
//! on a small scene a designer would write, each run in two processes to show the trace is
//! the same bytes; and the located errors for bad input, with nothing half-applied.

use crate::common::{agentbox, scratch, stderr, stdout, trace_twice};
use serde_json::Value;
use std::path::Path;

/// An open map `w` x `h` as scene rows.
fn open_map(w: usize, h: usize) -> String {
    let row = ".".repeat(w);
    let mut s = String::from("map:\n  rows: |\n");
    for _ in 0..h {
        s.push_str(&format!("    {row}\n"));
    }
    s
}

/// Runs `scene.yaml` in `dir` headless for `ticks` in two processes, asserts the traces are
/// the same bytes and returns the parsed lines.
fn run_twice(dir: &Path, ticks: u64) -> Vec<Value> {
    trace_twice(&dir.join("scene.yaml"), ticks)
}

/// A boss (`boss.lua`) and a box (`box.lua`) on an open 8 x 3 map, run for 4 ticks in two
/// processes: the parsed trace.
fn boss_and_box(boss: &str, inbox: &str) -> Vec<Value> {
    let scene = format!(
        "{}agents:
  - {{ id: boss, kind: boss, at: [1, 1], script: boss.lua }}
  - {{ id: box, kind: box, at: [5, 1], script: box.lua }}
",
        open_map(8, 3)
    );
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("boss.lua", boss),
        ("box.lua", inbox),
    ]);
    run_twice(dir.path(), 4)
}

/// The trace line of tick `t` (lines are numbered from 1).
fn line(trace: &[Value], t: u64) -> &Value {
    let l = &trace[(t - 1) as usize];
    assert_eq!(l["tick"], t);
    l
}

fn agent<'a>(line: &'a Value, id: &str) -> Option<&'a Value> {
    line["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
}

fn label(line: &Value, id: &str) -> Option<String> {
    agent(line, id).and_then(|a| a["label"].as_str().map(String::from))
}

fn ids(line: &Value) -> Vec<String> {
    line["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

/// The events of `kind` in a line.
fn events<'a>(line: &'a Value, kind: &str) -> Vec<&'a Value> {
    line["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .collect()
}

/// Labels itself with what reached its inbox, as `FROM:MSG` joined by commas.
const LISTENER: &str = r#"
local M = {}
function M.decide(self, world)
  local got = {}
  for _, m in ipairs(self:inbox()) do got[#got + 1] = m.from .. ":" .. tostring(m.msg.say) end
  local again = self:inbox()
  assert(#again == #got, "the inbox holds the same letters however often it is read")
  for i, m in ipairs(again) do
    assert(m.from .. ":" .. tostring(m.msg.say) == got[i], "the same letters in the same order")
  end
  if #got > 0 then self:label(table.concat(got, ",")) end
  return move.stop()
end
return M
"#;

#[test]
fn a_broadcast_reaches_the_guards_in_its_radius_next_tick_and_a_send_reaches_a_far_one() {
    let scene = format!(
        "{}agents:
  - {{ id: boss, kind: boss, at: [2, 2], script: boss.lua }}
  - {{ id: near, kind: guard, at: [4, 2], script: listener.lua }}
  - {{ id: edge, kind: guard, at: [2, 5], script: listener.lua }}
  - {{ id: cook, kind: cook, at: [3, 2], script: listener.lua }}
  - {{ id: out, kind: guard, at: [6, 2], script: listener.lua }}
  - {{ id: far, kind: guard, at: [28, 5], script: listener.lua }}
",
        open_map(30, 6)
    );
    let boss = r#"
local M = {}
function M.decide(self, world)
  if world:tick() == 4 then
    world:broadcast({ say = "alarm" }, { radius = 3, kind = "guard" })
    world:send("far", { say = "come" })
  end
  return move.stop()
end
return M
"#;
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("boss.lua", boss),
        ("listener.lua", LISTENER),
    ]);
    let trace = run_twice(dir.path(), 8);
    // world:tick() is 4 while line 5 is decided: the events sit on line 5, the deliveries
    // show on line 6.
    let sent = line(&trace, 5);
    let to: Vec<&str> = events(sent, "message")
        .iter()
        .map(|e| {
            assert_eq!(e["from"], "boss");
            e["to"].as_str().unwrap()
        })
        .collect();
    assert_eq!(to, ["near", "edge", "far"]);
    for id in ["near", "edge", "far", "cook", "out"] {
        assert_eq!(label(sent, id), None, "{id} got it in the tick it was sent");
    }
    let next = line(&trace, 6);
    assert_eq!(label(next, "near").as_deref(), Some("boss:alarm"));
    assert_eq!(label(next, "edge").as_deref(), Some("boss:alarm"));
    assert_eq!(label(next, "far").as_deref(), Some("boss:come"));
    assert_eq!(label(next, "cook"), None, "another kind");
    assert_eq!(label(next, "out"), None, "outside the radius");
}

#[test]
fn three_drones_spawned_on_three_ticks_appear_the_tick_after_and_leave_after_remove() {
    let scene = format!(
        "{}agents:
  - {{ id: hive, kind: hive, at: [1, 1], script: hive.lua }}
  - {{ id: drone-1, kind: drone, at: [5, 1], script: drone.lua, speed: 2, radius: 0.2, params: {{ life: 9, tag: scene }} }}
",
        open_map(12, 6)
    );
    let hive = r#"
local M = {}
function M.decide(self, world)
  local t = world:tick()
  if t >= 2 and t <= 4 then
    local id = world:spawn({ kind = "drone", at = { 2, t }, params = { life = 3 } })
    self:label(id)
  end
  return move.stop()
end
return M
"#;
    let drone = r#"
local M = {}
function M.init(self) self.memory.age = 0 end
function M.decide(self, world)
  self.memory.age = self.memory.age + 1
  self:label(self.params.tag .. " " .. self.memory.age)
  if self.memory.age >= self.params.life then self:remove() end
  return move.to({ 10, 4 })
end
return M
"#;
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("hive.lua", hive),
        ("drone.lua", drone),
    ]);
    let trace = run_twice(dir.path(), 14);
    for (n, t) in [(2, 3), (3, 4), (4, 5)] {
        let id = format!("drone-{n}");
        let spawned = line(&trace, t);
        let ev = events(spawned, "spawn");
        assert_eq!(ev.len(), 1, "{spawned}");
        assert_eq!(ev[0]["agent"], id.as_str());
        assert_eq!(ev[0]["by"], "hive");
        assert!(agent(spawned, &id).is_none(), "{id} before its first tick");
        let first = line(&trace, t + 1);
        let a = agent(first, &id).unwrap_or_else(|| panic!("{id} on line {}", t + 1));
        // Made like drone-1: its params (tag) with life merged over them, and its init ran.
        assert_eq!(a["label"], "scene 1");
        // Three decisions, then it leaves: its last line is the one with its remove event.
        let last = line(&trace, t + 3);
        assert!(agent(last, &id).is_some());
        assert!(events(last, "remove")
            .iter()
            .any(|e| e["agent"] == id.as_str()));
        assert!(
            agent(line(&trace, t + 4), &id).is_none(),
            "{id} after remove"
        );
    }
    assert_eq!(
        ids(line(&trace, 6)),
        ["hive", "drone-1", "drone-2", "drone-3", "drone-4"]
    );
    assert_eq!(
        ids(line(&trace, 14)),
        ["hive"],
        "drone-1 left at its 9th tick"
    );
}

#[test]
fn spawned_ids_are_never_reused_and_max_agents_stops_a_spawning_loop() {
    let scene = format!(
        "{}budget: {{ max_agents: 6 }}
agents:
  - {{ id: hive, kind: hive, at: [1, 1], script: hive.lua }}
  - {{ id: drone-7, kind: drone, at: [5, 1], script: drone.lua }}
",
        open_map(12, 6)
    );
    let hive = r#"
local M = {}
function M.decide(self, world)
  local ok, err = pcall(function()
    for i = 1, 100 do world:spawn({ kind = "drone", at = { 3, 3 } }) end
  end)
  if not ok then self:label(tostring(err):find("budget.max_agents", 1, true) and "limit" or "other") end
  return move.stop()
end
return M
"#;
    let drone = r#"
local M = {}
function M.decide(self, world) self:remove() return move.stop() end
return M
"#;
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("hive.lua", hive),
        ("drone.lua", drone),
    ]);
    let trace = run_twice(dir.path(), 3);
    let first: Vec<String> = events(line(&trace, 1), "spawn")
        .iter()
        .map(|e| e["agent"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(first, ["drone-8", "drone-9", "drone-10", "drone-11"]);
    assert_eq!(label(line(&trace, 1), "hive").as_deref(), Some("limit"));
    // drone-7 and the four left at the end of tick 2; their numbers are not given again.
    let second: Vec<String> = events(line(&trace, 2), "spawn")
        .iter()
        .map(|e| e["agent"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(second[0], "drone-12");
}

#[test]
fn a_walker_waits_behind_a_door_until_a_script_opens_it() {
    let scene = "map:
  rows: |
    #######
    #..#..#
    #..D..#
    #..#..#
    #######
  legend: { D: door }
terrain:
  door: { blocked: true }
agents:
  - { id: walker, kind: walker, at: [1, 2], script: walker.lua, speed: 3 }
  - { id: keeper, kind: keeper, at: [2, 1], script: keeper.lua }
";
    let walker = r#"
local M = {}
function M.decide(self, world) return move.path_to({ 5, 2 }) end
return M
"#;
    let keeper = r#"
local M = {}
function M.decide(self, world)
  if world:tick() == 30 then world:set_tile({ 3, 2 }, "floor") end
  return move.stop()
end
return M
"#;
    let dir = scratch(&[
        ("scene.yaml", scene),
        ("walker.lua", walker),
        ("keeper.lua", keeper),
    ]);
    let trace = run_twice(dir.path(), 90);
    for t in 1..=31 {
        let (x, _) = crate::common::pos(line(&trace, t), "walker");
        assert!(
            x < 2.6,
            "the walker went through the shut door at tick {t}: x {x}"
        );
    }
    let opened = events(line(&trace, 31), "tile");
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0]["by"], "keeper");
    assert_eq!(opened[0]["at"], serde_json::json!([3, 2]));
    assert_eq!(opened[0]["terrain"], "floor");
    let (x, y) = crate::common::pos(line(&trace, 90), "walker");
    assert!(
        (x - 5.0).abs() < 0.2 && (y - 2.0).abs() < 0.2,
        "at {x}, {y}"
    );
}

#[test]
fn a_soft_noise_is_heard_in_the_open_not_through_a_wall_and_a_loud_one_is() {
    // `open` stands 4 tiles from the thief in the open; `behind` 4 tiles away across a wall,
    // about 10 tiles walking round it.
    let scene = "map:
  rows: |
    ...........
    .....#.....
    .....#.....
    .....#.....
    .....#.....
    .....#.....
agents:
  - { id: thief, kind: thief, at: [3, 5], script: thief.lua }
  - { id: open, kind: ear, at: [3, 1], script: ear.lua }
  - { id: behind, kind: ear, at: [7, 5], script: ear.lua }
";
    let thief = r#"
local M = {}
function M.decide(self, world)
  if world:tick() == 2 then world:noise(4.5, { kind = "soft" }) end
  if world:tick() == 5 then world:noise(14, { kind = "loud" }) end
  return move.stop()
end
return M
"#;
    let ear = r#"
local M = {}
function M.decide(self, world)
  local heard = self:heard()
  if #heard > 0 then
    local h = heard[1]
    self:label(h.kind .. " " .. h.from .. " " .. string.format("%.2f", h.distance))
  else
    self:label(nil)
  end
  return move.stop()
end
return M
"#;
    let dir = scratch(&[
        ("scene.yaml", scene),
        ("thief.lua", thief),
        ("ear.lua", ear),
    ]);
    let trace = run_twice(dir.path(), 8);
    let made = events(line(&trace, 3), "noise");
    assert_eq!(made.len(), 1);
    assert_eq!(made[0]["from"], "thief");
    assert_eq!(made[0]["loudness"], 4.5);
    assert_eq!(
        label(line(&trace, 3), "open"),
        None,
        "heard in the tick it was made"
    );
    assert_eq!(
        label(line(&trace, 4), "open").as_deref(),
        Some("soft thief 4.00")
    );
    assert_eq!(
        label(line(&trace, 4), "behind"),
        None,
        "heard through the wall"
    );
    assert_eq!(
        label(line(&trace, 5), "open"),
        None,
        "heard() holds this tick's only"
    );
    let loud = label(line(&trace, 7), "behind").expect("the loud noise walks round the wall");
    let d: f64 = loud.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(
        loud.starts_with("loud thief") && (9.0..13.0).contains(&d),
        "{loud}"
    );
}

#[test]
fn touching_lists_the_agents_whose_bodies_overlap() {
    let scene = format!(
        "{}agents:
  - {{ id: a, kind: a, at: [2, 2], radius: 0.6, script: touch.lua }}
  - {{ id: b, kind: b, at: [3, 2], radius: 0.5, script: touch.lua }}
  - {{ id: c, kind: c, at: [5, 2], radius: 0.3, script: touch.lua }}
",
        open_map(8, 5)
    );
    let touch = r#"
local M = {}
function M.decide(self, world)
  local ids = {}
  for _, v in ipairs(self:touching()) do ids[#ids + 1] = v.id end
  self:label(#ids > 0 and table.concat(ids, ",") or "none")
  return move.stop()
end
return M
"#;
    let dir = scratch(&[("scene.yaml", &scene), ("touch.lua", touch)]);
    let trace = run_twice(dir.path(), 2);
    let l = line(&trace, 2);
    assert_eq!(label(l, "a").as_deref(), Some("b"));
    assert_eq!(label(l, "b").as_deref(), Some("a"));
    assert_eq!(label(l, "c").as_deref(), Some("none"));
}

/// Runs `call` in a script's decide at tick 1 and returns the agent's error on line 2, and
/// that line's events.
fn bad_call(call: &str) -> (String, Vec<Value>) {
    let scene = "map:
  rows: |
    ......
    ..#...
    ......
agents:
  - { id: hive, kind: hive, at: [0, 0], script: bad.lua }
  - { id: drone-1, kind: drone, at: [5, 2] }
";
    let script = format!(
        r#"
local M = {{}}
function M.decide(self, world)
  if world:tick() == 1 then
    world:send("drone-1", {{ say = "before" }})
    {call}
  end
  return move.stop()
end
return M
"#
    );
    let dir = scratch(&[("scene.yaml", scene), ("bad.lua", &script)]);
    let path = dir.path().join("scene.yaml");
    let out = agentbox(&[
        "headless",
        path.to_str().unwrap(),
        "--ticks",
        "3",
        "--trace",
        "-",
        "--allow-errors",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let trace: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let l = line(&trace, 2);
    let error = agent(l, "hive").unwrap()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error for {call}: {l}"))
        .to_string();
    let events = l["events"].as_array().unwrap().clone();
    assert_eq!(
        ids(line(&trace, 3)),
        ["hive", "drone-1"],
        "half-applied: {call}"
    );
    (error, events)
}

#[test]
fn bad_calls_are_located_errors_and_nothing_is_half_applied() {
    for (call, says) in [
        (
            r#"world:send("drone-9", 1)"#,
            "no agent has the id \"drone-9\"",
        ),
        (
            r#"world:spawn({ kind = "drome", at = { 1, 1 } })"#,
            "did you mean \"drone\"",
        ),
        (
            r#"world:spawn({ kind = "drone", at = { 2, 1 } })"#,
            "blocked",
        ),
        (
            r#"world:spawn({ kind = "drone", at = { 40, 1 } })"#,
            "off the map",
        ),
        (
            r#"world:set_tile({ 1, 1 }, "lava")"#,
            "unknown terrain \"lava\"",
        ),
        (r#"world:set_tile({ 9, 9 }, "wall")"#, "outside the map"),
        (r#"world:send("drone-1", { f = print })"#, "not a function"),
        (
            r#"world:send("drone-1", string.rep("x", 2000))"#,
            "1024 bytes",
        ),
        (r#"local t = {} t.me = t world:send("drone-1", t)"#, "cycle"),
        (
            r#"world:broadcast(1, { radius = 3, kinds = "x" })"#,
            "did you mean \"kind\"",
        ),
    ] {
        let (error, events) = bad_call(call);
        assert!(
            error.contains("bad.lua:6: "),
            "not located at the call: {error}"
        );
        assert!(error.contains(says), "{call}: {error}");
        assert!(
            events
                .iter()
                .all(|e| e["type"] != "message" && e["type"] != "spawn"),
            "{call}: a failed decision's effects were applied: {events:?}"
        );
    }
}

/// A hive that spawns a drone on ticks 2, 4 and 6 and drones that leave after 3 ticks: the
/// window's history, rewound and branched across the spawns and removals.
const HIVE_SCENE: &str = "map:
  rows: |
    ..........
    ..........
    ..........
agents:
  - { id: hive, kind: hive, at: [1, 1], script: hive.lua }
  - { id: drone-1, kind: drone, at: [5, 1], script: drone.lua, speed: 2, params: { life: 5 } }
";
const HIVE: &str = r#"
local M = {}
local made = 0
function M.decide(self, world)
  if world:tick() % 2 == 0 and made < 3 then
    made = made + 1
    world:spawn({ kind = "drone", at = { 2, made - 1 }, params = { life = 3 } })
  end
  return move.stop()
end
return M
"#;
const DRONE: &str = r#"
local M = {}
local steps = 0
function M.decide(self, world)
  steps = steps + 1
  self.memory.age = (self.memory.age or 0) + 1
  if self.memory.age >= self.params.life then self:remove() end
  return move.to({ 9, 2 })
end
return M
"#;

#[test]
fn the_history_rewinds_and_branches_across_spawns_and_removals() {
    use agentbox_core::sim::trace;
    use agentbox_session::history::{self, History};
    let dir = scratch(&[
        ("scene.yaml", HIVE_SCENE),
        ("hive.lua", HIVE),
        ("drone.lua", DRONE),
    ]);
    let mut h = History::open(&dir.path().join("scene.yaml"), None).unwrap();
    h.keep_frames(true);
    let mut lines = Vec::new();
    for _ in 0..16 {
        let report = h.tick();
        lines.push(trace::line(h.session().world(), &report.events));
    }
    let ids_at = |t: usize| ids(&serde_json::from_str(&lines[t - 1]).unwrap());
    assert!(ids_at(4).contains(&"drone-2".to_string()), "{}", lines[3]);
    assert_eq!(ids_at(16), ["hive"], "every drone left");
    // Every kept frame shows what a replay from tick 0 shows.
    let mut r = history::Replayer::new(h.recording()).unwrap();
    for to in 1..=16 {
        r.advance_to(to, |_, _| {}).unwrap();
        let frame = h.frame(to).unwrap_or_else(|| panic!("no frame at {to}"));
        assert_eq!(
            crate::history::shown_text(&frame),
            crate::history::shown_text(r.session()),
            "tick {to}"
        );
    }
    // Branch back to before a spawn and after a removal, play on: the same bytes.
    for to in [9u64, 3] {
        h.branch(to).unwrap();
        let mut again = lines[..to as usize].to_vec();
        for _ in to..16 {
            let report = h.tick();
            again.push(trace::line(h.session().world(), &report.events));
        }
        assert_eq!(again, lines, "played on from {to}");
    }
}

#[test]
fn past_64_messages_a_tick_the_rest_are_dropped_with_one_event() {
    let boss = r#"
return { decide = function(self, world)
  if world:tick() == 1 then
    for i = 1, 70 do world:send("box", { n = i }) end
  end
  return move.stop()
end }
"#;
    let inbox = r#"
return { decide = function(self, world)
  local got = self:inbox()
  if #got > 0 then self:label(#got .. " first " .. got[1].msg.n .. " last " .. got[#got].msg.n) end
  return move.stop()
end }
"#;
    let trace = boss_and_box(boss, inbox);
    let dropped: Vec<&Value> = trace
        .iter()
        .flat_map(|l| events(l, "messages_dropped"))
        .collect();
    assert_eq!(
        dropped.len(),
        1,
        "one event for the dropped ones: {dropped:?}"
    );
    assert_eq!(dropped[0]["agent"], "box");
    assert_eq!(dropped[0]["from"], "boss");
    assert_eq!(dropped[0]["count"], 6);
    let delivered = trace
        .iter()
        .flat_map(|l| events(l, "message"))
        .filter(|e| e["to"] == "box")
        .count();
    assert_eq!(delivered, 64, "one message event per delivery");
    let labelled: Vec<String> = trace.iter().filter_map(|l| label(l, "box")).collect();
    assert_eq!(
        labelled.first().map(String::as_str),
        Some("64 first 1 last 64"),
        "the first 64 in call order are delivered"
    );
}

#[test]
fn a_tile_set_under_an_agent_pushes_it_to_the_nearest_free_tile() {
    let scene = format!(
        "{}agents:
  - {{ id: mason, kind: mason, at: [1, 1], script: mason.lua }}
  - {{ id: sitter, kind: sitter, at: [4, 1], script: sit.lua }}
",
        open_map(8, 3)
    );
    let mason = r##"
return { decide = function(self, world)
  if world:tick() == 2 then world:set_tile({4, 1}, "#") end
  return move.stop()
end }
"##;
    let sit = "return { decide = function(self, world) return move.stop() end }\n";
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("mason.lua", mason),
        ("sit.lua", sit),
    ]);
    let trace = run_twice(dir.path(), 6);
    let tiles: Vec<&Value> = trace.iter().flat_map(|l| events(l, "tile")).collect();
    assert_eq!(tiles.len(), 1, "{tiles:?}");
    assert_eq!(tiles[0]["at"], serde_json::json!([4, 1]));
    let pushed: Vec<&Value> = trace.iter().flat_map(|l| events(l, "pushed")).collect();
    assert_eq!(pushed.len(), 1, "{pushed:?}");
    assert_eq!(pushed[0]["agent"], "sitter");
    let to = pushed[0]["to"].as_array().unwrap();
    let (x, y) = (to[0].as_i64().unwrap(), to[1].as_i64().unwrap());
    assert_ne!((x, y), (4, 1), "off the blocked tile");
    assert!(
        (x - 4).abs() <= 1 && (y - 1).abs() <= 1,
        "a neighbour of it: {to:?}"
    );
    let last = trace.last().unwrap();
    let sitter = agent(last, "sitter").unwrap();
    let at = (sitter["x"].as_f64().unwrap(), sitter["y"].as_f64().unwrap());
    assert_eq!(
        at,
        (x as f64, y as f64),
        "it stands on the tile it was pushed to"
    );
}

#[test]
fn a_spawn_is_made_like_the_first_agent_or_group_of_its_kind_in_file_order() {
    let hive = r#"
local M = {}
function M.decide(self, world)
  if world:tick() == 0 then world:spawn({ kind = "drone", at = { 6, 4 } }) end
  return move.stop()
end
return M
"#;
    let drone = r#"
local M = {}
function M.decide(self, world)
  self:label(self.params.tag)
  return move.stop()
end
return M
"#;
    let agents = "agents:
  - { id: hive, kind: hive, at: [1, 1], script: hive.lua }
  - { id: lead, kind: drone, at: [2, 1], script: drone.lua, params: { tag: agent } }
";
    let group = "spawn:
  - { count: 2, kind: drone, tiles: [[3, 3], [4, 3]], script: drone.lua, params: { tag: group } }
";
    for (first, second, made_like) in [(group, agents, "group"), (agents, group, "agent")] {
        let scene = format!("{}{first}{second}", open_map(10, 6));
        let dir = scratch(&[
            ("scene.yaml", &scene),
            ("hive.lua", hive),
            ("drone.lua", drone),
        ]);
        let trace = run_twice(dir.path(), 3);
        let spawned = events(line(&trace, 1), "spawn");
        assert_eq!(spawned.len(), 1, "{scene}");
        let id = spawned[0]["agent"].as_str().unwrap();
        assert_eq!(id, "drone-3", "after the group's drone-1 and drone-2");
        assert_eq!(
            label(line(&trace, 2), id).as_deref(),
            Some(made_like),
            "with {:?} first in the file",
            first.lines().next().unwrap()
        );
    }
}

/// `self:inbox()` is read-only, empty or not: an assignment, `rawset` and `table.insert` are
/// each an error at the script's line that says so, and the letters are still there after.
#[test]
fn the_inbox_is_read_only_and_a_write_says_so_at_its_line() {
    let boss = r#"
return { decide = function(self, world)
  if world:tick() == 2 then world:send("box", { n = 7 }) end
  return move.stop()
end }
"#;
    let inbox = r#"
return { decide = function(self, world)
  local got = self:inbox()
  local _, set = pcall(function() got[1] = "x" end)
  local _, raw = pcall(rawset, got, 1, "x")
  local _, add = pcall(table.insert, got, "x")
  print(#got .. " " .. (got[1] and got[1].msg.n or "-"))
  print(tostring(set))
  print(tostring(raw))
  print(tostring(add))
  return move.stop()
end }
"#;
    let trace = boss_and_box(boss, inbox);
    for (t, letters) in [(2, "0 -"), (4, "1 7")] {
        let printed: Vec<String> = events(line(&trace, t), "print")
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(printed.len(), 4, "tick {t}: {printed:?}");
        assert!(printed[0].ends_with(letters), "tick {t}: {printed:?}");
        let says = "cannot change the inbox (self:inbox()): it is read-only";
        assert!(
            printed[1].contains(&format!("box.lua:4: {says}")),
            "tick {t}: {printed:?}"
        );
        assert!(printed[2].contains(says), "tick {t}: {printed:?}");
        assert!(printed[3].contains("read-only"), "tick {t}: {printed:?}");
    }
}
