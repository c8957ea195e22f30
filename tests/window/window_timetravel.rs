//! Time travel in the window under Xvfb, from recorded input (`--input`): run, rewind with the
//! step keys, branch with Space, change the goal on the new branch, and show (or hide with G)
//! the ghost of the abandoned one; Ctrl+E saves the session file, which replays exactly and
//! whose first ticks are the headless run's.

use crate::common;
use agentbox_core::sim::trace;
use agentbox_session::history::{self, Input};
use common::*;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

const SCENE: &str = "\
name: travel
seed: 3
map:
  rows: |
    ################
    #..............#
    #..............#
    #......##......#
    #..............#
    #..............#
    ################
agents:
  - { id: runner, at: [1, 1], script: runner.lua, speed: 4 }
";

/// Keeps a module-local count; goes to the designer's goal when there is one.
const RUNNER: &str = "\
local calls = 0
local M = {}
function M.decide(self, world)
  calls = calls + 1
  local goal = world:goal()
  if goal then return move.path_to(goal) end
  if calls % 80 < 40 then return move.to({ x = 14, y = 5 }) end
  return move.to({ x = 1, y = 5 })
end
return M
";

fn shoot(dir: &Path, frames: u64, input: &[String], name: &str) -> PathBuf {
    // The scene by its absolute path, so the session file's paths name the files from anywhere.
    replay_in_window(
        dir,
        &dir.join("scene.yaml"),
        frames,
        &input.join("\n"),
        name,
    )
    .1
}

/// Pixels close to the ghost's faded blue over the floor.
fn ghostly(path: &Path) -> usize {
    let (_, _, px) = read_rgba(path);
    px.chunks_exact(4)
        .filter(|p| p[2] > p[0] + 8 && p[2] > p[1] + 8 && p[0] > 0xa0 && p[2] > 0xd0)
        .count()
}

/// The input: 60 ticks, pause, back 1 s (30 ticks) then 1 tick, forward 1 tick, branch at 30,
/// set a goal on the new branch, run on, save the session (Ctrl+E).
fn input(hide_ghost: bool) -> Vec<String> {
    let mut lines: Vec<String> = [
        r#"{"frame": 60, "key": "Space"}"#,
        r#"{"frame": 61, "key": "Comma", "shift": true}"#,
        r#"{"frame": 62, "key": "Comma"}"#,
        r#"{"frame": 63, "key": "Period"}"#,
        r#"{"frame": 64, "key": "Space"}"#,
        r#"{"frame": 65, "press": "right", "at": [7.0, 5.0]}"#,
        r#"{"frame": 66, "release": "right", "at": [7.0, 5.0]}"#,
        r#"{"frame": 118, "key": "E", "ctrl": true}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if hide_ghost {
        lines.push(r#"{"frame": 119, "key": "G"}"#.into());
    }
    lines
}

#[test]
fn rewind_branch_and_ghost_from_recorded_input() {
    let dir = scratch(&[("scene.yaml", SCENE), ("runner.lua", RUNNER)]);
    let shown = shoot(dir.path(), 121, &input(false), "ghost");
    let session_file = dir.path().join("scene.session.json");
    let rec = history::load_recording(&session_file).expect("Ctrl+E saved the session");
    // 64 frames ran 60 ticks; the branch at 30 ran on from frame 64 (the frame of Space)
    // to frame 118, where Ctrl+E came before that frame's tick.
    assert_eq!(rec.ticks, 30 + (118 - 64), "ticks of the live branch");
    let goal = rec
        .events
        .iter()
        .find(|e| matches!(e.input, Input::Goal(Some(_))))
        .expect("the goal set on the new branch");
    assert_eq!(
        goal.at, 31,
        "set the frame after the branch at 30 ran its first tick"
    );
    // The saved run replays exactly (the hashes are checked) and its first ticks are the
    // plain headless run's.
    let mut lines = Vec::new();
    history::replay(&rec, rec.ticks, |s, r| {
        lines.push(trace::line(s.world(), &r.events))
    })
    .expect("the replay matches the recorded hashes");
    let out = agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "60", "--trace", "-"],
    );
    let plain: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(&lines[..31], &plain[..31], "up to the goal, the plain run");
    assert_ne!(
        &lines[31..60],
        &plain[31..60],
        "the goal changed the branch"
    );

    // The saved session opens again in the window, replayed to its last tick.
    let scene = dir.path().join("scene.yaml");
    let reopened = in_window(
        dir.path(),
        &[
            OsStr::new("run"),
            scene.as_os_str(),
            OsStr::new("--session"),
            session_file.as_os_str(),
            OsStr::new("--frames"),
            OsStr::new("2"),
        ],
    );
    assert!(reopened.status.success(), "{}", stderr(&reopened));

    // The ghost: faded trails of the abandoned branch, hidden with G.
    let hidden = shoot(dir.path(), 121, &input(true), "hidden");
    let (with, without) = (ghostly(&shown), ghostly(&hidden));
    assert!(
        with > without + 100,
        "ghost pixels: {with} shown, {without} hidden"
    );
    // The timeline: the bar along the bottom, with its white cursor.
    let (w, h, px) = read_rgba(&shown);
    let bottom = &px[((h - 30) * w * 4) as usize..];
    let white = bottom
        .chunks_exact(4)
        .filter(|p| p[0] > 0xf0 && p[1] > 0xf0 && p[2] > 0xf0)
        .count();
    assert!(
        white > 20,
        "the timeline's cursor is drawn ({white} white pixels)"
    );
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        for f in ["ghost.png", "hidden.png"] {
            std::fs::copy(dir.path().join(f), Path::new(&keep).join(f)).unwrap();
        }
    }
}

