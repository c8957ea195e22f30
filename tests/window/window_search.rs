//! The search mode in the window under Xvfb, from recorded input (`--input`): Q opens it on
//! `scenes/search_demo.yaml`, a left-click places the start and a right-click the goal, Enter
//! steps three expansions, `]` speeds the animation up and Shift+Enter runs it to the end. The
//! printed steps and the screenshot must agree with the real searches: A* and JPS side by side,
//! open and closed cells in both panes, fewer closed cells in the JPS pane, the same cost. M and
//! Backspace re-run and clear it, and the simulation waits while the mode is open.

use crate::common;
use common::*;
use std::path::Path;

/// The events: open the mode, start at (2, 2), goal at (21, 11), three steps, then run to the
/// end at 100 expansions a second, the mouse resting on a cell for the panel's G/H/F.
const INPUT: &str = r#"{"frame": 2, "key": "Q"}
{"frame": 4, "press": "left", "at": [2.0, 2.0]}
{"frame": 5, "release": "left", "at": [2.0, 2.0]}
{"frame": 6, "press": "right", "at": [21.0, 11.0]}
{"frame": 7, "release": "right", "at": [21.0, 11.0]}
{"frame": 8, "key": "Enter"}
{"frame": 9, "key": "Enter"}
{"frame": 10, "key": "Enter"}
{"frame": 11, "key": "RightBracket"}
{"frame": 12, "key": "RightBracket"}
{"frame": 13, "key": "Enter", "shift": true}
{"frame": 20, "move": [12.0, 9.0]}"#;

/// Runs the window for `frames` frames on `scene`; (stderr, screenshot).
fn run(dir: &Path, scene: &Path, input: &str, frames: u32) -> (String, std::path::PathBuf) {
    replay_in_window(dir, scene, frames.into(), input, "search")
}

/// The numbers after `name: ` in a caption like `A*: 12 expanded, open 3, cost 25.07`.
fn caption_numbers(line: &str, name: &str) -> (usize, Option<f64>) {
    let part = line
        .split("; ")
        .find_map(|p| p.split_once(&format!("{name}: ")).map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("{name} in {line:?}"));
    let expanded = part
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    let cost = part
        .split_once("cost ")
        .map(|(_, c)| c.trim().parse().unwrap());
    (expanded, cost)
}

/// The colour of a search set drawn translucent over the floor (`search_view/draw.rs`: the
/// set's colour at alpha 0x8c over the terrain).
fn over_floor(set: [u8; 3]) -> [u8; 3] {
    let floor = [0xd8u8, 0xd2, 0xc4];
    let a = 0x8c as f32 / 255.0;
    std::array::from_fn(|c| (floor[c] as f32 * (1.0 - a) + set[c] as f32 * a).round() as u8)
}

/// The open and closed sets' colours (`search_view/mod.rs`).
const OPEN: [u8; 3] = [0x3c, 0xc8, 0x50];
const CLOSED: [u8; 3] = [0x46, 0x8c, 0xe6];

