//! Jump point search (Harabor & Grastien 2011; the no-corner-cutting pruning rules of their 2014
//! paper) on 8-connected grids of uniform cost where a diagonal step needs both side cells free.
//! It returns paths of the same (optimal) cost as A* while putting only "jump points" on the
//! open list: cells where an optimal path may have to turn.
//!
//! Rules for this move model:
//! - moving straight, a cell is a jump point when a cell beside it is free while the cell
//!   beside the previous one is blocked (the side cell can only be reached optimally through
//!   here); its successors are straight on, that side cell and the diagonal towards it;
//! - moving diagonally, a cell is a jump point when a straight scan along either of the
//!   diagonal's axes finds one; its successors are the two straight directions and the
//!   diagonal; there are no forced neighbours;
//! - the goal is always a jump point.
//!
//! On large maps (`Query::bypass`) a jump point as cheap (by F) as the node being expanded is
//! expanded next at once instead of going through the open list (see `relax`).
//!
//! Used by [`super::Search`] only when valid (see `Algorithm::Auto`); shares its buffers.

use super::grid::{Bits, NavGrid};
use super::search::{Outcome, Query, Search, Seen, DIRS as ALL};

struct Jumper<'a> {
    bits: &'a Bits,
    gx: i32,
    gy: i32,
}

/// The first bit after (`dir` 1) or before (`dir` -1) bit `from` of `line` in `stops` (the
/// stop bits for that direction, see [`Bits`]). The border bits are stops, so one is always
/// found.
#[inline]
fn scan(stops: &[u64], wpl: usize, line: usize, from: usize, dir: i32) -> usize {
    let base = line * wpl;
    if dir > 0 {
        let first = from + 1;
        let mut k = first / 64;
        let mut stop = stops[base + k] & (!0u64 << (first % 64));
        while stop == 0 {
            k += 1;
            stop = stops[base + k];
        }
        k * 64 + stop.trailing_zeros() as usize
    } else {
        let first = from - 1;
        let mut k = first / 64;
        let mut stop = stops[base + k] & (!0u64 >> (63 - first % 64));
        while stop == 0 {
            k -= 1;
            stop = stops[base + k];
        }
        k * 64 + 63 - stop.leading_zeros() as usize
    }
}

impl Jumper<'_> {
    #[inline]
    fn free(&self, x: i32, y: i32) -> bool {
        self.bits.free(x, y)
    }

    /// Scans from `(x, y)` along a row in direction `dx`; the jump point found, if any.
    #[inline]
    fn horizontal(&self, x: i32, y: i32, dx: i32) -> Option<(i32, i32)> {
        let b = self.bits;
        let line = (y + 1) as usize;
        let stops = &b.stops_rows[(dx < 0) as usize];
        let stop = scan(stops, b.words_per_row, line, (x + 1) as usize, dx) as i32 - 1;
        if y == self.gy && (self.gx - x) * dx > 0 && (stop - self.gx) * dx >= 0 {
            return Some((self.gx, y));
        }
        self.free(stop, y).then_some((stop, y))
    }

    /// Scans along a column in direction `dy`.
    #[inline]
    fn vertical(&self, x: i32, y: i32, dy: i32) -> Option<(i32, i32)> {
        let b = self.bits;
        let line = (x + 1) as usize;
        let stops = &b.stops_cols[(dy < 0) as usize];
        let stop = scan(stops, b.words_per_col, line, (y + 1) as usize, dy) as i32 - 1;
        if x == self.gx && (self.gy - y) * dy > 0 && (stop - self.gy) * dy >= 0 {
            return Some((x, self.gy));
        }
        self.free(x, stop).then_some((x, stop))
    }

    /// Scans diagonally; each diagonal step needs both side cells free.
    fn diagonal(&self, mut x: i32, mut y: i32, dx: i32, dy: i32) -> Option<(i32, i32)> {
        loop {
            if !(self.free(x + dx, y) && self.free(x, y + dy) && self.free(x + dx, y + dy)) {
                return None;
            }
            x += dx;
            y += dy;
            if x == self.gx && y == self.gy {
                return Some((x, y));
            }
            if self.horizontal(x, y, dx).is_some() || self.vertical(x, y, dy).is_some() {
                return Some((x, y));
            }
        }
    }

    fn jump(&self, x: i32, y: i32, dx: i32, dy: i32) -> Option<(i32, i32)> {
        match (dx, dy) {
            (_, 0) => self.horizontal(x, y, dx),
            (0, _) => self.vertical(x, y, dy),
            _ => self.diagonal(x, y, dx, dy),
        }
    }

    /// The directions to scan from a jump point reached moving `(dx, dy)` (`(0, 0)` at the
    /// start).
    fn successors(&self, x: i32, y: i32, dx: i32, dy: i32, out: &mut Vec<(i32, i32)>) {
        out.clear();
        match (dx, dy) {
            (0, 0) => out.extend_from_slice(&ALL),
            (_, 0) => {
                out.push((dx, 0));
                for s in [-1, 1] {
                    if self.free(x, y + s) && !self.free(x - dx, y + s) {
                        out.push((0, s));
                        out.push((dx, s));
                    }
                }
            }
            (0, _) => {
                out.push((0, dy));
                for s in [-1, 1] {
                    if self.free(x + s, y) && !self.free(x + s, y - dy) {
                        out.push((s, 0));
                        out.push((s, dy));
                    }
                }
            }
            _ => out.extend_from_slice(&[(dx, 0), (0, dy), (dx, dy)]),
        }
    }
}

