//! Wall resolution: moves a round body by a displacement without letting it overlap a blocked
//! tile, sliding along walls instead of stopping dead.

use crate::world::{tile_of, World};
use glam::DVec2;

/// The largest sub-step, in tiles; small enough that a body never tunnels through a wall.
const SUB_STEP: f64 = 0.1;

/// Where a body of `radius` at `pos` ends up after trying to move by `delta` (a move that is
/// not finite is no move).
pub fn slide(world: &World, pos: DVec2, radius: f64, delta: DVec2) -> DVec2 {
    if !delta.is_finite() {
        return pos;
    }
    let steps = (delta.length() / SUB_STEP).ceil().max(1.0) as usize;
    let part = delta / steps as f64;
    let mut at = pos;
    for _ in 0..steps {
        // A body already touching a wall (the map changed under it) may move anywhere its
        // centre stays on a free tile, so it can walk out. (Only asked when a move hits.)
        let stuck = std::cell::OnceCell::new();
        let fits = |to: DVec2| {
            !world.circle_hits_wall(to, radius)
                || (*stuck.get_or_init(|| world.circle_hits_wall(at, radius))
                    && !world.is_blocked(tile_of(to)))
        };
        let candidates = [part, DVec2::new(part.x, 0.0), DVec2::new(0.0, part.y)];
        match candidates
            .iter()
            .find(|c| **c != DVec2::ZERO && fits(at + **c))
        {
            Some(ok) => at += *ok,
            None => break,
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_short_of_a_wall_and_slides_along_it() {
        let w = World::from_ascii(&["....", "...#", "...."]);
        let end = slide(&w, DVec2::new(1.0, 1.0), 0.3, DVec2::new(3.0, 0.0));
        assert!(end.x < 2.21 && end.x > 1.9, "{end}");
        let diag = slide(&w, DVec2::new(1.0, 1.0), 0.3, DVec2::new(1.0, 1.0));
        assert!(diag.y > 1.9 && diag.x > 1.9 && !w.circle_hits_wall(diag, 0.3));
    }
}
