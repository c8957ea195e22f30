//! Flow-field following (the crowd pathfinding of Emerson, "Crowd Pathfinding and Steering
//! Using Flow Field Tiles", *Game AI Pro* ch. 23, 2013; fields as in `docs/algorithms.md`):
//! every agent walking to the same goal reads the same Dijkstra field (`nav::flow`), stepping
//! from tile centre to tile centre to the neighbour the field names, so a crowd of any size
//! costs one search per goal tile and map instead of one per agent.
//!
//! The agent first walks to the centre of the tile it stands on (if it is between centres),
//! then from centre to centre; a step is never cut short by a wall, because the field only
//! names steps its diagonal rule allows for the body. It stands still on the goal's tile, and
//! where the goal cannot be reached.

use super::Step;
use crate::nav::flow::{self, FlowField, FlowOptions};
use crate::world::{centre_of, tile_of, Agent, Tile, World};

/// Most tile centres passed in one tick (a very fast agent may cross several).
const MAX_TILES_PER_TICK: usize = 4;

/// The field an agent walking to `goal` reads: its body size, the default diagonal rule.
pub fn field_for(world: &World, agent: &Agent, goal: Tile) -> Option<std::sync::Arc<FlowField>> {
    flow::field(
        world,
        goal,
        FlowOptions {
            size: agent.size,
            ..Default::default()
        },
    )
}

/// One tick of walking `agent` at most `reach` tiles along `field`.
pub fn walk(world: &World, agent: &Agent, field: &FlowField, reach: f64) -> Step {
    let mut pos = agent.pos;
    let mut left = reach;
    // The tile being stepped to: kept across ticks (`agent.stepping`) unless it was walled up
    // under the agent (a map edit), when the agent goes back to the centre of its own tile.
    let mut stepping = agent
        .stepping
        .filter(|&t| !world.is_blocked(t))
        .or_else(|| {
            let here = tile_of(pos);
            (pos.distance(centre_of(here)) > 1e-9).then_some(here)
        });
    let mut passed = 0;
    loop {
        let target = match stepping {
            Some(t) => t,
            None => {
                if passed >= MAX_TILES_PER_TICK {
                    break;
                }
                passed += 1;
                match field.next(tile_of(pos)) {
                    Some(t) => t,
                    None => break,
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
        stepping,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::slide::slide;
    use glam::IVec2;

    /// On a maze, an agent walking the field reaches the goal and no wall ever cuts its move.
    #[test]
    fn walks_a_maze_to_the_goal_without_touching_a_wall() {
        let world = World::from_ascii(&[
            "#########",
            "#...#...#",
            "#.#.#.#.#",
            "#.#...#.#",
            "#.#####.#",
            "#.......#",
            "#########",
        ]);
        let goal = IVec2::new(5, 1);
        let mut agent = Agent::new("a", IVec2::new(1, 1));
        agent.speed = 7.0;
        let field = field_for(&world, &agent, goal).unwrap();
        let dt = world.dt();
        for _ in 0..400 {
            let s = walk(&world, &agent, &field, agent.speed * dt);
            let to = slide(&world, agent.pos, agent.radius, s.delta);
            assert!(
                (to - (agent.pos + s.delta)).length() < 1e-12,
                "cut at {}",
                agent.pos
            );
            agent.pos = to;
            agent.stepping = s.stepping;
        }
        assert_eq!(agent.pos, centre_of(goal));
    }
}
