//! The help panel (F1 or ?): the map's keys from the keymap, and every overlay with its key
//! and what it shows. It only draws.

use super::keymap::{self, Mode};
use super::layout::{current, Side};
use super::overlays::{Overlays, ALL};
use super::text::{fit_lines, measure, panel, panel_height};

/// The width of the key column, in characters.
const KEYS: usize = 23;

/// The panel's lines: the map's key list, then the overlays, ticked when on.
pub fn lines(overlays: &Overlays) -> Vec<String> {
    let mut lines = keymap::key_list(Mode::Map, KEYS, usize::MAX);
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

/// Draws the help in the left dock, opaque: the largest text (from 17 px down to 13 px at the
/// UI scale of one) at which the lines, wrapped to the dock's width, fit in one column, else
/// in two side by side.
pub fn draw(overlays: &Overlays) {
    let layout = current();
    let Some(dock) = layout.content(Side::Left) else {
        return;
    };
    let lines = lines(overlays);
    let room = dock.h - 8.0;
    let (x, y, w) = (dock.x + 4.0, dock.y + 4.0, dock.w - 8.0);
    let sizes = || {
        (13..=17)
            .rev()
            .map(|s| (s as f32 * layout.ui).round() as u16)
    };
    let title = "agentbox - keys and overlays (F1 or Esc closes)";
    for size in sizes() {
        let rows = wrapped(&lines, w, size);
        if panel_height(rows.len(), size) <= room {
            panel(x, y, w, title, &rows, size);
            return;
        }
    }
    let col = w / 2.0 - 2.0;
    let size = sizes()
        .find(|&size| panel_height(wrapped(&lines, col, size).len().div_ceil(2), size) <= room)
        .unwrap_or((13.0 * layout.ui).round() as u16);
    let mut rows = wrapped(&lines, col, size);
    let right = rows.split_off(rows.len().div_ceil(2));
    panel(x, y, col, title, &fit_lines(rows, room, size), size);
    panel(
        x + col + 4.0,
        y,
        col,
        "",
        &fit_lines(right, room, size),
        size,
    );
}

/// The help's lines wrapped at spaces to `width` pixels at `size`; a line's continuation is
/// indented to its text column (after the keys), or by four spaces when that leaves too little.
fn wrapped(lines: &[String], width: f32, size: u16) -> Vec<String> {
    let glyph = measure("M", size as f32).width.max(1.0);
    let columns = ((width - 16.0) / glyph).max(16.0) as usize;
    let indent = if columns >= KEYS + 30 { KEYS + 1 } else { 4 };
    let mut out = Vec::new();
    for line in lines {
        let mut row = String::new();
        for word in line.split(' ') {
            let len = row.chars().count();
            if len > 0 && len + 1 + word.chars().count() > columns && row.trim().len() > indent {
                out.push(std::mem::take(&mut row));
                row = " ".repeat(indent);
            } else if len > 0 {
                row.push(' ');
            }
            row.push_str(word);
        }
        out.push(row);
    }
    out
}
