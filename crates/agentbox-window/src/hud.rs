//! The HUD: the status bar (scene, tick, simulated time, speed, FPS, agents, modes, and a
//! status message: a note in green, a failure such as a reload kept back in red) and the
//! error list (the latest error per script and per agent; click one to read it whole).

use super::layout::{current, ERROR_ROW};
use super::text::{panel, wrap};
use agentbox_core::world::World;
use agentbox_session::history::TickView;
use agentbox_session::session::Reload;
use macroquad::prelude::*;

/// How a status message reads: a note in green, a failure in red.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Note,
    Failure,
}

impl Tone {
    /// A reload that failed (the last good version kept) is a failure; the rest are notes.
    pub fn of(reload: &Reload) -> Tone {
        match reload {
            Reload::ScriptFailed(_) | Reload::SceneFailed(_) => Tone::Failure,
            Reload::ScriptOk(_) | Reload::SceneOk(..) | Reload::Watch(_) => Tone::Note,
        }
    }

    /// The message's colour on the bar's dark ground.
    fn color(self) -> Color {
        match self {
            Tone::Note => Color::from_rgba(0x9f, 0xd8, 0x9f, 0xff),
            Tone::Failure => Color::from_rgba(0xff, 0x6b, 0x6b, 0xff),
        }
    }
}

#[derive(Default)]
pub struct Hud {
    status: Option<(String, Tone, f64)>,
    /// The error shown whole, if one was clicked.
    pub expanded: Option<String>,
    /// Screen rows of the error lines drawn last frame, for clicks.
    error_rows: Vec<(Rect, String)>,
}

/// What the status bar shows besides the world.
pub struct BarState<'a> {
    pub paused: bool,
    pub speed: f64,
    /// `None` in `--frames` runs, so screenshots do not depend on timing.
    pub fps: Option<i32>,
    pub mode: Option<&'a str>,
}

impl Hud {
    /// Shows a message in the status bar for a few seconds.
    pub fn status(&mut self, message: String) {
        self.status = Some((message, Tone::Note, get_time()));
    }

    /// Shows what failed in the status bar for a few seconds, in red.
    pub fn failure(&mut self, message: String) {
        self.status = Some((message, Tone::Failure, get_time()));
    }

    /// Says what a file change did: a reload that failed (the last good version kept) in red.
    pub fn reload(&mut self, reload: &Reload) {
        self.status = Some((reload.to_string(), Tone::of(reload), get_time()));
    }

    /// The error line under a click, if any.
    pub fn error_at(&self, point: Vec2) -> Option<String> {
        self.error_rows
            .iter()
            .find(|(r, _)| r.contains(point))
            .map(|(_, e)| e.clone())
    }

    /// Every error worth showing now: the scene's and failing scripts', then agents' own.
    pub fn errors(session: &dyn TickView) -> Vec<String> {
        let mut lines = session.current_errors();
        for agent in &session.world().agents {
            if let Some(e) = &agent.error {
                if !lines
                    .iter()
                    .any(|l| l.starts_with(e.as_str()) || e.as_str().starts_with(l.as_str()))
                {
                    lines.push(format!("{e} (agent {})", agent.id));
                }
            }
        }
        lines
    }

    /// Draws the status bar, the status message, the error list and the error shown whole.
    pub fn draw(&mut self, session: &dyn TickView, bar: BarState) {
        let text = Self::draw_bar(session.world(), &bar);
        self.draw_status(&text);
        self.draw_errors(&Self::errors(session));
        if let Some(full) = &self.expanded {
            let width = (screen_width() - 80.0).min(900.0);
            let size = (16.0 * current().ui) as u16;
            let lines = wrap(full, width - 16.0, size);
            panel(
                40.0,
                screen_height() / 3.0,
                width,
                "error (click anywhere to close)",
                &lines,
                size,
            );
        }
    }

    /// The bar's ground, opaque (drawn first, in `opaque::flat`).
    pub fn draw_bar_ground() {
        let r = current().bar;
        draw_rectangle(r.x, r.y, r.w, r.h, Color::from_rgba(0x12, 0x13, 0x17, 0xff));
    }

