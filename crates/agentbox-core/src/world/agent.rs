//! Agents: identity, body, motion state and what drives them.

use super::action::Action;
use super::motion::{Motion, MoveMemory, Walk};
use super::Tile;
use glam::DVec2;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// What makes an agent's decisions.
#[derive(Clone, Debug, PartialEq)]
pub enum Brain {
    /// Stands still: a target, a flag.
    None,
    /// A Lua script (the path as resolved from the scene file), shared by every agent that
    /// runs it (a spawned agent's is its template's, not a copy).
    Script(Arc<Path>),
    /// Arrow keys / WASD in the window.
    Keyboard,
}

/// The trail of tiles an agent leaves: index 0 is the newest, at most `max` kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Crumbs {
    pub max: usize,
    pub tiles: VecDeque<Tile>,
}

impl Crumbs {
    /// Drops a crumb on `tile` unless it is already the newest one.
    pub fn drop_on(&mut self, tile: Tile) {
        if self.max == 0 || self.tiles.front() == Some(&tile) {
            return;
        }
        self.tiles.push_front(tile);
        self.tiles.truncate(self.max);
    }
}

/// Which primitive planned a route.
#[derive(Clone, Debug, PartialEq)]
pub enum RouteKind {
    /// `path_to`: A* with these options.
    AStar(super::PathOptions),
    /// `waypoints`: through the node table.
    Waypoints,
    /// `tank_to`: turn-and-drive legs.
    Tank,
}

/// One turn-and-drive command of a tank: face `dir` (a unit step of 4 directions), then drive
/// `distance` tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leg {
    pub dir: Tile,
    pub distance: u32,
}

/// A route being followed: the tiles still to visit, planned for a goal on one map version.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub goal: Tile,
    pub map_version: u64,
    /// Remaining tile centres to pass through, next first (for a tank: the end of each leg).
    pub tiles: VecDeque<Tile>,
    /// Who planned it, with what options; a different primitive or options re-plans.
    pub kind: RouteKind,
    /// A tank's remaining legs, next first (empty for other routes).
    pub legs: VecDeque<Leg>,
    /// A smoothed route's grid path before its corners were cut (for the routes overlay;
    /// `None` for other routes).
    pub grid: Option<Box<[Tile]>>,
}

/// An agent's `params`: one JSON map shared by every agent that has the same (a spawned crowd
/// of 20,000 holds one); whoever changes an agent's copies it first (`Arc::make_mut`).
pub type Params = std::sync::Arc<serde_json::Value>;

/// The empty `params` every agent starts with, shared.
pub fn no_params() -> Params {
    static EMPTY: std::sync::LazyLock<Params> =
        std::sync::LazyLock::new(|| Params::new(serde_json::Value::Object(Default::default())));
    Params::clone(&EMPTY)
}

/// Makes agents whose `params` are equal share one map (listed agents each read their own
/// from the scene file). Compares each with the few distinct maps seen last, so it costs
/// little for a long list of equal entries and stays linear for a list of distinct ones.
pub fn share_equal_params(agents: &mut [Agent]) {
    const RECENT: usize = 8;
    let mut recent: Vec<Params> = Vec::with_capacity(RECENT);
    for agent in agents {
        if let Some(same) = recent
            .iter()
            .find(|p| std::sync::Arc::ptr_eq(p, &agent.params) || **p == agent.params)
        {
            agent.params = Params::clone(same);
            continue;
        }
        if recent.len() == RECENT {
            recent.remove(0);
        }
        recent.push(Params::clone(&agent.params));
    }
}

