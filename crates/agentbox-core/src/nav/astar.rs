//! A* over the grid (Hart, Nilsson & Raphael 1968; Bourg & Seemann, *AI for Game
//! Developers*, ch. 7 "A* Pathfinding"; see `docs/algorithms.md`): `F = G + H`, an OPEN list
//! ordered by F, a CLOSED set, parents to rebuild the path.
//!
//! Cost model: a step into a cell costs the step's length (straight or diagonal, see
//! [`super::StepCosts`]) times the cell's terrain cost (or 1 when terrain costs are ignored).
//! The heuristic is scaled by the cheapest terrain, so octile, Euclidean and zero stay
//! admissible and consistent and the returned path is optimal; Manhattan with diagonal steps is
//! the classic tutorials' rule and may return a longer path. Ties on F go to the larger G, then to
//! the node added last (the classic worked example's rule). A node is closed once; the classic
//! formulation does not reopen closed nodes either.
//!
//! The buffers belong to [`super::Search`]; this file is the loop only.

use super::grid::NavGrid;
use super::marks::{CLOSED, OPEN};
use super::options::Diagonal;
use super::search::{Outcome, Query, Search, DIRS};

/// Runs A* from `q.start`; returns how it ended and how many nodes were expanded.
pub(super) fn run(s: &mut Search, grid: &NavGrid, q: &Query) -> (Outcome, usize) {
    let costs = grid.costs();
    let (w, h) = (grid.width(), grid.height());
    let dirs: &[(i32, i32)] = if q.rule == Diagonal::Never {
        &DIRS[..4]
    } else {
        &DIRS
    };
    s.open_start(q);
    let mut expanded = 0usize;
    let mut best = (q.start, f64::INFINITY, 0.0);
    while let Some(i) = s.pop_and_close() {
        let g = s.seen[i].g;
        expanded += 1;
        if i == q.goal {
            return (Outcome::Found, expanded);
        }
        let (x, y) = (i as i32 % w, i as i32 / w);
        if q.max_expanded.is_some() {
            let est = q.estimate(x, y);
            if est < best.1 || (est == best.1 && g < best.2) {
                best = (i, est, g);
            }
        }
        for &(dx, dy) in dirs {
            let (nx, ny) = (x + dx, y + dy);
            if (nx as u32) >= w as u32 || (ny as u32) >= h as u32 {
                continue;
            }
            let ni = (ny * w + nx) as usize;
            let c = costs[ni];
            if c == f32::INFINITY {
                continue;
            }
            let step = if dx != 0 && dy != 0 {
                let allowed = match q.rule {
                    Diagonal::NoCornerCutting => grid.free(nx, y) && grid.free(x, ny),
                    Diagonal::IfOneSideFree => grid.free(nx, y) || grid.free(x, ny),
                    Diagonal::Always => true,
                    Diagonal::Never => false,
                };
                if !allowed {
                    continue;
                }
                q.diagonal
            } else {
                q.straight
            };
            let ng = g + if q.ignore_terrain {
                step
            } else {
                step * c as f64
            };
            // The mark first (`marks.rs`): the record is read only for a cell already open.
            let mark = s.marks.get(ni);
            if mark == CLOSED || (mark == OPEN && ng >= s.seen[ni].g) {
                continue;
            }
            s.open_node(ni, ng, i, ng + q.estimate(nx, ny));
        }
        // The limit counts nodes whose neighbours have been added (as the source's tables).
        if q.max_expanded.is_some_and(|limit| expanded >= limit) {
            return (Outcome::Limited(best.0), expanded);
        }
    }
    match q.max_expanded {
        Some(_) => (Outcome::Limited(best.0), expanded),
        None => (Outcome::NoPath, expanded),
    }
}
