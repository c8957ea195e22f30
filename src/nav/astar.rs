//! A* over the scene grid (seed 001 and 004, ALGORITHMS.md "A*"): `F = G + H`, an OPEN list
//! ordered by F, a CLOSED set, parents to rebuild the path.
//!
//! Cost model: a step into a tile costs its terrain cost times the step's length (1 straight,
//! sqrt 2 diagonal). The heuristic is scaled by the cheapest terrain so the default (octile)
//! stays admissible and the returned path is optimal.

use crate::world::{Tile, World};
use glam::IVec2;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// When a diagonal step is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Diagonal {
    /// 4-connected: no diagonal steps.
    Never,
    /// Both orthogonal side cells must be free (MovingAI's rule; the default).
    #[default]
    NoCornerCutting,
    /// At least one side cell must be free.
    IfOneSideFree,
    /// Always, even between two blocked side cells.
    Always,
}

/// The estimate of the remaining cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Heuristic {
    /// Admissible with diagonal steps; the default.
    #[default]
    Octile,
    /// The source's (seed 001); overestimates when diagonal steps are allowed, so paths may
    /// then be longer than optimal.
    Manhattan,
    Euclidean,
    /// Dijkstra.
    Zero,
}

/// Choices for one search.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PathOptions {
    pub diagonal: Diagonal,
    pub heuristic: Heuristic,
}

const DIRS: [IVec2; 8] = [
    IVec2::new(0, -1),
    IVec2::new(1, 0),
    IVec2::new(0, 1),
    IVec2::new(-1, 0),
    IVec2::new(-1, -1),
    IVec2::new(1, -1),
    IVec2::new(1, 1),
    IVec2::new(-1, 1),
];

#[derive(Clone, Copy, PartialEq)]
struct Open {
    f: f64,
    h: f64,
    index: usize,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Smallest F first; among equal F, smallest H (closest to the goal); then index, so
        // the order never depends on the heap's internals.
        other
            .f
            .total_cmp(&self.f)
            .then(other.h.total_cmp(&self.h))
            .then(other.index.cmp(&self.index))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn estimate(heuristic: Heuristic, from: Tile, to: Tile, min_cost: f64) -> f64 {
    let d = (to - from).abs();
    let (dx, dy) = (d.x as f64, d.y as f64);
    min_cost
        * match heuristic {
            Heuristic::Octile => dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy),
            Heuristic::Manhattan => dx + dy,
            Heuristic::Euclidean => (dx * dx + dy * dy).sqrt(),
            Heuristic::Zero => 0.0,
        }
}

