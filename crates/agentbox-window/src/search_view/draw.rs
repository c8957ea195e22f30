//! The search mode's panes: each pane's map, its search (sets, parent links, the node just
//! expanded, G/H/F when zoomed in, the path), start and goal, clipped to the pane, and its
//! caption. It only draws.

use super::{
    area, number, Pane, SearchMode, BACKGROUND, CAPTION, CLOSED, EXPANDED, GOAL, LINK, OPEN,
    PASSED, PATH, START,
};
use crate::camera::Camera;
use crate::map_texture::MapTexture;
use crate::text::ui_text;
use agentbox_core::nav::replay::{Cell, CellState, Replay};
use agentbox_core::world::Tile;
use macroquad::prelude::*;

impl SearchMode {
    /// Draws the panes over the map area: each pane's map, search, start and goal, clipped to
    /// the pane, and its caption.
    pub fn draw(&self, map: &mut MapTexture, camera: &Camera) {
        let Some(world) = &self.world else {
            return;
        };
        let a = area();
        draw_rectangle(a.x, a.y, screen_width() - a.x, a.h, BACKGROUND);
        let dpi = screen_dpi_scale();
        let panes = self.panes_on_screen();
        let first = panes[0];
        for (i, &r) in panes.iter().enumerate() {
            // Pane i is drawn with the window's camera as pane 0, into pane i's viewport
            // (physical pixels, from the bottom), which also clips it.
            let viewport = (
                (r.x * dpi) as i32,
                ((screen_height() - r.y - r.h) * dpi) as i32,
                (r.w * dpi) as i32,
                (r.h * dpi) as i32,
            );
            let shown = Rect::new(first.x, first.y, r.w, r.h);
            let mut view = Camera2D::from_display_rect(shown);
            // `from_display_rect` turns y up for render targets; on the screen y stays down.
            view.zoom.y = view.zoom.y.abs();
            set_camera(&Camera2D {
                viewport: Some(viewport),
                ..view
            });
            map.draw(world, camera);
            if let Some(pane) = self.panes.get(i) {
                draw_search(pane, camera, shown);
            }
            for (tile, colour) in [(self.query.start, START), (self.query.goal, GOAL)] {
                if let Some(t) = tile {
                    // At least 7 pixels, so they show on a zoomed-out large map; a frame
                    // once G/H/F are written, so they stay readable.
                    let (c, s) = camera.tile_rect(t);
                    if s >= NUMBERS_FROM {
                        draw_rectangle_lines(c.x + 2.0, c.y + 2.0, s - 4.0, s - 4.0, 6.0, colour);
                    } else {
                        let m = (s * 0.8).max(7.0);
                        draw_rectangle(c.x + (s - m) / 2.0, c.y + (s - m) / 2.0, m, m, colour);
                    }
                }
            }
        }
        set_default_camera();
        for (i, &r) in panes.iter().enumerate() {
            let text = match self.panes.get(i) {
                Some(p) => self.caption(p),
                None => self.searchers()[i].name().to_string(),
            };
            // At the bottom: the status messages of the window sit under the bar.
            let y = r.y + r.h - CAPTION;
            draw_rectangle(r.x, y, r.w, CAPTION, Color::new(0.07, 0.075, 0.09, 0.9));
            ui_text(&text, r.x + 8.0, y + 17.0, 16.0, WHITE);
            if i > 0 {
                let (x1, y1) = if self.layout.stacked {
                    (r.x + r.w, r.y)
                } else {
                    (r.x, r.y + r.h)
                };
                draw_line(r.x, r.y, x1, y1, 2.0, Color::new(0.5, 0.5, 0.55, 1.0));
            }
        }
    }
}

/// G/H/F need this many pixels a tile to be written in the cells.
const NUMBERS_FROM: f32 = 44.0;

