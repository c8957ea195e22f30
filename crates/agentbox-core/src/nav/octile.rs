//! The octile route: on a large map of uniform cost, before jump point search, whether some
//! path as short as the octile distance joins a query's ends, and if so that path, found in a
//! few word operations per row instead of a search.
//!
//! A path of exactly the octile length takes only two kinds of step: the diagonal towards the
//! goal and the straight step along the axis the goal is farther along (any other step costs
//! more than it gains), `D` diagonal and `S` straight steps in some order. The cells such a
//! path can visit are those `i` diagonal and `j` straight steps from the start (`0 <= i <= D`,
//! `0 <= j <= S`): for each `i` a run of cells along one row or column, read from the grid's
//! free-cell bits ([`Bits`]) as a bit set over `j`. Which of them the start reaches is one
//! pass, row by row: a diagonal step keeps `j` (allowed where the diagonal rule allows it,
//! its side cells being `j + 1` of the row before and `j - 1` of the row after), and straight
//! steps fill each run of free cells upwards from the cells reached, by one addition per word
//! (the carry runs along the free bits). The goal is reached when bit `S` of row `D` is set;
//! the path is read back from the goal, straight while the cell before is reached, else
//! diagonal: so it takes its straight steps as late as it can, and when the direct route
//! (diagonal first, then straight) is free, it is that route.
//!
//! On maps of scattered blocks a quarter to a third of long queries have such a path, while
//! the direct route is blocked: jump point search then expands a hundred jump points or more
//! to find one (`docs/benchmarks.md`, issue 35, branch `outliers`). Where none exists, the pass
//! usually ends early, when a row has no reached cell; at worst it costs `D` times `S / 64`
//! word operations.
//!
//! Used by [`super::Search`] on the maps that get landmarks only (the small maps' routes,
//! which the shipped scenes' traces record, stay jump point search's).

use super::grid::Bits;
use super::options::Diagonal;
use super::search::{Query, Search};

/// The 64 bits of `line` (in `bits`, `wpl` words a line) from padded position `p` up: bit `b`
/// holds position `p + b`; positions outside the line read 0.
#[inline]
fn window(bits: &[u64], wpl: usize, line: usize, p: isize) -> u64 {
    let word = |k: isize| -> u64 {
        if k < 0 || k as usize >= wpl {
            0
        } else {
            bits[line * wpl + k as usize]
        }
    };
    let (k, o) = (p.div_euclid(64), p.rem_euclid(64) as u32);
    if o == 0 {
        word(k)
    } else {
        word(k) >> o | word(k + 1) << (64 - o)
    }
}

/// Looks for a path of the octile length from `q.start` to `q.goal` under `q.rule` (not
/// `Never`), with `lengths` (straight, diagonal) the steps' costs; when there is one, records
/// it through the search's hooks (the start expanded, each turn passed, the goal opened and
/// expanded, as `jps.rs`'s direct route does) and returns `true`. `false`, having recorded
/// nothing, when there is none.
pub(super) fn route(
    s: &mut Search,
    bits: &Bits,
    q: &Query,
    (straight, diagonal): (f64, f64),
) -> bool {
    let w = q.width;
    let (sx, sy) = (q.start as i32 % w, q.start as i32 / w);
    let (gx, gy) = (q.goal_tile.x, q.goal_tile.y);
    let (ax, ay) = ((gx - sx).abs(), (gy - sy).abs());
    // The major axis is the one the straight steps take (x on a tie: then there are none).
    let along_x = ax >= ay;
    let (d, st) = if along_x {
        (ay, ax - ay)
    } else {
        (ax, ay - ax)
    };
    let (sa, sb) = if along_x {
        ((gx - sx).signum(), (gy - sy).signum())
    } else {
        ((gy - sy).signum(), (gx - sx).signum())
    };
    let (a0, b0) = if along_x { (sx, sy) } else { (sy, sx) };
    let (lines, wpl) = if along_x {
        (&bits.rows, bits.words_per_row)
    } else {
        (&bits.cols, bits.words_per_col)
    };
    // Bit t of a row's words stands for j = t - 1: j from -1 (a side cell) to S + 1.
    let width_bits = st as usize + 3;
    let nw = width_bits.div_ceil(64);
    let top_mask = if width_bits.is_multiple_of(64) {
        !0
    } else {
        (1u64 << (width_bits % 64)) - 1
    };
    // Row i's free cells, as bits over t.
    let row = |i: i32, out: &mut [u64]| {
        let line = (b0 + sb * i + 1) as usize;
        // Padded position of j = -1 (t = 0).
        let p0 = (a0 + sa * (i - 1) + 1) as isize;
        for (k, o) in out.iter_mut().enumerate() {
            let k64 = 64 * k as isize;
            *o = if sa > 0 {
                window(lines, wpl, line, p0 + k64)
            } else {
                window(lines, wpl, line, p0 - k64 - 63).reverse_bits()
            };
        }
        out[nw - 1] &= top_mask;
    };
    let mut buf = std::mem::take(&mut s.octile);
    buf.clear();
    // Per row: its reached set (nw words); then two rows of free bits, the last and this.
    buf.resize((d as usize + 1) * nw + 2 * nw, 0);
    let (reached, free) = buf.split_at_mut((d as usize + 1) * nw);
    let (prev, cur) = free.split_at_mut(nw);
    let found = 'pass: {
        row(0, prev);
        // The start: j = 0, t = 1 (free: the caller checked).
        fill(&mut reached[..nw], prev, |k| if k == 0 { 2 } else { 0 });
        for i in 1..=d {
            row(i, cur);
            let (before, here) = reached.split_at_mut(i as usize * nw);
            let last = &before[(i as usize - 1) * nw..];
            let this = &mut here[..nw];
            let (p, c) = (&*prev, &*cur);
            let seed = |k: usize| -> u64 {
                // Side cells: j + 1 of the row before, j - 1 of this row.
                let next_before = p[k] >> 1 | if k + 1 < nw { p[k + 1] << 63 } else { 0 };
                let back_here = c[k] << 1 | if k > 0 { c[k - 1] >> 63 } else { 0 };
                let side = match q.rule {
                    Diagonal::NoCornerCutting => next_before & back_here,
                    Diagonal::IfOneSideFree => next_before | back_here,
                    _ => !0,
                };
                last[k] & c[k] & side
            };
            if !fill(this, c, seed) {
                break 'pass false;
            }
            prev.copy_from_slice(cur);
        }
        let t = st as usize + 1;
        reached[d as usize * nw + t / 64] >> (t % 64) & 1 == 1
    };
    if found {
        record(
            s,
            q,
            &buf[..(d as usize + 1) * nw],
            nw,
            (d, st),
            (straight, diagonal),
            |i, j| {
                let (a, b) = (a0 + sa * (i + j), b0 + sb * i);
                let (x, y) = if along_x { (a, b) } else { (b, a) };
                (y * w + x) as usize
            },
        );
    }
    s.octile = buf;
    found
}

