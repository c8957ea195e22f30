//! Movement primitives: how an agent executes its [`Action`] for one tick.
//!
//! Each primitive is a pure function in its own file (naming its published source in its doc)
//! that returns how far to move this tick, the state it keeps across ticks (a route, a
//! Bresenham path, a tracing start, a direction) and debug shapes for the overlays; the
//! simulation applies the move and resolves walls with `slide::slide`. Grid algorithms
//! (tracing, crumbs, roads, wall tracing) step from tile centre to tile centre through
//! `tiles::drive` whatever the agent's motion; line-of-sight chase and random avoidance step on
//! tiles for tile agents and move continuously for free ones; continuous primitives (chase,
//! evade, intercept, potentials) move freely, or pick the best neighbour tile for
//! tile-stepping agents. Nothing
//! here draws, reads input or names mlua, macroquad or notify.

pub(crate) mod adjust;
pub(crate) mod align;
pub(crate) mod arrive;
pub(crate) mod avoid_walls;
pub(crate) mod basic_chase;
pub(crate) mod basic_evade;
pub(crate) mod blend;
pub(crate) mod chase;
pub(crate) mod cohere;
pub mod crumbs;
pub(crate) mod dirs;
pub(crate) mod evade;
pub(crate) mod first;
pub(crate) mod flow_to;
pub(crate) mod follow;
pub(crate) mod follow_path;
pub(crate) mod follow_route;
pub(crate) mod force;
pub(crate) mod go_to;
pub(crate) mod intercept;
pub(crate) mod los_chase;
pub(crate) mod neighbours;
pub mod orca;
pub mod potential;
pub(crate) mod road;
pub(crate) mod separate;
pub(crate) mod slide;
pub mod smooth;
pub(crate) mod steer;
pub(crate) mod tank;
pub(crate) mod tiles;
pub(crate) mod trace;
pub(crate) mod turn;
pub(crate) mod walk;
pub(crate) mod wall_trace;
pub(crate) mod wander;
pub(crate) mod wander_avoid;
pub(crate) mod waypoints;

/// ORCA's neighbour choice, for the steering bench to weigh exactly the same neighbours.
pub use adjust::{neighbours as orca_neighbours, MAX_NEIGHBOURS};

use crate::world::{
    centre_of, tile_of, Action, Agent, MoveMemory, Role, Route, Shape, Tile, World,
};
use glam::DVec2;
use rand_chacha::ChaCha8Rng;

/// The outcome of one primitive for one tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// Desired displacement this tick, in tiles (before walls are resolved).
    pub delta: DVec2,
    /// The route to keep following next tick (route-following primitives only; boxed so the
    /// step every other agent returns stays small).
    pub route: Option<Box<Route>>,
    /// What to draw to explain this step (stored on the agent as `agent.debug`).
    pub shapes: Vec<Shape>,
    /// What the primitive remembers for next tick (stored as `agent.memory`).
    pub memory: MoveMemory,
    /// The tile centre a tile step is heading for (stored as `agent.stepping`).
    pub stepping: Option<Tile>,
    /// The agent's movement random stream after this step, if the primitive drew from it
    /// (boxed: few primitives draw, and a step is moved through a buffer every tick).
    pub rng: Option<Box<ChaCha8Rng>>,
    /// The next index of a keyboard agent's scripted route, if it walked.
    pub walk_next: Option<usize>,
}

/// Runs the agent's current action for one fixed step of `dt` seconds.
pub fn step(world: &World, agent: &Agent, dt: f64) -> Step {
    step_with(world, agent, dt, Vec::new())
}

