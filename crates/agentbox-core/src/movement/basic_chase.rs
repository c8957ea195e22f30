//! Basic chase (Bourg & Seemann, *AI for Game Developers*, ch. 2 "Chasing and Evading"; the same
//! step is ch. 6's basic pathfinding; see `docs/algorithms.md`): each step, move
//! each axis one unit towards the target (`if px > tx: px -= 1 elif px < tx: px += 1`, the same
//! for y). The trail is a bent line: diagonal first, then straight.

use crate::world::Tile;
use glam::{DVec2, IVec2};

/// The next tile of a tile-stepping chaser. With 4 directions only one axis moves per step: the
/// one with the longer distance (x on a tie), so the trail is a staircase towards the target.
pub fn tile_step(at: Tile, target: Tile, diagonal: bool) -> Tile {
    let d = target - at;
    let sign = d.signum();
    if diagonal {
        return at + sign;
    }
    if d.x.abs() >= d.y.abs() {
        at + IVec2::new(sign.x, 0)
    } else {
        at + IVec2::new(0, sign.y)
    }
}

/// The displacement of a free chaser this tick: each axis moves `reach` towards the target
/// (less when closer than that), and the whole move is capped at `reach` so diagonals are not
/// faster than the agent's speed.
pub fn free_step(pos: DVec2, target: DVec2, reach: f64) -> DVec2 {
    let d = target - pos;
    let per_axis = DVec2::new(d.x.clamp(-reach, reach), d.y.clamp(-reach, reach));
    let len = per_axis.length();
    if len > reach {
        per_axis * (reach / len)
    } else {
        per_axis
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_axis_one_unit_towards_the_target_diagonal_first_then_straight() {
        let mut at = IVec2::new(0, 0);
        let target = IVec2::new(5, 2);
        let mut trail = vec![at];
        while at != target {
            at = tile_step(at, target, true);
            trail.push(at);
        }
        let xy: Vec<(i32, i32)> = trail.iter().map(|t| (t.x, t.y)).collect();
        assert_eq!(
            xy,
            vec![(0, 0), (1, 1), (2, 2), (3, 2), (4, 2), (5, 2)],
            "a bent line"
        );
    }

    #[test]
    fn four_directions_move_the_longer_axis() {
        assert_eq!(
            tile_step(IVec2::ZERO, IVec2::new(3, -1), false),
            IVec2::new(1, 0)
        );
        assert_eq!(
            tile_step(IVec2::ZERO, IVec2::new(1, -3), false),
            IVec2::new(0, -1)
        );
    }

    #[test]
    fn free_chaser_bends_and_keeps_its_speed() {
        let d = free_step(DVec2::ZERO, DVec2::new(10.0, 1.0), 0.5);
        // Both axes move while both differ: a 45-degree start.
        assert!((d.x - d.y).abs() < 1e-12 && (d.length() - 0.5).abs() < 1e-12);
        let last = free_step(DVec2::new(9.0, 1.0), DVec2::new(10.0, 1.0), 0.5);
        assert_eq!(last, DVec2::new(0.5, 0.0));
    }
}
