//! The scene file's shape (v1), as serde reads it. Unknown keys are errors; every value is
//! checked for meaning afterwards in `build.rs`.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    pub name: Option<String>,
    pub seed: Option<u64>,
    pub tick_rate: Option<u32>,
    pub map: Option<MapSpec>,
    #[serde(default)]
    pub terrain: BTreeMap<String, TerrainSpec>,
    #[serde(default)]
    pub agents: Vec<AgentSpec>,
    #[serde(default)]
    pub waypoints: Vec<[i64; 2]>,
    /// Limits for the scene's scripts.
    pub budget: Option<BudgetSpec>,
}

/// `budget: { instructions: N, memory_mb: M }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    /// Lua instructions one call of init/decide/on_reload may run once it runs long.
    pub instructions: Option<u64>,
    /// Megabytes all the scene's scripts may hold together.
    pub memory_mb: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    /// Extra map characters: one character to a terrain name.
    #[serde(default)]
    pub legend: BTreeMap<String, String>,
    /// The map, one text line per row; row 0 is the top.
    pub rows: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainSpec {
    pub blocked: Option<bool>,
    pub cost: Option<f64>,
    pub color: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    pub id: String,
    pub kind: Option<String>,
    pub at: [i64; 2],
    pub script: Option<String>,
    pub control: Option<String>,
    pub speed: Option<f64>,
    pub params: Option<serde_json::Value>,
    pub breadcrumbs: Option<u32>,
    /// Sensing radius in tiles, for scripts (`self.sense`) and the bodies overlay.
    pub sense: Option<f64>,
    /// `free` (default) or `tiles`.
    pub motion: Option<String>,
    /// Tile-stepping directions, 8 (default) or 4; only with `motion: tiles`.
    pub directions: Option<u32>,
    /// Most degrees per second a free agent may turn; no limit when absent.
    pub turn_rate: Option<f64>,
    /// A keyboard agent's scripted route, walked when no key is pressed (always, headless).
    pub route: Option<Vec<[i64; 2]>>,
    /// Side of the agent's square body in tiles (default 1); `at` is its top-left tile.
    pub size: Option<u32>,
}
