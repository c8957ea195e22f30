//! Debug overlays: each explains one kind of decision at a glance and is toggled by a key
//! listed in the help (F1 or ?). Overlays read the world (and the debug data the primitives
//! leave on agents); they never change anything.

mod bodies;
mod crumbs;
mod flow;
mod heat;
mod messages;
mod route;
mod search;
mod shapes;
mod sight;
mod waypoints;

use super::camera::Camera;
use agentbox_core::world::{Role, World};
use macroquad::prelude::*;
use std::collections::BTreeSet;

/// Every overlay, in key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Overlay {
    Routes,
    Sight,
    Crumbs,
    Waypoints,
    Search,
    Weights,
    Probes,
    Forces,
    Heat,
    Bodies,
    Flow,
    Messages,
}

/// `(overlay, name, what it shows)`, in key order (the keys are the keymap's).
pub const ALL: [(Overlay, &str, &str); 12] = [
    (Overlay::Routes, "routes", "each agent's A* route and goal"),
    (
        Overlay::Sight,
        "sight",
        "line of sight to each target: Bresenham cells, green = seen, red = blocked",
    ),
    (
        Overlay::Crumbs,
        "crumbs",
        "breadcrumb trails, newest brightest (index 0 = newest)",
    ),
    (
        Overlay::Waypoints,
        "waypoints",
        "waypoint nodes and the links between nodes that see each other",
    ),
    (
        Overlay::Search,
        "search",
        "the A* search behind a route (selected agent, else all): closed red, open green, G/H/F when zoomed in",
    ),
    (
        Overlay::Weights,
        "weights",
        "the numbers a primitive compared (road followers' direction weights)",
    ),
    (
        Overlay::Probes,
        "probes",
        "cells and points primitives looked at: wall-tracing feelers, crumb scans, tracing starts, aim points",
    ),
    (
        Overlay::Forces,
        "forces",
        "potential-function forces as arrows (obstacle push, total)",
    ),
    (
        Overlay::Heat,
        "heat",
        "the potential field of the selected (or first) potential agent: blue weak, red strong",
    ),
    (
        Overlay::Bodies,
        "bodies",
        "body and contact radii, sensing radii",
    ),
    (
        Overlay::Flow,
        "flow",
        "the flow field of the selected (or first) flow_to agent: cost to the goal blue near, red far, arrows when zoomed in",
    ),
    (
        Overlay::Messages,
        "messages",
        "messages as yellow lines from sender to receiver and noises as blue rings out to their farthest hearer, for a second",
    ),
];

/// Which overlays are on.
#[derive(Default)]
pub struct Overlays {
    pub on: BTreeSet<Overlay>,
    waypoints: waypoints::Cache,
    search: agentbox_core::nav::Search,
    messages: messages::Recent,
}

impl Overlays {
    /// Toggles an overlay; returns its name and new state.
    pub fn toggle(&mut self, overlay: Overlay) -> (&'static str, bool) {
        let name = ALL.iter().find(|o| o.0 == overlay).map_or("?", |o| o.1);
        let now = if self.on.remove(&overlay) {
            false
        } else {
            self.on.insert(overlay);
            true
        };
        (name, now)
    }

    /// Draws the overlays that sit under the agents.
    pub fn draw_under(&mut self, world: &World, camera: &Camera, selected: Option<&str>) {
        if self.on.contains(&Overlay::Flow) {
            flow::draw(world, camera, selected);
        }
        if self.on.contains(&Overlay::Heat) {
            heat::draw(world, camera, selected);
        }
        if self.on.contains(&Overlay::Search) {
            search::draw(world, camera, &mut self.search, selected);
        }
        if self.on.contains(&Overlay::Waypoints) {
            self.waypoints.draw(world, camera);
        }
        if self.on.contains(&Overlay::Crumbs) {
            crumbs::draw(world, camera);
        }
        if self.on.contains(&Overlay::Sight) {
            sight::draw(world, camera);
            shapes::draw(world, camera, &[Role::Los]);
        }
        if self.on.contains(&Overlay::Routes) {
            route::draw(world, camera);
            shapes::draw(world, camera, &[Role::Path]);
        }
        if self.on.contains(&Overlay::Probes) {
            shapes::draw(world, camera, &[Role::Probe, Role::Goal]);
        }
    }

    /// Draws the overlays that sit over the agents.
    pub fn draw_over(&mut self, world: &World, camera: &Camera) {
        if self.on.contains(&Overlay::Messages) {
            self.messages.draw(world, camera);
        }
        if self.on.contains(&Overlay::Forces) {
            let roles = [Role::Force, Role::Part(0), Role::Avoid, Role::Asked];
            shapes::draw(world, camera, &roles);
        }
        if self.on.contains(&Overlay::Weights) {
            shapes::draw(world, camera, &[Role::Weights]);
        }
        if self.on.contains(&Overlay::Bodies) {
            bodies::draw(world, camera);
        }
    }
}

/// A filled tile with a translucent colour.
pub fn shade_tile(camera: &Camera, tile: ::glam::IVec2, color: Color) {
    let (corner, side) = camera.tile_rect(tile);
    draw_rectangle(corner.x, corner.y, side, side, color);
}

/// Text centred on a world position, only when tiles are large enough to read it.
pub fn label(camera: &Camera, at: ::glam::DVec2, text: &str, color: Color) {
    label_sized(camera, at, text, color, 0.45);
}

/// Like [`label`], with the font size as a share of the tile.
pub fn label_sized(camera: &Camera, at: ::glam::DVec2, text: &str, color: Color, share: f32) {
    if camera.tile < 16.0 {
        return;
    }
    let size = (camera.tile * share).clamp(11.0, 22.0);
    let dims = crate::text::measure(text, (size as u16) as f32);
    let p = camera.to_screen(at);
    crate::text::ui_text(
        text,
        p.x - dims.width / 2.0,
        p.y + dims.offset_y / 2.0,
        size,
        color,
    );
}
