//! The search mode's panel (right of the panes): the status, the choices, the step and speed,
//! G/H/F of the cell under the mouse, the colours, and the mode's keys from the keymap. The
//! window computes its lines ([`SearchMode::panel`]); egui only paints them.

use super::{
    number, option_row, panel_rect, thousands, Pane, SearchMode, CLOSED, DIAGONALS, EXPANDED, GOAL,
    HEURISTICS, METHODS, OPEN, PASSED, PATH, RATES, ROW, START,
};
use crate::keymap::{self, Action, Mode};
use agentbox_core::nav::replay::CellState;
use agentbox_core::world::Tile;
use egui_macroquad::egui;
use macroquad::prelude::*;

impl SearchMode {
    /// What the panel shows.
    pub fn panel(&self) -> PanelView {
        let cell_line = |p: &Pane, t: Tile| -> String {
            let name = p.searcher.name();
            match p.replay.cell(t) {
                Some(c) if c.state != CellState::Unseen => {
                    let state = match c.state {
                        CellState::Open => "open",
                        CellState::Passed => "passed",
                        CellState::Closed => "closed",
                        CellState::Unseen => "",
                    };
                    format!(
                        "{name}: {state} G {} H {} F {}",
                        number(c.g, 2),
                        number(c.h, 2),
                        number(c.f(), 2)
                    )
                }
                _ => format!("{name}: not reached"),
            }
        };
        let mut hover = Vec::new();
        if let Some(t) = self.layout.hover {
            hover.push(format!("under the mouse: {}, {}", t.x, t.y));
            for p in &self.panes {
                hover.push(cell_line(p, t));
            }
        }
        PanelView {
            status: self.status(),
            options: [
                format!("algorithm  {}", METHODS[self.query.method].0),
                format!("heuristic  {}", HEURISTICS[self.query.heuristic].1),
                format!("diagonal   {}", DIAGONALS[self.query.diagonal].1),
            ],
            step: format!(
                "step {} of {}{}",
                thousands(self.playback.step),
                thousands(self.last_step()),
                if self.playback.running {
                    "  (running)"
                } else {
                    ""
                }
            ),
            rate: format!("speed {} expansions/s  ([ ])", RATES[self.playback.rate]),
            hover,
        }
    }
}

/// The panel's lines, computed by the window and painted by [`paint`].
pub struct PanelView {
    status: String,
    options: [String; 3],
    step: String,
    rate: String,
    hover: Vec<String>,
}

fn color32(c: Color) -> egui::Color32 {
    let [r, g, b, a] = c.into();
    egui::Color32::from_rgba_unmultiplied(r, g, b, a)
}

const WHITE: egui::Color32 = egui::Color32::from_gray(235);
const GREY: egui::Color32 = egui::Color32::from_gray(160);
const YELLOW: egui::Color32 = egui::Color32::from_rgb(0xf2, 0xc9, 0x4c);

/// Writes into the panel in window pixels (egui works in points).
struct Pen {
    painter: egui::Painter,
    /// Points per pixel.
    k: f32,
    font: egui::FontId,
    /// The panel.
    r: Rect,
}

impl Pen {
    fn at(&self, x: f32, y: f32) -> egui::Pos2 {
        egui::pos2(x / self.k, y / self.k)
    }

    fn rect(&self, r: Rect, rounding: f32, colour: egui::Color32) {
        let rect = egui::Rect::from_min_max(self.at(r.x, r.y), self.at(r.x + r.w, r.y + r.h));
        self.painter.rect_filled(rect, rounding, colour);
    }

    /// A line of text at the panel's left margin, centred on `y`.
    fn text(&self, y: f32, s: &str, colour: egui::Color32) {
        self.text_at(self.r.x + 10.0, y, egui::Align2::LEFT_CENTER, s, colour);
    }

