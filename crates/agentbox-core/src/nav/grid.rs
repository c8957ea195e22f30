//! The map as the searches see it: a rectangle of entry costs (row-major, `f32::INFINITY` where
//! blocked) plus what the searches need to know about it (the cheapest cost, whether every free
//! cell costs the same). Built once per map and reused by every query on it.

use super::landmarks::Landmarks;
use super::options::Diagonal;
use crate::world::{Tile, World};
use std::sync::OnceLock;

/// Free cells as bits: line `y + 1` of `rows` holds bit `x + 1` for each free `(x, y)`; line
/// `x + 1` of `cols` holds bit `y + 1`. Lines and bits outside the map are 0 (blocked).
///
/// The stop tables, laid out like `rows` and `cols`, hold per scan direction (0: towards
/// higher bits, 1: towards lower) the cells where a straight scan of jump point search along
/// that line stops, so a scan is a bit search over one line. `stops_*` serve the rules that
/// never cut a corner (no corner cutting, and 4-connected moves): a blocked cell, or one with a
/// free side cell whose predecessor in the scan direction is blocked. `cut_*` serve the
/// corner-cutting rules, indexed `[rule][direction]` (rule 0: one side free, 1: always): a
/// blocked cell, or one whose side cell is blocked while the next side cell is free (a forced
/// diagonal neighbour; with one side free only when the next cell on the line is free too).
///
/// `cut_diagonals`, laid out like `rows`, hold per corner-cutting rule (as `cut_*`) and
/// diagonal direction (see [`Bits::diagonal_index`]) the cells from which a diagonal scan of
/// jump point search goes on plainly: the step is allowed under the rule and the cell it
/// lands on has no forced diagonal successor. A scan tests one bit a step, and only where it
/// is clear the cells themselves.
#[derive(Clone, Debug)]
pub struct Bits {
    pub rows: Vec<u64>,
    pub words_per_row: usize,
    pub cols: Vec<u64>,
    pub words_per_col: usize,
    pub stops_rows: [Vec<u64>; 2],
    pub stops_cols: [Vec<u64>; 2],
    pub cut_rows: [[Vec<u64>; 2]; 2],
    pub cut_cols: [[Vec<u64>; 2]; 2],
    pub cut_diagonals: [[Vec<u64>; 4]; 2],
}

/// The bits of line word `k` (starting at `l`) moved by one cell: at each bit, the bit of the
/// cell before it in the scan direction (`up`: towards higher bits) when `before`, else the
/// bit of the cell after it.
#[inline]
fn shifted(bits: &[u64], wpl: usize, l: usize, k: usize, up: bool, before: bool) -> u64 {
    let w = bits[l + k];
    if up == before {
        // The lower neighbour's bit.
        w << 1 | if k > 0 { bits[l + k - 1] >> 63 } else { 0 }
    } else {
        // The higher neighbour's bit.
        w >> 1
            | if k + 1 < wpl {
                bits[l + k + 1] << 63
            } else {
                0
            }
    }
}

/// Word `k` of line `line` of `bits` (`wpl` words a line) with its cells moved by `by`: bit `b`
/// holds the cell `b + by` of the line (0 beyond the line's ends and for lines outside).
#[inline]
fn moved(bits: &[u64], wpl: usize, line: isize, k: usize, by: i32) -> u64 {
    if line < 0 || (line as usize + 1) * wpl > bits.len() {
        return 0;
    }
    let l = line as usize * wpl;
    let w = bits[l + k];
    let n = by.unsigned_abs();
    match by.signum() {
        0 => w,
        1 => {
            w >> n
                | if k + 1 < wpl {
                    bits[l + k + 1] << (64 - n)
                } else {
                    0
                }
        }
        _ => {
            w << n
                | if k > 0 {
                    bits[l + k - 1] >> (64 - n)
                } else {
                    0
                }
        }
    }
}

