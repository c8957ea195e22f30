//! Crumbs overlay: each agent's breadcrumb trail, newest brightest, numbered from 0 (newest)
//! when zoomed in — the order a crumb follower scans them in.

use super::label;
use crate::camera::Camera;
use crate::palette::agent_color;
use agentbox_core::world::{centre_of, World};
use macroquad::prelude::*;

pub fn draw(world: &World, camera: &Camera) {
    for agent in &world.agents {
        let n = agent.crumbs.tiles.len();
        if n == 0 {
            continue;
        }
        let base = agent_color(agent);
        for (i, &tile) in agent.crumbs.tiles.iter().enumerate() {
            let fade = 1.0 - i as f32 / (n as f32 + 1.0);
            let p = camera.to_screen(centre_of(tile));
            let color = Color::new(base.r, base.g, base.b, 0.25 + 0.6 * fade);
            draw_circle(p.x, p.y, (camera.tile * 0.18).max(2.0), color);
            label(
                camera,
                centre_of(tile) + ::glam::DVec2::new(0.0, 0.3),
                &i.to_string(),
                BLACK,
            );
        }
    }
}