/// Fills `out` (one row's reached cells) from the seeds `seed(k)` of each word `k`: each
/// seed, and the free cells (`free`) after it up to the next blocked one. Whether any cell is
/// reached.
#[inline]
fn fill(out: &mut [u64], free: &[u64], seed: impl Fn(usize) -> u64) -> bool {
    let mut carry = 0u64;
    let mut any = 0u64;
    for (k, o) in out.iter_mut().enumerate() {
        let f = free[k];
        let s = (seed(k) | carry) & f;
        // Adding the seeds to the free bits carries through each run above a seed: the bits
        // that change, within the free ones, are the run from the seed up.
        let (sum, over) = f.overflowing_add(s);
        let r = ((sum ^ f) & f) | s;
        carry = over as u64;
        any |= r;
        *o = r;
    }
    any != 0
}

/// Records the path read back from the goal (see the module's docs) through the search's
/// hooks: the start opened and expanded, each turn passed, the goal opened and expanded (the
/// log `jps.rs`'s direct route writes).
fn record(
    s: &mut Search,
    q: &Query,
    reached: &[u64],
    nw: usize,
    (d, st): (i32, i32),
    (straight, diagonal): (f64, f64),
    cell: impl Fn(i32, i32) -> usize,
) {
    let bit = |i: i32, j: i32| -> bool {
        let t = (j + 1) as usize;
        reached[i as usize * nw + t / 64] >> (t % 64) & 1 == 1
    };
    // Turns from the goal back: (i, j) where the step kind changes.
    let mut turns: Vec<(i32, i32)> = Vec::new();
    let (mut i, mut j) = (d, st);
    let mut last: Option<bool> = None;
    while (i, j) != (0, 0) {
        let straight_step = j > 0 && bit(i, j - 1);
        if last.is_some_and(|l| l != straight_step) {
            turns.push((i, j));
        }
        last = Some(straight_step);
        if straight_step {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    // The start opened and expanded at once (as `pop_and_close` would, without the open list:
    // another caller of that would change how it is inlined into A*'s loop).
    let start = q.tile(q.start);
    s.bypass_node(q.start, 0.0, q.start, q.estimate(start.x, start.y));
    s.next_bypassed();
    let mut parent = q.start;
    for &(i, j) in turns.iter().rev() {
        let node = cell(i, j);
        let g = i as f64 * diagonal + j as f64 * straight;
        s.record(node, g, parent);
        s.log_pass(q, node, g, parent);
        parent = node;
    }
    let g = d as f64 * diagonal + st as f64 * straight;
    s.bypass_node(q.goal, g, parent, g);
    s.next_bypassed();
}