#[derive(Clone, Debug)]
pub struct Agent {
    pub id: String,
    pub kind: String,
    /// Position in tile units; integers are tile centres.
    pub pos: DVec2,
    /// Velocity of the last tick, tiles per second.
    pub vel: DVec2,
    /// The direction of the agent's last move (east before its first): what [`Agent::heading`]
    /// reads. Kept as the move rather than as an angle, so a tick of a crowd computes no
    /// `atan2`; a script, a turn limit or the window that reads the heading computes it.
    facing: DVec2,
    /// Top speed, tiles per second.
    pub speed: f64,
    /// Body radius in tiles (`radius:` in the scene, default 0.3), for walls, contacts and
    /// avoidance; the free body is this circle whatever its planning `size`.
    pub radius: f64,
    /// Most change of velocity, tiles per second squared (`max_force:`); `None`: the velocity
    /// changes at once to what the primitive asks.
    pub max_force: Option<f64>,
    /// ORCA local avoidance with this time horizon in seconds (`avoid: true`,
    /// `avoid_horizon:`); `None`: the agent does not avoid.
    pub avoid_horizon: Option<f64>,
    /// Side of the square body in tiles for planning (`size:` in the scene, default 1); the
    /// agent's tile is the body's top-left cell.
    pub size: u32,
    /// How far the agent senses, in tiles (`sense:` in the scene; shown by the bodies overlay,
    /// read by scripts as `self.sense`).
    pub sense: Option<f64>,
    pub brain: Brain,
    /// The scene's `params` mapping, as JSON; shared by the agents whose params are equal (a
    /// crowd's are one map), and copied only by the one that changes (`Arc::make_mut`).
    pub params: Params,
    pub crumbs: Crumbs,
    /// The decision being executed.
    pub action: Action,
    /// The route a route-following primitive (`path_to`, `waypoints`, `tank_to`) is following,
    /// if any (boxed: most agents never have one, and the tick walks every agent).
    pub route: Option<Box<Route>>,
    /// The last script error this agent hit, cleared by the next good decision.
    pub error: Option<super::ScriptError>,
    /// Stopped for spending its work budget or memory: its script is not called until it
    /// reloads (or a module it requires does), the scene resets or the designer resumes it.
    pub suspended: bool,
    /// What the agent's movement primitive wants drawn after the last tick (overlays).
    pub debug: Vec<super::Shape>,
    /// Tile-stepping or free motion.
    pub motion: Motion,
    /// Most radians per second a free agent's heading may turn; `None` for no limit.
    pub turn_rate: Option<f64>,
    /// What the current action's primitive remembers; cleared when the action changes.
    pub memory: MoveMemory,
    /// The tile centre a tile step is heading for, if one is under way.
    pub stepping: Option<Tile>,
    /// This agent's random stream for movement (`rng::stream(seed, id, "move")`; only its key
    /// until a primitive first draws from it: few do, and the tick walks every agent).
    pub rng: super::rng::AgentRng,
    /// The scripted route of a keyboard agent.
    pub walk: Walk,
    /// The state name its script last set (`self:label("search")`, at most
    /// [`Agent::MAX_LABEL`] bytes); shown over the agent and written to the trace.
    pub label: Option<Box<str>>,
    /// The messages and noises that reached the agent for this tick (`self:inbox()`,
    /// `self:heard()`); boxed, since most agents hear nothing most ticks.
    pub deliveries: Option<Box<super::Deliveries>>,
    /// How the window draws it (`color:` and `shape:` in the scene); display only, never
    /// read by the simulation or written to the trace.
    pub look: Look,
}

/// How the window draws an agent: its colour and marker as the scene chose them (`None`:
/// the window's default for its kind).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Look {
    /// `color: "#rrggbb"`.
    pub color: Option<[u8; 3]>,
    /// `shape: circle | arrow | square | diamond`.
    pub shape: Option<Marker>,
}

/// The marker an agent is drawn as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    /// A triangle pointing along its heading.
    Arrow,
    Square,
    Diamond,
}

impl Marker {
    /// Every marker with its scene name, in the order the docs list them.
    pub const ALL: [(Marker, &'static str); 4] = [
        (Marker::Circle, "circle"),
        (Marker::Arrow, "arrow"),
        (Marker::Square, "square"),
        (Marker::Diamond, "diamond"),
    ];

    /// The marker a scene names, if any.
    pub fn named(name: &str) -> Option<Marker> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
    }
}

impl Agent {
    /// The longest label a script may set, in bytes.
    pub const MAX_LABEL: usize = 32;

    /// Facing, radians; 0 is +x (east), positive turns towards +y (south, down the screen):
    /// the direction of the last move (the same number whether read now or when it moved).
    pub fn heading(&self) -> f64 {
        self.facing.y.atan2(self.facing.x)
    }

    /// The unit vector the agent faces (what `heading` is the angle of).
    pub fn facing(&self) -> DVec2 {
        self.facing.try_normalize().unwrap_or(DVec2::X)
    }

