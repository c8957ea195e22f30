//! Flow fields from scenes and scripts, headless: `move.flow_to` agents reach their goal on a
//! maze without a wall ever cutting a move (no `wall_contact` event), `nav.flow` handles answer
//! `:next` and `:cost`, and bad arguments are located Lua errors.

use crate::common;

use common::{pos, scratch, trace};

#[test]
fn flow_agents_cross_the_maze_to_the_flag_and_never_touch_a_wall() {
    let lines = trace("scenes/flow_maze.yaml", 2400, &[]);
    let mut touched = Vec::new();
    for line in &lines {
        for e in line["events"].as_array().unwrap() {
            if e["type"] == "wall_contact" {
                touched.push(format!("tick {}: {e}", line["tick"]));
            }
        }
    }
    assert!(
        touched.is_empty(),
        "{} wall contacts: {:?}",
        touched.len(),
        &touched[..touched.len().min(5)]
    );
    let last = lines.last().unwrap();
    let flag = pos(last, "flag");
    for i in 1..=40 {
        let id = format!("runner-{i}");
        assert_eq!(pos(last, &id), flag, "{id} reached the flag");
        let agent = last["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id.as_str())
            .unwrap();
        assert!(agent.get("error").is_none(), "{agent}");
        assert_eq!(agent["action"], "flow_to");
    }
}

/// The event is real: a `path_to` walker allowed to cut corners (`diagonal = "always"`) brushes
/// the wall's corner and is reported; a flow walker on the same map is not, and neither is a
/// chaser pressing into a wall (steering primitives press into walls by design).
#[test]
fn a_wall_cutting_a_planned_move_is_reported() {
    let scene = r#"
map:
  rows: |
    ......
    .#....
    ......
    ####..
agents:
  - id: cutter
    at: [0, 0]
    script: s.lua
    params: { how: "cut" }
  - id: flow
    at: [0, 0]
    script: s.lua
    params: { how: "flow" }
  - id: chaser
    at: [0, 2]
    script: s.lua
    params: { how: "chase" }
"#;
    let script = r#"
local M = {}
function M.decide(self, world)
  local how = self.params.how
  if how == "cut" then return move.path_to({ 2, 2 }, { diagonal = "always" }) end
  if how == "flow" then return move.flow_to({ 2, 2 }) end
  return move.chase({ 0, 5 })
end
return M
"#;
    let dir = scratch(&[("s.yaml", scene), ("s.lua", script)]);
    let lines = trace(dir.path().join("s.yaml").to_str().unwrap(), 120, &[]);
    let mut walls = std::collections::BTreeSet::new();
    for line in &lines {
        for e in line["events"].as_array().unwrap() {
            if e["type"] == "wall_contact" {
                walls.insert(e["agent"].as_str().unwrap().to_string());
                assert!(e["short"].as_f64().unwrap() > 0.0, "{e}");
            }
        }
    }
    assert_eq!(walls.into_iter().collect::<Vec<_>>(), ["cutter"]);
    assert_eq!(pos(lines.last().unwrap(), "flow"), (2.0, 2.0));
}

const FIELD_SCRIPT: &str = r#"
local M = {}
function M.decide(self, world)
  local bad = self.params.bad
  if bad == "off" then return move.flow_to(nav.flow({ 500, 500 })) end
  if bad == "opt" then nav.flow({ 1, 1 }, { sise = 2 }) end
  if bad == "diag" then nav.flow({ 1, 1 }, { diagonal = "sideways" }) end
  if bad == "nan" then nav.flow({ 0 / 0, 1 }) end
  local field = nav.flow({ 8, 3 }, { diagonal = "never" })
  local here = field:cost(self.pos)
  local step = field:next(self.pos)
  if world:tick() == 0 then
    -- 4-connected: from (0, 0) to (8, 3) costs 8 + 3 straight steps.
    if here ~= 11 then error("cost " .. tostring(here)) end
    if step == nil or math.abs(step.x - self.tile.x) + math.abs(step.y - self.tile.y) ~= 1 then
      error("next is not a straight neighbour")
    end
    if field:next({ 8, 3 }) ~= nil or field:cost({ 8, 3 }) ~= 0 then error("the goal") end
    if field:cost({ 4, 1 }) ~= nil then error("a wall has no cost") end
  end
  return move.to(step or self.pos)
end
return M
"#;

#[test]
fn nav_flow_handles_and_located_errors() {
    let scene = r#"
map:
  rows: |
    .........
    ....#....
    ....#....
    .........
agents:
  - id: ok
    at: [0, 0]
    script: s.lua
  - id: off
    at: [0, 3]
    script: s.lua
    params: { bad: "off" }
  - id: opt
    at: [1, 3]
    script: s.lua
    params: { bad: "opt" }
  - id: diag
    at: [2, 3]
    script: s.lua
    params: { bad: "diag" }
  - id: nan
    at: [3, 3]
    script: s.lua
    params: { bad: "nan" }
"#;
    let dir = scratch(&[("s.yaml", scene), ("s.lua", FIELD_SCRIPT)]);
    let lines = trace(
        dir.path().join("s.yaml").to_str().unwrap(),
        2,
        &["--allow-errors"],
    );
    let agent = |id: &str| {
        lines[0]["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id)
            .unwrap()
            .clone()
    };
    assert!(agent("ok").get("error").is_none(), "{}", agent("ok"));
    let error = |id: &str| agent(id)["error"].as_str().unwrap_or_default().to_string();
    for (id, want) in [
        (
            "off",
            ("s.lua:5:", "nav.flow: the goal 9, 4 is off the map"),
        ),
        ("opt", ("s.lua:6:", "nav.flow: unknown option \"sise\"")),
        ("diag", ("s.lua:7:", "nav.flow: diagonal must be one of")),
        ("nan", ("s.lua:8:", "nav.flow")),
    ] {
        let e = error(id);
        assert!(e.contains(want.0) && e.contains(want.1), "{id}: {e}");
    }
}
