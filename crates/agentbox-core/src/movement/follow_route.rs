//! A* route following (see `docs/algorithms.md`, "A*"): plan a route to a goal tile with
//! [`crate::nav::Search`] (the agent's body size and the action's options) and walk it tile centre
//! by tile centre. The route is kept across ticks and planned again when the goal, the options or
//! the map change, or when the agent has been pushed off it. Planning uses the shared grid of
//! the map and the body size (`nav::cache`). With no route the agent stands still and
//! remembers why ([`MoveMemory::NoPath`]: the goal is blocked, unreachable or off the map).

use crate::nav::{cache, NoPath, PathOptions};
use crate::world::{centre_of, Agent, MoveMemory, Role, Route, RouteKind, Shape, Tile, World};
use glam::DVec2;
use std::collections::VecDeque;

use super::Step;

/// One tick of following a route to `goal`, moving at most `reach` along it.
pub fn follow(world: &World, agent: &Agent, goal: Tile, opts: &PathOptions, reach: f64) -> Step {
    let kind = RouteKind::AStar(PathOptions {
        size: opts.size.max(agent.size),
        ..*opts
    });
    let route = match &agent.route {
        Some(r) if is_current(world, agent, r, goal, &kind) => Route::clone(r),
        _ => match plan(world, agent, goal, opts) {
            Ok(r) => r,
            Err(reason) => {
                return Step {
                    delta: DVec2::ZERO,
                    route: None,
                    memory: MoveMemory::NoPath(reason),
                    ..Default::default()
                }
            }
        },
    };
    walk(agent, route, reach)
}

/// Whether a kept route still serves: same planner and goal, same map, agent still on it.
pub fn is_current(world: &World, agent: &Agent, r: &Route, goal: Tile, kind: &RouteKind) -> bool {
    r.goal == goal
        && r.map_version == world.map_version()
        && r.kind == *kind
        && on_route(world, agent, r)
}

/// Walks along the polyline of tile centres, spending the whole reach.
pub fn walk(agent: &Agent, mut route: Route, reach: f64) -> Step {
    let mut pos = agent.pos;
    let mut left = reach;
    while let Some(&next) = route.tiles.front() {
        let target = centre_of(next);
        let dist = pos.distance(target);
        if dist <= left {
            pos = target;
            left -= dist;
            route.tiles.pop_front();
        } else {
            pos += (target - pos) * (left / dist);
            left = 0.0;
            break;
        }
    }
    // Every tile passed, yet not on the goal: the last move was changed after this primitive
    // (avoidance, max_force). Finish the way to the goal's centre.
    let goal = centre_of(route.goal);
    if route.tiles.is_empty() && left > 0.0 && pos != goal {
        pos = pos + super::chase::chase(pos, goal, left);
    }
    let mut shapes = vec![Shape::Cells {
        role: Role::Path,
        cells: match &route.grid {
            // A smoothed route: the grid path it was cut from, under its legs.
            Some(grid) => grid.to_vec(),
            None => route.tiles.iter().copied().collect(),
        },
    }];
    if route.grid.is_some() {
        // The smoothed route as the straight legs the agent walks.
        let corners = std::iter::once(pos).chain(route.tiles.iter().map(|&t| centre_of(t)));
        let legs: Vec<DVec2> = corners.collect();
        shapes.extend(legs.windows(2).map(|w| Shape::Line {
            role: Role::Path,
            from: w[0],
            to: w[1],
        }));
    }
    Step {
        delta: pos - agent.pos,
        route: Some(Box::new(route)),
        shapes,
        ..Default::default()
    }
}

/// Whether the agent is still within reach of the route's next tile (it may have been blocked
/// or pushed); on a smoothed route, whose corners may be far apart, whether it still sees
/// the next corner.
fn on_route(world: &World, agent: &Agent, route: &Route) -> bool {
    let smooth = matches!(&route.kind, RouteKind::AStar(o) if o.smooth);
    route.tiles.front().is_none_or(|&t| {
        agent.pos.distance(centre_of(t)) <= 1.5
            || (smooth && crate::nav::line_of_sight(world, agent.tile(), t))
    })
}

fn plan(world: &World, agent: &Agent, goal: Tile, opts: &PathOptions) -> Result<Route, NoPath> {
    let opts = PathOptions {
        size: opts.size.max(agent.size),
        ..*opts
    };
    let (result, reason) = cache::find(world, agent.tile(), goal, &opts);
    let mut path = result.path.ok_or(reason.unwrap_or(NoPath::Unreachable))?;
    let mut grid = None;
    if opts.smooth {
        let corners = super::smooth::smooth(world, &path, agent.radius);
        grid = Some(std::mem::replace(&mut path, corners).into_boxed_slice());
    }
    Ok(Route {
        goal,
        map_version: world.map_version(),
        tiles: path.into_iter().collect::<VecDeque<_>>(),
        kind: RouteKind::AStar(opts),
        legs: VecDeque::new(),
        grid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::Diagonal;
    use glam::IVec2;

    #[test]
    fn walks_the_planned_route_around_a_wall() {
        let world = World::from_ascii(&["....", ".##.", "...."]);
        let mut agent = Agent::new("a", IVec2::new(0, 1));
        let goal = IVec2::new(3, 1);
        let o = PathOptions::default();
        for _ in 0..40 {
            let step = follow(&world, &agent, goal, &o, 0.25);
            agent.pos += step.delta;
            agent.route = step.route;
            assert!(!world.circle_hits_wall(agent.pos, 0.3), "{:?}", agent.pos);
        }
        assert_eq!(agent.pos, DVec2::new(3.0, 1.0));
    }

    #[test]
    fn no_route_means_no_move() {
        let world = World::from_ascii(&[".#."]);
        let agent = Agent::new("a", IVec2::new(0, 0));
        let step = follow(
            &world,
            &agent,
            IVec2::new(2, 0),
            &PathOptions::default(),
            1.0,
        );
        assert_eq!(step.delta, DVec2::ZERO);
        assert_eq!(step.route, None);
        assert_eq!(step.memory.no_path(), Some(NoPath::Unreachable));
        let why = |goal| {
            follow(&world, &agent, goal, &PathOptions::default(), 1.0)
                .memory
                .no_path()
        };
        assert_eq!(why(IVec2::new(1, 0)), Some(NoPath::Blocked));
        assert_eq!(why(IVec2::new(0, 3)), Some(NoPath::OffMap));
        assert_eq!(why(IVec2::new(0, 0)), None);
    }

    #[test]
    fn options_shape_the_route_and_a_change_replans() {
        let world = World::from_ascii(&["...", "...", "..."]);
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        let four = PathOptions {
            diagonal: Diagonal::Never,
            ..Default::default()
        };
        let step = follow(&world, &agent, IVec2::new(2, 2), &four, 0.0);
        // The start tile is passed at once: 4 steps left without diagonals, 2 with them.
        assert_eq!(step.route.as_ref().unwrap().tiles.len(), 4);
        agent.route = step.route;
        let step = follow(
            &world,
            &agent,
            IVec2::new(2, 2),
            &PathOptions::default(),
            0.0,
        );
        assert_eq!(
            step.route.unwrap().tiles.len(),
            2,
            "diagonal steps after the change"
        );
    }
}
