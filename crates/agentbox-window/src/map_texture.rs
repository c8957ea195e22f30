//! The map as one texture, a pixel per tile, rebuilt only when the map changes: one draw call
//! whatever the map's size. A small map (at most [`MAX_RUNS`] runs of like tiles along its
//! rows) is drawn instead as one flat, opaque rectangle a run, in the same draw call: the same
//! pixels, but under software OpenGL a textured quad costs a texture read a pixel, and on a
//! small map its tiles are large, so the map was most of the frame (`opaque.rs`).
//!
//! The runs' rectangles and the grid's lines are kept as the triangles macroquad would queue
//! for them, rebuilt only when the map or the view changes: a still view hands them to
//! macroquad's batch as a few copies instead of a call a rectangle and a line.

use super::camera::Camera;
use super::palette::rgb;
use agentbox_core::world::World;
use macroquad::models::{draw_mesh, Mesh, Vertex};
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
    /// The runs' rectangles and the grid's lines as triangles, for the view they were made in.
    layer: Layer,
}

/// What the map's version and size and the camera's corner and tile size (as bits) were when
/// [`Layer`] was made.
type LayerKey = (u64, i32, i32, u32, u32, u32);

/// The runs' rectangles (untextured, as `draw_rectangle` queues them) and the grid's lines (on
/// the sheet, as `sheet::line` queues them), each cut into meshes macroquad takes whole.
#[derive(Default)]
struct Layer {
    made_for: Option<LayerKey>,
    runs: Vec<Mesh>,
    grid: Vec<Mesh>,
}

/// Shapes a mesh holds at most: 4 vertices and 6 indices each, well inside what macroquad
/// takes in one piece (10,000 vertices, 5,000 indices), so a big map's grid is handed over in
/// pieces and never clamped.
const SHAPES_A_MESH: usize = 512;

/// `draw_rectangle`'s triangles over its 4 vertices.
const RECTANGLE_INDICES: [u16; 6] = [0, 1, 2, 0, 2, 3];

/// Adds a quad's 4 vertices and its 2 triangles (`indices`, over those 4) to the last mesh of
/// `meshes`, starting a new one when that one is full.
fn push_quad(
    meshes: &mut Vec<Mesh>,
    quad: [Vertex; 4],
    indices: [u16; 6],
    texture: Option<Texture2D>,
) {
    if meshes
        .last()
        .is_none_or(|m| m.vertices.len() >= 4 * SHAPES_A_MESH)
    {
        meshes.push(Mesh {
            vertices: Vec::with_capacity(4 * SHAPES_A_MESH),
            indices: Vec::with_capacity(6 * SHAPES_A_MESH),
            texture,
        });
    }
    if let Some(mesh) = meshes.last_mut() {
        let first = mesh.vertices.len() as u16;
        mesh.vertices.extend(quad);
        mesh.indices.extend(indices.map(|k| k + first));
    }
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
        let view = (
            key.0,
            key.1,
            key.2,
            corner.x.to_bits(),
            corner.y.to_bits(),
            camera.tile.to_bits(),
        );
        if self.layer.made_for != Some(view) {
            self.layer = Layer::new(&self.runs, grid.width(), grid.height(), corner, camera.tile);
            self.layer.made_for = Some(view);
        }
        // Every tile's pixel is opaque: nothing under the map needs reading back.
        if !self.runs.is_empty() {
            crate::opaque::flat(|| self.layer.runs.iter().for_each(draw_mesh));
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
        self.layer.grid.iter().for_each(crate::sheet::mesh);
    }
}

impl Layer {
    /// The triangles of `runs` and of the grid over a `width` x `height` map whose top left
    /// corner is at `corner` on the screen, `tile` pixels a tile (no grid under 12).
    fn new(runs: &[Run], width: i32, height: i32, corner: Vec2, tile: f32) -> Layer {
        let mut layer = Layer::default();
        for run in runs {
            // `draw_rectangle`'s vertices.
            let (x, y) = (
                corner.x + run.x0 as f32 * tile,
                corner.y + run.y as f32 * tile,
            );
            let (w, h, c) = ((run.x1 - run.x0) as f32 * tile, tile, run.colour);
            let quad = [
                Vertex::new(x, y, 0., 0.0, 0.0, c),
                Vertex::new(x + w, y, 0., 1.0, 0.0, c),
                Vertex::new(x + w, y + h, 0., 1.0, 1.0, c),
                Vertex::new(x, y + h, 0., 0.0, 1.0, c),
            ];
            push_quad(&mut layer.runs, quad, RECTANGLE_INDICES, None);
        }
        if tile >= 12.0 {
            let c = Color::from_rgba(0, 0, 0, 26);
            let (w, h) = (width as f32 * tile, height as f32 * tile);
            let texture = crate::sheet::texture();
            let mut line = |x1: f32, y1: f32, x2: f32, y2: f32| {
                if let Some(quad) = crate::sheet::line_quad(x1, y1, x2, y2, 1.0, c) {
                    push_quad(
                        &mut layer.grid,
                        quad,
                        crate::sheet::LINE_INDICES,
                        texture.clone(),
                    );
                }
            };
            for x in 0..=width {
                let sx = corner.x + x as f32 * tile;
                line(sx, corner.y, sx, corner.y + h);
            }
            for y in 0..=height {
                let sy = corner.y + y as f32 * tile;
                line(corner.x, sy, corner.x + w, sy);
            }
        }
        layer
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