/// The diagonal scans' plain steps (see [`Bits`]) of a corner-cutting rule (`one_side` or
/// always), from the free bits `rows` (`wpl` words a line), by direction.
fn diagonal_steps(rows: &[u64], wpl: usize, one_side: bool) -> [Vec<u64>; 4] {
    let lines = rows.len() / wpl;
    std::array::from_fn(|d| {
        let (dx, dy) = Bits::diagonal_of(d);
        let mut out = vec![0u64; rows.len()];
        for line in 1..lines.saturating_sub(1) {
            let l = line as isize;
            let dyi = dy as isize;
            for k in 0..wpl {
                // `f(a, b)`: whether the cell `(x + a, y + b)` is free, for each bit's `(x, y)`.
                let f = |a: i32, b: isize| moved(rows, wpl, l + b, k, a);
                let (side_x, side_y) = (f(dx, 0), f(0, dyi));
                let step = if one_side {
                    f(dx, dyi) & (side_x | side_y)
                } else {
                    f(dx, dyi)
                };
                // Whether the cell landed on, `(x + dx, y + dy)`, has a forced diagonal
                // successor: a blocked cell behind it on one side and the diagonal step past
                // it allowed. Behind it on the x side, `(x, y + dy)` blocked, the step to
                // `(x, y + 2 dy)`; on the y side, `(x + dx, y)` blocked, the step to
                // `(x + 2 dx, y)`; with one side free, each step's other side cell free too.
                let mut back = !side_y & f(0, 2 * dyi);
                let mut down = !side_x & f(2 * dx, 0);
                if one_side {
                    back &= f(dx, 2 * dyi);
                    down &= f(2 * dx, dyi);
                }
                out[line * wpl + k] = step & !(back | down);
            }
        }
        out
    })
}

/// The stop bits (see [`Bits`]) of every line of `bits` (`wpl` words a line), for a scan
/// towards higher bits (`up`) or lower ones: `cut` `None` for the rules that never cut a
/// corner, `Some(one_side)` for the corner-cutting ones.
fn stops(bits: &[u64], wpl: usize, up: bool, cut: Option<bool>) -> Vec<u64> {
    let lines = bits.len() / wpl;
    let mut out = vec![!0u64; bits.len()];
    for line in 1..lines.saturating_sub(1) {
        let (a, b, cur) = ((line - 1) * wpl, (line + 1) * wpl, line * wpl);
        for k in 0..wpl {
            out[cur + k] = !bits[cur + k]
                | match cut {
                    None => {
                        let forced = |l: usize| bits[l + k] & !shifted(bits, wpl, l, k, up, true);
                        forced(a) | forced(b)
                    }
                    Some(one_side) => {
                        let forced = |l: usize| !bits[l + k] & shifted(bits, wpl, l, k, up, false);
                        let next_free = if one_side {
                            shifted(bits, wpl, cur, k, up, false)
                        } else {
                            !0
                        };
                        (forced(a) | forced(b)) & next_free
                    }
                };
        }
    }
    out
}

impl Bits {
    fn new(width: i32, height: i32, costs: &[f32]) -> Self {
        let (w, h) = (width as usize, height as usize);
        let wpr = (w + 2).div_ceil(64);
        let wpc = (h + 2).div_ceil(64);
        let mut rows = vec![0u64; (h + 2) * wpr];
        let mut cols = vec![0u64; (w + 2) * wpc];
        for y in 0..h {
            for x in 0..w {
                if costs[y * w + x].is_finite() {
                    let (bx, by) = (x + 1, y + 1);
                    rows[by * wpr + bx / 64] |= 1 << (bx % 64);
                    cols[bx * wpc + by / 64] |= 1 << (by % 64);
                }
            }
        }
        let cut = |bits: &[u64], wpl: usize, one_side: bool| {
            [
                stops(bits, wpl, true, Some(one_side)),
                stops(bits, wpl, false, Some(one_side)),
            ]
        };
        Bits {
            stops_rows: [
                stops(&rows, wpr, true, None),
                stops(&rows, wpr, false, None),
            ],
            stops_cols: [
                stops(&cols, wpc, true, None),
                stops(&cols, wpc, false, None),
            ],
            cut_rows: [cut(&rows, wpr, true), cut(&rows, wpr, false)],
            cut_diagonals: [
                diagonal_steps(&rows, wpr, true),
                diagonal_steps(&rows, wpr, false),
            ],
            cut_cols: [cut(&cols, wpc, true), cut(&cols, wpc, false)],
            rows,
            words_per_row: wpr,
            cols,
            words_per_col: wpc,
        }
    }

