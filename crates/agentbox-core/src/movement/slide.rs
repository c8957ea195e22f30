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
        // The whole part, else its x alone, else its y alone: written out rather than as a
        // search over an array with a closure, whose unrolling and inlining the compiler chose
        // differently from build to build (the crowd's cost moved with unrelated code,
        // `docs/benchmarks.md`, issue 35).
        let (across, along) = (DVec2::new(part.x, 0.0), DVec2::new(0.0, part.y));
        let step = if fits(world, radius, at, part, &stuck) {
            part
        } else if fits(world, radius, at, across, &stuck) {
            across
        } else if fits(world, radius, at, along, &stuck) {
            along
        } else {
            break;
        };
        at += step;
    }
    at
}

/// Whether a body of `radius` at `at` may move by `by` (not zero): it does not hit a wall
/// there, or it is `stuck` (already touching one, asked once a sub-step) and its centre lands
/// on a free tile.
#[inline(always)]
fn fits(
    world: &World,
    radius: f64,
    at: DVec2,
    by: DVec2,
    stuck: &std::cell::OnceCell<bool>,
) -> bool {
    let to = at + by;
    by != DVec2::ZERO
        && (!world.circle_hits_wall(to, radius)
            || (*stuck.get_or_init(|| world.circle_hits_wall(at, radius))
                && !world.is_blocked(tile_of(to))))
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
