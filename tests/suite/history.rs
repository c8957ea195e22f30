//! Time travel: exact rewind (through the library's `History`) and headless branching
//! (`headless --branch-at T --replace SCRIPT=OTHER`, through the binary).

use crate::common;
use agentbox_core::sim::trace;
use agentbox_session::history::{self, History};
use common::{agentbox_in, scratch, stderr, stdout};
use glam::IVec2;
use std::path::{Path, PathBuf};

const SCENE: &str = "\
name: history
seed: 11
map:
  rows: |
    ##############
    #............#
    #............#
    #....##......#
    #............#
    #............#
    ##############
agents:
  - { id: a, at: [1, 1], script: scripts/walker.lua }
  - { id: b, at: [12, 5], script: scripts/walker.lua }
  - { id: c, at: [6, 1], script: scripts/plain.lua }
";

/// State in a module local (`steps`), in the required module's local (`lib.turns`) and in a
/// global-like upvalue: none of it is in `self.memory`, so only an exact replay restores it.
const WALKER: &str = "\
local lib = require('lib.turn')
local steps = 0
local M = {}
function M.decide(self, world)
  steps = steps + 1
  self.memory.n = (self.memory.n or 0) + 1
  local d = lib.pick(steps + math.random(0, 3))
  return move.to({ x = self.pos.x + d[1] * 2, y = self.pos.y + d[2] * 2 })
end
return M
";

const WALKER_V2: &str = "\
local lib = require('lib.turn')
local steps = 0
local M = {}
function M.on_reload(self)
  self.memory.reloaded = self.memory.n
end
function M.decide(self, world)
  steps = steps + 3
  local d = lib.pick(steps + (self.memory.reloaded or 0))
  return move.to({ x = self.pos.x - d[1] * 2, y = self.pos.y + d[2] * 2 })
end
return M
";