    /// Faces along `delta`, a move of non-zero length.
    pub fn face(&mut self, delta: DVec2) {
        self.facing = delta;
    }

    /// An agent standing still at a tile centre with default body and speed.
    pub fn new(id: impl Into<String>, tile: Tile) -> Self {
        let id = id.into();
        let id_for_rng = id.clone();
        Agent {
            kind: id.clone(),
            id,
            pos: super::centre_of(tile),
            vel: DVec2::ZERO,
            facing: DVec2::X,
            speed: 4.0,
            radius: 0.3,
            max_force: None,
            avoid_horizon: None,
            size: 1,
            sense: None,
            brain: Brain::None,
            params: no_params(),
            crumbs: Crumbs::default(),
            action: Action::Stop,
            route: None,
            error: None,
            suspended: false,
            debug: Vec::new(),
            motion: Motion::Free,
            turn_rate: None,
            memory: MoveMemory::None,
            stepping: None,
            rng: super::rng::AgentRng::new(0, &id_for_rng),
            walk: Walk::default(),
            label: None,
            deliveries: None,
            look: Look::default(),
        }
    }

    pub fn tile(&self) -> Tile {
        super::tile_of(self.pos)
    }

    /// A new agent `id` made like `template` (a spawn, from `World::templates`), standing on
    /// the centre of `at` with a trail of that one tile, its own movement stream for the
    /// scene seed `seed` and nothing drawn; every other field is the template's, as its clone
    /// has it. Made field by field so the template's id and trail are not copied only to be
    /// replaced (a crowd spawned in one tick paid for both). `kind` is the template's kind as
    /// the caller holds it (the spawn's own string, kept instead of a copy of the template's).
    pub fn spawned_from(template: &Agent, id: String, kind: String, at: Tile, seed: u64) -> Agent {
        debug_assert_eq!(
            kind, template.kind,
            "a spawn is made like its kind's template"
        );
        let mut crumbs = Crumbs {
            max: template.crumbs.max,
            tiles: VecDeque::new(),
        };
        crumbs.drop_on(at);
        Agent {
            rng: super::rng::AgentRng::new(seed, &id),
            id,
            kind,
            pos: super::centre_of(at),
            vel: template.vel,
            facing: template.facing,
            speed: template.speed,
            radius: template.radius,
            max_force: template.max_force,
            avoid_horizon: template.avoid_horizon,
            size: template.size,
            sense: template.sense,
            brain: template.brain.clone(),
            params: template.params.clone(),
            crumbs,
            action: template.action.clone(),
            route: template.route.clone(),
            error: template.error.clone(),
            suspended: template.suspended,
            // Nothing drawn yet, but room for the one line most steps draw: the step lends
            // each agent a list handed back by the agent before it, so a crowd spawned in one
            // tick would otherwise grow every new agent's list from nothing and trim it.
            debug: Vec::with_capacity(1),
            motion: template.motion,
            turn_rate: template.turn_rate,
            memory: template.memory.clone(),
            stepping: template.stepping,
            walk: template.walk.clone(),
            label: template.label.clone(),
            deliveries: template.deliveries.clone(),
            look: template.look,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    #[test]
    fn crumbs_keep_the_newest_first_and_at_most_max() {
        let mut c = Crumbs {
            max: 3,
            ..Default::default()
        };
        for x in 0..5 {
            c.drop_on(IVec2::new(x, 0));
            c.drop_on(IVec2::new(x, 0));
        }
        let xs: Vec<i32> = c.tiles.iter().map(|t| t.x).collect();
        assert_eq!(xs, vec![4, 3, 2]);
    }

    #[test]
    fn heading_is_the_angle_of_the_last_move() {
        let mut a = Agent::new("a", Tile::new(0, 0));
        assert_eq!(a.heading(), 0.0);
        assert_eq!(a.facing(), DVec2::X);
        let moves = [
            DVec2::new(0.0, 0.5),
            DVec2::new(-0.03, -0.04),
            DVec2::new(1e-7, 2e-7),
        ];
        for d in moves {
            a.face(d);
            assert_eq!(a.heading().to_bits(), d.y.atan2(d.x).to_bits());
            assert!((a.facing() - d.normalize()).length() < 1e-12);
        }
    }
}
