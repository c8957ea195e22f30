//! Smooth wander (Reynolds 1999, *wander*): a point on a circle of radius `strength` one unit
//! ahead of the agent is displaced each tick by a random angle of at most `rate x dt`, drawn
//! from the agent's own seeded stream, and the agent turns towards it at full speed: the
//! point's bearing from the heading, in radians, is the turn per second (Reynolds' vehicle
//! turns over several ticks under its force limit; here the velocity is asked at once, so the
//! turn is spread over the second). The heading therefore drifts smoothly instead of
//! jittering; `rate` is how fast the point may move (radians per second), `strength` how far
//! off the heading it may pull (0 goes straight).

use crate::world::rng::unit_f64;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;

/// This tick's velocity direction (unit) and the wander point's new angle, from the agent's
/// `facing` (unit) and the point's `angle` on its circle (radians, from the heading).
pub fn wander(
    facing: DVec2,
    angle: f64,
    rate: f64,
    strength: f64,
    dt: f64,
    rng: &mut ChaCha8Rng,
) -> (DVec2, f64) {
    let jitter = (unit_f64(rng) * 2.0 - 1.0) * rate * dt;
    let angle = (angle + jitter).rem_euclid(std::f64::consts::TAU);
    let bearing = (strength * angle.sin()).atan2(1.0 + strength * angle.cos());
    let dir = DVec2::from_angle(bearing * dt).rotate(facing);
    (dir.try_normalize().unwrap_or(DVec2::X), angle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::rng::stream;

    #[test]
    fn the_heading_drifts_at_most_the_rate_and_repeats_from_the_seed() {
        let run = || {
            let mut rng = stream(7, "w", "move");
            let (mut facing, mut angle) = (DVec2::X, 0.0);
            let mut out = Vec::new();
            for _ in 0..300 {
                let (dir, a) = wander(facing, angle, 2.0, 0.5, 1.0 / 30.0, &mut rng);
                out.push(dir);
                facing = dir;
                angle = a;
            }
            out
        };
        let a = run();
        assert_eq!(a, run());
        // Smooth: no tick turns more than a few degrees.
        for w in a.windows(2) {
            assert!(w[0].angle_between(w[1]).abs() < 0.1, "{:?}", w);
        }
        // But it does wander off east.
        assert!(a.iter().any(|d| d.angle_between(DVec2::X).abs() > 0.2));
    }
}
