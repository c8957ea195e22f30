//! The legend of kinds, a row under the status bar: each kind on the map with its marker in
//! its colour and how many agents it has, in the order the agents come. It only draws.

use crate::agents::marker_of;
use crate::layout::Layout;
use crate::palette::agent_color;
use crate::text::{measure, ui_text};
use agentbox_core::world::{Agent, Marker, World};
use macroquad::prelude::*;

/// Each kind with its first agent (whose look the legend shows) and its count, in the order
/// the kinds first appear.
pub fn kinds(world: &World) -> Vec<(&Agent, usize)> {
    let mut out: Vec<(&Agent, usize)> = Vec::new();
    let mut last: Option<usize> = None;
    for agent in &world.agents {
        let i = match last.filter(|&i| out[i].0.kind == agent.kind) {
            Some(i) => i,
            None => match out.iter().position(|(a, _)| a.kind == agent.kind) {
                Some(i) => i,
                None => {
                    out.push((agent, 0));
                    out.len() - 1
                }
            },
        };
        out[i].1 += 1;
        last = Some(i);
    }
    out
}

/// The legend row's ground, opaque (drawn first, in `opaque::flat`).
pub fn draw_ground(layout: &Layout) {
    let r = layout.legend;
    if r.h > 0.0 {
        draw_rectangle(r.x, r.y, r.w, r.h, Color::from_rgba(0x1a, 0x1c, 0x22, 0xff));
    }
}

/// Draws the legend row of `layout` (over [`draw_ground`]).
pub fn draw(world: &World, layout: &Layout) {
    let r = layout.legend;
    if r.h <= 0.0 {
        return;
    }
    let size = 14.0 * layout.ui;
    let mark = r.h * 0.32;
    let mut x = r.x + 10.0;
    let cy = r.y + r.h / 2.0;
    for (agent, count) in kinds(world) {
        let text = format!("{} ({count})", agent.kind);
        let w = measure(&text, size).width;
        if x + 2.0 * mark + 6.0 + w > r.x + r.w - 10.0 {
            ui_text("...", x, cy + size * 0.35, size, LIGHTGRAY);
            break;
        }
        // Arrows point right in the legend.
        let shape: Marker = marker_of(agent);
        crate::agents::draw_marker(
            vec2(x + mark, cy),
            mark,
            shape,
            agent_color(agent),
            vec2(1.0, 0.0),
        );
        ui_text(&text, x + 2.0 * mark + 6.0, cy + size * 0.35, size, WHITE);
        x += 2.0 * mark + 6.0 + w + 18.0;
    }
}
