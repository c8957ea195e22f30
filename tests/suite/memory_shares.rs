//! Memory is counted per agent: the bytes an agent's calls allocated and still hold. The
//! agent over its quota, or the largest holder when all scripts together hit the cap, is the
//! one stopped; an agent whose allocation merely found the cap full goes on.

use crate::common;

use agentbox_core::world::ErrorKind;
use agentbox_session::session::Session;
use common::scratch;

const MB: usize = 1024 * 1024;

/// Keeps growing `self.memory` by `step` MB a tick until it holds `target` MB, then only reads
/// it. Each block is a distinct string, so nothing is shared between agents.
fn hoarder(step: u32, target: u32) -> String {
    format!(
        r#"
local M = {{}}
function M.decide(self, world)
  local hoard = self.memory.hoard or {{}}
  self.memory.hoard = hoard
  for _ = 1, {step} do
    if #hoard < {target} then
      hoard[#hoard + 1] = string.rep(self.id, (1024 * 1024) // #self.id) .. #hoard
    end
  end
  return move.stop()
end
return M
"#
    )
}

/// Allocates about 3 MB of garbage every tick while walking.
const CHURNER: &str = r#"
local M = {}
function M.decide(self, world)
  local junk = {}
  for i = 1, 12 do junk[i] = string.rep("j", 256 * 1024) .. world:tick() .. i end
  return move.to({ x = 20, y = 0 })
end
return M
"#;

#[test]
fn the_largest_holder_is_stopped_at_the_shared_cap_and_the_others_go_on() {
    // A 64 MB cap: each agent may hold 16 MB. The big hoarder stops growing at 13 MB, the
    // others at 12 MB each: nobody is over its quota, but together (with the churner's
    // garbage) they pass the cap while the small ones and the churner are still allocating.
    let scene = "name: shares\nbudget: { memory_mb: 64 }\nmap:\n  rows: |\n    .....................\nagents:\n  - id: big\n    at: [0, 0]\n    script: big.lua\n  - id: s1\n    at: [1, 0]\n    script: small.lua\n  - id: s2\n    at: [2, 0]\n    script: small.lua\n  - id: s3\n    at: [3, 0]\n    script: small.lua\n  - id: s4\n    at: [4, 0]\n    script: small.lua\n  - id: churner\n    at: [5, 0]\n    script: churner.lua\n";
    let dir = scratch(&[
        ("scene.yaml", scene),
        ("big.lua", &hoarder(2, 13)),
        ("small.lua", &hoarder(1, 12)),
        ("churner.lua", CHURNER),
    ]);
    let mut session = Session::open(&dir.path().join("scene.yaml"), None).unwrap();
    let mut held_big = 0;
    for _ in 0..40 {
        session.tick();
        held_big = held_big.max(session.host_mut().memory_held("big").unwrap_or(0));
    }
    assert!(
        (13 * MB..16 * MB).contains(&held_big),
        "the big hoarder held {held_big} bytes at most, under its 16 MB quota"
    );
    let big = session.world().agent("big").unwrap();
    let error = big.error.clone().expect("the largest holder is stopped");
    assert_eq!(error.kind, ErrorKind::Memory, "{error}");
    assert!(
        error.message.contains("held the most"),
        "stopped as the largest holder, not for its quota: {error}"
    );
    assert!(big.suspended);
    for id in ["s1", "s2", "s3", "s4", "churner"] {
        let agent = session.world().agent(id).unwrap();
        assert!(
            agent.error.is_none() && !agent.suspended,
            "{id} got no error for another's bytes: {:?}",
            agent.error
        );
    }
    // The small hoarders reached their 12 MB: their allocations that found the cap full went
    // on, and the big one's memory was released.
    for id in ["s1", "s2", "s3", "s4"] {
        let held = session.host_mut().memory_held(id).unwrap();
        assert!(held >= 12 * MB, "{id} holds {held} bytes");
    }
    session.host_mut().collect_garbage();
    let big_now = session.host_mut().memory_held("big").unwrap();
    assert!(
        big_now < MB,
        "the stopped agent's memory was released: {big_now}"
    );
    let churner = session.world().agent("churner").unwrap();
    assert!(
        churner.pos.x > 6.0,
        "the churner kept walking: {}",
        churner.pos.x
    );
}

#[test]
fn bytes_count_against_the_agent_that_allocated_them_until_freed() {
    // Two agents share a module-level table (module locals are shared by a script's agents).
    // The maker fills it at tick 1; the other drops it at tick 3; the collector frees it
    // during whoever's call, and the bytes leave the maker's count, never the other's.
    let script = r#"
local shared = {}
local M = {}
function M.decide(self, world)
  if self.id == "maker" and world:tick() == 1 then
    for i = 1, 8 do shared[i] = string.rep("m", 512 * 1024) .. i end
  end
  if self.id == "dropper" and world:tick() == 3 then shared = {} end
  return move.stop()
end
return M
"#;
    let scene = "name: makers\nmap:\n  rows: |\n    ....\nagents:\n  - id: maker\n    at: [0, 0]\n    script: s.lua\n  - id: dropper\n    at: [1, 0]\n    script: s.lua\n";
    let dir = scratch(&[("scene.yaml", scene), ("s.lua", script)]);
    let mut session = Session::open(&dir.path().join("scene.yaml"), None).unwrap();
    for _ in 0..3 {
        session.tick();
    }
    let maker = session.host_mut().memory_held("maker").unwrap();
    let dropper = session.host_mut().memory_held("dropper").unwrap();
    assert!(maker >= 4 * MB, "the maker holds what it made: {maker}");
    assert!(dropper < MB / 2, "the dropper holds little: {dropper}");
    session.tick();
    session.host_mut().collect_garbage();
    let maker_after = session.host_mut().memory_held("maker").unwrap();
    let dropper_after = session.host_mut().memory_held("dropper").unwrap();
    assert!(
        maker_after < MB / 2,
        "freed bytes left the maker's count: {maker_after}"
    );
    assert!(
        dropper_after <= dropper + MB / 4,
        "and never touched the dropper's: {dropper} then {dropper_after}"
    );
}
