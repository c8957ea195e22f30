//! The one description of the Lua API: every `move.*`, `nav.*`, `world:` and action function
//! with its parameters, returns and doc, and the shapes scripts see (`self`, agent views,
//! positions). The lua-language-server stubs (`types/agentbox.lua`), the `.luarc.json` and the
//! reference page (`docs/lua-api.md`) are generated from it (`agentbox api`), and a test
//! compares it with the functions actually bound in a live Lua state, so neither can drift.
//!
//! Plain data and text generation: nothing here runs Lua.

/// Bumped when the Lua API changes in a way scripts can notice.
pub const API_VERSION: u32 = 3;

/// Where a function lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// `move.NAME(...)`: movement primitives; each returns an action.
    Move,
    /// `nav.NAME(...)`: navigation queries.
    Nav,
    /// `world:NAME(...)`: read-only queries on the world of this tick.
    World,
    /// `action:NAME(...)`: methods of the actions `move.*` returns.
    Action,
    /// `draw.NAME(...)`: debug shapes for the current tick (the window's V overlay).
    Draw,
}

impl Home {
    pub fn title(self) -> &'static str {
        match self {
            Home::Move => "move",
            Home::Nav => "nav",
            Home::World => "world",
            Home::Action => "action",
            Home::Draw => "draw",
        }
    }

    fn call(self, name: &str) -> String {
        match self {
            Home::Move => format!("move.{name}"),
            Home::Nav => format!("nav.{name}"),
            Home::World => format!("world:{name}"),
            Home::Action => format!("action:{name}"),
            Home::Draw => format!("draw.{name}"),
        }
    }
}

