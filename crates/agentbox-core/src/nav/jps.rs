//! Jump point search (Harabor & Grastien 2011, and the no-corner-cutting pruning rules of their
//! 2014 paper) on grids of uniform cost, for every diagonal rule. It returns paths of the same
//! (optimal) cost as A* while putting only "jump points" on the open list: cells where an
//! optimal path may have to turn.
//!
//! Rules, by move model (a straight scan stops at the first jump point or wall, a bit search
//! over the line's precomputed stops, see [`Bits`]):
//! - no corner cutting (the default; a diagonal step needs both side cells free): moving
//!   straight, a cell is a jump point when a cell beside it is free while the cell beside the
//!   previous one is blocked; its successors are straight on, that side cell and the diagonal
//!   towards it. Moving diagonally, a cell is a jump point when a straight scan along either of
//!   the diagonal's axes finds one; its successors are the two straight directions and the
//!   diagonal; there are no forced neighbours.
//! - corner cutting (`IfOneSideFree`, `Always`; the rules of the 2011 paper): moving straight,
//!   a cell is a jump point when a cell beside it is blocked while the next cell on that side
//!   is free and the diagonal step there is allowed; its successors are straight on and those
//!   diagonals. Moving diagonally, a cell is also a jump point when a cell behind it on one
//!   side is blocked and the diagonal step past it is allowed (a forced diagonal successor).
//! - 4-connected (`Never`): horizontal scans stop as with no corner cutting, and a jump point
//!   reached horizontally has straight on and the opened side as successors; vertical moves
//!   play the part of diagonal ones: a cell is a jump point when a horizontal scan from it
//!   finds one, with straight on and both horizontal directions as successors.
//! - the goal is always a jump point.
//!
//! A diagonal (or, 4-connected, vertical) jump point whose successors are only what the
//! scans from it found is recorded and its finds offered at once, without queueing it
//! ("intermediate pruning", Harabor & Grastien 2014). On large maps (`Query::bypass`) a jump
//! point as cheap (by F) as the node being expanded is expanded next at once instead of going
//! through the open list (see `relax`).
//!
//! Before searching, the direct route (diagonal first, then straight) is tried: when it is
//! free it is the answer, at the octile distance (see `direct`).
//!
//! Each rule's search, and within it each direction's diagonal scan (`scan_on`), is compiled
//! on its own, its tests of the rule and the direction folded away. Under the corner-cutting
//! rules a diagonal scan reads one bit a step (`Bits::cut_diagonals`: the step allowed and
//! the cell landed on without a forced diagonal successor) and looks at the cells themselves
//! only where it is clear.
//!
//! Used by [`super::Search`] only when valid (see `Algorithm::Auto`); shares its buffers.

use super::grid::{Bits, NavGrid};
use super::marks::{CLOSED, OPEN};
use super::options::Diagonal;
use super::search::{Outcome, Query, Search, DIRS as ALL};

/// The directions to scan from a jump point (at most eight), kept on the stack: no capacity
/// checks, as a `Vec`'s pushes have.
#[derive(Default)]
struct Dirs {
    list: [(i32, i32); 8],
    len: usize,
}

impl Dirs {
    #[inline(always)]
    fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    fn push(&mut self, d: (i32, i32)) {
        self.list[self.len] = d;
        self.len += 1;
    }

    #[inline(always)]
    fn extend(&mut self, ds: &[(i32, i32)]) {
        self.list[self.len..self.len + ds.len()].copy_from_slice(ds);
        self.len += ds.len();
    }

    #[inline(always)]
    fn as_slice(&self) -> &[(i32, i32)] {
        &self.list[..self.len]
    }
}

/// The rules as numbers, for [`Jumper`]'s parameter: each rule's search is compiled on its
/// own, its tests of the rule folded away.
const NO_CORNER_CUTTING: u8 = 0;
const ONE_SIDE: u8 = 1;
const ALWAYS: u8 = 2;
const NEVER: u8 = 3;

/// The scans and successor rules of one diagonal rule (`RULE`, one of the constants above).
struct Jumper<'a, const RULE: u8> {
    bits: &'a Bits,
    /// The straight scans' stops for this rule (see [`Bits`]), by direction.
    rows: &'a [Vec<u64>; 2],
    cols: &'a [Vec<u64>; 2],
    gx: i32,
    gy: i32,
}

