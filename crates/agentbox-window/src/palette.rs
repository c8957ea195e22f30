//! Colours: terrain colours from the scene, agent colours by kind from a fixed palette.

use macroquad::prelude::Color;

/// Distinct, readable colours on the map's muted tones.
const KIND_COLORS: [[u8; 3]; 8] = [
    [0xe6, 0x3e, 0x3e], // red
    [0x2f, 0x80, 0xed], // blue
    [0x27, 0xae, 0x60], // green
    [0xf2, 0x99, 0x4a], // orange
    [0x9b, 0x51, 0xe0], // purple
    [0x00, 0xb8, 0xc4], // cyan
    [0xf2, 0xc9, 0x4c], // yellow
    [0xeb, 0x57, 0xa8], // pink
];

pub fn rgb(c: [u8; 3]) -> Color {
    Color::from_rgba(c[0], c[1], c[2], 0xff)
}

/// The colour of an agent kind: the same kind always gets the same colour.
pub fn kind_color(kind: &str) -> Color {
    let mut h: u32 = 0x811c_9dc5;
    for b in kind.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    rgb(KIND_COLORS[(h % KIND_COLORS.len() as u32) as usize])
}
