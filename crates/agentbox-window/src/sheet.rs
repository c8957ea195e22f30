//! One texture for nearly everything drawn over the map and on the bars: the agents' disc, a
//! white block that shapes tint, and the glyphs of macroquad's built-in font. The grid lines,
//! the discs, the heading lines, the tags' boxes and text go out in one draw call, and the
//! bars' shapes and text in another. It draws what macroquad's own `draw_line`,
//! `draw_rectangle`, `draw_poly`, `draw_arc` ... and `draw_text_ex` would, with the same
//! vertices and the same pixels: a shape tints the white block's texel centre (exactly white),
//! as macroquad's shapes tint its white texture; a glyph is rasterised by the same `fontdue`
//! from the same font file and placed on the pixels macroquad's nearest-sampled font atlas
//! puts it on.
//!
//! Why: macroquad starts a new draw call whenever the texture changes (shapes use its white
//! texture, text its font atlas, the disc a texture of its own), and under software OpenGL
//! each call costs on the program's thread. It does not touch the map's tiles or the panels
//! drawn with egui.

use macroquad::models::{draw_mesh, Mesh, Vertex};
use macroquad::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;

/// The disc's side in texels; it sits at the sheet's top left.
const DISC: u16 = 64;
/// The sheet's side in texels (a power of two, so the disc's texture coordinates scale
/// exactly with it).
const SIDE: u16 = 512;
/// The white block: texels 96..128 across, 0..64 down; shapes use its centre.
const WHITE_UV: (f32, f32) = (112.0 / SIDE as f32, 32.0 / SIDE as f32);
/// Glyphs are packed in rows from here down, with this many clear texels around each.
const GLYPHS_TOP: u16 = DISC + 8;
const GAP: u16 = 2;
/// macroquad's built-in font (`assets/README.md`).
const FONT: &[u8] = include_bytes!("../assets/ProggyClean.ttf");

/// A glyph on the sheet, with the metrics macroquad keeps for it.
#[derive(Clone, Copy)]
struct Glyph {
    x: u16,
    y: u16,
    w: u16,
    h: u16,
    offset_x: i32,
    offset_y: i32,
    advance: f32,
}

/// One size's ASCII glyphs by character: `None` until looked up, then [`Sheet::glyph`]'s answer.
type AsciiGlyphs = Box<[Option<Option<Glyph>>; 128]>;

struct Sheet {
    /// The texture, and scratch vertices for one shape or one text.
    mesh: Mesh,
    /// The texture's pixels, kept to add glyphs.
    image: Image,
    /// `None` if the font would not load (then text is macroquad's).
    font: Option<fontdue::Font>,
    /// Each glyph by character and size; `None` where it did not fit on the sheet.
    glyphs: HashMap<(char, u16), Option<Glyph>>,
    /// The same for ASCII characters, by size, indexed by the character: the lookup every
    /// character of every text takes each frame, without hashing.
    ascii: Vec<(u16, AsciiGlyphs)>,
    /// A text's glyphs, kept between calls for its room.
    scratch: Vec<(char, Glyph)>,
    /// Where the next glyph goes: the row's left edge so far, its top, its height.
    cursor: (u16, u16, u16),
    /// Glyphs were added since the texture was last updated.
    dirty: bool,
}

thread_local! {
    /// The sheet, made on first use, on macroquad's thread.
    static SHEET: RefCell<Option<Sheet>> = const { RefCell::new(None) };
}

/// The disc's pixel at `(x, y)`: white, solid inside, a dark rim, a smooth edge.
fn disc_pixel(x: u16, y: u16) -> Color {
    let c = DISC as f32 / 2.0;
    let d = ((x as f32 + 0.5 - c).powi(2) + (y as f32 + 0.5 - c).powi(2)).sqrt();
    let alpha = (c - d).clamp(0.0, 1.0);
    let rim = if d > c - 4.0 { 0.55 } else { 1.0 };
    Color::new(rim, rim, rim, alpha)
}

