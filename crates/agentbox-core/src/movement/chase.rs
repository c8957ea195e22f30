//! Line-of-sight chase in continuous space (Bourg & Seemann, *AI for Game
//! Developers*, ch. 2 "Chasing and Evading"): steer straight at the target's
//! current position at full speed, arriving on it rather than overshooting.

use glam::DVec2;

/// The displacement towards `target`, at most `reach` long.
pub fn chase(pos: DVec2, target: DVec2, reach: f64) -> DVec2 {
    let to = target - pos;
    let dist = to.length();
    if dist <= reach {
        to
    } else {
        to * (reach / dist)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_at_full_speed_towards_the_target_and_stops_on_it() {
        let d = chase(DVec2::ZERO, DVec2::new(3.0, 4.0), 1.0);
        assert!((d - DVec2::new(0.6, 0.8)).length() < 1e-12);
        assert_eq!(
            chase(DVec2::ZERO, DVec2::new(0.1, 0.0), 1.0),
            DVec2::new(0.1, 0.0)
        );
    }
}