/// Pixels of `colour` (within 3 per channel) in rows `rows` (columns 0..712, left of the panel).
fn count(shot: &Path, colour: [u8; 3], rows: (u32, u32)) -> usize {
    let (w, h, rgba) = read_rgba(shot);
    let mut n = 0;
    for y in rows.0..rows.1.min(h) {
        for x in 0..712.min(w) {
            let i = ((y * w + x) * 4) as usize;
            if (0..3).all(|c| rgba[i + c].abs_diff(colour[c]) <= 3) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn astar_and_jps_step_side_by_side_on_the_same_query() {
    let dir = tempfile::tempdir().unwrap();
    let scene = root().join("scenes/search_demo.yaml");
    let (err, shot) = run(dir.path(), &scene, INPUT, 150);
    // Both searches ran on the clicked query; JPS expands far fewer nodes.
    let query = err
        .lines()
        .find(|l| l.starts_with("search from 2, 2 to 21, 11: "))
        .unwrap_or_else(|| panic!("the query was run: {err}"));
    let totals: Vec<usize> = query
        .rsplit(": ")
        .next()
        .unwrap()
        .split(", ")
        .map(|p| p.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(query.contains("A* ") && query.contains("JPS "), "{query}");
    let (astar_total, jps_total) = (totals[0], totals[1]);
    assert!(jps_total < astar_total, "{query}");
    // Enter stepped one expansion at a time, both panes together.
    for k in 1..=3 {
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("search step {k}: ")))
            .unwrap_or_else(|| panic!("step {k} printed: {err}"));
        assert_eq!(caption_numbers(line, "A*").0, k, "{line}");
        assert_eq!(caption_numbers(line, "JPS").0, k, "{line}");
    }
    // Shift+Enter ran to the last step; both found the goal at the same cost.
    let last = err
        .lines()
        .find(|l| l.starts_with(&format!("search step {astar_total}: ")))
        .unwrap_or_else(|| panic!("ran to step {astar_total}: {err}"));
    let (a, a_cost) = caption_numbers(last, "A*");
    let (j, j_cost) = caption_numbers(last, "JPS");
    assert_eq!((a, j), (astar_total, jps_total), "{last}");
    let (a_cost, j_cost) = (a_cost.expect("A* cost"), j_cost.expect("JPS cost"));
    assert!((a_cost - j_cost).abs() < 0.01, "{last}");

    // The picture: the 1024x768 window keeps 312 pixels for the panel on the right; the map,
    // wider than tall, is shown larger with the panes stacked: A* in rows 30..380 (its caption
    // in the last 24), JPS in rows 380..730.
    // The sets are translucent: the floor shows through them, so their pixels are the blend,
    // never the set's own colour.
    let open = over_floor(OPEN);
    let closed = over_floor(CLOSED);
    let path = [255, 217, 26];
    assert_eq!(
        count(&shot, OPEN, (30, 730)),
        0,
        "the open set is translucent"
    );
    let (astar, jps) = ((40, 350), (390, 700));
    let px = |c: [u8; 3], rows: (u32, u32)| count(&shot, c, rows);
    for (pane, name) in [(astar, "A*"), (jps, "JPS")] {
        assert!(px(open, pane) > 20, "{name} pane shows open cells");
        assert!(px(closed, pane) > 20, "{name} pane shows closed cells");
        assert!(px(path, pane) > 20, "{name} pane shows the path");
    }
    assert!(
        px(closed, jps) * 3 < px(closed, astar),
        "the JPS pane has far fewer closed cells: {} vs {}",
        px(closed, jps),
        px(closed, astar)
    );
}

/// M re-runs the query with the next algorithm choice (Dijkstra | A* after A* | JPS) keeping
/// the step, and Backspace clears the search.
#[test]
fn backspace_clears_and_m_changes_the_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!(
        "{INPUT}\n{}",
        [
            r#"{"frame": 100, "key": "M"}"#,
            r#"{"frame": 101, "key": "Enter"}"#,
            r#"{"frame": 102, "key": "Backspace"}"#,
        ]
        .join("\n")
    );
    let scene = root().join("scenes/search_demo.yaml");
    let (err, shot) = run(dir.path(), &scene, &input, 110);
    let after_m = err
        .lines()
        .skip_while(|l| !l.starts_with("search options: Dijkstra | A*"))
        .nth(1)
        .unwrap_or_else(|| panic!("M re-ran the query: {err}"));
    // The step count is kept across the change, and Dijkstra expands more than A*.
    let (dijkstra, _) = caption_numbers(after_m, "Dijkstra");
    let (astar, _) = caption_numbers(after_m, "A*");
    assert!(dijkstra >= astar, "{after_m}");
    assert!(err.contains("search cleared"), "{err}");
    // Cleared, the mode still open: no search colours left in either pane.
    assert_eq!(count(&shot, over_floor(CLOSED), (30, 730)), 0);
    assert_eq!(count(&shot, over_floor(OPEN), (30, 730)), 0);
}

/// The simulation waits while the mode is open and runs again once Esc leaves it.
#[test]
fn the_simulation_waits_while_the_mode_is_open() {
    let dir = tempfile::tempdir().unwrap();
    // A copy of the demo: the session file is written beside the scene.
    std::fs::create_dir_all(dir.path().join("scenes")).unwrap();
    std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
    let scene = dir.path().join("scenes/search_demo.yaml");
    std::fs::copy(root().join("scenes/search_demo.yaml"), &scene).unwrap();
    std::fs::copy(
        root().join("scripts/maze_runner.lua"),
        dir.path().join("scripts/maze_runner.lua"),
    )
    .unwrap();
    let input = [
        r#"{"frame": 2, "key": "Q"}"#,
        r#"{"frame": 60, "key": "Escape"}"#,
        r#"{"frame": 65, "key": "E", "ctrl": true}"#,
    ]
    .join("\n");
    run(dir.path(), &scene, &input, 66);
    // Two ticks before Q (frames 0 and 1), none in the mode's 58 frames, a few after Esc.
    let rec = agentbox_session::history::load_recording(&scene.with_extension("session.json"))
        .expect("Ctrl+E saved the session after the mode closed");
    assert!((3..=10).contains(&rec.ticks), "ticks: {}", rec.ticks);
}
