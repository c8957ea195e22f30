//! What an agent has decided to do: plain data produced by a decision layer (a Lua script,
//! the keyboard) and executed by the movement primitives.

use super::path_options::PathOptions;
use glam::DVec2;
use std::sync::Arc;

/// Something to move relative to: another agent (followed as it moves) or a fixed point.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Agent(AgentRef),
    Point(DVec2),
}

/// An agent named by a target: its id, which is what the target means, and the index in
/// `World::agents` the id was found at, so following it each tick needs no lookup by name.
/// The index is only a hint: [`crate::world::World::resolve`] trusts it only while the agent
/// there still has this id, and looks the id up otherwise. Two references are equal when
/// their ids are (a chase of the same agent is the same action wherever that agent is
/// listed). Cloning shares the id: either its own string or, for references handed out by
/// [`crate::world::World::agent_ref`], the id list of every agent, so a clone touches one
/// shared counter instead of a string of its own.
#[derive(Clone)]
pub struct AgentRef {
    id: Id,
    index: usize,
}

#[derive(Clone)]
enum Id {
    Own(Arc<str>),
    /// Entry `AgentRef::index` of a list.
    Listed(Arc<AgentIds>),
}

/// The ids of a list of agents, in order, in one buffer (see [`AgentRef`]).
#[derive(Debug, Default)]
pub struct AgentIds {
    text: String,
    /// Id `i` is `text[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
    /// Known to hold no id twice: then entries at different places name different agents
    /// without comparing their text.
    distinct: bool,
}

impl AgentIds {
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut list = AgentIds::default();
        let ids = ids.into_iter();
        list.ends.reserve_exact(ids.size_hint().0);
        for id in ids {
            list.text.push_str(id);
            list.ends.push(list.text.len());
        }
        list
    }

    /// The same list, promising that no id appears in it twice (the caller has checked).
    pub(crate) fn known_distinct(mut self) -> Self {
        self.distinct = true;
        self
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

impl AgentRef {
    /// The agent `id`, found at `index`.
    pub fn new(id: impl Into<Arc<str>>, index: usize) -> Self {
        AgentRef {
            id: Id::Own(id.into()),
            index,
        }
    }

    /// The agent listed `index` in `ids`; `None` past its end.
    pub fn listed(ids: &Arc<AgentIds>, index: usize) -> Option<Self> {
        (index < ids.len()).then(|| AgentRef {
            id: Id::Listed(ids.clone()),
            index,
        })
    }

    pub fn id(&self) -> &str {
        match &self.id {
            Id::Own(id) => id,
            Id::Listed(ids) => ids.get(self.index).unwrap_or_default(),
        }
    }

    /// Where the agent was when this reference was made (a hint; see [`AgentRef`]).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether this reference names agent `index` of `ids` (by sharing that list, or by an
    /// equal id).
    pub fn is_listed(&self, ids: &Arc<AgentIds>, index: usize) -> bool {
        match &self.id {
            Id::Listed(own) if Arc::ptr_eq(own, ids) && self.index == index => true,
            // Another place in a list without repeats holds another id.
            Id::Listed(own) if Arc::ptr_eq(own, ids) && ids.distinct => false,
            _ => ids.get(index) == Some(self.id()),
        }
    }
}

/// The agent `id`, not yet found anywhere: the first resolve looks it up.
impl From<&str> for AgentRef {
    fn from(id: &str) -> Self {
        AgentRef::new(id, usize::MAX)
    }
}

impl From<AgentRef> for Target {
    fn from(r: AgentRef) -> Self {
        Target::Agent(r)
    }
}

impl From<AgentRef> for String {
    fn from(r: AgentRef) -> Self {
        r.id().to_string()
    }
}

impl PartialEq for AgentRef {
    fn eq(&self, other: &Self) -> bool {
        match (&self.id, &other.id) {
            (Id::Own(a), Id::Own(b)) if Arc::ptr_eq(a, b) => true,
            (Id::Listed(a), _) => other.is_listed(a, self.index),
            _ => self.id() == other.id(),
        }
    }
}

/// Written as its id (a trace's `message` event names its receiver so).
impl serde::Serialize for AgentRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

/// Shown as its id alone, as the id string was before the index came along.
impl std::fmt::Debug for AgentRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.id(), f)
    }
}