    fn text_at(&self, x: f32, y: f32, align: egui::Align2, s: &str, colour: egui::Color32) {
        let at = self.at(x, y);
        self.painter.text(at, align, s, self.font.clone(), colour);
    }
}

/// Paints the panel (right of the panes): the status line, the choices, the step, the cell
/// under the mouse, the colours and the keys.
pub fn paint(ctx: &egui::Context, view: &PanelView) {
    let k = ctx.pixels_per_point().max(0.1);
    let layer = egui::LayerId::new(egui::Order::Foreground, egui::Id::new("search"));
    let r = panel_rect();
    let pen = Pen {
        painter: ctx.layer_painter(layer),
        k,
        font: egui::FontId::monospace(13.0 / k),
        r,
    };
    let background = egui::Color32::from_rgba_unmultiplied(0x12, 0x13, 0x17, 0xf0);
    pen.rect(r, 4.0, background);
    pen.text(r.y + 14.0, "Search (Q or Esc leaves)", WHITE);
    // The status line, wrapped at the panel's width (the font is monospaced).
    let per_line = ((r.w - 20.0) / 7.9).max(10.0) as usize;
    let mut y = r.y + 36.0;
    for line in wrap(&view.status, per_line).iter().take(2) {
        pen.text(y, line, YELLOW);
        y += 16.0;
    }
    paint_options(&pen, view);
    let mut y = option_row(2).y + ROW + 14.0;
    for line in [&view.step, &view.rate] {
        pen.text(y, line, WHITE);
        y += 17.0;
    }
    y += 6.0;
    for line in view.hover.iter().flat_map(|l| wrap(l, per_line)) {
        pen.text(y, &line, WHITE);
        y += 17.0;
    }
    if view.hover.is_empty() {
        pen.text(y, "(hover a cell for its G, H, F)", GREY);
        y += 17.0;
    }
    let mut y = paint_legend(&pen, y + 6.0) + 6.0;
    let mut keys = keymap::key_list(Mode::Search, 13, per_line);
    keys.push("cells: F top, G and H below".into());
    for line in &keys {
        pen.text(y, line, GREY);
        y += 16.0;
    }
}

/// The option rows (a click cycles one), each with its key at the right.
fn paint_options(pen: &Pen, view: &PanelView) {
    let keys = [
        Action::CycleAlgorithm,
        Action::CycleHeuristic,
        Action::CycleDiagonal,
    ];
    for (i, option) in view.options.iter().enumerate() {
        let row = option_row(i);
        pen.rect(row, 3.0, egui::Color32::from_gray(0x2a));
        pen.text(row.y + row.h / 2.0, option, WHITE);
        let key = keymap::key_label(Mode::Search, keys[i]).unwrap_or_default();
        let (x, y) = (row.x + row.w - 8.0, row.y + row.h / 2.0);
        pen.text_at(x, y, egui::Align2::RIGHT_CENTER, &key, GREY);
    }
}

/// The colours' legend from `y`; returns where it ends.
fn paint_legend(pen: &Pen, mut y: f32) -> f32 {
    let rgb = |[r, g, b]: [u8; 3]| Color::from_rgba(r, g, b, 255);
    let legend = [
        (rgb(OPEN), "open"),
        (rgb(CLOSED), "closed (expanded)"),
        (EXPANDED, "expanded this step"),
        (rgb(PASSED), "passed (JPS, not queued)"),
        (PATH, "path"),
        (START, "start (left-click)"),
        (GOAL, "goal (right-click)"),
    ];
    let x = pen.r.x;
    for (colour, name) in legend {
        let swatch = egui::Rect::from_min_max(pen.at(x + 10.0, y - 6.0), pen.at(x + 22.0, y + 6.0));
        pen.painter.rect_filled(swatch, 2.0, color32(colour));
        pen.text_at(x + 30.0, y, egui::Align2::LEFT_CENTER, name, WHITE);
        y += 17.0;
    }
    y
}

/// Splits `s` into lines of at most `width` characters at spaces.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split(' ') {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}