/// The first bit after (`dir` 1) or before (`dir` -1) bit `from` of `line` in `stops` (the
/// stop bits for that direction, see [`Bits`]). The border bits are stops, so one is always
/// found.
#[inline(always)]
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

impl<'a, const RULE: u8> Jumper<'a, RULE> {
    #[inline]
    fn free(&self, x: i32, y: i32) -> bool {
        self.bits.free(x, y)
    }

    /// Scans from `(x, y)` along a row in direction `dx`; the jump point found, if any.
    #[inline]
    fn horizontal(&self, x: i32, y: i32, dx: i32) -> Option<(i32, i32)> {
        let b = self.bits;
        let line = (y + 1) as usize;
        let stops = &self.rows[(dx < 0) as usize];
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
        let stops = &self.cols[(dy < 0) as usize];
        let stop = scan(stops, b.words_per_col, line, (y + 1) as usize, dy) as i32 - 1;
        if x == self.gx && (self.gy - y) * dy > 0 && (stop - self.gy) * dy >= 0 {
            return Some((x, self.gy));
        }
        self.free(x, stop).then_some((x, stop))
    }

    /// The rule searched under.
    #[inline(always)]
    fn rule(&self) -> Diagonal {
        match RULE {
            NO_CORNER_CUTTING => Diagonal::NoCornerCutting,
            ONE_SIDE => Diagonal::IfOneSideFree,
            ALWAYS => Diagonal::Always,
            _ => Diagonal::Never,
        }
    }

    /// The scans' stops for the rule, for the goal `(gx, gy)`.
    fn new(bits: &'a Bits, gx: i32, gy: i32) -> Self {
        let j = Jumper {
            bits,
            rows: &bits.stops_rows,
            cols: &bits.stops_cols,
            gx,
            gy,
        };
        let (rows, cols) = match j.rule() {
            Diagonal::NoCornerCutting | Diagonal::Never => (&bits.stops_rows, &bits.stops_cols),
            Diagonal::IfOneSideFree => (&bits.cut_rows[0], &bits.cut_cols[0]),
            Diagonal::Always => (&bits.cut_rows[1], &bits.cut_cols[1]),
        };
        Jumper { rows, cols, ..j }
    }

    /// Whether the rule allows the diagonal step from `(x, y)` by `(dx, dy)`.
    #[inline(always)]
    fn diagonal_ok(&self, x: i32, y: i32, dx: i32, dy: i32) -> bool {
        // Every cell read, combined without branches: the bits are in the first-level cache,
        // and which way such a test goes on a cluttered map is a toss-up.
        let to = self.free(x + dx, y + dy);
        match self.rule() {
            Diagonal::NoCornerCutting => to & self.free(x + dx, y) & self.free(x, y + dy),
            Diagonal::IfOneSideFree => to & (self.free(x + dx, y) | self.free(x, y + dy)),
            Diagonal::Always => to,
            Diagonal::Never => false,
        }
    }

    fn jump(&self, x: i32, y: i32, dx: i32, dy: i32) -> Option<(i32, i32)> {
        match (dx, dy) {
            (_, 0) => self.horizontal(x, y, dx),
            _ => self.vertical(x, y, dy),
        }
    }

