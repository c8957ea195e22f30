//! Path smoothing by string pulling (the "line of sight" smoothing of Botea et al. and of
//! most game engines; Rabin, *AI Game Programming Wisdom*, "A* Aesthetic Optimizations"):
//! walk a grid path and drop every tile the body can skip, keeping a corner only where the
//! straight segment from the last kept corner to the tile after it is not clear. A segment is
//! clear when the tiles can see each other (`nav::line_of_sight`, whose diagonals never pass
//! between two blocked side cells, so no blocked cell's corner is cut) and a body of the
//! given radius swept along it touches no wall. Pure: the path in, the corners out.

use crate::nav::line_of_sight;
use crate::world::{centre_of, Tile, World};

/// How far apart, in tiles, the swept body is checked along a segment.
const SWEEP_STEP: f64 = 0.1;

/// The corners of `path` a body of `radius` walks in straight segments: the first and last
/// tiles and every tile where the line breaks.
pub fn smooth(world: &World, path: &[Tile], radius: f64) -> Vec<Tile> {
    let Some((&first, rest)) = path.split_first() else {
        return Vec::new();
    };
    let mut out = vec![first];
    let mut anchor = first;
    for (k, &tile) in rest.iter().enumerate() {
        match rest.get(k + 1) {
            Some(&next) if !clear(world, anchor, next, radius) => {
                out.push(tile);
                anchor = tile;
            }
            Some(_) => {}
            None => out.push(tile),
        }
    }
    out
}

/// Whether a body of `radius` can walk straight from `a`'s centre to `b`'s.
pub fn clear(world: &World, a: Tile, b: Tile, radius: f64) -> bool {
    if !line_of_sight(world, a, b) {
        return false;
    }
    let (from, to) = (centre_of(a), centre_of(b));
    let steps = (from.distance(to) / SWEEP_STEP).ceil().max(1.0) as u32;
    (0..=steps).all(|s| !world.circle_hits_wall(from.lerp(to, s as f64 / steps as f64), radius))
}

/// The length of a polyline through tile centres, in tiles.
pub fn length(tiles: &[Tile]) -> f64 {
    tiles
        .windows(2)
        .map(|w| centre_of(w[0]).distance(centre_of(w[1])))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    #[test]
    fn pulls_the_string_round_a_wall_without_cutting_its_corner() {
        let world = World::from_ascii(&[".....", ".###.", "....."]);
        let path: Vec<Tile> = [(0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (4, 1)]
            .iter()
            .map(|&(x, y)| IVec2::new(x, y))
            .collect();
        let corners = smooth(&world, &path, 0.3);
        assert_eq!(corners.first(), path.first());
        assert_eq!(corners.last(), path.last());
        assert!(corners.len() < path.len());
        for w in corners.windows(2) {
            assert!(clear(&world, w[0], w[1], 0.3), "{:?}", w);
        }
        assert!(length(&corners) <= length(&path));
        // Straight in the open: two corners.
        let open = World::from_ascii(&["......"]);
        let line: Vec<Tile> = (0..6).map(|x| IVec2::new(x, 0)).collect();
        assert_eq!(smooth(&open, &line, 0.3), vec![line[0], line[5]]);
    }
}
