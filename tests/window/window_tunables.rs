//! Tunables in the window under Xvfb, from recorded input (`--input`): Tab opens the panel, a
//! drag on a slider sets the tunable from the next tick (recorded as a history input, so the
//! saved session replays it), the value survives a reload of the script saved meanwhile, and
//! Ctrl+S writes it into the scene file with every comment kept.

use crate::common;
use agentbox_session::history::{self, Input};
use common::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

const SCENE: &str = "\
# A runner whose goal column is a tunable.
name: tunables
seed: 3
map:
  rows: |
    ################
    #..............#
    #..............#
    #..............#
    #..............#
    #..............#
    ################
agents:
  - id: runner # the one agent
    at: [1, 1]
    script: runner.lua
    speed: 4
    params:
      # The column it runs to.
      goal_x: { value: 1, min: 1, max: 14, step: 1 } # a slider
";

const RUNNER_1: &str = "\
local M = {}
function M.decide(self, world)
  plot('goal_x', self.params.goal_x)
  return move.to({ x = self.params.goal_x, y = 1 })
end
return M
";

/// The reloaded version: the same goal column, another row.
const RUNNER_2: &str = "\
local M = {}
function M.decide(self, world)
  plot('goal_x', self.params.goal_x)
  return move.to({ x = self.params.goal_x, y = 5 })
end
return M
";

/// With the tunables docked on the left (320 pixels) under the 54-pixel bar and legend, the
/// 16x7 map is fitted 43 px a tile in the rest of the 1024x768 window, centred at (672, 392):
/// the first slider's track runs from x 14 to 306 at y 132, so goal_x = 12 (11/13 of the way)
/// is at x 261.1, which is column -2.056, row -3.047 (a point left of the map: recorded input
/// names the mouse in tile units).
const SLIDER_AT: &str = "[-2.056, -3.047]";

#[test]
fn a_slider_change_survives_a_script_reload_and_saving_keeps_comments() {
    let dir = scratch(&[("scene.yaml", SCENE), ("runner.lua", RUNNER_1)]);
    let input = [
        r#"{"frame": 2, "key": "Tab"}"#.to_string(),
        format!(r#"{{"frame": 10, "press": "left", "at": {SLIDER_AT}}}"#),
        format!(r#"{{"frame": 11, "release": "left", "at": {SLIDER_AT}}}"#),
        // Saves the session: the sign for this test to save the new script.
        r#"{"frame": 40, "key": "E", "ctrl": true}"#.to_string(),
        r#"{"frame": 1196, "key": "E", "ctrl": true}"#.to_string(),
        r#"{"frame": 1197, "key": "S", "ctrl": true}"#.to_string(),
    ];
    let input_file = dir.path().join("input.jsonl");
    std::fs::write(&input_file, input.join("\n")).unwrap();
    let shot = dir.path().join("tunables.png");
    let mut child = window_command(dir.path())
        .arg("run")
        .arg(dir.path().join("scene.yaml"))
        .args(["--frames", "1200", "--input"])
        .arg(&input_file)
        .arg("--screenshot")
        .arg(&shot)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("xvfb-run is installed (see README)");
    // The window's stderr, line by line, as it comes.
    let (lines, said) = channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    // Wait for the window to say it saved the session (frame 40), then save the script.
    let session_file = dir.path().join("scene.session.json");
    let saved_line = format!("saved {}", session_file.display());
    let mut err = String::new();
    let saved = common::patiently(|| match said.recv_timeout(Duration::from_millis(100)) {
        Ok(line) => {
            err.push_str(&line);
            err.push('\n');
            line.starts_with(&saved_line).then_some(())
        }
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => panic!("the window ended without saving:\n{err}"),
    });
    assert!(
        saved.is_some(),
        "the window never saved the session:\n{err}"
    );
    std::fs::write(dir.path().join("runner.lua"), RUNNER_2).unwrap();
    let status = child.wait().unwrap();
    err.extend(said.iter().map(|line| line + "\n"));
    assert!(status.success(), "{err}");

    let rec = history::load_recording(&session_file).unwrap();
    let set = rec
        .events
        .iter()
        .find_map(|e| match &e.input {
            Input::Tunable { name, value } => Some((e.at, name.clone(), *value)),
            _ => None,
        })
        .expect("the drag was recorded as a tunable input");
    assert_eq!((set.1.as_str(), set.2), ("runner.goal_x", 12.0), "{set:?}");
    let reload = rec
        .events
        .iter()
        .find(|e| matches!(&e.input, Input::Files { changed, .. } if !changed.is_empty()))
        .expect("the script's save was reloaded");
    assert!(reload.at > set.0, "the reload came after the change");
    // Replayed, the run ends at column 12 on the reloaded script's row 5: the slider's value
    // survived the reload (the scene's 1 would have sent it back to column 1).
    let mut end = None;
    history::replay(&rec, rec.ticks, |s, _| {
        let a = &s.world().agents[0];
        end = Some((a.pos, a.params["goal_x"].clone()));
    })
    .expect("the session replays exactly");
    let (pos, goal) = end.unwrap();
    assert_eq!(goal, serde_json::json!(12.0));
    assert!(
        pos.distance(glam::DVec2::new(12.0, 5.0)) < 0.3,
        "ended at {pos}"
    );

    // Ctrl+S wrote the value into the scene, every comment and every other byte kept.
    let text = std::fs::read_to_string(dir.path().join("scene.yaml")).unwrap();
    assert_eq!(
        text,
        SCENE.replace("goal_x: { value: 1,", "goal_x: { value: 12,")
    );
    // The panel is painted: the slider's light knob near x 261, y 132.
    let (w, _, px) = read_rgba(&shot);
    let light = (125..140)
        .flat_map(|y| (249..274).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let i = ((y * w + x) * 4) as usize;
            px[i] > 0xe0 && px[i + 1] > 0xe0 && px[i + 2] > 0xe0
        })
        .count();
    assert!(
        light > 20,
        "the slider's knob is drawn ({light} light pixels)"
    );
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        std::fs::copy(&shot, Path::new(&keep).join("tunables.png")).unwrap();
    }
}
