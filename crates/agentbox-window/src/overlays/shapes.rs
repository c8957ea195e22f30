//! Primitive overlays: the debug shapes each movement primitive leaves on its agent
//! (`agent.debug`), drawn by role — probes (the cells and points a primitive looked at, such as
//! wall-tracing feelers and crumb scans), weights (the numbers it compared, such as a road
//! follower's direction weights) and forces (potential-function pulls and pushes; with them a
//! blend's parts, each in its colour with its weight, and avoidance: thin cyan lines to the
//! neighbours given way to, the velocity asked in white and the one chosen in red). Lines of sight and planned cells
//! join the sight and routes overlays.

use super::{label, shade_tile};
use crate::camera::Camera;
use agentbox_core::world::World;
use agentbox_core::world::{Role, Shape};
use macroquad::prelude::*;

fn color(role: Role) -> Color {
    match role {
        Role::Los => Color::from_rgba(0x20, 0xa0, 0x40, 0xd0),
        Role::Path => Color::from_rgba(0x1f, 0x6f, 0xeb, 0xd0),
        Role::Probe => Color::from_rgba(0xe6, 0x7e, 0x22, 0xd0),
        Role::Force => Color::from_rgba(0xc0, 0x39, 0x2b, 0xe0),
        Role::Weights => Color::from_rgba(0x6c, 0x34, 0x83, 0xff),
        Role::Goal => Color::from_rgba(0xff, 0xc0, 0x00, 0xff),
        Role::Part(k) => PARTS[k as usize % PARTS.len()],
        Role::Avoid => Color::from_rgba(0x00, 0xb8, 0xd4, 0x90),
        Role::Asked => Color::from_rgba(0xf5, 0xf5, 0xf5, 0xe0),
    }
}

/// The colours of a blend's parts, in order (then again).
const PARTS: [Color; 6] = [
    Color::new(0.90, 0.30, 0.24, 1.0),
    Color::new(0.18, 0.55, 0.95, 1.0),
    Color::new(0.18, 0.75, 0.35, 1.0),
    Color::new(0.95, 0.65, 0.10, 1.0),
    Color::new(0.65, 0.35, 0.85, 1.0),
    Color::new(0.10, 0.80, 0.80, 1.0),
];

/// Draws every shape whose role is in `roles` (`Role::Part(0)` stands for every part).
pub fn draw(world: &World, camera: &Camera, roles: &[Role]) {
    let width = (camera.tile * 0.07).clamp(1.0, 3.0);
    for agent in &world.agents {
        for shape in &agent.debug {
            let role = shape.role();
            let kind = match role {
                Role::Part(_) => Role::Part(0),
                r => r,
            };
            if !roles.contains(&kind) {
                continue;
            }
            let c = color(role);
            match shape {
                Shape::Line { from, to, .. } => {
                    let (p, q) = (camera.to_screen(*from), camera.to_screen(*to));
                    // Avoidance lines are many: thin, under the velocities.
                    let w = if role == Role::Avoid {
                        width * 0.5
                    } else {
                        width
                    };
                    draw_line(p.x, p.y, q.x, q.y, w, c);
                }
                Shape::Cells { cells, .. } => {
                    for cell in cells {
                        shade_tile(camera, *cell, Color::new(c.r, c.g, c.b, 0.3));
                    }
                }
                Shape::Circle { centre, radius, .. } => {
                    let p = camera.to_screen(*centre);
                    draw_circle_lines(p.x, p.y, *radius as f32 * camera.tile, width, c);
                }
                Shape::Vector { from, delta, .. } => arrow(camera, *from, *delta, width, c),
                Shape::Label { at, text, .. } => label(camera, *at, text, c),
                Shape::Weight { at, weight, .. } => {
                    let text = match role {
                        Role::Part(k) => format!("{} x{weight}", k as usize + 1),
                        _ => format!("x{weight}"),
                    };
                    label(camera, *at, &text, c)
                }
            }
        }
    }
}

/// An arrow with a head. Forces span orders of magnitude, so the length is compressed: a
/// vector of length L is drawn `1.5 * (1 - e^(-L/3))` tiles long (under a tile for the usual
/// speeds, never past one and a half), pointing the true way.
fn arrow(camera: &Camera, from: ::glam::DVec2, delta: ::glam::DVec2, width: f32, c: Color) {
    let length = delta.length();
    if length < 1e-9 {
        return;
    }
    let shown = delta / length * (1.5 * (1.0 - (-length / 3.0).exp()));
    let (p, q) = (camera.to_screen(from), camera.to_screen(from + shown));
    draw_line(p.x, p.y, q.x, q.y, width * 1.4, c);
    let d = q - p;
    if d.length() < 3.0 {
        return;
    }
    let dir = d.normalize();
    let side = vec2(-dir.y, dir.x);
    let head = (camera.tile * 0.25).clamp(4.0, 12.0);
    draw_triangle(
        q,
        q - dir * head + side * head * 0.5,
        q - dir * head - side * head * 0.5,
        c,
    );
}
