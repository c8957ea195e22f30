//! Evade in continuous space (Bourg & Seemann, *AI for Game Developers*, ch. 2
//! "Chasing and Evading"; the mirror of chase): steer straight away from the
//! threat's current position at full speed.

use glam::DVec2;

/// The displacement away from `threat`, `reach` long. Standing exactly on the threat, the
/// agent flees east, so the choice never depends on anything but the inputs.
pub fn evade(pos: DVec2, threat: DVec2, reach: f64) -> DVec2 {
    let away = pos - threat;
    let dir = away.try_normalize().unwrap_or(DVec2::X);
    dir * reach
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flees_directly_away() {
        let d = evade(DVec2::new(1.0, 1.0), DVec2::new(0.0, 1.0), 0.5);
        assert_eq!(d, DVec2::new(0.5, 0.0));
        assert_eq!(evade(DVec2::ONE, DVec2::ONE, 2.0), DVec2::new(2.0, 0.0));
    }
}
