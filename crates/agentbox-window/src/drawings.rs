//! What scripts drew (`draw.*`) and the sight queries they made (`nav.los`, `nav.sees`), as
//! the window recorded them tick by tick from the live run, under a bound, so scrubbing to a
//! past tick shows that tick's shapes (V) and queries (the sight overlay, 2). It also paints
//! them. It reads what the session collected; it changes nothing.

use super::camera::Camera;
use super::overlays::shade_tile;
use agentbox_session::session::{DrawColor, DrawFrame, DrawShape, SightQuery};
use macroquad::prelude::*;
use std::collections::BTreeMap;

/// The most ticks whose drawings are kept (the oldest go first): a minute at 30 ticks a second.
pub const KEEP_TICKS: usize = 1800;
/// The most shapes and queries kept over all ticks (the oldest ticks go first).
pub const KEEP_SHAPES: usize = 200_000;

/// Each live tick's shapes and queries, by tick.
#[derive(Default)]
pub struct Drawn {
    ticks: BTreeMap<u64, DrawFrame>,
    total: usize,
}

impl Drawn {
    /// Keeps what tick `tick` drew (replacing what an abandoned branch drew at that tick).
    pub fn keep(&mut self, tick: u64, frame: DrawFrame) {
        if let Some(old) = self.ticks.remove(&tick) {
            self.total -= old.shapes.len() + old.queries.len();
        }
        if frame.shapes.is_empty() && frame.queries.is_empty() {
            return;
        }
        self.total += frame.shapes.len() + frame.queries.len();
        self.ticks.insert(tick, frame);
        while self.ticks.len() > KEEP_TICKS || self.total > KEEP_SHAPES {
            let Some((_, old)) = self.ticks.pop_first() else {
                break;
            };
            self.total -= old.shapes.len() + old.queries.len();
        }
    }

    /// Drops what was drawn after tick `to` (a branch).
    pub fn cut(&mut self, to: u64) {
        let dropped = self.ticks.split_off(&(to + 1));
        self.total -= dropped
            .values()
            .map(|f| f.shapes.len() + f.queries.len())
            .sum::<usize>();
    }

    /// What tick `tick` drew, if it was kept.
    pub fn at(&self, tick: u64) -> Option<&DrawFrame> {
        self.ticks.get(&tick)
    }
}

pub fn color(c: DrawColor, alpha: u8) -> Color {
    let (r, g, b) = match c {
        DrawColor::Yellow => (0xff, 0xd8, 0x40),
        DrawColor::Red => (0xff, 0x50, 0x50),
        DrawColor::Green => (0x50, 0xe0, 0x70),
        DrawColor::Blue => (0x50, 0x90, 0xff),
        DrawColor::Cyan => (0x40, 0xe0, 0xe0),
        DrawColor::Magenta => (0xe0, 0x60, 0xe0),
        DrawColor::Orange => (0xff, 0x98, 0x30),
        DrawColor::White => (0xf0, 0xf0, 0xf0),
        DrawColor::Gray => (0x90, 0x90, 0x90),
    };
    Color::from_rgba(r, g, b, alpha)
}

/// Paints the scripts' shapes of one tick (the V overlay).
pub fn draw_shapes(frame: &DrawFrame, camera: &Camera) {
    let width = (camera.tile * 0.06).clamp(1.0, 3.0);
    for drawn in &frame.shapes {
        let c = color(drawn.color, 0xe0);
        match &drawn.shape {
            DrawShape::Line { a, b } => {
                let (p, q) = (camera.to_screen(*a), camera.to_screen(*b));
                draw_line(p.x, p.y, q.x, q.y, width, c);
            }
            DrawShape::Circle { at, radius } => {
                let p = camera.to_screen(*at);
                draw_circle_lines(p.x, p.y, (*radius as f32 * camera.tile).max(1.0), width, c);
            }
            DrawShape::Text { at, text } => {
                let p = camera.to_screen(*at);
                let size = (camera.tile * 0.5).clamp(12.0, 20.0);
                super::text::ui_text(text, p.x, p.y, size, c);
            }
            DrawShape::Cone { at, view } => {
                cone(camera, *at, view, color(drawn.color, 0x40), c);
            }
            DrawShape::Tile { tile } => {
                shade_tile(camera, *tile, color(drawn.color, 0x60));
                let (corner, side) = camera.tile_rect(*tile);
                draw_rectangle_lines(corner.x, corner.y, side, side, width, c);
            }
        }
    }
}

/// A view cone: filled translucent, outlined; all round is a circle.
pub fn cone(
    camera: &Camera,
    at: ::glam::DVec2,
    view: &agentbox_core::nav::sees::View,
    fill: Color,
    edge: Color,
) {
    let p = camera.to_screen(at);
    let r = (view.range.unwrap_or(1e3).min(1e3) as f32) * camera.tile;
    if view.fov >= 360.0 {
        draw_circle(p.x, p.y, r, fill);
        draw_circle_lines(p.x, p.y, r, 1.5, edge);
        return;
    }
    let half = (view.fov * 0.5).to_radians();
    let steps = ((view.fov / 6.0).ceil() as usize).clamp(2, 60);
    let point = |a: f64| vec2(p.x + r * a.cos() as f32, p.y + r * a.sin() as f32);
    let mut prev = point(view.facing - half);
    draw_line(p.x, p.y, prev.x, prev.y, 1.5, edge);
    for i in 1..=steps {
        let a = view.facing - half + 2.0 * half * i as f64 / steps as f64;
        let next = point(a);
        draw_triangle(p, prev, next, fill);
        draw_line(prev.x, prev.y, next.x, next.y, 1.5, edge);
        prev = next;
    }
    draw_line(p.x, p.y, prev.x, prev.y, 1.5, edge);
}

/// Paints the sight queries of one tick (the sight overlay): each `nav.sees` call's cone
/// (once per agent and cone) and every query's line, green when it saw, red when not.
pub fn draw_queries(queries: &[SightQuery], camera: &Camera) {
    let mut coned: Vec<(usize, [u64; 4])> = Vec::new();
    for q in queries {
        if let Some(view) = &q.view {
            let key = [
                q.from.x.to_bits(),
                q.from.y.to_bits(),
                view.facing.to_bits(),
                view.fov.to_bits(),
            ];
            if !coned.contains(&(q.agent, key)) {
                coned.push((q.agent, key));
                cone(
                    camera,
                    q.from,
                    view,
                    Color::from_rgba(0xff, 0xff, 0xa0, 0x28),
                    Color::from_rgba(0xff, 0xff, 0xa0, 0xa0),
                );
            }
        }
        let c = if q.seen {
            Color::from_rgba(0x30, 0xe0, 0x60, 0xe0)
        } else {
            Color::from_rgba(0xff, 0x50, 0x50, 0xe0)
        };
        let (p, t) = (camera.to_screen(q.from), camera.to_screen(q.to));
        draw_line(p.x, p.y, t.x, t.y, 1.5, c);
        draw_circle(t.x, t.y, 3.0, c);
    }
}
