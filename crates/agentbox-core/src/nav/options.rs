//! What a search gives back ([`PathResult`], [`SearchSets`]); the choices it takes are the
//! world's plain [`PathOptions`], re-exported here.

pub use crate::world::path_options::{
    Algorithm, Diagonal, Heuristic, NoPath, PathOptions, StepCosts,
};
use crate::world::Tile;

/// The open and closed sets a search left behind, row-major order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchSets {
    pub open: Vec<Tile>,
    pub closed: Vec<Tile>,
}

/// What one search found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathResult {
    /// The tiles from start to goal (both included, each step to a neighbour), or to the
    /// closest node reached when the expansion limit stopped the search; `None` when there is
    /// no path.
    pub path: Option<Vec<Tile>>,
    /// The cost of `path` under the options' cost model.
    pub cost: f64,
    /// Whether `path` ends on the goal.
    pub complete: bool,
    /// Nodes taken off the open list (jump points for JPS).
    pub expanded: usize,
    /// Whether jump point search ran.
    pub used_jps: bool,
    /// Present when `keep_sets` was asked.
    pub sets: Option<SearchSets>,
}
