//! Hearing: how far a sound walks. Distances from one tile to every tile within a bound, in
//! octile steps (1 straight, sqrt 2 diagonal) through free tiles with no corner cutting (a
//! diagonal step needs both side cells free), terrain cost ignored: a bounded Dijkstra over
//! the square of tiles the bound can reach at all, so its work is at most that square (and the
//! map), never the map's size alone.
//!
//! A pure query over the world's map; it changes nothing and knows nothing of agents.

use crate::world::{Tile, World};
use glam::IVec2;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Walking distances from one tile, up to a bound.
pub struct Hearing {
    /// The top-left tile of the searched square.
    origin: Tile,
    width: i32,
    height: i32,
    /// By cell of the square, row-major: the distance, or infinity if not reached.
    dist: Vec<f64>,
    /// How many tiles the search settled (its work, what the budget charges).
    pub visited: usize,
}

impl Hearing {
    /// The walking distance to `tile`, if it is within the bound.
    pub fn distance(&self, tile: Tile) -> Option<f64> {
        let at = tile - self.origin;
        if at.x < 0 || at.y < 0 || at.x >= self.width || at.y >= self.height {
            return None;
        }
        let d = self.dist[(at.y * self.width + at.x) as usize];
        d.is_finite().then_some(d)
    }
}

/// The walking distance from `from` to every free tile at most `max` tiles away (a small
/// tolerance keeps a diagonal sum like `2 + 2 sqrt 2` in). `from` itself is at distance 0
/// even if it is blocked; a `max` that is not finite or below 0 reaches only `from`.
pub fn walking_distances(world: &World, from: Tile, max: f64) -> Hearing {
    let max = if max.is_finite() { max.max(0.0) } else { 0.0 };
    let (map_w, map_h) = (world.grid().width(), world.grid().height());
    // No tile further than `max` in either axis can be reached; clipped to the map (and
    // always holding `from`, even off the map).
    let reach = max.floor().min((map_w.max(map_h)) as f64) as i32;
    let lo = (from - IVec2::splat(reach)).max(IVec2::ZERO).min(from);
    let hi = (from + IVec2::splat(reach))
        .min(IVec2::new(map_w - 1, map_h - 1))
        .max(from);
    let (width, height) = (hi.x - lo.x + 1, hi.y - lo.y + 1);
    let mut dist = vec![f64::INFINITY; (width * height) as usize];
    let cell = |t: Tile| -> Option<usize> {
        let at = t - lo;
        (at.x >= 0 && at.y >= 0 && at.x < width && at.y < height)
            .then(|| (at.y * width + at.x) as usize)
    };
    let limit = max + 1e-9;
    let mut heap = BinaryHeap::new();
    let mut visited = 0;
    if let Some(c) = cell(from) {
        dist[c] = 0.0;
        heap.push(Reverse((0u64, from.y, from.x)));
    }
    const DIRS: [(i32, i32); 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    // Distances are non-negative, so their bit patterns order as the numbers do.
    while let Some(Reverse((bits, y, x))) = heap.pop() {
        let d = f64::from_bits(bits);
        let here = Tile::new(x, y);
        let Some(c) = cell(here) else { continue };
        if d > dist[c] {
            continue;
        }
        visited += 1;
        for (dx, dy) in DIRS {
            let next = here + IVec2::new(dx, dy);
            let Some(n) = cell(next) else { continue };
            if world.is_blocked(next) {
                continue;
            }
            let diagonal = dx != 0 && dy != 0;
            if diagonal
                && (world.is_blocked(here + IVec2::new(dx, 0))
                    || world.is_blocked(here + IVec2::new(0, dy)))
            {
                continue;
            }
            let step = if diagonal {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let nd = d + step;
            if nd <= limit && nd < dist[n] {
                dist[n] = nd;
                heap.push(Reverse((nd.to_bits(), next.y, next.x)));
            }
        }
    }
    Hearing {
        origin: lo,
        width,
        height,
        dist,
        visited,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_makes_a_sound_walk_round_it() {
        let world = World::from_ascii(&[
            "...........",
            ".....#.....",
            ".....#.....",
            ".....#.....",
            ".....#.....",
            ".....#.....",
        ]);
        let from = Tile::new(3, 5);
        let open = walking_distances(&world, from, 4.0);
        assert_eq!(open.distance(Tile::new(3, 1)), Some(4.0));
        assert_eq!(open.distance(Tile::new(7, 5)), None, "behind the wall");
        let far = walking_distances(&world, from, 20.0);
        // Up to row 0 (5 steps, one diagonal on the way), over and down: about 12.
        let d = far.distance(Tile::new(7, 5)).unwrap();
        assert!((10.0..13.0).contains(&d), "{d}");
        assert!(far.visited > open.visited);
    }

    #[test]
    fn no_corner_is_cut_and_terrain_cost_is_ignored() {
        let world = World::from_ascii(&[".#", "#.", "::"]);
        let h = walking_distances(&world, Tile::new(0, 0), 5.0);
        assert_eq!(h.distance(Tile::new(1, 1)), None);
        let mud = walking_distances(&world, Tile::new(0, 2), 5.0);
        assert_eq!(mud.distance(Tile::new(1, 2)), Some(1.0));
    }

    #[test]
    fn the_search_stays_within_its_bound_on_a_big_map() {
        let rows: Vec<String> = (0..512).map(|_| ".".repeat(512)).collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let world = World::from_ascii(&rows);
        let h = walking_distances(&world, Tile::new(256, 256), 20.0);
        assert!(h.visited <= 41 * 41, "{}", h.visited);
        let huge = walking_distances(&world, Tile::new(0, 0), f64::INFINITY);
        assert_eq!(huge.visited, 1);
    }
}
