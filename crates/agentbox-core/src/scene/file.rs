//! The scene file's shape (v1), as serde reads it. Unknown keys are errors; every value is
//! checked for meaning afterwards in `build.rs`. The JSON Schema editors use
//! (`agentbox schema`, `scenes/agentbox.schema.json`) is generated from these types, so the doc
//! comments here are what an editor shows.

use super::body::{MAX_AVOID_HORIZON, MAX_BODY_RADIUS, MAX_FORCE};
use super::build::{
    BUDGET_CPU_MS, BUDGET_INSTRUCTIONS, BUDGET_MAX_AGENTS, BUDGET_MEMORY_MB, MAX_BODY, MAX_COST,
    MAX_CRUMBS, MAX_SPEED, MAX_TICK_RATE, MAX_TURN_RATE,
};
use super::spawn::{MAX_METRICS, MAX_TEST_TICKS};
use crate::world::WaypointTable;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
/// An agentbox scene: a tile map, its terrain and its agents.
pub struct SceneFile {
    /// Shown as the window title; defaults to the file name.
    pub name: Option<String>,
    /// All randomness derives from it (default 0).
    pub seed: Option<u64>,
    /// Simulation ticks per second (default 30).
    #[schemars(range(min = 1, max = MAX_TICK_RATE))]
    pub tick_rate: Option<u32>,
    /// The tile map (required).
    // An `Option` so that the loader reports a scene without one in its own words; the
    // schema requires it.
    #[schemars(with = "MapSpec")]
    pub map: Option<MapSpec>,
    /// New terrain kinds or overrides of the built-ins, by name.
    #[serde(default)]
    pub terrain: BTreeMap<String, TerrainSpec>,
    /// Agents placed one by one.
    #[serde(default)]
    pub agents: Vec<AgentSpec>,
    /// Crowds placed from the seed; their agents come after `agents`, with ids `KIND-N`.
    #[serde(default)]
    pub spawn: Vec<SpawnSpec>,
    /// Tiles `[column, row]` scripts can read with `world:waypoints()`.
    #[serde(default)]
    #[schemars(length(max = WaypointTable::MAX_NODES))]
    pub waypoints: Vec<[i64; 2]>,
    /// Limits for the scene's scripts.
    pub budget: Option<BudgetSpec>,
    /// What `agentbox test` checks when it runs this scene headless.
    pub expect: Option<ExpectSpec>,
    /// Numbers `agentbox compare` records at the end of each run: a name to a Lua expression
    /// of `world` (or a function body that returns a number), such as
    /// `world:agent("prey").pos.x`. They run in a Lua state of their own, so they never change
    /// the run.
    #[serde(default)]
    #[schemars(extend("maxProperties" = MAX_METRICS))]
    pub metrics: BTreeMap<String, String>,
    /// Numbers watched while the scene runs: the window's plots panel (Tab or J) charts them,
    /// `--monitors FILE.csv` writes them, and compare and sweep lines end with their final
    /// values. They run in a Lua state of their own, so they never change the run.
    pub monitors: Option<MonitorsSpec>,
}

/// `monitors: { every: K, values: { NAME: LUA }, plots: { NAME: sum|mean|last } }`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorsSpec {
    /// Ticks between two evaluations of `values` (default 10; plots are read every tick).
    #[schemars(range(min = 1))]
    pub every: Option<u64>,
    /// A name to a Lua expression of `world` (or a function body returning a number), as in
    /// `metrics`.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    /// How values plotted under one name in one tick (by many agents, with `plot(name, v)`)
    /// are folded into one point; `mean` for names not listed.
    #[serde(default)]
    pub plots: BTreeMap<String, PlotRule>,
}

/// How one tick's plotted values become one point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlotRule {
    /// Their sum (counts: each agent plots 1).
    Sum,
    /// Their mean.
    #[default]
    Mean,
    /// The last one plotted (agents decide in id order).
    Last,
}

/// The shape editors are told `params` has: any mapping, where a number may be declared as a
/// tunable with its range. The loader reads `params` as plain JSON; the window shows each
/// tunable as a slider, and `agentbox sweep` can name it `OWNER.PARAM`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct ParamsShape(pub BTreeMap<String, ParamShape>);

