//! Simulation: the fixed-step tick. Each tick (1) asks the decision layer for every scripted
//! agent's action, (2) runs every agent's movement primitive against the same snapshot,
//! (3) moves the agents (after ORCA avoidance and the `max_force` limit for the free agents
//! that ask for them), resolving walls, (4) drops breadcrumbs and (5) reports contacts.
//! A primitive's memory (paths, tracing state, directions) is kept on the agent between ticks
//! and cleared when its action changes.
//!
//! Steps (1) to (3) visit each agent once: its decision is applied, it steps, and the state
//! only its own primitive reads is written back; positions, velocities and breadcrumbs, which
//! other agents' primitives read, are written after every agent has stepped. A primitive must
//! therefore read nothing of another agent but those, its id and its kind.
//!
//! What scripts ask for besides their actions (messages, noises, spawns, removals, tile
//! changes) is collected after the decisions and applied before the next tick's ([`effects`]).
//!
//! The decision layer is behind the [`Decider`] trait, so this module never names mlua; it
//! reads no clock (the caller decides when a tick happens) and draws nothing.

pub mod decider;
pub mod effects;
pub mod events;
pub mod trace;

pub use decider::{Decider, Decision, Remarks};
pub use events::Event;

use crate::movement::{self, slide::slide};
use crate::world::{Action, Agent, Brain, MoveMemory, ScriptError, Shape, Target, World};
use glam::{DVec2, IVec2};
use std::collections::BTreeSet;
use std::rc::Rc;

/// A running scene.
pub struct Simulation {
    world: Rc<World>,
    /// Pairs of agent indices `(i, j)`, `i < j`, ascending, that touched at the end of the
    /// last tick.
    touching: Vec<(usize, usize)>,
    /// The agents' ids by index as they stood when the world was changed from outside
    /// (indices may then name other agents), so the next tick's contacts can tell which
    /// pairs touched; cheaper than the pairs by id when a whole crowd touches.
    ids_before: Option<Vec<String>>,
    /// The direction keyboard-controlled agents are pushed this tick.
    keyboard: IVec2,
    /// Set when the world was changed from outside; the next step re-indexes it first.
    dirty: bool,
    /// Indices of the keyboard-controlled agents, found again whenever the world is re-indexed.
    keyboard_agents: Vec<usize>,
    /// Indices of the agents that leave breadcrumbs (`crumbs.max > 0`), found again with the
    /// keyboard agents: the others need not be visited to drop none.
    crumb_agents: Vec<usize>,
    /// Where each agent ends up this tick, and the velocity that makes: buffers kept between
    /// ticks so a tick allocates (and the system pages in) nothing for them.
    moved: Vec<DVec2>,
    velocities: Vec<DVec2>,
    /// Last tick's debug shape lists, emptied, for this tick's steps to fill.
    spare_shapes: Vec<Vec<Shape>>,
    /// Events of changes made from outside between ticks (a scene reload's edits), for the
    /// next tick's line.
    noted: Vec<Event>,
}

/// What one tick produced besides the new world.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickReport {
    pub events: Vec<Event>,
    /// Script errors that are new this tick (an agent failing the same way every tick is
    /// reported once): `(agent id, message)`.
    pub new_errors: Vec<(String, ScriptError)>,
}

impl TickReport {
    /// The lines scripts printed this tick: `(agent id, line)`.
    pub fn prints(&self) -> impl Iterator<Item = (&str, &str)> {
        self.events.iter().filter_map(|e| match e {
            Event::Print { agent, text } => Some((agent.as_str(), text.as_str())),
            _ => None,
        })
    }

    /// Whether two agents started touching this tick.
    pub fn has_contact(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, Event::Contact { .. }))
    }
}

