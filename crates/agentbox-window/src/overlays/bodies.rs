//! Bodies overlay: each agent's body radius (what walls and contacts use), the N x N footprint
//! of multi-tile agents (`size:`, the tank's body: the cells A* checks it fits in) and, for
//! agents with a sensing radius (`sense:` in the scene, `self.sense` in Lua), the circle they
//! sense within.

use crate::camera::Camera;
use crate::palette::agent_color;
use agentbox_core::world::World;
use macroquad::prelude::*;

pub fn draw(world: &World, camera: &Camera) {
    for agent in &world.agents {
        let p = camera.to_screen(agent.pos);
        let c = agent_color(agent);
        if agent.size <= 1 {
            draw_circle_lines(p.x, p.y, agent.radius as f32 * camera.tile, 1.5, BLACK);
        } else {
            let (corner, side) = camera.tile_rect(agent.tile());
            let n = agent.size as f32 * side;
            draw_rectangle(corner.x, corner.y, n, n, Color::new(c.r, c.g, c.b, 0.15));
            draw_rectangle_lines(
                corner.x,
                corner.y,
                n,
                n,
                2.0,
                Color::new(c.r, c.g, c.b, 0.9),
            );
        }
        if let Some(sense) = agent.sense {
            let r = sense as f32 * camera.tile;
            draw_circle(p.x, p.y, r, Color::new(c.r, c.g, c.b, 0.08));
            draw_circle_lines(p.x, p.y, r, 1.5, Color::new(c.r, c.g, c.b, 0.7));
        }
    }
}