#[test]
fn dragging_the_timeline_scrubs_and_space_branches_there() {
    let dir = scratch(&[("scene.yaml", SCENE), ("runner.lua", RUNNER)]);
    // The 16x7 map is fitted 63 px a tile in the 1024x768 window under the bar and the legend,
    // centred at (512, 392): row 8.86 is in the timeline (y 761 of 730..768); columns 8.61 and
    // 7.0 are at 52% and 38% of its track.
    let input: Vec<String> = [
        r#"{"frame": 60, "press": "left", "at": [8.61, 8.86]}"#,
        r#"{"frame": 61, "move": [7.0, 8.86]}"#,
        r#"{"frame": 62, "release": "left", "at": [7.0, 8.86]}"#,
        r#"{"frame": 63, "key": "Space"}"#,
        r#"{"frame": 64, "key": "E", "ctrl": true}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    shoot(dir.path(), 66, &input, "scrub");
    let rec = history::load_recording(&dir.path().join("scene.session.json")).unwrap();
    // Branched at the dragged-to tick (about 23 of 60), then one tick ran before Ctrl+E.
    assert!(
        (20..=27).contains(&rec.ticks),
        "branched near tick 23: {} ticks",
        rec.ticks
    );
}

/// Runs the window on the scratch scene with recorded input; its stderr.
fn run_input(dir: &Path, frames: u64, input: &[&str], name: &str) -> String {
    replay_in_window(
        dir,
        &dir.join("scene.yaml"),
        frames,
        &input.join("\n"),
        name,
    )
    .0
}

#[test]
fn scrub_back_branch_then_open_the_saved_session_with_ctrl_o() {
    let dir = scratch(&[("scene.yaml", SCENE), ("runner.lua", RUNNER)]);
    // 60 ticks, then a drag on the timeline going back over four frames (52%, 45%, 38%,
    // 30% of the track: about ticks 31, 27, 23, 18), Space branches there, Ctrl+E saves.
    run_input(
        dir.path(),
        70,
        &[
            r#"{"frame": 60, "press": "left", "at": [8.61, 8.86]}"#,
            r#"{"frame": 61, "move": [7.8, 8.86]}"#,
            r#"{"frame": 62, "move": [7.0, 8.86]}"#,
            r#"{"frame": 63, "move": [6.1, 8.86]}"#,
            r#"{"frame": 64, "release": "left", "at": [6.1, 8.86]}"#,
            r#"{"frame": 65, "key": "Space"}"#,
            r#"{"frame": 66, "key": "E", "ctrl": true}"#,
        ],
        "scrubback",
    );
    let file = dir.path().join("scene.session.json");
    let rec = history::load_recording(&file).unwrap();
    assert!(
        (14..=22).contains(&rec.ticks),
        "branched near tick 18, after scrubbing back: {} ticks",
        rec.ticks
    );
    // The saved session opens from the list: Ctrl+O, then the list on screen.
    run_input(
        dir.path(),
        5,
        &[r#"{"frame": 2, "key": "O", "ctrl": true}"#],
        "list",
    );
    let (w, _, px) = read_rgba(&dir.path().join("list.png"));
    // The selected row's blue, where the list's first row is (x 240..780, y 150..174 of 1024
    // window pixels; the screenshot may be larger on a high-DPI screen).
    let k = w as f32 / 1024.0;
    let row = (162.0 * k) as u32;
    let blue = (((300.0 * k) as u32)..((700.0 * k) as u32))
        .filter(|&x| {
            let i = ((row * w + x) * 4) as usize;
            let p = &px[i..i + 4];
            p[2] > 0x80 && p[2] > p[0] + 0x30
        })
        .count();
    assert!(
        blue > 100,
        "the list's selected row is drawn ({blue} blue pixels)"
    );
    // Enter opens it: the run is replayed to its last tick.
    let err = run_input(
        dir.path(),
        6,
        &[
            r#"{"frame": 2, "key": "O", "ctrl": true}"#,
            r#"{"frame": 3, "key": "Down"}"#,
            r#"{"frame": 4, "key": "Enter"}"#,
        ],
        "opened",
    );
    assert!(
        err.contains(&format!("scene.session.json at tick {}", rec.ticks)),
        "{err}"
    );
    // Esc closes the list without quitting the window (it runs its 6 frames).
    let err = run_input(
        dir.path(),
        6,
        &[
            r#"{"frame": 2, "key": "O", "ctrl": true}"#,
            r#"{"frame": 3, "key": "Escape"}"#,
        ],
        "closed",
    );
    assert!(!err.contains("opened"), "{err}");
    assert!(
        dir.path().join("closed.png").exists(),
        "the window ran to its last frame (the screenshot is taken there)"
    );
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        for f in ["scrubback.png", "list.png", "opened.png"] {
            std::fs::copy(dir.path().join(f), Path::new(&keep).join(f)).unwrap();
        }
    }
}

/// A hive spawning a drone every 10 ticks (from tick 5) and drones that leave after 20.
const HIVE_SCENE: &str = "\
name: hive travel
seed: 3
map:
  rows: |
    ################
    #..............#
    #..............#
    #..............#
    ################
agents:
  - { id: hive, kind: hive, at: [1, 2], script: hive.lua }
  - { id: drone-1, kind: drone, at: [2, 1], script: drone.lua, speed: 3 }
";
const HIVE: &str = "\
local M = {}
function M.decide(self, world)
  if world:tick() % 10 == 5 then
    world:spawn({ kind = 'drone', at = { 2, 1 + world:tick() // 10 % 3 } })
  end
  return move.stop()
end
return M
";
const DRONE: &str = "\
local M = {}
local steps = 0
function M.decide(self, world)
  steps = steps + 1
  self.memory.age = (self.memory.age or 0) + 1
  if self.memory.age >= 20 then self:remove() end
  return move.to({ x = 14, y = 1 + self.memory.age % 3 })
end
return M
";

#[test]
fn rewinding_across_spawns_and_removals_replays_exactly() {
    let dir = scratch(&[
        ("scene.yaml", HIVE_SCENE),
        ("hive.lua", HIVE),
        ("drone.lua", DRONE),
    ]);
    // 60 ticks (drones spawned and removed), pause, back 1 s then 1 tick (tick 29), inspect
    // a drone, branch there, run on and save the session.
    let input: Vec<String> = [
        r#"{"frame": 60, "key": "Space"}"#,
        r#"{"frame": 61, "key": "Comma", "shift": true}"#,
        r#"{"frame": 62, "key": "Comma"}"#,
        r#"{"frame": 63, "key": "Y"}"#,
        r#"{"frame": 64, "key": "Space"}"#,
        r#"{"frame": 100, "key": "E", "ctrl": true}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let shot = shoot(dir.path(), 102, &input, "hive");
    let rec = history::load_recording(&dir.path().join("scene.session.json"))
        .expect("Ctrl+E saved the session");
    assert_eq!(rec.ticks, 29 + (100 - 64), "ticks of the live branch");
    let mut lines = Vec::new();
    history::replay(&rec, rec.ticks, |s, r| {
        lines.push(trace::line(s.world(), &r.events))
    })
    .expect("the replay matches the recorded hashes");
    let out = agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "65", "--trace", "-"],
    );
    let plain: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(
        &lines[..],
        &plain[..lines.len()],
        "the branch is the plain run"
    );
    // Across the rewind point (29) and the branch's run on: spawns and removals at 26 and 36.
    assert!(
        plain[45].contains(r#"{"type":"remove","agent":"drone-4"}"#),
        "{}",
        plain[45]
    );
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        std::fs::copy(&shot, Path::new(&keep).join("hive.png")).unwrap();
    }
}