impl Simulation {
    pub fn new(mut world: World) -> Self {
        world.reindex();
        world.new_roster();
        world.seal();
        Simulation {
            keyboard_agents: keyboard_agents(&world),
            crumb_agents: crumb_agents(&world),
            world: Rc::new(world),
            touching: Vec::new(),
            ids_before: None,
            keyboard: IVec2::ZERO,
            dirty: false,
            moved: Vec::new(),
            velocities: Vec::new(),
            spare_shapes: Vec::new(),
            noted: Vec::new(),
        }
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// The shared world, for read-only views that outlive a borrow (expectation checks).
    pub fn world_rc(&self) -> &Rc<World> {
        &self.world
    }

    /// Changes the world in place (a scene reload, a painted tile). Routes re-plan on their
    /// own when the map version moves.
    pub fn world_mut(&mut self) -> &mut World {
        if !self.dirty && !self.touching.is_empty() {
            self.ids_before = Some(self.world.agents.iter().map(|a| a.id.clone()).collect());
        }
        self.dirty = true;
        let world = Rc::make_mut(&mut self.world);
        // The caller may change the agent list: caches by agent index must check again.
        world.new_roster();
        world.unseal();
        world
    }

    /// Notes events of a change made from outside (a scene reload's edits): they go first on
    /// the next tick's line.
    pub fn note(&mut self, events: Vec<Event>) {
        self.noted.extend(events);
    }

    /// Sets the direction keyboard-controlled agents move in (each component -1, 0 or 1).
    pub fn set_keyboard(&mut self, dir: IVec2) {
        self.keyboard = dir;
    }

    /// Applies one fixed step.
    pub fn step(&mut self, decider: &mut dyn Decider) -> TickReport {
        let applied = self.apply_effects();
        self.prepare_step();
        let decisions = decider.decide(&self.world);
        let mut remarks = decider.take_remarks();
        let net = clock_stops(&self.world, &decisions);
        let world = Rc::make_mut(&mut self.world);
        let mut report = TickReport::default();
        let mut caused = Vec::new();
        if !remarks.effects.is_empty() {
            let failed = decisions
                .iter()
                .filter(|(_, d)| matches!(d, Decision::Failed(_)))
                .map(|(i, _)| *i)
                .collect();
            let mut effects = std::mem::take(&mut remarks.effects);
            effects::collect(world, &mut effects, &failed, &mut caused);
            decider.give_back(effects);
        }
        for (i, label) in remarks.labels {
            if let Some(agent) = world.agents.get_mut(i) {
                agent.label = label.map(String::into_boxed_str);
            }
        }
        steer_keyboard_agents(world, &self.keyboard_agents, self.keyboard);
        let (moved, spare) = (&mut self.moved, &mut self.spare_shapes);
        step_agents(world, decisions, &mut report, moved, spare);
        write_back(world, moved, &mut self.velocities, &self.crumb_agents);

        let walls = std::mem::take(&mut report.events);
        let contacts = self.contacts();
        report.events = std::mem::take(&mut self.noted);
        // The tick's events in one allocation (a talking crowd's are thousands of deliveries).
        report.events.reserve(
            net.len()
                + remarks.prints.len()
                + contacts.len()
                + walls.len()
                + applied.len()
                + caused.len(),
        );
        report.events.extend(net);
        report
            .events
            .extend((remarks.prints.into_iter()).map(|(agent, text)| Event::Print { agent, text }));
        report.events.extend(contacts);
        report.events.extend(walls);
        report.events.extend(applied);
        report.events.extend(caused);
        report
    }

    /// Applies the effects the last tick's scripts asked for (`World::pending`), before this
    /// tick's decisions; returns their events (agents pushed off a blocked tile). A spawn, a
    /// removal or a tile change is a change of the agents, as an edit from outside is.
    fn apply_effects(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.world.pending.is_empty() && !self.world.delivered {
            return events;
        }
        let world = if effects::changes_agents(&self.world) {
            self.world_mut()
        } else {
            Rc::make_mut(&mut self.world)
        };
        effects::apply(world, &mut events);
        events
    }

    /// Readies the world for a step: the waypoint node table current, and (after a change
    /// from outside, or if the index went stale) the agents re-indexed, the keyboard and
    /// breadcrumb agents found again and the world sealed.
    fn prepare_step(&mut self) {
        if !self
            .world
            .waypoint_table
            .is_current(&self.world.waypoints, self.world.map_version())
        {
            // The node table is built once and again only when the map or the nodes change.
            let table = crate::nav::waypoints::build(&self.world, &self.world.waypoints);
            Rc::make_mut(&mut self.world).waypoint_table = table;
        }
        let dirty = std::mem::take(&mut self.dirty);
        if dirty || self.world.spatial().is_none() || !self.world.is_sealed() {
            let world = Rc::make_mut(&mut self.world);
            if dirty || world.spatial().is_none() {
                world.reindex();
            }
            self.keyboard_agents = keyboard_agents(world);
            self.crumb_agents = crumb_agents(world);
            // Only `world_mut` (which marks the world dirty) and this step change the agents,
            // so the index now describes them exactly.
            world.seal();
        }
    }

    /// Contact events for pairs that touch now and did not last tick.
    fn contacts(&mut self) -> Vec<Event> {
        let agents = &self.world.agents;
        let mut events = Vec::new();
        let pairs = match self.world.spatial() {
            Some(index) => index.touching_pairs(),
            None => crate::world::SpatialIndex::build(agents, 1, 1, 0).touching_pairs(),
        };
        // The pairs by id, only when the agent list changed from outside (most changes, a
        // painted tile or a scene save that keeps the agents, leave every index as it was).
        let ids_before = self.ids_before.take().and_then(|ids| {
            let same =
                ids.len() == agents.len() && ids.iter().zip(agents).all(|(id, a)| *id == a.id);
            (!same).then(|| {
                let pairs = self
                    .touching
                    .iter()
                    .filter_map(|&(i, j)| Some(id_pair(ids.get(i)?, ids.get(j)?)));
                pairs.collect::<BTreeSet<_>>()
            })
        });
        // Both lists are ascending: walk the old one alongside.
        let mut before = self.touching.iter().peekable();
        for &(i, j) in &pairs {
            let (a, b) = (&agents[i], &agents[j]);
            let touched = match &ids_before {
                Some(ids) => ids.contains(&id_pair(&a.id, &b.id)),
                None => {
                    while before.next_if(|&&p| p < (i, j)).is_some() {}
                    before.peek() == Some(&&(i, j))
                }
            };
            if !touched {
                events.push(Event::Contact {
                    a: a.id.clone(),
                    b: b.id.clone(),
                });
            }
        }
        self.touching = pairs;
        events
    }
}

/// Gives the keyboard-controlled agents (at `agents`) their action: steer in `keyboard`'s
/// direction, else walk their clicked tiles, else stop.
fn steer_keyboard_agents(world: &mut World, agents: &[usize], keyboard: IVec2) {
    for &i in agents {
        let Some(agent) = world.agents.get_mut(i) else {
            continue;
        };
        let mut action = if keyboard != IVec2::ZERO {
            Action::Steer(keyboard)
        } else if !agent.walk.tiles.is_empty() {
            Action::Walk
        } else {
            Action::Stop
        };
        set_action(agent, &mut action);
    }
}

/// Applies the decisions and runs every agent's primitive against the same snapshot: each
/// agent's own state is written as soon as it has stepped, where it ends up goes to `moved`
/// (in agent order) for [`write_back`]. Wall contacts of planned moves go to `report`;
/// `spare` lends and takes back the debug shape lists.
fn step_agents(
    world: &mut World,
    mut decisions: Vec<(usize, Decision)>,
    report: &mut TickReport,
    moved: &mut Vec<DVec2>,
    spare: &mut Vec<Vec<Shape>>,
) {
    // Decisions are taken from the list in place: an action equal to the current one is
    // only compared, never moved. They normally come one per agent in ascending order;
    // then each is applied just before its agent's step (no primitive reads another
    // agent's action, memory or error), so each agent's struct is visited once. In any
    // other order they are all applied first, in list order.
    if !decisions.windows(2).all(|w| w[0].0 < w[1].0) {
        for (index, decision) in &mut decisions {
            apply(world, *index, decision, report);
        }
        decisions.clear();
    }
    let mut pending = decisions.iter_mut().peekable();

    // Every primitive sees the same snapshot, so agent order never changes the outcome:
    // what other agents' primitives read (positions, velocities, breadcrumbs) is written
    // only after every agent has stepped; the rest of an agent's state (heading, route,
    // memory, shapes, random stream) only its own primitive reads, so it is written as
    // soon as the agent has stepped.
    let dt = world.dt();
    world.seal(); // a copy made for `make_mut` above starts unsealed
    moved.clear();
    // Grown once to the crowd's size, not by doubling past it.
    moved.reserve_exact(world.agents.len());
    for i in 0..world.agents.len() {
        while let Some((index, decision)) = pending.next_if(|(index, _)| *index <= i) {
            apply(world, *index, decision, report);
        }
        let agent = &world.agents[i];
        let mut step = movement::step_with(world, agent, dt, spare.pop().unwrap_or_default());
        // Avoidance and the acceleration limit, for free agents that asked for either.
        if !agent.motion.is_tiles() && (agent.avoid_horizon.is_some() || agent.max_force.is_some())
        {
            movement::adjust::adjust(world, i, agent, &mut step, dt);
        }
        // Walls are fixed during the tick, so the move is resolved with the step.
        let pos = slide(world, agent.pos, agent.radius, step.delta);
        // A planned move (one that follows a route or field on the grid, which promises a
        // way clear of walls) that a wall cut short. Steering primitives press into walls
        // by design and are not reported, so their traces stay as they were.
        let planned = matches!(
            agent.action,
            Action::FlowTo(_) | Action::PathTo(..) | Action::Waypoints(_) | Action::TankTo(_)
        );
        let short = if planned && step.delta.is_finite() {
            (agent.pos + step.delta).distance(pos)
        } else {
            0.0
        };
        if short > 1e-9 {
            report.events.push(Event::WallContact {
                agent: agent.id.clone(),
                short: (short * 1e4).round() / 1e4,
            });
        }
        let agent = &mut world.agents[i];
        let delta = pos - agent.pos;
        if delta.length_squared() > 1e-18 {
            agent.face(delta);
        }
        if step.route.is_some() || agent.route.is_some() {
            agent.route = step.route;
        }
        let mut shapes = step.shapes;
        // The list kept on the agent holds no more room than its shapes (most agents keep one
        // line a tick; the lists go round, so this trims each once, not every tick).
        if !shapes.is_empty() && shapes.capacity() > shapes.len() {
            shapes.shrink_to_fit();
        }
        spare.push(std::mem::replace(&mut agent.debug, shapes));
        agent.memory = step.memory;
        agent.stepping = step.stepping;
        if let Some(rng) = step.rng {
            agent.rng.set(rng);
        }
        if let Some(next) = step.walk_next {
            agent.walk.next = next;
        }
        moved.push(pos);
    }
    // Decisions for agents past the end of the list name nobody.
    drop(pending);
    world.unseal();
}

/// Writes what other agents' primitives read, once every agent has stepped: positions from
/// `moved` and the velocities they make, breadcrumbs; then the tick ends and the world is
/// re-indexed and sealed.
fn write_back(
    world: &mut World,
    moved: &[DVec2],
    velocities: &mut Vec<DVec2>,
    crumb_agents: &[usize],
) {
    let dt = world.dt();
    velocities.clear();
    velocities.reserve_exact(world.agents.len());
    for (agent, &pos) in world.agents.iter_mut().zip(moved.iter()) {
        agent.vel = (pos - agent.pos) / dt;
        agent.pos = pos;
        velocities.push(agent.vel);
    }
    for &i in crumb_agents {
        if let Some(agent) = world.agents.get_mut(i) {
            let tile = agent.tile();
            agent.crumbs.drop_on(tile);
        }
    }
    world.tick += 1;
    // The tick moved the agents to `moved` and changed nothing else the index keeps.
    world.reindex_moved_to(moved, velocities);
    world.seal();
}

/// The indices of the agents that leave breadcrumbs.
fn crumb_agents(world: &World) -> Vec<usize> {
    let agents = world.agents.iter().enumerate();
    agents
        .filter(|(_, a)| a.crumbs.max > 0)
        .map(|(i, _)| i)
        .collect()
}

/// The indices of the keyboard-controlled agents.
fn keyboard_agents(world: &World) -> Vec<usize> {
    let agents = world.agents.iter().enumerate();
    agents
        .filter(|(_, a)| a.brain == Brain::Keyboard)
        .map(|(i, _)| i)
        .collect()
}

/// Two agent ids in id order.
fn id_pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Applies one agent's decision (taken out of `decision`); a decision for an index past the
/// agent list names nobody and is ignored. A failure is reported the first time it happens.
fn apply(world: &mut World, index: usize, decision: &mut Decision, report: &mut TickReport) {
    let Some(agent) = world.agents.get_mut(index) else {
        return;
    };
    let suspends = matches!(decision, Decision::Failed(e) if e.kind.suspends()) && !agent.suspended;
    apply_to(agent, decision, report);
    if suspends {
        // The deciders' caches of who decides go by the roster.
        world.new_roster();
    }
}

fn apply_to(agent: &mut Agent, decision: &mut Decision, report: &mut TickReport) {
    match decision {
        Decision::Act(action) => {
            set_action(agent, action);
            if agent.error.is_some() {
                agent.error = None;
            }
        }
        Decision::Failed(error) => {
            // At most 4 KiB of error text per agent and tick (the trace repeats it every tick).
            error.bound();
            if agent.error.as_ref() != Some(&*error) {
                report.new_errors.push((agent.id.clone(), error.clone()));
            }
            set_action(agent, &mut Action::Stop);
            if error.kind.suspends() {
                agent.suspended = true;
            }
            agent.error = Some(std::mem::replace(
                error,
                ScriptError::runtime(String::new()),
            ));
        }
    }
}

/// Gives an agent a new action (taken out of `action`, which is left holding the old one or
/// the same target's older hint); a different action (another primitive
/// or another target) starts its primitive's memory afresh.
fn set_action(agent: &mut Agent, action: &mut Action) {
    if agent.action != *action {
        agent.memory = MoveMemory::None;
        replace_action(&mut agent.action, action);
    } else if let (Some(Target::Agent(kept)), Some(Target::Agent(new))) =
        (agent.action.target_mut(), action.target_mut())
    {
        // The same target, perhaps found at another index since (the agents changed): keep
        // the newer hint so following it needs no lookup by name.
        std::mem::swap(kept, new);
    }
}

/// Puts `new` in `place`, leaving the old action in `new`. Between chasing and evading (what a
/// crowd switches between, tick after tick) only the target and the variant are written:
/// writing the whole `Action`, sized for its largest variant, cost a store to every cache line
/// it spans in each agent.
fn replace_action(place: &mut Action, new: &mut Action) {
    if let (Action::Chase(old) | Action::Evade(old), Action::Chase(next) | Action::Evade(next)) =
        (&mut *place, &mut *new)
    {
        std::mem::swap(old, next);
        if matches!(place, Action::Chase(_)) != matches!(new, Action::Chase(_)) {
            switch_chase_and_evade(place);
            switch_chase_and_evade(new);
        }
        return;
    }
    std::mem::swap(place, new);
}

/// Turns a chase into an evasion of the same target and back.
fn switch_chase_and_evade(action: &mut Action) {
    let (Action::Chase(target) | Action::Evade(target)) = action else {
        return;
    };
    let target = std::mem::replace(target, Target::Point(DVec2::ZERO));
    *action = match action {
        Action::Chase(_) => Action::Evade(target),
        _ => Action::Chase(target),
    };
}

/// The events of calls the CPU-time net stopped this tick: the replay may differ from here.
fn clock_stops(world: &World, decisions: &[(usize, Decision)]) -> Vec<Event> {
    decisions
        .iter()
        .filter_map(|(i, d)| match d {
            Decision::Failed(e) if e.kind == crate::world::ErrorKind::Cpu => {
                world.agents.get(*i).map(|a| Event::ReplayMayDiffer {
                    agent: a.id.to_string(),
                    reason: "cpu".to_string(),
                })
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::AgentRef;

    /// A decider that gives every agent a fixed action.
    struct Fixed(Vec<(usize, Action)>);

    impl Decider for Fixed {
        fn decide(&mut self, _world: &Rc<World>) -> Vec<(usize, Decision)> {
            self.0
                .iter()
                .map(|(i, a)| (*i, Decision::Act(a.clone())))
                .collect()
        }
    }

    fn two_agents(rows: &[&str], a: (i32, i32), b: (i32, i32)) -> Simulation {
        let mut w = World::from_ascii(rows);
        w.agents.push(Agent::new("hunter", IVec2::new(a.0, a.1)));
        w.agents.push(Agent::new("prey", IVec2::new(b.0, b.1)));
        Simulation::new(w)
    }

    #[test]
    fn a_chaser_reaches_a_still_target_and_reports_contact_once() {
        let mut sim = two_agents(&["........"], (0, 0), (7, 0));
        let mut d = Fixed(vec![(0, Action::Chase(Target::Agent("prey".into())))]);
        let mut contacts = 0;
        for _ in 0..120 {
            contacts += sim.step(&mut d).events.len();
        }
        assert_eq!(contacts, 1);
        assert!(
            sim.world().agents[0]
                .pos
                .distance(sim.world().agents[1].pos)
                < 1e-9
        );
    }

    #[test]
    fn the_same_target_at_a_new_index_keeps_the_memory_and_takes_the_new_index() {
        let mut agent = Agent::new("hunter", IVec2::ZERO);
        set_action(
            &mut agent,
            &mut Action::LosChase(AgentRef::new("prey", 5).into()),
        );
        agent.memory = MoveMemory::Direction(3);
        set_action(
            &mut agent,
            &mut Action::LosChase(AgentRef::new("prey", 2).into()),
        );
        assert_eq!(agent.memory, MoveMemory::Direction(3));
        let Action::LosChase(Target::Agent(kept)) = &agent.action else {
            panic!("{:?}", agent.action);
        };
        assert_eq!(kept.index(), 2);
        set_action(
            &mut agent,
            &mut Action::LosChase(AgentRef::new("other", 2).into()),
        );
        assert_eq!(agent.memory, MoveMemory::None);
    }

    #[test]
    fn decisions_in_any_order_are_applied_in_list_order() {
        let to = |x: f64| Action::To(DVec2::new(x, 0.0));
        let mut sim = two_agents(&["........"], (0, 0), (7, 0));
        let mut d = Fixed(vec![(1, to(3.0)), (0, to(5.0)), (1, to(4.0)), (9, to(1.0))]);
        sim.step(&mut d);
        assert_eq!(sim.world().agents[0].action, to(5.0));
        assert_eq!(sim.world().agents[1].action, to(4.0));
        let mut sorted = Fixed(vec![(0, to(6.0)), (1, to(2.0)), (2, to(0.0))]);
        sim.step(&mut sorted);
        assert_eq!(sim.world().agents[0].action, to(6.0));
        assert_eq!(sim.world().agents[1].action, to(2.0));
        // Both moved from where they stood at the start of the tick, towards their new goals.
        assert!(sim.world().agents[0].vel.x > 0.0 && sim.world().agents[1].vel.x < 0.0);
    }

    #[test]
    fn a_new_action_is_put_in_place_and_the_old_one_handed_back() {
        let chase = |id: &str| Action::Chase(AgentRef::new(id, 1).into());
        let evade = |id: &str| Action::Evade(AgentRef::new(id, 1).into());
        let to = Action::To(DVec2::new(1.0, 2.0));
        let cases = [
            (chase("a"), evade("b")),
            (evade("a"), chase("b")),
            (chase("a"), chase("b")),
            (evade("a"), evade("a")),
            (chase("a"), to.clone()),
            (to.clone(), evade("b")),
            (Action::Stop, to.clone()),
        ];
        for (old, new) in cases {
            let (mut place, mut next) = (old.clone(), new.clone());
            replace_action(&mut place, &mut next);
            assert_eq!((&place, &next), (&new, &old));
            assert_eq!(place.name(), new.name());
        }
    }

    #[test]
    fn a_chaser_follows_its_target_by_id_when_the_index_hint_goes_stale() {
        let mut w = World::from_ascii(&["........", "........"]);
        for (id, x, y) in [
            ("hunter", 0, 0),
            ("decoy", 0, 1),
            ("prey", 7, 0),
            ("post", 7, 1),
        ] {
            w.agents.push(Agent::new(id, IVec2::new(x, y)));
        }
        let mut sim = Simulation::new(w);
        let chase = Action::Chase(sim.world().agent_ref(2).unwrap().into());
        sim.step(&mut Fixed(vec![(0, chase)]));
        // The decision stands; the decoy leaves, so the prey moves down to index 1 and the
        // hint (2) now points at the post: the id wins.
        sim.world_mut().agents.remove(1);
        for _ in 0..120 {
            sim.step(&mut Fixed(vec![]));
        }
        let world = sim.world();
        assert_eq!(world.agents[1].id, "prey");
        assert!(world.agents[0].pos.distance(world.agents[1].pos) < 1e-9);
        let prey = world.agent_ref(1).unwrap();
        assert_eq!(prey.id(), "prey");
        assert_eq!(world.resolve(&prey), Some(1));
    }

    #[test]
    fn contacts_are_new_by_id_even_when_the_agents_change_from_outside() {
        let mut w = World::from_ascii(&["......"]);
        for (id, x) in [("a", 0), ("b", 0), ("c", 5)] {
            w.agents.push(Agent::new(id, IVec2::new(x, 0)));
        }
        let mut sim = Simulation::new(w);
        let mut none = Fixed(vec![]);
        let contact = |a: &str, b: &str| Event::Contact {
            a: a.into(),
            b: b.into(),
        };
        assert_eq!(sim.step(&mut none).events, vec![contact("a", "b")]);
        assert_eq!(sim.step(&mut none).events, vec![]);
        // Someone is listed first now: a and b have other indices but still touch.
        sim.world_mut()
            .agents
            .insert(0, Agent::new("d", IVec2::new(3, 0)));
        assert_eq!(sim.step(&mut none).events, vec![]);
        assert_eq!(sim.step(&mut none).events, vec![]);
        // b is replaced by e at the same index and place: a new pair.
        let e = Agent::new("e", IVec2::new(0, 0));
        sim.world_mut().agents[2] = e;
        assert_eq!(sim.step(&mut none).events, vec![contact("a", "e")]);
        // d is moved onto c: a new pair, reported once.
        sim.world_mut().agents[0].pos = DVec2::new(5.0, 0.0);
        assert_eq!(sim.step(&mut none).events, vec![contact("d", "c")]);
        assert_eq!(sim.step(&mut none).events, vec![]);
    }

    #[test]
    fn avoiding_agents_step_on_the_index_copy_of_their_neighbours() {
        // Walkers meeting head-on, half of them avoiding: after every tick the index's dense
        // copy (what ORCA reads) is each agent's own position, velocity, radius and avoidance.
        let mut w = World::from_ascii(&["..........", "..........", ".........."]);
        for k in 0..6 {
            let (x, goal) = if k % 2 == 0 { (0, 9.0) } else { (9, 0.0) };
            let mut a = Agent::new(format!("w{k}"), IVec2::new(x, k % 3));
            a.avoid_horizon = (k < 4).then_some(2.0);
            a.action = Action::To(DVec2::new(goal, (k % 3) as f64));
            w.agents.push(a);
        }
        let mut sim = Simulation::new(w);
        let mut none = Fixed(vec![]);
        for _ in 0..20 {
            sim.step(&mut none);
            let world = sim.world();
            let index = world.spatial().expect("indexed after a tick");
            for (i, a) in world.agents.iter().enumerate() {
                let want = (a.pos, a.vel, a.radius, a.avoid_horizon.is_some());
                assert_eq!(index.body(i), Some(want), "{}", a.id);
            }
        }
        assert!(sim.world().agents.iter().any(|a| a.vel != DVec2::ZERO));
    }

    #[test]
    fn keyboard_agents_follow_the_keys_including_ones_added_later() {
        let mut w = World::from_ascii(&[".....", "....."]);
        let mut player = Agent::new("player", IVec2::new(0, 0));
        player.brain = Brain::Keyboard;
        w.agents.push(player);
        let mut sim = Simulation::new(w);
        sim.set_keyboard(IVec2::new(1, 0));
        sim.step(&mut Fixed(vec![]));
        assert_eq!(
            sim.world().agents[0].action,
            Action::Steer(IVec2::new(1, 0))
        );
        let mut second = Agent::new("second", IVec2::new(0, 1));
        second.brain = Brain::Keyboard;
        sim.world_mut().agents.insert(0, second);
        sim.step(&mut Fixed(vec![]));
        for a in &sim.world().agents {
            assert_eq!(a.action, Action::Steer(IVec2::new(1, 0)), "{}", a.id);
            assert!(a.pos.x > 0.0, "{}", a.id);
        }
    }

    #[test]
    fn speed_is_tiles_per_second() {
        let mut sim = two_agents(&["..........", ".........."], (0, 0), (0, 1));
        let mut d = Fixed(vec![(0, Action::To(DVec2::new(9.0, 0.0)))]);
        for _ in 0..30 {
            sim.step(&mut d);
        }
        // Default speed 4 tiles/s for one second at 30 ticks/s.
        assert!((sim.world().agents[0].pos.x - 4.0).abs() < 1e-9);
        assert_eq!(sim.world().tick, 30);
    }

    #[test]
    fn nobody_enters_a_wall() {
        let mut sim = two_agents(&["...#...", "...#...", "......."], (0, 0), (6, 0));
        let mut d = Fixed(vec![(0, Action::Chase(Target::Agent("prey".into())))]);
        for _ in 0..200 {
            sim.step(&mut d);
            let a = &sim.world().agents[0];
            assert!(!sim.world().circle_hits_wall(a.pos, a.radius));
        }
    }

    /// The stale-grid test at the level of an agent: a wall painted across a `path_to` route
    /// while it is being walked makes the agent plan again on the new map's grid, so it never
    /// touches the new wall and still arrives; walled off completely, it stops and says why.
    #[test]
    fn a_wall_painted_across_a_route_is_walked_round_not_through() {
        use crate::world::{MoveMemory, NoPath};
        let w = World::from_ascii(&["..........", "..........", "..........", ".........."]);
        let mut sim = Simulation::new(w);
        sim.world_mut()
            .agents
            .push(Agent::new("a", IVec2::new(0, 1)));
        let goal = IVec2::new(9, 1);
        let mut d = Fixed(vec![(0, Action::PathTo(goal, Box::default()))]);
        for _ in 0..5 {
            sim.step(&mut d);
        }
        let wall = sim.world().terrain().by_name("wall").unwrap();
        for y in 0..3 {
            assert!(sim.world_mut().set_terrain(IVec2::new(5, y), wall));
        }
        let mut went_round = false;
        for _ in 0..200 {
            sim.step(&mut d);
            let a = &sim.world().agents[0];
            assert!(!sim.world().circle_hits_wall(a.pos, a.radius), "{}", a.pos);
            went_round |= a.tile().y == 3;
        }
        let a = &sim.world().agents[0];
        assert!(went_round, "through the gap in row 3");
        assert_eq!(a.pos, crate::world::centre_of(goal));
        // Walled off: no route, standing still, the reason remembered.
        assert!(sim.world_mut().set_terrain(IVec2::new(5, 3), wall));
        let back = Action::PathTo(IVec2::new(0, 1), Box::default());
        let mut d = Fixed(vec![(0, back)]);
        sim.step(&mut d);
        let a = &sim.world().agents[0];
        assert_eq!(a.memory, MoveMemory::NoPath(NoPath::Unreachable));
        assert_eq!(a.pos, crate::world::centre_of(goal));
    }

    #[test]
    fn a_primitive_keeps_its_memory_until_the_action_changes() {
        use crate::world::{Hand, Motion, MoveMemory};
        let mut w = World::from_ascii(&["#####", "#...#", "#...#", "#####"]);
        let mut a = Agent::new("t", IVec2::new(1, 1));
        a.motion = Motion::Tiles { diagonal: false };
        w.agents.push(a);
        let mut sim = Simulation::new(w);
        let mut trace = Fixed(vec![(0, Action::WallTrace(Hand::Left))]);
        for _ in 0..20 {
            sim.step(&mut trace);
        }
        let kept = sim.world().agents[0].memory.clone();
        assert!(
            matches!(kept, MoveMemory::Wall { touching: true, .. }),
            "{kept:?}"
        );
        let mut other = Fixed(vec![(0, Action::WallTrace(Hand::Right))]);
        let before = sim.world().agents[0].tile();
        sim.world_mut().agents[0].stepping = None;
        sim.world_mut().agents[0].pos = crate::world::centre_of(before);
        sim.step(&mut other);
        // A new hand is a new decision: the memory started afresh (facing from the heading).
        let fresh = &sim.world().agents[0].memory;
        assert_ne!(fresh, &kept);
        let mut stop = Fixed(vec![(0, Action::Stop)]);
        sim.step(&mut stop);
        assert_eq!(sim.world().agents[0].memory, MoveMemory::None);
    }

    #[test]
    fn failed_decisions_stop_the_agent_and_are_reported_once() {
        struct Failing;
        impl Decider for Failing {
            fn decide(&mut self, _w: &Rc<World>) -> Vec<(usize, Decision)> {
                vec![(0, Decision::Failed(ScriptError::runtime("x.lua:1: boom")))]
            }
        }
        let mut sim = two_agents(&["....."], (0, 0), (4, 0));
        let first = sim.step(&mut Failing);
        let second = sim.step(&mut Failing);
        assert_eq!(first.new_errors.len(), 1);
        assert!(second.new_errors.is_empty());
        assert_eq!(
            sim.world().agents[0].error.as_ref().map(|e| e.as_str()),
            Some("x.lua:1: boom")
        );
    }

    #[test]
    fn the_waypoint_table_is_built_once_and_again_when_the_map_changes() {
        let mut w = World::from_ascii(&[".....", "..#..", "....."]);
        w.waypoints = vec![
            IVec2::new(0, 1),
            IVec2::new(4, 1),
            IVec2::new(0, 0),
            IVec2::new(4, 0),
        ];
        let mut sim = Simulation::new(w);
        let mut none = Fixed(vec![]);
        sim.step(&mut none);
        let table = sim.world().waypoint_table.clone();
        assert_eq!(table.map_version, Some(0));
        let first = table.next(0, 1);
        assert!(
            first.is_some() && first != Some(1),
            "round the pillar: {first:?}"
        );
        sim.step(&mut none);
        assert_eq!(
            sim.world().waypoint_table,
            table,
            "unchanged map, same table"
        );
        let floor = sim.world().terrain().by_name("floor").unwrap();
        sim.world_mut().set_terrain(IVec2::new(2, 1), floor);
        sim.step(&mut none);
        let rebuilt = &sim.world().waypoint_table;
        assert_eq!(rebuilt.map_version, Some(1));
        assert_eq!(
            rebuilt.next(0, 1),
            Some(1),
            "the pillar is gone: straight across"
        );
    }
}