/// [`step`], drawing the shapes of a free agent's continuous primitive into `shapes` (an empty
/// buffer, so the simulation can hand back last tick's instead of allocating a new one).
pub fn step_with(world: &World, agent: &Agent, dt: f64, mut shapes: Vec<Shape>) -> Step {
    shapes.clear();
    let reach = agent.speed * dt;
    let tile_target = |t: &crate::world::Target| world.target_pos(t).map(tile_of);
    match &agent.action {
        Action::PathTo(goal, opts) => follow_route::follow(world, agent, *goal, opts, reach),
        Action::Waypoints(goal) => waypoints::travel(world, agent, *goal, reach),
        Action::TankTo(goal) => tank::drive(world, agent, *goal, reach),
        Action::FlowTo(target) => {
            match tile_target(target).and_then(|goal| flow_to::field_for(world, agent, goal)) {
                Some(field) => flow_to::walk(world, agent, &field, reach),
                None => Step::default(),
            }
        }
        Action::Blend(parts) => blend::blend(world, agent, parts, dt, shapes),
        Action::First(parts) => first::first(world, agent, parts, dt, shapes),
        Action::Wander { rate, strength } => wander_step(agent, *rate, *strength, dt),
        Action::FollowPath(path) => follow_path_step(world, agent, path, reach),
        Action::Follow { leader, offset } => follow_step(world, agent, leader, *offset, dt, shapes),
        Action::Walk => {
            let (delta, next) = walk::walk(agent.pos, &agent.walk, reach);
            Step {
                delta,
                walk_next: Some(next),
                ..Default::default()
            }
        }
        Action::LosChase(target) if agent.motion.is_tiles() => match tile_target(target) {
            Some(goal) => tiles::drive(world, agent, reach, &mut |c| los_chase::next(c, goal)),
            None => Step::default(),
        },
        Action::WanderAvoid(target) if !agent.motion.is_tiles() => match world.target_pos(target) {
            Some(goal) => wander_free(world, agent, goal, reach),
            None => Step::default(),
        },
        Action::WanderAvoid(target) => match tile_target(target) {
            Some(goal) => tiles::drive(world, agent, reach, &mut |c| wander_avoid::next(c, goal)),
            None => Step::default(),
        },
        Action::TraceAround {
            goal,
            variant,
            hand,
        } => match tile_target(goal) {
            Some(goal) => tiles::drive(world, agent, reach, &mut |c| {
                trace::next(c, goal, *variant, *hand)
            }),
            None => Step::default(),
        },
        Action::FollowCrumbs { leader, trail } => tiles::drive(world, agent, reach, &mut |c| {
            crumbs::next(c, leader, *trail)
        }),
        Action::FollowRoad { terrain } => {
            tiles::drive(world, agent, reach, &mut |c| road::next(c, terrain))
        }
        Action::WallTrace(hand) => {
            tiles::drive(world, agent, reach, &mut |c| wall_trace::next(c, *hand))
        }
        Action::BasicChase(target) | Action::BasicEvade(target) if agent.motion.is_tiles() => {
            match tile_target(target) {
                Some(goal) => basic_on_tiles(world, agent, goal, reach),
                None => Step::default(),
            }
        }
        _ if agent.motion.is_tiles() => continuous_on_tiles(world, agent, reach, dt),
        _ => continuous_free(world, agent, reach, dt, shapes),
    }
}

/// What one part of a `move.blend` or `move.first` asks for this tick, with `memory` its own
/// memory and `rng` the agent's stream as the parts before it left it. A part that keeps
/// state (wander, the planned and path primitives, nested blends) runs as the agent would
/// with that action; `routed` says whether an earlier part already holds the agent's route
/// (only the first planned part keeps it between ticks). A tile-stepping primitive asks for
/// nothing (the Lua host refuses it in a blend with a located error).
pub(crate) fn part(
    world: &World,
    agent: &Agent,
    action: &Action,
    memory: &MoveMemory,
    rng: Option<&ChaCha8Rng>,
    routed: &mut bool,
    dt: f64,
) -> Step {
    if action.steps_on_tiles() {
        return Step::default();
    }
    let stateful = matches!(
        action,
        Action::Wander { .. }
            | Action::FollowPath(_)
            | Action::Follow { .. }
            | Action::PathTo(..)
            | Action::Waypoints(_)
            | Action::TankTo(_)
            | Action::FlowTo(_)
            | Action::WanderAvoid(_)
            | Action::Blend(_)
            | Action::First(_)
    );
    if !stateful {
        let mut shapes = Vec::new();
        let reach = agent.speed * dt;
        let delta = continuous(world, agent, action, agent.pos, reach, dt, &mut shapes);
        return Step {
            delta: delta.unwrap_or_default(),
            shapes,
            ..Default::default()
        };
    }
    let mut sub = agent.clone();
    sub.motion = crate::world::Motion::Free;
    sub.turn_rate = None;
    sub.action = action.clone();
    sub.memory = memory.clone();
    if let Some(rng) = rng {
        sub.rng.set(Box::new(rng.clone()));
    }
    let planned = matches!(
        action,
        Action::PathTo(..) | Action::Waypoints(_) | Action::TankTo(_)
    );
    if planned && !*routed {
        *routed = true;
    } else {
        sub.route = None;
    }
    step_with(world, &sub, dt, Vec::new())
}

