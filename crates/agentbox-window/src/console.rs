//! The console (C): what scripts printed, each line stamped with its tick and agent, newest
//! at the bottom, in a bounded ring of [`KEEP`] lines; also the `draw.*` calls whose arguments
//! were wrong. Filterable by agent: a click on a line shows only that agent's lines, a click
//! on the title shows all again (clicks come from the window's input, `input.rs`). Painted
//! with egui in the window's one egui frame; it changes nothing but its own lines.

use egui_macroquad::egui;
use macroquad::prelude::*;
use std::collections::VecDeque;

/// The most lines kept (the oldest go first).
pub const KEEP: usize = 1000;
/// Lines shown at once.
const SHOWN: usize = 8;
const LINE_HEIGHT: f32 = 16.0;
const TITLE_HEIGHT: f32 = 22.0;

/// One printed line.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub tick: u64,
    pub agent: String,
    pub text: String,
}

/// The ring of lines, whether the panel is open and whose lines it shows.
#[derive(Default)]
pub struct Console {
    pub open: bool,
    lines: VecDeque<Line>,
    /// Only this agent's lines (`None`: everyone's).
    pub only: Option<String>,
}

impl Console {
    /// Adds a line printed at `tick` by `agent`.
    pub fn push(&mut self, tick: u64, agent: &str, text: &str) {
        if self.lines.len() >= KEEP {
            self.lines.pop_front();
        }
        self.lines.push_back(Line {
            tick,
            agent: agent.to_string(),
            text: text.to_string(),
        });
    }

    /// Drops the lines printed after tick `to` (a branch: that future is gone).
    pub fn cut(&mut self, to: u64) {
        self.lines.retain(|l| l.tick <= to);
    }

    /// The lines shown now: the newest [`SHOWN`] that pass the filter, oldest first.
    fn shown(&self) -> Vec<&Line> {
        let mut out: Vec<&Line> = self
            .lines
            .iter()
            .rev()
            .filter(|l| self.only.as_deref().is_none_or(|a| a == l.agent))
            .take(SHOWN)
            .collect();
        out.reverse();
        out
    }

    /// The panel's rectangle on screen (bottom left, above the timeline bar).
    pub fn rect() -> Rect {
        let w = (screen_width() * 0.5).clamp(200.0, 640.0);
        let h = TITLE_HEIGHT + SHOWN as f32 * LINE_HEIGHT + 8.0;
        Rect::new(
            8.0,
            screen_height() - super::timeline::HEIGHT - 8.0 - h,
            w,
            h,
        )
    }

    /// A left click at `at` (screen pixels) while open: on the title shows every agent's
    /// lines, on a line only that agent's. True if the console took the click.
    pub fn click(&mut self, at: Vec2) -> bool {
        let r = Self::rect();
        if !self.open || !r.contains(at) {
            return false;
        }
        if at.y < r.y + TITLE_HEIGHT {
            self.only = None;
            return true;
        }
        let row = ((at.y - r.y - TITLE_HEIGHT - 4.0) / LINE_HEIGHT).floor();
        if row >= 0.0 {
            if let Some(line) = self.shown().get(row as usize) {
                self.only = Some(line.agent.clone());
            }
        }
        true
    }

    /// Paints the panel into the window's one egui frame (`Window::draw_widgets`).
    pub fn paint(&self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        let r = Self::rect();
        let k = ctx.pixels_per_point().max(0.1);
        let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
        let painter = ctx.layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::new("console"),
        ));
        painter.rect_filled(
            egui::Rect::from_min_max(p(r.x, r.y), p(r.x + r.w, r.y + r.h)),
            3.0,
            egui::Color32::from_rgba_unmultiplied(0x12, 0x13, 0x17, 0xe8),
        );
        let title = match &self.only {
            Some(a) => format!(
                "console: {a} only (click here for all)  {} lines kept",
                self.lines.len()
            ),
            None => format!(
                "console: every agent (click a line for its agent)  {} lines kept",
                self.lines.len()
            ),
        };
        painter.text(
            p(r.x + 8.0, r.y + TITLE_HEIGHT / 2.0 + 1.0),
            egui::Align2::LEFT_CENTER,
            title,
            egui::FontId::proportional(13.0 / k),
            egui::Color32::from_rgb(0x90, 0xc8, 0xff),
        );
        let shown = self.shown();
        if shown.is_empty() {
            painter.text(
                p(r.x + 8.0, r.y + TITLE_HEIGHT + 4.0 + LINE_HEIGHT / 2.0),
                egui::Align2::LEFT_CENTER,
                "nothing printed yet: print(...) in a script writes here",
                egui::FontId::monospace(12.0 / k),
                egui::Color32::from_gray(0x90),
            );
        }
        // Long lines are cut to what fits.
        let chars = ((r.w - 16.0) / 7.2).max(10.0) as usize;
        for (i, line) in shown.iter().enumerate() {
            let y = r.y + TITLE_HEIGHT + 4.0 + i as f32 * LINE_HEIGHT + LINE_HEIGHT / 2.0;
            let text = format!("{:>6} {:<8} {}", line.tick, line.agent, line.text);
            let text: String = text.chars().take(chars).collect();
            painter.text(
                p(r.x + 8.0, y),
                egui::Align2::LEFT_CENTER,
                text,
                egui::FontId::monospace(12.0 / k),
                egui::Color32::from_gray(0xe0),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_newest_and_a_branch_cuts_the_future() {
        let mut c = Console::default();
        for t in 0..(KEEP as u64 + 10) {
            c.push(t, if t % 2 == 0 { "a" } else { "b" }, "x");
        }
        assert_eq!(c.lines.len(), KEEP);
        assert_eq!(c.lines.front().map(|l| l.tick), Some(10));
        c.only = Some("a".into());
        assert!(c.shown().iter().all(|l| l.agent == "a"));
        c.cut(500);
        assert_eq!(c.lines.back().map(|l| l.tick), Some(500));
    }
}
