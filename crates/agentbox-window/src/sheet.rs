//! One texture for the marks drawn over the map: the agents' disc and a white block, so the
//! grid lines, the discs, the heading lines and the tags' boxes share one texture and
//! macroquad batches them into one draw call. It draws what macroquad's own `draw_line` and
//! `draw_rectangle` would, with the same vertices, and the same pixels: a shape tints the
//! white block's texel centre (exactly white), as macroquad's shapes tint its white texture.
//!
//! Why: macroquad starts a new draw call whenever the texture changes. Macroquad's shapes
//! use its white texture, so the grid, the discs (their own texture) and the heading lines
//! and tag boxes were three calls; under software OpenGL each call costs about 0.1 M
//! instructions on the program's thread. It does not touch the map's tiles, text or panels.

use macroquad::models::{draw_mesh, Mesh, Vertex};
use macroquad::prelude::*;
use std::cell::RefCell;

/// The disc's side in texels; it sits at the sheet's left, the white block at its right.
const DISC: u16 = 64;
/// The sheet: twice the disc wide (a power of two, so the disc's texture coordinates are the
/// old ones halved, exactly), the disc high.
const WIDTH: u16 = 2 * DISC;
/// The texture coordinate of the white block's centre (texels 96..128 across, all rows).
const WHITE_UV: (f32, f32) = (0.875, 0.5);

thread_local! {
    /// The sheet, in a mesh whose vertices are a scratch buffer for one shape; made on first
    /// use, on macroquad's thread.
    static SHEET: RefCell<Option<Mesh>> = const { RefCell::new(None) };
}

/// The disc's pixel at `(x, y)`: white, solid inside, a dark rim, a smooth edge.
fn disc_pixel(x: u16, y: u16) -> Color {
    let c = DISC as f32 / 2.0;
    let d = ((x as f32 + 0.5 - c).powi(2) + (y as f32 + 0.5 - c).powi(2)).sqrt();
    let alpha = (c - d).clamp(0.0, 1.0);
    let rim = if d > c - 4.0 { 0.55 } else { 1.0 };
    Color::new(rim, rim, rim, alpha)
}

/// The sheet's image: the disc in texels 0..64 across; column 64 repeats the disc's last
/// column (so sampling the disc's right edge reads what clamping to the edge read when the
/// disc was a texture of its own); then transparent up to 96; then white.
fn image() -> Image {
    let mut image = Image::gen_image_color(WIDTH, DISC, Color::new(1.0, 1.0, 1.0, 0.0));
    for y in 0..DISC {
        for x in 0..DISC {
            image.set_pixel(x as u32, y as u32, disc_pixel(x, y));
        }
        image.set_pixel(DISC as u32, y as u32, disc_pixel(DISC - 1, y));
        for x in (WIDTH - DISC / 2)..WIDTH {
            image.set_pixel(x as u32, y as u32, WHITE);
        }
    }
    image
}

fn with_sheet<R>(f: impl FnOnce(&mut Mesh) -> R) -> R {
    SHEET.with(|s| {
        let mut sheet = s.borrow_mut();
        let mesh = sheet.get_or_insert_with(|| {
            let texture = Texture2D::from_image(&image());
            texture.set_filter(FilterMode::Linear);
            Mesh {
                vertices: Vec::new(),
                indices: Vec::new(),
                texture: Some(texture),
            }
        });
        f(mesh)
    })
}

/// Hands macroquad a triangle list on the sheet (`draw_mesh` queues it as `draw_line` does).
fn geometry(vertices: &[Vertex], indices: &[u16]) {
    with_sheet(|mesh| {
        mesh.vertices.clear();
        mesh.vertices.extend_from_slice(vertices);
        mesh.indices.clear();
        mesh.indices.extend_from_slice(indices);
        draw_mesh(mesh);
    });
}

fn vertex(x: f32, y: f32, colour: Color) -> Vertex {
    Vertex::new(x, y, 0.0, WHITE_UV.0, WHITE_UV.1, colour)
}

/// The agent's disc, tinted `colour`, in the square at `(x, y)` of side `side`.
pub fn disc(x: f32, y: f32, side: f32, colour: Color) {
    with_sheet(|mesh| {
        let Some(texture) = &mesh.texture else {
            return;
        };
        draw_texture_ex(
            texture,
            x,
            y,
            colour,
            DrawTextureParams {
                dest_size: Some(vec2(side, side)),
                source: Some(Rect::new(0.0, 0.0, DISC as f32, DISC as f32)),
                ..Default::default()
            },
        )
    });
}

/// What macroquad's `draw_line` draws.
pub fn line(x1: f32, y1: f32, x2: f32, y2: f32, thickness: f32, colour: Color) {
    let (nx, ny) = (-(y2 - y1), x2 - x1);
    let tlen = (nx * nx + ny * ny).sqrt() / (thickness * 0.5);
    if tlen < f32::EPSILON {
        return;
    }
    let (tx, ty) = (nx / tlen, ny / tlen);
    geometry(
        &[
            vertex(x1 + tx, y1 + ty, colour),
            vertex(x1 - tx, y1 - ty, colour),
            vertex(x2 + tx, y2 + ty, colour),
            vertex(x2 - tx, y2 - ty, colour),
        ],
        &[0, 1, 2, 2, 1, 3],
    );
}

/// What macroquad's `draw_rectangle` draws.
pub fn rectangle(x: f32, y: f32, w: f32, h: f32, colour: Color) {
    geometry(
        &[
            vertex(x, y, colour),
            vertex(x + w, y, colour),
            vertex(x + w, y + h, colour),
            vertex(x, y + h, colour),
        ],
        &[0, 1, 2, 0, 2, 3],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disc_keeps_its_edge_and_the_white_block_is_opaque_white() {
        let image = image();
        for y in 0..DISC {
            // The column after the disc repeats its edge (as clamping did).
            assert_eq!(
                image.get_pixel(DISC as u32, y as u32),
                image.get_pixel(DISC as u32 - 1, y as u32)
            );
            assert_eq!(image.get_pixel(WIDTH as u32 - 1, y as u32), WHITE);
        }
        // Bilinear sampling at the white block's centre reads only white texels.
        let (u, v) = (WHITE_UV.0 * WIDTH as f32, WHITE_UV.1 * DISC as f32);
        for (x, y) in [(u - 1.0, v - 1.0), (u, v)] {
            assert_eq!(image.get_pixel(x as u32, y as u32), WHITE);
        }
        assert!(u - 1.0 > (WIDTH - DISC / 2) as f32 && v >= 1.0);
        // The disc is solid at its centre and clear at its corner.
        assert_eq!(image.get_pixel(32, 32).a, 1.0);
        assert_eq!(image.get_pixel(0, 0).a, 0.0);
    }
}
