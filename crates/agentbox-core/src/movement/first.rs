//! Priority arbitration (Reynolds 1999, "combining behaviors", the prioritised alternative to
//! blending): the parts are asked in order and the first that asks for a non-zero velocity
//! is taken; when none does, the agent stands still. Parts asked keep their new memory, the
//! others what they had.

use super::blend::parts_memory;
use super::{part, Step};
use crate::world::{Action, Agent, MoveMemory, Role, Shape, World};
use rand_chacha::ChaCha8Rng;

/// One tick of `move.first{ACTION, ...}` for `agent`, drawing into `shapes`.
pub fn first(
    world: &World,
    agent: &Agent,
    parts: &[Action],
    dt: f64,
    mut shapes: Vec<Shape>,
) -> Step {
    let mut memories = parts_memory(&agent.memory, parts.len());
    let mut rng: Option<Box<ChaCha8Rng>> = None;
    let mut routed = false;
    for (k, action) in parts.iter().enumerate() {
        let ask = part(
            world,
            agent,
            action,
            &memories[k],
            rng.as_deref(),
            &mut routed,
            dt,
        );
        memories[k] = ask.memory;
        rng = ask.rng.or(rng);
        if ask.delta.length_squared() > 1e-18 && ask.delta.is_finite() {
            shapes.extend(ask.shapes);
            // The part that steered, in its colour.
            shapes.push(Shape::Vector {
                role: Role::Part(k.min(u8::MAX as usize) as u8),
                from: agent.pos,
                delta: ask.delta / dt,
            });
            return Step {
                delta: ask.delta,
                route: ask.route,
                shapes,
                memory: MoveMemory::Parts(memories),
                rng,
                ..Default::default()
            };
        }
    }
    Step {
        shapes,
        memory: MoveMemory::Parts(memories),
        rng,
        ..Default::default()
    }
}
