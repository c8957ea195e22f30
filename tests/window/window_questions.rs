//! Questions in the window from recorded input (`--input`, typed text included): a watch, a
//! breakpoint that pauses play at the first tick where it holds, "the tick where" found
//! backwards through the history, and the console prompt at the tick shown; each checked
//! against the headless trace of the same scene.

use crate::common;
use common::*;

/// A walker that goes east and back, so "x > 6" and "x < 1" each hold in stretches.
const SCENE: &str = "\
name: questions
seed: 3
map:
  rows: |
    ............
    ............
agents:
  - { id: walker, at: [0, 0], speed: 6, script: walker.lua }
";

const WALKER: &str = "\
return { decide = function(self, world)
  local t = world:tick()
  if t % 120 < 60 then return move.to({ x = 11, y = 0 }) end
  return move.to({ x = 0, y = 0 })
end }
";

/// The number after `prefix` in the first stderr line that has it.
fn number_after(err: &str, prefix: &str) -> u64 {
    let rest = err
        .lines()
        .find_map(|l| l.split_once(prefix).map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no {prefix:?} in:\n{err}"));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

#[test]
fn watch_breakpoint_find_and_console_from_recorded_input() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", WALKER)]);
    let trace = agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "300", "--trace", "-"],
    );
    let xs: Vec<f64> = stdout(&trace)
        .lines()
        .map(|l| pos(&serde_json::from_str(l).unwrap(), "walker").0)
        .collect();
    let x = |t: u64| xs[t as usize - 1];

    let input = [
        r#"{"frame": 3, "key": "W", "ctrl": true}"#,
        r#"{"frame": 4, "text": "world:agent('walker').pos.x"}"#,
        r#"{"frame": 5, "key": "Enter"}"#,
        r#"{"frame": 6, "key": "B", "ctrl": true}"#,
        r#"{"frame": 7, "text": "world:agent('walker').pos.x > 6"}"#,
        r#"{"frame": 8, "key": "Enter"}"#,
        r#"{"frame": 100, "key": "B", "ctrl": true}"#,
        r#"{"frame": 101, "key": "Enter"}"#,
        r#"{"frame": 102, "key": "Space"}"#,
        r#"{"frame": 190, "key": "Slash"}"#,
        r#"{"frame": 191, "text": "world:agent('walker').pos.x < 1"}"#,
        r#"{"frame": 192, "key": "Enter", "shift": true}"#,
        r#"{"frame": 193, "key": "Backquote"}"#,
        r#"{"frame": 194, "text": "world:tick()"}"#,
        r#"{"frame": 195, "key": "Enter"}"#,
    ]
    .join("\n");
    let (err, shot) = replay_in_window(
        dir.path(),
        &dir.path().join("scene.yaml"),
        200,
        &input,
        "questions",
    );
    assert!(
        err.contains("watching world:agent('walker').pos.x"),
        "{err}"
    );
    assert!(
        err.contains("break when world:agent('walker').pos.x > 6"),
        "{err}"
    );
    // The breakpoint paused play after the first tick where it held.
    let paused = number_after(&err, "breakpoint at tick ");
    let first = (1..=300).find(|&t| x(t) > 6.0).unwrap();
    assert_eq!(paused, first, "{err}");
    assert!(err.contains("breakpoint cleared"), "{err}");
    // Back from the live tick, the nearest tick where x < 1.
    let line = err
        .lines()
        .find(|l| l.contains(", the nearest before "))
        .unwrap_or_else(|| panic!("no search result in:\n{err}"));
    assert!(
        line.contains("where world:agent('walker').pos.x < 1"),
        "{line}"
    );
    let at = number_after(line, "tick ");
    let from = number_after(line, ", the nearest before ");
    assert!(x(at) < 1.0, "x at tick {at} is {}", x(at));
    assert!(
        (at + 1..from).all(|t| x(t) >= 1.0),
        "tick {at} is the nearest before {from}"
    );
    assert!(
        from > paused,
        "play went on after the breakpoint was cleared"
    );
    // The console asks at the tick shown: the one found.
    assert!(
        err.contains(&format!("console at tick {at}: world:tick() = {at}")),
        "{err}"
    );
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        std::fs::copy(&shot, std::path::Path::new(&keep).join("questions.png")).unwrap();
    }
}

/// A walker that remembers one moment: `seen` is true after one tick only.
const REMEMBERING: &str = "\
return { decide = function(self, world)
  self.memory.seen = world:tick() == 40
  local t = world:tick()
  if t % 120 < 60 then return move.to({ x = 11, y = 0 }) end
  return move.to({ x = 0, y = 0 })
end }
";

/// A search back over a long history runs a chunk of ticks a frame under a progress bar, lands
/// where the trace says `world:memory(...)` held, and the console reads that tick's memory;
/// a second search is cancelled with Esc.
#[test]
fn a_long_search_runs_over_frames_with_a_progress_bar_and_reads_past_memory() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", REMEMBERING)]);
    let expr = "world:memory('walker').seen == true";
    let headless = agentbox_in(
        dir.path(),
        &[
            "headless",
            "scene.yaml",
            "--ticks",
            "1500",
            "--stop-when",
            expr,
        ],
    );
    let held = number_after(&stderr(&headless), "stopped at tick ");

    // Play runs from frame 1, one tick a frame; at frame 1200 pause and search back.
    let enter = 1203;
    let mut input = vec![
        r#"{"frame": 1200, "key": "Space"}"#.to_string(),
        r#"{"frame": 1201, "key": "Slash"}"#.to_string(),
        format!(r#"{{"frame": 1202, "text": "{expr}"}}"#),
        format!(r#"{{"frame": {enter}, "key": "Enter", "shift": true}}"#),
    ];
    // Mid-search: the bar is drawn and nothing is found yet.
    let (err, shot) = replay_in_window(
        dir.path(),
        &dir.path().join("scene.yaml"),
        enter + 2,
        &input.join("\n"),
        "finding",
    );
    assert!(!err.contains("the nearest before"), "{err}");
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        std::fs::copy(&shot, std::path::Path::new(&keep).join("finding.png")).unwrap();
    }

    input.extend([
        format!(r#"{{"frame": {}, "key": "Backquote"}}"#, enter + 20),
        format!(
            r#"{{"frame": {}, "text": "world:memory('walker').seen"}}"#,
            enter + 21
        ),
        format!(r#"{{"frame": {}, "key": "Enter"}}"#, enter + 22),
        // From the tick found, forwards: it holds nowhere after, so this one is cancelled.
        format!(r#"{{"frame": {}, "key": "K"}}"#, enter + 23),
        format!(r#"{{"frame": {}, "key": "Escape"}}"#, enter + 25),
    ]);
    let (err, _) = replay_in_window(
        dir.path(),
        &dir.path().join("scene.yaml"),
        enter + 30,
        &input.join("\n"),
        "found",
    );
    let line = err
        .lines()
        .find(|l| l.contains(", the nearest before "))
        .unwrap_or_else(|| panic!("no search result in:\n{err}"));
    assert_eq!(number_after(line, "tick "), held, "{line}");
    let frames = number_after(line, "searched over ");
    assert!(frames > 2, "the search took {frames} frames: {line}");
    assert!(
        err.contains(&format!(
            "console at tick {held}: world:memory('walker').seen = true"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("find {expr} cancelled after ")),
        "{err}"
    );
}