    /// The memory the bits and their stop tables take, in bytes.
    pub fn bytes(&self) -> usize {
        let tables = [&self.rows, &self.cols]
            .into_iter()
            .chain(&self.stops_rows)
            .chain(&self.stops_cols)
            .chain(self.cut_rows.iter().flatten())
            .chain(self.cut_cols.iter().flatten())
            .chain(self.cut_diagonals.iter().flatten());
        tables.map(|t| t.len() * 8).sum()
    }

    /// The index in `cut_diagonals[rule]` of the diagonal direction `(dx, dy)`.
    #[inline(always)]
    pub fn diagonal_index(dx: i32, dy: i32) -> usize {
        (dx > 0) as usize | ((dy > 0) as usize) << 1
    }

    /// The direction of [`Bits::diagonal_index`] `d`.
    fn diagonal_of(d: usize) -> (i32, i32) {
        (
            if d & 1 == 1 { 1 } else { -1 },
            if d & 2 == 2 { 1 } else { -1 },
        )
    }

    /// Whether bit `(x, y)` of a table laid out like `rows` is set, for `x` in `-1..=width`
    /// and `y` in `-1..=height`.
    #[inline]
    pub fn test(&self, table: &[u64], x: i32, y: i32) -> bool {
        let (bx, by) = ((x + 1) as usize, (y + 1) as usize);
        table[by * self.words_per_row + bx / 64] >> (bx % 64) & 1 != 0
    }

    /// Whether `(x, y)` is free, for `x` in `-1..=width` and `y` in `-1..=height`.
    #[inline]
    pub fn free(&self, x: i32, y: i32) -> bool {
        self.test(&self.rows, x, y)
    }
}

/// A read-only view of a cost grid with its summary.
#[derive(Clone, Debug)]
pub struct NavGrid<'a> {
    width: i32,
    height: i32,
    costs: &'a [f32],
    /// The cheapest free cell (1 on an all-blocked map).
    min_cost: f32,
    /// Whether every free cell costs `min_cost`.
    uniform: bool,
    /// Built only on uniform-cost maps, where jump point search can run.
    bits: Option<Bits>,
    /// Built on request ([`NavGrid::build_landmarks`]) on uniform-cost maps.
    landmarks: Option<Box<Landmarks>>,
    /// The corner-cutting rules' own landmarks (`IfOneSideFree`, `Always`), built at the
    /// first query under the rule on a grid that has the default rule's
    /// ([`NavGrid::landmarks_for`]).
    rule_landmarks: [OnceLock<Option<Box<Landmarks>>>; 2],
}

impl<'a> NavGrid<'a> {
    /// A view of `costs` as a `width` x `height` map; `None` when the sizes disagree or a cost
    /// is not positive.
    pub fn new(width: i32, height: i32, costs: &'a [f32]) -> Option<Self> {
        if width < 0 || height < 0 || costs.len() != width as usize * height as usize {
            return None;
        }
        let mut min_cost = f32::INFINITY;
        let mut max_cost = 0.0f32;
        for &c in costs {
            if c.is_nan() || c <= 0.0 {
                return None;
            }
            if c.is_finite() {
                min_cost = min_cost.min(c);
                max_cost = max_cost.max(c);
            }
        }
        if min_cost.is_infinite() {
            min_cost = 1.0;
            max_cost = 1.0;
        }
        let uniform = min_cost == max_cost;
        Some(NavGrid {
            width,
            height,
            costs,
            min_cost,
            uniform,
            bits: uniform.then(|| Bits::new(width, height, costs)),
            landmarks: None,
            rule_landmarks: Default::default(),
        })
    }