/// Smooth wander: the wander point's angle is the memory, the agent's stream moves on.
fn wander_step(agent: &Agent, rate: f64, strength: f64, dt: f64) -> Step {
    let angle = match agent.memory {
        MoveMemory::WanderAngle(a) => a,
        _ => 0.0,
    };
    let mut rng = agent.rng.current();
    let (dir, angle) = wander::wander(agent.facing(), angle, rate, strength, dt, &mut rng);
    Step {
        delta: dir * agent.speed * dt,
        shapes: vec![Shape::Vector {
            role: Role::Force,
            from: agent.pos,
            delta: dir,
        }],
        memory: MoveMemory::WanderAngle(angle),
        rng: Some(Box::new(rng)),
        ..Default::default()
    }
}

/// `follow_path`: the corners are worked out on the first tick and kept in the memory.
fn follow_path_step(
    world: &World,
    agent: &Agent,
    path: &crate::world::TilePath,
    reach: f64,
) -> Step {
    let memory = match &agent.memory {
        m @ MoveMemory::Corners { .. } => m.clone(),
        _ => follow_path::start(world, agent, &path.tiles, path.smooth),
    };
    let MoveMemory::Corners { corners, next } = memory else {
        return Step::default();
    };
    let (delta, next, mut shapes) = follow_path::walk(agent.pos, &corners, next, reach);
    if path.smooth {
        shapes.push(Shape::Cells {
            role: Role::Probe,
            cells: path.tiles.clone(),
        });
    }
    Step {
        delta,
        shapes,
        memory: MoveMemory::Corners { corners, next },
        ..Default::default()
    }
}

/// `follow`: arrive at the slot in the leader's frame (kept while the leader stands).
fn follow_step(
    world: &World,
    agent: &Agent,
    leader: &crate::world::Target,
    offset: DVec2,
    dt: f64,
    mut shapes: Vec<Shape>,
) -> Step {
    let kept = match agent.memory {
        MoveMemory::LeaderFrame(f) => Some(f),
        _ => None,
    };
    let (pos, vel) = match leader {
        crate::world::Target::Agent(r) => match world.resolve(r) {
            Some(i) => (world.agents[i].pos, world.agents[i].vel),
            None => return Step::default(),
        },
        crate::world::Target::Point(p) => match world.bound_pos(*p) {
            Some(p) => (p, DVec2::ZERO),
            None => return Step::default(),
        },
    };
    let frame = follow::frame(vel, kept);
    let slot = follow::slot(pos, frame, offset);
    shapes.push(Shape::Line {
        role: Role::Goal,
        from: pos,
        to: slot,
    });
    let slow = (agent.speed * 0.5).max(0.5);
    Step {
        delta: arrive::arrive(agent.pos, slot, agent.speed, slow, dt),
        shapes,
        memory: MoveMemory::LeaderFrame(frame),
        ..Default::default()
    }
}

