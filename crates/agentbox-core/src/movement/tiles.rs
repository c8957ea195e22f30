//! The tile-stepping driver: moves an agent from tile centre to tile centre at its speed and
//! asks a tile primitive for the next tile each time it stands on a centre. Free agents running
//! a grid algorithm (tracing, crumbs, roads, walls) use it too.

use super::dirs::can_step;
use super::Step;
use crate::world::{centre_of, tile_of, Agent, MoveMemory, Shape, Tile, World};
use rand_chacha::ChaCha8Rng;

/// Most new tile decisions in one tick (a very fast agent may cross several tiles).
const MAX_DECISIONS_PER_TICK: usize = 4;

/// What a tile primitive sees when it decides the next tile.
pub struct TileCtx<'a> {
    pub world: &'a World,
    pub agent: &'a Agent,
    /// The tile centre the agent stands on.
    pub at: Tile,
    pub memory: &'a mut MoveMemory,
    pub rng: &'a mut ChaCha8Rng,
    /// Shapes explaining the decision (replaces the previous decision's).
    pub shapes: &'a mut Vec<Shape>,
}

/// Moves `agent` by at most `reach` tiles along tile centres chosen by `decide`. A decision
/// of `None`, of the current tile, or of a tile the agent cannot step onto (blocked, not a
/// neighbour, cutting a corner) leaves it standing on its centre this tick.
pub fn drive(
    world: &World,
    agent: &Agent,
    reach: f64,
    decide: &mut dyn FnMut(&mut TileCtx) -> Option<Tile>,
) -> Step {
    let mut memory = agent.memory.clone();
    let mut rng = agent.rng.current();
    let mut shapes = agent.debug.clone();
    let mut pos = agent.pos;
    let mut left = reach;
    let mut stepping = agent.stepping;
    // The tile being stepped to was walled up under the agent (a map edit): go back to the
    // centre it came from instead of pressing against the new wall.
    if stepping.is_some_and(|t| world.is_blocked(t)) {
        stepping = Some(tile_of(pos)).filter(|t| !world.is_blocked(*t));
    }
    // An agent between centres (it was free, or was pushed) first walks to the nearest one.
    if stepping.is_none() && pos.distance(centre_of(tile_of(pos))) > 1e-9 {
        stepping = Some(tile_of(pos));
    }
    let mut decisions = 0;
    loop {
        let target = match stepping {
            Some(t) => t,
            None => {
                if decisions >= MAX_DECISIONS_PER_TICK {
                    break;
                }
                decisions += 1;
                shapes.clear();
                let at = tile_of(pos);
                let mut ctx = TileCtx {
                    world,
                    agent,
                    at,
                    memory: &mut memory,
                    rng: &mut rng,
                    shapes: &mut shapes,
                };
                match decide(&mut ctx) {
                    Some(t) if t != at && can_step(world, at, t) => t,
                    _ => break,
                }
            }
        };
        stepping = Some(target);
        let centre = centre_of(target);
        let dist = pos.distance(centre);
        if dist <= left {
            pos = centre;
            left -= dist;
            stepping = None;
            if left <= 1e-12 {
                break;
            }
        } else {
            pos += (centre - pos) * (left / dist);
            break;
        }
    }
    Step {
        delta: pos - agent.pos,
        shapes,
        memory,
        stepping,
        // Only a stream that was drawn from is handed back (no copy for the others).
        rng: (rng.get_word_pos() != agent.rng.word_pos()).then(|| Box::new(rng)),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec2, IVec2};

    #[test]
    fn walks_centre_to_centre_at_its_speed() {
        let world = World::from_ascii(&["....."]);
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        let mut decided = vec![];
        for _ in 0..8 {
            let step = drive(&world, &agent, 0.5, &mut |c| {
                decided.push(c.at);
                Some(c.at + IVec2::X)
            });
            agent.pos += step.delta;
            agent.stepping = step.stepping;
            assert!((step.delta.length() - 0.5).abs() < 1e-12);
        }
        assert_eq!(agent.pos, DVec2::new(4.0, 0.0));
        // One decision per tile centre reached.
        assert_eq!(decided.len(), 4);
    }

    #[test]
    fn a_step_into_a_tile_walled_up_meanwhile_turns_back() {
        let mut world = World::from_ascii(&["...."]);
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        agent.pos = DVec2::new(0.3, 0.0);
        agent.stepping = Some(IVec2::new(1, 0));
        let wall = world.terrain().by_name("wall").unwrap();
        world.set_terrain(IVec2::new(1, 0), wall);
        let step = drive(&world, &agent, 0.1, &mut |_| None);
        assert!((step.delta - DVec2::new(-0.1, 0.0)).length() < 1e-12);
        assert_eq!(step.stepping, Some(IVec2::new(0, 0)));
    }

    #[test]
    fn a_blocked_choice_means_standing_still() {
        let world = World::from_ascii(&[".#"]);
        let agent = Agent::new("a", IVec2::new(0, 0));
        let step = drive(&world, &agent, 0.5, &mut |c| Some(c.at + IVec2::X));
        assert_eq!(step.delta, DVec2::ZERO);
    }
}