/// The sheet's image before any glyph: the disc in texels 0..64 both ways; column and row 64
/// repeat the disc's last column and row (so sampling its right and bottom edges reads what
/// clamping to the edge read when the disc was a texture of its own); the white block; the
/// rest clear.
fn image() -> Image {
    let mut image = Image::gen_image_color(SIDE, SIDE, Color::new(0.0, 0.0, 0.0, 0.0));
    for y in 0..=DISC {
        for x in 0..=DISC {
            let pixel = disc_pixel(x.min(DISC - 1), y.min(DISC - 1));
            image.set_pixel(x as u32, y as u32, pixel);
        }
    }
    for y in 0..DISC {
        for x in 96..128 {
            image.set_pixel(x, y as u32, WHITE);
        }
    }
    image
}

impl Sheet {
    fn new() -> Sheet {
        let image = image();
        let texture = Texture2D::from_image(&image);
        texture.set_filter(FilterMode::Linear);
        Sheet {
            mesh: Mesh {
                vertices: Vec::new(),
                indices: Vec::new(),
                texture: Some(texture),
            },
            image,
            font: fontdue::Font::from_bytes(FONT, fontdue::FontSettings::default()).ok(),
            glyphs: HashMap::new(),
            ascii: Vec::new(),
            scratch: Vec::new(),
            cursor: (0, GLYPHS_TOP, 0),
            dirty: false,
        }
    }

    /// The glyph of `c` at `size` pixels, rasterised onto the sheet on first use as macroquad
    /// rasterises it for its atlas; `None` if it does not fit.
    fn glyph(&mut self, c: char, size: u16) -> Option<Glyph> {
        if c.is_ascii() {
            let known = self
                .ascii
                .iter()
                .find(|(s, _)| *s == size)
                .and_then(|(_, table)| table[c as usize]);
            if let Some(glyph) = known {
                return glyph;
            }
            let glyph = self.glyph_hashed(c, size);
            let at = match self.ascii.iter().position(|(s, _)| *s == size) {
                Some(at) => at,
                None => {
                    self.ascii.push((size, Box::new([None; 128])));
                    self.ascii.len() - 1
                }
            };
            self.ascii[at].1[c as usize] = Some(glyph);
            return glyph;
        }
        self.glyph_hashed(c, size)
    }

    /// [`Sheet::glyph`] through the map of every glyph.
    fn glyph_hashed(&mut self, c: char, size: u16) -> Option<Glyph> {
        if let Some(glyph) = self.glyphs.get(&(c, size)) {
            return *glyph;
        }
        let font = self.font.as_ref()?;
        let (metrics, bitmap) = font.rasterize(c, size as f32);
        let (w, h) = (metrics.width as u16, metrics.height as u16);
        let (mut x, mut y, mut row) = self.cursor;
        if x + GAP + w + GAP > SIDE {
            (x, y, row) = (0, y + row + 2 * GAP, 0);
        }
        let fits = y + GAP + h + GAP <= SIDE && x + GAP + w + GAP <= SIDE;
        let glyph = fits.then(|| {
            let (gx, gy) = (x + GAP, y + GAP);
            for j in 0..h {
                for i in 0..w {
                    let coverage = bitmap[j as usize * w as usize + i as usize];
                    let at = ((gy + j) as usize * SIDE as usize + (gx + i) as usize) * 4;
                    self.image.bytes[at..at + 4].copy_from_slice(&[255, 255, 255, coverage]);
                }
            }
            self.cursor = (x + GAP + w + GAP, y, row.max(h));
            self.dirty = true;
            Glyph {
                x: gx,
                y: gy,
                w,
                h,
                offset_x: metrics.xmin,
                offset_y: metrics.ymin,
                advance: metrics.advance_width,
            }
        });
        self.glyphs.insert((c, size), glyph);
        glyph
    }

