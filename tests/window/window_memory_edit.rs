//! The inspector's memory edit under Xvfb, from recorded input (`--input`): a click on a
//! number in the memory view opens the prompt with its value, Enter sets it from the next
//! tick (recorded as a `set_memory` input), the script reads it, and the saved session
//! replays it to the same trace hashes the window recorded.

use crate::common;
use agentbox_core::sim::trace;
use agentbox_session::history::{self, Input};
use common::*;

const SCENE: &str = "\
name: memedit
map:
  rows: |
    ..........
    ..........
    ..........
agents:
  - id: a
    at: [0, 0]
    script: step.lua
";

const STEP: &str = "\
local M = {}
function M.decide(self, world)
  self.memory.step = self.memory.step or 1
  self.memory.mood = self.memory.mood or 'calm'
  if self.memory.alert == nil then self.memory.alert = false end
  self:label('step ' .. self.memory.step)
  return move.to({ x = self.memory.step, y = 0 })
end
return M
";

/// With the inspector docked on the right, the 10x3 map is fitted 64.8 px a tile from x 8,
/// row 0's centre at y 327.4 in the 1024x768 window; the memory view's `step = 1` line is at
/// pixel (740, 318): column 10.796, row -0.145 (recorded input names the mouse in tile units).
const STEP_LINE_AT: &str = "[10.796, -0.145]";

#[test]
fn a_click_on_a_memory_number_sets_it_and_the_session_replays_it() {
    let dir = scratch(&[("scene.yaml", SCENE), ("step.lua", STEP)]);
    let scene = dir.path().join("scene.yaml");
    // Select a, click its memory's `step`, replace the 1 by 7, Enter; a bad value next.
    let input = format!(
        "\
{{\"frame\": 2, \"press\": \"left\", \"at\": [0, 0]}}
{{\"frame\": 3, \"release\": \"left\", \"at\": [0, 0]}}
{{\"frame\": 5, \"press\": \"left\", \"at\": {STEP_LINE_AT}}}
{{\"frame\": 6, \"release\": \"left\", \"at\": {STEP_LINE_AT}}}
{{\"frame\": 8, \"key\": \"Backspace\"}}
{{\"frame\": 9, \"text\": \"7\"}}
{{\"frame\": 10, \"key\": \"Enter\"}}
{{\"frame\": 20, \"press\": \"left\", \"at\": {STEP_LINE_AT}}}
{{\"frame\": 21, \"release\": \"left\", \"at\": {STEP_LINE_AT}}}
{{\"frame\": 23, \"text\": \"x\"}}
{{\"frame\": 24, \"key\": \"Enter\"}}
{{\"frame\": 66, \"key\": \"E\", \"ctrl\": true}}
"
    );
    let (err, _) = replay_in_window(dir.path(), &scene, 70, &input, "memedit");
    assert!(
        err.contains("a's self.memory.step = 7 from the next tick"),
        "{err}"
    );
    assert!(
        err.contains("a's self.memory.step not set: \"7x\" is not a number; nothing changed"),
        "{err}"
    );
    let rec = history::load_recording(&dir.path().join("scene.session.json")).unwrap();
    let sets: Vec<_> = rec
        .events
        .iter()
        .filter_map(|e| match &e.input {
            Input::SetMemory { agent, path, value } => {
                Some((e.at, agent.clone(), path.clone(), value.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(sets.len(), 1, "only the good value is recorded: {sets:?}");
    let (at, agent, path, value) = sets[0].clone();
    assert_eq!(
        (agent.as_str(), path, value),
        ("a", vec!["step".to_string()], serde_json::json!(7))
    );
    assert!(rec.ticks >= 64, "the window's hash at tick 64 is checked");
    // The replay (which checks the window's trace hashes) shows the script reading 7 from
    // the tick after the edit, and a second replay gives the same trace.
    let trace_of = || {
        let mut lines = Vec::new();
        history::replay(&rec, rec.ticks, |s, r| {
            lines.push(trace::line(s.world(), &r.events))
        })
        .unwrap();
        lines
    };
    let lines = trace_of();
    assert!(
        lines[at as usize - 1].contains("step 1"),
        "{}",
        lines[at as usize - 1]
    );
    assert!(
        lines[at as usize].contains("step 7"),
        "{}",
        lines[at as usize]
    );
    assert_eq!(trace_of(), lines);
}

const GOAL: &str = "\
local M = {}
function M.decide(self, world)
  self.memory.goal = self.memory.goal or { x = 2, y = 0 }
  self:label('x ' .. self.memory.goal.x)
  return move.to({ x = self.memory.goal.x, y = 0 })
end
return M
";

/// The memory view's `x = 2` line inside `goal = {`, one row above `step = 1`'s place in the
/// test above (18 pixels at scale 1): pixel (740, 295), in tiles.
const GOAL_X_AT: &str = "[10.796, -0.5]";

#[test]
fn a_click_on_a_number_inside_a_memory_table_sets_it() {
    let dir = scratch(&[
        ("scene.yaml", &SCENE.replace("step.lua", "goal.lua")),
        ("goal.lua", GOAL),
    ]);
    let scene = dir.path().join("scene.yaml");
    let input = format!(
        "\
{{\"frame\": 2, \"press\": \"left\", \"at\": [0, 0]}}
{{\"frame\": 3, \"release\": \"left\", \"at\": [0, 0]}}
{{\"frame\": 5, \"press\": \"left\", \"at\": {GOAL_X_AT}}}
{{\"frame\": 6, \"release\": \"left\", \"at\": {GOAL_X_AT}}}
{{\"frame\": 8, \"key\": \"Backspace\"}}
{{\"frame\": 9, \"text\": \"7\"}}
{{\"frame\": 10, \"key\": \"Enter\"}}
{{\"frame\": 36, \"key\": \"E\", \"ctrl\": true}}
"
    );
    let (err, shot) = replay_in_window(dir.path(), &scene, 40, &input, "nested");
    let _ = std::fs::copy(&shot, root().join("target/window_memory_nested.png"));
    assert!(
        err.contains("a's self.memory.goal.x = 7 from the next tick"),
        "{err}"
    );
    let rec = history::load_recording(&dir.path().join("scene.session.json")).unwrap();
    let paths: Vec<_> = rec
        .events
        .iter()
        .filter_map(|e| match &e.input {
            Input::SetMemory { path, value, .. } => Some((path.clone(), value.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        paths,
        vec![(
            vec!["goal".to_string(), "x".to_string()],
            serde_json::json!(7)
        )]
    );
    // The script reads it: the agent heads for x 7 and says so.
    let mut last = String::new();
    history::replay(&rec, rec.ticks, |s, r| {
        last = trace::line(s.world(), &r.events)
    })
    .unwrap();
    assert!(last.contains("x 7"), "{last}");
}
