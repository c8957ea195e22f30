//! Hearing: how far a sound walks. Distances from one tile to every tile within a bound, in
//! octile steps (1 straight, sqrt 2 diagonal) through free tiles with no corner cutting (a
//! diagonal step needs both side cells free), terrain cost ignored: a bounded Dijkstra over
//! the square of tiles the bound can reach at all, so its work is at most that square (and the
//! map), never the map's size alone.
//!
//! With only two step lengths the search needs no heap: tiles reached by a straight step join
//! one first-in-first-out queue and tiles reached by a diagonal step another, each in the
//! order their distances grow, and the nearer of the two heads is the next tile to settle (a
//! Dijkstra with one queue per edge weight). The square is copied once into a free-or-blocked
//! mask with a blocked border, so a step needs no bounds check.
//!
//! A pure query over the world's map; it changes nothing and knows nothing of agents.

use crate::world::{Tile, World};
use glam::IVec2;

/// Walking distances from one tile, up to a bound.
pub struct Hearing {
    /// The tile at cell (1, 1) of the padded square (the square's top-left tile).
    origin: Tile,
    /// The square's size plus a border cell on each side.
    padded_width: i32,
    padded_height: i32,
    /// By cell of the padded square, row-major: the distance, or infinity if not reached.
    dist: Vec<f64>,
    /// How many tiles the search settled (its work, what the budget charges).
    pub visited: usize,
}

impl Hearing {
    /// The walking distance to `tile`, if it is within the bound.
    pub fn distance(&self, tile: Tile) -> Option<f64> {
        let at = tile - self.origin + IVec2::ONE;
        if at.x < 1 || at.y < 1 || at.x >= self.padded_width - 1 || at.y >= self.padded_height - 1 {
            return None;
        }
        let d = self.dist[(at.y * self.padded_width + at.x) as usize];
        d.is_finite().then_some(d)
    }
}

/// Tiles waiting to be settled, in the order their distances grow: `(distance, cell)`.
#[derive(Default)]
struct Fifo {
    items: Vec<(f64, u32)>,
    head: usize,
}

impl Fifo {
    fn front(&self) -> Option<f64> {
        self.items.get(self.head).map(|&(d, _)| d)
    }