const TURN: &str = "\
local M = {}
local turns = 0
local dirs = { {1, 0}, {0, 1}, {-1, 0}, {0, -1} }
function M.pick(n)
  turns = turns + 1
  return dirs[(n + turns // 7) % 4 + 1]
end
return M
";

const TURN_V2: &str = "\
local M = {}
local dirs = { {1, 1}, {-1, 1}, {-1, -1}, {1, -1} }
function M.pick(n)
  return dirs[n % 4 + 1]
end
return M
";

const PLAIN: &str = "\
local M = {}
function M.decide(self, world)
  return move.to(world:goal() or { x = 10, y = 4 })
end
return M
";

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = scratch(&[
        ("scene.yaml", SCENE),
        ("scripts/walker.lua", WALKER),
        ("scripts/walker2.lua", WALKER_V2),
        ("scripts/lib/turn.lua", TURN),
        ("scripts/lib/turn2.lua", TURN_V2),
        ("scripts/plain.lua", PLAIN),
        ("scripts/unused.lua", PLAIN),
    ]);
    let scene = dir.path().join("scene.yaml");
    (dir, scene)
}

fn run(h: &mut History, n: u64, lines: &mut Vec<String>) {
    for _ in 0..n {
        let report = h.tick();
        lines.push(trace::line(h.session().world(), &report.events));
    }
}

/// A run with every kind of input and a script save, recorded; its trace lines.
fn recorded_run(dir: &Path, scene: &Path) -> (History, Vec<String>) {
    recorded_run_with(dir, scene, false)
}

/// [`recorded_run`], keeping frames (as the window does) when `frames`.
fn recorded_run_with(dir: &Path, scene: &Path, frames: bool) -> (History, Vec<String>) {
    let mut h = History::open_with(scene, None, true).unwrap();
    h.keep_frames(frames);
    let mut lines = Vec::new();
    run(&mut h, 15, &mut lines);
    h.set_goal(Some(IVec2::new(3, 4)));
    h.set_keyboard(IVec2::new(1, 0));
    run(&mut h, 10, &mut lines);
    assert!(h.set_terrain(IVec2::new(8, 2), 1), "a wall painted");
    assert!(h.place("c", IVec2::new(2, 5)), "c dropped");
    run(&mut h, 10, &mut lines);
    // A save of the script at tick 35, as the watcher reports it.
    std::fs::write(dir.join("scripts/walker.lua"), WALKER_V2).unwrap();
    let reloads = h.apply_changes(&[dir.join("scripts/walker.lua")]);
    assert_eq!(reloads.len(), 1, "{reloads:?}");
    run(&mut h, 45, &mut lines);
    (h, lines)
}

#[test]
fn a_replay_from_tick_zero_reproduces_the_run_whatever_the_files_say_now() {
    let (dir, scene) = setup();
    let (h, lines) = recorded_run(dir.path(), &scene);
    assert_eq!(h.ticks(), 80);
    // The files change after the run: the replay reads the recorded versions.
    std::fs::write(dir.path().join("scripts/lib/turn.lua"), TURN_V2).unwrap();
    std::fs::write(dir.path().join("scripts/walker.lua"), PLAIN).unwrap();
    let mut again = Vec::new();
    history::replay(h.recording(), 80, |s, r| {
        again.push(trace::line(s.world(), &r.events))
    })
    .unwrap();
    assert_eq!(again.len(), lines.len());
    for (i, (a, b)) in lines.iter().zip(&again).enumerate() {
        assert_eq!(a, b, "tick {}", i + 1);
    }
    // The run did move, and the save changed the walkers' course.
    assert_ne!(lines[10], lines[30]);
}

#[test]
fn rewinding_with_module_state_then_playing_on_gives_the_same_trace_byte_for_byte() {
    let (dir, scene) = setup();
    let (mut h, lines) = recorded_run(dir.path(), &scene);
    for to in [50u64, 20, 0] {
        // The files as they were at `to`, so playing on from there runs the same code.
        let walker = dir.path().join("scripts/walker.lua");
        std::fs::write(&walker, if to < 35 { WALKER } else { WALKER_V2 }).unwrap();
        let (abandoned, reloads) = h.branch(to).unwrap();
        assert!(abandoned.ticks >= 80, "the whole old branch is returned");
        assert!(reloads.is_empty(), "the files did not change: {reloads:?}");
        assert_eq!(h.ticks(), to);
        let mut more: Vec<String> = lines[..to as usize].to_vec();
        // The inputs after `to` were dropped with the abandoned future: give the same again.
        let go = |h: &mut History, until: u64, more: &mut Vec<String>| {
            let n = until - h.ticks();
            run(h, n, more);
        };
        if to < 15 {
            go(&mut h, 15, &mut more);
        }
        if h.ticks() == 15 {
            h.set_goal(Some(IVec2::new(3, 4)));
            h.set_keyboard(IVec2::new(1, 0));
        }
        if h.ticks() < 25 {
            go(&mut h, 25, &mut more);
        }
        if h.ticks() == 25 {
            assert!(h.set_terrain(IVec2::new(8, 2), 1));
            assert!(h.place("c", IVec2::new(2, 5)));
        }
        if h.ticks() < 35 {
            go(&mut h, 35, &mut more);
        }
        if h.ticks() == 35 {
            std::fs::write(&walker, WALKER_V2).unwrap();
            h.apply_changes(std::slice::from_ref(&walker));
        }
        go(&mut h, 80, &mut more);
        assert_eq!(more.len(), 80);
        for (i, (a, b)) in lines.iter().zip(&more).enumerate() {
            assert_eq!(a, b, "rewound to {to}: tick {}", i + 1);
        }
    }
}

#[test]
fn a_branch_runs_the_files_as_they_are_now_from_the_next_tick() {
    let (dir, scene) = setup();
    let (mut h, lines) = recorded_run(dir.path(), &scene);
    // Edit the module after the run, then rewind to 50 and play: new code from tick 51.
    std::fs::write(dir.path().join("scripts/lib/turn.lua"), TURN_V2).unwrap();
    let (_, reloads) = h.branch(50).unwrap();
    assert_eq!(
        reloads.len(),
        1,
        "the module's dependent reloads: {reloads:?}"
    );
    let mut more = Vec::new();
    run(&mut h, 30, &mut more);
    assert!(more[0].starts_with("{\"tick\":51,"), "{}", more[0]);
    assert_ne!(
        more,
        lines[50..].to_vec(),
        "the new module changed the walkers"
    );
    // The branch is itself exact.
    let mut again = Vec::new();
    history::replay(h.recording(), 80, |s, r| {
        again.push(trace::line(s.world(), &r.events))
    })
    .unwrap();
    assert_eq!(&again[..50], &lines[..50]);
    assert_eq!(&again[50..], &more[..]);
}

#[test]
fn a_session_file_round_trips_and_replays() {
    let (dir, scene) = setup();
    let (h, lines) = recorded_run(dir.path(), &scene);
    let file = dir.path().join("run.session.json");
    history::save_recording(h.recording(), &file).unwrap();
    let back = history::load_recording(&file).unwrap();
    assert_eq!(&back, h.recording());
    let mut again = Vec::new();
    history::replay(&back, 80, |s, r| {
        again.push(trace::line(s.world(), &r.events))
    })
    .unwrap();
    assert_eq!(again, lines);
    // A damaged hash is noticed, not shown as the past.
    let mut bad = back.clone();
    *bad.hashes.get_mut(&64).unwrap() ^= 1;
    let e = history::replay(&bad, 80, |_, _| {}).err().unwrap();
    assert!(e.contains("tick 64"), "{e}");
    std::fs::write(&file, "{\"agentbox_session\":1}").unwrap();
    let e = history::load_recording(&file).unwrap_err().to_string();
    assert!(e.contains("run.session.json:1:"), "{e}");
}

// ---- headless branching through the binary ----

fn headless(dir: &Path, extra: &[&str]) -> (Vec<String>, std::process::Output) {
    let mut args = vec!["headless", "scene.yaml", "--ticks", "60", "--trace", "-"];
    args.extend_from_slice(extra);
    let out = agentbox_in(dir, &args);
    let lines = stdout(&out).lines().map(str::to_string).collect();
    (lines, out)
}

#[test]
fn a_headless_branch_keeps_the_prefix_and_changes_behaviour_after_t() {
    let (dir, _) = setup();
    let (plain, out) = headless(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(plain.len(), 60);
    for (replace, what) in [
        ("scripts/walker.lua=scripts/walker2.lua", "a script"),
        ("scripts/lib/turn.lua=scripts/lib/turn2.lua", "a module"),
    ] {
        let (branched, out) = headless(dir.path(), &["--branch-at", "20", "--replace", replace]);
        assert!(out.status.success(), "{what}: {}", stderr(&out));
        assert_eq!(&branched[..20], &plain[..20], "{what}: ticks up to 20");
        assert_ne!(branched[20], plain[20], "{what}: tick 21 runs the new code");
        assert_eq!(branched.len(), 60);
    }
    // Repeated, and named by other spellings of the same files.
    let abs = dir.path().join("scripts/walker2.lua");
    let both = [
        "--branch-at",
        "20",
        "--replace",
        &format!("./scripts/../scripts/walker.lua={}", abs.display()),
        "--replace",
        "scripts/lib/turn.lua=scripts/lib/turn2.lua",
    ];
    let (branched, out) = headless(dir.path(), &both);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(&branched[..20], &plain[..20]);
    let (one, _) = headless(
        dir.path(),
        &[
            "--branch-at",
            "20",
            "--replace",
            "scripts/walker.lua=scripts/walker2.lua",
        ],
    );
    assert_ne!(branched[25..], one[25..], "both replacements apply");
}

#[test]
fn a_headless_branch_is_what_saving_other_over_script_at_t_does() {
    let (dir, scene) = setup();
    let (branched, out) = headless(
        dir.path(),
        &[
            "--branch-at",
            "20",
            "--replace",
            "scripts/walker.lua=scripts/walker2.lua",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The same in the library, the way the window applies a save.
    let mut h = History::open_with(&scene, None, true).unwrap();
    let mut lines = Vec::new();
    run(&mut h, 20, &mut lines);
    let walker = h
        .session()
        .watched_files()
        .into_iter()
        .find(|p| p.ends_with("walker.lua"))
        .unwrap();
    std::fs::write(dir.path().join("scripts/walker.lua"), WALKER_V2).unwrap();
    h.apply_changes(&[walker]);
    run(&mut h, 40, &mut lines);
    assert_eq!(lines, branched);
    // on_reload ran with the memory kept: the new decide reads `reloaded`.
    let memory = h.session().memory_text("a").unwrap();
    assert!(memory.contains("reloaded = 20"), "{memory}");
}

#[test]
fn a_replacement_nothing_uses_is_a_usage_error() {
    let (dir, _) = setup();
    for (spec, needle) in [
        (
            "scripts/unused.lua=scripts/walker2.lua",
            "no agent's script",
        ),
        (
            "scripts/nope.lua=scripts/walker2.lua",
            "SCRIPT scripts/nope.lua",
        ),
        (
            "scripts/walker.lua=scripts/nope.lua",
            "OTHER scripts/nope.lua",
        ),
        ("scripts/walker.lua", "expected SCRIPT=OTHER"),
    ] {
        let (_, out) = headless(dir.path(), &["--branch-at", "5", "--replace", spec]);
        assert_eq!(out.status.code(), Some(2), "{spec}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{spec}: {}", stderr(&out));
    }
    let (_, out) = headless(dir.path(), &["--branch-at", "5"]);
    assert_eq!(out.status.code(), Some(2), "--branch-at needs --replace");
}

#[test]
fn an_exported_branch_runs_headless_as_it_ran() {
    let (dir, scene) = setup();
    let mut h = History::open_with(&scene, None, true).unwrap();
    let mut lines = Vec::new();
    run(&mut h, 40, &mut lines);
    std::fs::write(dir.path().join("scripts/lib/turn.lua"), TURN_V2).unwrap();
    let (_, reloads) = h.branch(25).unwrap();
    assert_eq!(reloads.len(), 1, "{reloads:?}");
    let mut branched = lines[..25].to_vec();
    run(&mut h, 35, &mut branched);
    let out = dir.path().join("export");
    let command = history::export_branch(h.recording(), &out).unwrap();
    assert!(command.contains("--branch-at 25 --replace"), "{command}");
    let ran = common::pasted(dir.path(), &command, &["--trace", "-"]);
    assert!(ran.status.success(), "{command}: {}", stderr(&ran));
    let got: Vec<String> = stdout(&ran).lines().map(str::to_string).collect();
    assert_eq!(got, branched, "{command}");
    // A run with window edits has no headless command.
    h.set_goal(Some(IVec2::new(2, 2)));
    let e = history::export_branch(h.recording(), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("window edits"), "{e}");
}

#[test]
fn parked_replays_jump_to_the_same_ticks_as_a_replay_from_zero() {
    let (dir, scene) = setup();
    let (_h, lines) = recorded_run(dir.path(), &scene);
    let rec = _h.recording();
    let mut parked = history::Parked::new(16);
    for _ in 0..40 {
        parked.work(rec, 7).unwrap();
    }
    assert_eq!(parked.ticks(), vec![16, 32, 48, 64, 80]);
    for to in [50u64, 33, 79, 5] {
        let mut r = parked.take(rec, to).unwrap();
        assert_eq!(r.tick(), to);
        let mut next = Vec::new();
        r.advance_to(80, |s, rep| next.push(trace::line(s.world(), &rep.events)))
            .unwrap();
        assert_eq!(next, lines[to as usize..].to_vec(), "from {to}");
    }
    // 48 and 32 were used up (50 and 33), and so was 64 (79): rebuilt by more work.
    assert_eq!(parked.ticks(), vec![16, 80]);
    for _ in 0..60 {
        parked.work(rec, 7).unwrap();
    }
    assert_eq!(parked.ticks(), vec![16, 32, 48, 64, 80]);
}

/// Everything the window shows of a tick: the agents (every field), the map, the goal, the
/// HUD's errors and the inspector's memory lines, and what `world:memory` reads then.
pub(crate) fn shown_text(s: &dyn history::TickView) -> String {
    let w = s.world();
    let mut out = format!(
        "tick {} goal {:?} map {} {:?}\n{:?}\n",
        w.tick,
        w.goal,
        w.map_version(),
        s.current_errors(),
        w.agents
    );
    for a in &w.agents {
        out += &format!(
            "{}: {:?} {:?}\n",
            a.id,
            s.memory_text(&a.id),
            s.memory_held(&a.id)
        );
    }
    out += &format!("{:?}\n", s.memories_json());
    out
}

#[test]
fn every_kept_frame_shows_what_a_replay_shows_at_that_tick() {
    let (dir, scene) = setup();
    let (h, _) = recorded_run_with(dir.path(), &scene, true);
    let mut r = history::Replayer::new(h.recording()).unwrap();
    // Backwards too: a frame never depends on the one shown before.
    let mut shown = Vec::new();
    for to in 1..=h.ticks() {
        r.advance_to(to, |_, _| {}).unwrap();
        let frame = h.frame(to).unwrap_or_else(|| panic!("no frame at {to}"));
        assert_eq!(frame.tick, to);
        let (want, got) = (shown_text(r.session()), shown_text(&frame));
        assert_eq!(got, want, "tick {to}");
        shown.push(want);
    }
    for to in (1..=h.ticks()).rev() {
        let frame = h.frame(to).unwrap();
        assert_eq!(shown_text(&frame), shown[to as usize - 1], "back to {to}");
    }
    // The walkers keep memory and the save at 35 changed the map of inputs: not a trivial run.
    assert!(shown[79].contains("reloaded"), "{}", shown[79]);
    assert_ne!(shown[20], shown[40]);
}

#[test]
fn frames_follow_a_branch_and_stay_exact_after_it() {
    let (dir, scene) = setup();
    let (mut h, _) = recorded_run_with(dir.path(), &scene, true);
    h.branch(50).unwrap();
    assert!(h.frame(51).is_none(), "nothing kept past the branch");
    let mut lines = Vec::new();
    run(&mut h, 30, &mut lines);
    let mut r = history::Replayer::new(h.recording()).unwrap();
    for to in [1u64, 33, 49, 50, 51, 64, 79, 80] {
        r = if r.tick() > to {
            history::Replayer::new(h.recording()).unwrap()
        } else {
            r
        };
        r.advance_to(to, |_, _| {}).unwrap();
        let frame = h.frame(to).unwrap();
        assert_eq!(shown_text(&frame), shown_text(r.session()), "tick {to}");
    }
}

// ---- the inspector's memory edit, as recorded input ----

const COUNTER: &str = "\
local M = {}
function M.decide(self, world)
  self.memory.n = (self.memory.n or 0) + 1
  self.memory.mood = self.memory.mood or 'calm'
  if self.memory.alert == nil then self.memory.alert = false end
  print('n=' .. self.memory.n .. ' mood=' .. self.memory.mood .. ' alert=' .. tostring(self.memory.alert))
  return move.stop()
end
return M
";

/// A number, a string and a boolean set in `self.memory` between ticks are what the script
/// reads next tick; the edits are saved in the session file and a replay repeats them.
#[test]
fn a_memory_edit_is_seen_by_the_script_and_replayed_from_the_session_file() {
    let dir = scratch(&[
        (
            "scene.yaml",
            "name: mem\nseed: 3\nmap:\n  rows: |\n    #####\n    #...#\n    #####\nagents:\n  - { id: a, at: [1, 1], script: counter.lua }\n",
        ),
        ("counter.lua", COUNTER),
    ]);
    let scene = dir.path().join("scene.yaml");
    let mut h = History::open_with(&scene, None, true).unwrap();
    let mut lines = Vec::new();
    run(&mut h, 3, &mut lines);
    let key = |k: &str| vec![k.to_string()];
    h.set_memory("a", &key("n"), serde_json::json!(100))
        .unwrap();
    h.set_memory("a", &key("mood"), serde_json::json!("angry"))
        .unwrap();
    h.set_memory("a", &key("alert"), serde_json::json!(true))
        .unwrap();
    // A bad edit says why and records nothing.
    let events = h.recording().events.len();
    let e = h
        .set_memory(
            "a",
            &["n".to_string(), "x".to_string()],
            serde_json::json!(1),
        )
        .unwrap_err();
    assert!(e.contains("memory.n.x is not a table"), "{e}");
    assert!(h
        .set_memory("nobody", &key("n"), serde_json::json!(1))
        .is_err());
    assert_eq!(h.recording().events.len(), events);
    run(&mut h, 2, &mut lines);
    assert!(
        lines[2].contains("n=3 mood=calm alert=false"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains("n=101 mood=angry alert=true"),
        "{}",
        lines[3]
    );
    assert_eq!(
        h.session().memory_json("a").unwrap()["n"],
        serde_json::json!(102)
    );
    let file = dir.path().join("mem.session.json");
    history::save_recording(h.recording(), &file).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(r#""set_memory":{"agent":"a","path":["mood"],"value":"angry"}"#),
        "{text}"
    );
    let back = history::load_recording(&file).unwrap();
    assert_eq!(&back, h.recording());
    let mut again = Vec::new();
    history::replay(&back, 5, |s, r| {
        again.push(trace::line(s.world(), &r.events))
    })
    .unwrap();
    assert_eq!(again, lines);
}

/// A path's shared tile kept in memory is read-only to the inspector's edit too (a raw write
/// would move that tile in every path): the edit is refused with a reason and recorded nowhere.
#[test]
fn a_memory_edit_refuses_a_shared_path_tile() {
    let dir = scratch(&[
        (
            "scene.yaml",
            "name: mem\nseed: 3\nmap:\n  rows: |\n    #####\n    #...#\n    #####\nagents:\n  - { id: a, at: [1, 1], script: keep.lua }\n",
        ),
        (
            "keep.lua",
            "local M = {}\nfunction M.decide(self, world)\n  self.memory.path = nav.path({1, 1}, {3, 1})\n  return move.stop()\nend\nreturn M\n",
        ),
    ]);
    let mut h = History::open_with(&dir.path().join("scene.yaml"), None, true).unwrap();
    let mut lines = Vec::new();
    run(&mut h, 1, &mut lines);
    let events = h.recording().events.len();
    let path: Vec<String> = ["path", "1", "x"].iter().map(|s| s.to_string()).collect();
    let e = h.set_memory("a", &path, serde_json::json!(9)).unwrap_err();
    assert!(
        e.contains("memory.path.1.x is in a tile of a path from nav.path, which is read-only"),
        "{e}"
    );
    assert_eq!(h.recording().events.len(), events);
}