/// One pane's search: sets, parent links, the node just expanded, numbers, the path. `view` is
/// the part of the screen shown (pane 0's coordinates).
fn draw_search(pane: &Pane, camera: &Camera, view: Rect) {
    let r = &pane.replay;
    let s = camera.tile;
    let visible = |c: Vec2| {
        c.x + s >= view.x && c.x <= view.x + view.w && c.y + s >= view.y && c.y <= view.y + view.h
    };
    let mut sets = pane.sets.borrow_mut();
    if sets.as_ref().is_none_or(|(step, _)| *step != r.step()) {
        *sets = Some((r.step(), sets_texture(r)));
    }
    if let Some((_, texture)) = sets.as_ref() {
        let corner = camera.to_screen(::glam::DVec2::new(-0.5, -0.5));
        draw_texture_ex(
            texture,
            corner.x,
            corner.y,
            WHITE,
            DrawTextureParams {
                dest_size: Some(vec2(s * texture.width(), s * texture.height())),
                ..Default::default()
            },
        );
    }
    if let Some(t) = r.just_expanded() {
        let (c, side) = camera.tile_rect(t);
        let m = side.max(5.0);
        draw_rectangle(
            c.x + (side - m) / 2.0,
            c.y + (side - m) / 2.0,
            m,
            m,
            EXPANDED,
        );
    }
    if s >= 6.0 {
        for (t, c) in r.reached() {
            let (a, b) = (centre(camera, t), centre(camera, c.parent));
            let outside = a.x.max(b.x) < view.x
                || a.x.min(b.x) > view.x + view.w
                || a.y.max(b.y) < view.y
                || a.y.min(b.y) > view.y + view.h;
            if c.parent != t && !outside {
                draw_link(camera, t, c.parent);
            }
        }
    }
    if s >= NUMBERS_FROM {
        for (t, c) in r.reached() {
            let (corner, side) = camera.tile_rect(t);
            if visible(corner) {
                draw_numbers(corner, side, c);
            }
        }
    }
    if let Some((path, _)) = r.found() {
        let width = (s * 0.18).clamp(2.0, 8.0);
        for w in path.windows(2) {
            let (a, b) = (centre(camera, w[0]), centre(camera, w[1]));
            draw_line(a.x, a.y, b.x, b.y, width, PATH);
        }
    }
}

/// How opaque the sets are over the terrain (the terrain shows through).
const SETS_ALPHA: u8 = 0x8c;

/// The open, passed and closed cells as an image, a pixel per tile (unseen ones clear),
/// translucent so the terrain under them stays readable.
fn sets_texture(r: &Replay) -> Texture2D {
    let (w, h) = r.size();
    let (w, h) = (w.clamp(1, 65535) as u16, h.clamp(1, 65535) as u16);
    let mut image = Image::gen_image_color(w, h, Color::new(0.0, 0.0, 0.0, 0.0));
    for (t, c) in r.reached() {
        let [red, green, blue] = match c.state {
            CellState::Open => OPEN,
            CellState::Passed => PASSED,
            _ => CLOSED,
        };
        if t.x < w as i32 && t.y < h as i32 {
            image.set_pixel(
                t.x as u32,
                t.y as u32,
                Color::from_rgba(red, green, blue, SETS_ALPHA),
            );
        }
    }
    let texture = Texture2D::from_image(&image);
    texture.set_filter(FilterMode::Nearest);
    texture
}

fn centre(camera: &Camera, t: Tile) -> Vec2 {
    camera.to_screen(agentbox_core::world::centre_of(t))
}

/// A line from a node towards its parent, with an arrowhead at the parent's end.
fn draw_link(camera: &Camera, from: Tile, to: Tile) {
    let (a, b) = (centre(camera, from), centre(camera, to));
    let d = b - a;
    let len = d.length();
    if len < 1.0 {
        return;
    }
    let u = d / len;
    let s = camera.tile;
    let tip = b - u * (s * 0.3);
    let width = (s * 0.05).clamp(1.0, 2.5);
    draw_line(a.x, a.y, tip.x, tip.y, width, LINK);
    let head = (s * 0.18).max(3.0);
    let n = vec2(-u.y, u.x);
    draw_triangle(
        tip,
        tip - u * head + n * head * 0.5,
        tip - u * head - n * head * 0.5,
        LINK,
    );
}

/// F top left, G bottom left, H bottom right, as PathFinding.js writes them.
fn draw_numbers(corner: Vec2, side: f32, c: &Cell) {
    let size = (side * 0.26).min(18.0);
    let ink = Color::new(0.05, 0.05, 0.08, 1.0);
    ui_text(
        &number(c.f(), 1),
        corner.x + 3.0,
        corner.y + size,
        size,
        ink,
    );
    ui_text(
        &number(c.g, 1),
        corner.x + 3.0,
        corner.y + side - 4.0,
        size,
        ink,
    );
    let h = number(c.h, 1);
    let w = crate::text::measure(&h, size).width;
    ui_text(
        &h,
        corner.x + side - w - 3.0,
        corner.y + side - 4.0,
        size,
        ink,
    );
}
