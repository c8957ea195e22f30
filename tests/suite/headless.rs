//! The walking skeleton end to end through the built binary, headless: the shipped scenes
//! behave, traces are reproducible, script errors are reported and contained.

use crate::common;
use agentbox_session::session::Session;
use common::*;

/// Free tiles of a scene's map, read straight from its YAML so the test does not trust the
/// loader it is testing.
fn blocked_tiles(scene: &str) -> Vec<Vec<bool>> {
    let text = std::fs::read_to_string(root().join(scene)).unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    doc["map"]["rows"]
        .as_str()
        .unwrap()
        .lines()
        .map(|row| row.chars().map(|c| c == '#' || c == '~').collect())
        .collect()
}

#[test]
fn the_chaser_closes_in_and_catches_the_evader() {
    let lines = trace("scenes/chase.yaml", 600, &[]);
    let start = distance(pos(&lines[0], "hunter"), pos(&lines[0], "evader"));
    let closest = lines
        .iter()
        .map(|l| distance(pos(l, "hunter"), pos(l, "evader")))
        .fold(f64::INFINITY, f64::min);
    assert!(start > 10.0, "they start far apart ({start})");
    assert!(
        closest < 0.6,
        "the hunter gets within touching distance ({closest})"
    );
    let contact = lines.iter().any(|l| {
        l["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "contact")
    });
    assert!(contact, "a contact event is reported");
}

#[test]
fn the_maze_runner_reaches_the_goal_without_touching_a_wall_and_the_straight_chaser_does_not() {
    let walls = blocked_tiles("scenes/maze.yaml");
    let lines = trace("scenes/maze.yaml", 450, &[]);
    for line in &lines {
        for id in ["runner", "straight"] {
            let (x, y) = pos(line, id);
            // Body radius 0.3 (less a hair for the trace's rounding): every tile the body
            // overlaps must be free.
            let r = 0.2999;
            for (cx, cy) in [(x - r, y), (x + r, y), (x, y - r), (x, y + r)] {
                let (tx, ty) = (cx.round() as usize, cy.round() as usize);
                assert!(
                    !walls[ty][tx],
                    "{id} touches the wall at {tx},{ty} on tick {}",
                    line["tick"]
                );
            }
        }
    }
    let last = lines.last().unwrap();
    assert!(
        distance(pos(last, "runner"), (19.0, 13.0)) < 1e-6,
        "runner at the goal"
    );
    assert!(
        distance(pos(last, "straight"), (19.0, 13.0)) > 5.0,
        "the straight chaser is stuck behind a wall"
    );
}

#[test]
fn the_same_seed_gives_a_byte_identical_trace_and_another_seed_does_not() {
    let run = |seed: &str| {
        let out = agentbox(&[
            "headless",
            "scenes/chase.yaml",
            "--ticks",
            "300",
            "--seed",
            seed,
            "--trace",
            "-",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        out.stdout
    };
    let a = run("3");
    assert_eq!(a, run("3"));
    assert_ne!(
        a,
        run("4"),
        "the evader's random wandering depends on the seed"
    );
}

#[test]
fn the_trace_is_written_to_a_file_one_line_per_tick() {
    let dir = scratch(&[]);
    let file = dir.path().join("t.jsonl");
    let out = agentbox(&[
        "headless",
        "scenes/maze.yaml",
        "--ticks",
        "25",
        "--trace",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(file).unwrap();
    let ticks: Vec<u64> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["tick"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(ticks, (1..=25).collect::<Vec<_>>());
}

const TWO_AGENTS: &str = "map:\n  rows: |\n    ..........\n    ..........\nagents:\n  - id: bad\n    at: [0, 0]\n    script: bad.lua\n  - id: good\n    at: [0, 1]\n    script: good.lua\n";
const GOOD: &str = "local M = {}\nfunction M.decide(self, world)\n  return move.to({x = 9, y = 1})\nend\nreturn M\n";

#[test]
fn a_runtime_error_stops_only_its_agent_and_is_reported_with_file_and_line() {
    let bad = "local M = {}\nfunction M.decide(self, world)\n  local t = nil\n  return t.field\nend\nreturn M\n";
    let dir = scratch(&[("s.yaml", TWO_AGENTS), ("bad.lua", bad), ("good.lua", GOOD)]);
    let out = agentbox_in(
        dir.path(),
        &[
            "headless",
            "s.yaml",
            "--ticks",
            "60",
            "--trace",
            "-",
            "--allow-errors",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("bad.lua:4:"), "stderr names the line: {err}");
    assert_eq!(
        err.matches("bad.lua:4:").count(),
        1,
        "reported once, not every tick: {err}"
    );
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    let agents = last["agents"].as_array().unwrap();
    let bad_agent = agents.iter().find(|a| a["id"] == "bad").unwrap();
    assert!(
        bad_agent["error"]
            .as_str()
            .unwrap()
            .starts_with("bad.lua:4:"),
        "{bad_agent}"
    );
    assert_eq!(
        (bad_agent["x"].as_f64(), bad_agent["y"].as_f64()),
        (Some(0.0), Some(0.0))
    );
    let good_agent = agents.iter().find(|a| a["id"] == "good").unwrap();
    assert!(
        good_agent["x"].as_f64().unwrap() > 7.0,
        "the good agent moved on: {good_agent}"
    );
    assert!(good_agent.get("error").is_none());
}

#[test]
fn a_script_that_does_not_compile_is_reported_and_the_scene_still_runs() {
    let broken =
        "local M = {}\nfunction M.decide(self, world)\n  return move.stop(\nend\nreturn M\n";
    let dir = scratch(&[
        ("s.yaml", TWO_AGENTS),
        ("bad.lua", broken),
        ("good.lua", GOOD),
    ]);
    let check = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("bad.lua:4: error:"),
        "{}",
        stderr(&check)
    );
    let run = agentbox_in(
        dir.path(),
        &[
            "headless",
            "s.yaml",
            "--ticks",
            "30",
            "--trace",
            "-",
            "--allow-errors",
        ],
    );
    assert!(run.status.success());
    assert!(stderr(&run).contains("bad.lua:4:"), "{}", stderr(&run));
    let last: serde_json::Value =
        serde_json::from_str(stdout(&run).lines().last().unwrap()).unwrap();
    assert!(pos(&last, "good").0 > 3.0);
}

#[test]
fn scripts_see_memory_params_and_the_world_api() {
    let scene = "seed: 5\nmap:\n  rows: |\n    .....\n    .....\nagents:\n  - id: a\n    kind: scout\n    at: [0, 0]\n    script: a.lua\n    params: { buddy: b, step: 2 }\n  - id: b\n    kind: flag\n    at: [4, 1]\n";
    let script = r#"
local M = {}
function M.init(self) self.memory.n = 0 end
function M.decide(self, world)
  self.memory.n = self.memory.n + self.params.step
  local b = world:agent(self.params.buddy)
  assert(b.kind == "flag" and b.pos.x == 4 and b.pos.y == 1, "agent view")
  assert(#world:agents{kind = "flag"} == 1 and #world:agents() == 2, "agents filter")
  assert(world:nearest(self).id == "b", "nearest")
  assert(world:terrain(0, 0) == "floor" and world:blocked(9, 9), "terrain")
  assert(world:tick() == self.memory.n / 2 - 1, "tick " .. world:tick())
  assert(nav.los(self.pos, b.pos) and #nav.path({x = 0, y = 0}, b.pos) == 5, "nav")
  local r = math.random(1, 6)
  assert(r >= 1 and r <= 6)
  if self.memory.n >= 20 then error("memory reached " .. self.memory.n) end
  return move.chase(b)
end
return M
"#;
    let dir = scratch(&[("s.yaml", scene), ("a.lua", script)]);
    let out = agentbox_in(
        dir.path(),
        &["headless", "s.yaml", "--ticks", "12", "--trace", "-"],
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        !lines[8].contains("error"),
        "no error before tick 10: {}",
        lines[8]
    );
    assert!(
        lines[9].contains("a.lua:15: error: memory reached 20"),
        "{}",
        lines[9]
    );
}

/// `world:nearest` gives the distance with the view (on its fast path, `self` and its own
/// kind, and on the general one), and a view or `self` fills in `pos` on first read only.
#[test]
fn nearest_gives_the_distance_and_pos_is_filled_in_on_first_read() {
    let scene = "map:\n  rows: |\n    ........\n    ........\n    ........\nagents:\n  - { id: a, kind: scout, at: [0, 0], script: a.lua }\n  - { id: b, kind: flag, at: [3, 2], script: still.lua }\n  - { id: c, kind: beacon, at: [7, 0], script: still.lua }\n  - { id: d, kind: scout, at: [6, 2], script: still.lua }\n";
    let a = r##"
local M = {}
local function distance(u, v)
  local dx, dy = v.pos.x - u.pos.x, v.pos.y - u.pos.y
  return math.sqrt(dx * dx + dy * dy)
end
function M.decide(self, world)
  local tick = world:tick()
  if tick == 0 then
    assert(rawget(self, "pos") == nil, "self.pos made before it was read")
  end
  -- The fast path: its own self and its own kind.
  local v, d = world:nearest(self, self.kind)
  assert(v.id == "d", "nearest scout " .. v.id)
  if tick == 0 then
    assert(rawget(v, "pos") == nil, "view pos made before it was read")
    -- From a view whose pos nobody has read.
    local w, e = world:nearest(v, "flag")
    assert(w.id == "b" and e == distance(v, w), "nearest flag of d")
  end
  assert(d == distance(self, v), "distance " .. d .. " at tick " .. tick)
  -- `self` keeps its pos proxy raw; a view holds no raw field, ever (so no script can write
  -- one), and hands out the same proxy every time.
  assert(rawget(self, "pos") == self.pos, "self's pos kept raw")
  assert(rawget(v, "pos") == nil and v.pos == v.pos, "a view's pos not raw, and the same proxy")
  -- The general path: a kind of its own, a point.
  local f, g = world:nearest(self, "flag")
  assert(f.id == "b" and g == distance(self, f), "nearest flag")
  local p, q = world:nearest({x = 7, y = 1})
  assert(p.id == "c" and q == 1, "nearest to a point")
  assert(select("#", world:nearest(self, "nobody")) == 1, "one nil when none")
  if tick == 4 then error("checked " .. tick) end
  return move.chase(v)
end
return M
"##;
    let still = r##"
local M = {}
function M.decide(self, world)
  -- The fast path finding nobody (b is the only flag, c the only beacon) or a (for d).
  local n = select("#", world:nearest(self, self.kind))
  assert(n == (self.kind == "scout" and 2 or 1), self.id .. " got " .. n .. " values")
  return move.stop()
end
return M
"##;
    let dir = scratch(&[("s.yaml", scene), ("a.lua", a), ("still.lua", still)]);
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    for _ in 0..4 {
        session.tick();
        assert_eq!(session.world().agent("a").unwrap().error, None);
    }
    session.tick();
    let error = session.world().agent("a").unwrap().error.clone();
    assert!(
        error
            .as_ref()
            .map(|e| e.as_str())
            .is_some_and(|e| e.contains("a.lua:32: error: checked 4")),
        "{error:?}"
    );
    for id in ["b", "c", "d"] {
        assert_eq!(session.world().agent(id).unwrap().error, None, "{id}");
    }
}

/// An argument mlua cannot convert is reported at the script's line with the function's
/// name, like Lua's own errors; and the distance `world:nearest` adds is ignored by a `move.*`
/// that takes one target (it is an error where an options table goes).
#[test]
fn a_bad_argument_names_the_function_and_the_line() {
    let scene = "map:\n  rows: |\n    ........\nagents:\n  - { id: a, at: [0, 0], script: a.lua }\n  - { id: b, at: [0, 0], script: b.lua }\n  - { id: c, at: [7, 0] }\n  - { id: d, at: [0, 0], script: d.lua }\n";
    let a = "local M = {}\nfunction M.decide(self, world)\n  return move.chase(world:nearest(self))\nend\nreturn M\n";
    let b = "local M = {}\nfunction M.decide(self, world)\n  if world:tick() < 2 then return move.stop() end\n  return move.path_to(world:nearest(self))\nend\nreturn M\n";
    // Caught and raised again: the line of the `error` call, and no function named (it
    // would be `error`'s).
    let d = "local M = {}\nfunction M.decide(self, world)\n  local ok, e = pcall(move.path_to, world:nearest(self))\n  error(e, 0)\nend\nreturn M\n";
    let dir = scratch(&[("s.yaml", scene), ("a.lua", a), ("b.lua", b), ("d.lua", d)]);
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    for _ in 0..3 {
        session.tick();
    }
    let world = session.world();
    assert_eq!(world.agent("a").unwrap().error, None);
    assert_eq!(world.agent("a").unwrap().action.name(), "chase");
    let error = world.agent("b").unwrap().error.clone().unwrap();
    assert_eq!(
        error.kind,
        agentbox_core::world::ErrorKind::BadArgument,
        "{error}"
    );
    assert!(
        error.message.ends_with(
            "b.lua:4: error: bad argument #2 to 'path_to': error converting Lua number to table"
        ),
        "{error}"
    );
    let error = world.agent("d").unwrap().error.clone().unwrap();
    assert!(
        error
            .message
            .ends_with("d.lua:4: error: bad argument #2: error converting Lua number to table"),
        "{error}"
    );
}

/// Every engine field of `self` and of a view kept across ticks is current every tick,
/// whether the script read it before or reads it for the first time: checked against the
/// positions (which the trace shows) and the actions the scripts returned.
#[test]
fn self_and_kept_views_show_every_field_current_every_tick() {
    let scene = "seed: 3\ntick_rate: 10\nmap:\n  rows: |\n    ....................\n    ....................\n    ....................\nagents:\n  - id: a\n    kind: scout\n    at: [0, 0]\n    speed: 2\n    sense: 4\n    script: a.lua\n  - id: b\n    kind: runner\n    at: [0, 2]\n    speed: 3\n    script: b.lua\n";
    let a = r#"
local M = {}
local function near(u, v) return math.abs(u - v) < 1e-9 end
local function round(v) return math.floor(v + 0.5) end
local function check(who, t, prev, action)
  assert(t.tile.x == round(t.pos.x) and t.tile.y == round(t.pos.y),
    who .. " tile " .. t.tile.x .. "," .. t.tile.y .. " at " .. t.pos.x)
  if prev then
    assert(near(t.vel.x, (t.pos.x - prev.x) * 10) and near(t.vel.y, (t.pos.y - prev.y) * 10),
      who .. " vel " .. t.vel.x)
    if t.pos.x ~= prev.x or t.pos.y ~= prev.y then
      assert(near(t.heading, math.atan(t.pos.y - prev.y, t.pos.x - prev.x)),
        who .. " heading " .. t.heading)
    end
  end
  assert(t.action == action, who .. " action " .. tostring(t.action) .. ", not " .. action)
end
function M.decide(self, world)
  local m, tick = self.memory, world:tick()
  m.b = m.b or world:agent("b")
  -- Read for the first time late (tick 6) or from the start: both must be current.
  if tick == 0 or tick >= 6 then
    check("self", self, m.prev, m.action or "stop")
    assert(self.speed == 2 and self.sense == 4, "self scalars")
    check("b", m.b, m.bprev, tick < 8 and (tick == 0 and "stop" or "to") or "chase")
  end
  assert(getmetatable(self) == "agent (locked)", "locked")
  assert(not pcall(setmetatable, self, {}), "setmetatable refused")
  m.prev = {x = self.pos.x, y = self.pos.y}
  m.bprev = {x = m.b.pos.x, y = m.b.pos.y}
  if tick == 14 then error("checked " .. tick) end
  m.action = tick < 4 and "to" or "chase"
  if tick < 4 then return move.to({x = 19, y = 0}) end
  return move.chase(m.b)
end
return M
"#;
    let b = r#"
local M = {}
function M.decide(self, world)
  if world:tick() < 7 then return move.to({x = 19, y = 2}) end
  return move.chase(world:agent("a"))
end
return M
"#;
    let dir = scratch(&[("s.yaml", scene), ("a.lua", a), ("b.lua", b)]);
    let out = agentbox_in(
        dir.path(),
        &["headless", "s.yaml", "--ticks", "16", "--trace", "-"],
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines[..14] {
        assert!(!line.contains("error"), "{line}");
    }
    assert!(
        lines[14].contains("a.lua:31: error: checked 14"),
        "{}",
        lines[14]
    );
}

/// While an agent decides, its own `pos` is lent to it (read without a call); the same proxy
/// kept by another agent, or read through a view, still shows that agent's own position,
/// during and after the other's decision, also after a decision that raised (agents sharing
/// one module keep each other's).
#[test]
fn a_kept_self_pos_shows_its_own_agent_to_others() {
    let scene = "tick_rate: 10\nmap:\n  rows: |\n    ....................\n    ....................\n    ....................\nagents:\n  - { id: a, kind: scout, at: [0, 0], speed: 2, script: s.lua }\n  - { id: b, kind: scout, at: [12, 2], speed: 3, script: s.lua }\n";
    let s = r#"
local M = {}
local kept = {}
local function round(v) return math.floor(v + 0.5) end
function M.decide(self, world)
  local tick, pos = world:tick(), self.pos
  local x, y = pos.x, pos.y
  kept[self.id] = pos
  for _, id in ipairs({ "a", "b" }) do
    local p, view = kept[id], world:agent(id)
    if p and id ~= self.id then
      assert(p == view.pos, "the same proxy")
      assert(round(p.x) == view.tile.x and round(p.y) == view.tile.y,
        self.id .. " reads " .. id .. " at " .. p.x .. "," .. p.y .. " on tile " .. view.tile.x)
      assert(p.x ~= x, self.id .. " read its own x through " .. id .. "'s pos")
    end
  end
  assert(round(x) == self.tile.x and round(y) == self.tile.y, "own pos")
  -- Raised while its pos is lent: given back all the same (b reads it on the next ticks).
  if tick == 3 and self.id == "a" then error("raised " .. tick) end
  if tick == 6 then error("checked " .. tick) end
  return move.to({ x = self.id == "a" and 19 or 0, y = 1 })
end
return M
"#;
    let dir = scratch(&[("s.yaml", scene), ("s.lua", s)]);
    let out = agentbox_in(
        dir.path(),
        &["headless", "s.yaml", "--ticks", "7", "--trace", "-"],
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    for (tick, line) in lines[..6].iter().enumerate() {
        let errors = line.matches("\"error\"").count();
        match tick {
            3 => assert!(
                errors == 1 && line.contains("s.lua:20: error: raised 3"),
                "{line}"
            ),
            _ => assert_eq!(errors, 0, "{line}"),
        }
    }
    assert_eq!(
        lines[6].matches("s.lua:21: error: checked 6").count(),
        2,
        "{}",
        lines[6]
    );
}

/// Output piped into a reader that has stopped (`agentbox schema | head -c 10`) ends the run
/// quietly: no panic message on stderr, and status 0 (as ripgrep does).
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::process::{Command, Stdio};
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_agentbox"))
        .current_dir(root())
        .arg("schema")
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(err.is_empty(), "{err}");
    assert!(out.status.success(), "{:?}", out.status);
}

/// `agentbox headless scenes/chase.yaml --ticks 2000 --trace - | head -1`: the reader takes one
/// line and goes; the trace stops at the broken pipe, quietly and with status 0.
#[test]
fn a_trace_into_head_ends_quietly_with_status_zero() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentbox"))
        .current_dir(root())
        .args([
            "headless",
            "scenes/chase.yaml",
            "--ticks",
            "2000",
            "--trace",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap());
    lines.read_line(&mut first).unwrap();
    assert!(first.starts_with('{'), "{first}");
    drop(lines);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(err.is_empty(), "{err}");
    assert!(out.status.success(), "{:?}", out.status);
}

/// `self.memory` is made the first time a script reads it (so a crowd that never uses it keeps
/// its `self` tables small) and from then on it is an ordinary table kept across ticks.
#[test]
fn memory_is_made_on_first_use_and_kept_from_then_on() {
    let scene = "map:\n  rows: |\n    ......\nagents:\n  - { id: idle, at: [0, 0], script: idle.lua }\n  - { id: late, at: [5, 0], script: late.lua }\n";
    let idle = "return { decide = function(self) return move.stop() end }\n";
    let late = r#"
local M = {}
function M.decide(self, world)
  if world:tick() < 3 then
    assert(rawget(self, "memory") == nil, "memory made before it was read")
  else
    self.memory.n = (self.memory.n or 0) + 1
    assert(rawget(self, "memory") == self.memory, "memory is a plain field once read")
    assert(self.memory.n == world:tick() - 2, "memory kept: " .. self.memory.n)
  end
  return move.stop()
end
return M
"#;
    let dir = scratch(&[("s.yaml", scene), ("idle.lua", idle), ("late.lua", late)]);
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    for _ in 0..6 {
        session.tick();
    }
    for id in ["idle", "late"] {
        let agent = session.world().agent(id).unwrap();
        assert_eq!(agent.error, None, "{id}");
    }
    assert_eq!(session.memory_text("idle").as_deref(), Some("{}"));
    assert_eq!(
        session.memory_text("late").as_deref(),
        Some("{\n  n = 3\n}")
    );
    // A view of another agent has no memory.
    let peek = "return { decide = function(self, world) assert(world:agent('late').memory == nil, 'a view shows memory') return move.stop() end }\n";
    std::fs::write(dir.path().join("idle.lua"), peek).unwrap();
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    session.tick();
    session.tick();
    assert_eq!(session.world().agent("idle").unwrap().error, None);
}

#[test]
fn a_decide_replaced_while_deciding_runs_from_the_next_round_for_every_agent() {
    let scene = "map:\n  rows: |\n    ......\nagents:\n  - { id: a, at: [0, 0], script: swap.lua }\n  - { id: b, at: [2, 0], script: swap.lua }\n  - { id: c, at: [4, 0], script: swap.lua }\n";
    let swap = r#"
local M = {}
local function second(self)
  self.memory.ran = self.memory.ran .. "b"
  return move.stop()
end
function M.decide(self, world)
  self.memory.ran = (self.memory.ran or "") .. "a"
  if world:tick() == 2 then
    M.decide = second
  end
  return move.stop()
end
return M
"#;
    let dir = scratch(&[("s.yaml", scene), ("swap.lua", swap)]);
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    for _ in 0..5 {
        session.tick();
    }
    assert_no_error_and_memory(&session, &["a", "b", "c"], "{\n  ran = \"aaabb\"\n}");
}

/// Every agent of `ids` has no error and shows `memory` as its `self.memory`.
fn assert_no_error_and_memory(session: &Session, ids: &[&str], memory: &str) {
    for &id in ids {
        assert_eq!(session.world().agent(id).unwrap().error, None, "{id}");
        assert_eq!(session.memory_text(id).as_deref(), Some(memory), "{id}");
    }
}

#[test]
fn an_error_in_one_decide_of_a_crowd_leaves_the_others_deciding_every_tick() {
    let mut scene = String::from("map:\n  rows: |\n    ..........\nagents:\n");
    for (i, id) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        scene += &format!(
            "  - {{ id: {id}, at: [{}, 0], script: flaky.lua }}\n",
            2 * i
        );
    }
    let flaky = r#"
local M = {}
function M.decide(self, world)
  self.memory.n = (self.memory.n or 0) + 1
  if self.id == "c" and world:tick() >= 3 then
    error("boom at tick " .. world:tick())
  end
  return move.stop()
end
return M
"#;
    let dir = scratch(&[("s.yaml", &scene), ("flaky.lua", flaky)]);
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    for _ in 0..6 {
        session.tick();
    }
    let error = session.world().agent("c").unwrap().error.clone();
    assert!(
        error
            .as_ref()
            .map(|e| e.as_str())
            .is_some_and(|e| e.contains("flaky.lua:6:") && e.ends_with("boom at tick 5")),
        "{error:?}"
    );
    assert_no_error_and_memory(&session, &["a", "b", "d", "e"], "{\n  n = 6\n}");
}

#[test]
fn a_script_failing_for_a_whole_crowd_is_reported_once_per_message() {
    let rows = "    ..........\n".repeat(6);
    let scene = format!(
        "map:\n  rows: |\n{rows}spawn:\n  - {{ count: 50, kind: walker, script: broken.lua }}\n"
    );
    let broken =
        "local M = {}\nfunction M.decide(self, world)\n  return move.stop() +\nend\nreturn M\n";
    let dir = scratch(&[("s.yaml", &scene), ("broken.lua", broken)]);
    let out = agentbox_in(
        dir.path(),
        &["headless", "s.yaml", "--ticks", "3", "--allow-errors"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("broken.lua:")).collect();
    assert!(
        (1..=2).contains(&lines.len()),
        "one line for the script, one for its agents: {err}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("(agent walker-1 and 49 others)")),
        "{err}"
    );
}

/// A view handed to a primitive names its agent (followed as it moves), whether the call goes
/// through a fast path or the full one, and although a view keeps no raw `id` of its own (so
/// no script can rename another agent for everyone).
#[test]
fn a_view_passed_to_a_primitive_targets_its_agent() {
    let scene = "map:\n  rows: |\n    ..........\n    ..........\nagents:\n  - { id: a, at: [0, 0], script: a.lua }\n  - { id: b, at: [9, 1], script: b.lua }\n";
    // The view is kept from the first tick, so later calls are not the fast path's (which
    // takes only views handed out this round) but the full one.
    let a = "local M = {}\nfunction M.decide(self, world)\n  self.memory.b = self.memory.b or world:agent(\"b\")\n  local b = self.memory.b\n  assert(b.id == \"b\" and b.kind == \"b\" and rawget(b, \"id\") == nil)\n  return move.chase(b)\nend\nreturn M\n";
    let b = "return { decide = function(self) return move.to({ x = 0, y = 1 }) end }\n";
    let dir = scratch(&[("s.yaml", scene), ("a.lua", a), ("b.lua", b)]);
    let mut session = Session::open(&dir.path().join("s.yaml"), None).unwrap();
    for tick in 0..4 {
        session.tick();
        let agent = session.world().agent("a").unwrap();
        assert_eq!(agent.error, None, "tick {tick}");
        let described = agent.action.describe();
        assert_eq!(described, "chase b", "tick {tick}");
    }
}
