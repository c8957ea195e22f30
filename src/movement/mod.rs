//! Movement primitives: how an agent executes its [`Action`] for one tick.
//!
//! Each primitive is a pure function in its own file that returns how far to move this tick
//! (and any state it keeps across ticks, such as a route); the simulation applies the move and
//! resolves walls with [`slide::slide`]. Nothing here draws, reads input or names mlua,
//! macroquad or notify.

pub mod chase;
pub mod evade;
pub mod follow_route;
pub mod go_to;
pub mod slide;
pub mod steer;

use crate::world::{Action, Agent, Route, Shape, World};
use glam::DVec2;

/// The outcome of one primitive for one tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Desired displacement this tick, in tiles (before walls are resolved).
    pub delta: DVec2,
    /// The route to keep following next tick (`path_to` only).
    pub route: Option<Route>,
    /// What to draw to explain this step (stored on the agent as `agent.debug`).
    pub shapes: Vec<Shape>,
}

/// Runs the agent's current action for one fixed step of `dt` seconds.
pub fn step(world: &World, agent: &Agent, dt: f64) -> Step {
    let reach = agent.speed * dt;
    let delta = match &agent.action {
        Action::Stop => DVec2::ZERO,
        Action::Chase(target) => world
            .target_pos(target)
            .map_or(DVec2::ZERO, |to| chase::chase(agent.pos, to, reach)),
        Action::Evade(target) => world
            .target_pos(target)
            .map_or(DVec2::ZERO, |from| evade::evade(agent.pos, from, reach)),
        Action::To(point) => go_to::go_to(agent.pos, *point, reach),
        Action::PathTo(goal) => return follow_route::follow(world, agent, *goal, reach),
        Action::Steer(dir) => steer::steer(*dir, reach),
    };
    Step {
        delta,
        route: None,
        shapes: Vec::new(),
    }
}
