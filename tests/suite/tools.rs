//! The tools around scenes, through the real binary: `agentbox test` (expectations),
//! `schema`, `api`, `bench`, and crowds from `spawn:` with neighbour queries.

use crate::common;

use common::{agentbox, agentbox_in, scratch, stderr, stdout, trace};

const OPEN_MAP: &str =
    "map:\n  rows: |\n    ..........\n    ..........\n    ....##....\n    ..........\n";

/// Every shipped scene, as `scenes/NAME.yaml`, sorted.
fn shipped_scenes() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(common::root().join("scenes"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .map(|n| format!("scenes/{n}"))
        .collect();
    out.sort();
    out
}

#[test]
fn the_shipped_scenes_pass_their_expectations() {
    let out = agentbox(&["test", "scenes/"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let scenes = shipped_scenes();
    assert!(scenes.len() >= 3);
    for scene in &scenes {
        assert!(text.contains(&format!("pass {scene}")), "{scene}: {text}");
    }
    assert!(
        text.trim_end()
            .ends_with(&format!("{} passed, 0 failed", scenes.len())),
        "{text}"
    );
}

#[test]
fn a_failing_expectation_names_the_scene_and_the_reason_and_exits_1() {
    let scene = format!(
        "{OPEN_MAP}agents:\n  - {{ id: a, at: [0, 0], script: go.lua, speed: 2 }}\n  - {{ id: flag, at: [9, 0] }}\nexpect:\n  ticks: 40\n  reach: [{{ agent: a, target: flag, within: 0.1, by_tick: 30 }}]\n  never_on: [{{ agent: a, terrain: floor }}]\n  lua:\n    - {{ name: moved, check: 'return world:agent(\"a\").pos.x > 1, \"a did not move\"' }}\n"
    );
    let ok_scene = format!(
        "{OPEN_MAP}agents:\n  - {{ id: a, at: [0, 0], script: go.lua, speed: 8 }}\n  - {{ id: flag, at: [9, 0] }}\nexpect:\n  ticks: 60\n  reach: [{{ agent: a, target: flag, within: 0.1, by_tick: 50 }}]\n  visits: [{{ agent: a, tiles: [[5, 0]], rooms: [{{ from: [8, 0], to: [9, 1] }}] }}]\n"
    );
    let dir = scratch(&[
        ("bad.yaml", scene.as_str()),
        ("good.yaml", ok_scene.as_str()),
        ("plain.yaml", OPEN_MAP),
        (
            "go.lua",
            "local M = {}\nfunction M.decide(self, world) return move.to({9, 0}) end\nreturn M\n",
        ),
    ]);
    let out = agentbox_in(dir.path(), &["test", "."]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL ./bad.yaml"), "{text}");
    assert!(
        text.contains("reach: `a` did not come within 0.1 of `flag` by tick 30"),
        "{text}"
    );
    assert!(
        text.contains("never_on: `a` stood on floor at [0, 0] at tick 0"),
        "{text}"
    );
    assert!(!text.contains("lua `moved`"), "{text}");
    assert!(text.contains("pass ./good.yaml (60 ticks)"), "{text}");
    assert!(!text.contains("plain.yaml"), "{text}");
    assert!(text.trim_end().ends_with("1 passed, 1 failed"), "{text}");
}

#[test]
fn script_errors_and_bad_expectations_fail_the_test() {
    let dir = scratch(&[
        (
            "err.yaml",
            &format!("{OPEN_MAP}agents:\n  - {{ id: a, at: [0, 0], script: boom.lua }}\nexpect: {{ ticks: 3 }}\n"),
        ),
        (
            "typo.yaml",
            &format!("{OPEN_MAP}agents:\n  - {{ id: a, at: [0, 0] }}\nexpect:\n  reach: [{{ agent: b, target: [1, 1] }}]\n"),
        ),
        (
            "boom.lua",
            "local M = {}\nfunction M.decide(self, world) error('boom') end\nreturn M\n",
        ),
    ]);
    let out = agentbox_in(dir.path(), &["test", "err.yaml", "typo.yaml"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("no_errors: boom.lua:2: error: boom (agent a, tick 1)"),
        "{text}"
    );
    assert!(
        text.contains("typo.yaml:10:20: error: no agent with id `b` in this scene"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("0 passed, 2 failed"), "{text}");
}

#[test]
fn spawned_crowds_are_placed_from_the_seed_on_free_distinct_tiles() {
    let scene = format!(
        "seed: 5\n{OPEN_MAP}spawn:\n  - {{ count: 20, kind: sheep, area: {{ from: [0, 1], to: [9, 3] }}, speed: [1, 2], script: s.lua, params: {{ r: 2 }} }}\n  - {{ count: 2, kind: sheep, tiles: [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [7, 0], [8, 0], [9, 0]] }}\n"
    );
    let script = "local M = {}\nfunction M.decide(self, world)\n  local near = world:agents{within = self.params.r, kind = 'sheep'}\n  if #near > 0 then return move.evade(near[1]) end\n  return move.stop()\nend\nreturn M\n";
    let dir = scratch(&[("crowd.yaml", scene.as_str()), ("s.lua", script)]);
    let path = dir.path().join("crowd.yaml");
    let path = path.to_str().unwrap();
    let first = trace(path, 1, &[]);
    let again = trace(path, 1, &[]);
    assert_eq!(first, again, "the same seed places the same crowd");
    let agents = first[0]["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 22);
    let ids: Vec<&str> = agents.iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids[0], "sheep-1");
    assert_eq!(ids[19], "sheep-20");
    assert_eq!(ids[21], "sheep-22");
    for a in &agents[..20] {
        assert!(a["y"].as_f64().unwrap() >= 1.0, "inside its area: {a}");
    }
    // An entry's agents are numbered in reading order of their tiles.
    let tiles: Vec<(i64, i64)> = agents[..20]
        .iter()
        .map(|a| {
            let at = |k: &str| a[k].as_f64().unwrap().round() as i64;
            (at("y"), at("x"))
        })
        .collect();
    assert!(
        tiles.windows(2).all(|w| w[0] < w[1]),
        "sheep-1..20 in reading order: {tiles:?}"
    );
    for a in &agents[20..] {
        assert_eq!(a["y"].as_f64().unwrap(), 0.0, "on its tiles: {a}");
    }
    let other_seed = trace(path, 1, &["--seed", "6"]);
    assert_ne!(first, other_seed, "another seed places them elsewhere");
    let start = agentbox(&["headless", path, "--ticks", "0", "--trace", "-"]);
    assert!(start.status.success(), "{}", stderr(&start));
    // Nobody starts on the wall, and no two start on the same tile.
    let check = format!(
        "{scene}expect:\n  ticks: 1\n  lua:\n    - check: |\n        local seen = {{}}\n        for _, a in ipairs(world:agents()) do\n          if world:blocked(a.pos) then return false, a.id .. ' on a wall' end\n          local k = a.tile.x .. ',' .. a.tile.y\n          if seen[k] then return false, 'two on ' .. k end\n          seen[k] = true\n        end\n        return #world:agents{{kind = 'sheep'}} == 22\n"
    );
    let dir2 = scratch(&[("c.yaml", check.as_str()), ("s.lua", script)]);
    let out = agentbox_in(dir2.path(), &["test", "c.yaml"]);
    assert!(out.status.success(), "{}", stdout(&out));
}

#[test]
fn a_spawn_that_does_not_fit_is_a_located_error() {
    let scene = format!("{OPEN_MAP}spawn:\n  - {{ count: 39, kind: ant }}\n");
    let dir = scratch(&[("full.yaml", scene.as_str())]);
    let out = agentbox_in(dir.path(), &["check", "full.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("full.yaml:8:14: error: only 38 free tiles to place 39 `ant` agents on"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn neighbour_queries_answer_around_self_or_a_point() {
    let scene = format!(
        "{OPEN_MAP}agents:\n  - {{ id: me, at: [1, 1], script: q.lua }}\n  - {{ id: near, kind: rock, at: [2, 1] }}\n  - {{ id: far, kind: rock, at: [8, 3] }}\nexpect:\n  ticks: 2\n  lua:\n    - check: |\n        local around = world:agents{{within = 1.5, around = {{x = 1, y = 1}}}}\n        if #around ~= 2 then return false, 'around a point: ' .. #around end\n        local v = world:agents{{within = 1.5, around = world:agent('me')}}\n        if #v ~= 1 or v[1].id ~= 'near' then return false, 'around an agent' end\n        local n = world:nearest({{8, 2}}, 'rock')\n        return n.id == 'far', 'nearest: ' .. n.id\n"
    );
    let script = "local M = {}\nfunction M.decide(self, world)\n  local mine = world:agents{within = 1.5}\n  assert(#mine == 1 and mine[1].id == 'near', 'self is left out')\n  assert(world:nearest(self).id == 'near')\n  return move.stop()\nend\nreturn M\n";
    let dir = scratch(&[("q.yaml", scene.as_str()), ("q.lua", script)]);
    let out = agentbox_in(dir.path(), &["test", "q.yaml"]);
    assert!(out.status.success(), "{}", stdout(&out));
}

#[test]
fn schema_and_api_print_what_is_committed() {
    let schema = agentbox(&["schema"]);
    assert!(schema.status.success());
    let committed =
        std::fs::read_to_string(common::root().join("scenes/agentbox.schema.json")).unwrap();
    assert_eq!(stdout(&schema), committed);
    for (flag, file) in [
        ("--stubs", "types/agentbox.lua"),
        ("--markdown", "docs/lua-api.md"),
        ("--luarc", ".luarc.json"),
    ] {
        let out = agentbox(&["api", flag]);
        assert!(out.status.success());
        let committed = std::fs::read_to_string(common::root().join(file)).unwrap();
        assert_eq!(stdout(&out), committed, "{file}");
    }
    for scene in shipped_scenes() {
        let text = std::fs::read_to_string(common::root().join(&scene)).unwrap();
        assert!(
            text.starts_with("# yaml-language-server: $schema=agentbox.schema.json\n"),
            "{scene}"
        );
    }
}

/// `bench` runs what the scripts ask for, as headless does: an agent spawning a walker each
/// tick makes 2, 3, 4, 5 and 6 decisions in five ticks (it once dropped every effect during
/// measured ticks, and measured 2 a tick).
#[test]
fn bench_applies_what_scripts_ask_for() {
    let scene = "map:\n  rows: |\n    ..........\n    ..........\nagents:\n  - id: mother\n    kind: mother\n    at: [0, 0]\n    script: mother.lua\n  - id: walker-1\n    kind: walker\n    at: [9, 1]\n    script: walk.lua\n";
    let mother = "local M = {}\nfunction M.decide(self, world)\n  world:spawn({ kind = \"walker\", at = { 5, 1 } })\n  return move.stop()\nend\nreturn M\n";
    let walk = "return { decide = function() return move.stop() end }\n";
    let dir = scratch(&[
        ("s.yaml", scene),
        ("mother.lua", mother),
        ("walk.lua", walk),
    ]);
    let out = agentbox_in(
        dir.path(),
        &["bench", "s.yaml", "--ticks", "5", "--warmup", "0"],
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("(20 decisions, 0 failed)"), "{text}");
}

#[test]
fn bench_reports_ms_per_tick_and_the_native_peer() {
    let out = agentbox(&[
        "bench",
        "scenes/maze.yaml",
        "--ticks",
        "5",
        "--warmup",
        "1",
        "--native",
        "--goal",
        "1000",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("lua: 3 agents, 5 ticks:"), "{text}");
    assert!(
        text.contains("budget: 2000000 instructions a call, 256 MB of Lua memory"),
        "{text}"
    );
    assert!(
        text.contains("goal: at most 1000x the Rust peer: MET"),
        "{text}"
    );
    assert!(text.contains("ms per tick"), "{text}");
    assert!(
        text.contains("ns per decision (10 decisions, 0 failed)"),
        "{text}"
    );
    assert!(text.contains("rust: 3 agents, 5 ticks:"), "{text}");
    assert!(text.contains("lua/rust:"), "{text}");
    assert!(text.contains("(taking turns of 10 ticks)"), "{text}");
}

#[test]
fn predicates_see_the_world_after_the_tick_even_when_decide_looked_at_it() {
    let scene = format!(
        "{OPEN_MAP}agents:\n  - {{ id: a, at: [0, 0], script: go.lua, speed: 3 }}\n  - {{ id: b, at: [0, 3], script: look.lua }}\nexpect:\n  ticks: 20\n  lua:\n    - when: every_tick\n      check: |\n        local x = world:agent('a').pos.x\n        return math.abs(x - world:tick() * 0.1) < 1e-9, 'a at x = ' .. x .. ' after tick ' .. world:tick()\n"
    );
    let dir = scratch(&[
        ("v.yaml", scene.as_str()),
        (
            "go.lua",
            "local M = {}\nfunction M.decide(self, world) return move.to({9, 0}) end\nreturn M\n",
        ),
        (
            "look.lua",
            "local M = {}\nfunction M.decide(self, world)\n  assert(world:agent('a').pos.x == self.memory.seen_next or self.memory.seen_next == nil)\n  self.memory.seen_next = world:agent('a').pos.x + 0.1\n  return move.stop()\nend\nreturn M\n",
        ),
    ]);
    let out = agentbox_in(dir.path(), &["test", "v.yaml"]);
    assert!(out.status.success(), "{}", stdout(&out));
}

/// Each failing check leaves a session file (beside the scene, in `--sessions DIR`, or none with
/// `--no-sessions`) that opens at the tick it failed at with its agent, and the next run
/// replaces what an earlier one left.
#[test]
fn test_writes_a_session_per_failing_check_that_opens_where_it_failed() {
    let scene = "\
name: late
map:
  rows: |
    ..........
agents:
  - { id: walker, at: [0, 0], speed: 1, script: w.lua }
  - { id: post, at: [9, 0] }
expect:
  ticks: 30
  reach: [{ agent: walker, target: post, by_tick: 25 }]
  never_on: []
";
    let walk = "return { decide = function(self) return move.to({ x = 9, y = 0 }) end }\n";
    let dir = scratch(&[("late.yaml", scene), ("w.lua", walk)]);
    let out = agentbox_in(dir.path(), &["test", "late.yaml"]);
    let said = stdout(&out);
    assert!(
        said.contains("open it: agentbox run late.yaml --session late.failed-1.session.json"),
        "{said}"
    );
    let rec =
        agentbox_session::history::load_recording(&dir.path().join("late.failed-1.session.json"))
            .expect("the session file reads back");
    let focus = rec.focus.expect("it says where to open");
    assert_eq!(
        (rec.ticks, focus.tick, focus.agent.as_deref()),
        (25, 25, Some("walker"))
    );
    // In a folder of its own.
    let out = agentbox_in(dir.path(), &["test", "late.yaml", "--sessions", "failures"]);
    assert!(
        stdout(&out).contains("--session failures/late.failed-1.session.json"),
        "{}",
        stdout(&out)
    );
    assert!(dir
        .path()
        .join("failures/late.failed-1.session.json")
        .is_file());
    let out = agentbox_in(dir.path(), &["test", "late.yaml", "--no-sessions"]);
    assert!(!stdout(&out).contains("open it"), "{}", stdout(&out));
    assert!(dir.path().join("late.failed-1.session.json").is_file());
    // A passing run removes what a failing one left beside the scene.
    std::fs::write(
        dir.path().join("late.yaml"),
        scene
            .replace("by_tick: 25", "by_tick: 120")
            .replace("ticks: 30", "ticks: 120")
            .replace("speed: 1", "speed: 3"),
    )
    .unwrap();
    let out = agentbox_in(dir.path(), &["test", "late.yaml"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(!dir.path().join("late.failed-1.session.json").exists());
}
