//! A scene file saved while a 20,000-agent scene runs, applied through `Session::sync` and the
//! file watcher as the window and `headless --realtime` apply it: the run goes on from where it
//! was, every agent keeps its position and memory, and the one whose entry changed takes the
//! changed fields only. How long the save stalls the run is `live_bench save`'s figure.

use crate::common;

use agentbox_session::session::{Reload, Session};
use agentbox_session::watch::FileWatcher;
use std::time::Duration;

const AGENTS: usize = 20_000;
const SIDE: usize = 160;

fn scene(version: usize) -> String {
    let mut yaml = format!("name: crowd v{version}\nmap:\n  rows: |\n");
    for y in 0..SIDE {
        let mut row = vec![b'.'; SIDE];
        if y == SIDE - 2 {
            row[version] = b'#';
        }
        yaml.push_str("    ");
        yaml.push_str(std::str::from_utf8(&row).unwrap());
        yaml.push('\n');
    }
    yaml.push_str("agents:\n");
    for i in 0..AGENTS {
        yaml.push_str(&format!(
            "  - id: w{i}\n    at: [{}, {}]\n    script: walker.lua\n",
            i % SIDE,
            i / SIDE
        ));
        if i == 0 {
            yaml.push_str(&format!("    params: {{ version: {version} }}\n"));
        }
    }
    yaml
}

const WALKER: &str = "local M = {}\nfunction M.decide(self, world)\n  self.memory.n = (self.memory.n or 0) + 1\n  return move.to({ x = 80, y = 140 })\nend\nreturn M\n";

#[test]
fn saving_a_large_scene_while_it_runs_keeps_the_agents_state() {
    let v0 = scene(0);
    let dir = common::scratch(&[("crowd.yaml", &v0), ("walker.lua", WALKER)]);
    let path = dir.path().join("crowd.yaml");
    let mut session = Session::open_with(&path, None, true).expect("the crowd opens");
    let mut watcher = FileWatcher::new();
    watcher.watch(&session.watched_files());
    for _ in 0..5 {
        session.sync(&mut watcher);
        session.tick();
    }
    let before: Vec<_> = session.world().agents.iter().map(|a| a.pos).collect();
    let start = &session
        .start_world()
        .expect("the start builds again")
        .agents;
    assert_ne!(before[1], start[1].pos, "the walkers moved before the save");

    // An editor's atomic save: a new wall tile, a new name, the first agent's params changed.
    let tmp = dir.path().join(".crowd.yaml.tmp");
    std::fs::write(&tmp, scene(1)).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let reloads = common::patiently(|| {
        watcher.wait(Duration::from_millis(50));
        Some(session.sync(&mut watcher)).filter(|r| !r.is_empty())
    })
    .expect("the save was applied");
    assert!(
        matches!(reloads.as_slice(), [Reload::SceneOk(..)]),
        "{reloads:?}"
    );
    let world = session.world();
    assert_eq!(world.name, "crowd v1");
    assert_eq!(world.tick, 5, "the run goes on from where it was");
    assert!(world.is_blocked(glam::IVec2::new(1, SIDE as i32 - 2)));
    assert_eq!(world.agents.len(), AGENTS);
    // Every agent is where it was, in scene order; the changed one has its new params.
    for (i, (agent, pos)) in world.agents.iter().zip(&before).enumerate() {
        assert_eq!(agent.id, format!("w{i}"));
        assert_eq!(agent.pos, *pos, "{}", agent.id);
    }
    assert_eq!(world.agents[0].params["version"], 1);
    match reloads.as_slice() {
        [Reload::SceneOk(_, edits)] => assert_eq!(edits.summary(), "w0 params"),
        other => panic!("{other:?}"),
    }
    session.tick();
    // Memory went on for every agent, the edited one too.
    assert_eq!(session.memory_text("w1").unwrap(), "{\n  n = 6\n}");
    assert_eq!(session.memory_text("w19999").unwrap(), "{\n  n = 6\n}");
    assert_eq!(session.memory_text("w0").unwrap(), "{\n  n = 6\n}");
    assert_eq!(session.world().tick, 6);
}

/// Agents are matched by id wherever they stand in the file: a save that inserts an agent
/// before the others and swaps two keeps the state of every agent whose entry is the same,
/// and drops the one that left.
#[test]
fn a_save_that_moves_agents_in_the_file_keeps_them_by_id() {
    let entry =
        |id: &str, x: usize| format!("  - id: {id}\n    at: [{x}, 1]\n    script: walker.lua\n");
    let scene = |ids: &[(&str, usize)]| {
        let agents: String = ids.iter().map(|&(id, x)| entry(id, x)).collect();
        format!("name: few\nmap:\n  rows: |\n    ..........\n    ..........\n    ..........\nagents:\n{agents}")
    };
    let counter = "local M = {}\nfunction M.decide(self, world)\n  self.memory.n = (self.memory.n or 0) + 1\n  return move.to({ x = 9, y = 1 })\nend\nreturn M\n";
    let first = scene(&[("a", 0), ("b", 1), ("c", 2)]);
    let dir = common::scratch(&[("few.yaml", &first), ("walker.lua", counter)]);
    let path = dir.path().join("few.yaml");
    let mut session = Session::open_with(&path, None, true).expect("the scene opens");
    for _ in 0..3 {
        session.tick();
    }
    let pos = |s: &Session, id: &str| s.world().agents.iter().find(|a| a.id == id).unwrap().pos;
    let (a, b) = (pos(&session, "a"), pos(&session, "b"));
    std::fs::write(&path, scene(&[("z", 5), ("b", 1), ("a", 0)])).unwrap();
    let reloads = session.apply_changes(std::slice::from_ref(&path));
    assert!(
        matches!(reloads.as_slice(), [Reload::SceneOk(..)]),
        "{reloads:?}"
    );
    let ids: Vec<&str> = session
        .world()
        .agents
        .iter()
        .map(|a| a.id.as_str())
        .collect();
    assert_eq!(ids, ["z", "b", "a"], "the file's order");
    assert_eq!((pos(&session, "a"), pos(&session, "b")), (a, b));
    session.tick();
    assert_eq!(session.memory_text("a").unwrap(), "{\n  n = 4\n}");
    assert_eq!(session.memory_text("b").unwrap(), "{\n  n = 4\n}");
    assert_eq!(session.memory_text("z").unwrap(), "{\n  n = 1\n}");
    assert!(session.memory_text("c").is_none(), "c left");
}

