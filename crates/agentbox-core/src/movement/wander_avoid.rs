//! Random-movement obstacle avoidance (Bourg & Seemann, *AI for Game Developers*, ch. 6
//! "Basic Pathfinding and Waypoints"): if the target is in line of sight, step straight towards
//! it (the next cell of the Bresenham line); otherwise step in a random direction. The random
//! directions come from the agent's own seeded stream, so a run repeats exactly.
//!
//! Free agents run straight at the target while it is in sight, and otherwise keep a random
//! compass heading for [`HOLD_SECONDS`] (or until a wall is right ahead) before drawing another.

use super::dirs::{can_step, DIR4, DIR8};
use super::tiles::TileCtx;
use crate::nav::{line_of_sight, Line};
use crate::world::{centre_of, rng, tile_of, Agent, MoveMemory, Role, Shape, Tile, World};
use glam::DVec2;
use rand_chacha::ChaCha8Rng;

/// How long a free agent keeps one random heading, in seconds.
pub const HOLD_SECONDS: f64 = 0.5;

/// How many random directions are drawn before standing still for a step.
const RANDOM_TRIES: usize = 8;

/// The next tile. A goal far off the map is aimed at as the nearest tile just off it
/// ([`World::bound_tile`]).
pub fn next(ctx: &mut TileCtx, goal: Tile) -> Option<Tile> {
    let at = ctx.at;
    let goal = ctx.world.bound_tile(goal);
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
        return Line::new(at, goal).nth(1);
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

/// A free agent's displacement this tick towards `goal` (a position, bounded to within a tile
/// of the map; one that is not finite means standing still), updating its memory and random
/// stream; with the shapes explaining it.
pub fn free_step(
    world: &World,
    agent: &Agent,
    goal: DVec2,
    reach: f64,
    memory: &mut MoveMemory,
    rng: &mut ChaCha8Rng,
) -> (DVec2, Vec<Shape>) {
    let Some(goal) = world.bound_pos(goal) else {
        return (DVec2::ZERO, Vec::new());
    };
    let at = tile_of(agent.pos);
    let mut shapes = vec![Shape::Line {
        role: Role::Los,
        from: agent.pos,
        to: goal,
    }];
    if line_of_sight(world, at, tile_of(goal)) {
        *memory = MoveMemory::None;
        return (super::chase::chase(agent.pos, goal, reach), shapes);
    }
    let (mut direction, mut ticks_left) = match memory {
        MoveMemory::Wander {
            direction,
            ticks_left,
        } => (*direction, *ticks_left),
        _ => (0, 0),
    };
    let blocked_ahead = !can_step(world, at, at + DIR8[direction]);
    if ticks_left == 0 || blocked_ahead {
        for _ in 0..RANDOM_TRIES {
            direction = rng::int_in(rng, 0, 7) as usize;
            if can_step(world, at, at + DIR8[direction]) {
                break;
            }
        }
        ticks_left = (HOLD_SECONDS * world.tick_rate as f64).round().max(1.0) as u32;
    }
    *memory = MoveMemory::Wander {
        direction,
        ticks_left: ticks_left - 1,
    };
    let d = DIR8[direction];
    let delta = DVec2::new(d.x as f64, d.y as f64).normalize() * reach;
    shapes.push(Shape::Vector {
        role: Role::Probe,
        from: agent.pos,
        delta: delta / world.dt(),
    });
    (delta, shapes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Agent, MoveMemory, World};
    use glam::IVec2;

    fn decide(world: &World, agent: &mut Agent, goal: Tile) -> Option<Tile> {
        let mut memory = MoveMemory::None;
        let mut shapes = vec![];
        let mut r = Box::new(agent.rng.current());
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
        agent.rng.set(r);
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

    #[test]
    fn free_agents_hold_a_random_heading_and_run_straight_once_they_see() {
        let world = World::from_ascii(&["..........", "....#.....", "....#.....", ".........."]);
        let mut agent = Agent::new("a", IVec2::new(2, 1));
        let goal = DVec2::new(7.0, 1.0);
        let mut memory = MoveMemory::None;
        let mut r = agent.rng.current();
        let (first, _) = free_step(&world, &agent, goal, 0.1, &mut memory, &mut r);
        assert!((first.length() - 0.1).abs() < 1e-12);
        // Held for half a second (15 ticks at 30 per second) while nothing is in the way.
        let MoveMemory::Wander { ticks_left, .. } = memory else {
            panic!("{memory:?}")
        };
        assert_eq!(ticks_left, 14);
        let (second, _) = free_step(&world, &agent, goal, 0.1, &mut memory, &mut r);
        assert_eq!(first, second);
        // In sight: straight at the goal.
        agent.pos = DVec2::new(2.0, 0.0);
        let (seen, _) = free_step(
            &world,
            &agent,
            DVec2::new(7.0, 0.0),
            0.1,
            &mut memory,
            &mut r,
        );
        assert_eq!(seen, DVec2::new(0.1, 0.0));
        assert_eq!(memory, MoveMemory::None);
    }
}
