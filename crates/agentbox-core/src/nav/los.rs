//! Line of sight between two tiles, along the Bresenham line.
//!
//! Rule (shared with movement, so an agent can walk every line it can see): sight is blocked
//! by any blocked cell on the line, and a diagonal step of the line is blocked when either of
//! the two cells beside it is blocked — the same "no corner cutting" rule A* uses by default.
//! A line that only grazes a wall's corner therefore does not see past it.

use super::line::Line;
use crate::world::World;
use glam::IVec2;

/// Whether `b` can be seen from `a`. Symmetric: the line is always traced from the endpoint
/// that comes first in row-major order, so `a` sees `b` exactly when `b` sees `a`. The line is
/// walked cell by cell and the walk stops at the first blocked cell; cells off the map are
/// blocked, so the work is at most the map's longer side whatever the ends.
pub fn line_of_sight(world: &World, a: IVec2, b: IVec2) -> bool {
    let (a, b) = if (a.y, a.x) <= (b.y, b.x) {
        (a, b)
    } else {
        (b, a)
    };
    let mut prev: Option<IVec2> = None;
    for c in Line::new(a, b) {
        if world.is_blocked(c) {
            return false;
        }
        if let Some(p) = prev {
            let step = c - p;
            if step.x != 0
                && step.y != 0
                && (world.is_blocked(p + IVec2::new(step.x, 0))
                    || world.is_blocked(p + IVec2::new(0, step.y)))
            {
                return false;
            }
        }
        prev = Some(c);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walls_block_sight() {
        let w = World::from_ascii(&[".....", "..#..", "....."]);
        assert!(line_of_sight(&w, IVec2::new(0, 0), IVec2::new(4, 0)));
        assert!(!line_of_sight(&w, IVec2::new(0, 1), IVec2::new(4, 1)));
        assert!(line_of_sight(&w, IVec2::new(0, 2), IVec2::new(4, 2)));
    }

    #[test]
    fn grazing_a_corner_blocks_sight() {
        let w = World::from_ascii(&["#.", ".."]);
        assert!(!line_of_sight(&w, IVec2::new(1, 0), IVec2::new(0, 1)));
        let open = World::from_ascii(&["..", ".."]);
        assert!(line_of_sight(&open, IVec2::new(1, 0), IVec2::new(0, 1)));
    }

    #[test]
    fn far_ends_are_answered_at_the_map_edge() {
        let w = World::from_ascii(&["....", "...."]);
        let far = IVec2::new(i32::MAX, i32::MAX);
        assert!(!line_of_sight(&w, IVec2::new(0, 0), far));
        assert!(!line_of_sight(&w, far, IVec2::new(0, 0)));
        assert!(!line_of_sight(&w, IVec2::new(i32::MIN, i32::MIN), far));
    }

    #[test]
    fn sight_is_symmetric_on_this_map() {
        let w = World::from_ascii(&["......", "..#...", "....#.", "......"]);
        for a in 0..6 {
            for b in 0..6 {
                let (p, q) = (IVec2::new(a, 0), IVec2::new(b, 3));
                assert_eq!(line_of_sight(&w, p, q), line_of_sight(&w, q, p), "{p} {q}");
            }
        }
    }
}
