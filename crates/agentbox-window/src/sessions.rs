//! The session list (Ctrl+O): the `*.session.json` files beside the scene, one chosen with
//! the arrows and Enter or a click, Esc to close. egui only paints it; keys and clicks come
//! from the window's own input (`input.rs`), so recorded input drives it. It opens nothing
//! itself: the window opens the chosen file (`runs.rs`).

use super::input::FrameInput;
use super::keymap::{Action, Actions};
use egui_macroquad::egui;
use macroquad::prelude::*;
use std::path::{Path, PathBuf};

/// Rows shown at most (the list scrolls with the selection).
const ROWS: usize = 12;
const ROW_HEIGHT: f32 = 24.0;
const WIDTH: f32 = 560.0;

/// The open list.
pub struct Picker {
    pub files: Vec<PathBuf>,
    pub selected: usize,
}

/// What a frame's input did to the list.
pub enum Choice {
    Stay,
    Close,
    Open(PathBuf),
}

/// The session files in the scene's folder, by name.
pub fn beside(scene: &Path) -> Vec<PathBuf> {
    let dir = match scene.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.ends_with(".session.json"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

impl Picker {
    pub fn new(scene: &Path) -> Self {
        Picker {
            files: beside(scene),
            selected: 0,
        }
    }

    /// The first row shown (the list scrolls to keep the selection in view).
    fn first(&self) -> usize {
        self.selected.saturating_sub(ROWS - 1)
    }

    /// The panel's top-left corner, in window pixels.
    fn origin() -> Vec2 {
        vec2((screen_width() - WIDTH) / 2.0, 110.0)
    }

    /// The screen rectangle of the `i`th row shown.
    fn row_rect(i: usize) -> Rect {
        let o = Self::origin();
        Rect::new(
            o.x + 8.0,
            o.y + 40.0 + i as f32 * ROW_HEIGHT,
            WIDTH - 16.0,
            ROW_HEIGHT,
        )
    }

    /// Applies a frame's input: arrows move, Enter or a click on a row opens, Esc closes.
    pub fn handle(&mut self, input: &FrameInput, keys: &Actions) -> Choice {
        if keys.has(Action::Close) {
            return Choice::Close;
        }
        let n = self.files.len();
        if keys.has(Action::NextRow) && n > 0 {
            self.selected = (self.selected + 1).min(n - 1);
        }
        if keys.has(Action::PreviousRow) {
            self.selected = self.selected.saturating_sub(1);
        }
        if input.button_pressed[0] {
            let shown = n.saturating_sub(self.first()).min(ROWS);
            if let Some(i) = (0..shown).find(|&i| Self::row_rect(i).contains(input.mouse)) {
                self.selected = self.first() + i;
                return Choice::Open(self.files[self.selected].clone());
            }
        }
        if keys.has(Action::OpenRow) {
            if let Some(f) = self.files.get(self.selected) {
                return Choice::Open(f.clone());
            }
        }
        Choice::Stay
    }
}

/// Paints the list into the window's one egui frame (`Window::draw_widgets`).
pub fn paint(ctx: &egui::Context, picker: &Picker) {
    let k = ctx.pixels_per_point().max(0.1);
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::new("sessions"),
    ));
    let o = Picker::origin();
    let shown = picker.files.len().saturating_sub(picker.first()).min(ROWS);
    let height = 40.0 + shown.max(1) as f32 * ROW_HEIGHT + 30.0;
    painter.rect_filled(
        egui::Rect::from_min_max(p(o.x, o.y), p(o.x + WIDTH, o.y + height)),
        4.0,
        egui::Color32::from_rgba_unmultiplied(0x16, 0x18, 0x1e, 0xf4),
    );
    let text = |x: f32, y: f32, s: &str, size: f32, c: egui::Color32| {
        painter.text(
            p(x, y),
            egui::Align2::LEFT_CENTER,
            s,
            egui::FontId::monospace(size / k),
            c,
        );
    };
    text(
        o.x + 12.0,
        o.y + 20.0,
        "Open a session (arrows, Enter or click; Esc closes)",
        15.0,
        egui::Color32::from_gray(0xee),
    );
    if picker.files.is_empty() {
        text(
            o.x + 16.0,
            o.y + 40.0 + ROW_HEIGHT / 2.0,
            "no *.session.json beside the scene (Ctrl+E saves one)",
            14.0,
            egui::Color32::from_gray(0xa0),
        );
    }
    for i in 0..shown {
        let index = picker.first() + i;
        let r = Picker::row_rect(i);
        if index == picker.selected {
            painter.rect_filled(
                egui::Rect::from_min_max(p(r.x, r.y), p(r.x + r.w, r.y + r.h)),
                2.0,
                egui::Color32::from_rgb(0x30, 0x5a, 0x9a),
            );
        }
        let name = picker.files[index]
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        text(
            r.x + 8.0,
            r.y + r.h / 2.0,
            &name,
            14.0,
            egui::Color32::from_gray(0xdd),
        );
    }
}
