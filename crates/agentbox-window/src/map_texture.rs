//! The map as one texture, a pixel per tile, rebuilt only when the map changes: one draw call
//! whatever the map's size.

use super::camera::Camera;
use super::palette::rgb;
use agentbox_core::world::World;
use macroquad::prelude::*;

#[derive(Default)]
pub struct MapTexture {
    texture: Option<Texture2D>,
    /// The map version and size the texture shows.
    built_for: Option<(u64, i32, i32)>,
}

impl MapTexture {
    pub fn draw(&mut self, world: &World, camera: &Camera) {
        let grid = world.grid();
        let key = (world.map_version(), grid.width(), grid.height());
        if self.built_for != Some(key) || self.texture.is_none() {
            let (w, h) = (
                grid.width().clamp(1, 65535) as u16,
                grid.height().clamp(1, 65535) as u16,
            );
            let mut image = Image::gen_image_color(w, h, BLACK);
            for y in 0..grid.height() {
                for x in 0..grid.width() {
                    if let Some(t) = world.terrain_at(::glam::IVec2::new(x, y)) {
                        image.set_pixel(x as u32, y as u32, rgb(t.color));
                    }
                }
            }
            let texture = Texture2D::from_image(&image);
            texture.set_filter(FilterMode::Nearest);
            self.texture = Some(texture);
            self.built_for = Some(key);
        }
        let corner = camera.to_screen(::glam::DVec2::new(-0.5, -0.5));
        if let Some(texture) = &self.texture {
            draw_texture_ex(
                texture,
                corner.x,
                corner.y,
                WHITE,
                DrawTextureParams {
                    dest_size: Some(vec2(
                        camera.tile * grid.width() as f32,
                        camera.tile * grid.height() as f32,
                    )),
                    ..Default::default()
                },
            );
        }
        if camera.tile >= 12.0 {
            let c = Color::from_rgba(0, 0, 0, 26);
            let (w, h) = (
                grid.width() as f32 * camera.tile,
                grid.height() as f32 * camera.tile,
            );
            for x in 0..=grid.width() {
                let sx = corner.x + x as f32 * camera.tile;
                draw_line(sx, corner.y, sx, corner.y + h, 1.0, c);
            }
            for y in 0..=grid.height() {
                let sy = corner.y + y as f32 * camera.tile;
                draw_line(corner.x, sy, corner.x + w, sy, 1.0, c);
            }
        }
    }
}
