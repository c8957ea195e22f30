//! Weighted blending of steering behaviours (Reynolds 1999, "combining behaviors": a linear
//! combination of the steering each behaviour asks for, truncated to the top speed): the sum
//! of weight x the velocity each part asks for this tick (tiles/s), clamped to the agent's
//! speed. Each part keeps its own memory (`MoveMemory::Parts`); the shapes show each part's
//! weighted velocity (a `Part(k)` vector labelled with its number, name and weight) and the
//! sum (a `Force` vector).

use super::{part, Step};
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
    let kept = parts_memory(&agent.memory, parts.len());
    let mut memories = Vec::with_capacity(parts.len());
    let mut rng: Option<Box<ChaCha8Rng>> = None;
    let (mut route, mut routed) = (None, false);
    let mut sum = DVec2::ZERO;
    for (k, ((action, weight), memory)) in parts.iter().zip(kept).enumerate() {
        let ask = part(
            world,
            agent,
            action,
            &memory,
            rng.as_deref(),
            &mut routed,
            dt,
        );
        let weighted = ask.delta / dt * *weight;
        sum += weighted;
        let role = Role::Part(k.min(u8::MAX as usize) as u8);
        shapes.push(Shape::Vector {
            role,
            from: agent.pos,
            delta: weighted,
        });
        shapes.push(Shape::Label {
            role,
            at: agent.pos + weighted,
            text: format!("{} {} x{}", k + 1, action.name(), weight),
        });
        memories.push(ask.memory);
        rng = ask.rng.or(rng);
        route = ask.route.or(route);
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
        memory: MoveMemory::Parts(memories),
        rng,
        ..Default::default()
    }
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
}
