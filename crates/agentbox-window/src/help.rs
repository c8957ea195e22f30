//! The help panel (F1 or ?): the map's keys from the keymap, and every overlay with its key
//! and what it shows. It only draws.

use super::keymap::{self, Mode};
use super::overlays::{Overlays, ALL};
use super::text::{panel, panel_height};
use macroquad::prelude::*;

/// The width of the key column, in characters.
const KEYS: usize = 23;

/// The panel's lines: the map's key list, then the overlays, ticked when on.
pub fn lines(overlays: &Overlays) -> Vec<String> {
    let mut lines = keymap::key_list(Mode::Map, KEYS, usize::MAX);
    // No blank line before the overlays' heading: the list must fit a 1024x768 window.
    lines.push("Overlays (toggle with their key):".into());
    for (overlay, name, what) in ALL {
        let mark = if overlays.on.contains(&overlay) {
            "[x]"
        } else {
            "[ ]"
        };
        let key = keymap::overlay_key(overlay);
        lines.push(format!("{mark} {key}  {name:<10}{what}"));
    }
    lines
}

pub fn draw(overlays: &Overlays) {
    let lines = lines(overlays);
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
