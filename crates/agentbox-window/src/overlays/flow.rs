//! Flow overlay: the flow field one agent walks (the selected agent if it runs
//! `move.flow_to`, else the first that does): every visible tile shaded by its cost to the goal
//! (blue near, red far, relative to the dearest visible tile; grey where the goal cannot be
//! reached), and when zoomed in an arrow to the neighbour the field steps to. The field is the
//! core's shared one ([`agentbox_core::nav::flow::field`], with the options `move.flow_to` uses); this file only draws it.

use crate::camera::Camera;
use agentbox_core::world::{centre_of, tile_of, Action, World};
use macroquad::prelude::*;

pub fn draw(world: &World, camera: &Camera, selected: Option<&str>) {
    let walks = |a: &&agentbox_core::world::Agent| matches!(a.action, Action::FlowTo(_));
    let agent = selected
        .and_then(|id| world.agent(id))
        .filter(walks)
        .or_else(|| world.agents.iter().find(walks));
    let Some(agent) = agent else { return };
    let Action::FlowTo(target) = &agent.action else {
        return;
    };
    let Some(goal) = world.target_pos(target).map(tile_of) else {
        return;
    };
    let opts = agentbox_core::nav::flow::FlowOptions {
        size: agent.size,
        ..Default::default()
    };
    let Some(field) = agentbox_core::nav::flow::field(world, goal, opts) else {
        return;
    };
    let top_left = camera.tile_at(vec2(0.0, 0.0));
    let bottom_right = camera.tile_at(vec2(screen_width(), screen_height()));
    let (x0, x1) = (top_left.x.max(0), bottom_right.x.min(field.width() - 1));
    let (y0, y1) = (top_left.y.max(0), bottom_right.y.min(field.height() - 1));
    let mut dearest = 1e-9f64;
    for y in y0..=y1 {
        for x in x0..=x1 {
            if let Some(c) = field.cost(::glam::IVec2::new(x, y)) {
                dearest = dearest.max(c);
            }
        }
    }
    let arrows = camera.tile >= 12.0;
    for y in y0..=y1 {
        for x in x0..=x1 {
            let tile = ::glam::IVec2::new(x, y);
            if world.is_blocked(tile) {
                continue;
            }
            match field.cost(tile) {
                Some(c) => {
                    let t = (c / dearest) as f32;
                    super::shade_tile(camera, tile, Color::new(t, 0.35 * (1.0 - t), 1.0 - t, 0.35));
                }
                None => super::shade_tile(camera, tile, Color::new(0.2, 0.2, 0.2, 0.45)),
            }
            if arrows {
                if let Some(next) = field.next(tile) {
                    let from = camera.to_screen(centre_of(tile));
                    let to = camera
                        .to_screen(centre_of(tile) + (centre_of(next) - centre_of(tile)) * 0.4);
                    let ink = Color::from_rgba(0x10, 0x10, 0x10, 0xc0);
                    draw_line(from.x, from.y, to.x, to.y, 1.5, ink);
                    draw_circle(to.x, to.y, 2.0, ink);
                }
            }
        }
    }
    super::shade_tile(camera, goal, Color::new(1.0, 1.0, 1.0, 0.6));
}