    /// The bar's text along the top (over [`Hud::draw_bar_ground`]); returns it.
    fn draw_bar(world: &World, bar: &BarState) -> String {
        let r = current().bar;
        let mut text = format!(
            "{}   tick {}   t {:.1}s   x{}   {}{} agents",
            world.name,
            world.tick,
            world.time(),
            bar.speed,
            bar.fps.map_or(String::new(), |f| format!("{f} fps   ")),
            world.agents.len(),
        );
        if bar.paused {
            text.push_str("   PAUSED");
        }
        if let Some(mode) = bar.mode {
            text.push_str("   ");
            text.push_str(mode);
        }
        text.push_str("   F1 help");
        let size = 18.0 * current().ui;
        crate::text::ui_text(
            &text,
            10.0,
            r.h * 0.5 + size * 0.35,
            size,
            Color::from_rgba(0xe8, 0xe8, 0xe8, 0xff),
        );
        text
    }

    /// The status message, for four seconds: on the bar's right when it fits beside the bar's
    /// `text`, else on a strip below.
    fn draw_status(&self, text: &str) {
        let Some((message, tone, since)) = &self.status else {
            return;
        };
        if get_time() - since >= 4.0 {
            return;
        }
        let layout = current();
        let (bar, font) = (layout.bar, 18.0 * layout.ui);
        let used = crate::text::measure(text, font).width + 30.0;
        let size = crate::text::measure(message, font);
        let color = tone.color();
        if used + size.width + 10.0 <= bar.w {
            let y = bar.h * 0.5 + font * 0.35;
            crate::text::ui_text(message, bar.w - size.width - 10.0, y, font, color);
        } else {
            // On a strip at the right of the legend row (or under the bar without one).
            let y0 = bar.y + bar.h;
            let h = layout.legend.h.max(24.0 * layout.ui);
            let x = (bar.w - size.width - 20.0).max(0.0);
            // The strip covers the legend's text under it.
            crate::text::draw_held();
            crate::sheet::rectangle(
                x,
                y0,
                size.width + 20.0,
                h,
                Color::from_rgba(0x12, 0x13, 0x17, 0xff),
            );
            crate::text::ui_text(message, x + 10.0, y0 + h * 0.5 + font * 0.35, font, color);
        }
    }

    /// The latest errors at the top of the bottom dock (six at most, cut to its width), kept
    /// as rows for clicks.
    fn draw_errors(&mut self, errors: &[String]) {
        self.error_rows.clear();
        let layout = current();
        let Some(dock) = layout.content(super::layout::Side::Bottom) else {
            return;
        };
        let (row, font) = (ERROR_ROW * layout.ui, 16.0 * layout.ui);
        let shown = errors.len().min(layout.errors);
        let mut y = dock.y + 2.0;
        for line in errors.iter().take(shown) {
            if y + row > dock.y + dock.h {
                break;
            }
            let max_chars =
                ((dock.w - 40.0) / crate::text::measure("M", font).width.max(1.0)) as usize;
            let short: String = if line.chars().count() > max_chars {
                line.chars()
                    .take(max_chars.saturating_sub(3))
                    .chain("...".chars())
                    .collect()
            } else {
                line.clone()
            };
            let size = crate::text::measure(&short, font);
            let rect = Rect::new(dock.x + 6.0, y, size.width + 10.0, row - 2.0);
            crate::sheet::rectangle(
                rect.x,
                rect.y,
                rect.w,
                rect.h,
                Color::from_rgba(0x2a, 0x05, 0x05, 0xe0),
            );
            crate::text::ui_text(
                &short,
                dock.x + 11.0,
                y + row * 0.5 + font * 0.35,
                font,
                Color::from_rgba(0xff, 0x6b, 0x6b, 0xff),
            );
            self.error_rows.push((rect, line.clone()));
            y += row;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_reload_kept_back_reads_as_a_failure_and_a_good_one_as_a_note() {
        let failed = Reload::ScriptFailed("guard.lua:4: unexpected symbol near 'end'".into());
        let scene_failed = Reload::SceneFailed("vault.yaml:3:1: error: bad key".into());
        assert_eq!(Tone::of(&failed), Tone::Failure);
        assert_eq!(Tone::of(&scene_failed), Tone::Failure);
        assert_eq!(
            Tone::of(&Reload::ScriptOk(PathBuf::from("guard.lua"))),
            Tone::Note
        );
        assert_eq!(
            Tone::of(&Reload::Watch("scripts/ is back".into())),
            Tone::Note
        );
        assert_ne!(Tone::Failure.color(), Tone::Note.color());
    }
}