/// A movement decision. Each variant is executed by one primitive under `movement/`.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Action {
    /// Stand still.
    #[default]
    Stop,
    /// Steer straight at the target's current position.
    Chase(Target),
    /// Steer straight away from the target's current position.
    Evade(Target),
    /// Go straight to a point and stop on it.
    To(DVec2),
    /// Follow an A* route to a tile, re-planned when the goal, the options or the map change
    /// (the options boxed, so that the common actions stay one target wide).
    PathTo(glam::IVec2, Box<PathOptions>),
    /// Travel to a tile through the scene's waypoints: the nearest visible node, then the node
    /// table (`next[from][to]`), then straight to the tile.
    Waypoints(glam::IVec2),
    /// Drive a (possibly multi-tile) body to a tile as a tank: 4 directions, cost 1 per step,
    /// turn-and-drive legs; no route drops the command.
    TankTo(glam::IVec2),
    /// Move in a direction (the keyboard): each component -1, 0 or 1.
    Steer(glam::IVec2),
    /// Basic chase: each step, each axis one unit towards the target.
    BasicChase(Target),
    /// Basic evade: each step, each axis one unit away from the target.
    BasicEvade(Target),
    /// Line-of-sight chase: a Bresenham path on tiles, rebuilt when the target moves
    /// (free agents steer straight at the target instead).
    LosChase(Target),
    /// Chase the point where the prey will be (relative velocity and closing time).
    Intercept(Target),
    /// Lennard-Jones potential: towards/away from a target and/or within a swarm (boxed: the
    /// spec is several times the size of every other action).
    Potential(Box<PotentialSpec>),
    /// Step straight at the target while it is in sight, randomly otherwise.
    WanderAvoid(Target),
    /// Head for a goal and trace around the obstacles in the way.
    TraceAround {
        goal: Target,
        variant: TraceVariant,
        /// The hand kept on the obstacle while tracing.
        hand: Hand,
    },
    /// Follow another agent's breadcrumbs, scanning at most `trail` of them, newest first.
    FollowCrumbs { leader: String, trail: usize },
    /// Keep to a road: terrain analysis of the 8 neighbours weighted by direction.
    FollowRoad { terrain: String },
    /// Explore by keeping one hand on the wall.
    WallTrace(Hand),
    /// Walk the agent's scripted route (keyboard agents without key input).
    Walk,
    /// Walk the shared flow field (Dijkstra from the goal's tile, `nav::flow`) towards the
    /// target's current tile, for the agent's body size.
    FlowTo(Target),
    /// Steer away from where the target will be in `predict` seconds (its velocity held).
    EvadeAhead(Target, f64),
    /// Go to the target and stop on it, slowing inside `slow` tiles (Reynolds' arrival).
    Arrive(Target, f64),
    /// Reynolds' smooth wander: a point on a circle ahead, moved each tick by at most `rate`
    /// radians per second; `strength` is the circle's radius against its distance of 1.
    Wander { rate: f64, strength: f64 },
    /// A flocking rule (separation, alignment or cohesion) over the neighbours in a radius.
    Flock(Box<FlockSpec>),
    /// Steer off the walls a body would touch within `ahead` tiles along its heading.
    AvoidWalls { ahead: f64 },
    /// Hold a place in the leader's frame: `offset.x` tiles ahead of it, `offset.y` to its
    /// right.
    Follow { leader: Target, offset: DVec2 },
    /// Walk a given list of tiles in order, its corners cut by line of sight when `smooth`.
    FollowPath(Box<TilePath>),
    /// The weighted sum of what each action asks for (tiles/s), clamped to the speed.
    Blend(Box<[(Action, f64)]>),
    /// The first action that asks for a non-zero velocity; none: stand still.
    First(Box<[Action]>),
}

/// Which of Reynolds' flocking rules a [`FlockSpec`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlockRule {
    /// Away from neighbours, weighted by the inverse of their distance.
    Separate,
    /// Along the neighbours' mean velocity.
    Align,
    /// Towards the neighbours' centre.
    Cohere,
}

/// A flocking rule over every other agent within `radius` tiles (of `kind` if given).
#[derive(Clone, Debug, PartialEq)]
pub struct FlockSpec {
    pub rule: FlockRule,
    pub radius: f64,
    pub kind: Option<String>,
}

/// The tiles `move.follow_path` walks, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct TilePath {
    pub tiles: Vec<glam::IVec2>,
    /// Cut corners by line of sight (string pulling) before walking.
    pub smooth: bool,
}

/// The Lennard-Jones potential `U(r) = -A / r^n + B / r^m`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LennardJones {
    pub a: f64,
    pub b: f64,
    pub n: f64,
    pub m: f64,
}

