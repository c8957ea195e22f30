//! Random-movement obstacle avoidance (seed 003 "Random Movement Obstacle Avoidance",
//! ALGORITHMS.md): if the target is in line of sight, step straight towards it (the next cell
//! of the Bresenham line); otherwise step in a random direction. The random directions come
//! from the agent's own seeded stream, so a run repeats exactly.

use super::dirs::{can_step, DIR4, DIR8};
use super::tiles::TileCtx;
use crate::nav::{bresenham, line_of_sight};
use crate::world::{centre_of, rng, Role, Shape, Tile};

/// How many random directions are drawn before standing still for a step.
const RANDOM_TRIES: usize = 8;

/// The next tile.
pub fn next(ctx: &mut TileCtx, goal: Tile) -> Option<Tile> {
    let at = ctx.at;
    if at == goal {
        return None;
    }
    let seen = line_of_sight(ctx.world, at, goal);
    ctx.shapes.push(Shape::Line {
        role: Role::Los,
        from: centre_of(at),
        to: centre_of(goal),
    });
    if seen {
        return bresenham(at, goal).get(1).copied();
    }
    let diagonal = ctx.agent.motion.diagonal();
    for _ in 0..RANDOM_TRIES {
        let to = if diagonal {
            at + DIR8[rng::int_in(ctx.rng, 0, 7) as usize]
        } else {
            at + DIR4[rng::int_in(ctx.rng, 0, 3) as usize]
        };
        if can_step(ctx.world, at, to) {
            ctx.shapes.push(Shape::Cells {
                role: Role::Probe,
                cells: vec![to],
            });
            return Some(to);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Agent, MoveMemory, World};
    use glam::IVec2;

    fn decide(world: &World, agent: &mut Agent, goal: Tile) -> Option<Tile> {
        let mut memory = MoveMemory::None;
        let mut shapes = vec![];
        let mut r = agent.rng.clone();
        let at = agent.tile();
        let t = next(
            &mut TileCtx {
                world,
                agent,
                at,
                memory: &mut memory,
                rng: &mut r,
                shapes: &mut shapes,
            },
            goal,
        );
        agent.rng = r;
        t
    }

    #[test]
    fn straight_when_seen_random_when_hidden() {
        let world = World::from_ascii(&["......", "..#...", "......"]);
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        assert_eq!(
            decide(&world, &mut agent, IVec2::new(5, 0)),
            Some(IVec2::new(1, 0))
        );
        // Hidden behind the wall: random, but the same stream gives the same choices.
        let mut a1 = Agent::new("a", IVec2::new(1, 1));
        let mut a2 = Agent::new("a", IVec2::new(1, 1));
        let mut picks = std::collections::BTreeSet::new();
        for _ in 0..40 {
            let p = decide(&world, &mut a1, IVec2::new(4, 1));
            assert_eq!(p, decide(&world, &mut a2, IVec2::new(4, 1)));
            let p = p.expect("a free neighbour exists");
            assert!(can_step(&world, IVec2::new(1, 1), p));
            picks.insert((p.x, p.y));
        }
        assert!(picks.len() >= 4, "random directions vary: {picks:?}");
    }
}
