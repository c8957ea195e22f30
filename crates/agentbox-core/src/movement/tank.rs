//! The tank (a tank-battle A* exercise; see `docs/algorithms.md`, "The tank"): a body of
//! `size` x `size` tiles (4 x 4 in the source) plans with A* over its top-left positions, 4
//! directions, cost 1 per step whatever the terrain, Manhattan estimate, moving only where the
//! whole body fits (river, stone and brick block it as any blocked terrain). The path is compressed
//! into turn-and-drive legs `(direction, distance)` and driven leg by leg: face the leg's
//! direction, drive its distance. With no route the command is dropped: the tank stays put and
//! keeps no route.

use super::follow_route::{is_current, walk};
use super::Step;
use crate::nav::{cache, Algorithm, Diagonal, Heuristic, NoPath, PathOptions};
use crate::world::{Agent, Leg, MoveMemory, Route, RouteKind, Tile, World};

/// The search the source's tank runs, for a body of `size` tiles.
pub fn tank_options(size: u32) -> PathOptions {
    PathOptions {
        diagonal: Diagonal::Never,
        heuristic: Heuristic::Manhattan,
        size: size.max(1),
        ignore_terrain_cost: true,
        algorithm: Algorithm::AStar,
        ..Default::default()
    }
}

/// Compresses a path of 4-neighbour steps into legs: runs of the same direction.
pub fn legs(path: &[Tile]) -> Vec<Leg> {
    let mut out: Vec<Leg> = Vec::new();
    for pair in path.windows(2) {
        let dir = pair[1] - pair[0];
        match out.last_mut() {
            Some(leg) if leg.dir == dir => leg.distance += 1,
            _ => out.push(Leg { dir, distance: 1 }),
        }
    }
    out
}

/// Plans the tank's drive to `goal` on the shared footprint grid of its body size
/// (`nav::cache`), or says why there is none (the command is dropped).
pub fn plan(world: &World, agent: &Agent, goal: Tile) -> Result<Route, NoPath> {
    let (result, reason) = cache::find(world, agent.tile(), goal, &tank_options(agent.size));
    let path = result.path.ok_or(reason.unwrap_or(NoPath::Unreachable))?;
    let legs = legs(&path);
    let mut at = agent.tile();
    let tiles = legs
        .iter()
        .map(|leg| {
            at += leg.dir * leg.distance as i32;
            at
        })
        .collect();
    Ok(Route {
        goal,
        map_version: world.map_version(),
        tiles,
        kind: RouteKind::Tank,
        legs: legs.into(),
        grid: None,
    })
}

/// One tick of driving to `goal`: along the current leg, at most `reach` tiles.
pub fn drive(world: &World, agent: &Agent, goal: Tile, reach: f64) -> Step {
    let route = match &agent.route {
        Some(r) if is_current(world, agent, r, goal, &RouteKind::Tank) => Route::clone(r),
        _ => match plan(world, agent, goal) {
            Ok(r) => r,
            Err(reason) => {
                return Step {
                    memory: MoveMemory::NoPath(reason),
                    ..Default::default()
                }
            }
        },
    };
    let mut step = walk(agent, route, reach);
    if let Some(r) = step.route.as_mut() {
        // A leg is done when its end tile has been reached.
        while r.legs.len() > r.tiles.len() {
            r.legs.pop_front();
        }
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec2, IVec2};

    fn t(x: i32, y: i32) -> IVec2 {
        IVec2::new(x, y)
    }

    #[test]
    fn paths_compress_into_turn_and_drive_legs() {
        let path = [
            t(0, 0),
            t(1, 0),
            t(2, 0),
            t(2, 1),
            t(2, 2),
            t(2, 3),
            t(1, 3),
        ];
        assert_eq!(
            legs(&path),
            vec![
                Leg {
                    dir: t(1, 0),
                    distance: 2
                },
                Leg {
                    dir: t(0, 1),
                    distance: 3
                },
                Leg {
                    dir: t(-1, 0),
                    distance: 1
                },
            ]
        );
        assert!(legs(&[t(3, 3)]).is_empty());
    }

    /// A 2x2 tank: the gap in the brick wall is one tile wide at the top, two at the bottom.
    fn yard() -> World {
        World::from_ascii(&[
            "........", "...#....", "...#....", "........", "...#....", "........", "........",
        ])
    }

    #[test]
    fn the_body_only_goes_where_it_fits_and_moves_in_four_directions() {
        let world = yard();
        let mut tank = Agent::new("tank", t(0, 1));
        tank.size = 2;
        let route = plan(&world, &tank, t(6, 1)).unwrap();
        assert!(route.legs.iter().all(|l| l.dir.abs().element_sum() == 1));
        // Replay the legs: every position fits the 2x2 body.
        let mut at = tank.tile();
        for leg in &route.legs {
            for _ in 0..leg.distance {
                at += leg.dir;
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    assert!(!world.is_blocked(at + t(dx, dy)), "body on a wall at {at}");
                }
            }
        }
        assert_eq!(at, t(6, 1));
        let steps: u32 = route.legs.iter().map(|l| l.distance).sum();
        // Down to row 5 under the wall... shortest 4-direction route for the body.
        assert_eq!(steps, 6 + 2 * 4);
    }

    #[test]
    fn driving_follows_the_legs_and_no_route_drops_the_command() {
        let world = yard();
        let mut tank = Agent::new("tank", t(0, 1));
        tank.size = 2;
        for _ in 0..200 {
            let step = drive(&world, &tank, t(6, 1), 0.25);
            assert!(step.delta.x == 0.0 || step.delta.y == 0.0 || step.delta.length() < 0.26);
            tank.pos += step.delta;
            tank.route = step.route;
        }
        assert_eq!(tank.pos, DVec2::new(6.0, 1.0));
        assert!(tank.route.as_ref().unwrap().legs.is_empty());
        // A 3x3 tank cannot pass: no route, no move, nothing kept.
        let mut big = Agent::new("big", t(0, 0));
        big.size = 3;
        let step = drive(&world, &big, t(5, 0), 1.0);
        assert_eq!((step.delta, step.route), (DVec2::ZERO, None));
        assert_eq!(step.memory.no_path(), Some(NoPath::Unreachable));
    }
}