/// `wander_avoid` for a free agent towards `goal`: its memory and random stream move on.
fn wander_free(world: &World, agent: &Agent, goal: DVec2, reach: f64) -> Step {
    let mut memory = agent.memory.clone();
    let mut rng = agent.rng.current();
    let (delta, shapes) = wander_avoid::free_step(world, agent, goal, reach, &mut memory, &mut rng);
    Step {
        delta,
        shapes,
        memory,
        rng: Some(Box::new(rng)),
        ..Default::default()
    }
}

/// `basic_chase` or `basic_evade` (the agent's action says which) tile by tile from or to the
/// tile `goal`.
fn basic_on_tiles(world: &World, agent: &Agent, goal: Tile, reach: f64) -> Step {
    let chase = matches!(agent.action, Action::BasicChase(_));
    let diagonal = agent.motion.diagonal();
    tiles::drive(world, agent, reach, &mut |c| {
        c.shapes.push(Shape::Line {
            role: Role::Goal,
            from: centre_of(c.at),
            to: centre_of(goal),
        });
        if chase {
            (c.at != goal).then(|| basic_chase::tile_step(c.at, goal, diagonal))
        } else {
            Some(basic_evade::tile_step(c.at, goal, diagonal))
        }
    })
}

/// A continuous primitive driven tile by tile: its wanted displacement from each tile's
/// centre, quantised to a neighbour.
fn continuous_on_tiles(world: &World, agent: &Agent, reach: f64, dt: f64) -> Step {
    let diagonal = agent.motion.diagonal();
    tiles::drive(world, agent, reach, &mut |c| {
        let from = centre_of(c.at);
        let desired = continuous(world, agent, &agent.action, from, reach, dt, c.shapes)?;
        // Too weak a pull to pick a direction (a potential in balance): stay.
        if desired.length() < reach * 0.05 {
            return None;
        }
        dirs::quantize(world, c.at, desired, diagonal)
    })
}

/// A continuous primitive for a free agent, its turn limited to its turn rate; its shapes
/// drawn into `shapes`.
fn continuous_free(
    world: &World,
    agent: &Agent,
    reach: f64,
    dt: f64,
    mut shapes: Vec<Shape>,
) -> Step {
    let mut delta = continuous(
        world,
        agent,
        &agent.action,
        agent.pos,
        reach,
        dt,
        &mut shapes,
    )
    .unwrap_or_default();
    if let Some(rate) = agent.turn_rate {
        if agent.vel.length_squared() > 1e-18 || delta.length_squared() > 1e-18 {
            delta = turn::limit_turn(agent.heading(), delta, rate * dt);
        }
    }
    Step {
        delta,
        shapes,
        memory: agent.memory.clone(),
        ..Default::default()
    }
}

