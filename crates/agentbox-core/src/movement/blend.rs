//! Weighted blending of steering behaviours (Reynolds 1999, "combining behaviors": a linear
//! combination of the steering each behaviour asks for, truncated to the top speed): the sum
//! of weight x the velocity each part asks for this tick (tiles/s), clamped to the agent's
//! speed. Each part keeps its own memory (`MoveMemory::Parts`); the shapes show each part's
//! weighted velocity (a `Part(k)` vector and its weight) and the sum (a `Force` vector).

use super::neighbours::{narrowed, within, Neighbour};
use super::{flock_with, part, FlockSums, Step};
use crate::world::{Action, Agent, MoveMemory, Role, Shape, World};
use glam::DVec2;
use rand_chacha::ChaCha8Rng;

/// One tick of `move.blend{{ACTION, WEIGHT}, ...}` for `agent`, drawing into `shapes`.
pub fn blend(
    world: &World,
    agent: &Agent,
    parts: &[(Action, f64)],
    dt: f64,
    mut shapes: Vec<Shape>,
) -> Step {
    let kept = match &agent.memory {
        MoveMemory::Parts(kept) if kept.len() == parts.len() => kept.as_slice(),
        _ => &[],
    };
    // Allocated only once a part remembers something.
    let mut memories: Vec<MoveMemory> = Vec::new();
    let mut rng: Option<Box<ChaCha8Rng>> = None;
    let (mut route, mut routed) = (None, false);
    let mut sum = DVec2::ZERO;
    let shared = shared_neighbours(world, agent, parts);
    // The sums over the shared neighbours, taken once for every part that reads them whole.
    let mut sums: Option<FlockSums> = None;
    for (k, (action, weight)) in parts.iter().enumerate() {
        let delta = match (action, &shared) {
            (Action::Flock(spec), Some((all, radius, kind))) => {
                let reach = agent.speed * dt;
                if spec.radius == *radius && spec.kind.as_deref() == *kind {
                    let sums = sums.get_or_insert_with(|| FlockSums::over(world, agent, all));
                    sums.delta(agent, spec.rule, reach, dt)
                } else {
                    let near = narrowed(world, all, agent.pos, spec.radius, spec.kind.as_deref());
                    flock_with(world, agent, spec, &near, agent.pos, reach, dt, None)
                }
            }
            _ => {
                let memory = kept.get(k).unwrap_or(&MoveMemory::None);
                let ask = part(
                    world,
                    agent,
                    action,
                    memory,
                    rng.as_deref(),
                    &mut routed,
                    dt,
                );
                if ask.memory != MoveMemory::None && memories.is_empty() {
                    memories = vec![MoveMemory::None; parts.len()];
                }
                if let Some(slot) = memories.get_mut(k) {
                    *slot = ask.memory;
                }
                rng = ask.rng.or(rng);
                route = ask.route.or(route);
                ask.delta
            }
        };
        let weighted = delta / dt * *weight;
        sum += weighted;
        let role = Role::Part(k.min(u8::MAX as usize) as u8);
        shapes.push(Shape::Vector {
            role,
            from: agent.pos,
            delta: weighted,
        });
        shapes.push(Shape::Weight {
            role,
            at: agent.pos + weighted,
            weight: *weight,
        });
    }
    let vel = sum.clamp_length_max(agent.speed);
    shapes.push(Shape::Vector {
        role: Role::Force,
        from: agent.pos,
        delta: vel,
    });
    Step {
        delta: if vel.is_finite() {
            vel * dt
        } else {
            DVec2::ZERO
        },
        route,
        shapes,
        memory: match memories.is_empty() {
            true => MoveMemory::None,
            false => MoveMemory::Parts(memories),
        },
        rng,
        ..Default::default()
    }
}