/// A parameter; a name ending in `?` is optional.
pub struct Param {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

/// A bound function.
pub struct Function {
    pub home: Home,
    pub name: &'static str,
    pub params: &'static [Param],
    /// `(type, doc)` of each return value.
    pub returns: &'static [(&'static str, &'static str)],
    pub doc: &'static str,
}

/// A field of a class.
pub struct Field {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

/// A table shape scripts see.
pub struct Class {
    pub name: &'static str,
    pub parent: Option<&'static str>,
    pub doc: &'static str,
    pub fields: &'static [Field],
}

/// A named union of types.
pub struct Alias {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

const fn p(name: &'static str, ty: &'static str, doc: &'static str) -> Param {
    Param { name, ty, doc }
}

const fn f(name: &'static str, ty: &'static str, doc: &'static str) -> Field {
    Field { name, ty, doc }
}

pub const ALIASES: &[Alias] = &[
    Alias {
        name: "agentbox.PosLike",
        ty: "agentbox.Pos|number[]|agentbox.AgentView",
        doc: "A position: `{x = 1, y = 2}`, `{1, 2}`, or an agent view (its `pos`). Both numbers must be finite: NaN or an infinity is an error naming the argument (`bad argument #2 to 'nav.los': x is not a finite number`). A point off the map is moved to the nearest point at most one tile off it before a `move.*` primitive, a `nav.*` query or `world:terrain`/`world:blocked` uses it (it stays off the map: blocked, no terrain, no path), so no call works in proportion to how far away it is; `world:nearest` and `world:agents` measure from the point as given.",
    },
    Alias {
        name: "agentbox.Target",
        ty: "string|agentbox.AgentView|agentbox.PosLike",
        doc: "Something to move relative to: an agent id or view (followed as it moves), or a fixed position.",
    },
];

pub const CLASSES: &[Class] = &[
    Class {
        name: "agentbox.Pos",
        parent: None,
        doc: "A position in tile units; integers are tile centres, row 0 is the top.",
        fields: &[f("x", "number", "Column."), f("y", "number", "Row.")],
    },
    Class {
        name: "agentbox.Tile",
        parent: None,
        doc: "A tile `[column, row]` as integers.",
        fields: &[f("x", "integer", "Column."), f("y", "integer", "Row.")],
    },
    Class {
        name: "agentbox.AgentView",
        parent: None,
        doc: "What a script sees of an agent during one tick. Views are read-only: every field is read from the tick being decided at the moment you read it (an agent's `self` shares `pos`, `vel` and `tile` with its view), so copy the numbers you want to keep, and do not write to them. Read fields by name: a view holds no field of its own (`pairs` and `rawget` see none), `self` holds `id`, `kind`, `params`, `memory` and, once read, `pos`, `vel` and `tile`; the metatable is locked.",
        fields: &[
            f("id", "string", "Unique id."),
            f("kind", "string", "The scene's `kind` (default: the id)."),
            f("pos", "agentbox.Pos", "Position in tiles."),
            f("vel", "agentbox.Pos", "Velocity of the last tick, tiles per second."),
            f("heading", "number", "Facing in radians; 0 is east, positive turns south."),
            f("speed", "number", "Top speed, tiles per second."),
            f("tile", "agentbox.Tile", "The tile it stands on."),
            f("action", "string", "The name of the action it is executing, e.g. \"chase\"."),
            f("sense", "number|nil", "How far it senses, in tiles (the scene's `sense`), or nil."),
        ],
    },
    Class {
        name: "agentbox.Self",
        parent: Some("agentbox.AgentView"),
        doc: "The agent deciding: its view plus what persists.",
        fields: &[
            f("params", "table<string, any>", "The scene's `params` mapping."),
            f("memory", "table<string, any>", "Kept across ticks and hot reloads; made the first time it is read (so `pairs(self)` lists it only after that)."),
            f("label", "fun(self: agentbox.Self, name: string|nil)", "`self:label(\"search\")` sets a short state name (at most 32 bytes; nil clears it): it stays until changed, is shown over the agent (L) and on its decision timeline in the inspector, and is written to the trace as `label`. Call it in `init` or `decide`."),
        ],
    },
    Class {
        name: "agentbox.SightOptions",
        parent: None,
        doc: "Options of `nav.sees` (every key optional; unknown keys are errors).",
        fields: &[
            f("range?", "number", "The farthest distance seen in tiles (default: the looker's `sense`, else no limit)."),
            f("fov?", "number", "The cone's full angle in degrees, more than 0 and at most 360 (default 360: all round)."),
            f("facing?", "number|agentbox.PosLike", "The direction the cone faces: radians (0 east, as `heading`) or a position to face (default: the looking agent's heading; needed when looking from a position with a cone)."),
        ],
    },
    Class {
        name: "agentbox.PathOptions",
        parent: None,
        doc: "Options of `nav.path` and `move.path_to` (every key optional; unknown keys and values are errors).",
        fields: &[
            f("diagonal?", "\"no_corner_cutting\"|\"one_side\"|\"always\"|\"never\"", "When diagonal steps are allowed (default no_corner_cutting: both side cells free; never: 4-connected)."),
            f("heuristic?", "\"octile\"|\"manhattan\"|\"euclidean\"|\"zero\"", "A* estimate (default octile; manhattan overestimates with diagonals; zero is Dijkstra)."),
            f("costs?", "\"exact\"|\"source\"", "Step costs: exact (1 and sqrt 2, default) or source (10 and 14, as classic A* tutorials), times the terrain cost."),
            f("size?", "integer", "An N x N body whose top-left cell is the tile (1 to 64)."),
            f("ignore_terrain?", "boolean", "Every free cell costs 1."),
            f("max_expanded?", "integer", "Stop after this many expansions and return the path to the closest node reached."),
            f("algorithm?", "\"auto\"|\"astar\"|\"jps\"", "auto (default): jump point search where it is exact, else A*."),
            f("sets?", "boolean", "Return the open and closed sets in the info table."),
        ],
    },
    Class {
        name: "agentbox.PathInfo",
        parent: None,
        doc: "The second result of `nav.path`.",
        fields: &[
            f("reason?", "\"blocked\"|\"unreachable\"|\"off_map\"", "Why there is no path (only when the path is nil): an end is blocked for the body, no way joins the ends, or an end is outside the map."),
            f("cost", "number", "The path's cost."),
            f("expanded", "integer", "Nodes expanded."),
            f("complete", "boolean", "False when max_expanded stopped the search early."),
            f("jps", "boolean", "Whether jump point search was used."),
            f("open?", "agentbox.Tile[]", "The open set (with sets = true)."),
            f("closed?", "agentbox.Tile[]", "The closed set (with sets = true)."),
        ],
    },
    Class {
        name: "agentbox.FlowField",
        parent: None,
        doc: "What `nav.flow` returns: a read-only handle on a shared Dijkstra field towards one goal tile (call its functions with `:`).",
        fields: &[
            f("next", "fun(self: agentbox.FlowField, pos: agentbox.PosLike): agentbox.Tile|nil", "The neighbour tile to step to from `pos`'s tile towards the goal; nil on the goal, on a blocked tile, off the map or where the goal cannot be reached."),
            f("cost", "fun(self: agentbox.FlowField, pos: agentbox.PosLike): number|nil", "The cost of the cheapest walk from `pos`'s tile to the goal (0 on the goal); nil where there is none."),
            f("goal", "fun(self: agentbox.FlowField): agentbox.Tile", "The goal tile."),
        ],
    },
    Class {
        name: "agentbox.AgentsFilter",
        parent: None,
        doc: "Filter of `world:agents`.",
        fields: &[
            f("kind?", "string", "Only agents of this kind."),
            f("within?", "number", "Only agents within this many tiles (uses the spatial index)."),
            f("around?", "agentbox.PosLike", "Centre for `within` (default: the deciding agent, which is left out; an agent view given here is left out too)."),
        ],
    },
    Class {
        name: "agentbox.Behaviour",
        parent: None,
        doc: "The table a behaviour script returns.",
        fields: &[
            f("init?", "fun(self: agentbox.Self)", "Once per agent, before its first decision."),
            f("decide", "fun(self: agentbox.Self, world: agentbox.World): agentbox.Action", "Every tick: return an action from `move.*`."),
            f("on_reload?", "fun(self: agentbox.Self)", "After a hot reload of the script, memory intact."),
        ],
    },
];

pub const FUNCTIONS: &[Function] = &[
    // move
    Function {
        home: Home::Move,
        name: "stop",
        params: &[],
        returns: &[("agentbox.Action", "Stand still.")],
        doc: "Stand still this tick.",
    },
    Function {
        home: Home::Move,
        name: "chase",
        params: &[p("target", "agentbox.Target", "Who or where to run at.")],
        returns: &[("agentbox.Action", "The chase.")],
        doc: "Steer straight at the target's current position at full speed (line-of-sight chase).",
    },
    Function {
        home: Home::Move,
        name: "evade",
        params: &[p("target", "agentbox.Target", "Who or where to run from.")],
        returns: &[("agentbox.Action", "The evasion.")],
        doc: "Steer straight away from the target's current position at full speed.",
    },
    Function {
        home: Home::Move,
        name: "to",
        params: &[p("point", "agentbox.PosLike", "Where to go.")],
        returns: &[("agentbox.Action", "The move.")],
        doc: "Go straight to a point and stop on it (no planning).",
    },
    Function {
        home: Home::Move,
        name: "path_to",
        params: &[
            p("goal", "agentbox.PosLike", "The goal (rounded to its tile)."),
            p("opts?", "agentbox.PathOptions", "Search options; the agent's scene `size` is used when opts.size is smaller."),
        ],
        returns: &[("agentbox.Action", "The route following.")],
        doc: "Follow an A* route to a tile; re-planned natively when the goal, the options or the map change. With no route the agent stands still and the reason (`blocked`, `unreachable`, `off_map`) shows as `no_path` in the trace and in the window's inspector.",
    },
    Function {
        home: Home::Move,
        name: "flow_to",
        params: &[p("goal", "agentbox.Target", "Who or where to walk to (its current tile).")],
        returns: &[("agentbox.Action", "The flow-field walk.")],
        doc: "Walk the shared flow field towards the goal's tile, from tile centre to tile centre: one Dijkstra field per goal tile, map and body size (`nav.flow`), shared by every agent walking there, so a crowd costs one search. A moving goal gets the field of the tile it stands on (recent ones stay cached). The agent stands still on the goal's tile and where the goal cannot be reached.",
    },
    Function {
        home: Home::Move,
        name: "waypoints",
        params: &[p("goal", "agentbox.PosLike", "The goal tile.")],
        returns: &[("agentbox.Action", "The waypoint travel.")],
        doc: "Travel the waypoint route to the goal (see `nav.waypoint_route`), each leg along its Bresenham line.",
    },
    Function {
        home: Home::Move,
        name: "tank_to",
        params: &[p("goal", "agentbox.PosLike", "The goal tile.")],
        returns: &[("agentbox.Action", "The tank drive.")],
        doc: "The tank-battle A*: plan for the agent's `size` body with 4 directions, cost 1 a step and a Manhattan estimate, and drive turn-and-drive legs; with no route it stays put.",
    },
    Function {
        home: Home::Move,
        name: "basic_chase",
        params: &[p("target", "agentbox.Target", "Who or where to run at.")],
        returns: &[("agentbox.Action", "The basic chase.")],
        doc: "Basic chase on tiles: each step, move each axis one tile towards the target (a bent trail: diagonal first, then straight).",
    },
    Function {
        home: Home::Move,
        name: "basic_evade",
        params: &[p("target", "agentbox.Target", "Who or where to run from.")],
        returns: &[("agentbox.Action", "The basic evasion.")],
        doc: "Basic evade on tiles: each step, move each axis one tile away from the threat (an axis both stand level on does not move).",
    },
    Function {
        home: Home::Move,
        name: "los_chase",
        params: &[p("target", "agentbox.Target", "Who or where to run at.")],
        returns: &[("agentbox.Action", "The line-of-sight chase.")],
        doc: "Line-of-sight chase on tiles: walk a Bresenham line to the target, rebuilt whenever the target moves to another tile.",
    },
    Function {
        home: Home::Move,
        name: "intercept",
        params: &[p("target", "agentbox.Target", "The prey.")],
        returns: &[("agentbox.Action", "The interception.")],
        doc: "Intercept: aim at where the prey will be (its velocity times the closing time), so a slower predator can cut off a faster prey.",
    },
    Function {
        home: Home::Move,
        name: "wander_avoid",
        params: &[p("target", "agentbox.Target", "Where to head.")],
        returns: &[("agentbox.Action", "The random-movement avoidance.")],
        doc: "Random-movement obstacle avoidance: straight at the target while it is in sight, otherwise a seeded random heading held for half a second.",
    },
    Function {
        home: Home::Move,
        name: "potential",
        params: &[p("opts", "{target: agentbox.Target, A?: number, B?: number, n?: number, m?: number, obstacle?: number, range?: number}", "The target, Lennard-Jones parameters (attraction A, repulsion B, exponents n and m), obstacle repulsion and range in tiles.")],
        returns: &[("agentbox.Action", "The potential-function movement.")],
        doc: "Potential-function movement: the Lennard-Jones force U(r) = -A/r^n + B/r^m towards a target, pushed off obstacles.",
    },
    Function {
        home: Home::Move,
        name: "swarm",
        params: &[p("opts", "{kind: string, A?: number, B?: number, n?: number, m?: number, target?: agentbox.Target, target_A?: number, target_B?: number, target_n?: number, target_m?: number, obstacle?: number, range?: number}", "The swarm's kind, Lennard-Jones parameters between mates, an optional target with its own parameters (target_*), obstacle repulsion and range in tiles.")],
        returns: &[("agentbox.Action", "The swarming.")],
        doc: "Swarm with the agents of a kind: Lennard-Jones attraction and repulsion between mates (and towards an optional target).",
    },
    Function {
        home: Home::Move,
        name: "trace_around",
        params: &[
            p("goal", "agentbox.Target", "Where to go."),
            p("opts?", "{variant?: \"basic\"|\"improved\"|\"sight\", hand?: \"left\"|\"right\"}", "The tracing variant (default improved) and the hand kept on the wall (default left)."),
        ],
        returns: &[("agentbox.Action", "The obstacle tracing.")],
        doc: "Tracing around obstacles on tiles: head for the goal, follow an obstacle's edge when blocked, leave it by the variant's rule.",
    },
    Function {
        home: Home::Move,
        name: "follow_crumbs",
        params: &[
            p("leader", "string|agentbox.AgentView", "The agent whose breadcrumbs to follow."),
            p("opts?", "{trail?: integer}", "How many of its newest crumbs to look at (default 15, as in the book)."),
        ],
        returns: &[("agentbox.Action", "The breadcrumb following.")],
        doc: "Breadcrumb pathfinding: step onto the newest crumb of the leader's trail found around the follower.",
    },
    Function {
        home: Home::Move,
        name: "follow_road",
        params: &[p("opts?", "{terrain?: string}", "The terrain that counts as road (default \"road\").")],
        returns: &[("agentbox.Action", "The road following.")],
        doc: "Path following on roads: weigh the 8 neighbours (road, and the current direction) and step to the best.",
    },
    Function {
        home: Home::Move,
        name: "wall_trace",
        params: &[p("opts?", "{hand?: \"left\"|\"right\"}", "The hand kept on the wall (default left).")],
        returns: &[("agentbox.Action", "The wall tracing.")],
        doc: "Wall tracing on tiles: relative to its facing, try turning to the hand's side, straight ahead, the other side, then back.",
    },
    // nav
    Function {
        home: Home::Nav,
        name: "los",
        params: &[
            p("a", "agentbox.PosLike", "One end."),
            p("b", "agentbox.PosLike", "The other end."),
        ],
        returns: &[(
            "boolean",
            "Whether no blocked tile lies between the two tiles.",
        )],
        doc: "Line of sight between two tiles over the current map (false when either is off the map).",
    },
    Function {
        home: Home::Nav,
        name: "sees",
        params: &[
            p("from", "agentbox.PosLike", "The looker: an agent (its heading and `sense` are the defaults) or a position."),
            p("target", "agentbox.PosLike", "An agent view or a position."),
            p("opts?", "agentbox.SightOptions", "`range`, `fov`, `facing`."),
        ],
        returns: &[("boolean", "Whether the target is in range, inside the cone and in line of sight.")],
        doc: "What an agent sees: in range, in its view cone (`fov`, the full angle in degrees, facing its heading unless `facing` says otherwise) and in line of sight (as `nav.los`). `nav.sees(self, prey, {range = 8, fov = 90})`. The sight overlay (2) draws the calls a script made this tick.",
    },
    Function {
        home: Home::Nav,
        name: "line",
        params: &[
            p("a", "agentbox.PosLike", "First tile."),
            p("b", "agentbox.PosLike", "Last tile."),
        ],
        returns: &[("agentbox.Tile[]", "The cells from a to b, both included.")],
        doc: "Bresenham line between two tiles (ends off the map first moved to at most one tile off it; outside `init` and `decide`, with no map, lines longer than 4100 cells are an error).",
    },
    Function {
        home: Home::Nav,
        name: "path",
        params: &[
            p("from", "agentbox.PosLike", "Start tile."),
            p("to", "agentbox.PosLike", "Goal tile."),
            p("opts?", "agentbox.PathOptions", "Diagonal rule, heuristic, costs, body size, limits, algorithm."),
        ],
        returns: &[
            ("agentbox.Tile[]|nil", "The tiles from start to goal (both included), or nil if an end is blocked or off the map or the goal cannot be reached (`info.reason` says which)."),
            ("agentbox.PathInfo", "Cost, expansions, how the search went and, with no path, why."),
        ],
        doc: "A* (or jump point search where it is exact) over the current map, on the map's grid built once per map content and body size and shared by every query (a call pays only for its own search). `local p, info = nav.path(a, b); if not p then print(info.reason) end`.",
    },
    Function {
        home: Home::Nav,
        name: "flow",
        params: &[
            p("goal", "agentbox.PosLike", "The goal (rounded to its tile; an error when off the map)."),
            p("opts?", "{size?: integer, diagonal?: \"no_corner_cutting\"|\"one_side\"|\"always\"|\"never\"}", "Body size (1 to 64) and diagonal rule, as `nav.path`'s; other keys are errors."),
        ],
        returns: &[("agentbox.FlowField", "The field: `field:next(pos)`, `field:cost(pos)`, `field:goal()`.")],
        doc: "The Dijkstra flow field towards a goal tile: every tile's cheapest cost to the goal and first step. One field per goal tile, map content, body size and diagonal rule, kept in a cache of at most 64 MB (least recently used dropped) and shared by every caller and `move.flow_to`. Each call is charged `16 + cells / 16` budget units whether or not the field was cached.",
    },
    Function {
        home: Home::Nav,
        name: "waypoint_route",
        params: &[
            p("from", "agentbox.PosLike", "Start tile."),
            p("to", "agentbox.PosLike", "Goal tile."),
        ],
        returns: &[("agentbox.Tile[]|nil", "`{from, node, ..., to}`, or nil when no route exists.")],
        doc: "A route over the scene's waypoints: the nearest node `from` sees, the node table's route to the node nearest `to` that sees it, then `to`.",
    },
    // world
    Function {
        home: Home::World,
        name: "agent",
        params: &[p("id", "string", "The agent's id.")],
        returns: &[(
            "agentbox.AgentView|nil",
            "Its view, or nil if there is no such agent.",
        )],
        doc: "An agent by id.",
    },
    Function {
        home: Home::World,
        name: "agents",
        params: &[p(
            "filter?",
            "agentbox.AgentsFilter",
            "`kind`, `within`, `around`.",
        )],
        returns: &[("agentbox.AgentView[]", "Matching agents in scene order.")],
        doc: "Agents, all or filtered by kind and distance. `within` uses the spatial index.",
    },
    Function {
        home: Home::World,
        name: "nearest",
        params: &[
            p(
                "from",
                "agentbox.PosLike",
                "Where to measure from; an agent view is itself left out.",
            ),
            p("kind?", "string", "Only agents of this kind."),
        ],
        returns: &[
            (
                "agentbox.AgentView|nil",
                "The nearest agent (ties: the one listed first), or nil.",
            ),
            (
                "number|nil",
                "Its distance from `from` in tiles (nil when there is no agent).",
            ),
        ],
        doc: "The nearest agent and its distance, found with the spatial index. `local other, d = world:nearest(self, self.kind)` needs no position reads to compare the distance. As the last argument of a call it passes both: a one-target `move.*` ignores the distance, but where an options table follows, keep only the view with parentheses: `move.path_to((world:nearest(self)))`.",
    },
    Function {
        home: Home::World,
        name: "tick",
        params: &[],
        returns: &[("integer", "Ticks applied so far.")],
        doc: "The current tick.",
    },
    Function {
        home: Home::World,
        name: "time",
        params: &[],
        returns: &[("number", "Simulated seconds since the start.")],
        doc: "Simulated time (ticks times the fixed step).",
    },
    Function {
        home: Home::World,
        name: "size",
        params: &[],
        returns: &[
            ("integer", "Width in tiles."),
            ("integer", "Height in tiles."),
        ],
        doc: "The map size.",
    },
    Function {
        home: Home::World,
        name: "terrain",
        params: &[
            p("x", "number|agentbox.PosLike", "Column, or a position."),
            p("y?", "number", "Row, when x is a column."),
        ],
        returns: &[("string|nil", "The terrain name, or nil outside the map.")],
        doc: "The terrain at a tile.",
    },
    Function {
        home: Home::World,
        name: "blocked",
        params: &[
            p("x", "number|agentbox.PosLike", "Column, or a position."),
            p("y?", "number", "Row, when x is a column."),
        ],
        returns: &[(
            "boolean",
            "Whether the tile blocks movement and sight (outside the map: true).",
        )],
        doc: "Whether a tile is blocked.",
    },
    Function {
        home: Home::World,
        name: "crumbs",
        params: &[p("id", "string", "The agent's id.")],
        returns: &[("agentbox.Tile[]", "Its breadcrumbs, newest first.")],
        doc: "The trail an agent leaves (its `breadcrumbs` setting).",
    },
    Function {
        home: Home::World,
        name: "goal",
        params: &[],
        returns: &[("agentbox.Tile|nil", "The goal tile, or nil if none is set.")],
        doc: "A goal tile set by the designer (right-click in the window).",
    },
    Function {
        home: Home::World,
        name: "waypoints",
        params: &[],
        returns: &[("agentbox.Tile[]", "The scene's waypoints.")],
        doc: "The scene's waypoints.",
    },
    Function {
        home: Home::World,
        name: "memory",
        params: &[p("id", "string", "The agent's id.")],
        returns: &[(
            "table|nil",
            "A read-only copy of its `self.memory` (at most 256 values), or nil for an agent without a script state.",
        )],
        doc: "An agent's memory, for `expect:` predicates (and `metrics:`). Agents' own scripts get an error: an agent cannot read another's mind.",
    },
    // draw
    Function {
        home: Home::Draw,
        name: "line",
        params: &[
            p("a", "agentbox.PosLike", "One end."),
            p("b", "agentbox.PosLike", "The other end."),
            p("color?", "string", "yellow (default), red, green, blue, cyan, magenta, orange, white or gray."),
        ],
        returns: &[("nil", "Nothing.")],
        doc: "Draws a line for this tick (shown with V in the window, kept for scrubbing; headless it does nothing). Drawing never raises or changes the run: a bad argument skips the shape and is noted in the console. At most 64 shapes per agent and tick.",
    },
    Function {
        home: Home::Draw,
        name: "circle",
        params: &[
            p("at", "agentbox.PosLike", "The centre."),
            p("radius", "number", "In tiles."),
            p("color?", "string", "A colour name (default yellow)."),
        ],
        returns: &[("nil", "Nothing.")],
        doc: "Draws a circle outline for this tick (as `draw.line`).",
    },
    Function {
        home: Home::Draw,
        name: "text",
        params: &[
            p("at", "agentbox.PosLike", "Where the text starts."),
            p("text", "string", "At most 64 bytes are shown."),
            p("color?", "string", "A colour name (default yellow)."),
        ],
        returns: &[("nil", "Nothing.")],
        doc: "Writes a short text on the map for this tick (as `draw.line`).",
    },
    Function {
        home: Home::Draw,
        name: "cone",
        params: &[
            p("at", "agentbox.PosLike", "The apex (the looker)."),
            p("facing", "number", "The direction it faces, radians (e.g. `self.heading`)."),
            p("fov", "number", "The full angle in degrees (as `nav.sees`)."),
            p("range", "number", "Its length in tiles."),
            p("color?", "string", "A colour name (default yellow)."),
        ],
        returns: &[("nil", "Nothing.")],
        doc: "Draws a view cone for this tick (as `draw.line`): `draw.cone(self, self.heading, 90, 8)` shows what `nav.sees(self, t, {fov = 90, range = 8})` covers.",
    },
    Function {
        home: Home::Draw,
        name: "tile",
        params: &[
            p("tile", "agentbox.PosLike", "The tile to highlight."),
            p("color?", "string", "A colour name (default yellow)."),
        ],
        returns: &[("nil", "Nothing.")],
        doc: "Highlights a tile for this tick (as `draw.line`).",
    },
    // action
    Function {
        home: Home::Action,
        name: "name",
        params: &[],
        returns: &[("string", "e.g. \"chase\".")],
        doc: "The action's name, as shown in traces.",
    },
];

/// The functions of one home, in registry order.
pub fn of(home: Home) -> impl Iterator<Item = &'static Function> {
    FUNCTIONS.iter().filter(move |f| f.home == home)
}

fn signature(func: &Function) -> String {
    let params: Vec<&str> = func.params.iter().map(|p| p.name).collect();
    format!("{}({})", func.home.call(func.name), params.join(", "))
}

/// Lua annotation lines for a function's doc, params and returns.
fn annotate(out: &mut String, func: &Function) {
    for line in func.doc.lines() {
        out.push_str(&format!("---{line}\n"));
    }
    for param in func.params {
        out.push_str(&format!(
            "---@param {} {} {}\n",
            param.name, param.ty, param.doc
        ));
    }
    for (ty, doc) in func.returns {
        out.push_str(&format!("---@return {ty} # {doc}\n"));
    }
}

fn plain_params(func: &Function) -> String {
    func.params
        .iter()
        .map(|p| p.name.trim_end_matches('?'))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The lua-language-server stubs (`types/agentbox.lua`).
pub fn stubs() -> String {
    let mut out = String::new();
    out.push_str("---@meta agentbox\n");
    out.push_str(
        "-- Generated by `agentbox api --stubs` from crates/agentbox-lua/src/registry.rs: do not edit.\n",
    );
    out.push_str(&format!("-- agentbox Lua API version {API_VERSION}.\n\n"));
    for alias in ALIASES {
        out.push_str(&format!(
            "---{}\n---@alias {} {}\n\n",
            alias.doc, alias.name, alias.ty
        ));
    }
    for class in CLASSES {
        out.push_str(&format!("---{}\n", class.doc));
        match class.parent {
            Some(parent) => out.push_str(&format!("---@class {}: {parent}\n", class.name)),
            None => out.push_str(&format!("---@class {}\n", class.name)),
        }
        for field in class.fields {
            out.push_str(&format!(
                "---@field {} {} {}\n",
                field.name, field.ty, field.doc
            ));
        }
        out.push('\n');
    }
    out.push_str("---An action returned by `move.*`; `decide` returns it.\n---@class agentbox.Action\nlocal Action = {}\n\n");
    for func in of(Home::Action) {
        annotate(&mut out, func);
        out.push_str(&format!(
            "function Action:{}({}) end\n\n",
            func.name,
            plain_params(func)
        ));
    }
    out.push_str(&format!(
        "---{PLOT_DOC}\n---@param name string\n---@param value number\nfunction plot(name, value) end\n\n"
    ));
    out.push_str("---The world of the tick being decided (read-only), handed to `decide`.\n---@class agentbox.World\nlocal World = {}\n\n");
    for func in of(Home::World) {
        annotate(&mut out, func);
        out.push_str(&format!(
            "function World:{}({}) end\n\n",
            func.name,
            plain_params(func)
        ));
    }
    for (home, doc) in [
        (
            Home::Move,
            "Rust-native movement primitives: each returns an action for `decide` to return.",
        ),
        (
            Home::Nav,
            "Rust-native navigation queries over the current map.",
        ),
        (
            Home::Draw,
            "Debug shapes for the current tick, shown in the window (V); headless they do nothing.",
        ),
    ] {
        let table = home.title();
        out.push_str(&format!("---{doc}\n{table} = {{}}\n\n"));
        for func in of(home) {
            annotate(&mut out, func);
            out.push_str(&format!(
                "function {table}.{}({}) end\n\n",
                func.name,
                plain_params(func)
            ));
        }
    }
    out
}

/// The `.luarc.json` that points lua-language-server at the stubs and the sandbox.
pub fn luarc() -> String {
    let value = serde_json::json!({
        "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
        "runtime.version": "Lua 5.4",
        "runtime.builtin": { "io": "disable", "debug": "disable", "package": "disable" },
        "workspace.library": ["types"],
        "workspace.checkThirdParty": false,
        "diagnostics.globals": ["move", "nav", "draw"]
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The standard library a script's global table holds (`sandbox::new_env` builds it), besides
/// `move` and `nav`: each global's name and, for a library table, its fields (math keeps the
/// Lua 5.3 compatibility functions the vendored Lua is built with). A test compares
/// this with a live sandbox, so the `.luacheckrc` made from it cannot drift.
pub const SANDBOX_STD: &[(&str, &[&str])] = &[
    ("_G", &[]),
    ("_VERSION", &[]),
    ("assert", &[]),
    (
        "coroutine",
        &[
            "close",
            "create",
            "isyieldable",
            "resume",
            "running",
            "status",
            "wrap",
            "yield",
        ],
    ),
    ("error", &[]),
    ("getmetatable", &[]),
    ("ipairs", &[]),
    ("load", &[]),
    (
        "math",
        &[
            "abs",
            "acos",
            "asin",
            "atan",
            "atan2",
            "ceil",
            "cos",
            "cosh",
            "deg",
            "exp",
            "floor",
            "fmod",
            "frexp",
            "huge",
            "ldexp",
            "log",
            "log10",
            "max",
            "maxinteger",
            "min",
            "mininteger",
            "modf",
            "pi",
            "pow",
            "rad",
            "random",
            "randomseed",
            "sin",
            "sinh",
            "sqrt",
            "tan",
            "tanh",
            "tointeger",
            "type",
            "ult",
        ],
    ),
    ("next", &[]),
    ("os", &["clock", "time"]),
    ("pairs", &[]),
    ("pcall", &[]),
    ("plot", &[]),
    ("print", &[]),
    ("rawequal", &[]),
    ("rawget", &[]),
    ("rawlen", &[]),
    ("rawset", &[]),
    ("require", &[]),
    ("select", &[]),
    ("setmetatable", &[]),
    (
        "string",
        &[
            "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "pack",
            "packsize", "rep", "reverse", "sub", "unpack", "upper",
        ],
    ),
    (
        "table",
        &[
            "concat", "insert", "move", "pack", "remove", "sort", "unpack",
        ],
    ),
    ("tonumber", &[]),
    ("tostring", &[]),
    ("type", &[]),
    (
        "utf8",
        &["char", "charpattern", "codepoint", "codes", "len", "offset"],
    ),
    ("xpcall", &[]),
];

/// A Lua string literal.
fn lua_quote(text: &str) -> String {
    format!("{text:?}")
}

/// The luacheck configuration (`.luacheckrc`): the sandbox's standard library as the only
/// standard globals, and `move` and `nav` as read-only tables holding exactly the registry's
/// functions, so `move.chsae(...)` is flagged; unused `self` and `world` arguments (the
/// callbacks' signature) are not warned about.
pub fn luacheckrc() -> String {
    let mut out = String::new();
    out.push_str(
        "-- Generated by `agentbox api --luacheckrc` from crates/agentbox-lua/src/registry.rs: do not edit.\n",
    );
    out.push_str(&format!(
        "-- luacheck (Debian: lua-check) for agentbox scripts, Lua API version {API_VERSION}.\n"
    ));
    out.push_str(
        "-- The globals are the sandbox's: no io, debug, package, dofile or loadfile; os has\n-- only clock and time. `world` and actions are values handed to `decide`, not globals.\n",
    );
    out.push_str("stds.agentbox = {\n  read_globals = {\n");
    let field_list = |fields: &mut dyn Iterator<Item = &str>| {
        fields.map(lua_quote).collect::<Vec<_>>().join(", ")
    };
    for (name, fields) in SANDBOX_STD {
        if fields.is_empty() {
            out.push_str(&format!("    {name} = {{}},\n"));
        } else {
            out.push_str(&format!(
                "    {name} = {{ fields = {{ {} }} }},\n",
                field_list(&mut fields.iter().copied())
            ));
        }
    }
    for home in [Home::Move, Home::Nav, Home::Draw] {
        out.push_str(&format!(
            "    {} = {{ fields = {{ {} }} }},\n",
            home.title(),
            field_list(&mut of(home).map(|f| f.name))
        ));
    }
    out.push_str("  },\n}\nstd = \"agentbox\"\n");
    out.push_str("-- The callbacks are called as decide(self, world), init(self), on_reload(self),\n-- whether a script uses their arguments or not.\n");
    out.push_str("ignore = { \"212/self\", \"212/world\" }\n");
    out
}

fn md_escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// What `plot` does, for the stubs and the reference page.
const PLOT_DOC: &str = "Adds a value to a named series of the window's plots panel (Tab, or J) and of `--monitors FILE.csv`. Values plotted under one name in one tick (by many agents) are folded by the name's rule from the scene's `monitors.plots` (`sum`, `mean` or `last`; `mean` when not stated). Display only: it never changes the run, and costs a lookup when nothing collects plots. `plot(\"hunting\", 1)` counts the agents hunting with the rule `sum`.";

/// The reference page (`docs/lua-api.md`).
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str("# agentbox Lua API reference\n\n");
    out.push_str(&format!("api_version: {API_VERSION}\n\n"));
    out.push_str("Generated by `agentbox api --markdown` from `crates/agentbox-lua/src/registry.rs`: do not edit. Editor stubs for lua-language-server: `types/agentbox.lua` (with `.luarc.json`). Lint: `luacheck scripts/` (Debian: `apt-get install lua-check`) reads `.luacheckrc`, which knows the sandbox's globals and every `move.*` and `nav.*` function.\n\n");
    out.push_str("A behaviour script returns a table with `decide(self, world)` (and optionally `init(self)` and `on_reload(self)`). `decide` returns an action from `move.*`.\n\n");
    out.push_str("## print\n\n`print(...)` writes its arguments (through `tostring`, tab-separated) as one line prefixed with the caller's `file.lua:LINE:`. Lines printed while an agent decides go to stderr, to the window's console (C: stamped with the tick and the agent, filterable, the last 1,000 lines) and to the agent's decision timeline, and headless into the trace as events `{\"type\":\"print\",\"agent\":ID,\"text\":LINE}`. Bounded: at most 4 KiB per agent and 64 KiB in all per tick; past that lines are dropped and one note per tick on stderr says how many bytes, for whom.\n\n");
    out.push_str("## self:label\n\n`self:label(\"search\")` names the agent's state (at most 32 bytes; `self:label(nil)` clears it). It stays until changed, is shown over the agent (L), on its decision timeline, and in the trace as the agent's `label`.\n\n");
    for (home, title) in [
        (Home::Move, "## move: movement primitives"),
        (Home::Nav, "## nav: navigation queries"),
        (Home::World, "## world: queries on this tick's world"),
        (Home::Draw, "## draw: debug shapes (window only)"),
        (Home::Action, "## actions"),
    ] {
        out.push_str(&format!("{title}\n\n"));
        for func in of(home) {
            out.push_str(&format!("### `{}`\n\n{}\n\n", signature(func), func.doc));
            if !func.params.is_empty() {
                out.push_str("| parameter | type | |\n|---|---|---|\n");
                for p in func.params {
                    out.push_str(&format!(
                        "| `{}` | `{}` | {} |\n",
                        p.name,
                        md_escape(p.ty),
                        md_escape(p.doc)
                    ));
                }
                out.push('\n');
            }
            let returns: Vec<String> = func
                .returns
                .iter()
                .map(|(ty, doc)| format!("`{}` {}", md_escape(ty), doc))
                .collect();
            out.push_str(&format!("Returns: {}\n\n", returns.join("; ")));
        }
    }
    out.push_str(&format!(
        "## Globals\n\n### `plot(name, value)`\n\n{PLOT_DOC}\n\n| parameter | type | |\n|---|---|---|\n| `name` | `string` | The series' name. |\n| `value` | `number` | A finite number. |\n\nReturns: nothing.\n\n"
    ));
    out.push_str("## Types\n\n");
    for alias in ALIASES {
        out.push_str(&format!(
            "### `{}`\n\n{} `{}`\n\n",
            alias.name, alias.doc, alias.ty
        ));
    }
    for class in CLASSES {
        out.push_str(&format!("### `{}`\n\n{}", class.name, class.doc));
        if let Some(parent) = class.parent {
            out.push_str(&format!(" Has every field of `{parent}`, and:"));
        }
        out.push_str("\n\n| field | type | |\n|---|---|---|\n");
        for field in class.fields {
            out.push_str(&format!(
                "| `{}` | `{}` | {} |\n",
                field.name,
                md_escape(field.ty),
                md_escape(field.doc)
            ));
        }
        out.push('\n');
    }
    out
}

/// The generated files and how to make each: `(path from the project root, text)`.
pub fn generated() -> Vec<(&'static str, String)> {
    vec![
        ("types/agentbox.lua", stubs()),
        ("docs/lua-api.md", markdown()),
        (".luarc.json", luarc()),
        (".luacheckrc", luacheckrc()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScriptHost;
    use mlua::{Table, Value};
    use std::collections::BTreeSet;

    fn keys(table: &Table) -> BTreeSet<String> {
        table
            .pairs::<Value, Value>()
            .filter_map(Result::ok)
            .filter(|(_, v)| matches!(v, Value::Function(_)))
            .filter_map(|(k, _)| k.as_string().map(|s| s.to_string_lossy()))
            .collect()
    }

    fn registered(home: Home) -> BTreeSet<String> {
        of(home).map(|f| f.name.to_string()).collect()
    }

    fn methods(meta: mlua::Result<Table>) -> BTreeSet<String> {
        let index: Table = meta
            .and_then(|m| m.get("__index"))
            .expect("methods live in an __index table");
        keys(&index)
    }

    #[test]
    fn every_bound_function_is_registered_and_every_entry_is_bound() {
        let host = ScriptHost::new(0).expect("a host starts");
        let move_t: Table = host.lua.named_registry_value("agentbox.move").unwrap();
        let nav_t: Table = host.lua.named_registry_value("agentbox.nav").unwrap();
        let draw_t: Table = host.lua.named_registry_value("agentbox.draw").unwrap();
        assert_eq!(
            keys(&draw_t),
            registered(Home::Draw),
            "draw.*: bound vs registry"
        );
        assert_eq!(
            keys(&move_t),
            registered(Home::Move),
            "move.*: bound vs registry (crates/agentbox-lua/src/registry.rs)"
        );
        assert_eq!(
            keys(&nav_t),
            registered(Home::Nav),
            "nav.*: bound vs registry (crates/agentbox-lua/src/registry.rs)"
        );
        assert_eq!(
            methods(
                host.world_table
                    .metatable()
                    .ok_or_else(|| mlua::Error::runtime("world has no metatable"))
            ),
            registered(Home::World),
            "world: methods bound vs registry (crates/agentbox-lua/src/registry.rs)"
        );
        let action =
            super::super::convert::make_action(&host.lua, agentbox_core::world::Action::Stop)
                .unwrap();
        let index: Table = action
            .metatable()
            .and_then(|m| m.get("__index"))
            .expect("action methods live in an __index table");
        assert_eq!(
            keys(&index),
            registered(Home::Action),
            "action methods bound vs registry"
        );
    }

    #[test]
    fn every_entry_is_documented() {
        for func in FUNCTIONS {
            assert!(
                !func.doc.is_empty() && !func.returns.is_empty(),
                "{}",
                func.name
            );
            for p in func.params {
                assert!(
                    !p.doc.is_empty() && !p.ty.is_empty(),
                    "{}.{}",
                    func.name,
                    p.name
                );
            }
        }
        let names: BTreeSet<_> = FUNCTIONS.iter().map(|f| (f.home.title(), f.name)).collect();
        assert_eq!(names.len(), FUNCTIONS.len(), "duplicate registry entries");
    }

    /// Every global of a live sandbox and every field of its library tables, as
    /// `SANDBOX_STD` lists them (plus `move` and `nav`, checked above).
    #[test]
    fn the_sandbox_std_is_what_scripts_get() {
        let host = ScriptHost::new(0).expect("a host starts");
        let ctx =
            super::super::sandbox::new_context(&host.lua, std::path::Path::new("."), 0).unwrap();
        let env = super::super::sandbox::new_env(&host.lua, &ctx).unwrap();
        let mut live: Vec<(String, Vec<String>)> = Vec::new();
        for pair in env.pairs::<String, Value>() {
            let (name, value) = pair.unwrap();
            if name == "move" || name == "nav" || name == "draw" {
                continue;
            }
            let mut fields = Vec::new();
            if let (Value::Table(t), false) = (&value, name == "_G") {
                for field in t.pairs::<String, Value>() {
                    fields.push(field.unwrap().0);
                }
            }
            fields.sort();
            live.push((name, fields));
        }
        live.sort();
        let listed: Vec<(String, Vec<String>)> = SANDBOX_STD
            .iter()
            .map(|(n, f)| (n.to_string(), f.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(
            listed, live,
            "SANDBOX_STD vs a live sandbox (crates/agentbox-lua/src/sandbox.rs)"
        );
    }

    #[test]
    fn the_committed_stubs_and_page_are_up_to_date() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        for (path, text) in generated() {
            let committed = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            assert!(
                committed == text,
                "{path} is out of date with crates/agentbox-lua/src/registry.rs; regenerate with\n    cargo run --release -- api --write"
            );
        }
    }

    #[test]
    fn the_stubs_are_valid_lua_that_defines_every_function() {
        let lua = mlua::Lua::new();
        lua.load(stubs())
            .exec()
            .expect("the stubs parse and run as Lua");
        for home in [Home::Move, Home::Nav, Home::Draw] {
            let t: Table = lua.globals().get(home.title()).unwrap();
            assert_eq!(keys(&t), registered(home));
        }
        let page = markdown();
        assert!(page.contains(&format!("api_version: {API_VERSION}")));
        for func in FUNCTIONS {
            assert!(page.contains(&signature(func)), "{}", signature(func));
        }
    }
}
