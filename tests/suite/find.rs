//! "The tick where": `ask::Asker::find` looks through a history's kept frames both ways for
//! the nearest tick where a Lua expression holds, without touching the run, and agrees with
//! the expression asked of every tick of the full trace.

use crate::common;
use agentbox_session::ask::{Asker, Direction, FindError, Search};
use agentbox_session::history::History;
use common::*;

/// A walker that goes east and back, so "x > 6" holds in two stretches.
const SCENE: &str = "\
name: find
seed: 3
map:
  rows: |
    ............
agents:
  - { id: walker, at: [0, 0], speed: 3, script: walker.lua }
";

const WALKER: &str = "\
return { decide = function(self, world)
  local t = world:tick()
  if t % 200 < 100 then return move.to({ x = 11, y = 0 }) end
  return move.to({ x = 0, y = 0 })
end }
";

#[test]
fn the_nearest_tick_where_it_holds_both_ways_matches_the_trace() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", WALKER)]);
    let trace = agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "400", "--trace", "-"],
    );
    let holds: Vec<bool> = stdout(&trace)
        .lines()
        .map(|l| pos(&serde_json::from_str(l).unwrap(), "walker").0 > 6.0)
        .collect();
    let holding = |t: u64| t >= 1 && holds[t as usize - 1];

    let mut history = History::open_with(&dir.path().join("scene.yaml"), None, true).unwrap();
    history.keep_frames(true);
    for _ in 0..400 {
        history.tick();
    }
    let live = history.session().world().clone();
    let frames = history.frames().unwrap();
    let mut asker = Asker::new(3).unwrap();
    let expr = "world:agent('walker').pos.x > 6";
    let mut calls = 0;
    for from in [0, 1, 37, 60, 150, 199, 250, 333, 399] {
        let want_next = (from + 1..=400).find(|&t| holding(t));
        let want_previous = (1..from).rev().find(|&t| holding(t));
        let next = asker
            .find(frames, expr, from, Direction::Next, |_, _| calls += 1)
            .unwrap();
        let previous = asker
            .find(frames, expr, from, Direction::Previous, |_, _| {})
            .unwrap();
        assert_eq!((next, previous), (want_next, want_previous), "from {from}");
    }
    assert!(calls > 0, "progress was reported");
    assert_eq!(history.ticks(), 400, "the run was not touched");
    assert_eq!(history.session().world().agents[0].pos, live.agents[0].pos);

    let never = asker.find(frames, "false", 0, Direction::Next, |_, _| {});
    assert_eq!(never, Ok(None));
    let raises = asker.find(
        frames,
        "world:tick() > 9 and world:agent('nobody').pos.x",
        0,
        Direction::Next,
        |_, _| {},
    );
    assert!(
        matches!(&raises, Err(FindError::Raised { tick: 10, message }) if message.contains("find:1:")),
        "{raises:?}"
    );
    assert!(matches!(
        asker.find(frames, "world:", 0, Direction::Next, |_, _| {}),
        Err(FindError::Compile(_))
    ));
}

/// The walker remembers whether it is east of x = 6, so `world:memory` can be asked of it.
const REMEMBERING: &str = "\
return { decide = function(self, world)
  local t = world:tick()
  self.memory.seen = self.pos.x > 6
  self.memory.last = { tick = t }
  if t % 200 < 100 then return move.to({ x = 11, y = 0 }) end
  return move.to({ x = 0, y = 0 })
end }
";

#[test]
fn world_memory_at_a_past_tick_is_that_ticks_memory_and_a_search_runs_in_chunks() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", REMEMBERING)]);
    let mut history = History::open_with(&dir.path().join("scene.yaml"), None, true).unwrap();
    history.keep_frames(true);
    // What the memory says after each tick, asked of the live run as it goes.
    let mut seen = vec![false];
    for _ in 0..400 {
        history.tick();
        let memories = history.session().memories_json();
        seen.push(memories["walker"]["seen"] == serde_json::json!(true));
    }
    assert!(seen.iter().any(|s| *s) && seen.iter().any(|s| !*s));
    let frames = history.frames().unwrap();
    let expr = "world:memory('walker').seen == true";
    let mut asker = Asker::new(3).unwrap();
    let mut many_chunks = 0;
    for from in [0, 37, 150, 250, 399] {
        let want_next = (from + 1..=400).find(|&t| seen[t as usize]);
        let want_previous = (1..from).rev().find(|&t| seen[t as usize]);
        let next = asker.find(frames, expr, from, Direction::Next, |_, _| {});
        let previous = asker.find(frames, expr, from, Direction::Previous, |_, _| {});
        assert_eq!(
            (next, previous),
            (Ok(want_next), Ok(want_previous)),
            "from {from}"
        );
        // The same search a few ticks at a time (as the window runs it, a chunk a frame).
        for direction in [Direction::Next, Direction::Previous] {
            let mut search = Search::start(&mut asker, frames, expr, from, direction).unwrap();
            let mut chunks = 0;
            let found = loop {
                chunks += 1;
                if let Some(found) = search.step(&mut asker, frames, 7).unwrap() {
                    break found;
                }
                let (done, total) = search.progress();
                assert!(done <= total);
            };
            let want = match direction {
                Direction::Next => want_next,
                Direction::Previous => want_previous,
            };
            assert_eq!(found, want, "from {from}, {direction:?}, in chunks");
            let (_, total) = search.progress();
            // Going back, a chunk is at least one stretch of kept ticks.
            let span = want.map_or(total, |t| t.abs_diff(from));
            if span > 7 + agentbox_session::history::FRAME_EVERY {
                assert!(chunks > 1, "from {from}, {direction:?}: in one chunk");
                many_chunks += 1;
            }
        }
    }
    assert!(many_chunks > 0, "some search ran over several chunks");
    // A past frame lends its memory: the table is there, read-only, the same shape as live.
    let frame = frames.frame(120).unwrap();
    use agentbox_session::history::TickView;
    asker.set_memories(frame.memories_json());
    let past = std::rc::Rc::new(frame.world().clone());
    let e = asker
        .compile("watch", "world:memory('walker').last.tick")
        .unwrap();
    assert_eq!(asker.ask(e, &past).unwrap().text, "119");
    let e = asker
        .compile("watch", "world:memory('walker').seen == true")
        .unwrap();
    assert_eq!(asker.ask(e, &past).unwrap().holds, seen[120]);
    let e = asker
        .compile(
            "console",
            "(function() world:memory('walker').seen = 1 end)()",
        )
        .unwrap();
    assert!(
        asker.ask(e, &past).is_err(),
        "memory at a past tick is read-only"
    );
}
