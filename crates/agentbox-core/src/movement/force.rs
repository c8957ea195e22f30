//! Acceleration limit (Reynolds 1999, the *locomotion* layer's `max_force`): the velocity
//! moves from the current one towards the one asked for by at most `max_force x dt` a tick.
//! Agents without a `max_force` never come here: their velocity changes at once.

use glam::DVec2;

/// The velocity after one tick of `dt` seconds from `current` towards `asked`, changed by at
/// most `max_force * dt`.
pub fn limit(current: DVec2, asked: DVec2, max_force: f64, dt: f64) -> DVec2 {
    let change = (asked - current).clamp_length_max(max_force * dt);
    current + change
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_is_bounded_and_reaches_the_asked_velocity() {
        let v = limit(DVec2::ZERO, DVec2::new(4.0, 0.0), 30.0, 0.1);
        assert_eq!(v, DVec2::new(3.0, 0.0));
        assert_eq!(
            limit(v, DVec2::new(4.0, 0.0), 30.0, 0.1),
            DVec2::new(4.0, 0.0)
        );
    }
}