    /// The directions to scan from a jump point reached moving `(dx, dy)` (`(0, 0)` at the
    /// start).
    fn successors(&self, x: i32, y: i32, dx: i32, dy: i32, out: &mut Dirs) {
        out.clear();
        let cut = matches!(self.rule(), Diagonal::IfOneSideFree | Diagonal::Always);
        match (dx, dy) {
            (0, 0) if self.rule() == Diagonal::Never => out.extend(&ALL[..4]),
            (0, 0) => out.extend(&ALL),
            (0, _) if self.rule() == Diagonal::Never => out.extend(&[(0, dy), (1, 0), (-1, 0)]),
            (_, 0) => {
                out.push((dx, 0));
                for s in [-1, 1] {
                    if cut {
                        if !self.free(x, y + s) && self.diagonal_ok(x, y, dx, s) {
                            out.push((dx, s));
                        }
                    } else if self.free(x, y + s) && !self.free(x - dx, y + s) {
                        out.push((0, s));
                        if self.rule() != Diagonal::Never {
                            out.push((dx, s));
                        }
                    }
                }
            }
            (0, _) => {
                out.push((0, dy));
                for s in [-1, 1] {
                    if cut {
                        if !self.free(x + s, y) && self.diagonal_ok(x, y, s, dy) {
                            out.push((s, dy));
                        }
                    } else if self.free(x + s, y) && !self.free(x + s, y - dy) {
                        out.push((s, 0));
                        out.push((s, dy));
                    }
                }
            }
            _ => {
                out.extend(&[(dx, 0), (0, dy), (dx, dy)]);
                if cut {
                    if !self.free(x - dx, y) && self.diagonal_ok(x, y, -dx, dy) {
                        out.push((-dx, dy));
                    }
                    if !self.free(x, y - dy) && self.diagonal_ok(x, y, dx, -dy) {
                        out.push((dx, -dy));
                    }
                }
            }
        }
    }
}

/// Runs jump point search from `q.start`; how it ended and how many jump points were expanded.
pub(super) fn run(s: &mut Search, grid: &NavGrid, q: &Query) -> (Outcome, usize) {
    match q.rule {
        Diagonal::NoCornerCutting => run_as::<NO_CORNER_CUTTING>(s, grid, q),
        Diagonal::IfOneSideFree => run_as::<ONE_SIDE>(s, grid, q),
        Diagonal::Always => run_as::<ALWAYS>(s, grid, q),
        Diagonal::Never => run_as::<NEVER>(s, grid, q),
    }
}

/// [`run`] under the rule `RULE` (`q.rule`).
fn run_as<const RULE: u8>(s: &mut Search, grid: &NavGrid, q: &Query) -> (Outcome, usize) {
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
    let j = Jumper::<RULE>::new(bits, q.goal_tile.x, q.goal_tile.y);
    if q.direct && q.start != q.goal && direct(s, &j, q, (straight, diagonal)) {
        return (Outcome::Found, 2);
    }
    s.open_start(q);
    let mut expanded = 0usize;
    let mut dirs = Dirs::default();
    // The F of the node being expanded, plus a tolerance that only absorbs rounding (two
    // different path lengths on a map this size differ by far more than 1e-9 of a tile):
    // with `q.bypass`, a successor no dearer is expanded next at once (see `relax`); without,
    // none is.
    let mut f_lim = f64::NEG_INFINITY;
    let lazy = q.landmarks.is_some();
    while let Some(i) = s.next_bypassed().or_else(|| {
        if lazy {
            s.pop_and_close_lazy(q)
        } else {
            s.pop_and_close()
        }
    }) {
        let g = s.seen[i].g;
        expanded += 1;
        if i == q.goal {
            return (Outcome::Found, expanded);
        }
        let (x, y) = (i as i32 % w, i as i32 / w);
        if q.bypass {
            let f_now = g + q.estimate(x, y);
            f_lim = f_now + 1e-9 * f_now.max(1.0);
        }
        let p = s.seen[i].parent as usize;
        let (dx, dy) = if p == i {
            (0, 0)
        } else {
            ((x - p as i32 % w).signum(), (y - p as i32 / w).signum())
        };
        j.successors(x, y, dx, dy, &mut dirs);
        for &(ddx, ddy) in dirs.as_slice() {
            if ddy != 0 && (ddx != 0 || RULE == NEVER) {
                let from = (i, x, y, g);
                let lengths = (straight, diagonal);
                // One copy of the scan per direction, its tests of the direction folded away.
                match (ddx, ddy) {
                    (0, 1) => scan_on::<RULE, 0, 1>(s, &j, q, from, lengths, f_lim),
                    (0, _) => scan_on::<RULE, 0, -1>(s, &j, q, from, lengths, f_lim),
                    (1, 1) => scan_on::<RULE, 1, 1>(s, &j, q, from, lengths, f_lim),
                    (1, _) => scan_on::<RULE, 1, -1>(s, &j, q, from, lengths, f_lim),
                    (_, 1) => scan_on::<RULE, -1, 1>(s, &j, q, from, lengths, f_lim),
                    _ => scan_on::<RULE, -1, -1>(s, &j, q, from, lengths, f_lim),
                }
                continue;
            }
            if let Some((jx, jy)) = j.jump(x, y, ddx, ddy) {
                let k = (jx - x).abs().max((jy - y).abs()) as f64;
                relax(s, q, (jx, jy), g + k * straight, i, f_lim);
            }
        }
    }
    (Outcome::NoPath, expanded)
}