    /// Uploads the glyphs added since the last upload.
    fn upload(&mut self) {
        if self.dirty {
            if let Some(texture) = &self.mesh.texture {
                texture.update(&self.image);
            }
            self.dirty = false;
        }
    }
}

fn with_sheet<R>(f: impl FnOnce(&mut Sheet) -> R) -> R {
    SHEET.with(|s| f(s.borrow_mut().get_or_insert_with(Sheet::new)))
}

/// Hands macroquad a triangle list on the sheet (`draw_mesh` queues it as `draw_line` does).
fn geometry(vertices: &[Vertex], indices: &[u16]) {
    with_sheet(|sheet| {
        let mesh = &mut sheet.mesh;
        mesh.vertices.clear();
        mesh.vertices.extend_from_slice(vertices);
        mesh.indices.clear();
        mesh.indices.extend_from_slice(indices);
        draw_mesh(mesh);
    });
}

/// Hands macroquad a mesh made on the sheet's texture (its `texture` is [`texture`]).
pub fn mesh(mesh: &Mesh) {
    draw_mesh(mesh);
}

/// The sheet's texture, for meshes kept by their makers (the map's grid).
pub fn texture() -> Option<Texture2D> {
    with_sheet(|sheet| sheet.mesh.texture.clone())
}

/// Runs `make` on the sheet's scratch mesh, emptied, then hands that mesh to macroquad.
fn build(make: impl FnOnce(&mut Vec<Vertex>, &mut Vec<u16>)) {
    with_sheet(|sheet| {
        let mesh = &mut sheet.mesh;
        mesh.vertices.clear();
        mesh.indices.clear();
        make(&mut mesh.vertices, &mut mesh.indices);
        draw_mesh(mesh);
    });
}

fn vertex(x: f32, y: f32, colour: Color) -> Vertex {
    Vertex::new(x, y, 0.0, WHITE_UV.0, WHITE_UV.1, colour)
}

