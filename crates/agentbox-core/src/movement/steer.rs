//! Direct steering (the keyboard): move in a compass direction at full speed.

use glam::{DVec2, IVec2};

/// The displacement for a direction whose components are -1, 0 or 1; diagonals are not faster.
pub fn steer(dir: IVec2, reach: f64) -> DVec2 {
    let d = DVec2::new(dir.x.signum() as f64, dir.y.signum() as f64);
    d.try_normalize().unwrap_or(DVec2::ZERO) * reach
}
