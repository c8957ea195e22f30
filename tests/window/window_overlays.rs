//! The designer's window under Xvfb, driven by recorded input (`--input`): each overlay is
//! compared with a committed reference screenshot within a tolerance, toggling each overlay
//! changes the picture, and a wall painted and saved with S lands in the YAML with the
//! comments intact. Re-bless the references after an intended visual change with
//! `BLESS=1 cargo test --release --test window window_overlays::`.

use crate::common;
use common::*;
use std::path::{Path, PathBuf};

/// Runs the window on `scene` for `frames` frames with `input` lines, returns the screenshot.
fn shoot(dir: &Path, scene: &Path, frames: u64, input: &[&str], name: &str) -> PathBuf {
    replay_in_window(dir, scene, frames, &input.join("\n"), name).1
}

/// The share of pixels whose colour differs by more than a small amount in any channel.
fn differing_share(a: &Path, b: &Path) -> f64 {
    let (wa, ha, pa) = read_rgba(a);
    let (wb, hb, pb) = read_rgba(b);
    assert_eq!((wa, ha), (wb, hb), "same size");
    let differing = pa
        .chunks_exact(4)
        .zip(pb.chunks_exact(4))
        .filter(|(x, y)| {
            x.iter()
                .zip(y.iter())
                .take(3)
                .any(|(p, q)| p.abs_diff(*q) > 24)
        })
        .count();
    differing as f64 / (wa * ha) as f64
}

/// `(overlay, its key, the scene that gives it something to show)`.
const OVERLAYS: [(&str, &str, &str); 10] = [
    ("routes", "Digit1", "tests/fixtures/overlays.yaml"),
    ("sight", "Digit2", "tests/fixtures/overlays.yaml"),
    ("crumbs", "Digit3", "tests/fixtures/overlays.yaml"),
    ("waypoints", "Digit4", "tests/fixtures/overlays.yaml"),
    ("search", "Digit5", "tests/fixtures/overlays.yaml"),
    ("weights", "Digit6", "scenes/road.yaml"),
    ("probes", "Digit7", "scenes/rooms.yaml"),
    ("forces", "Digit8", "scenes/swarm.yaml"),
    ("heat", "Digit9", "scenes/swarm.yaml"),
    ("bodies", "Digit0", "tests/fixtures/overlays.yaml"),
];

/// Input shared by every overlay shot: the keyboard player walks right then down, leaving
/// crumbs.
const WALK: [&str; 4] = [
    r#"{"frame": 1, "hold": "Right"}"#,
    r#"{"frame": 25, "release": "Right"}"#,
    r#"{"frame": 25, "hold": "Down"}"#,
    r#"{"frame": 40, "release": "Down"}"#,
];

#[test]
fn each_overlay_matches_its_reference_and_changes_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let bless = std::env::var_os("BLESS").is_some();
    let mut plain_shots = std::collections::BTreeMap::new();
    for (name, key, scene_file) in OVERLAYS {
        let scene = root().join(scene_file);
        let plain = plain_shots
            .entry(scene_file)
            .or_insert_with(|| shoot(dir.path(), &scene, 45, &WALK, &format!("plain-{name}")))
            .clone();
        let toggle = format!(r#"{{"frame": 2, "key": "{key}"}}"#);
        let mut input: Vec<&str> = WALK.to_vec();
        input.push(&toggle);
        if name == "weights" {
            // Zoom in on the first car so its direction weights are readable.
            input.extend([r#"{"frame": 3, "wheel": 1.0, "at": [6.0, 1.0]}"#; 4]);
        }
        let shot = shoot(dir.path(), &scene, 45, &input, name);
        let changed = differing_share(&plain, &shot);
        assert!(
            changed > 0.001,
            "overlay {name} changes the picture ({changed:.5} of the pixels)"
        );
        let reference = root().join(format!("tests/reference/overlay-{name}.png"));
        if bless {
            std::fs::copy(&shot, &reference).unwrap();
            continue;
        }
        assert!(
            reference.exists(),
            "no reference for {name}: run BLESS=1 cargo test --release --test window window_overlays::"
        );
        let drift = differing_share(&reference, &shot);
        assert!(
            drift < 0.01,
            "overlay {name} differs from tests/reference/overlay-{name}.png in {:.2}% of the pixels (shot kept at {})",
            drift * 100.0,
            { let keep = std::env::temp_dir().join(format!("agentbox-overlay-{name}.png")); std::fs::copy(&shot, &keep).unwrap(); keep.display().to_string() }
        );
    }
}

#[test]
fn a_painted_and_saved_wall_is_in_the_yaml_with_comments_intact_and_undo_works() {
    let scene_text = std::fs::read_to_string(root().join("scenes/maze.yaml")).unwrap();
    let dir = scratch(&[("scenes/maze.yaml", &scene_text)]);
    for script in ["maze_runner.lua", "straight_chaser.lua"] {
        let text = std::fs::read_to_string(root().join("scripts").join(script)).unwrap();
        std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
        std::fs::write(dir.path().join("scripts").join(script), text).unwrap();
    }
    let scene = dir.path().join("scenes/maze.yaml");
    // Paint mode; a stroke over three floor tiles of row 13; a second stroke undone; save.
    let input = [
        r#"{"frame": 2, "key": "P"}"#,
        r#"{"frame": 3, "press": "left", "at": [3.0, 13.0]}"#,
        r#"{"frame": 4, "move": [4.0, 13.0]}"#,
        r#"{"frame": 5, "move": [5.0, 13.0]}"#,
        r#"{"frame": 6, "release": "left", "at": [5.0, 13.0]}"#,
        r#"{"frame": 7, "press": "left", "at": [7.0, 13.0]}"#,
        r#"{"frame": 8, "release": "left", "at": [7.0, 13.0]}"#,
        r#"{"frame": 9, "key": "Z", "ctrl": true}"#,
        r#"{"frame": 10, "key": "S"}"#,
    ];
    shoot(dir.path(), &scene, 30, &input, "paint");
    let saved = std::fs::read_to_string(&scene).unwrap();
    let expected = scene_text.replace(
        "    #.........#.........#\n    ####",
        "    #..###....#.........#\n    ####",
    );
    assert_ne!(expected, scene_text, "the test's own replacement applies");
    assert_eq!(
        saved, expected,
        "only the painted tiles changed; comments and keys intact"
    );
    let check = agentbox(&["check", scene.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "the saved scene loads: {}",
        stderr(&check)
    );
}
