//! The choices a path search takes ([`PathOptions`]): plain data, kept in the world layer so a
//! decision (`Action::PathTo`) can carry them; the searches that read them live in `nav/`.

/// When a diagonal step is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Diagonal {
    /// 4-connected: no diagonal steps.
    Never,
    /// Both orthogonal side cells must be free (MovingAI's rule; the default).
    #[default]
    NoCornerCutting,
    /// At least one side cell must be free.
    IfOneSideFree,
    /// Always, even between two blocked side cells.
    Always,
}

/// The estimate of the remaining cost (scaled by the cheapest terrain of the map, so it never
/// counts more than the cheapest possible way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Heuristic {
    /// `max(dx, dy) + (diagonal - 1) * min(dx, dy)`: exact on an open map with diagonal steps,
    /// admissible, the default. With 4-connected search it is admissible but weaker than
    /// Manhattan.
    #[default]
    Octile,
    /// `dx + dy`, the classic A* tutorials'. Exact for 4-connected search; with diagonal steps it
    /// overestimates (a diagonal step counts 2), so paths may then be longer than optimal.
    Manhattan,
    /// Straight-line distance: admissible, weaker than octile.
    Euclidean,
    /// No estimate: Dijkstra's algorithm.
    Zero,
}

/// What one straight and one diagonal step cost (before the terrain factor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StepCosts {
    /// 1 and sqrt 2: costs are lengths in tiles (MovingAI's rule; the default).
    #[default]
    Exact,
    /// 10 and 14, the integer costs of classic A* tutorials.
    Source,
}

impl StepCosts {
    /// (straight, diagonal) step costs.
    pub fn units(self) -> (f64, f64) {
        match self {
            StepCosts::Exact => (1.0, std::f64::consts::SQRT_2),
            StepCosts::Source => (10.0, 14.0),
        }
    }
}

/// Which search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Jump point search where it gives the same optimal cost (uniform terrain cost, a body of
    /// one tile, no corner cutting, octile or zero heuristic, no expansion limit), else A*.
    #[default]
    Auto,
    /// Always plain A*.
    AStar,
    /// Jump point search when valid (as for `Auto`), else A*.
    Jps,
}

/// Choices for one search. `PathOptions::default()` gives optimal MovingAI-style paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathOptions {
    pub diagonal: Diagonal,
    pub heuristic: Heuristic,
    pub step_costs: StepCosts,
    /// Side of the agent's square body in tiles (1 = one tile). The body's top-left cell is the
    /// agent's tile; the body only stands where all its cells are free, and entering a position
    /// costs the dearest cell under the body.
    pub size: u32,
    /// Treat every free cell as cost 1, ignoring terrain costs (the tank of `move.tank_to`).
    pub ignore_terrain_cost: bool,
    /// Stop after expanding this many nodes and return the path to the closest node reached
    /// (smallest estimate to the goal); the result is then marked incomplete.
    pub max_expanded: Option<usize>,
    pub algorithm: Algorithm,
    /// Return the open and closed sets in the result (for the debug overlay); costs a scan of
    /// the map after the search.
    pub keep_sets: bool,
    /// Walk the route with its corners cut by line of sight (string pulling, `movement::smooth`):
    /// read by `move.path_to` when it walks; the search itself is the same.
    pub smooth: bool,
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            diagonal: Diagonal::default(),
            heuristic: Heuristic::default(),
            step_costs: StepCosts::default(),
            size: 1,
            ignore_terrain_cost: false,
            max_expanded: None,
            algorithm: Algorithm::default(),
            keep_sets: false,
            smooth: false,
        }
    }
}

/// Why a search found no path, as `nav.path` and `move.path_to` report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPath {
    /// An end is inside the map but blocked for the body (a wall, or no room for its size).
    Blocked,
    /// Both ends are free, but no way joins them.
    Unreachable,
    /// An end lies outside the map.
    OffMap,
}

impl NoPath {
    /// The name scripts, the trace and the inspector show: `blocked`, `unreachable`, `off_map`.
    pub fn name(self) -> &'static str {
        match self {
            NoPath::Blocked => "blocked",
            NoPath::Unreachable => "unreachable",
            NoPath::OffMap => "off_map",
        }
    }

    /// A sentence for a person (the window's inspector).
    pub fn describe(self) -> &'static str {
        match self {
            NoPath::Blocked => "the start or the goal is blocked for this body",
            NoPath::Unreachable => "no way leads from the start to the goal",
            NoPath::OffMap => "the start or the goal is outside the map",
        }
    }
}
