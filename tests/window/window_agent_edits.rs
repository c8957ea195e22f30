//! Agents placed and deleted in the window from recorded input (`--input`): I places a copy of
//! the selected agent on the tile under the mouse and Delete removes the selected one, each
//! written into the scene file with every comment kept and applied at once as a reload that
//! keeps the other agents running as they were.

use crate::common;
use common::*;

const SCENE: &str = "\
# Agents placed from the window.
name: placing
map:
  rows: |
    ..........
    ..........
    ..........
agents:
  # The walker.
  - id: walker # walks east
    kind: scout
    at: [0, 0]
    script: walk.lua
    speed: 2 # slow
  - id: post
    at: [9, 2]
# The end.
";

const WALK: &str = "\
local M = {}
function M.decide(self, world)
  self.memory.n = (self.memory.n or 0) + 1
  return move.to({ x = 9, y = 0 })
end
return M
";

#[test]
fn placing_a_copy_of_an_agent_and_deleting_one_are_saved_into_the_scene() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walk.lua", WALK)]);
    let scene = dir.path().join("scene.yaml");
    // Select the walker, place a copy of it on (4, 2), then select the post and delete it.
    let input = "\
{\"frame\": 2, \"press\": \"left\", \"at\": [0, 0]}
{\"frame\": 3, \"release\": \"left\", \"at\": [0, 0]}
{\"frame\": 5, \"move\": [4, 2]}
{\"frame\": 6, \"key\": \"I\"}
{\"frame\": 10, \"press\": \"left\", \"at\": [9, 2]}
{\"frame\": 11, \"release\": \"left\", \"at\": [9, 2]}
{\"frame\": 13, \"key\": \"Delete\"}
";
    let (err, _) = replay_in_window(dir.path(), &scene, 30, input, "placing");
    assert!(err.contains("scene.yaml: scout-1 added"), "{err}");
    assert!(err.contains("scene.yaml: post removed"), "{err}");
    let saved = std::fs::read_to_string(&scene).unwrap();
    assert_eq!(
        saved,
        "\
# Agents placed from the window.
name: placing
map:
  rows: |
    ..........
    ..........
    ..........
agents:
  # The walker.
  - id: walker # walks east
    kind: scout
    at: [0, 0]
    script: walk.lua
    speed: 2 # slow
  - id: scout-1
    kind: scout
    at: [4, 2]
    script: walk.lua
    speed: 2 # slow
# The end.
"
    );
    // The run goes on with the placed agent: headless, the saved scene has both walkers.
    let out = common::agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "3", "--trace", "-"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let last = stdout(&out).lines().last().unwrap().to_string();
    assert!(last.contains("\"id\":\"scout-1\""), "{last}");
    assert!(!last.contains("\"id\":\"post\""), "{last}");
}

#[test]
fn ctrl_i_draws_a_keyboard_agents_route_and_the_waypoints_into_the_scene() {
    let scene_text = "\
name: routes
map:
  rows: |
    ..........
    ..........
    ..........
agents:
  - id: player
    at: [0, 1]
    control: keyboard
    route: [[2, 1]] # the walk
";
    let dir = scratch(&[("scene.yaml", scene_text)]);
    let scene = dir.path().join("scene.yaml");
    // Select the player (it stands still until its route walk starts), add (6, 1) to its
    // route; then select nothing and add (3, 2) to the waypoints.
    let input = "\
{\"frame\": 1, \"press\": \"left\", \"at\": [0, 1]}
{\"frame\": 2, \"release\": \"left\", \"at\": [0, 1]}
{\"frame\": 3, \"move\": [6, 1]}
{\"frame\": 4, \"key\": \"I\", \"ctrl\": true}
{\"frame\": 6, \"press\": \"left\", \"at\": [9, 0]}
{\"frame\": 7, \"release\": \"left\", \"at\": [9, 0]}
{\"frame\": 8, \"move\": [3, 2]}
{\"frame\": 9, \"key\": \"I\", \"ctrl\": true}
";
    let (err, _) = replay_in_window(dir.path(), &scene, 20, input, "routes");
    assert!(err.contains("scene.yaml: player route"), "{err}");
    let saved = std::fs::read_to_string(&scene).unwrap();
    assert_eq!(
        saved,
        scene_text.replace("[[2, 1]] # the walk", "[[2, 1], [6, 1]] # the walk")
            + "waypoints: [[3, 2]]\n"
    );
}

#[test]
fn ctrl_right_click_retargets_the_selected_agent_in_the_scene() {
    let scene_text = "\
name: retarget
map:
  rows: |
    ..........
    ..........
    ..........
agents:
  - id: hunter
    at: [0, 1]
    script: hunt.lua
    params: { prey: a } # whom it chases
  - id: a
    at: [9, 0]
  - id: b
    at: [9, 2]
";
    let hunt = "\
local M = {}
function M.decide(self, world)
  self.memory.n = (self.memory.n or 0) + 1
  self:label(self.params.prey)
  return move.stop()
end
return M
";
    let dir = scratch(&[("scene.yaml", scene_text), ("hunt.lua", hunt)]);
    let scene = dir.path().join("scene.yaml");
    let input = "\
{\"frame\": 1, \"press\": \"left\", \"at\": [0, 1]}
{\"frame\": 2, \"release\": \"left\", \"at\": [0, 1]}
{\"frame\": 4, \"press\": \"right\", \"at\": [9, 2], \"ctrl\": true}
{\"frame\": 5, \"release\": \"right\", \"at\": [9, 2]}
";
    let (err, _) = replay_in_window(dir.path(), &scene, 12, input, "retarget");
    assert!(err.contains("scene.yaml: hunter params"), "{err}");
    let saved = std::fs::read_to_string(&scene).unwrap();
    assert_eq!(saved, scene_text.replace("{ prey: a }", "{ prey: b }"));
}
