//! State labels over the agents (L): the name each script last set with `self:label`, drawn
//! just above the agent's disc in a colour of its own (the same colour as on the decision
//! timeline's label band, so "search" always looks the same). Reads the world; changes nothing.

use super::camera::Camera;
use agentbox_core::world::World;
use macroquad::prelude::*;

/// The most labels drawn in one frame (a crowd's labels would hide the map).
const MAX_LABELS: usize = 1500;

pub fn draw(world: &World, camera: &Camera) {
    let size = (camera.tile * 0.45).clamp(11.0, 18.0);
    for agent in world
        .agents
        .iter()
        .filter(|a| a.label.is_some())
        .take(MAX_LABELS)
    {
        let Some(label) = agent.label.as_deref() else {
            continue;
        };
        let above = ::glam::DVec2::new(agent.pos.x, agent.pos.y - agent.radius - 0.25);
        let p = camera.to_screen(above);
        let dims = super::text::measure(label, (size as u16) as f32);
        let (x, y) = (p.x - dims.width / 2.0, p.y - 2.0);
        draw_rectangle(
            x - 3.0,
            y - dims.offset_y - 1.0,
            dims.width + 6.0,
            dims.height + 4.0,
            Color::from_rgba(0x10, 0x10, 0x14, 0xc0),
        );
        super::text::ui_text(label, x, y, size, label_color(label));
    }
}

/// The colour of a label (as the decision timeline's band: a hue from the name).
pub fn label_color(label: &str) -> Color {
    let h = label.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    let hue = (h % 360) as f32 / 360.0;
    macroquad::color::hsl_to_rgb(hue, 0.8, 0.7)
}