/// The cheapest path from `from` to `to`, both included, or `None` if there is none (or
/// either end is blocked).
pub fn find_path(world: &World, from: Tile, to: Tile, opts: &PathOptions) -> Option<Vec<Tile>> {
    let grid = world.grid();
    let (start, goal) = (grid.index(from)?, grid.index(to)?);
    let costs = world.costs();
    if costs[start].is_infinite() || costs[goal].is_infinite() {
        return None;
    }
    let min_cost = costs
        .iter()
        .copied()
        .filter(|c| c.is_finite())
        .fold(f32::INFINITY, f32::min) as f64;
    let width = grid.width();
    let tile_at = |i: usize| IVec2::new(i as i32 % width, i as i32 / width);
    let free = |t: IVec2| grid.index(t).is_some_and(|i| costs[i].is_finite());

    let mut g = vec![f64::INFINITY; costs.len()];
    let mut parent = vec![usize::MAX; costs.len()];
    let mut closed = vec![false; costs.len()];
    let mut open = BinaryHeap::new();
    g[start] = 0.0;
    let h0 = estimate(opts.heuristic, from, to, min_cost);
    open.push(Open {
        f: h0,
        h: h0,
        index: start,
    });
    while let Some(Open { index, .. }) = open.pop() {
        if closed[index] {
            continue;
        }
        if index == goal {
            let mut path = vec![tile_at(goal)];
            let mut at = goal;
            while at != start {
                at = parent[at];
                path.push(tile_at(at));
            }
            path.reverse();
            return Some(path);
        }
        closed[index] = true;
        let here = tile_at(index);
        let dirs = if opts.diagonal == Diagonal::Never {
            &DIRS[..4]
        } else {
            &DIRS[..]
        };
        for &d in dirs {
            let next = here + d;
            let Some(ni) = grid.index(next) else { continue };
            if closed[ni] || costs[ni].is_infinite() {
                continue;
            }
            let diagonal = d.x != 0 && d.y != 0;
            if diagonal {
                let (a, b) = (
                    free(here + IVec2::new(d.x, 0)),
                    free(here + IVec2::new(0, d.y)),
                );
                let allowed = match opts.diagonal {
                    Diagonal::Never => false,
                    Diagonal::NoCornerCutting => a && b,
                    Diagonal::IfOneSideFree => a || b,
                    Diagonal::Always => true,
                };
                if !allowed {
                    continue;
                }
            }
            let length = if diagonal {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let candidate = g[index] + length * costs[ni] as f64;
            if candidate < g[ni] {
                g[ni] = candidate;
                parent[ni] = index;
                let h = estimate(opts.heuristic, next, to, min_cost);
                open.push(Open {
                    f: candidate + h,
                    h,
                    index: ni,
                });
            }
        }
    }
    None
}

/// The cost of a path under the same model the search uses (for tests and the overlay).
pub fn path_cost(world: &World, path: &[Tile]) -> f64 {
    path.windows(2)
        .map(|p| {
            let d = p[1] - p[0];
            let length = if d.x != 0 && d.y != 0 {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            length * world.step_cost(p[1]).unwrap_or(f64::INFINITY)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: i32, y: i32) -> IVec2 {
        IVec2::new(x, y)
    }

    #[test]
    fn goes_around_a_wall() {
        let w = World::from_ascii(&[".....", ".###.", "....."]);
        let p = find_path(&w, t(0, 1), t(4, 1), &PathOptions::default()).unwrap();
        assert_eq!(p.first(), Some(&t(0, 1)));
        assert_eq!(p.last(), Some(&t(4, 1)));
        assert!(p.iter().all(|&c| !w.is_blocked(c)));
        // Up, along the top row, down: the corners forbid the diagonal short cuts.
        let expected = 6.0;
        assert!((path_cost(&w, &p) - expected).abs() < 1e-9);
    }

    #[test]
    fn no_corner_cutting_by_default() {
        let w = World::from_ascii(&[".#", ".."]);
        let p = find_path(&w, t(0, 0), t(1, 1), &PathOptions::default()).unwrap();
        assert_eq!(p, vec![t(0, 0), t(0, 1), t(1, 1)]);
        let cut = PathOptions {
            diagonal: Diagonal::IfOneSideFree,
            ..Default::default()
        };
        assert_eq!(find_path(&w, t(0, 0), t(1, 1), &cut).unwrap().len(), 2);
    }

    #[test]
    fn unreachable_and_blocked_goals_give_none() {
        let w = World::from_ascii(&["..#..", "..#..", "..#.."]);
        assert_eq!(
            find_path(&w, t(0, 0), t(4, 0), &PathOptions::default()),
            None
        );
        assert_eq!(
            find_path(&w, t(0, 0), t(2, 0), &PathOptions::default()),
            None
        );
        assert_eq!(
            find_path(&w, t(0, 0), t(9, 0), &PathOptions::default()),
            None
        );
    }

    #[test]
    fn start_equal_to_goal_is_a_one_tile_path() {
        let w = World::from_ascii(&["..."]);
        assert_eq!(
            find_path(&w, t(1, 0), t(1, 0), &PathOptions::default()),
            Some(vec![t(1, 0)])
        );
    }

    #[test]
    fn mud_is_avoided_when_a_cheaper_way_exists() {
        let w = World::from_ascii(&[".:::.", ".....", "....."]);
        let p = find_path(&w, t(0, 0), t(4, 0), &PathOptions::default()).unwrap();
        assert!(p.iter().all(|&c| w.step_cost(c) == Some(1.0)), "{p:?}");
    }
}
