//! Soak: 1,000 rapid saves of one script, alternating good and broken versions and ending on
//! a good one, applied through the same `Session::sync` + `FileWatcher` path the window and
//! `headless --realtime` use. The final behaviour must be the last file's, nothing may crash,
//! and memory must stay flat (Lua's own count and the process's resident size). It runs in a
//! process of its own (`common::alone`), so the resident size is the soak's alone.

use crate::common;

use agentbox_session::session::Session;
use agentbox_session::watch::FileWatcher;
use common::scratch;
use std::path::Path;
use std::time::Duration;

const SCENE: &str = "name: soak\nmap:\n  rows: |\n    ......\n    ......\nagents:\n  - id: a\n    at: [0, 0]\n    script: scripts/a.lua\n  - id: b\n    at: [5, 1]\n    script: scripts/b.lua\n";

/// Good version `n`: stops on even saves, chases on odd ones, and keeps a little memory.
fn good(n: usize) -> String {
    let act = if n % 4 == 1 {
        "move.chase({ x = 5, y = 1 })"
    } else {
        "move.stop()"
    };
    format!(
        "local util = require('util')\nlocal M = {{}}\nM.version = {n}\nfunction M.on_reload(self) self.memory.reloads = (self.memory.reloads or 0) + 1 end\nfunction M.decide(self, world)\n  self.memory.trail = util.push(self.memory.trail or {{}}, {n})\n  return {act}\nend\nreturn M\n"
    )
}

fn broken(n: usize) -> String {
    format!("local M = {{}}\n-- save {n}\nfunction M.decide(self, world)\n  return move.stop(\nend\nreturn M\n")
}

const UTIL: &str = "local U = {}\nfunction U.push(t, v)\n  t[#t + 1] = v\n  if #t > 8 then table.remove(t, 1) end\n  return t\nend\nreturn U\n";

fn rss_kb() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn action(session: &Session, id: &str) -> &'static str {
    session
        .world()
        .agent(id)
        .map(|a| a.action.name())
        .unwrap_or("")
}

#[test]
fn a_thousand_saves_end_on_the_last_good_version_with_flat_memory() {
    common::alone(
        "soak::a_thousand_saves_end_on_the_last_good_version_with_flat_memory",
        soak,
    );
}

fn soak() {
    let dir = scratch(&[
        ("scene.yaml", SCENE),
        ("scripts/a.lua", &good(0)),
        (
            "scripts/b.lua",
            "return { decide = function(self) return move.to({ x = 0, y = 1 }) end }\n",
        ),
        ("scripts/util.lua", UTIL),
    ]);
    let scene = dir.path().join("scene.yaml");
    let script = dir.path().join("scripts/a.lua");
    let mut session = Session::open(&scene, None).expect("the scene opens");
    let mut watcher = FileWatcher::new();
    watcher.watch(&session.watched_files());
    let mut reloads = 0;
    let mut failures = 0;
    let mut memory_at = Vec::new();
    let mut rss_at = Vec::new();
    for n in 1..=1000usize {
        let text = if n % 2 == 1 { good(n) } else { broken(n) };
        std::fs::write(&script, text).unwrap();
        // Several saves land between most polls (a burst), as when an editor autosaves.
        if n % 3 == 0 {
            for r in session.sync(&mut watcher) {
                match r {
                    agentbox_session::session::Reload::ScriptOk(_) => reloads += 1,
                    agentbox_session::session::Reload::ScriptFailed(_) => failures += 1,
                    _ => {}
                }
            }
            session.tick();
        }
        if n == 200 || n == 1000 {
            session.host_mut().collect_garbage();
            memory_at.push(session.host_mut().used_memory());
            rss_at.push(rss_kb());
        }
    }
    // The last save (1000) was broken; end on a good one and wait for it to take over.
    let last = good(1001);
    write_last(&script, &last);
    common::patiently(|| {
        watcher.wait(Duration::from_millis(20));
        session.sync(&mut watcher);
        session.tick();
        (session.current_errors().is_empty() && action(&session, "a") == "chase").then_some(())
    })
    .unwrap_or_else(|| {
        panic!(
            "the last good version never took over: {:?}",
            session.current_errors()
        )
    });
    // The other agent was never disturbed.
    assert_eq!(action(&session, "b"), "to");
    assert!(session.world().agents.iter().all(|a| a.error.is_none()));
    assert!(
        reloads > 50 && failures > 50,
        "{reloads} good and {failures} failed reloads"
    );
    eprintln!(
        "soak: {reloads} good and {failures} failed reloads; Lua memory {} -> {} bytes, RSS {} -> {} KB (after saves 200 and 1000)",
        memory_at[0], memory_at[1], rss_at[0], rss_at[1]
    );
    let (early, late) = (memory_at[0], memory_at[1]);
    assert!(
        late < early + early / 2 + 256 * 1024,
        "Lua memory grew from {early} to {late} bytes"
    );
    let (early, late) = (rss_at[0], rss_at[1]);
    assert!(
        late < early + 16 * 1024,
        "resident memory grew from {early} KB to {late} KB"
    );
}

fn write_last(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}