/// The agent's disc, tinted `colour`, in the square at `(x, y)` of side `side`.
pub fn disc(x: f32, y: f32, side: f32, colour: Color) {
    with_sheet(|sheet| {
        let Some(texture) = &sheet.mesh.texture else {
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

/// The triangles of a line's 4 vertices ([`line_quad`]), as `draw_line` makes them.
pub const LINE_INDICES: [u16; 6] = [0, 1, 2, 2, 1, 3];

/// What macroquad's `draw_line` draws.
pub fn line(x1: f32, y1: f32, x2: f32, y2: f32, thickness: f32, colour: Color) {
    if let Some(quad) = line_quad(x1, y1, x2, y2, thickness, colour) {
        geometry(&quad, &LINE_INDICES);
    }
}

/// The vertices of [`line`], whose triangles are [`LINE_INDICES`]; `None` for a line of no
/// length (nothing drawn).
pub fn line_quad(
    x1: f32,
    y1: f32,
    x2: f32,
    y2: f32,
    thickness: f32,
    colour: Color,
) -> Option<[Vertex; 4]> {
    let (nx, ny) = (-(y2 - y1), x2 - x1);
    let tlen = (nx * nx + ny * ny).sqrt() / (thickness * 0.5);
    if tlen < f32::EPSILON {
        return None;
    }
    let (tx, ty) = (nx / tlen, ny / tlen);
    Some([
        vertex(x1 + tx, y1 + ty, colour),
        vertex(x1 - tx, y1 - ty, colour),
        vertex(x2 + tx, y2 + ty, colour),
        vertex(x2 - tx, y2 - ty, colour),
    ])
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

/// What macroquad's `draw_rectangle_lines` draws.
pub fn rectangle_lines(x: f32, y: f32, w: f32, h: f32, thickness: f32, colour: Color) {
    let t = thickness / 2.0;
    geometry(
        &[
            vertex(x, y, colour),
            vertex(x + w, y, colour),
            vertex(x + w, y + h, colour),
            vertex(x, y + h, colour),
            vertex(x + t, y + t, colour),
            vertex(x + w - t, y + t, colour),
            vertex(x + w - t, y + h - t, colour),
            vertex(x + t, y + h - t, colour),
        ],
        &[
            0, 1, 4, 1, 4, 5, 1, 5, 6, 1, 2, 6, 3, 7, 2, 2, 7, 6, 0, 4, 3, 3, 4, 7,
        ],
    );
}

/// What macroquad's `draw_triangle` draws.
pub fn triangle(a: Vec2, b: Vec2, c: Vec2, colour: Color) {
    geometry(
        &[
            vertex(a.x, a.y, colour),
            vertex(b.x, b.y, colour),
            vertex(c.x, c.y, colour),
        ],
        &[0, 1, 2],
    );
}

/// What macroquad's `draw_poly` draws (rotation 0).
pub fn poly(x: f32, y: f32, sides: u8, radius: f32, colour: Color) {
    build(|vertices, indices| {
        vertices.push(vertex(x, y, colour));
        for i in 0..=sides {
            let angle = i as f32 / sides as f32 * std::f32::consts::PI * 2.0;
            let (rx, ry) = (angle.cos(), angle.sin());
            vertices.push(vertex(x + radius * rx, y + radius * ry, colour));
            if i != sides {
                indices.extend_from_slice(&[0, i as u16 + 1, i as u16 + 2]);
            }
        }
    });
}

/// What macroquad's `draw_poly_lines` draws (rotation 0; `draw_circle_lines` is 30 sides).
pub fn poly_lines(x: f32, y: f32, sides: u8, radius: f32, thickness: f32, colour: Color) {
    // macroquad's `draw_arc` over 360 degrees.
    let part = 360.0_f32.to_radians();
    let sides = (sides as f32 * part / std::f32::consts::TAU)
        .ceil()
        .max(1.0);
    let span = part / sides;
    let sides = sides as usize;
    build(|vertices, indices| {
        for i in 0..sides {
            let start = i as f32 * span;
            let end = start + span;
            indices.extend([0, 1, 2, 2, 1, 3].map(|k| k + vertices.len() as u16));
            for (angle, r) in [
                (start, radius),
                (start, radius + thickness),
                (end, radius),
                (end, radius + thickness),
            ] {
                let p = vec2(x, y) + r * Vec2::from_angle(angle);
                vertices.push(vertex(p.x, p.y, colour));
            }
        }
    });
}

/// Draws `text` with the built-in font rasterised at `size` pixels, its baseline's left end at
/// `(x, y)`, as macroquad's `draw_text_ex` draws it at a font scale of 1 on a screen whose DPI
/// scale is 1; false (and nothing drawn) if a glyph is not on the sheet.
///
/// macroquad samples its font atlas nearest-texel, so a glyph at a fractional position shows
/// its texels on whole pixels; each glyph here is put on those same pixels, where sampling
/// reads texel centres, so the sheet's smooth filtering gives the same colours.
pub fn text(text: &str, x: f32, y: f32, size: u16, colour: Color) -> bool {
    if text.is_empty() {
        return true;
    }
    with_sheet(|sheet| {
        let mut glyphs = std::mem::take(&mut sheet.scratch);
        glyphs.clear();
        let all = text.chars().all(|c| match sheet.glyph(c, size) {
            Some(g) => {
                glyphs.push((c, g));
                true
            }
            None => false,
        });
        let drawn = all && sheet.draw_glyphs(&glyphs, x, y, size, colour);
        sheet.scratch = glyphs;
        drawn
    })
}

impl Sheet {
    /// Queues `glyphs` (all on the sheet) as [`text`] places them; false if there is no font.
    fn draw_glyphs(
        &mut self,
        glyphs: &[(char, Glyph)],
        x: f32,
        y: f32,
        size: u16,
        colour: Color,
    ) -> bool {
        self.upload();
        let Some(font) = self.font.as_ref() else {
            return false;
        };
        let side = SIDE as f32;
        let mesh = &mut self.mesh;
        mesh.vertices.clear();
        mesh.indices.clear();
        let mut total_width = 0.0;
        let mut last = None;
        for &(c, g) in glyphs {
            let kerning = last
                .and_then(|left| font.horizontal_kern(left, c, size as f32))
                .unwrap_or(0.0);
            last = Some(c);
            let (w, h) = (g.w as f32, g.h as f32);
            // Where `draw_text_ex` puts the glyph's quad, then the pixel its first texel
            // lands on under nearest sampling (the first pixel centre inside the quad).
            let left = g.offset_x as f32 + total_width + x + kerning;
            let top = -h - g.offset_y as f32 + y;
            let (px, py) = ((left - 0.5).ceil(), (top - 0.5).ceil());
            total_width += g.advance + kerning;
            let (u0, v0) = (g.x as f32 / side, g.y as f32 / side);
            let (u1, v1) = ((g.x + g.w) as f32 / side, (g.y + g.h) as f32 / side);
            let first = mesh.vertices.len() as u16;
            mesh.vertices.extend([
                Vertex::new(px, py, 0.0, u0, v0, colour),
                Vertex::new(px + w, py, 0.0, u1, v0, colour),
                Vertex::new(px + w, py + h, 0.0, u1, v1, colour),
                Vertex::new(px, py + h, 0.0, u0, v1, colour),
            ]);
            mesh.indices.extend([0, 1, 2, 0, 2, 3].map(|k| k + first));
        }
        draw_mesh(mesh);
        true
    }
}

/// What macroquad's `measure_text` says of `text` at `size` pixels, a font scale of 1 and a
/// DPI scale of 1; `None` if a glyph is not on the sheet.
pub fn measure(text: &str, size: u16) -> Option<TextDimensions> {
    with_sheet(|sheet| {
        let (mut width, mut min_y, mut max_y) = (0.0, f32::MAX, f32::MIN);
        for c in text.chars() {
            let g = sheet.glyph(c, size)?;
            let offset_y = g.offset_y as f32;
            width += g.advance;
            min_y = f32::min(min_y, offset_y);
            max_y = f32::max(max_y, g.h as f32 + offset_y);
        }
        Some(TextDimensions {
            width,
            height: max_y - min_y,
            offset_y: max_y,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disc_keeps_its_edge_and_the_white_block_is_opaque_white() {
        let image = image();
        for i in 0..DISC as u32 {
            // The column and the row after the disc repeat its edge (as clamping did).
            let last = DISC as u32 - 1;
            assert_eq!(image.get_pixel(DISC as u32, i), image.get_pixel(last, i));
            assert_eq!(image.get_pixel(i, DISC as u32), image.get_pixel(i, last));
            assert_eq!(image.get_pixel(127, i), WHITE);
        }
        // Bilinear sampling at the white block's centre reads only white texels.
        let (u, v) = (WHITE_UV.0 * SIDE as f32, WHITE_UV.1 * SIDE as f32);
        for (x, y) in [(u - 1.0, v - 1.0), (u, v)] {
            assert_eq!(image.get_pixel(x as u32, y as u32), WHITE);
        }
        assert!(u - 1.0 > 96.0 && v >= 1.0);
        // The disc is solid at its centre and clear at its corner.
        assert_eq!(image.get_pixel(32, 32).a, 1.0);
        assert_eq!(image.get_pixel(0, 0).a, 0.0);
    }

    #[test]
    fn the_font_is_macroquads_and_glyphs_keep_their_metrics() {
        let font = fontdue::Font::from_bytes(FONT, fontdue::FontSettings::default())
            .expect("the built-in font loads");
        let (m, bitmap) = font.rasterize('A', 14.0);
        assert!(m.width > 0 && m.height > 0 && m.advance_width > 0.0);
        assert_eq!(bitmap.len(), m.width * m.height);
        // Monospaced: every letter advances the same.
        let (w, _) = font.rasterize('W', 14.0);
        assert_eq!(w.advance_width, m.advance_width);
    }
}
