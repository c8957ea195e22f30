//! Drawing the agents and the HUD, and the layout that fits the map to the window.

use super::palette::kind_color;
use crate::session::Session;
use crate::world::World;
use macroquad::prelude::*;

/// Height of the status bar at the top, in pixels.
const BAR: f32 = 28.0;
/// Space kept around the map, in pixels.
const MARGIN: f32 = 8.0;

/// Where the map sits in the window: its top-left corner and the size of a tile in pixels.
pub struct Layout {
    pub origin: Vec2,
    pub tile: f32,
}

impl Layout {
    /// The largest tile size that fits the whole map under the status bar, centred.
    pub fn fit(world: &World, width: f32, height: f32) -> Self {
        let (w, h) = (
            world.grid().width().max(1) as f32,
            world.grid().height().max(1) as f32,
        );
        let room = vec2(
            width - 2.0 * MARGIN,
            height - BAR - 2.0 * MARGIN - errors_height(),
        );
        let tile = (room.x / w).min(room.y / h).max(1.0);
        let size = vec2(tile * w, tile * h);
        let origin = vec2(
            (width - size.x) / 2.0,
            BAR + MARGIN + (room.y - size.y).max(0.0) / 2.0,
        );
        Layout { origin, tile }
    }

    /// The screen point of a world position (tile units; integers are tile centres).
    pub fn to_screen(&self, pos: ::glam::DVec2) -> Vec2 {
        self.origin
            + vec2(
                (pos.x as f32 + 0.5) * self.tile,
                (pos.y as f32 + 0.5) * self.tile,
            )
    }

    /// Faint tile lines when tiles are big enough to read them.
    pub fn grid_lines(&self, world: &World) {
        if self.tile < 12.0 {
            return;
        }
        let c = Color::from_rgba(0, 0, 0, 28);
        let (w, h) = (world.grid().width(), world.grid().height());
        for x in 0..=w {
            let sx = self.origin.x + x as f32 * self.tile;
            draw_line(
                sx,
                self.origin.y,
                sx,
                self.origin.y + h as f32 * self.tile,
                1.0,
                c,
            );
        }
        for y in 0..=h {
            let sy = self.origin.y + y as f32 * self.tile;
            draw_line(
                self.origin.x,
                sy,
                self.origin.x + w as f32 * self.tile,
                sy,
                1.0,
                c,
            );
        }
    }
}

/// Pixels kept below the map for error lines.
fn errors_height() -> f32 {
    0.0
}

/// Each agent as a disc in its kind's colour with a line showing its heading, and its id
/// when there is room.
pub fn agents(world: &World, layout: &Layout) {
    for agent in &world.agents {
        let centre = layout.to_screen(agent.pos);
        let r = (agent.radius as f32 * layout.tile).max(2.0);
        let color = kind_color(&agent.kind);
        draw_circle(centre.x, centre.y, r, color);
        draw_circle_lines(centre.x, centre.y, r, 1.5, Color::from_rgba(0, 0, 0, 160));
        let dir = vec2(agent.heading.cos() as f32, agent.heading.sin() as f32);
        let tip = centre + dir * r * 1.6;
        draw_line(
            centre.x,
            centre.y,
            tip.x,
            tip.y,
            (r * 0.3).max(1.5),
            Color::from_rgba(0x10, 0x10, 0x10, 230),
        );
        if agent.error.is_some() {
            draw_circle_lines(centre.x, centre.y, r * 1.5, 2.0, RED);
        }
        if layout.tile >= 18.0 {
            let label = agent.id.as_str();
            let size = measure_text(label, None, 16, 1.0);
            draw_text(
                label,
                centre.x - size.width / 2.0,
                centre.y - r - 4.0,
                16.0,
                Color::from_rgba(0x10, 0x10, 0x10, 255),
            );
        }
    }
}

/// The status bar and the error panel.
#[derive(Default)]
pub struct Hud {
    status: Option<(String, f64)>,
}

impl Hud {
    /// Shows a message in the status bar for a few seconds.
    pub fn status(&mut self, message: String) {
        self.status = Some((message, get_time()));
    }

    pub fn draw(&self, session: &Session, paused: bool, fps: i32) {
        let world = session.world();
        draw_rectangle(
            0.0,
            0.0,
            screen_width(),
            BAR,
            Color::from_rgba(0x12, 0x13, 0x17, 0xff),
        );
        let text = format!(
            "{}   tick {}   t {:.1}s   {} fps   {} agents{}",
            world.name,
            world.tick,
            world.time(),
            fps,
            world.agents.len(),
            if paused { "   PAUSED (Space)" } else { "" }
        );
        draw_text(
            &text,
            10.0,
            19.0,
            20.0,
            Color::from_rgba(0xe8, 0xe8, 0xe8, 0xff),
        );
        if let Some((message, since)) = &self.status {
            if get_time() - since < 4.0 {
                let size = measure_text(message, None, 18, 1.0);
                draw_text(
                    message,
                    screen_width() - size.width - 10.0,
                    19.0,
                    18.0,
                    Color::from_rgba(0x9f, 0xd8, 0x9f, 0xff),
                );
            }
        }
        let mut lines = session.current_errors();
        for agent in &world.agents {
            if let Some(e) = &agent.error {
                let line = format!("{e} (agent {})", agent.id);
                if !lines.iter().any(|l| e.starts_with(l.as_str()) || l == e) {
                    lines.push(line);
                }
            }
        }
        let mut y = screen_height() - 10.0 - 20.0 * (lines.len().min(6) as f32 - 1.0);
        for line in lines.iter().take(6) {
            let size = measure_text(line, None, 18, 1.0);
            draw_rectangle(
                6.0,
                y - 15.0,
                size.width + 8.0,
                20.0,
                Color::from_rgba(0x20, 0x00, 0x00, 0xd0),
            );
            draw_text(
                line,
                10.0,
                y,
                18.0,
                Color::from_rgba(0xff, 0x6b, 0x6b, 0xff),
            );
            y += 20.0;
        }
    }
}