/// A param: a tunable (a mapping with `value`, `min` and `max`), or any other value.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum ParamShape {
    Tunable(TunableSpec),
    Other(serde_json::Value),
}

/// A number with a range the window shows as a slider: `{ value: 3, min: 1, max: 8, step:
/// 0.5 }`. Scripts see only the value (`self.params.NAME == 3`).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TunableSpec {
    /// The value the scene starts with.
    pub value: f64,
    /// The slider's least value.
    pub min: f64,
    /// The slider's greatest value.
    pub max: f64,
    /// The slider's step (default: none, any value in the range).
    pub step: Option<f64>,
}

/// `budget: { instructions: N, memory_mb: M, max_agents: A, cpu_ms: C }`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    /// Lua instructions one call of init/decide/on_reload may run once it runs long.
    #[schemars(range(min = *BUDGET_INSTRUCTIONS.start(), max = *BUDGET_INSTRUCTIONS.end()))]
    pub instructions: Option<u64>,
    /// Megabytes all the scene's scripts may hold together.
    #[schemars(range(min = *BUDGET_MEMORY_MB.start(), max = *BUDGET_MEMORY_MB.end()))]
    pub memory_mb: Option<u64>,
    /// The most agents the scene may hold once scripts spawn (`world:spawn` past it is an
    /// error); default 50,000.
    #[schemars(range(min = *BUDGET_MAX_AGENTS.start(), max = *BUDGET_MAX_AGENTS.end()))]
    pub max_agents: Option<u64>,
    /// Milliseconds of thread CPU time one call may take: the net under the instruction count,
    /// for work the count does not see (default: the larger of 250 and 2.5 us per instruction
    /// of `instructions`). A call it stops is suspended with `error_kind` `cpu`.
    #[schemars(range(min = *BUDGET_CPU_MS.start(), max = *BUDGET_CPU_MS.end()))]
    pub cpu_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    /// Extra map characters: one character to a terrain name.
    #[serde(default)]
    pub legend: BTreeMap<String, String>,
    /// The map, one text line per row; row 0 is the top.
    #[schemars(length(min = 1))]
    pub rows: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
