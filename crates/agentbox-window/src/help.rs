//! The help panel (F1 or ?): every key, and every overlay with what it shows.

use super::overlays::{Overlays, ALL};
use super::text::{panel, panel_height};
use macroquad::prelude::*;

const KEYS: [(&str, &str); 28] = [
    ("F1 or ?", "this help"),
    ("Space", "pause / run"),
    (". or N", "one tick while paused"),
    ("[ and ]", "slower / faster (x0.25 .. x8)"),
    ("R", "reset to the scene's start"),
    ("wheel, + - / mid-drag", "zoom at the cursor / pan"),
    ("F or Home", "fit the map to the window"),
    ("left-click", "inspect an agent (drag it to move it)"),
    (
        "U",
        "resume the inspected agent after a budget or memory stop",
    ),
    ("right-click", "set the goal scripts read with world:goal()"),
    ("P", "paint mode: left-drag paints, right-drag erases"),
    ("T", "next terrain to paint"),
    (
        "Ctrl+Z",
        "undo the last paint stroke (the last slider change if Tab is open)",
    ),
    (
        "S / Ctrl+S",
        "save the painted map and the tunables into the scene file (S in paint mode)",
    ),
    (
        "Tab or J",
        "tunables and plots panel (a slider sets from the next tick, recorded)",
    ),
    ("arrows / WASD", "drive control: keyboard agents"),
    ("click an error", "show the whole message"),
    ("Esc", "close a panel, or quit"),
    (
        "drag the timeline",
        "scrub: show a past tick (world, overlays, inspector)",
    ),
    (
        ", and .",
        "one tick back / forward (paused); Shift: one second, Ctrl: ten",
    ),
    ("End", "back to the latest tick"),
    (
        "Space in the past",
        "branch: play on from there with today's scripts",
    ),
    (
        "G / Ctrl+E",
        "ghost of the old branch / save the session (docs/keys.md)",
    ),
    (
        "Ctrl+O",
        "open a saved session beside the scene (arrows, Enter, Esc)",
    ),
    (
        "C",
        "console: print output by tick and agent (click a line: that agent only)",
    ),
    ("L", "state labels (self:label) over the agents"),
    (
        "V",
        "debug drawing: the scripts' draw.* shapes (click the decision strip to jump)",
    ),
    (
        "Q",
        "search mode: clicks place start/goal, Enter step, Shift+Enter run, M H X choose",
    ),
];

pub fn draw(overlays: &Overlays) {
    let mut lines: Vec<String> = KEYS.iter().map(|(k, v)| format!("{k:<23}{v}")).collect();
    lines.push(String::new());
    lines.push("Overlays (toggle with their key):".into());
    for (overlay, _, key, name, what) in ALL {
        let mark = if overlays.on.contains(&overlay) {
            "[x]"
        } else {
            "[ ]"
        };
        lines.push(format!("{mark} {key}  {name:<10}{what}"));
    }
    let width = (screen_width() - 80.0).min(900.0);
    // Below the top bar, above the timeline: the largest font (16 down to 10) whose lines fit.
    let (top, room) = (50.0, screen_height() - 50.0 - 46.0);
    let size = (10..=16)
        .rev()
        .find(|&size| panel_height(lines.len(), size) <= room)
        .unwrap_or(10);
    panel(
        40.0,
        top,
        width,
        "agentbox - keys and overlays",
        &lines,
        size,
    );
}
