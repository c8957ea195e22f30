//! "The tick where": `ask::Asker::find` looks through a history's kept frames both ways for
//! the nearest tick where a Lua expression holds, without touching the run, and agrees with
//! the expression asked of every tick of the full trace.

use crate::common;
use agentbox_session::ask::{Asker, Direction, FindError};
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