/// A terrain kind.
pub struct TerrainSpec {
    /// Whether it blocks movement and sight.
    pub blocked: Option<bool>,
    /// Cost of entering a tile of it (floor is 1).
    #[schemars(range(max = MAX_COST), extend("exclusiveMinimum" = 0))]
    pub cost: Option<f64>,
    /// Colour in the window, like "#a0522d".
    #[schemars(regex(pattern = "^#[0-9a-fA-F]{6}$"))]
    pub color: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
/// One agent.
pub struct AgentSpec {
    /// Unique id.
    #[schemars(regex(pattern = r"\S"))]
    pub id: String,
    /// A label scripts can query; defaults to the id.
    pub kind: Option<String>,
    /// Start tile `[column, row]`; row 0 is the top.
    pub at: [i64; 2],
    /// Lua decision script, relative to this scene file's folder.
    pub script: Option<String>,
    /// Instead of a script: "keyboard" (arrows/WASD drive it).
    #[schemars(extend("enum" = ["keyboard"]))]
    pub control: Option<String>,
    /// Tiles per second (default 4).
    #[schemars(range(min = 0, max = MAX_SPEED))]
    pub speed: Option<f64>,
    /// Any mapping, handed to Lua as `self.params`. A number may be a tunable:
    /// `{ value: 3, min: 1, max: 8, step: 0.5 }` (scripts see 3; the window shows a slider).
    #[schemars(with = "Option<ParamsShape>")]
    pub params: Option<serde_json::Value>,
    /// Keep a trail of this many newest tiles.
    #[schemars(range(max = MAX_CRUMBS))]
    pub breadcrumbs: Option<u32>,
    /// Sensing radius in tiles, for scripts (`self.sense`) and the bodies overlay.
    #[schemars(range(min = 0, max = MAX_SPEED))]
    pub sense: Option<f64>,
    /// `free` (default) or `tiles`.
    #[schemars(extend("enum" = ["free", "tiles"]))]
    pub motion: Option<String>,
    /// Tile-stepping directions, 8 (default) or 4; only with `motion: tiles`.
    #[schemars(extend("enum" = [4, 8]))]
    pub directions: Option<u32>,
    /// Most degrees per second a free agent may turn; no limit when absent.
    #[schemars(range(max = MAX_TURN_RATE), extend("exclusiveMinimum" = 0))]
    pub turn_rate: Option<f64>,
    /// A keyboard agent's scripted route, walked when no key is pressed (always, headless).
    pub route: Option<Vec<[i64; 2]>>,
    /// Side of the agent's square body in tiles (default 1); `at` is its top-left tile.
    #[schemars(range(min = 1, max = MAX_BODY))]
    pub size: Option<u32>,
    /// Body radius in tiles (default 0.3): the circle that meets walls, touches other agents
    /// and is avoided. `size` is the square a route is planned for; a body wider than a tile
    /// wants a radius near half its size.
    #[schemars(range(max = MAX_BODY_RADIUS), extend("exclusiveMinimum" = 0))]
    pub radius: Option<f64>,
    /// Acceleration limit in tiles/s^2: the velocity changes towards what the primitive asks
    /// by at most this much a second. Absent: it changes at once.
    #[schemars(range(max = MAX_FORCE), extend("exclusiveMinimum" = 0))]
    pub max_force: Option<f64>,
    /// ORCA local avoidance of the other agents (free motion only).
    pub avoid: Option<bool>,
    /// How far ahead avoidance looks, in seconds (default 2; only with `avoid: true`).
    #[schemars(range(max = MAX_AVOID_HORIZON), extend("exclusiveMinimum" = 0))]
    pub avoid_horizon: Option<f64>,
    /// Colour in the window, like "#d55e00" (default: its kind's colour from a
    /// colour-blind-safe palette).
    #[schemars(regex(pattern = "^#[0-9a-fA-F]{6}$"))]
    pub color: Option<String>,
    /// Marker in the window: `circle` (default), `arrow` (points along its heading),
    /// `square` or `diamond`.
    #[schemars(extend("enum" = ["circle", "arrow", "square", "diamond"]))]
    pub shape: Option<String>,
}

/// A crowd: `count` agents of one kind, placed on distinct free tiles chosen from the seed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnSpec {
    /// How many agents.
    #[schemars(range(min = 1))]
    pub count: u32,
    /// Their kind; their ids are `KIND-1`, `KIND-2`, ... (numbering goes on across spawn
    /// entries of the same kind).
    #[schemars(regex(pattern = r"\S"))]
    pub kind: String,
    /// A rectangle of tiles to place them in (default: the whole map).
    pub area: Option<AreaSpec>,
    /// Tiles `[column, row]` to place them on, instead of an area.
    pub tiles: Option<Vec<[i64; 2]>>,
    /// Lua decision script, relative to this scene file's folder.
    pub script: Option<String>,
    /// Any mapping, handed to Lua as `self.params`. A number may be a tunable:
    /// `{ value: 3, min: 1, max: 8, step: 0.5 }` (scripts see 3; the window shows a slider).
    #[schemars(with = "Option<ParamsShape>")]
    pub params: Option<serde_json::Value>,
    /// Tiles per second: one number, or `[min, max]` drawn per agent from the seed.
    pub speed: Option<SpeedSpec>,
    /// Body radius in tiles (default 0.3): the circle that meets walls, touches other agents
    /// and is avoided. `size` is the square a route is planned for; a body wider than a tile
    /// wants a radius near half its size.
    #[schemars(range(max = MAX_BODY_RADIUS), extend("exclusiveMinimum" = 0))]
    pub radius: Option<f64>,
    /// Acceleration limit in tiles/s^2: the velocity changes towards what the primitive asks
    /// by at most this much a second. Absent: it changes at once.
    #[schemars(range(max = MAX_FORCE), extend("exclusiveMinimum" = 0))]
    pub max_force: Option<f64>,
    /// ORCA local avoidance of the other agents (free motion only).
    pub avoid: Option<bool>,
    /// How far ahead avoidance looks, in seconds (default 2; only with `avoid: true`).
    #[schemars(range(max = MAX_AVOID_HORIZON), extend("exclusiveMinimum" = 0))]
    pub avoid_horizon: Option<f64>,
    /// Colour in the window, like "#d55e00" (default: its kind's colour from a
    /// colour-blind-safe palette).
    #[schemars(regex(pattern = "^#[0-9a-fA-F]{6}$"))]
    pub color: Option<String>,
    /// Marker in the window: `circle` (default), `arrow` (points along its heading),
    /// `square` or `diamond`.
    #[schemars(extend("enum" = ["circle", "arrow", "square", "diamond"]))]
    pub shape: Option<String>,
}

