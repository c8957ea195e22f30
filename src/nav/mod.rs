//! Navigation: pure queries over the world's grid — Bresenham lines, line of sight, A* and jump
//! point search (with reusable buffers in [`Search`]), waypoint tables.
//!
//! Everything here is a function of a `&World` (or a [`NavGrid`] over a flat cost array) and
//! returns values; it never draws, never changes the world, reads no files and must not name
//! mlua, macroquad or notify. One algorithm per file.

pub mod astar;
pub mod grid;
pub mod jps;
pub mod line;
pub mod los;
pub mod options;
pub mod search;
pub mod waypoints;

pub use grid::NavGrid;
pub use line::{bresenham, Line};
pub use los::line_of_sight;
pub use options::{Algorithm, Diagonal, Heuristic, PathOptions, PathResult, SearchSets, StepCosts};
pub use search::{find_path, path_cost, Search};

#[cfg(test)]
mod tests;
