//! Wall avoidance (Reynolds 1999, *obstacle avoidance* / *containment*): three feelers of
//! `ahead` tiles along the heading and 35 degrees to either side probe for the first point
//! where the body would touch a wall; each hit pushes along the wall's normal there, harder
//! the nearer the hit. No hit: no steering. The feelers are probe shapes for the overlay.

use crate::world::{centre_of, tile_of, Role, Shape, World};
use glam::DVec2;

/// How far apart the feelers are sampled, in tiles.
const PROBE_STEP: f64 = 0.1;

/// The velocity (tiles/s, at most `speed`) off the walls a body of `radius` at `pos` facing
/// `facing` (unit) would meet within `ahead` tiles, with the feelers pushed onto `shapes`.
pub fn avoid_walls(
    world: &World,
    pos: DVec2,
    facing: DVec2,
    radius: f64,
    ahead: f64,
    speed: f64,
    shapes: &mut Vec<Shape>,
) -> DVec2 {
    let mut push = DVec2::ZERO;
    for angle in [0.0f64, 35f64.to_radians(), -35f64.to_radians()] {
        let dir = DVec2::from_angle(angle).rotate(facing);
        let length = if angle == 0.0 { ahead } else { ahead * 0.7 };
        let steps = (length / PROBE_STEP).ceil().clamp(1.0, 10_000.0) as u32;
        let hit = (1..=steps)
            .map(|s| pos + dir * (length * s as f64 / steps as f64))
            .find(|&p| world.circle_hits_wall(p, radius));
        let end = hit.unwrap_or(pos + dir * length);
        shapes.push(Shape::Line {
            role: Role::Probe,
            from: pos,
            to: end,
        });
        if let Some(p) = hit {
            let normal = wall_normal(world, p, radius).unwrap_or(-dir);
            push += normal * (1.0 - pos.distance(p) / length).max(0.05);
        }
    }
    push.try_normalize()
        .map_or(DVec2::ZERO, |d| d * speed * push.length().min(1.0))
}

/// The unit direction from the nearest blocked tile (or off-map tile) touching a circle at
/// `p` out to the circle's centre.
fn wall_normal(world: &World, p: DVec2, radius: f64) -> Option<DVec2> {
    let (min, max) = (tile_of(p - radius), tile_of(p + radius));
    let mut best: Option<(f64, DVec2)> = None;
    for y in min.y..=max.y {
        for x in min.x..=max.x {
            let t = glam::IVec2::new(x, y);
            if !world.is_blocked(t) {
                continue;
            }
            let c = centre_of(t);
            let closest = p.clamp(c - 0.5, c + 0.5);
            let d = closest.distance_squared(p);
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((
                    d,
                    (p - closest)
                        .try_normalize()
                        .unwrap_or((p - c).normalize_or_zero()),
                ));
            }
        }
    }
    best.map(|(_, n)| n).filter(|n| *n != DVec2::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_ahead_pushes_back_and_open_ground_does_not_steer() {
        let world = World::from_ascii(&[".......#", ".......#", ".......#"]);
        let mut shapes = Vec::new();
        let v = avoid_walls(
            &world,
            DVec2::new(5.0, 1.0),
            DVec2::X,
            0.3,
            2.0,
            4.0,
            &mut shapes,
        );
        assert!(v.x < 0.0, "{v}");
        assert_eq!(shapes.len(), 3);
        let far = avoid_walls(
            &world,
            DVec2::new(1.0, 1.0),
            DVec2::X,
            0.3,
            2.0,
            4.0,
            &mut shapes,
        );
        assert_eq!(far, DVec2::ZERO);
    }
}