/// A potential-function movement: the forces of a target, of the other members of a swarm
/// and of nearby obstacles, summed.
#[derive(Clone, Debug, PartialEq)]
pub struct PotentialSpec {
    /// Something pulled towards / pushed from with `lj` (none for a pure swarm).
    pub target: Option<Target>,
    /// The potential between this agent and the target.
    pub lj: LennardJones,
    /// Swarm with every other agent of this kind, with `swarm_lj`.
    pub swarm: Option<String>,
    pub swarm_lj: LennardJones,
    /// Repulsion strength of blocked tiles (`B / r^m` with the target's `m`); 0 turns it off.
    pub obstacle: f64,
    /// How far (tiles) obstacles and swarm mates are felt.
    pub range: f64,
}

/// Which tracing-around-obstacles rule to use (see `docs/algorithms.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceVariant {
    /// Trace until the direct step towards the goal is free again.
    Basic,
    /// Trace until crossing the line from the tracing start to the goal.
    Improved,
    /// Trace until the goal is in line of sight, then walk the line.
    Sight,
}

/// Which hand stays on the wall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hand {
    Left,
    Right,
}

impl Action {
    /// The target this action moves relative to, if it has one.
    pub fn target_mut(&mut self) -> Option<&mut Target> {
        match self {
            Action::Chase(t)
            | Action::Evade(t)
            | Action::BasicChase(t)
            | Action::BasicEvade(t)
            | Action::LosChase(t)
            | Action::Intercept(t)
            | Action::WanderAvoid(t)
            | Action::FlowTo(t)
            | Action::EvadeAhead(t, _)
            | Action::Arrive(t, _)
            | Action::Follow { leader: t, .. }
            | Action::TraceAround { goal: t, .. } => Some(t),
            Action::Potential(spec) => spec.target.as_mut(),
            Action::Stop
            | Action::To(_)
            | Action::PathTo(..)
            | Action::Waypoints(_)
            | Action::TankTo(_)
            | Action::Steer(_)
            | Action::FollowCrumbs { .. }
            | Action::FollowRoad { .. }
            | Action::WallTrace(_)
            | Action::Wander { .. }
            | Action::Flock(_)
            | Action::AvoidWalls { .. }
            | Action::FollowPath(_)
            | Action::Blend(_)
            | Action::First(_)
            | Action::Walk => None,
        }
    }

    /// What the inspector shows, as a script would write it: the name a script uses, what the
    /// action is about and its options as a Lua table, e.g. `chase evader`, `to 3.50, 2.00`,
    /// `path_to tile 20, 2 {diagonal = "never"}`, `trace_around evader {variant = "improved",
    /// hand = "left"}`. Never Rust's `Debug` text.
    pub fn describe(&self) -> String {
        let name = self.name();
        let tile = |t: &glam::IVec2| format!("tile {}, {}", t.x, t.y);
        match self {
            Action::Stop | Action::Walk => name.into(),
            Action::Chase(t)
            | Action::Evade(t)
            | Action::BasicChase(t)
            | Action::BasicEvade(t)
            | Action::LosChase(t)
            | Action::Intercept(t)
            | Action::FlowTo(t)
            | Action::WanderAvoid(t) => format!("{name} {}", describe_target(t)),
            Action::To(p) => format!("{name} {:.2}, {:.2}", p.x, p.y),
            Action::PathTo(goal, options) => match describe_options(options) {
                o if o.is_empty() => format!("{name} {}", tile(goal)),
                o => format!("{name} {} {{{o}}}", tile(goal)),
            },
            Action::Waypoints(goal) | Action::TankTo(goal) => format!("{name} {}", tile(goal)),
            Action::Steer(d) => format!("{name} {}, {}", d.x, d.y),
            Action::Potential(spec) => match (&spec.target, &spec.swarm) {
                (Some(t), Some(kind)) => format!("{name} {kind}, {}", describe_target(t)),
                (Some(t), None) => format!("{name} {}", describe_target(t)),
                (None, Some(kind)) => format!("{name} {kind}"),
                (None, None) => name.into(),
            },
            Action::TraceAround {
                goal,
                variant,
                hand,
            } => format!(
                "{name} {} {{variant = \"{}\", hand = \"{}\"}}",
                describe_target(goal),
                match variant {
                    TraceVariant::Basic => "basic",
                    TraceVariant::Improved => "improved",
                    TraceVariant::Sight => "sight",
                },
                hand_name(*hand)
            ),
            Action::FollowCrumbs { leader, trail } => {
                format!("{name} of {leader} (newest {trail})")
            }
            Action::FollowRoad { terrain } => format!("{name} {terrain}"),
            Action::WallTrace(hand) => format!("{name} {{hand = \"{}\"}}", hand_name(*hand)),
            Action::EvadeAhead(t, s) => {
                format!("{name} {} {{predict = {}}}", describe_target(t), num(*s))
            }
            Action::Arrive(t, r) => format!("{name} {} {{slow = {}}}", describe_target(t), num(*r)),
            Action::Wander { rate, strength } => {
                format!(
                    "{name} {{rate = {}, strength = {}}}",
                    num(*rate),
                    num(*strength)
                )
            }
            Action::Flock(f) => match &f.kind {
                Some(k) => format!("{name} {{radius = {}, kind = \"{k}\"}}", num(f.radius)),
                None => format!("{name} {{radius = {}}}", num(f.radius)),
            },
            Action::AvoidWalls { ahead } => format!("{name} {{ahead = {}}}", num(*ahead)),
            Action::Follow { leader, offset } => format!(
                "{name} {} {{offset = {{{}, {}}}}}",
                describe_target(leader),
                num(offset.x),
                num(offset.y)
            ),
            Action::FollowPath(p) => match p.smooth {
                true => format!("{name} ({} tiles) {{smooth = true}}", p.tiles.len()),
                false => format!("{name} ({} tiles)", p.tiles.len()),
            },
            Action::Blend(parts) => {
                let parts: Vec<String> = parts
                    .iter()
                    .map(|(a, w)| format!("{{{}, {}}}", a.describe(), num(*w)))
                    .collect();
                format!("{name} {{{}}}", parts.join(", "))
            }
            Action::First(parts) => {
                let parts: Vec<String> = parts.iter().map(Action::describe).collect();
                format!("{name} {{{}}}", parts.join(", "))
            }
        }
    }

