//! Navigation from scenes and scripts, headless: the tank (`move.tank_to`), waypoint travel, the
//! `nav.*` queries and `move.path_to` options.

use crate::common;

use common::{pos, scratch, trace};

#[test]
fn the_tank_drives_its_body_through_the_gaps_and_the_blocked_one_drops_the_command() {
    let lines = trace("scenes/tank.yaml", 600, &[]);
    let scene = agentbox_core::scene::load(&common::root().join("scenes/tank.yaml")).unwrap();
    let world = &scene.world;
    let mut turns = 0;
    let mut last_dir = (0i32, 0i32);
    let mut prev = pos(&lines[0], "alpha");
    for line in &lines {
        let (x, y) = pos(line, "alpha");
        // On a grid line at every tick: it drives along rows and columns only.
        let on_line = |v: f64| (v - v.round()).abs() < 1e-3;
        assert!(on_line(x) || on_line(y), "({x}, {y})");
        // The whole 4x4 body is on free cells.
        for cx in [x.floor() as i32, x.ceil() as i32] {
            for cy in [y.floor() as i32, y.ceil() as i32] {
                for dy in 0..4 {
                    for dx in 0..4 {
                        let cell = glam::IVec2::new(cx + dx, cy + dy);
                        assert!(!world.is_blocked(cell), "body on {cell} at ({x}, {y})");
                    }
                }
            }
        }
        let d = ((x - prev.0).signum() as i32, (y - prev.1).signum() as i32);
        if d != (0, 0) && d != last_dir {
            turns += 1;
            last_dir = d;
        }
        prev = (x, y);
        assert_eq!(
            pos(line, "bravo"),
            (1.0, 19.0),
            "bravo has no route and stays"
        );
    }
    assert_eq!(pos(lines.last().unwrap(), "alpha"), (20.0, 20.0));
    assert!(turns >= 4, "turn-and-drive legs: {turns} turns");
}

const ROOMS: &str = r#"
name: rooms
map:
  rows: |
    ###########
    #....#....#
    #.........#
    #....#....#
    #.#..#....#
    ###########
waypoints: [[2, 2], [5, 2], [8, 2]]
agents:
  - id: walker
    at: [1, 4]
    script: walker.lua
    params: { goal: [9, 4] }
"#;

const WALKER: &str = r#"
local M = {}
function M.decide(self, world)
  local goal = self.params.goal
  local route = nav.waypoint_route(self.pos, goal)
  if route == nil then error("no waypoint route") end
  if world:tick() == 0 and #route < 4 then error("route too short: " .. #route) end
  local p, info = nav.path(self.pos, goal, {
    diagonal = "never", heuristic = "manhattan", costs = "source",
    sets = true, algorithm = "astar",
  })
  if p == nil or info.complete ~= true or info.expanded < 1 or #info.closed < 1 then
    error("bad path info")
  end
  if world:tick() == 0 then
    local cut, cinfo = nav.path(self.pos, goal, { max_expanded = 2 })
    if cut == nil or cinfo.complete then error("the limit did not stop the search") end
  end
  return move.waypoints(goal)
end
return M
"#;

#[test]
fn waypoint_travel_and_nav_queries_from_lua() {
    let dir = scratch(&[("rooms.yaml", ROOMS), ("walker.lua", WALKER)]);
    let scene = dir.path().join("rooms.yaml");
    let lines = trace(scene.to_str().unwrap(), 150, &[]);
    for line in &lines {
        let walker = &line["agents"][0];
        assert!(walker.get("error").is_none(), "{walker}");
        assert_eq!(walker["action"], "waypoints");
    }
    assert_eq!(pos(lines.last().unwrap(), "walker"), (9.0, 4.0));
}

#[test]
fn path_options_reach_the_search_and_typos_are_errors() {
    let script = r#"
local M = {}
function M.decide(self, world)
  if self.params.bad then
    return move.path_to({8, 0}, { diagonl = "never" })
  end
  return move.path_to({8, 4}, { diagonal = "never" })
end
return M
"#;
    let scene = r#"
map:
  rows: |
    .........
    .........
    .........
    .........
    .........
agents:
  - id: rook
    at: [0, 0]
    script: s.lua
  - id: typo
    at: [0, 2]
    script: s.lua
    params: { bad: true }
"#;
    let dir = scratch(&[("s.yaml", scene), ("s.lua", script)]);
    let lines = trace(
        dir.path().join("s.yaml").to_str().unwrap(),
        120,
        &["--allow-errors"],
    );
    // 4-connected: the rook never moves diagonally, so one coordinate stays whole.
    for line in &lines {
        let (x, y) = pos(line, "rook");
        assert!((x - x.round()).abs() < 1e-3 || (y - y.round()).abs() < 1e-3);
    }
    assert_eq!(pos(lines.last().unwrap(), "rook"), (8.0, 4.0));
    let typo = &lines[0]["agents"][1];
    let err = typo["error"].as_str().unwrap_or_default();
    assert!(err.contains("unknown option \"diagonl\""), "{typo}");
}