    /// The world's map.
    pub fn from_world(world: &'a World) -> Self {
        let g = world.grid();
        // The world keeps its costs positive (scene validation), so this only fails on a
        // corrupt world; an empty view then finds no paths instead of panicking.
        NavGrid::new(g.width(), g.height(), world.costs()).unwrap_or(NavGrid {
            width: 0,
            height: 0,
            costs: &[],
            min_cost: 1.0,
            uniform: true,
            bits: None,
            landmarks: None,
            rule_landmarks: Default::default(),
        })
    }

    /// Builds the map's landmark distances ([`Landmarks`]), whose bound the default search
    /// (`Algorithm::Auto`, jump point search) then adds to its heuristic; only on
    /// uniform-cost maps whose walls bend enough routes to pay for them (false elsewhere,
    /// decided after the first of five searches: [`super::landmarks::MIN_DETOUR`], or for a
    /// map too large for them). Call once per map content, never per query.
    pub fn build_landmarks(&mut self) -> bool {
        self.build_landmarks_from(super::landmarks::MIN_DETOUR)
    }

    /// [`NavGrid::build_landmarks`] with the least detour share the map needs (0: always).
    pub fn build_landmarks_from(&mut self, min_detour: f64) -> bool {
        self.rule_landmarks = Default::default();
        self.landmarks = self
            .bits
            .as_ref()
            .and_then(|bits| Landmarks::build(self.width, self.height, bits, min_detour))
            .map(Box::new);
        self.landmarks.is_some()
    }

    /// The landmark distances, when built.
    pub fn landmarks(&self) -> Option<&Landmarks> {
        self.landmarks.as_deref()
    }

    /// The landmark distances of the diagonal `rule`, on a grid that has the default rule's
    /// ([`NavGrid::build_landmarks`]; `None` otherwise, and for `Never`). A corner-cutting
    /// rule's are built at the first call for it (seventeen more single-source searches, 16 MiB on a
    /// 512 x 512 map) and kept with the grid: a map whose queries never use the rule never
    /// pays for them.
    pub fn landmarks_for(&self, rule: Diagonal) -> Option<&Landmarks> {
        let slot = match rule {
            Diagonal::NoCornerCutting => return self.landmarks(),
            Diagonal::IfOneSideFree => 0,
            Diagonal::Always => 1,
            Diagonal::Never => return None,
        };
        self.landmarks.as_ref()?;
        self.rule_landmarks[slot]
            .get_or_init(|| {
                let bits = self.bits.as_ref()?;
                Landmarks::build_for(self.width, self.height, bits, 0.0, rule).map(Box::new)
            })
            .as_deref()
    }

