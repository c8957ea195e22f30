//! The panels dock beside the map, never over it, and the console reads like a console: under
//! Xvfb from recorded input (`--input`) on `tests/fixtures/docked.yaml`, a 20 x 10 hall.
//! With the console, the tunables, a watch and the inspector open, the whole hall is on
//! screen, unbroken, with each panel's text beside it; with none open the hall is larger. A
//! line printed every tick folds into one console line, while a tick printed every tick
//! fills the console; a wrong `draw.*` call every tick is one note. A click on a dock's header
//! collapses it and the map grows; a drag of its inner edge resizes it by as much.

use crate::common;
use common::*;
use std::path::{Path, PathBuf};

const FLOOR: [u8; 3] = [0xd8, 0xd2, 0xc4];

/// The fixture in a scratch folder, with `params.count` set to `count`.
fn hall(count: bool) -> tempfile::TempDir {
    let scene = std::fs::read_to_string(root().join("tests/fixtures/docked.yaml"))
        .unwrap()
        .replace("count: false", &format!("count: {count}"));
    let script = std::fs::read_to_string(root().join("tests/fixtures/docked.lua")).unwrap();
    scratch(&[("scene.yaml", &scene), ("docked.lua", &script)])
}

fn shoot(dir: &Path, frames: u64, input: &[&str], name: &str) -> PathBuf {
    replay_in_window(
        dir,
        &dir.join("scene.yaml"),
        frames,
        &input.join("\n"),
        name,
    )
    .1
}

struct Shot {
    w: u32,
    h: u32,
    px: Vec<u8>,
}

impl Shot {
    fn read(path: &Path) -> Shot {
        let (w, h, px) = read_rgba(path);
        Shot { w, h, px }
    }

    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.w + x) * 4) as usize;
        [self.px[i], self.px[i + 1], self.px[i + 2]]
    }

    /// The bounding box (x0, y0, x1, y1) of the floor's pixels and how many there are.
    fn floor(&self) -> ((u32, u32, u32, u32), usize) {
        let (mut x0, mut y0, mut x1, mut y1, mut n) = (u32::MAX, u32::MAX, 0, 0, 0);
        for y in 0..self.h {
            for x in 0..self.w {
                if self.at(x, y) == FLOOR {
                    (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                    n += 1;
                }
            }
        }
        ((x0, y0, x1, y1), n)
    }

    /// Pixels of light grey or white text in the rectangle.
    fn text(&self, (x0, y0, x1, y1): (u32, u32, u32, u32)) -> usize {
        (y0..y1.min(self.h))
            .flat_map(|y| (x0..x1.min(self.w)).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let [r, g, b] = self.at(x, y);
                r >= 0xc0 && r == g && g == b
            })
            .count()
    }
}

/// Ctrl+W adds a watch; then the console (C), the tunables (Tab), and a click on the talker.
const EVERY_PANEL: [&str; 7] = [
    r#"{"frame": 1, "key": "C"}"#,
    r#"{"frame": 1, "key": "Tab"}"#,
    r#"{"frame": 2, "key": "W", "ctrl": true}"#,
    r#"{"frame": 3, "text": "world.tick"}"#,
    r#"{"frame": 4, "key": "Enter"}"#,
    r#"{"frame": 5, "press": "left", "at": [3.0, 3.0]}"#,
    r#"{"frame": 6, "release": "left", "at": [3.0, 3.0]}"#,
];

#[test]
fn every_panel_docks_beside_the_map_and_the_map_fits_what_is_left() {
    let dir = hall(false);
    let open = Shot::read(&shoot(dir.path(), 40, &EVERY_PANEL, "open"));
    let plain = Shot::read(&shoot(dir.path(), 40, &[], "plain"));
    let ((x0, y0, x1, y1), n) = open.floor();
    let (bw, bh) = ((x1 - x0 + 1) as f64, (y1 - y0 + 1) as f64);
    // The hall's floor is 18 x 8 tiles: all of it on screen, unbroken by any panel (only
    // the two agents, their tags and the grid's lines are not floor inside it).
    assert!(
        (bw / bh - 18.0 / 8.0).abs() < 0.08,
        "the whole floor is shown: {bw} x {bh} pixels"
    );
    let share = n as f64 / (bw * bh);
    assert!(
        share > 0.8,
        "nothing covers the floor: {share:.3} of its box is floor"
    );
    // Each panel's text beside the map: the inspector right of it, tunables and the watch
    // left of it, the console under it.
    let right = open.text((x1 + 30, 60, open.w, open.h - 60));
    let left = open.text((0, 60, x0.saturating_sub(30), open.h - 250));
    let below = open.text((0, y1 + 30, open.w, open.h - 40));
    assert!(right > 300, "inspector text right of the map: {right}");
    assert!(
        left > 300,
        "tunables and watch text left of the map: {left}"
    );
    assert!(below > 100, "console text under the map: {below}");
    // With no panel open the map takes their room.
    let (_, n_plain) = plain.floor();
    assert!(
        n_plain as f64 > 1.5 * n as f64,
        "the map grows when the docks close: {n_plain} against {n} floor pixels"
    );
    let _ = std::fs::copy(
        dir.path().join("open.png"),
        root().join("target/window_docked.png"),
    );
}