    /// The name shown in traces and the window.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Stop => "stop",
            Action::Chase(_) => "chase",
            Action::Evade(_) => "evade",
            Action::To(_) => "to",
            Action::PathTo(..) => "path_to",
            Action::Waypoints(_) => "waypoints",
            Action::TankTo(_) => "tank_to",
            Action::Steer(_) => "steer",
            Action::BasicChase(_) => "basic_chase",
            Action::BasicEvade(_) => "basic_evade",
            Action::LosChase(_) => "los_chase",
            Action::Intercept(_) => "intercept",
            Action::Potential(p) if p.swarm.is_some() => "swarm",
            Action::Potential(_) => "potential",
            Action::WanderAvoid(_) => "wander_avoid",
            Action::TraceAround { .. } => "trace_around",
            Action::FollowCrumbs { .. } => "follow_crumbs",
            Action::FollowRoad { .. } => "follow_road",
            Action::WallTrace(_) => "wall_trace",
            Action::Walk => "walk",
            Action::FlowTo(_) => "flow_to",
            Action::EvadeAhead(..) => "evade",
            Action::Arrive(..) => "arrive",
            Action::Wander { .. } => "wander",
            Action::Flock(f) => match f.rule {
                FlockRule::Separate => "separate",
                FlockRule::Align => "align",
                FlockRule::Cohere => "cohere",
            },
            Action::AvoidWalls { .. } => "avoid_walls",
            Action::Follow { .. } => "follow",
            Action::FollowPath(_) => "follow_path",
            Action::Blend(_) => "blend",
            Action::First(_) => "first",
        }
    }

    /// Whether the action moves by tile steps (grid primitives), which cannot be weighed as a
    /// velocity in `move.blend` or `move.first`.
    pub fn steps_on_tiles(&self) -> bool {
        matches!(
            self,
            Action::BasicChase(_)
                | Action::LosChase(_)
                | Action::WallTrace(_)
                | Action::TraceAround { .. }
                | Action::FollowCrumbs { .. }
                | Action::FollowRoad { .. }
        )
    }
}

/// A number as a script would write it (`2`, `0.5`).
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A hand as a script names it.
fn hand_name(hand: Hand) -> &'static str {
    match hand {
        Hand::Left => "left",
        Hand::Right => "right",
    }
}

/// An agent target by its id, a point by its coordinates.
fn describe_target(target: &Target) -> String {
    match target {
        Target::Agent(a) => a.id().to_string(),
        Target::Point(p) => format!("{:.2}, {:.2}", p.x, p.y),
    }
}