/// The direct route, when it is free: the diagonal towards the goal and then the straight run
/// to it (or the straight run alone). Its cost is the octile distance, which no path beats,
/// so it is optimal; among equally short paths it is the one taken whenever it is free (a
/// rule a designer can predict, as the full search's choice among them is not). It costs a
/// look at the route's cells, where the full search's first expansion alone scans from the
/// start in all eight directions to the first wall or jump point, which on an open map means
/// to its edges. Records the path through the search's own hooks, so a log and the sets show
/// it (the start expanded, the turn passed, the goal opened and expanded: two expansions),
/// and returns `true`; `false`, having recorded nothing, when a cell of the route is blocked
/// or a diagonal step is not allowed under the rule.
///
/// Only with `q.direct` (see `Query::direct`).
fn direct<const RULE: u8>(
    s: &mut Search,
    j: &Jumper<RULE>,
    q: &Query,
    (straight, diagonal): (f64, f64),
) -> bool {
    let w = q.width;
    let (sx, sy) = (q.start as i32 % w, q.start as i32 / w);
    let (gx, gy) = (j.gx, j.gy);
    let (dx, dy) = ((gx - sx).signum(), (gy - sy).signum());
    let (ax, ay) = ((gx - sx).abs(), (gy - sy).abs());
    let diagonals = ax.min(ay);
    let (mut x, mut y) = (sx, sy);
    for _ in 0..diagonals {
        if !j.diagonal_ok(x, y, dx, dy) {
            return false;
        }
        x += dx;
        y += dy;
    }
    let (tx, ty) = if ax > ay { (dx, 0) } else { (0, dy) };
    let turn = (y * w + x) as usize;
    while (x, y) != (gx, gy) {
        x += tx;
        y += ty;
        if !j.free(x, y) {
            return false;
        }
    }
    s.open_start(q);
    s.pop_and_close();
    let turn_g = diagonals as f64 * diagonal;
    // With no diagonal or no straight part the turn is the start or the goal.
    let mut parent = q.start;
    if turn != q.start && turn != q.goal {
        s.record(turn, turn_g, q.start);
        s.log_pass(q, turn, turn_g, q.start);
        parent = turn;
    }
    let g = turn_g + (ax - ay).abs() as f64 * straight;
    s.bypass_node(q.goal, g, parent, g);
    s.next_bypassed();
    true
}

/// Offers `node` at `(x, y)` the cost `g` through `parent`; opens it when that is cheaper.
///
/// With `q.bypass`, a node whose F is no more than `f_lim` (the F of the node being expanded,
/// the least on the open list, plus a rounding tolerance; minus infinity without
/// `q.bypass`) is closed at once and expanded next instead ("immediate
/// expansion"): any node of least F may be expanded next, and with a consistent heuristic its
/// G is then already the least, so paths stay optimal; only the choice among equally short
/// paths changes. On cluttered maps, where the octile distance is nearly exact, most jump
/// points on the way are such successors, and each skips a push and a pop of the open list.
#[inline]
fn relax(s: &mut Search, q: &Query, (x, y): (i32, i32), g: f64, parent: usize, f_lim: f64) {
    let node = (y * q.width + x) as usize;
    // The mark first (`marks.rs`): the record is read only for a cell already open.
    let mark = s.marks.get(node);
    if mark == CLOSED || (mark == OPEN && g >= s.seen[node].g) {
        return;
    }
    let within = |f: f64| f <= f_lim;
    if q.landmarks.is_some() {
        // The landmark bounds are looked up only for a node that may be expanded at once;
        // others go on the open list under the octile estimate and get them when they reach
        // its top (`Search::pop_and_close_lazy`).
        let f = g + q.octile_estimate(x, y);
        if within(f) {
            let full = g + q.estimate(x, y);
            if within(full) {
                s.bypass_node(node, g, parent, full);
            } else {
                s.open_node(node, g, parent, full);
            }
        } else {
            s.open_node(node, g, parent, f);
        }
        return;
    }
    let f = g + q.estimate(x, y);
    if within(f) {
        s.bypass_node(node, g, parent, f);
    } else {
        s.open_node(node, g, parent, f);
    }
}

