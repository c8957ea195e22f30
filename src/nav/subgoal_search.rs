//! A query on a [`SubgoalGraph`] (Uras, Koenig & Hernández 2013): the start and goal are
//! joined to their direct-h-reachable subgoals (a start that reaches the goal that way is
//! answered at once), A* runs over the subgoals with edge costs and heuristic both the octile
//! distance, and each edge of the result is walked out on the grid (diagonal moves then
//! straight ones, or the other way round, whichever the grid allows: an edge is found with
//! diagonal moves first from one of its ends).
//!
//! The buffers belong to [`Search`] (the same per-cell states, records and open list as the
//! other searches); this file is the loop and the path's assembly.

use super::grid::Bits;
use super::search::{Outcome, Query, Search};
use super::subgoals::SubgoalGraph;
use crate::world::Tile;
use glam::IVec2;

/// The octile distance between two cells in cost units.
#[inline]
fn octile(dx: i32, dy: i32, straight: f64, diagonal: f64) -> f64 {
    let (dx, dy) = (dx.abs(), dy.abs());
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    (hi - lo) as f64 * straight + lo as f64 * diagonal
}

/// Offers `node` at `(x, y)` the cost `g` through `parent`; opens it when that is cheaper.
#[inline]
fn relax(s: &mut Search, q: &Query, (x, y): (i32, i32), g: f64, parent: usize) {
    let node = (y * q.width + x) as usize;
    let state = s.state[node];
    if state == s.generation + 1 || (state == s.generation && g >= s.seen[node].g) {
        return;
    }
    s.open_node(node, g, parent, g + q.estimate(x, y));
}

/// Runs the search from `q.start` over `graph`; how it ended and how many nodes (subgoals, and
/// the start and goal) were expanded. The path is read back with [`path`].
pub(super) fn run(
    s: &mut Search,
    bits: &Bits,
    graph: &SubgoalGraph,
    q: &Query,
    unit: f64,
) -> (Outcome, usize) {
    let w = q.width;
    let (straight, diagonal) = (q.straight * unit, q.diagonal * unit);
    let (sx, sy) = (q.start as i32 % w, q.start as i32 / w);
    let (gx, gy) = (q.goal_tile.x, q.goal_tile.y);
    s.open_start(q);
    let mut from_start = std::mem::take(&mut s.around_start);
    let mut to_goal = std::mem::take(&mut s.around_goal);
    // The start reaches the goal with an octile-length path: nothing can be shorter.
    if q.start == q.goal || graph.direct_h_reachable(bits, sx, sy, Some((gx, gy)), &mut from_start)
    {
        s.around_start = from_start;
        s.around_goal = to_goal;
        if q.start != q.goal {
            let g = octile(gx - sx, gy - sy, straight, diagonal);
            s.open_node(q.goal, g, q.start, g);
        }
        return (Outcome::Found, 1);
    }
    // The goal's direct-h-reachable subgoals lead to it.
    graph.direct_h_reachable(bits, gx, gy, None, &mut to_goal);
    let link = s.generation;
    for &c in &to_goal {
        s.link[c as usize] = link;
    }
    let mut expanded = 0usize;
    let mut outcome = Outcome::NoPath;
    while let Some(i) = s.pop_and_close() {
        expanded += 1;
        if i == q.goal {
            outcome = Outcome::Found;
            break;
        }
        let g = s.seen[i].g;
        let (x, y) = (i as i32 % w, i as i32 / w);
        if i == q.start {
            for &c in &from_start {
                let (cx, cy) = (c as i32 % w, c as i32 / w);
                relax(s, q, (cx, cy), g + octile(cx - x, cy - y, straight, diagonal), i);
            }
        }
        for e in graph.edges(i) {
            let (ex, ey) = (e.x as i32, e.y as i32);
            let c = e.cell as usize;
            let state = s.state[c];
            if state == s.generation + 1 {
                continue;
            }
            let ng = g + octile(ex - x, ey - y, straight, diagonal);
            if state == s.generation && ng >= s.seen[c].g {
                continue;
            }
            s.open_node(c, ng, i, ng + q.estimate(ex, ey));
        }
        if s.link[i] == link {
            relax(s, q, (gx, gy), g + octile(gx - x, gy - y, straight, diagonal), i);
        }
    }
    // Clear the goal's marks so a later query of the same generation number cannot see them.
    for &c in &to_goal {
        s.link[c as usize] = 0;
    }
    s.around_start = from_start;
    s.around_goal = to_goal;
    (outcome, expanded)
}

/// The grid path from the start to `end` along the parents the search left: each edge walked
/// out cell by cell. `None` if an edge cannot be walked either way (a graph that does not fit
/// the grid; never expected).
pub(super) fn path(s: &Search, bits: &Bits, q: &Query, end: usize) -> Option<Vec<Tile>> {
    let mut corners = vec![end];
    let mut at = end;
    while at != q.start {
        at = s.seen[at].parent as usize;
        corners.push(at);
    }
    corners.reverse();
    let mut path = vec![q.tile(q.start)];
    for pair in corners.windows(2) {
        let (a, b) = (q.tile(pair[0]), q.tile(pair[1]));
        if !walk(bits, a, b, true, &mut path) && !walk(bits, a, b, false, &mut path) {
            return None;
        }
    }
    Some(path)
}

/// Appends the cells after `a` up to `b`: diagonal moves first (or last), straight moves for
/// the rest; false (and `path` as it was) when a move is blocked.
fn walk(bits: &Bits, a: Tile, b: Tile, diagonal_first: bool, path: &mut Vec<Tile>) -> bool {
    let d = b - a;
    let (ax, ay) = (d.x.abs(), d.y.abs());
    let diag = IVec2::new(d.x.signum(), d.y.signum());
    let straight = if ax > ay {
        IVec2::new(d.x.signum(), 0)
    } else {
        IVec2::new(0, d.y.signum())
    };
    let (n_diag, n_straight) = (ax.min(ay), (ax - ay).abs());
    let len = path.len();
    let mut at = a;
    let moves = if diagonal_first {
        [(diag, n_diag), (straight, n_straight)]
    } else {
        [(straight, n_straight), (diag, n_diag)]
    };
    for (step, n) in moves {
        for _ in 0..n {
            let ok = if step.x != 0 && step.y != 0 {
                bits.free(at.x + step.x, at.y)
                    && bits.free(at.x, at.y + step.y)
                    && bits.free(at.x + step.x, at.y + step.y)
            } else {
                bits.free(at.x + step.x, at.y + step.y)
            };
            if !ok {
                path.truncate(len);
                return false;
            }
            at += step;
            path.push(at);
        }
    }
    true
}
