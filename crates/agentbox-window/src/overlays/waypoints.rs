//! Waypoints overlay: the scene's waypoint nodes and the links between nodes that see each
//! other (the graph waypoint navigation searches), rebuilt when the map changes.

use crate::camera::Camera;
use agentbox_core::nav::line_of_sight;
use agentbox_core::world::{centre_of, Tile, World};
use macroquad::prelude::*;

#[derive(Default)]
pub struct Cache {
    built_for: Option<(u64, Vec<Tile>)>,
    links: Vec<(Tile, Tile)>,
}

impl Cache {
    pub fn draw(&mut self, world: &World, camera: &Camera) {
        let key = (world.map_version(), world.waypoints.clone());
        if self.built_for.as_ref() != Some(&key) {
            let nodes = &world.waypoints;
            self.links = (0..nodes.len())
                .flat_map(|i| (i + 1..nodes.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| line_of_sight(world, nodes[i], nodes[j]))
                .map(|(i, j)| (nodes[i], nodes[j]))
                .collect();
            self.built_for = Some(key);
        }
        let link = Color::from_rgba(0x8e, 0x44, 0xad, 0xa0);
        for (a, b) in &self.links {
            let (p, q) = (
                camera.to_screen(centre_of(*a)),
                camera.to_screen(centre_of(*b)),
            );
            draw_line(
                p.x,
                p.y,
                q.x,
                q.y,
                (camera.tile * 0.06).clamp(1.0, 3.0),
                link,
            );
        }
        for (i, node) in world.waypoints.iter().enumerate() {
            let p = camera.to_screen(centre_of(*node));
            let r = (camera.tile * 0.28).max(3.0);
            draw_circle(p.x, p.y, r, Color::from_rgba(0x8e, 0x44, 0xad, 0xff));
            super::label(camera, centre_of(*node), &i.to_string(), WHITE);
        }
    }
}
