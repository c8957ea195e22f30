//! Waypoint travel by node table (Bourg & Seemann, *AI for Game Developers*,
//! ch. 6 "Basic Pathfinding and Waypoints", "Waypoint Navigation"): go to the
//! nearest node in sight, then repeatedly to the table's next node until the node nearest the
//! destination, then to the destination; every leg is walked along its Bresenham line, which
//! line of sight has checked. The route is kept across ticks and planned again when the goal,
//! the map or the waypoints change.

use super::follow_route::{is_current, walk};
use super::Step;
use crate::nav::waypoints;
use crate::world::{Agent, Route, RouteKind, Tile, World};

/// One tick of travelling to `goal` through the waypoints, moving at most `reach`.
pub fn travel(world: &World, agent: &Agent, goal: Tile, reach: f64) -> Step {
    let kind = RouteKind::Waypoints;
    let route = match &agent.route {
        Some(r) if is_current(world, agent, r, goal, &kind) => Route::clone(r),
        _ => {
            let table = waypoints::table(world);
            match waypoints::route_tiles(world, &table, agent.tile(), goal) {
                Some(tiles) => Route {
                    goal,
                    map_version: world.map_version(),
                    tiles: tiles.into(),
                    kind,
                    legs: Default::default(),
                    grid: None,
                },
                None => return Step::default(),
            }
        }
    };
    walk(agent, route, reach)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::line_of_sight;
    use glam::{DVec2, IVec2};

    #[test]
    fn travels_node_to_node_through_the_door() {
        let mut world = World::from_ascii(&[
            "###########",
            "#....#....#",
            "#.........#",
            "#....#....#",
            "###########",
        ]);
        world.waypoints = vec![IVec2::new(2, 2), IVec2::new(5, 2), IVec2::new(8, 2)];
        let mut agent = Agent::new("a", IVec2::new(1, 1));
        let goal = IVec2::new(9, 3);
        let first = travel(&world, &agent, goal, 0.0).route.unwrap();
        assert!(first.tiles.contains(&IVec2::new(2, 2)) && first.tiles.contains(&IVec2::new(5, 2)));
        for _ in 0..200 {
            let step = travel(&world, &agent, goal, 0.2);
            let before = agent.tile();
            agent.pos += step.delta;
            agent.route = step.route;
            assert!(!world.is_blocked(agent.tile()));
            assert!(line_of_sight(&world, before, agent.tile()));
        }
        assert_eq!(agent.pos, DVec2::new(9.0, 3.0));
    }

    #[test]
    fn no_node_in_sight_means_no_move() {
        let mut world = World::from_ascii(&["..#..", "..#.."]);
        world.waypoints = vec![IVec2::new(4, 0)];
        let agent = Agent::new("a", IVec2::new(0, 0));
        let step = travel(&world, &agent, IVec2::new(4, 1), 1.0);
        assert_eq!((step.delta, step.route), (DVec2::ZERO, None));
    }
}