#[test]
fn the_courier_reaches_every_stop_through_the_waypoints() {
    let scene = agentbox_core::scene::load(&common::root().join("scenes/waypoints.yaml")).unwrap();
    let world = &scene.world;
    // The scene's promise: every floor tile sees at least one node.
    for y in 0..world.grid().height() {
        for x in 0..world.grid().width() {
            let t = glam::IVec2::new(x, y);
            if !world.is_blocked(t) {
                assert!(
                    world
                        .waypoints
                        .iter()
                        .any(|&n| agentbox_core::nav::line_of_sight(world, t, n)),
                    "{t} sees no node"
                );
            }
        }
    }
    let lines = trace("scenes/waypoints.yaml", 900, &[]);
    let mut visited = vec![];
    for line in &lines {
        let agent = &line["agents"][0];
        assert!(agent.get("error").is_none(), "{agent}");
        let p = pos(line, "courier");
        let tile = glam::IVec2::new(p.0.round() as i32, p.1.round() as i32);
        assert!(!world.is_blocked(tile), "on a wall at {p:?}");
        for stop in [(22.0, 11.0), (22.0, 1.0), (1.0, 11.0)] {
            if p == stop && visited.last() != Some(&stop) {
                visited.push(stop);
            }
        }
    }
    // The stops in order (and round again to the first by tick 900).
    assert_eq!(visited[..3], [(22.0, 11.0), (22.0, 1.0), (1.0, 11.0)]);
}

/// `nav.path` says why there is no path; `move.path_to` to such a goal puts the reason on the
/// agent's trace line as `no_path`, and the line of an agent with a route is unchanged.
#[test]
fn no_path_has_a_reason_in_lua_and_in_the_trace() {
    let script = r#"
local M = {}
function M.decide(self, world)
  if self.params.probe then
    local checks = {
      { {1, 1}, {3, 1}, "blocked" },
      { {3, 1}, {1, 1}, "blocked" },
      { {1, 1}, {6, 1}, "unreachable" },
      { {1, 1}, {40, 1}, "off_map" },
      { {-3, 1}, {1, 1}, "off_map" },
    }
    for _, c in ipairs(checks) do
      local p, info = nav.path(c[1], c[2])
      if p ~= nil or info.reason ~= c[3] then
        error(("nav.path(%d,%d -> %d,%d): %s, wanted %s"):format(
          c[1][1], c[1][2], c[2][1], c[2][2], tostring(info.reason), c[3]))
      end
    end
    local p, info = nav.path({1, 1}, {1, 3})
    if p == nil or info.reason ~= nil then error("a path has no reason") end
    return move.stop()
  end
  return move.path_to(self.params.goal)
end
return M
"#;
    // Column 5 is a wall from top to bottom: column 6 is an island.
    let scene = r#"
map:
  rows: |
    .....#.
    ...#.#.
    .....#.
    .....#.
agents:
  - id: probe
    at: [0, 0]
    script: s.lua
    params: { probe: true }
  - id: to_wall
    at: [0, 1]
    script: s.lua
    params: { goal: [3, 1] }
  - id: to_island
    at: [0, 2]
    script: s.lua
    params: { goal: [6, 2] }
  - id: off
    at: [0, 3]
    script: s.lua
    params: { goal: [9, 3] }
  - id: fine
    at: [1, 3]
    script: s.lua
    params: { goal: [4, 0] }
"#;
    let dir = scratch(&[("s.yaml", scene), ("s.lua", script)]);
    let lines = trace(dir.path().join("s.yaml").to_str().unwrap(), 60, &[]);
    let agent = |line: &serde_json::Value, id: &str| {
        line["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap()
    };
    for line in &lines {
        assert!(agent(line, "probe").get("error").is_none(), "{line}");
        assert_eq!(agent(line, "to_wall")["no_path"], "blocked", "{line}");
        assert_eq!(agent(line, "to_island")["no_path"], "unreachable", "{line}");
        assert_eq!(agent(line, "off")["no_path"], "off_map", "{line}");
        // The fields an agent with a route always had, and no other.
        let fine = agent(line, "fine");
        let mut keys: Vec<&str> = fine
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        keys.sort();
        assert_eq!(keys, ["action", "id", "x", "y"], "{fine}");
    }
    for id in ["to_wall", "to_island", "off"] {
        assert_eq!(
            pos(&lines[0], id),
            pos(lines.last().unwrap(), id),
            "{id} stands still"
        );
    }
    assert_eq!(pos(lines.last().unwrap(), "fine"), (4.0, 0.0));
}
