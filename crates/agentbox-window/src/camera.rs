//! The camera: which part of the map the window shows and how big a tile is, in the map's
//! area (what the docks leave, `layout.rs`). Pan, zoom at the cursor, fit to the area (kept
//! fitted through resizes and docks opening until the user pans or zooms), or follow an
//! agent (kept centred on it; zoom keeps following, a pan or a fit stops).

use agentbox_core::world::World;
use macroquad::prelude::*;

pub struct Camera {
    /// The world position at the centre of the map area.
    pub centre: ::glam::DVec2,
    /// Pixels per tile.
    pub tile: f32,
    /// Follow the window's size until the user moves the view.
    pub fitted: bool,
    /// The agent kept at the centre (Shift+F), while it exists.
    pub follow: Option<String>,
    /// The map's area on screen.
    area: Rect,
}

impl Camera {
    pub fn new() -> Self {
        Camera {
            centre: ::glam::DVec2::ZERO,
            tile: 24.0,
            fitted: true,
            follow: None,
            area: Rect::new(0.0, 30.0, 1024.0, 700.0),
        }
    }

    /// Updates to the map's area on screen; re-fits while fitted, re-centres while following
    /// (and stops following an agent that is gone).
    pub fn update(&mut self, world: &World, area: Rect) {
        self.area = area;
        if let Some(id) = &self.follow {
            match world.agent(id) {
                Some(agent) => {
                    let extra = (agent.size.max(1) - 1) as f64 / 2.0;
                    self.centre = agent.pos + ::glam::DVec2::splat(extra);
                    self.fitted = false;
                }
                None => self.follow = None,
            }
        }
        if self.fitted {
            self.fit(world);
        }
    }

    /// The map's area on screen.
    pub fn area(&self) -> Rect {
        self.area
    }

    /// Shows the whole map, as large as it fits under the status bar.
    pub fn fit(&mut self, world: &World) {
        let (w, h) = (
            world.grid().width().max(1) as f32,
            world.grid().height().max(1) as f32,
        );
        let room = vec2(self.area.w - 16.0, self.area.h - 16.0);
        self.tile = (room.x / w).min(room.y / h).max(0.5);
        // Map corners are at -0.5 and size - 0.5 in world units.
        self.centre = ::glam::DVec2::new(w as f64 / 2.0 - 0.5, h as f64 / 2.0 - 0.5);
        self.fitted = true;
        self.follow = None;
    }

    fn area_centre(&self) -> Vec2 {
        self.area.center()
    }

    /// The screen point of a world position.
    pub fn to_screen(&self, pos: ::glam::DVec2) -> Vec2 {
        let d = pos - self.centre;
        self.area_centre() + vec2(d.x as f32, d.y as f32) * self.tile
    }

    /// The world position under a screen point.
    pub fn to_world(&self, point: Vec2) -> ::glam::DVec2 {
        let d = (point - self.area_centre()) / self.tile;
        self.centre + ::glam::DVec2::new(d.x as f64, d.y as f64)
    }

    /// The tile under a screen point.
    pub fn tile_at(&self, point: Vec2) -> ::glam::IVec2 {
        agentbox_core::world::tile_of(self.to_world(point))
    }

    /// The screen rectangle of a tile: top-left corner and side.
    pub fn tile_rect(&self, tile: ::glam::IVec2) -> (Vec2, f32) {
        let corner = self.to_screen(::glam::DVec2::new(tile.x as f64 - 0.5, tile.y as f64 - 0.5));
        (corner, self.tile)
    }

    /// Zooms by `factor` keeping the world point under `at` in place.
    pub fn zoom_at(&mut self, at: Vec2, factor: f32) {
        let before = self.to_world(at);
        self.tile = (self.tile * factor).clamp(0.5, 400.0);
        let after = self.to_world(at);
        self.centre += before - after;
        self.fitted = false;
    }

    /// Moves the view by a screen displacement.
    pub fn pan(&mut self, pixels: Vec2) {
        let d = pixels / self.tile;
        self.centre -= ::glam::DVec2::new(d.x as f64, d.y as f64);
        self.fitted = false;
        if d != Vec2::ZERO {
            self.follow = None;
        }
    }
}
