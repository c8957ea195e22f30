//! A scripted route for keyboard agents: with no key pressed (always, headless) the agent walks
//! its scene `route` straight from tile centre to tile centre, once, then stands still. It lets
//! the breadcrumb demos run and be tested without a person at the keys.

use crate::world::{centre_of, Walk};
use glam::DVec2;

/// The displacement this tick and the index of the next route tile afterwards.
pub fn walk(pos: DVec2, route: &Walk, reach: f64) -> (DVec2, usize) {
    let mut at = pos;
    let mut left = reach;
    let mut next = route.next;
    while let Some(&tile) = route.tiles.get(next) {
        let target = centre_of(tile);
        let dist = at.distance(target);
        if dist <= left {
            at = target;
            left -= dist;
            next += 1;
        } else {
            at += (target - at) * (left / dist);
            break;
        }
    }
    (at - pos, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    #[test]
    fn walks_the_route_once_then_stops() {
        let route = Walk {
            tiles: vec![IVec2::new(2, 0), IVec2::new(2, 2)].into(),
            next: 0,
        };
        let (d, next) = walk(DVec2::ZERO, &route, 3.0);
        assert_eq!((d, next), (DVec2::new(2.0, 1.0), 1));
        let done = Walk { next: 2, ..route };
        assert_eq!(walk(DVec2::new(2.0, 2.0), &done, 1.0), (DVec2::ZERO, 2));
    }
}
