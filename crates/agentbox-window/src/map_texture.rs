//! The map as one texture, a pixel per tile, rebuilt only when the map changes: one draw call
//! whatever the map's size. A small map (at most [`MAX_RUNS`] runs of like tiles along its
//! rows) is drawn instead as one flat, opaque rectangle a run, in the same draw call: the same
//! pixels, but under software OpenGL a textured quad costs a texture read a pixel, and on a
//! small map its tiles are large, so the map was most of the frame (`opaque.rs`).

use super::camera::Camera;
use super::palette::rgb;
use agentbox_core::world::World;
use macroquad::prelude::*;

/// Up to this many runs a map is drawn as flat rectangles (each a few hundred instructions a
/// frame on the program's thread), beyond it as the texture.
pub const MAX_RUNS: usize = 512;

/// A run of tiles of one colour along row `y`, from column `x0` up to (not with) `x1`.
struct Run {
    y: i32,
    x0: i32,
    x1: i32,
    colour: Color,
}

#[derive(Default)]
pub struct MapTexture {
    texture: Option<Texture2D>,
    /// The runs of a small map (empty for a larger one).
    runs: Vec<Run>,
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
            self.runs = runs(&image, MAX_RUNS);
            self.built_for = Some(key);
        }
        let corner = camera.to_screen(::glam::DVec2::new(-0.5, -0.5));
        let size = vec2(
            camera.tile * grid.width() as f32,
            camera.tile * grid.height() as f32,
        );
        // Every tile's pixel is opaque: nothing under the map needs reading back.
        if !self.runs.is_empty() {
            crate::opaque::flat(|| {
                for run in &self.runs {
                    draw_rectangle(
                        corner.x + run.x0 as f32 * camera.tile,
                        corner.y + run.y as f32 * camera.tile,
                        (run.x1 - run.x0) as f32 * camera.tile,
                        camera.tile,
                        run.colour,
                    );
                }
            });
        } else if let Some(texture) = &self.texture {
            crate::opaque::textured(|| {
                draw_texture_ex(
                    texture,
                    corner.x,
                    corner.y,
                    WHITE,
                    DrawTextureParams {
                        dest_size: Some(size),
                        ..Default::default()
                    },
                )
            });
        }
        if camera.tile >= 12.0 {
            let c = Color::from_rgba(0, 0, 0, 26);
            let (w, h) = (
                grid.width() as f32 * camera.tile,
                grid.height() as f32 * camera.tile,
            );
            for x in 0..=grid.width() {
                let sx = corner.x + x as f32 * camera.tile;
                crate::sheet::line(sx, corner.y, sx, corner.y + h, 1.0, c);
            }
            for y in 0..=grid.height() {
                let sy = corner.y + y as f32 * camera.tile;
                crate::sheet::line(corner.x, sy, corner.x + w, sy, 1.0, c);
            }
        }
    }
}

/// The runs of like pixels along `image`'s rows, or none when there are more than `most`.
fn runs(image: &Image, most: usize) -> Vec<Run> {
    let (w, h) = (image.width() as i32, image.height() as i32);
    let mut out = Vec::new();
    for y in 0..h {
        let mut x0 = 0;
        while x0 < w {
            let colour = image.get_pixel(x0 as u32, y as u32);
            let mut x1 = x0 + 1;
            while x1 < w && image.get_pixel(x1 as u32, y as u32) == colour {
                x1 += 1;
            }
            if out.len() == most {
                return Vec::new();
            }
            out.push(Run { y, x0, x1, colour });
            x0 = x1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_runs_of_like_tiles_and_a_busy_map_none() {
        let mut image = Image::gen_image_color(4, 2, WHITE);
        image.set_pixel(2, 0, BLACK);
        image.set_pixel(3, 0, BLACK);
        let found: Vec<(i32, i32, i32)> =
            runs(&image, 8).iter().map(|r| (r.y, r.x0, r.x1)).collect();
        assert_eq!(found, vec![(0, 0, 2), (0, 2, 4), (1, 0, 4)]);
        assert_eq!(runs(&image, 8)[1].colour, BLACK);
        assert!(runs(&image, 2).is_empty(), "three runs are more than two");
    }
}
