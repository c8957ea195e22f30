//! The colour of a state label (`self:label`): the same in an agent's tag on the map
//! (`agents.rs`) and on the decision strip's label band, so "search" always looks the same.

use macroquad::prelude::*;

/// The colour of a label (as the decision timeline's band: a hue from the name).
pub fn label_color(label: &str) -> Color {
    let h = label.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    let hue = (h % 360) as f32 / 360.0;
    macroquad::color::hsl_to_rgb(hue, 0.8, 0.7)
}
