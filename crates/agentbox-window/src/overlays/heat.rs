//! Heat overlay: the potential field one agent moves in (the selected agent if it uses
//! `move.potential` or `move.swarm`, else the first that does), as the strength of the summed
//! force it would feel on every visible tile, on a log scale relative to the strongest visible
//! tile — blue weak, red strong. The forces overlay's arrows show the direction where it
//! stands. The field comes from the core's read-only query
//! [`agentbox_core::movement::potential::field_at`]; this file computes no physics of its own.

use crate::camera::Camera;
use agentbox_core::movement::potential::field_at;
use agentbox_core::world::{centre_of, Action, World};
use macroquad::prelude::*;

pub fn draw(world: &World, camera: &Camera, selected: Option<&str>) {
    let uses_field = |id: &str| {
        world
            .agent(id)
            .is_some_and(|a| matches!(a.action, Action::Potential(_)))
    };
    let chosen = selected
        .filter(|id| uses_field(id))
        .map(str::to_string)
        .or_else(|| {
            world
                .agents
                .iter()
                .find(|a| matches!(a.action, Action::Potential(_)))
                .map(|a| a.id.clone())
        });
    let Some(agent) = chosen.and_then(|id| world.agent(&id)) else {
        return;
    };
    let Action::Potential(spec) = &agent.action else {
        return;
    };
    let top_left = camera.tile_at(vec2(0.0, 0.0));
    let bottom_right = camera.tile_at(vec2(screen_width(), screen_height()));
    let grid = world.grid();
    let mut field = Vec::new();
    for y in top_left.y.max(0)..=bottom_right.y.min(grid.height() - 1) {
        for x in top_left.x.max(0)..=bottom_right.x.min(grid.width() - 1) {
            let tile = ::glam::IVec2::new(x, y);
            if !world.is_blocked(tile) {
                let f = field_at(world, agent, spec, centre_of(tile));
                field.push((tile, f.length().ln_1p()));
            }
        }
    }
    let strongest = field.iter().map(|(_, v)| *v).fold(1e-9, f64::max);
    for (tile, v) in field {
        let t = (v / strongest) as f32;
        super::shade_tile(camera, tile, Color::new(t, 0.3 * (1.0 - t), 1.0 - t, 0.35));
    }
}