/// The path options that differ from the defaults, as the inside of the Lua table a script
/// would pass (`diagonal = "never", max_expanded = 500`).
fn describe_options(o: &super::PathOptions) -> String {
    use super::path_options::{Algorithm, Diagonal, Heuristic, StepCosts};
    let d = super::PathOptions::default();
    let mut out = Vec::new();
    if o.diagonal != d.diagonal {
        out.push(format!(
            "diagonal = \"{}\"",
            match o.diagonal {
                Diagonal::Never => "never",
                Diagonal::NoCornerCutting => "no_corner_cutting",
                Diagonal::IfOneSideFree => "one_side",
                Diagonal::Always => "always",
            }
        ));
    }
    if o.heuristic != d.heuristic {
        out.push(format!(
            "heuristic = \"{}\"",
            match o.heuristic {
                Heuristic::Octile => "octile",
                Heuristic::Manhattan => "manhattan",
                Heuristic::Euclidean => "euclidean",
                Heuristic::Zero => "zero",
            }
        ));
    }
    if o.step_costs != d.step_costs {
        out.push(format!(
            "costs = \"{}\"",
            match o.step_costs {
                StepCosts::Exact => "exact",
                StepCosts::Source => "source",
            }
        ));
    }
    if o.size != d.size {
        out.push(format!("size = {}", o.size));
    }
    if o.ignore_terrain_cost {
        out.push("ignore_terrain = true".into());
    }
    if let Some(n) = o.max_expanded {
        out.push(format!("max_expanded = {n}"));
    }
    if o.algorithm != d.algorithm {
        out.push(format!(
            "algorithm = \"{}\"",
            match o.algorithm {
                Algorithm::Auto => "auto",
                Algorithm::AStar => "astar",
                Algorithm::Jps => "jps",
            }
        ));
    }
    if o.keep_sets {
        out.push("sets = true".into());
    }
    if o.smooth {
        out.push("smooth = true".into());
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::path_options::Diagonal;
    use glam::IVec2;

    #[test]
    fn actions_describe_themselves_as_a_script_names_them() {
        let evader = Target::Agent(AgentRef::new("evader", 1));
        let options = PathOptions {
            diagonal: Diagonal::Never,
            max_expanded: Some(500),
            ..PathOptions::default()
        };
        let cases = [
            (Action::Stop, "stop"),
            (Action::Chase(evader.clone()), "chase evader"),
            (
                Action::Evade(Target::Point(DVec2::new(3.5, 2.0))),
                "evade 3.50, 2.00",
            ),
            (Action::To(DVec2::new(1.0, 0.25)), "to 1.00, 0.25"),
            (
                Action::PathTo(IVec2::new(20, 2), Box::default()),
                "path_to tile 20, 2",
            ),
            (
                Action::PathTo(IVec2::new(20, 2), Box::new(options)),
                "path_to tile 20, 2 {diagonal = \"never\", max_expanded = 500}",
            ),
            (
                Action::TraceAround {
                    goal: evader,
                    variant: TraceVariant::Improved,
                    hand: Hand::Left,
                },
                "trace_around evader {variant = \"improved\", hand = \"left\"}",
            ),
            (
                Action::FollowCrumbs {
                    leader: "scout".into(),
                    trail: 12,
                },
                "follow_crumbs of scout (newest 12)",
            ),
        ];
        let every_option = PathOptions {
            diagonal: Diagonal::Always,
            heuristic: crate::world::path_options::Heuristic::Manhattan,
            step_costs: crate::world::path_options::StepCosts::Source,
            ignore_terrain_cost: true,
            keep_sets: true,
            ..PathOptions::default()
        };
        let more = [
            (
                Action::PathTo(IVec2::new(19, 13), Box::new(every_option)),
                "path_to tile 19, 13 {diagonal = \"always\", heuristic = \"manhattan\", costs = \"source\", ignore_terrain = true, sets = true}",
            ),
            (Action::WallTrace(Hand::Right), "wall_trace {hand = \"right\"}"),
        ];
        for (action, text) in cases.into_iter().chain(more) {
            let described = action.describe();
            assert_eq!(described, text);
            // Nothing of Rust's Debug text: type names, struct braces.
            for debug in ["IVec2", "DVec2", "Options", "{ ", "(", "::"] {
                if debug == "(" && described.contains("(newest") {
                    continue;
                }
                assert!(!described.contains(debug), "{described}");
            }
        }
    }
}