/// A rectangle of tiles, both corners included.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AreaSpec {
    /// One corner `[column, row]`.
    pub from: [i64; 2],
    /// The opposite corner `[column, row]`.
    pub to: [i64; 2],
}

/// A speed, or a range of speeds.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SpeedSpec {
    /// Every agent the same.
    Fixed(#[schemars(range(min = 0, max = MAX_SPEED))] f64),
    /// `[min, max]`, uniform per agent.
    Range(#[schemars(inner(range(min = 0, max = MAX_SPEED)))] [f64; 2]),
}

/// Expectations `agentbox test` checks. The scene runs headless for `ticks` ticks (default:
/// the latest `by_tick`, or 300); every listed expectation must hold.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// How many ticks the test runs.
    #[schemars(range(min = 1, max = MAX_TEST_TICKS))]
    pub ticks: Option<u64>,
    /// No script may fail (load errors, runtime errors, bad return values). Default true.
    pub no_errors: Option<bool>,
    /// An agent comes within `within` tiles of a target by a tick.
    #[serde(default)]
    pub reach: Vec<ReachSpec>,
    /// An agent never stands on a terrain kind.
    #[serde(default)]
    pub never_on: Vec<NeverOnSpec>,
    /// An agent visits every listed tile and room at some point.
    #[serde(default)]
    pub visits: Vec<VisitsSpec>,
    /// Lua predicates for anything else.
    #[serde(default)]
    pub lua: Vec<LuaExpectSpec>,
}

/// `agent` comes within `within` tiles of `target` at or before tick `by_tick`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReachSpec {
    /// The agent's id, or the kind of a `spawn:` group (reached when any member is within
    /// range).
    pub agent: String,
    /// Another agent's id or a `spawn:` group's kind, or a position `[x, y]`.
    pub target: TargetSpec,
    /// Distance in tiles between centres (default 0.5).
    #[schemars(range(min = 0))]
    pub within: Option<f64>,
    /// The latest tick (default: the test's last tick).
    pub by_tick: Option<u64>,
}

/// An agent id or a position.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TargetSpec {
    /// An agent's id.
    Agent(String),
    /// A position `[x, y]` in tiles.
    Point([f64; 2]),
}

/// `agent`'s tile is never of `terrain` after any tick.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NeverOnSpec {
    /// The agent's id.
    pub agent: String,
    /// A terrain name, such as "water" or "mud".
    pub terrain: String,
}

/// `agent` stands on every tile in `tiles` and in every room in `rooms` at some tick.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VisitsSpec {
    /// The agent's id.
    pub agent: String,
    /// Tiles `[column, row]` to visit.
    #[serde(default)]
    pub tiles: Vec<[i64; 2]>,
    /// Rectangles to enter (any tile of each counts).
    #[serde(default)]
    pub rooms: Vec<AreaSpec>,
}

/// A Lua predicate, run in the scene's sandbox with `world` (the same object `decide` gets).
/// `check` is the body of a function: return true to pass, or false (or nil) and an optional
/// reason to fail. An error also fails.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LuaExpectSpec {
    /// Shown in the report.
    pub name: Option<String>,
    /// Lua code, e.g. `return world:agent("hunter").pos.x > 10`.
    pub check: String,
    /// `end` (default): once, after the last tick. `every_tick`: after every tick; the first
    /// failing tick fails the test.
    #[serde(default)]
    pub when: CheckWhen,
}

impl LuaExpectSpec {
    /// The name reports give the `index`th check: its `name`, else `expect.lua.INDEX`.
    pub fn name_or_index(&self, index: usize) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("expect.lua.{index}"))
    }
}

/// When a Lua predicate runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckWhen {
    /// Once, after the last tick.
    #[default]
    End,
    /// After every tick.
    EveryTick,
}