/// Runs jump point search from `q.start`; how it ended and how many jump points were expanded.
pub(super) fn run(s: &mut Search, grid: &NavGrid, q: &Query) -> (Outcome, usize) {
    let w = grid.width();
    let unit = if q.ignore_terrain {
        1.0
    } else {
        grid.min_cost() as f64
    };
    let (straight, diagonal) = (q.straight * unit, q.diagonal * unit);
    let Some(bits) = grid.bits() else {
        return super::astar::run(s, grid, q);
    };
    let j = Jumper {
        bits,
        gx: q.goal_tile.x,
        gy: q.goal_tile.y,
    };
    s.open_start(q);
    let mut expanded = 0usize;
    let mut dirs = Vec::with_capacity(8);
    // The F of the node being expanded: with `q.bypass`, a successor no dearer is expanded
    // next at once (see `relax`).
    let mut f_now = f64::INFINITY;
    while let Some(i) = s.next_bypassed().or_else(|| s.pop_and_close()) {
        let g = s.seen[i].g;
        expanded += 1;
        if i == q.goal {
            return (Outcome::Found, expanded);
        }
        let (x, y) = (i as i32 % w, i as i32 / w);
        if q.bypass {
            f_now = g + q.estimate(x, y);
        }
        let p = s.seen[i].parent as usize;
        let (dx, dy) = if p == i {
            (0, 0)
        } else {
            ((x - p as i32 % w).signum(), (y - p as i32 / w).signum())
        };
        j.successors(x, y, dx, dy, &mut dirs);
        for &(ddx, ddy) in &dirs {
            if ddx != 0 && ddy != 0 {
                scan_diagonal(s, &j, q, (i, g), (ddx, ddy), (straight, diagonal), f_now);
                continue;
            }
            if let Some((jx, jy)) = j.jump(x, y, ddx, ddy) {
                let k = (jx - x).abs().max((jy - y).abs()) as f64;
                relax(s, q, (jx, jy), g + k * straight, i, f_now);
            }
        }
    }
    (Outcome::NoPath, expanded)
}

/// Offers `node` at `(x, y)` the cost `g` through `parent`; opens it when that is cheaper.
///
/// With `q.bypass`, a node whose F is no more than `f_now` (the F of the node being expanded,
/// the least on the open list) is closed at once and expanded next instead ("immediate
/// expansion"): any node of least F may be expanded next, and with a consistent heuristic its
/// G is then already the least, so paths stay optimal; only the choice among equally short
/// paths changes. On cluttered maps, where the octile distance is nearly exact, most jump
/// points on the way are such successors, and each skips a push and a pop of the open list.
#[inline]
fn relax(s: &mut Search, q: &Query, (x, y): (i32, i32), g: f64, parent: usize, f_now: f64) {
    let node = (y * q.width + x) as usize;
    let state = s.state[node];
    if state == s.generation + 1 || (state == s.generation && g >= s.seen[node].g) {
        return;
    }
    let f = g + q.estimate(x, y);
    // The tolerance only absorbs rounding: two different path lengths on a map this size
    // differ by far more than 1e-9 of a tile.
    if q.bypass && f <= f_now + 1e-9 * f_now.max(1.0) {
        s.bypass_node(node, g, parent, f);
    } else {
        s.open_node(node, g, parent, f);
    }
}

/// The diagonal successor of jump point `from` (cost `g`), scanned to its end. A diagonal jump
/// point's successors are exactly what the straight scans from it found plus the diagonal on,
/// so instead of queueing it, this records it (cost and parent, for the path) and offers its
/// straight jump points at once, then scans on ("intermediate pruning", Harabor & Grastien
/// 2014). It stops where the cell is already known at no more cost: that path continues it.
fn scan_diagonal(
    s: &mut Search,
    j: &Jumper,
    q: &Query,
    (from, g): (usize, f64),
    (dx, dy): (i32, i32),
    (straight, diagonal): (f64, f64),
    f_now: f64,
) {
    let gen = s.generation;
    let w = q.width;
    let (mut x, mut y) = (from as i32 % w, from as i32 / w);
    let (mut parent, mut parent_g, mut k) = (from, g, 0u32);
    loop {
        if !(j.free(x + dx, y) && j.free(x, y + dy) && j.free(x + dx, y + dy)) {
            return;
        }
        x += dx;
        y += dy;
        k += 1;
        let cg = parent_g + k as f64 * diagonal;
        if x == j.gx && y == j.gy {
            relax(s, q, (x, y), cg, parent, f_now);
            return;
        }
        let h = j.horizontal(x, y, dx);
        let v = j.vertical(x, y, dy);
        if h.is_none() && v.is_none() {
            continue;
        }
        let c = (y * w + x) as usize;
        let state = s.state[c];
        if state == gen + 1 || (state == gen && s.seen[c].g <= cg) {
            return;
        }
        s.seen[c] = Seen {
            g: cg,
            parent: parent as u32,
        };
        s.state[c] = gen;
        s.log_pass(q, c, cg, parent);
        // One at a time, not as an iterated pair: the pair is built on the stack in halves and
        // read back whole, which stalls the load on the stores (a tenth of the search's time).
        if let Some((jx, jy)) = h {
            relax(
                s,
                q,
                (jx, jy),
                cg + (jx - x).abs() as f64 * straight,
                c,
                f_now,
            );
        }
        if let Some((jx, jy)) = v {
            relax(
                s,
                q,
                (jx, jy),
                cg + (jy - y).abs() as f64 * straight,
                c,
                f_now,
            );
        }
        (parent, parent_g, k) = (c, cg, 0);
    }
}
