//! Path following along a given list of tiles (Reynolds 1999, *path following*, here along
//! the path's polyline): walk the tile centres in order at full speed, spending the whole
//! reach each tick, and stop on the last. With `smooth`, the list is first string-pulled
//! (`smooth.rs`) for the agent's body, once, when the action starts.

use super::smooth::smooth;
use crate::world::{centre_of, Agent, MoveMemory, Role, Shape, Tile, World};
use glam::DVec2;

/// The corners to walk for `tiles`, smoothed for the agent's body when asked.
pub fn corners(world: &World, agent: &Agent, tiles: &[Tile], smoothed: bool) -> Vec<Tile> {
    match smoothed {
        true => smooth(world, tiles, agent.radius),
        false => tiles.to_vec(),
    }
}

/// This tick's displacement along `corners` from `pos` (the next being `next`), the index of
/// the corner after it, and the shapes: the corners left as a path.
pub fn walk(
    pos: DVec2,
    corners: &[Tile],
    mut next: usize,
    reach: f64,
) -> (DVec2, usize, Vec<Shape>) {
    let mut at = pos;
    let mut left = reach;
    while let Some(&tile) = corners.get(next) {
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
    let mut line = vec![pos];
    line.extend(corners.iter().skip(next).map(|&t| centre_of(t)));
    let shapes = line
        .windows(2)
        .map(|w| Shape::Line {
            role: Role::Path,
            from: w[0],
            to: w[1],
        })
        .collect();
    (at - pos, next, shapes)
}

/// The memory to start walking `tiles` with.
pub fn start(world: &World, agent: &Agent, tiles: &[Tile], smoothed: bool) -> MoveMemory {
    MoveMemory::Corners {
        corners: corners(world, agent, tiles, smoothed),
        next: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    #[test]
    fn walks_the_corners_in_order_and_stops_on_the_last() {
        let corners = [IVec2::new(0, 0), IVec2::new(2, 0), IVec2::new(2, 2)];
        let (mut pos, mut next) = (DVec2::ZERO, 0);
        for _ in 0..20 {
            let (d, n, _) = walk(pos, &corners, next, 0.5);
            pos += d;
            next = n;
        }
        assert_eq!(pos, DVec2::new(2.0, 2.0));
        assert_eq!(next, 3);
        let (d, _, _) = walk(pos, &corners, next, 0.5);
        assert_eq!(d, DVec2::ZERO);
    }
}
