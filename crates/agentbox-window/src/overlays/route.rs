//! Routes overlay: the tiles an agent's `path_to` route still has to visit, and its goal.

use crate::camera::Camera;
use agentbox_core::world::{centre_of, World};
use macroquad::prelude::*;

pub fn draw(world: &World, camera: &Camera) {
    let color = Color::from_rgba(0x1f, 0x6f, 0xeb, 0xe0);
    let width = (camera.tile * 0.12).clamp(1.5, 5.0);
    for agent in &world.agents {
        let Some(route) = &agent.route else { continue };
        // Routes of multi-tile bodies are planned for the top-left cell: draw them through the
        // body's centre, where the body is drawn.
        let centre = ::glam::DVec2::splat((agent.size.max(1) - 1) as f64 / 2.0);
        let mut from = camera.to_screen(agent.pos + centre);
        for &tile in &route.tiles {
            let to = camera.to_screen(centre_of(tile) + centre);
            draw_line(from.x, from.y, to.x, to.y, width, color);
            draw_circle(to.x, to.y, width * 0.9, color);
            from = to;
        }
        let goal = camera.to_screen(centre_of(route.goal) + centre);
        let r = camera.tile * 0.35;
        draw_circle_lines(goal.x, goal.y, r, width, color);
        draw_line(goal.x - r, goal.y, goal.x + r, goal.y, width * 0.6, color);
        draw_line(goal.x, goal.y - r, goal.x, goal.y + r, width * 0.6, color);
    }
    if let Some(goal) = world.goal {
        let p = camera.to_screen(centre_of(goal));
        let r = camera.tile * 0.45;
        draw_poly_lines(
            p.x,
            p.y,
            4,
            r,
            45.0,
            width,
            Color::from_rgba(0xff, 0xd0, 0x00, 0xff),
        );
    }
}
