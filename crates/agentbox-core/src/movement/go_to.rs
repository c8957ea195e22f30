//! Basic pathfinding to a fixed point (Bourg & Seemann, *AI for Game
//! Developers*, ch. 6 "Basic Pathfinding and Waypoints"): head straight for the
//! destination and stop on it.

use glam::DVec2;

/// The displacement towards `point`, at most `reach` long; zero once there.
pub fn go_to(pos: DVec2, point: DVec2, reach: f64) -> DVec2 {
    super::chase::chase(pos, point, reach)
}
