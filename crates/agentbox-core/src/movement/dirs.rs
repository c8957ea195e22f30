//! Compass directions on the grid and the rules for one tile step, shared by the tile
//! primitives. The 8 directions run clockwise from up-left (UL, U, UR, R, DR, D, DL, L) as in
//! `docs/algorithms.md`; index `i` here is direction `i + 1` of the book's road-following code.
//! The 4 directions run up, right, down, left.

use crate::world::{Tile, World};
use glam::{DVec2, IVec2};

/// UL, U, UR, R, DR, D, DL, L.
pub const DIR8: [IVec2; 8] = [
    IVec2::new(-1, -1),
    IVec2::new(0, -1),
    IVec2::new(1, -1),
    IVec2::new(1, 0),
    IVec2::new(1, 1),
    IVec2::new(0, 1),
    IVec2::new(-1, 1),
    IVec2::new(-1, 0),
];

/// Up, right, down, left.
pub const DIR4: [IVec2; 4] = [
    IVec2::new(0, -1),
    IVec2::new(1, 0),
    IVec2::new(0, 1),
    IVec2::new(-1, 0),
];

/// Whether a body can step from `from` to the neighbouring `to`: the tile is free and a
/// diagonal step does not cut a blocked corner (the rule line of sight and A* use), so a round
/// body moving centre to centre never grazes a wall.
pub fn can_step(world: &World, from: Tile, to: Tile) -> bool {
    let d = to - from;
    if world.is_blocked(to) || d.abs().max_element() != 1 {
        return false;
    }
    d.x == 0
        || d.y == 0
        || (!world.is_blocked(from + IVec2::new(d.x, 0))
            && !world.is_blocked(from + IVec2::new(0, d.y)))
}

/// The index in [`DIR8`] nearest to an angle (radians, 0 east, positive towards +y).
pub fn dir8_of_angle(angle: f64) -> usize {
    // DIR8[3] (R) is angle 0; each index is 45 degrees clockwise (towards +y).
    let steps = (angle / std::f64::consts::FRAC_PI_4).round() as i64;
    (3 + steps).rem_euclid(8) as usize
}

/// The index in [`DIR4`] nearest to an angle.
pub fn dir4_of_angle(angle: f64) -> usize {
    let steps = (angle / std::f64::consts::FRAC_PI_2).round() as i64;
    (1 + steps).rem_euclid(4) as usize
}

/// The free neighbour whose direction best matches `desired` (at least partly along it), for
/// tile-stepping agents executing a continuous primitive. Ties go to the first in [`DIR8`]
/// order.
pub fn quantize(world: &World, at: Tile, desired: DVec2, diagonal: bool) -> Option<Tile> {
    let dir = desired.try_normalize()?;
    let mut best: Option<(f64, Tile)> = None;
    for d in DIR8 {
        if !diagonal && d.x != 0 && d.y != 0 {
            continue;
        }
        let to = at + d;
        if !can_step(world, at, to) {
            continue;
        }
        let score = dir.dot(DVec2::new(d.x as f64, d.y as f64).normalize());
        if score > 1e-9 && best.is_none_or(|(s, _)| score > s + 1e-12) {
            best = Some((score, to));
        }
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_map_to_compass_indices() {
        assert_eq!(dir8_of_angle(0.0), 3);
        assert_eq!(dir8_of_angle(std::f64::consts::FRAC_PI_2), 5);
        assert_eq!(dir8_of_angle(-std::f64::consts::FRAC_PI_2), 1);
        assert_eq!(dir8_of_angle(std::f64::consts::PI), 7);
        assert_eq!(dir4_of_angle(0.0), 1);
        assert_eq!(dir4_of_angle(std::f64::consts::PI), 3);
        assert_eq!(dir4_of_angle(-std::f64::consts::FRAC_PI_2), 0);
    }

    #[test]
    fn no_corner_cutting_and_best_free_direction() {
        let w = World::from_ascii(&["...", ".#.", "..."]);
        assert!(!can_step(&w, IVec2::new(0, 0), IVec2::new(1, 1)));
        assert!(can_step(&w, IVec2::new(0, 0), IVec2::new(1, 0)));
        // From (0,0) towards (2,2): the diagonal is the wall, so the best free step is an
        // orthogonal one (right comes first in DIR8 order of equal scores? R is index 3, D is
        // index 5: equal score, first wins).
        let to = quantize(&w, IVec2::new(0, 0), DVec2::new(1.0, 1.0), true);
        assert_eq!(to, Some(IVec2::new(1, 0)));
        let four = quantize(
            &World::from_ascii(&["...", "...", "..."]),
            IVec2::new(1, 1),
            DVec2::new(1.0, 0.9),
            false,
        );
        assert_eq!(four, Some(IVec2::new(2, 1)));
    }
}
