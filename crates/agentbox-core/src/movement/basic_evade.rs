//! Basic evade (Bourg & Seemann, *AI for Game Developers*, ch. 2 "Chasing and Evading"; see
//! `docs/algorithms.md`): the mirror of basic chase,
//! each axis one unit away from the threat each step (`if px > tx: px += 1 elif px < tx:
//! px -= 1`). An axis on which both stand level does not move, as in the source.

use crate::world::Tile;
use glam::{DVec2, IVec2};

/// The next tile of a tile-stepping evader. With 4 directions only one axis moves: the one
/// with the longer distance to the threat (x on a tie), or the other when that one is level.
pub fn tile_step(at: Tile, threat: Tile, diagonal: bool) -> Tile {
    let d = at - threat;
    let away = d.signum();
    if diagonal {
        return at + away;
    }
    if away.x != 0 && (away.y == 0 || d.x.abs() >= d.y.abs()) {
        at + IVec2::new(away.x, 0)
    } else {
        at + IVec2::new(0, away.y)
    }
}

/// The displacement of a free evader: each axis `reach` away from the threat, capped at
/// `reach` overall.
pub fn free_step(pos: DVec2, threat: DVec2, reach: f64) -> DVec2 {
    // -1, 0 or +1 per axis: a level axis does not move.
    let unit = |d: f64| if d == 0.0 { 0.0 } else { d.signum() };
    let away = DVec2::new(unit(pos.x - threat.x), unit(pos.y - threat.y));
    away.try_normalize().unwrap_or(DVec2::ZERO) * reach
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_axis_one_unit_away() {
        assert_eq!(
            tile_step(IVec2::new(3, 3), IVec2::new(1, 5), true),
            IVec2::new(4, 2)
        );
        // Level on y: only x moves.
        assert_eq!(
            tile_step(IVec2::new(3, 3), IVec2::new(1, 3), true),
            IVec2::new(4, 3)
        );
        assert_eq!(
            free_step(DVec2::new(3.0, 3.0), DVec2::new(1.0, 3.0), 0.5),
            DVec2::new(0.5, 0.0)
        );
        let d = free_step(DVec2::new(3.0, 3.0), DVec2::new(1.0, 5.0), 1.0);
        assert!((d.x - d.y.abs()).abs() < 1e-12 && d.x > 0.0 && d.y < 0.0);
    }
}
