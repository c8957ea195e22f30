//! Navigation: pure queries over the world's grid — Bresenham lines, line of sight and A*.
//!
//! Everything here is a function of a `&World` (or its flat cost array) and returns values; it
//! never draws, never changes the world and must not name mlua, macroquad or notify. One
//! algorithm per file.

pub mod astar;
pub mod line;
pub mod los;

pub use astar::{find_path, Diagonal, Heuristic, PathOptions};
pub use line::bresenham;
pub use los::line_of_sight;
