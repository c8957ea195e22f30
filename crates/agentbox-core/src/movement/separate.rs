//! Separation (Reynolds 1999, *separation*): steer away from the neighbours within a radius,
//! each pushing with the inverse of its distance, at full speed while any is near; no
//! neighbour: no steering (so `move.first` moves on to its next action).

use super::neighbours::{apart, Neighbour};
use glam::DVec2;

/// The velocity (tiles/s) away from `near` for an agent at `pos` with top speed `speed`;
/// `id` and the neighbours' ids (through `id_of`) part agents on the same point.
pub fn separate(
    pos: DVec2,
    id: &str,
    near: &[Neighbour],
    id_of: impl Fn(usize) -> String,
    speed: f64,
) -> DVec2 {
    let mut sum = DVec2::ZERO;
    for n in near {
        sum += push(pos, id, n, &id_of);
    }
    from_push(sum, speed)
}

/// How hard neighbour `n` pushes an agent at `pos` (id `id`) away: the inverse of its
/// distance, or a fixed direction by the two ids when both stand on one point.
pub fn push(pos: DVec2, id: &str, n: &Neighbour, id_of: impl Fn(usize) -> String) -> DVec2 {
    let away = pos - n.pos;
    let d2 = away.length_squared();
    if d2 > 1e-18 {
        away / d2
    } else {
        apart(id, &id_of(n.index)) * 1e6
    }
}

/// The velocity for the neighbours' summed [`push`]: full speed along it, none without.
pub fn from_push(sum: DVec2, speed: f64) -> DVec2 {
    sum.try_normalize().map_or(DVec2::ZERO, |dir| dir * speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(index: usize, x: f64, y: f64) -> Neighbour {
        Neighbour {
            index,
            pos: DVec2::new(x, y),
            vel: DVec2::ZERO,
        }
    }

    #[test]
    fn pushes_away_from_the_nearer_side_at_full_speed() {
        let v = separate(
            DVec2::ZERO,
            "a",
            &[n(1, 1.0, 0.0), n(2, -3.0, 0.0)],
            |i| i.to_string(),
            2.0,
        );
        assert!((v - DVec2::new(-2.0, 0.0)).length() < 1e-12, "{v}");
        assert_eq!(
            separate(DVec2::ZERO, "a", &[], |i| i.to_string(), 2.0),
            DVec2::ZERO
        );
        let same = separate(DVec2::ZERO, "a", &[n(1, 0.0, 0.0)], |_| "b".into(), 2.0);
        assert!(same.is_finite() && (same.length() - 2.0).abs() < 1e-12);
    }
}
