//! Alignment (Reynolds 1999, *alignment*): steer along the neighbours' mean velocity (last
//! tick's), clamped to the top speed; no neighbour, or neighbours standing: no steering.

use super::neighbours::Neighbour;
use glam::DVec2;

/// The neighbours' mean velocity, at most `speed` long.
pub fn align(near: &[Neighbour], speed: f64) -> DVec2 {
    from_sum(near.iter().map(|n| n.vel).sum::<DVec2>(), near.len(), speed)
}

/// [`align`] from the sum of `count` neighbours' velocities (added in their order).
pub fn from_sum(sum: DVec2, count: usize, speed: f64) -> DVec2 {
    if count == 0 {
        return DVec2::ZERO;
    }
    (sum / count as f64).clamp_length_max(speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_mean_velocity_clamped() {
        let n = |vx: f64, vy: f64| Neighbour {
            index: 0,
            pos: DVec2::ZERO,
            vel: DVec2::new(vx, vy),
        };
        assert_eq!(
            align(&[n(2.0, 0.0), n(0.0, 2.0)], 4.0),
            DVec2::new(1.0, 1.0)
        );
        assert!((align(&[n(8.0, 0.0)], 4.0) - DVec2::new(4.0, 0.0)).length() < 1e-12);
        assert_eq!(align(&[], 4.0), DVec2::ZERO);
    }
}
