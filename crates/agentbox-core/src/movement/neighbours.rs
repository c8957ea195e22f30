//! The neighbours Reynolds' flocking rules read: every other agent whose centre is within a
//! radius (of one kind if asked), scripted or not, found through the world's spatial index in
//! ascending index order, so the sums over them come out the same bits every run. Reads only
//! what a primitive may read of another agent: its position, velocity, id and kind.

use crate::world::{Agent, World};
use glam::DVec2;

/// One neighbour: where it is and how fast it went last tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    pub index: usize,
    pub pos: DVec2,
    pub vel: DVec2,
}

/// The other agents within `radius` of `centre` (of `kind` if given), `agent` left out,
/// ascending by index.
pub fn within(
    world: &World,
    agent: &Agent,
    centre: DVec2,
    radius: f64,
    kind: Option<&str>,
) -> Vec<Neighbour> {
    let mut near = Vec::new();
    world.visit_agents_within(centre, radius, kind, |i| {
        let other = &world.agents[i];
        if other.id != agent.id {
            near.push(Neighbour {
                index: i,
                pos: other.pos,
                vel: other.vel,
            });
        }
    });
    near.sort_unstable_by_key(|n| n.index);
    near
}

/// The neighbours of `near` (found around `centre`) within `radius` of it and of `kind` if
/// given, in the same order: what [`within`] with that radius and kind finds, when `near` was
/// found with a radius at least as large and no narrower kind.
pub fn narrowed(
    world: &World,
    near: &[Neighbour],
    centre: DVec2,
    radius: f64,
    kind: Option<&str>,
) -> Vec<Neighbour> {
    let r2 = radius * radius;
    near.iter()
        .filter(|n| n.pos.distance_squared(centre) <= r2)
        .filter(|n| kind.is_none_or(|k| world.agents[n.index].kind == k))
        .copied()
        .collect()
}

/// A unit direction for `a` to leave `b` when both stand on the same point: fixed by the two
/// ids (FNV-1a of the pair in id order), opposite for the other agent of the pair, so
/// coincident agents part without a random draw and without a NaN.
pub fn apart(a: &str, b: &str) -> DVec2 {
    let (first, second, sign) = if a <= b { (a, b, 1.0) } else { (b, a, -1.0) };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in first.bytes().chain([0xff]).chain(second.bytes()) {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let angle = (hash >> 11) as f64 * (std::f64::consts::TAU / (1u64 << 53) as f64);
    DVec2::from_angle(angle) * sign
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coincident_agents_part_in_opposite_unit_directions() {
        let (a, b) = (apart("x-1", "x-2"), apart("x-2", "x-1"));
        assert!((a.length() - 1.0).abs() < 1e-12);
        assert_eq!(a, -b);
    }
}