    fn pop(&mut self) -> (f64, u32) {
        self.head += 1;
        self.items[self.head - 1]
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
    let (pw, ph) = (width + 2, height + 2);
    let cells = (pw * ph) as usize;
    // The square's free tiles; the border (and anything off the map) is blocked.
    let mut free = vec![false; cells];
    let costs = world.costs();
    for y in 0..height {
        let row = (y + 1) as usize * pw as usize + 1;
        let tile_y = lo.y + y;
        if (0..map_h).contains(&tile_y) && lo.x >= 0 && lo.x + width <= map_w {
            let start = (tile_y * map_w + lo.x) as usize;
            let src = &costs[start..start + width as usize];
            for (cell, cost) in free[row..row + width as usize].iter_mut().zip(src) {
                *cell = *cost != f32::INFINITY;
            }
        } else {
            for x in 0..width {
                free[row + x as usize] = !world.is_blocked(Tile::new(lo.x + x, tile_y));
            }
        }
    }
    let mut dist = vec![f64::INFINITY; cells];
    let at = |t: Tile| ((t.y - lo.y + 1) * pw + (t.x - lo.x + 1)) as usize;
    let limit = max + 1e-9;
    let (mut straight, mut diagonal) = (Fifo::default(), Fifo::default());
    let start = at(from);
    dist[start] = 0.0;
    straight.items.push((0.0, start as u32));
    let pw = pw as isize;
    const STRAIGHT: [(isize, isize); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    const DIAGONAL: [(isize, isize); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    let mut visited = 0;
    loop {
        let next = match (straight.front(), diagonal.front()) {
            (Some(s), Some(d)) if d < s => diagonal.pop(),
            (Some(_), _) => straight.pop(),
            (None, Some(_)) => diagonal.pop(),
            (None, None) => break,
        };
        let (d, c) = (next.0, next.1 as usize);
        if d > dist[c] {
            continue; // reached again later by a shorter way
        }
        visited += 1;
        let nd = d + 1.0;
        if nd <= limit {
            for (dx, dy) in STRAIGHT {
                let n = (c as isize + dy * pw + dx) as usize;
                if free[n] && nd < dist[n] {
                    dist[n] = nd;
                    straight.items.push((nd, n as u32));
                }
            }
        }
        let nd = d + std::f64::consts::SQRT_2;
        if nd <= limit {
            for (dx, dy) in DIAGONAL {
                let side_x = (c as isize + dx) as usize;
                let side_y = (c as isize + dy * pw) as usize;
                let n = (c as isize + dy * pw + dx) as usize;
                if free[n] && free[side_x] && free[side_y] && nd < dist[n] {
                    dist[n] = nd;
                    diagonal.items.push((nd, n as u32));
                }
            }
        }
    }
    Hearing {
        origin: lo,
        padded_width: pw as i32,
        padded_height: ph,
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

    /// The plain Dijkstra over a binary heap that the two queues replace, tile by tile.
    fn heap_distances(world: &World, from: Tile, max: f64) -> Vec<(Tile, f64)> {
        use std::cmp::Reverse;
        use std::collections::{BTreeMap, BinaryHeap};
        let mut dist: BTreeMap<(i32, i32), f64> = BTreeMap::new();
        let mut heap = BinaryHeap::new();
        dist.insert((from.x, from.y), 0.0);
        heap.push(Reverse((0u64, from.y, from.x)));
        let reach = max.floor() as i32;
        let inside = |t: Tile| (t - from).abs().max_element() <= reach && world.in_bounds(t);
        while let Some(Reverse((bits, y, x))) = heap.pop() {
            let d = f64::from_bits(bits);
            if d > dist[&(x, y)] {
                continue;
            }
            let here = Tile::new(x, y);
            for (dx, dy) in [
                (1, 0),
                (-1, 0),
                (0, 1),
                (0, -1),
                (1, 1),
                (1, -1),
                (-1, 1),
                (-1, -1),
            ] {
                let next = here + IVec2::new(dx, dy);
                let diagonal = dx != 0 && dy != 0;
                if !inside(next)
                    || world.is_blocked(next)
                    || diagonal
                        && (world.is_blocked(here + IVec2::new(dx, 0))
                            || world.is_blocked(here + IVec2::new(0, dy)))
                {
                    continue;
                }
                let nd = d + if diagonal {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                if nd <= max + 1e-9 && dist.get(&(next.x, next.y)).is_none_or(|&o| nd < o) {
                    dist.insert((next.x, next.y), nd);
                    heap.push(Reverse((nd.to_bits(), next.y, next.x)));
                }
            }
        }
        dist.into_iter()
            .map(|((x, y), d)| (Tile::new(x, y), d))
            .collect()
    }

    #[test]
    fn the_two_queues_give_a_heaps_distances_bit_for_bit() {
        use rand_chacha::rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(30);
        for round in 0..40 {
            let (w, h) = (5 + rng.next_u32() % 30, 5 + rng.next_u32() % 30);
            let walls = rng.next_u32() % 45;
            let rows: Vec<String> = (0..h)
                .map(|_| {
                    (0..w)
                        .map(|_| {
                            if rng.next_u32() % 100 < walls {
                                '#'
                            } else {
                                '.'
                            }
                        })
                        .collect()
                })
                .collect();
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            let world = World::from_ascii(&rows);
            let from = Tile::new((rng.next_u32() % w) as i32, (rng.next_u32() % h) as i32);
            let max = f64::from(rng.next_u32() % 400) / 10.0;
            let queues = walking_distances(&world, from, max);
            let heap = heap_distances(&world, from, max);
            assert_eq!(queues.visited, heap.len(), "round {round}");
            for y in -1..=h as i32 {
                for x in -1..=w as i32 {
                    let t = Tile::new(x, y);
                    let want = heap
                        .iter()
                        .find(|(at, _)| *at == t)
                        .map(|(_, d)| d.to_bits());
                    assert_eq!(
                        queues.distance(t).map(f64::to_bits),
                        want,
                        "round {round} at {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_search_from_off_the_map_reaches_only_its_start() {
        let world = World::from_ascii(&["...", "..."]);
        for from in [Tile::new(-3, -2), Tile::new(7, 1), Tile::new(1, 9)] {
            let h = walking_distances(&world, from, 3.0);
            assert_eq!(h.distance(from), Some(0.0));
            assert_eq!(h.visited, 1);
        }
    }
}