/// The displacement a continuous primitive wants from `from` this tick, pushing its shapes
/// onto `shapes`; `None` (and no shapes) when its target is gone or is a point that is not
/// finite. Points are bounded to within a tile of the map ([`World::bound_pos`]).
fn continuous(
    world: &World,
    agent: &Agent,
    action: &Action,
    from: DVec2,
    reach: f64,
    dt: f64,
    shapes: &mut Vec<Shape>,
) -> Option<DVec2> {
    let goal_line = |to: DVec2| Shape::Line {
        role: Role::Goal,
        from,
        to,
    };
    Some(match action {
        Action::Stop
        | Action::PathTo(..)
        | Action::Waypoints(_)
        | Action::TankTo(_)
        | Action::FlowTo(_)
        | Action::Walk => DVec2::ZERO,
        Action::Chase(t) | Action::LosChase(t) => {
            let to = world.target_pos(t)?;
            shapes.push(goal_line(to));
            chase::chase(from, to, reach)
        }
        Action::Evade(t) => {
            let threat = world.target_pos(t)?;
            shapes.push(goal_line(threat));
            evade::evade(from, threat, reach)
        }
        Action::To(point) => {
            let point = world.bound_pos(*point)?;
            shapes.push(goal_line(point));
            go_to::go_to(from, point, reach)
        }
        Action::Steer(dir) => steer::steer(*dir, reach),
        Action::BasicChase(t) => {
            let to = world.target_pos(t)?;
            shapes.push(goal_line(to));
            basic_chase::free_step(from, to, reach)
        }
        Action::BasicEvade(t) => {
            let threat = world.target_pos(t)?;
            shapes.push(goal_line(threat));
            basic_evade::free_step(from, threat, reach)
        }
        Action::Intercept(t) => intercept_step(world, agent, t, from, reach, shapes)?,
        Action::EvadeAhead(t, predict) => {
            let threat = world.target_pos(t)? + target_vel(world, t) * *predict;
            shapes.push(goal_line(threat));
            evade::evade(from, threat, reach)
        }
        Action::Arrive(t, slow) => {
            let to = world.target_pos(t)?;
            shapes.push(goal_line(to));
            shapes.push(Shape::Circle {
                role: Role::Goal,
                centre: to,
                radius: *slow,
            });
            arrive::arrive(from, to, agent.speed, *slow, dt)
        }
        Action::Flock(spec) => flock_step(world, agent, spec, from, reach, dt, shapes),
        Action::AvoidWalls { ahead } => {
            let facing = agent.vel.try_normalize().unwrap_or(agent.facing());
            avoid_walls::avoid_walls(
                world,
                from,
                facing,
                agent.radius,
                *ahead,
                agent.speed,
                shapes,
            ) * dt
        }
        // Kept state or parts: run in `step` (and `part` inside a blend).
        Action::Wander { .. }
        | Action::Follow { .. }
        | Action::FollowPath(_)
        | Action::Blend(_)
        | Action::First(_) => DVec2::ZERO,
        Action::Potential(spec) => {
            let (f, force_shapes) = potential::force(world, agent, spec, from);
            shapes.extend(force_shapes);
            potential::free_step(f, agent.speed, dt)
        }
        // Grid primitives are driven tile by tile in `step`.
        Action::WanderAvoid(_)
        | Action::TraceAround { .. }
        | Action::FollowCrumbs { .. }
        | Action::FollowRoad { .. }
        | Action::WallTrace(_) => DVec2::ZERO,
    })
}

/// The velocity a target moves with: an agent's last velocity, a point's none.
fn target_vel(world: &World, t: &crate::world::Target) -> DVec2 {
    match t {
        crate::world::Target::Agent(r) => world
            .resolve(r)
            .map_or(DVec2::ZERO, |i| world.agents[i].vel),
        crate::world::Target::Point(_) => DVec2::ZERO,
    }
}

/// A flocking rule from `from`: the displacement this tick, with the neighbours as probes.
fn flock_step(
    world: &World,
    agent: &Agent,
    spec: &crate::world::FlockSpec,
    from: DVec2,
    reach: f64,
    dt: f64,
    shapes: &mut Vec<Shape>,
) -> DVec2 {
    let near = neighbours::within(world, agent, from, spec.radius, spec.kind.as_deref());
    flock_with(world, agent, spec, &near, from, reach, dt, Some(shapes))
}

/// A flocking rule from `from` over the neighbours `near` (those within its radius, of its
/// kind): the displacement this tick, with the neighbours as probes when `shapes` is given.
#[allow(clippy::too_many_arguments)]
pub(crate) fn flock_with(
    world: &World,
    agent: &Agent,
    spec: &crate::world::FlockSpec,
    near: &[neighbours::Neighbour],
    from: DVec2,
    reach: f64,
    dt: f64,
    shapes: Option<&mut Vec<Shape>>,
) -> DVec2 {
    use crate::world::FlockRule;
    if let Some(shapes) = shapes {
        shapes.push(Shape::Circle {
            role: Role::Probe,
            centre: from,
            radius: spec.radius,
        });
        shapes.extend(near.iter().map(|n| Shape::Line {
            role: Role::Probe,
            from,
            to: n.pos,
        }));
    }
    match spec.rule {
        FlockRule::Separate => {
            let id_of = |i: usize| world.agents[i].id.clone();
            separate::separate(from, &agent.id, near, id_of, agent.speed) * dt
        }
        FlockRule::Align => align::align(near, agent.speed) * dt,
        FlockRule::Cohere => cohere::cohere(from, near, reach),
    }
}

