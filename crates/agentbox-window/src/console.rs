//! The console (C): what scripts printed, each line stamped with its tick and agent, newest
//! at the bottom, in a bounded ring of [`KEEP`] lines; also the `draw.*` calls whose arguments
//! were wrong. It reads like a terminal: long lines wrap, a line repeated by the same agent
//! right after itself folds into one line with a count (`x12`), and a drawing note is kept
//! once per agent and note, counted. Filterable by agent: a click on a line shows only that
//! agent's lines, a click on the title shows all again (clicks come from the window's input,
//! `input.rs`). It sits in the bottom dock (`layout.rs`) and is painted with egui in the
//! window's one egui frame; it changes nothing but its own lines.

use super::layout::{current, Layout};
use egui_macroquad::egui;
use macroquad::prelude::*;
use std::collections::VecDeque;

/// The most lines kept (the oldest go first).
pub const KEEP: usize = 1000;
/// The most repeats a folded line remembers the ticks of (8 bytes each); past it the line
/// counts on but a branch cuts its count as if the rest were all after the branch.
const REPEAT_TICKS: usize = 4096;
/// Text size at UI scale 1, and a monospace glyph's width as a share of it.
const TEXT: f32 = 13.0;
const GLYPH: f32 = 0.6;

/// One printed line, with its repeats folded in.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The tick it was first printed at.
    pub tick: u64,
    pub agent: String,
    pub text: String,
    /// The ticks it was printed again at, in order (up to [`REPEAT_TICKS`]).
    repeats: Vec<u64>,
    /// How many times it was printed (1 + repeats, including any past the cap).
    pub count: u64,
    /// A note about a `draw.*` call: kept once per agent and text, wherever it was.
    note: bool,
}

/// The ring of lines, whether the panel is open and whose lines it shows.
#[derive(Default)]
pub struct Console {
    pub open: bool,
    lines: VecDeque<Line>,
    /// Only this agent's lines (`None`: everyone's).
    pub only: Option<String>,
}