/// Bands of console rows (17 pixels at scale 1) that hold grey text, under the console's
/// title (the bottom dock of a 1024x768 window: 190 pixels above the 38-pixel timeline, a
/// 22-pixel header and a 22-pixel title).
fn console_rows(shot: &Shot) -> usize {
    let top = shot.h - 38 - 190 + 22 + 22;
    (0..8)
        .filter(|i| {
            let y = top + i * 17;
            shot.text((0, y, 700, y + 17)) > 20
        })
        .count()
}

/// The console's notes are orange.
fn note_pixels(shot: &Shot) -> usize {
    let top = shot.h - 38 - 190;
    (top..shot.h - 38)
        .flat_map(|y| (0..700).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let [r, g, b] = shot.at(x, y);
            r > 0xe0 && (0x90..0xd0).contains(&g) && b < 0x90
        })
        .count()
}

#[test]
fn the_console_folds_repeats_and_notes_a_wrong_draw_once() {
    let console = [r#"{"frame": 1, "key": "C"}"#];
    let dir = hall(false);
    let same = Shot::read(&shoot(dir.path(), 90, &console, "same"));
    let dir = hall(true);
    let counted = Shot::read(&shoot(dir.path(), 90, &console, "counted"));
    // 90 ticks of the same line: one row (with "x90"); 90 different lines fill the console.
    let (folded, filled) = (console_rows(&same), console_rows(&counted));
    assert_eq!(folded, 1, "the repeated line folds into one row");
    assert!(
        filled >= 6,
        "different lines fill the console: {filled} rows"
    );
    // The wrong draw call's note: one orange line, not 90.
    let notes = note_pixels(&same);
    assert!(notes > 50, "the draw note is shown: {notes} orange pixels");
    assert!(
        notes < 3000,
        "the draw note is one line, not many: {notes} orange pixels"
    );
}

/// The dock edge's colour (`Layout::draw_docks`).
const EDGE: [u8; 3] = [0x55, 0x58, 0x66];

impl Shot {
    /// The columns where a dock's inner edge runs down most of the height between `y0` and `y1`.
    fn edges(&self, y0: u32, y1: u32) -> Vec<u32> {
        (0..self.w)
            .filter(|&x| {
                let n = (y0..y1).filter(|&y| self.at(x, y) == EDGE).count();
                n as u32 > (y1 - y0) * 3 / 4
            })
            .collect()
    }
}

/// Recorded mouse positions are in tile units: the tile position of screen pixel `(x, y)`
/// read off a screenshot of the fitted hall, whose floor (tiles 1 to 18 by 1 to 8) has the
/// bounding box `floor`. This is what `--record` would have written for a click there.
fn tile_at((x0, y0, x1, _): (u32, u32, u32, u32), x: f64, y: f64) -> [f64; 2] {
    let tile = (x1 - x0 + 1) as f64 / 18.0;
    let at = |p: f64, p0: u32| 0.5 + (p - p0 as f64) / tile;
    [at(x, x0), at(y, y0)]
}

/// A click on the talker opens the inspector in the right dock.
const INSPECT: [&str; 2] = [
    r#"{"frame": 2, "press": "left", "at": [3.0, 3.0]}"#,
    r#"{"frame": 3, "release": "left", "at": [3.0, 3.0]}"#,
];

#[test]
fn a_dock_collapses_and_resizes_from_recorded_input_beside_the_map() {
    let dir = hall(false);
    let open = Shot::read(&shoot(dir.path(), 20, &INSPECT, "inspecting"));
    let (floor, n_open) = open.floor();
    let (mid0, mid1) = (open.h / 3, open.h * 2 / 3);
    // The inspector's dock: one inner edge, right of the whole floor.
    let edges = open.edges(mid0, mid1);
    assert_eq!(edges.len(), 1, "one dock edge: {edges:?}");
    let edge = edges[0];
    assert!(
        floor.2 < edge,
        "the floor {floor:?} is left of the dock at x {edge}"
    );

    // A click on the dock's header (its top rows, right of its edge) collapses it.
    let top = (0..open.h).find(|&y| open.at(edge, y) == EDGE).unwrap();
    let header = tile_at(floor, edge as f64 + 150.0, top as f64 + 10.0);
    let click = |frame: u64, at: [f64; 2]| {
        [
            format!(
                r#"{{"frame": {frame}, "press": "left", "at": [{}, {}]}}"#,
                at[0], at[1]
            ),
            format!(
                r#"{{"frame": {}, "release": "left", "at": [{}, {}]}}"#,
                frame + 1,
                at[0],
                at[1]
            ),
        ]
    };
    let mut collapse: Vec<String> = INSPECT.iter().map(|s| s.to_string()).collect();
    collapse.extend(click(8, header));
    let collapse: Vec<&str> = collapse.iter().map(String::as_str).collect();
    let shut = Shot::read(&shoot(dir.path(), 20, &collapse, "collapsed"));
    let (shut_floor, n_shut) = shut.floor();
    assert!(
        n_shut as f64 > 1.2 * n_open as f64,
        "the map grows when the dock collapses: {n_shut} against {n_open} floor pixels"
    );
    let shut_edges = shut.edges(mid0, mid1);
    assert_eq!(
        shut_edges.len(),
        1,
        "the collapsed dock's edge: {shut_edges:?}"
    );
    assert!(
        shut_edges[0] > edge + 200 && shut_floor.2 < shut_edges[0],
        "the collapsed dock is a strip at x {} right of the floor {shut_floor:?}",
        shut_edges[0]
    );

    // A drag of the dock's inner edge 120 pixels to the left widens it by 120.
    let from = tile_at(floor, edge as f64, (mid0 + mid1) as f64 / 2.0);
    let to = tile_at(floor, edge as f64 - 120.0, (mid0 + mid1) as f64 / 2.0);
    let mut drag: Vec<String> = INSPECT.iter().map(|s| s.to_string()).collect();
    drag.push(format!(
        r#"{{"frame": 8, "press": "left", "at": [{}, {}]}}"#,
        from[0], from[1]
    ));
    drag.push(format!(r#"{{"frame": 9, "move": [{}, {}]}}"#, to[0], to[1]));
    drag.push(format!(
        r#"{{"frame": 10, "release": "left", "at": [{}, {}]}}"#,
        to[0], to[1]
    ));
    let drag: Vec<&str> = drag.iter().map(String::as_str).collect();
    let wide = Shot::read(&shoot(dir.path(), 20, &drag, "widened"));
    let (wide_floor, n_wide) = wide.floor();
    let wide_edges = wide.edges(mid0, mid1);
    assert_eq!(
        wide_edges.len(),
        1,
        "one dock edge after the drag: {wide_edges:?}"
    );
    let moved = edge as i64 - wide_edges[0] as i64;
    assert!(
        (moved - 120).abs() <= 2,
        "the dock's edge follows the drag: it moved {moved} pixels, not 120"
    );
    assert!(
        wide_floor.2 < wide_edges[0] && n_wide < n_open,
        "the map fits what the wider dock leaves: floor {wide_floor:?}, {n_wide} pixels"
    );
    for name in ["collapsed", "widened"] {
        let _ = std::fs::copy(
            dir.path().join(format!("{name}.png")),
            root().join(format!("target/window_dock_{name}.png")),
        );
    }
}

/// The status bar's text, in pixels, in a window run with the user's config folder at `config` (the window's
/// settings then in `config/agentbox/window.json`), replaying `input` if given.
fn bar_with_settings(dir: &Path, config: &Path, input: Option<&str>, name: &str) -> usize {
    let shot = dir.join(format!("{name}.png"));
    let mut command = window_command(dir);
    command
        .env_remove("AGENTBOX_NO_SETTINGS")
        .env("XDG_CONFIG_HOME", config)
        .arg("run")
        .arg(dir.join("scene.yaml"))
        .args(["--frames", "5", "--screenshot"])
        .arg(&shot);
    if let Some(input) = input {
        let file = dir.join(format!("{name}.jsonl"));
        std::fs::write(&file, input).unwrap();
        command.arg("--input").arg(file);
    }
    let out = command
        .output()
        .expect("xvfb-run is installed (see README)");
    assert!(out.status.success(), "{name}: {}", stderr(&out));
    let shot = Shot::read(&shot);
    shot.text((0, 0, shot.w, 60))
}

#[test]
fn the_ui_scale_is_kept_between_runs_but_not_in_replays() {
    let dir = hall(false);
    let config = tempfile::tempdir().unwrap();
    let settings = config.path().join("agentbox/window.json");
    // No settings yet: the defaults, and a run that changes nothing writes none.
    let plain = bar_with_settings(dir.path(), config.path(), None, "plain");
    assert!(!settings.exists(), "an unchanged run wrote {settings:?}");
    // Kept from an earlier run: a UI scale of 2 doubles the status bar's text.
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"ui_scale": 2.0, "dock": {"left": 320, "right": 500, "bottom": 190}}"#,
    )
    .unwrap();
    let kept = bar_with_settings(dir.path(), config.path(), None, "kept");
    assert!(
        kept as f64 > 2.0 * plain as f64,
        "the kept UI scale is used: {kept} against {plain} text pixels"
    );
    // A replay of recorded input ignores them: it looks the same on every machine.
    let replay = bar_with_settings(dir.path(), config.path(), Some(""), "replay");
    assert_eq!(replay, plain, "a replay used the user's settings");
}