/// The window's path for a scene saved while it runs (the history's recorded reload): the
/// runner whose `speed` was edited keeps its place and memory and moves at the new speed, the
/// next tick's trace line says so, and a replay of the recording does the same, byte for byte.
#[test]
fn an_edited_speed_through_the_history_keeps_state_and_replays() {
    use agentbox_session::history::{self, History};
    let scene = |speed: &str| {
        format!(
            "name: tune\ntick_rate: 10\nmap:\n  rows: |\n    {}\nagents:\n  - id: runner\n    at: [0, 0]\n    speed: {speed} # tiles a second\n    script: run.lua\n",
            ".".repeat(40)
        )
    };
    let run = "local M = {}\nfunction M.decide(self, world)\n  self.memory.n = (self.memory.n or 0) + 1\n  return move.to({ x = 39, y = 0 })\nend\nreturn M\n";
    let dir = common::scratch(&[("scene.yaml", &scene("4")), ("run.lua", run)]);
    let path = dir.path().join("scene.yaml");
    let mut h = History::open_with(&path, None, true).expect("the scene opens");
    for _ in 0..5 {
        h.tick();
    }
    let x = |h: &History| h.session().world().agents[0].pos.x;
    assert!(
        (x(&h) - 2.0).abs() < 1e-9,
        "4 tiles a second for half a second"
    );
    std::fs::write(&path, scene("1")).unwrap();
    let reloads = h.apply_changes(std::slice::from_ref(&path));
    assert_eq!(
        reloads[0].to_string(),
        format!("reloaded scene {}: runner speed", path.display())
    );
    assert!((x(&h) - 2.0).abs() < 1e-9, "still where it was");
    let report = h.tick();
    assert_eq!(
        serde_json::to_value(&report.events).unwrap(),
        serde_json::json!([{"type": "reload", "agent": "runner", "fields": ["speed"]}])
    );
    assert!(
        (x(&h) - 2.1).abs() < 1e-9,
        "a tenth of a tile a tick now: {}",
        x(&h)
    );
    assert_eq!(h.session().memory_text("runner").unwrap(), "{\n  n = 6\n}");
    let replayed = history::replay(h.recording(), 6, |_, _| {}).expect("the replay holds");
    assert_eq!(
        replayed.world().agents[0].pos,
        h.session().world().agents[0].pos
    );
    assert_eq!(replayed.memory_text("runner").unwrap(), "{\n  n = 6\n}");
}

/// Through `Session::sync` a saved scene is built on another thread: the sync that sees the
/// save returns without it and the run ticks on; a later sync applies it. A broken save is
/// reported located, the same way, and the last good version keeps running.
#[test]
fn a_save_through_sync_is_built_off_the_tick_and_a_broken_one_keeps_the_last_good() {
    let scene = |name: &str| {
        format!("name: {name}\nmap:\n  rows: |\n    ..........\n    ..........\nagents:\n  - id: a\n    at: [0, 0]\n    script: walker.lua\n")
    };
    let dir = common::scratch(&[("few.yaml", &scene("first")), ("walker.lua", WALKER)]);
    let path = dir.path().join("few.yaml");
    let mut session = Session::open_with(&path, None, true).expect("the scene opens");
    let mut watcher = FileWatcher::new();
    watcher.watch(&session.watched_files());
    session.tick();
    let save = |text: &str| {
        let tmp = dir.path().join(".few.yaml.tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    };
    // Applied by a later sync than the one that saw it, the ticks going on meanwhile.
    save(&scene("second"));
    let seen = common::patiently(|| {
        watcher.wait(Duration::from_millis(50));
        let reloads = session.sync(&mut watcher);
        session.scene_loading().then_some(reloads)
    })
    .expect("the save was seen");
    assert!(seen.is_empty(), "{seen:?}");
    let reloads = common::patiently(|| {
        session.tick();
        Some(session.sync(&mut watcher)).filter(|r| !r.is_empty())
    })
    .expect("the save was applied");
    assert!(
        matches!(reloads.as_slice(), [Reload::SceneOk(..)]),
        "{reloads:?}"
    );
    assert_eq!(session.world().name, "second");
    assert!(session.world().tick >= 2, "the run went on");
    // A broken save: located, and the last good version runs on.
    save("name: third\nmap:\n  rows: |\n    ....\nagents:\n  - id: a\n    at: [9, 0]\n");
    let reloads = common::patiently(|| {
        watcher.wait(Duration::from_millis(20));
        Some(session.sync(&mut watcher)).filter(|r| !r.is_empty())
    })
    .expect("the broken save was reported");
    let message = match reloads.as_slice() {
        [Reload::SceneFailed(message)] => message.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        message.starts_with(&format!("{}:7:9: error:", path.display())),
        "{message}"
    );
    assert_eq!(session.world().name, "second");
    let tick = session.world().tick;
    session.tick();
    assert_eq!(session.world().tick, tick + 1);
}