/// `text` cut to `chars` characters, ending in "…" when cut.
pub fn ellipsis(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let mut out: String = text.chars().take(chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` wrapped to rows of `width` characters; continuation rows are indented by `indent`.
fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    let width = width.max(indent + 8);
    let mut rows = Vec::new();
    for raw in text.lines() {
        let chars: Vec<char> = raw.chars().collect();
        let mut at = 0;
        let mut first = true;
        loop {
            let room = if first { width } else { width - indent };
            let end = (at + room).min(chars.len());
            let piece: String = chars[at..end].iter().collect();
            rows.push(if first {
                piece
            } else {
                format!("{}{piece}", " ".repeat(indent))
            });
            first = false;
            at = end;
            if at >= chars.len() {
                break;
            }
        }
    }
    if rows.is_empty() {
        rows.push(String::new());
    }
    rows
}

impl Line {
    fn repeat(&mut self, tick: u64) {
        if self.repeats.len() < REPEAT_TICKS {
            self.repeats.push(tick);
        }
        self.count += 1;
    }

    /// The line as shown: tick, agent, text and the count when folded.
    fn shown(&self) -> String {
        let count = if self.count > 1 {
            format!("  x{}", self.count)
        } else {
            String::new()
        };
        format!("{:>6} {:<8} {}{count}", self.tick, self.agent, self.text)
    }
}

impl Console {
    /// Adds a line printed at `tick` by `agent`; the same text from the same agent right
    /// after itself folds into it.
    pub fn push(&mut self, tick: u64, agent: &str, text: &str) {
        if let Some(last) = self.lines.back_mut() {
            if !last.note && last.agent == agent && last.text == text {
                last.repeat(tick);
                return;
            }
        }
        self.add(tick, agent, text, false);
    }

    /// Adds a note about a wrong `draw.*` call: once per agent and text, counted after that.
    pub fn note(&mut self, tick: u64, agent: &str, text: &str) {
        let kept = self
            .lines
            .iter_mut()
            .rev()
            .find(|l| l.note && l.agent == agent && l.text == text);
        match kept {
            Some(line) => line.repeat(tick),
            None => self.add(tick, agent, text, true),
        }
    }

    fn add(&mut self, tick: u64, agent: &str, text: &str, note: bool) {
        if self.lines.len() >= KEEP {
            self.lines.pop_front();
        }
        self.lines.push_back(Line {
            tick,
            agent: agent.to_string(),
            text: text.to_string(),
            repeats: Vec::new(),
            count: 1,
            note,
        });
    }

    /// Drops what was printed after tick `to` (a branch: that future is gone), repeats too.
    pub fn cut(&mut self, to: u64) {
        self.lines.retain(|l| l.tick <= to);
        for line in &mut self.lines {
            let kept = line.repeats.partition_point(|&t| t <= to);
            if kept < line.repeats.len() || line.count > 1 + line.repeats.len() as u64 {
                line.repeats.truncate(kept);
                line.count = 1 + kept as u64;
            }
        }
    }

    /// How many characters a row holds in `r` at `ui`.
    fn columns(r: Rect, ui: f32) -> usize {
        ((r.w - 16.0) / (TEXT * GLYPH * ui)).max(20.0) as usize
    }

    /// The rows shown in `r`: the newest lines that pass the filter, wrapped, oldest first,
    /// each with the index of its line; as many as the rows under the title hold.
    fn rows(&self, r: Rect, ui: f32) -> Vec<(usize, String)> {
        let room = ((r.h - Self::title_height(ui) - 6.0) / Self::row_height(ui)).max(0.0) as usize;
        let columns = Self::columns(r, ui);
        let mut out: Vec<(usize, String)> = Vec::new();
        for (i, line) in self.lines.iter().enumerate().rev() {
            if out.len() >= room {
                break;
            }
            if self.only.as_deref().is_some_and(|a| a != line.agent) {
                continue;
            }
            for row in wrap(&line.shown(), columns, 16).into_iter().rev() {
                out.push((i, row));
            }
        }
        out.truncate(room);
        out.reverse();
        out
    }

    fn row_height(ui: f32) -> f32 {
        (TEXT + 4.0) * ui
    }

    fn title_height(ui: f32) -> f32 {
        (TEXT + 9.0) * ui
    }

    /// The panel's rectangle on screen: the bottom dock's, under the error lines.
    pub fn rect(layout: &Layout) -> Option<Rect> {
        layout.console()
    }

    /// A left click at `at` (screen pixels) while open: on the title shows every agent's
    /// lines, on a line only that agent's. True if the console took the click.
    pub fn click(&mut self, at: Vec2) -> bool {
        let layout = current();
        let Some(r) = Self::rect(&layout).filter(|r| self.open && r.contains(at)) else {
            return false;
        };
        let ui = layout.ui;
        if at.y < r.y + Self::title_height(ui) {
            self.only = None;
            return true;
        }
        let row = ((at.y - r.y - Self::title_height(ui) - 2.0) / Self::row_height(ui)).floor();
        if row >= 0.0 {
            if let Some((i, _)) = self.rows(r, ui).get(row as usize) {
                self.only = Some(self.lines[*i].agent.clone());
            }
        }
        true
    }

    /// Paints the panel into the window's one egui frame (`Window::draw_widgets`).
    pub fn paint(&self, ctx: &egui::Context) {
        let layout = current();
        let Some(r) = Self::rect(&layout).filter(|_| self.open) else {
            return;
        };
        let ui = layout.ui;
        let k = ctx.pixels_per_point().max(0.1);
        let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
        let painter = super::layout::dock_painter(ctx, "console", super::layout::Side::Bottom);
        painter.rect_filled(
            egui::Rect::from_min_max(p(r.x, r.y), p(r.x + r.w, r.y + r.h)),
            0.0,
            egui::Color32::from_rgb(0x12, 0x13, 0x17),
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
        let title_h = Self::title_height(ui);
        painter.text(
            p(r.x + 8.0, r.y + title_h / 2.0 + 1.0),
            egui::Align2::LEFT_CENTER,
            ellipsis(&title, Self::columns(r, ui)),
            egui::FontId::proportional(TEXT * ui / k),
            egui::Color32::from_rgb(0x90, 0xc8, 0xff),
        );
        let rows = self.rows(r, ui);
        let row_h = Self::row_height(ui);
        let font = egui::FontId::monospace(TEXT * ui / k);
        if rows.is_empty() {
            painter.text(
                p(r.x + 8.0, r.y + title_h + 2.0 + row_h / 2.0),
                egui::Align2::LEFT_CENTER,
                "nothing printed yet: print(...) in a script writes here",
                font.clone(),
                egui::Color32::from_gray(0x90),
            );
        }
        for (n, (i, row)) in rows.iter().enumerate() {
            let y = r.y + title_h + 2.0 + n as f32 * row_h + row_h / 2.0;
            let colour = if self.lines[*i].note {
                egui::Color32::from_rgb(0xff, 0xb0, 0x70)
            } else {
                egui::Color32::from_gray(0xe0)
            };
            painter.text(
                p(r.x + 8.0, y),
                egui::Align2::LEFT_CENTER,
                row,
                font.clone(),
                colour,
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
        let r = Rect::new(0.0, 0.0, 600.0, 400.0);
        assert!(c.rows(r, 1.0).iter().all(|(i, _)| c.lines[*i].agent == "a"));
        c.cut(500);
        assert_eq!(c.lines.back().map(|l| l.tick), Some(500));
    }

    #[test]
    fn repeats_fold_into_one_line_with_a_count_and_a_branch_cuts_the_count() {
        let mut c = Console::default();
        for t in 1..=90 {
            c.push(t, "guard", "patrol");
        }
        c.push(91, "guard", "chase");
        c.push(92, "guard", "patrol");
        assert_eq!(c.lines.len(), 3);
        assert_eq!(c.lines[0].count, 90);
        assert!(c.lines[0].shown().ends_with("patrol  x90"));
        c.cut(40);
        assert_eq!(c.lines.len(), 1);
        assert_eq!(c.lines[0].count, 40);
    }

    #[test]
    fn drawing_notes_are_kept_once_per_agent() {
        let mut c = Console::default();
        for t in 1..=90 {
            c.note(t, "a", "draw.line: bad colour");
            c.push(t, "a", &format!("step {t}"));
            c.note(t, "b", "draw.line: bad colour");
        }
        let notes: Vec<&Line> = c.lines.iter().filter(|l| l.note).collect();
        assert_eq!(notes.len(), 2);
        assert!(notes.iter().all(|l| l.count == 90));
    }

    #[test]
    fn long_lines_wrap_instead_of_being_cut() {
        let mut c = Console::default();
        let long = "word ".repeat(60);
        c.push(1, "a", &long);
        let r = Rect::new(0.0, 0.0, 400.0, 400.0);
        let rows = c.rows(r, 1.0);
        assert!(rows.len() >= 4, "{rows:?}");
        let text: String = rows
            .iter()
            .map(|(_, s)| s.trim())
            .collect::<Vec<_>>()
            .join("");
        assert_eq!(text.matches("word").count(), 60);
        assert!(rows
            .iter()
            .all(|(_, s)| s.chars().count() <= Console::columns(r, 1.0)));
        assert_eq!(ellipsis("abcdef", 4), "abc…");
    }
}
