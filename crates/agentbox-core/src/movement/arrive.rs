//! Arrival (Reynolds 1999, "Steering Behaviors For Autonomous Characters", *arrival*): seek a
//! point at full speed until within `slow` tiles of it, then ramp the speed down with the
//! distance, so the agent stops on the point without overshooting it. A floor of a tenth of
//! the speed keeps the last stretch finite: the agent reaches the point and stands on it.

use glam::DVec2;

/// The fraction of the top speed the ramp never goes below, so the point is reached.
const FLOOR: f64 = 0.1;

/// This tick's displacement from `pos` towards `point` at top speed `speed` over `dt`
/// seconds, slowing inside `slow` tiles; never past the point.
pub fn arrive(pos: DVec2, point: DVec2, speed: f64, slow: f64, dt: f64) -> DVec2 {
    let off = point - pos;
    let dist = off.length();
    if dist <= 1e-12 || !dist.is_finite() {
        return DVec2::ZERO;
    }
    let ramp = if slow > 0.0 {
        (dist / slow).clamp(FLOOR, 1.0)
    } else {
        1.0
    };
    let step = (speed * ramp * dt).min(dist);
    off * (step / dist)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slows_inside_the_radius_and_stops_on_the_point() {
        let goal = DVec2::new(10.0, 0.0);
        let mut pos = DVec2::ZERO;
        let mut last = f64::INFINITY;
        let mut steps = Vec::new();
        for _ in 0..400 {
            let d = arrive(pos, goal, 4.0, 3.0, 1.0 / 30.0);
            pos += d;
            assert!(pos.x <= goal.x, "overshot: {pos}");
            steps.push((goal.x - pos.x, d.length()));
            last = d.length().min(last);
        }
        assert_eq!(pos, goal);
        // Full speed outside the radius, slower inside, slower still nearer.
        let outside = steps.iter().find(|s| s.0 > 4.0).unwrap().1;
        let inside: Vec<f64> = steps
            .iter()
            .filter(|s| s.0 < 2.5 && s.1 > 0.0)
            .map(|s| s.1)
            .collect();
        assert!((outside - 4.0 / 30.0).abs() < 1e-12);
        assert!(inside.iter().all(|&v| v < outside));
        assert!(inside.windows(2).all(|w| w[1] <= w[0] + 1e-15));
        assert_eq!(last, 0.0);
    }
}
