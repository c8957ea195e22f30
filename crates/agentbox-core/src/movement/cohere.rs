//! Cohesion (Reynolds 1999, *cohesion*): steer towards the centre of the neighbours within a
//! radius, arriving on it (no overshoot past the centre in one tick); no neighbour: no
//! steering.

use super::neighbours::Neighbour;
use glam::DVec2;

/// This tick's displacement from `pos` towards the neighbours' centre, at most `reach`.
pub fn cohere(pos: DVec2, near: &[Neighbour], reach: f64) -> DVec2 {
    from_sum(
        pos,
        near.iter().map(|n| n.pos).sum::<DVec2>(),
        near.len(),
        reach,
    )
}

/// [`cohere`] from the sum of `count` neighbours' positions (added in their order).
pub fn from_sum(pos: DVec2, sum: DVec2, count: usize, reach: f64) -> DVec2 {
    if count == 0 {
        return DVec2::ZERO;
    }
    super::chase::chase(pos, sum / count as f64, reach)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_for_the_centre() {
        let n = |x: f64, y: f64| Neighbour {
            index: 0,
            pos: DVec2::new(x, y),
            vel: DVec2::ZERO,
        };
        let d = cohere(DVec2::ZERO, &[n(4.0, 0.0), n(4.0, 2.0)], 0.5);
        assert!((d.length() - 0.5).abs() < 1e-12 && d.x > 0.0 && d.y > 0.0);
        assert_eq!(cohere(DVec2::ZERO, &[], 0.5), DVec2::ZERO);
    }
}
