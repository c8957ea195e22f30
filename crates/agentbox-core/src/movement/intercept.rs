//! Intercept (Bourg & Seemann, *AI for Game Developers*, ch. 2 "Chasing and
//! Evading", "Intercepting"): aim at where the prey will be.
//! Relative velocity `Vr = Vprey - Vpredator`, relative position `Sr = Sprey - Spredator`,
//! closing time `tc = |Sr| / |Vr|`, target point `St = Sprey + Vprey * tc`; chase `St`.
//! A slower predator can cut off a faster prey this way.

use glam::DVec2;

/// Below this relative speed (tiles per second) the closing time is unbounded; the predator
/// then aims at the prey itself.
const MIN_CLOSING_SPEED: f64 = 1e-6;

/// The point to chase, `St`.
pub fn intercept_point(pred: DVec2, pred_vel: DVec2, prey: DVec2, prey_vel: DVec2) -> DVec2 {
    let vr = prey_vel - pred_vel;
    let sr = prey - pred;
    let closing = vr.length();
    if closing < MIN_CLOSING_SPEED {
        return prey;
    }
    let tc = sr.length() / closing;
    prey + prey_vel * tc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_formula() {
        // Predator at rest at the origin; prey 10 tiles east moving north at 2 tiles/s.
        // Vr = (0, 2), Sr = (10, 0), tc = 10 / 2 = 5 s, St = (10, 0) + (0, 2) * 5.
        let st = intercept_point(
            DVec2::ZERO,
            DVec2::ZERO,
            DVec2::new(10.0, 0.0),
            DVec2::new(0.0, 2.0),
        );
        assert_eq!(st, DVec2::new(10.0, 10.0));
        // A moving predator: Vr = (0, 2) - (1, 0) = (-1, 2), |Vr| = sqrt 5,
        // tc = 10 / sqrt 5, St = Sprey + Vprey * tc.
        let st = intercept_point(
            DVec2::ZERO,
            DVec2::new(1.0, 0.0),
            DVec2::new(10.0, 0.0),
            DVec2::new(0.0, 2.0),
        );
        let tc = 10.0 / 5f64.sqrt();
        assert!((st - DVec2::new(10.0, 2.0 * tc)).length() < 1e-12);
        // No relative motion: aim at the prey.
        let same = DVec2::new(1.0, 1.0);
        assert_eq!(
            intercept_point(DVec2::ZERO, same, DVec2::new(3.0, 0.0), same),
            DVec2::new(3.0, 0.0)
        );
    }
}
