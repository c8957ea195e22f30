//! What happens to a free agent's step after its primitive and before the walls: ORCA local
//! avoidance (`orca.rs`) for agents with `avoid: true`, then the acceleration limit
//! (`force.rs`) for agents with a `max_force`. Agents with neither never come here, so their
//! moves are the primitive's, bit for bit. Reads of other agents are their position,
//! velocity, radius, whether they avoid and their id (the snapshot every agent steps against),
//! neighbours from the spatial index in a fixed order (nearest first, ties by index).

use super::orca::{self, Body, Other};
use super::Step;
use crate::world::{rng::unit_f64, Agent, Role, Shape, World};
use glam::DVec2;

/// The most neighbours ORCA takes into account (RVO2's `maxNeighbors` default).
pub const MAX_NEIGHBOURS: usize = 10;

/// How far the preferred velocity is turned at most, radians, so agents meeting exactly
/// head-on do not stay mirror images of each other (RVO2's examples perturb it likewise).
const PERTURB: f64 = 0.01;

/// `step` for agent `index` after avoidance and the acceleration limit, over a tick of `dt`.
pub fn adjust(world: &World, index: usize, agent: &Agent, mut step: Step, dt: f64) -> Step {
    let asked = step.delta / dt;
    let mut vel = asked;
    if let Some(horizon) = agent.avoid_horizon {
        let mut rng = step.rng.take().unwrap_or_else(|| agent.rng.clone());
        let turn = (unit_f64(&mut rng) * 2.0 - 1.0) * PERTURB;
        let preferred = DVec2::from_angle(turn).rotate(asked);
        vel = avoid(
            world,
            index,
            agent,
            preferred,
            horizon,
            dt,
            &mut step.shapes,
        );
        step.rng = Some(rng);
    }
    if let Some(max_force) = agent.max_force {
        vel = super::force::limit(agent.vel, vel, max_force, dt);
    }
    step.delta = if vel.is_finite() {
        vel * dt
    } else {
        DVec2::ZERO
    };
    step
}

/// The ORCA velocity for agent `index` preferring `preferred`, its neighbours and chosen
/// velocity drawn into `shapes` (`Avoid` lines to the neighbours it gives way to, an `Asked`
/// vector of the preferred velocity and a `Force` vector of the chosen one).
fn avoid(
    world: &World,
    index: usize,
    agent: &Agent,
    preferred: DVec2,
    horizon: f64,
    dt: f64,
    shapes: &mut Vec<Shape>,
) -> DVec2 {
    let reach = agent.speed * horizon + 2.0 * agent.radius + 0.5;
    let mut near: Vec<(f64, usize)> = world
        .agents_within(agent.pos, reach, None, Some(index))
        .into_iter()
        .map(|j| (world.agents[j].pos.distance_squared(agent.pos), j))
        .collect();
    near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    near.truncate(MAX_NEIGHBOURS);
    let others: Vec<Other> = near
        .iter()
        .map(|&(_, j)| {
            let o = &world.agents[j];
            Other {
                body: Body {
                    pos: o.pos,
                    vel: o.vel,
                    radius: o.radius,
                },
                share: if o.avoid_horizon.is_some() { 0.5 } else { 1.0 },
                id: &o.id,
            }
        })
        .collect();
    let me = Body {
        pos: agent.pos,
        vel: agent.vel,
        radius: agent.radius,
    };
    let (vel, yielding) = orca::avoid(me, &agent.id, preferred, agent.speed, &others, horizon, dt);
    shapes.extend(yielding.iter().map(|&k| Shape::Line {
        role: Role::Avoid,
        from: agent.pos,
        to: others[k].body.pos,
    }));
    shapes.push(Shape::Vector {
        role: Role::Asked,
        from: agent.pos,
        delta: preferred,
    });
    shapes.push(Shape::Vector {
        role: Role::Force,
        from: agent.pos,
        delta: vel,
    });
    vel
}