/// With two flocking parts or more (boids blend separation, alignment and cohesion), their
/// neighbours found once, at the widest radius (of their kind if they all name the same one),
/// for each part to narrow: one spatial query instead of one per part, the same neighbours in
/// the same order.
fn shared_neighbours<'a>(
    world: &World,
    agent: &Agent,
    parts: &'a [(Action, f64)],
) -> Option<(Vec<Neighbour>, f64, Option<&'a str>)> {
    let specs = || {
        parts.iter().filter_map(|(a, _)| match a {
            Action::Flock(spec) => Some(&**spec),
            _ => None,
        })
    };
    // Two flocking parts at least, or nothing to share.
    specs().nth(1)?;
    let radius = specs().map(|s| s.radius).fold(0.0, f64::max);
    let first = specs().next()?;
    let kind = first
        .kind
        .as_deref()
        .filter(|k| specs().all(|s| s.kind.as_deref() == Some(*k)));
    Some((within(world, agent, agent.pos, radius, kind), radius, kind))
}

/// Each part's memory as last tick left it (none on a fresh decision).
pub(crate) fn parts_memory(memory: &MoveMemory, n: usize) -> Vec<MoveMemory> {
    match memory {
        MoveMemory::Parts(kept) if kept.len() == n => kept.clone(),
        _ => vec![MoveMemory::None; n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Target;
    use glam::IVec2;

    #[test]
    fn chase_east_and_evade_from_the_north_head_south_east() {
        let world = World::from_ascii(&["..........", "..........", "..........", ".........."]);
        let agent = Agent::new("a", IVec2::new(3, 1));
        let parts = [
            (
                Action::Chase(Target::Point(glam::DVec2::new(9.0, 1.0))),
                1.0,
            ),
            (
                Action::Evade(Target::Point(glam::DVec2::new(3.0, -3.0))),
                1.0,
            ),
        ];
        let step = blend(&world, &agent, &parts, 0.1, Vec::new());
        assert!(step.delta.x > 0.0 && step.delta.y > 0.0, "{}", step.delta);
        assert!((step.delta.x - step.delta.y).abs() < 1e-9);
        // Clamped to the speed (4 tiles/s, 0.4 a tick), not the sum of two full speeds.
        assert!((step.delta.length() - 0.4).abs() < 1e-9);
    }

    #[test]
    fn flocking_parts_sharing_one_query_ask_what_they_ask_alone() {
        use crate::world::{FlockRule, FlockSpec};
        let mut world =
            World::from_ascii(&["..........", "..........", "..........", ".........."]);
        for (k, (x, y)) in [(3, 1), (4, 2), (6, 1), (2, 3), (8, 3)].iter().enumerate() {
            let mut a = Agent::new(format!("b{k}"), IVec2::new(*x, *y));
            a.kind = if k % 2 == 0 {
                "bird".into()
            } else {
                "bat".into()
            };
            a.vel = glam::DVec2::new(k as f64 - 2.0, 1.0);
            world.agents.push(a);
        }
        world.reindex();
        let agent = world.agents[0].clone();
        let flock = |rule, radius, kind: Option<&str>| {
            let kind = kind.map(String::from);
            Action::Flock(Box::new(FlockSpec { rule, radius, kind }))
        };
        let parts = [
            (flock(FlockRule::Separate, 2.0, None), 1.5),
            (flock(FlockRule::Align, 3.0, Some("bird")), 1.0),
            (flock(FlockRule::Cohere, 5.0, None), 0.7),
        ];
        let dt = world.dt();
        let alone: glam::DVec2 = parts
            .iter()
            .map(|(a, w)| {
                let s = part(&world, &agent, a, &MoveMemory::None, None, &mut false, dt);
                s.delta / dt * *w
            })
            .sum();
        let step = blend(&world, &agent, &parts, dt, Vec::new());
        let want = alone.clamp_length_max(agent.speed) * dt;
        assert_eq!(
            step.delta.to_array().map(f64::to_bits),
            want.to_array().map(f64::to_bits)
        );
        assert!(step.delta != glam::DVec2::ZERO);
    }
}