/// The sums the three flocking rules take over one list of neighbours, added up in one pass
/// in the list's order, so each has the bits its rule alone would add up: a blend of
/// separation, alignment and cohesion over shared neighbours walks them once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlockSums {
    push: DVec2,
    vel: DVec2,
    pos: DVec2,
    count: usize,
}

impl FlockSums {
    /// The sums over `near` for `agent` (standing at its position).
    pub(crate) fn over(world: &World, agent: &Agent, near: &[neighbours::Neighbour]) -> Self {
        let id_of = |i: usize| world.agents[i].id.clone();
        let mut sums = FlockSums {
            push: DVec2::ZERO,
            vel: DVec2::ZERO,
            pos: DVec2::ZERO,
            count: near.len(),
        };
        for n in near {
            sums.push += separate::push(agent.pos, &agent.id, n, id_of);
            sums.vel += n.vel;
            sums.pos += n.pos;
        }
        sums
    }

    /// What [`flock_with`] from the agent's position answers for `rule` over the same
    /// neighbours.
    pub(crate) fn delta(
        &self,
        agent: &Agent,
        rule: crate::world::FlockRule,
        reach: f64,
        dt: f64,
    ) -> DVec2 {
        use crate::world::FlockRule;
        match rule {
            FlockRule::Separate => separate::from_push(self.push, agent.speed) * dt,
            FlockRule::Align => align::from_sum(self.vel, self.count, agent.speed) * dt,
            FlockRule::Cohere => cohere::from_sum(agent.pos, self.pos, self.count, reach),
        }
    }
}

