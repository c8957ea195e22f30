//! A memory bomb is stopped by the Lua state's memory cap and the process stays well under
//! 1 GB, while a well-behaved agent in the same scene keeps moving. In its own test binary so
//! the peak resident size read from /proc is this scene's alone.

use crate::common;

use agentbox_session::session::Session;
use common::scratch;

const SCENE: &str = "name: bomb\nmap:\n  rows: |\n    ........\nagents:\n  - id: bomb\n    at: [0, 0]\n    script: bomb.lua\n  - id: walker\n    at: [1, 0]\n    script: walker.lua\n";

const BOMB: &str = r#"
local M = {}
function M.decide(self, world)
  local hoard = {}
  self.memory.hoard = hoard
  for i = 1, 1e9 do hoard[i] = string.rep("0123456789abcdef", 65536) .. i end
end
return M
"#;

const WALKER: &str = "return { decide = function(self) return move.to({ x = 7, y = 0 }) end }\n";

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_memory_bomb_is_stopped_and_the_process_stays_small() {
    let dir = scratch(&[
        ("scene.yaml", SCENE),
        ("bomb.lua", BOMB),
        ("walker.lua", WALKER),
    ]);
    let mut session = Session::open(&dir.path().join("scene.yaml"), None).unwrap();
    for _ in 0..3 {
        session.tick();
    }
    let bomb = session.world().agent("bomb").unwrap();
    let error = bomb.error.clone().unwrap();
    assert_eq!(
        error.kind,
        agentbox_core::world::ErrorKind::Memory,
        "{error}"
    );
    assert!(
        error.message.contains("memory limit exceeded")
            && error.message.contains("its memory was cleared"),
        "{error}"
    );
    assert!(bomb.suspended, "the bomb is suspended");
    let walker = session.world().agent("walker").unwrap();
    assert!(walker.error.is_none());
    assert!(
        walker.pos.x > 1.2,
        "the walker kept moving: {}",
        walker.pos.x
    );
    // The hoard went with the agent's memory: the state is small again.
    session.host_mut().collect_garbage();
    assert!(session.host_mut().used_memory() < 16 * 1024 * 1024);
    let peak = peak_rss_kb();
    eprintln!("memory bomb: peak resident size {peak} KB");
    assert!(
        peak > 0 && peak < 600 * 1024,
        "peak resident size {peak} KB"
    );
}