/// The diagonal successor of jump point `from` (cost `g`), scanned to its end; with
/// 4-connected moves, its vertical successor (`dx` 0), which plays the diagonal's part. Such
/// a jump point's successors are exactly what the straight scans from it found plus the line
/// on, so instead of queueing it, this records it (cost and parent, for the path) and offers
/// the scans' jump points at once, then scans on ("intermediate pruning", Harabor & Grastien
/// 2014). It stops where the cell is already known at no more cost: that path continues it.
/// A diagonal jump point with a forced diagonal successor (corner-cutting rules) is queued
/// as usual and ends the scan: its expansion continues it.
fn scan_on<const RULE: u8, const DX: i32, const DY: i32>(
    s: &mut Search,
    j: &Jumper<RULE>,
    q: &Query,
    (from, x, y, g): (usize, i32, i32, f64),
    (straight, diagonal): (f64, f64),
    f_lim: f64,
) {
    let (dx, dy) = (DX, DY);
    let w = q.width;
    let four = dx == 0;
    let cut = RULE == ONE_SIDE || RULE == ALWAYS;
    let length = if four { straight } else { diagonal };
    // The corner-cutting rule's plain diagonal steps in this direction (see `Bits`).
    let plain = match RULE {
        ONE_SIDE => &j.bits.cut_diagonals[0][Bits::diagonal_index(dx, dy)][..],
        ALWAYS => &j.bits.cut_diagonals[1][Bits::diagonal_index(dx, dy)][..],
        _ => &[],
    };
    let (mut x, mut y) = (x, y);
    let (mut parent, mut parent_g, mut k) = (from, g, 0u32);
    loop {
        // Whether the step is allowed, and whether the cell it lands on has a forced diagonal
        // successor (corner-cutting rules): one bit for most steps.
        let (ok, forced) = if four {
            (j.free(x, y + dy), false)
        } else if cut {
            if j.bits.test(plain, x, y) {
                (true, false)
            } else {
                let ok = j.diagonal_ok(x, y, dx, dy);
                (ok, ok)
            }
        } else {
            (j.diagonal_ok(x, y, dx, dy), false)
        };
        if !ok {
            return;
        }
        x += dx;
        y += dy;
        k += 1;
        let cg = parent_g + k as f64 * length;
        if (x == j.gx && y == j.gy) || forced {
            relax(s, q, (x, y), cg, parent, f_lim);
            return;
        }
        let (h, v) = if four {
            (j.horizontal(x, y, 1), j.horizontal(x, y, -1))
        } else {
            (j.horizontal(x, y, dx), j.vertical(x, y, dy))
        };
        if h.is_none() && v.is_none() {
            continue;
        }
        let c = (y * w + x) as usize;
        let mark = s.marks.get(c);
        if mark == CLOSED || (mark == OPEN && s.seen[c].g <= cg) {
            return;
        }
        s.record(c, cg, parent);
        s.log_pass(q, c, cg, parent);
        // One at a time, not as an iterated pair: the pair is built on the stack in halves and
        // read back whole, which stalls the load on the stores (a tenth of the search's time).
        if let Some((jx, jy)) = h {
            let run = ((jx - x).abs() + (jy - y).abs()) as f64;
            relax(s, q, (jx, jy), cg + run * straight, c, f_lim);
        }
        if let Some((jx, jy)) = v {
            let run = ((jx - x).abs() + (jy - y).abs()) as f64;
            relax(s, q, (jx, jy), cg + run * straight, c, f_lim);
        }
        (parent, parent_g, k) = (c, cg, 0);
    }
}