/// `intercept` of target `t` from `from`: a chase of the point where the prey, holding its
/// velocity, can be met; `None` when the target is gone.
fn intercept_step(
    world: &World,
    agent: &Agent,
    t: &crate::world::Target,
    from: DVec2,
    reach: f64,
    shapes: &mut Vec<Shape>,
) -> Option<DVec2> {
    let prey = world.target_pos(t)?;
    let prey_vel = match t {
        crate::world::Target::Agent(r) => world
            .resolve(r)
            .map_or(DVec2::ZERO, |i| world.agents[i].vel),
        crate::world::Target::Point(_) => DVec2::ZERO,
    };
    let st = intercept::intercept_point(from, agent.vel, prey, prey_vel);
    shapes.push(Shape::Line {
        role: Role::Goal,
        from,
        to: st,
    });
    shapes.push(Shape::Circle {
        role: Role::Goal,
        centre: st,
        radius: 0.3,
    });
    shapes.push(Shape::Vector {
        role: Role::Force,
        from: prey,
        delta: prey_vel,
    });
    Some(chase::chase(from, st, reach))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Motion, Target};
    use glam::IVec2;

    /// Runs `ticks` steps of one agent's action alone in a world, applying only the step.
    fn run(world: &World, mut agent: Agent, ticks: usize) -> Vec<Agent> {
        let dt = world.dt();
        let mut out = vec![];
        for _ in 0..ticks {
            let s = step(world, &agent, dt);
            agent.pos += s.delta;
            if s.delta.length_squared() > 0.0 {
                agent.face(s.delta);
            }
            agent.vel = s.delta / dt;
            agent.memory = s.memory;
            agent.stepping = s.stepping;
            out.push(agent.clone());
        }
        out
    }

    #[test]
    fn evade_with_prediction_flees_where_the_threat_will_be() {
        let mut world = World::from_ascii(&["....................", "...................."]);
        let mut threat = Agent::new("threat", IVec2::new(5, 1));
        threat.vel = DVec2::new(1.0, 0.0);
        world.agents.push(threat);
        world.reindex();
        let mut agent = Agent::new("a", IVec2::new(7, 1));
        let t = Target::Agent(crate::world::AgentRef::new("threat", 0));
        agent.action = Action::Evade(t.clone());
        assert!(step(&world, &agent, 0.1).delta.x > 0.0);
        // In 4 s the threat will be at x 9, past the agent: flee west.
        agent.action = Action::EvadeAhead(t, 4.0);
        assert!(step(&world, &agent, 0.1).delta.x < 0.0);
    }

    #[test]
    fn steering_actions_describe_themselves_as_a_script_writes_them() {
        use crate::world::{FlockRule, FlockSpec};
        let flag = || Target::Point(DVec2::new(3.0, 4.0));
        let cases = [
            (Action::Arrive(flag(), 2.0), "arrive 3.00, 4.00 {slow = 2}"),
            (
                Action::Wander {
                    rate: 3.0,
                    strength: 0.5,
                },
                "wander {rate = 3, strength = 0.5}",
            ),
            (
                Action::Flock(Box::new(FlockSpec {
                    rule: FlockRule::Cohere,
                    radius: 5.0,
                    kind: Some("bird".into()),
                })),
                "cohere {radius = 5, kind = \"bird\"}",
            ),
            (
                Action::Blend(Box::new([
                    (Action::Chase(flag()), 1.5),
                    (Action::Stop, 1.0),
                ])),
                "blend {{chase 3.00, 4.00, 1.5}, {stop, 1}}",
            ),
            (
                Action::First(Box::new([
                    Action::AvoidWalls { ahead: 2.0 },
                    Action::To(DVec2::ONE),
                ])),
                "first {avoid_walls {ahead = 2}, to 1.00, 1.00}",
            ),
        ];
        for (action, text) in cases {
            assert_eq!(action.describe(), text);
        }
    }

    #[test]
    fn tile_agents_run_continuous_primitives_on_tile_lines() {
        let world = World::from_ascii(&["..........", "..........", "..........", ".........."]);
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        agent.motion = Motion::Tiles { diagonal: false };
        agent.action = Action::Chase(Target::Point(DVec2::new(7.0, 3.0)));
        let path = run(&world, agent, 120);
        for a in &path {
            assert!(
                a.pos.x.fract() == 0.0 || a.pos.y.fract() == 0.0,
                "{}",
                a.pos
            );
        }
        assert_eq!(path.last().unwrap().pos, DVec2::new(7.0, 3.0));
    }

    /// Every action that takes a point, with hostile points.
    fn point_actions(p: DVec2) -> Vec<Action> {
        use crate::world::{Hand, LennardJones, PotentialSpec, TraceVariant};
        let t = || Target::Point(p);
        let lj = LennardJones {
            a: 200.0,
            b: 50.0,
            n: 1.0,
            m: 2.0,
        };
        let mut actions = vec![
            Action::To(p),
            Action::Chase(t()),
            Action::Evade(t()),
            Action::BasicChase(t()),
            Action::BasicEvade(t()),
            Action::LosChase(t()),
            Action::Intercept(t()),
            Action::WanderAvoid(t()),
            Action::Potential(Box::new(PotentialSpec {
                target: Some(t()),
                lj,
                swarm: None,
                swarm_lj: lj,
                obstacle: 2.0,
                // A range no script may give (they stop at 64): the wall probe stays on the map.
                range: 1e12,
            })),
        ];
        for variant in [
            TraceVariant::Basic,
            TraceVariant::Improved,
            TraceVariant::Sight,
        ] {
            actions.push(Action::TraceAround {
                goal: t(),
                variant,
                hand: Hand::Left,
            });
        }
        // Tile actions hold integers: far ones (a point's tile, saturated) only.
        if p.is_finite() {
            let far = tile_of(p);
            actions.push(Action::PathTo(far, Box::default()));
            actions.push(Action::Waypoints(far));
            actions.push(Action::TankTo(far));
        }
        actions
    }

    /// The cells a primitive keeps in its memory or shapes, as a measure of what it built.
    fn kept_cells(agent: &Agent) -> usize {
        let memory = match &agent.memory {
            MoveMemory::LosPath { cells, .. } => cells.len(),
            MoveMemory::Trace(st) => match &st.mode {
                crate::world::TraceMode::Sighted(path) => path.len(),
                _ => 0,
            },
            _ => 0,
        };
        let shapes: usize = agent
            .debug
            .iter()
            .map(|s| match s {
                Shape::Cells { cells, .. } => cells.len(),
                _ => 1,
            })
            .sum();
        memory + shapes + agent.route.as_ref().map_or(0, |r| r.tiles.len())
    }

    #[test]
    fn far_and_non_finite_points_keep_every_primitive_on_the_map_and_small() {
        let world = World::from_ascii(&["..........", "....#.....", "....#.....", ".........."]);
        let (w, h) = (10.0, 4.0);
        let hostile = [
            DVec2::new(1e18, 1e18),
            DVec2::new(-1e18, 2.0),
            DVec2::new(4294967295.0, 5.0),
            DVec2::new(f64::MAX, f64::MIN),
            DVec2::new(1e300, 1e300),
            DVec2::new(f64::NAN, 1.0),
            DVec2::new(2.0, f64::INFINITY),
            DVec2::new(f64::NEG_INFINITY, f64::NAN),
        ];
        for p in hostile {
            for action in point_actions(p) {
                for motion in [Motion::Free, Motion::Tiles { diagonal: true }] {
                    let mut agent = Agent::new("a", IVec2::new(1, 1));
                    agent.motion = motion;
                    agent.speed = 4.0;
                    agent.action = action.clone();
                    let dt = world.dt();
                    for _ in 0..60 {
                        let s = step(&world, &agent, dt);
                        assert!(s.delta.is_finite(), "{action:?} {p}: {}", s.delta);
                        agent.pos = slide::slide(&world, agent.pos, 0.3, s.delta);
                        agent.memory = s.memory;
                        agent.stepping = s.stepping;
                        agent.debug = s.shapes;
                        agent.route = s.route;
                        if let Some(rng) = s.rng {
                            agent.rng.set(rng);
                        }
                        let on_map = (-0.5..w - 0.5).contains(&agent.pos.x)
                            && (-0.5..h - 0.5).contains(&agent.pos.y);
                        assert!(on_map, "{action:?} {p}: {}", agent.pos);
                        // At most a line across the map (plus the labels and markers).
                        assert!(kept_cells(&agent) <= 20, "{action:?} {p}: {agent:?}");
                    }
                    // A point that is not finite is no target: the agent stays (a potential
                    // still feels the walls).
                    if !p.is_finite() && !matches!(action, Action::Potential(_)) {
                        assert_eq!(agent.pos, DVec2::new(1.0, 1.0), "{action:?} {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_point_target_is_bounded_to_one_tile_off_the_map() {
        let world = World::from_ascii(&["....", "...."]);
        let at = |x: f64, y: f64| world.target_pos(&Target::Point(DVec2::new(x, y)));
        assert_eq!(at(1e18, -1e18), Some(DVec2::new(4.0, -1.0)));
        assert_eq!(at(2.5, 1.0), Some(DVec2::new(2.5, 1.0)));
        assert_eq!(at(f64::NAN, 1.0), None);
    }

    #[test]
    fn a_turn_rate_swings_a_free_agent_round_in_an_arc() {
        let world = World::from_ascii(&["..........", "..........", "..........", ".........."]);
        let mut agent = Agent::new("a", IVec2::new(5, 0));
        agent.face(DVec2::X);
        agent.turn_rate = Some(std::f64::consts::PI); // 180 degrees a second
        agent.action = Action::To(DVec2::new(0.0, 0.0));
        let path = run(&world, agent, 10);
        // Target straight behind: it keeps turning 6 degrees a tick instead of reversing.
        for (i, a) in path.iter().enumerate() {
            let turned = (i + 1) as f64 * std::f64::consts::PI / 30.0;
            assert!(
                (a.heading().abs() - turned).abs() < 1e-9,
                "tick {i}: {}",
                a.heading()
            );
        }
    }
}
