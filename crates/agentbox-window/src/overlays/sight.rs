//! Sight overlay: for every agent aiming at another agent or a point, the Bresenham cells
//! between them and whether the target is in line of sight (the same test `nav.los` uses).

use super::shade_tile;
use crate::camera::Camera;
use agentbox_core::nav::{bresenham, line_of_sight};
use agentbox_core::world::{tile_of, Action, Target, World};
use macroquad::prelude::*;

fn target_of(action: &Action) -> Option<&Target> {
    match action {
        Action::Chase(t) | Action::Evade(t) => Some(t),
        _ => None,
    }
}

pub fn draw(world: &World, camera: &Camera) {
    for agent in &world.agents {
        let target = match (&agent.action, target_of(&agent.action)) {
            (_, Some(t)) => world.target_pos(t),
            (Action::To(p), None) => Some(*p),
            (Action::PathTo(goal, _) | Action::Waypoints(goal) | Action::TankTo(goal), None) => {
                Some(agentbox_core::world::centre_of(*goal))
            }
            _ => None,
        };
        let Some(target) = target else { continue };
        let (a, b) = (agent.tile(), tile_of(target));
        let seen = line_of_sight(world, a, b);
        let (cell, line) = if seen {
            (
                Color::from_rgba(0x30, 0xc0, 0x50, 0x50),
                Color::from_rgba(0x20, 0xa0, 0x40, 0xff),
            )
        } else {
            (
                Color::from_rgba(0xe0, 0x40, 0x40, 0x50),
                Color::from_rgba(0xd0, 0x30, 0x30, 0xff),
            )
        };
        for c in bresenham(a, b) {
            let blocked = world.is_blocked(c);
            let color = if blocked {
                Color::from_rgba(0xe0, 0x20, 0x20, 0xa0)
            } else {
                cell
            };
            shade_tile(camera, c, color);
        }
        let (p, q) = (camera.to_screen(agent.pos), camera.to_screen(target));
        draw_line(
            p.x,
            p.y,
            q.x,
            q.y,
            (camera.tile * 0.06).clamp(1.0, 3.0),
            line,
        );
    }
}
