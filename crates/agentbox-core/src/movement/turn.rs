//! Turn-rate limiting for free agents: the heading may turn at most a given angle per tick, so
//! a fast agent swings round in an arc instead of reversing on the spot.

use glam::DVec2;

/// The displacement actually taken when an agent facing `heading` wants to move by `desired`
/// and may turn at most `max_turn` radians this tick. The length is kept.
pub fn limit_turn(heading: f64, desired: DVec2, max_turn: f64) -> DVec2 {
    let len = desired.length();
    if len < 1e-12 {
        return desired;
    }
    let want = desired.y.atan2(desired.x);
    let mut diff = want - heading;
    diff = (diff + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    if diff.abs() <= max_turn {
        return desired;
    }
    let angle = heading + max_turn.copysign(diff);
    DVec2::new(angle.cos(), angle.sin()) * len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_at_most_the_limit() {
        let d = limit_turn(0.0, DVec2::new(0.0, 2.0), 0.1);
        assert!((d.y.atan2(d.x) - 0.1).abs() < 1e-12);
        assert!((d.length() - 2.0).abs() < 1e-12);
        let back = limit_turn(0.0, DVec2::new(-1.0, -0.01), 0.5);
        assert!((back.y.atan2(back.x) + 0.5).abs() < 1e-12);
        assert_eq!(
            limit_turn(0.0, DVec2::new(1.0, 0.05), 0.1),
            DVec2::new(1.0, 0.05)
        );
    }
}
