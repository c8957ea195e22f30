//! The window, tried as a user would: under a virtual X display (Xvfb, Mesa's software
//! OpenGL) it opens on a shipped scene, runs, and its screenshot shows the map and the
//! agents. Needs `xvfb-run` (the README's setup line and `.ci/run` install it).

use crate::common;
use common::*;
use std::collections::BTreeMap;
use std::process::Command;

fn colour_counts(rgba: &[u8]) -> BTreeMap<[u8; 3], usize> {
    let mut counts = BTreeMap::new();
    for px in rgba.chunks_exact(4) {
        *counts.entry([px[0], px[1], px[2]]).or_default() += 1;
    }
    counts
}

#[test]
fn the_window_shows_the_map_and_the_agents() {
    let xvfb = Command::new("xvfb-run").arg("--help").output();
    assert!(
        xvfb.is_ok(),
        "xvfb-run is needed for the window test: apt-get install xvfb xauth (see README)"
    );
    let dir = scratch(&[]);
    let shot = dir.path().join("chase.png");
    let out = window_command(&root())
        .args(["run", "scenes/chase.yaml", "--frames", "45", "--screenshot"])
        .arg(&shot)
        .output()
        .expect("xvfb-run runs");
    assert!(out.status.success(), "window run failed: {}", stderr(&out));
    let (w, h, rgba) = read_rgba(&shot);
    assert!(w >= 640 && h >= 480, "window size {w}x{h}");
    let counts = colour_counts(&rgba);
    let total = (w * h) as usize;
    let share = |c: [u8; 3]| counts.get(&c).copied().unwrap_or(0) as f64 / total as f64;
    // The chase map is mostly floor, ringed by wall, with a water pond and mud.
    assert!(
        share([0xd8, 0xd2, 0xc4]) > 0.25,
        "floor colour fills the map: {}",
        share([0xd8, 0xd2, 0xc4])
    );
    assert!(share([0x3b, 0x3f, 0x4a]) > 0.05, "walls are drawn");
    assert!(share([0x3f, 0x7f, 0xc8]) > 0.003, "water is drawn");
    assert!(share([0x8a, 0x6a, 0x3f]) > 0.003, "mud is drawn");
    // Agents are discs in their kind's palette colour: some pixels of at least two
    // saturated colours that no terrain uses.
    let saturated = counts
        .iter()
        .filter(|(c, n)| {
            let (max, min) = (
                *c.iter().max().unwrap() as i32,
                *c.iter().min().unwrap() as i32,
            );
            max - min > 120 && **n > 150
        })
        .count();
    assert!(
        saturated >= 2,
        "two agent discs are visible ({saturated} saturated colours)"
    );
}

/// No display named, a display that does not exist, or only a Wayland one (the window opens
/// on X11): each gets the same message and exit 1, never macroquad's panic.
#[test]
fn without_a_display_run_says_what_to_do() {
    let cases: [(&[(&str, &str)], &str); 3] = [
        (&[], "(DISPLAY is not set)"),
        (
            &[("DISPLAY", ":9917")],
            "(the X display DISPLAY=:9917 cannot be opened)",
        ),
        (
            &[("WAYLAND_DISPLAY", "wayland-9917")],
            "(DISPLAY is not set; the window opens on X11",
        ),
    ];
    for (env, reason) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_agentbox"))
            .args(["run", "scenes/chase.yaml"])
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .envs(env.iter().copied())
            .current_dir(root())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{env:?}: {err}");
        assert!(
            err.starts_with("error: agentbox run needs a display, and none was found")
                && err.contains(reason)
                && err.contains("xvfb-run -a agentbox run"),
            "{env:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{env:?}: {err}");
    }
}

#[test]
fn frame_stats_say_they_measure_wall_clock_time() {
    let out = in_window(
        &root(),
        &["run", "scenes/chase.yaml", "--frames", "5", "--frame-stats"],
    );
    assert!(out.status.success(), "window run failed: {}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("frames: ")).collect();
    assert_eq!(lines.len(), 2, "whole frame and drawing only: {err}");
    for line in lines {
        assert!(
            line.contains("5 frames") && line.contains("frame build time (wall clock) mean "),
            "{line}"
        );
        assert!(!line.contains("CPU"), "it is not CPU time: {line}");
    }
}
