//! Navigation: pure queries over the world's grid — Bresenham lines, line of sight, A* and jump
//! point search (with reusable buffers in [`Search`]), waypoint tables, and the per-thread
//! cache of one grid per map content and body size ([`cache`]) that every caller shares.
//!
//! Everything here is a function of a `&World` (or a [`NavGrid`] over a flat cost array) and
//! returns values; it never draws, never changes the world, reads no files and must not name
//! mlua, macroquad or notify. One algorithm per file.
//!
//! A route round a wall on a map written as ASCII (`#` wall, `.` floor):
//!
//! ```
//! use agentbox_core::nav::{find_path, line_of_sight, path_cost, PathOptions};
//! use agentbox_core::world::World;
//! use glam::IVec2;
//!
//! let world = World::from_ascii(&[
//!     "#######",
//!     "#..#..#",
//!     "#..#..#",
//!     "#.....#",
//!     "#######",
//! ]);
//! let (from, to) = (IVec2::new(1, 1), IVec2::new(5, 1));
//! assert!(!line_of_sight(&world, from, to)); // the wall is in the way
//! let path = find_path(&world, from, to, &PathOptions::default()).expect("a route");
//! assert_eq!((path[0], path[path.len() - 1]), (from, to));
//! assert!(path.iter().any(|t| t.y == 3)); // through the gap in the bottom row
//! // Optimal by default: 4 straight steps and 2 diagonals (no corner cutting).
//! assert!((path_cost(&world, &path) - (4.0 + 2.0 * 2f64.sqrt())).abs() < 1e-9);
//! ```

pub mod astar;
pub mod cache;
pub mod flow;
pub mod grid;
pub mod hearing;
pub mod jps;
pub mod landmarks;
pub mod line;
pub mod los;
mod marks;
mod octile;
pub mod options;
pub mod replay;
pub mod search;
pub mod sees;
pub mod waypoints;

pub use grid::NavGrid;
pub use landmarks::Landmarks;
pub use line::{bresenham, Line};
pub use los::line_of_sight;
pub use options::{
    Algorithm, Diagonal, Heuristic, NoPath, PathOptions, PathResult, SearchSets, StepCosts,
};
pub use search::{find_path, path_cost, Search, SearchEvent};

#[cfg(test)]
mod tests;
