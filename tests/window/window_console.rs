//! Why each agent acted, in the window under Xvfb from recorded input (`--input`): the guard
//! tutorial with the console (C), debug drawing (V) and the sight overlay (2) on and the
//! guard selected; a click on the inspector's decision strip jumps to that tick (shown by
//! branching there and saving the session), and the screenshot shows the strip, the console
//! and the guard's cone (look at `target/window_console.png`).

use crate::common;
use agentbox_session::history;
use common::*;
use std::path::{Path, PathBuf};

/// The guard scene and script, copied so the session file lands in a scratch folder.
fn guard_dir() -> tempfile::TempDir {
    let scene = std::fs::read_to_string(root().join("scenes/guard.yaml"))
        .unwrap()
        .replace("../scripts/guard.lua", "guard.lua");
    let script = std::fs::read_to_string(root().join("scripts/guard.lua")).unwrap();
    scratch(&[("scene.yaml", &scene), ("guard.lua", &script)])
}

fn run(dir: &Path, frames: u64, input: &[String], name: &str) -> PathBuf {
    replay_in_window(
        dir,
        &dir.join("scene.yaml"),
        frames,
        &input.join("\n"),
        name,
    )
    .1
}

/// The map point (tile units, as recorded input names the mouse) under the decision strip at
/// `tick` of `last`, for a `w` x `h` window on the guard's 30 x 11 map with the console and
/// the inspector open (the layout of `layout.rs`, `camera.rs` and `decisions.rs` at UI scale
/// 1: a 30-pixel bar and a 24-pixel legend on top, the 38-pixel timeline, the console's
/// 190-pixel dock above it, the inspector's 360-pixel dock on the right; the 96-pixel strip
/// at its bottom, its track 24 pixels down).
fn strip_point(w: f32, h: f32, tick: u64, last: u64) -> [f32; 2] {
    let (top, timeline, console, dock) = (54.0, 38.0, 190.0, 360.0);
    let map = (0.0, top, w - dock, h - timeline - console - top);
    let tile = ((map.2 - 16.0) / 30.0).min((map.3 - 16.0) / 11.0);
    let (cx, cy) = (14.5, 4.5);
    let (ax, ay) = (map.0 + map.2 / 2.0, map.1 + map.3 / 2.0);
    let content_bottom = h - timeline - console;
    let (rx, ry, rw) = (w - dock + 4.0, content_bottom - 96.0 - 4.0, dock - 8.0);
    let (tx, ty, tw) = (rx + 8.0, ry + 24.0 + 10.0, rw - 16.0);
    let sx = tx + tw * tick as f32 / last as f32;
    [cx + (sx - ax) / tile, cy + (ty - ay) / tile]
}

fn input(click: [f32; 2], then: &[&str]) -> Vec<String> {
    let mut lines: Vec<String> = vec![
        r#"{"frame": 1, "key": "C"}"#.into(),
        r#"{"frame": 1, "key": "V"}"#.into(),
        r#"{"frame": 1, "key": "Digit2"}"#.into(),
        r#"{"frame": 2, "press": "left", "at": [2.0, 2.0]}"#.into(),
        r#"{"frame": 3, "release": "left", "at": [2.0, 2.0]}"#.into(),
        format!(
            r#"{{"frame": 300, "press": "left", "at": [{}, {}]}}"#,
            click[0], click[1]
        ),
        format!(
            r#"{{"frame": 301, "release": "left", "at": [{}, {}]}}"#,
            click[0], click[1]
        ),
    ];
    lines.extend(then.iter().map(|s| s.to_string()));
    lines
}

#[test]
fn the_decision_strip_jumps_and_the_console_shows_prints() {
    let dir = guard_dir();
    // The window is 1024 x 768 (the screenshot's size).
    let click = strip_point(1024.0, 768.0, 140, 300);
    let shot = run(dir.path(), 303, &input(click, &[]), "strip");
    let (w, h, px) = read_rgba(&shot);
    assert_eq!((w, h), (1024, 768));
    let at = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        [px[i], px[i + 1], px[i + 2]]
    };
    // The strip's track holds coloured runs (not the empty track's grey) left of the click.
    let track_y = h - 38 - 190 - 4 - 96 + 24 + 14;
    let coloured = (690..830)
        .filter(|&x| {
            let [r, g, b] = at(x, track_y);
            r.max(g).max(b) - r.min(g).min(b) > 30
        })
        .count();
    assert!(coloured > 100, "coloured runs on the strip: {coloured}");
    // The console's dock is open at the bottom, with light text on it.
    let console_text = (8..500)
        .flat_map(|x| (h - 38 - 150..h - 40).map(move |y| (x, y)))
        .filter(|&(x, y)| at(x, y).iter().all(|&c| c > 0xc0))
        .count();
    assert!(console_text > 200, "console text pixels: {console_text}");
    let keep = root().join("target/window_console.png");
    let _ = std::fs::copy(&shot, &keep);

    // The same run, then Space branches at the tick shown and Ctrl+E saves the session: the
    // live branch then has the clicked tick plus the one Space's frame ran.
    let dir = guard_dir();
    run(
        dir.path(),
        304,
        &input(
            click,
            &[
                r#"{"frame": 302, "key": "Space"}"#,
                r#"{"frame": 303, "key": "E", "ctrl": true}"#,
            ],
        ),
        "jump",
    );
    let rec = history::load_recording(&dir.path().join("scene.session.json"))
        .expect("Ctrl+E saved the session");
    assert!(
        (139..=143).contains(&rec.ticks),
        "the click on the strip showed tick {} (wanted about 140)",
        rec.ticks - 1
    );
}
