//! The HUD: the status bar (scene, tick, simulated time, speed, FPS, agents, reload status,
//! modes) and the error list (the latest error per script and per agent; click one to read it
//! whole).

use super::camera::BAR;
use super::text::{panel, wrap};
use agentbox_core::world::World;
use agentbox_session::history::TickView;
use macroquad::prelude::*;

#[derive(Default)]
pub struct Hud {
    status: Option<(String, f64)>,
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
        self.status = Some((message, get_time()));
    }

    /// The error line under a click, if any.
    pub fn error_at(&self, point: Vec2) -> Option<String> {
        self.error_rows
            .iter()
            .find(|(r, _)| r.contains(point))
            .map(|(_, e)| e.clone())
    }

    /// Every error worth showing now: the scene's and failing scripts', then agents' own.
    fn errors(session: &dyn TickView) -> Vec<String> {
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
            let lines = wrap(full, width - 16.0, 16);
            panel(
                40.0,
                screen_height() / 3.0,
                width,
                "error (click anywhere to close)",
                &lines,
                16,
            );
        }
    }

    /// The bar along the top; returns its text.
    fn draw_bar(world: &World, bar: &BarState) -> String {
        draw_rectangle(
            0.0,
            0.0,
            screen_width(),
            BAR,
            Color::from_rgba(0x12, 0x13, 0x17, 0xff),
        );
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
        crate::text::ui_text(
            &text,
            10.0,
            20.0,
            20.0,
            Color::from_rgba(0xe8, 0xe8, 0xe8, 0xff),
        );
        text
    }

    /// The status message, for four seconds: on the bar's right when it fits beside the bar's
    /// `text`, else on a strip below.
    fn draw_status(&self, text: &str) {
        let Some((message, since)) = &self.status else {
            return;
        };
        if get_time() - since >= 4.0 {
            return;
        }
        let used = crate::text::measure(text, 20.0).width + 30.0;
        let size = crate::text::measure(message, 18.0);
        let green = Color::from_rgba(0x9f, 0xd8, 0x9f, 0xff);
        if used + size.width + 10.0 <= screen_width() {
            crate::text::ui_text(
                message,
                screen_width() - size.width - 10.0,
                20.0,
                18.0,
                green,
            );
        } else {
            draw_rectangle(
                0.0,
                BAR,
                size.width + 20.0,
                24.0,
                Color::from_rgba(0x12, 0x13, 0x17, 0xf0),
            );
            crate::text::ui_text(message, 10.0, BAR + 17.0, 18.0, green);
        }
    }

    /// The latest errors above the timeline (six at most, cut to the window's width), kept as
    /// rows for clicks.
    fn draw_errors(&mut self, errors: &[String]) {
        self.error_rows.clear();
        let shown = errors.len().min(6);
        let mut y = screen_height() - super::timeline::HEIGHT - 8.0 - 22.0 * shown as f32;
        for line in errors.iter().take(shown) {
            let max_chars =
                ((screen_width() - 40.0) / crate::text::measure("M", 18.0).width.max(1.0)) as usize;
            let short: String = if line.chars().count() > max_chars {
                line.chars()
                    .take(max_chars.saturating_sub(3))
                    .chain("...".chars())
                    .collect()
            } else {
                line.clone()
            };
            let size = crate::text::measure(&short, 18.0);
            let rect = Rect::new(6.0, y, size.width + 10.0, 20.0);
            draw_rectangle(
                rect.x,
                rect.y,
                rect.w,
                rect.h,
                Color::from_rgba(0x2a, 0x05, 0x05, 0xe0),
            );
            crate::text::ui_text(
                &short,
                11.0,
                y + 15.0,
                18.0,
                Color::from_rgba(0xff, 0x6b, 0x6b, 0xff),
            );
            self.error_rows.push((rect, line.clone()));
            y += 22.0;
        }
    }
}