    /// The free cells as bits (uniform-cost maps only).
    pub fn bits(&self) -> Option<&Bits> {
        self.bits.as_ref()
    }

    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    pub fn costs(&self) -> &'a [f32] {
        self.costs
    }

    pub fn min_cost(&self) -> f32 {
        self.min_cost
    }

    pub fn is_uniform(&self) -> bool {
        self.uniform
    }

    /// The flat index of an in-bounds tile.
    #[inline]
    pub fn index(&self, t: Tile) -> Option<usize> {
        ((t.x as u32) < self.width as u32 && (t.y as u32) < self.height as u32)
            .then(|| (t.y * self.width + t.x) as usize)
    }

    /// Whether a cell is inside the map and not blocked.
    #[inline]
    pub fn free(&self, x: i32, y: i32) -> bool {
        (x as u32) < self.width as u32
            && (y as u32) < self.height as u32
            && self.costs[(y * self.width + x) as usize].is_finite()
    }

    /// The entry costs of an agent whose square body of `size` tiles has its top-left cell on
    /// each position: the dearest cell under the body, infinite where the body does not fit.
    pub fn footprint_costs(&self, size: u32) -> Vec<f32> {
        let (w, h) = (self.width as usize, self.height as usize);
        let n = (size.max(1) as usize).min(w.max(h).max(1));
        if size as usize > w.min(h) {
            return vec![f32::INFINITY; self.costs.len()];
        }
        // Separable sliding maximum: first along rows, then along columns.
        let mut rows = vec![f32::INFINITY; self.costs.len()];
        for y in 0..h {
            for x in 0..w {
                if x + n <= w {
                    let row = &self.costs[y * w + x..y * w + x + n];
                    rows[y * w + x] = row.iter().copied().fold(0.0, f32::max);
                }
            }
        }
        let mut out = vec![f32::INFINITY; self.costs.len()];
        for y in 0..h {
            if y + n > h {
                continue;
            }
            for x in 0..w {
                out[y * w + x] = (0..n).map(|k| rows[(y + k) * w + x]).fold(0.0, f32::max);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_bad_input() {
        let c = [1.0, 3.0, f32::INFINITY, 1.0];
        let g = NavGrid::new(2, 2, &c).unwrap();
        assert_eq!(g.min_cost(), 1.0);
        assert!(!g.is_uniform());
        assert!(g.free(0, 0) && !g.free(0, 1) && !g.free(2, 0) && !g.free(-1, 0));
        assert!(NavGrid::new(3, 2, &c).is_none());
        assert!(NavGrid::new(2, 2, &[1.0, 0.0, 1.0, 1.0]).is_none());
    }

    #[test]
    fn footprint_takes_the_dearest_cell_and_needs_room() {
        let w = World::from_ascii(&["..:.", "....", "...#"]);
        let g = NavGrid::from_world(&w);
        let f = g.footprint_costs(2);
        let at = |x: usize, y: usize| f[y * 4 + x];
        assert_eq!(at(0, 0), 1.0);
        assert_eq!(at(1, 0), 3.0); // mud under the body
        assert_eq!(at(2, 1), f32::INFINITY); // the wall at (3, 2)
        assert_eq!(at(3, 0), f32::INFINITY); // sticks out of the map
        assert_eq!(at(0, 2), f32::INFINITY);
        assert!(g.footprint_costs(5).iter().all(|c| c.is_infinite()));
    }

    /// Every bit of the corner-cutting rules' diagonal tables against its definition, read
    /// from the cells one by one, on maps whose lines end inside, at and just past a word.
    #[test]
    fn diagonal_step_bits_match_the_cells() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for (w, h) in [(1, 1), (3, 5), (63, 9), (64, 3), (65, 66), (130, 7)] {
            for share in [0.1, 0.3, 0.6] {
                let costs: Vec<f32> = (0..w * h)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        if (seed % 1000) as f64 / 1000.0 < share {
                            f32::INFINITY
                        } else {
                            1.0
                        }
                    })
                    .collect();
                let g = NavGrid::new(w, h, &costs).unwrap();
                let b = g.bits().unwrap();
                let f = |x: i32, y: i32| b.free(x, y);
                for (r, one_side) in [(0, true), (1, false)] {
                    let step = |x: i32, y: i32, dx: i32, dy: i32| {
                        f(x + dx, y + dy) && (!one_side || f(x + dx, y) || f(x, y + dy))
                    };
                    for d in 0..4 {
                        let (dx, dy) = Bits::diagonal_of(d);
                        assert_eq!(Bits::diagonal_index(dx, dy), d);
                        for y in 0..h {
                            for x in 0..w {
                                // The cell landed on is inside the map when the step is
                                // allowed, so its forced successors are read only then.
                                let (nx, ny) = (x + dx, y + dy);
                                let forced = || {
                                    (!f(nx - dx, ny) && step(nx, ny, -dx, dy))
                                        || (!f(nx, ny - dy) && step(nx, ny, dx, -dy))
                                };
                                let want = step(x, y, dx, dy) && !forced();
                                let got = b.test(&b.cut_diagonals[r][d], x, y);
                                assert_eq!(
                                    got, want,
                                    "{w}x{h} rule {r} ({dx}, {dy}) at ({x}, {y})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
