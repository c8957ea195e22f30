//! The CPU-time net's thread sleeps while no budgeted call runs: it moved its tick every 5 ms
//! for the whole process (200 wakeups a second, in an idle window too); it now wakes when a
//! call starts and parks once none runs. An integration test with a single test, so it has
//! its process to itself: no other test's calls wake the thread during its idle second.

use agentbox_lua::{net_wakeups, ScriptHost};
use std::time::Duration;

#[test]
fn the_net_thread_wakes_for_a_call_and_not_while_idle() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("walker.lua");
    std::fs::write(
        &script,
        "local M = {}\nfunction M.decide() return move.stop() end\nreturn M\n",
    )
    .unwrap();
    // Making the host starts the net's thread; loading a script runs its body in a budgeted
    // call, which wakes it.
    let mut host = ScriptHost::new(0).unwrap();
    let at_start = net_wakeups();
    host.load(&script).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let after_call = net_wakeups();
    assert!(
        after_call > at_start,
        "the call woke the net's thread ({at_start} wakeups, then {after_call})"
    );
    // Nothing runs now: over a second the thread stays parked (before: about 200 ticks).
    std::thread::sleep(Duration::from_secs(1));
    let idle = net_wakeups() - after_call;
    assert!(idle <= 1, "{idle} wakeups in an idle second");
}
