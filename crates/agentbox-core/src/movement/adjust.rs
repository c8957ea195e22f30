//! What happens to a free agent's step after its primitive and before the walls: ORCA local
//! avoidance (`orca.rs`) for agents with `avoid: true`, then the acceleration limit
//! (`force.rs`) for agents with a `max_force`. Agents with neither never come here, so their
//! moves are the primitive's, bit for bit. Reads of other agents are their position,
//! velocity, radius, whether they avoid and their id (the snapshot every agent steps against),
//! neighbours from the spatial index in a fixed order (the nearest 10, ties by index, in
//! index order).

use super::orca::{self, Body, Other};
use super::Step;
use crate::world::{rng::unit_f64, Agent, Role, Shape, World};
use glam::DVec2;
use smallvec::SmallVec;

/// The most neighbours ORCA takes into account (RVO2's `maxNeighbors` default).
pub const MAX_NEIGHBOURS: usize = 10;

/// How far the preferred velocity is turned at most, radians, so agents meeting exactly
/// head-on do not stay mirror images of each other (RVO2's examples perturb it likewise).
const PERTURB: f64 = 0.01;

/// `step` for agent `index` after avoidance and the acceleration limit, over a tick of `dt`.
/// Changes the step in place: a step is large, and moving it in and out costs a copy each way.
pub fn adjust(world: &World, index: usize, agent: &Agent, step: &mut Step, dt: f64) {
    let asked = step.delta / dt;
    let mut vel = asked;
    if let Some(horizon) = agent.avoid_horizon {
        vel = avoid(world, index, agent, step, asked, horizon, dt);
    }
    if let Some(max_force) = agent.max_force {
        vel = super::force::limit(agent.vel, vel, max_force, dt);
    }
    step.delta = if vel.is_finite() {
        vel * dt
    } else {
        DVec2::ZERO
    };
}

/// The ORCA velocity for agent `index` that asked for `asked`, its neighbours and chosen
/// velocity drawn into the step's shapes (`Avoid` lines to the neighbours it gives way to, an
/// `Asked` vector of the preferred velocity and a `Force` vector of the chosen one). Only an
/// agent that must give way turns its preferred velocity by a small angle drawn from its
/// stream (which the step then carries on); one with a clear way draws nothing.
fn avoid(
    world: &World,
    index: usize,
    agent: &Agent,
    step: &mut Step,
    asked: DVec2,
    horizon: f64,
    dt: f64,
) -> DVec2 {
    let near = neighbours(world, index, agent, horizon);
    // At most MAX_NEIGHBOURS: on the stack. Read from the index's dense copies when it
    // describes the agents exactly (as it does in a tick), so a neighbour's `Agent` struct is
    // not touched; its id only when two agents stand on one point.
    let index = world.is_sealed().then(|| world.spatial()).flatten();
    let none = Other {
        body: Body {
            pos: DVec2::ZERO,
            vel: DVec2::ZERO,
            radius: 0.0,
        },
        share: 0.0,
        key: 0,
    };
    let mut slots = [none; MAX_NEIGHBOURS];
    for (slot, &j) in slots.iter_mut().zip(&near) {
        let j = j as usize;
        let (pos, vel, radius, avoids) = match index.and_then(|index| index.body(j)) {
            Some(body) => body,
            None => {
                let o = &world.agents[j];
                (o.pos, o.vel, o.radius, o.avoid_horizon.is_some())
            }
        };
        *slot = Other {
            body: Body { pos, vel, radius },
            share: if avoids { 0.5 } else { 1.0 },
            key: j,
        };
    }
    let others = &slots[..near.len()];
    let me = Body {
        pos: agent.pos,
        vel: agent.vel,
        radius: agent.radius,
    };
    let id_of = |j: usize| world.agents[j].id.as_str();
    let names = orca::Names {
        me: &agent.id,
        of: &id_of,
    };
    let mut plane_slots = [(0, orca::Line::default()); MAX_NEIGHBOURS];
    let planes = orca::half_planes_into(me, &names, others, horizon, dt, &mut plane_slots);
    let mut preferred = asked;
    let mut yielding = planes
        .iter()
        .filter(|(_, l)| orca::breaks(l, asked))
        .peekable();
    if yielding.peek().is_some() {
        let mut rng = step
            .rng
            .take()
            .unwrap_or_else(|| Box::new(agent.rng.current()));
        let turn = (unit_f64(&mut rng) * 2.0 - 1.0) * PERTURB;
        preferred = DVec2::from_angle(turn).rotate(asked);
        step.rng = Some(rng);
    }
    let shapes = &mut step.shapes;
    shapes.extend(yielding.map(|&(k, _)| Shape::Line {
        role: Role::Avoid,
        from: agent.pos,
        to: others[k].body.pos,
    }));
    let vel = orca::solve(planes, preferred, agent.speed);
    shapes.push(Shape::Vector {
        role: Role::Asked,
        from: agent.pos,
        delta: asked,
    });
    shapes.push(Shape::Vector {
        role: Role::Force,
        from: agent.pos,
        delta: vel,
    });
    vel
}

/// The neighbours agent `index` weighs in ORCA with look-ahead `horizon`: the agents within
/// its reach (its top speed times `horizon`, plus two radii and half a tile), ascending by index; past [`MAX_NEIGHBOURS`] the nearest are kept (ties by index),
/// still in index order. Public so the steering bench weighs exactly the same neighbours.
pub fn neighbours(world: &World, index: usize, agent: &Agent, horizon: f64) -> SmallVec<[u32; 32]> {
    let reach = agent.speed * horizon + 2.0 * agent.radius + 0.5;
    // Gathered on the stack (a crowd rarely has more in reach), allocating nothing.
    let mut near: SmallVec<[u32; 32]> = SmallVec::new();
    world.visit_agents_within(agent.pos, reach, None, |j| {
        if j != index {
            near.push(j as u32);
        }
    });
    near.sort_unstable();
    if near.len() > MAX_NEIGHBOURS {
        let dist = |j: u32| world.agents[j as usize].pos.distance_squared(agent.pos);
        let mut keyed: SmallVec<[(f64, u32); 32]> = near.iter().map(|&j| (dist(j), j)).collect();
        keyed.select_nth_unstable_by(MAX_NEIGHBOURS - 1, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        near = keyed[..MAX_NEIGHBOURS].iter().map(|&(_, j)| j).collect();
        near.sort_unstable();
    }
    near
}
