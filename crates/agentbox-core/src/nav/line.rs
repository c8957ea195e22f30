//! Bresenham's line algorithm (Bresenham 1965; as used for the tile line-of-sight chase
//! of Bourg & Seemann, *AI for Game Developers*, ch. 2): the cells of a
//! straight line between two tiles. The long axis steps every time; the short axis steps when
//! the error term says so, so the line never holds two cells side by side on the short axis.

//!
//! [`Line`] yields the cells one at a time, so a caller that stops early (line of sight at the
//! first wall, the next step of a trace) does work in proportion to what it reads, not to how far
//! apart the ends are; [`bresenham`] collects them all, so its caller bounds the ends first
//! (`World::bound_tile`). The error terms are 64-bit: any two `i32` tiles make a line.

use glam::IVec2;

/// The cells of the line from one tile to another, both included, in order.
#[derive(Clone, Debug)]
pub struct Line {
    cell: IVec2,
    end: IVec2,
    dx: i64,
    dy: i64,
    sx: i32,
    sy: i32,
    err: i64,
    done: bool,
}

impl Line {
    pub fn new(a: IVec2, b: IVec2) -> Self {
        let dx = (b.x as i64 - a.x as i64).abs();
        let dy = -(b.y as i64 - a.y as i64).abs();
        Line {
            cell: a,
            end: b,
            dx,
            dy,
            sx: if a.x < b.x { 1 } else { -1 },
            sy: if a.y < b.y { 1 } else { -1 },
            err: dx + dy,
            done: false,
        }
    }

    /// How many cells the line has (the long axis's length plus one).
    pub fn cells(&self) -> u64 {
        self.dx.max(-self.dy) as u64 + 1
    }
}

impl Iterator for Line {
    type Item = IVec2;

    fn next(&mut self) -> Option<IVec2> {
        if self.done {
            return None;
        }
        let cell = self.cell;
        if cell == self.end {
            self.done = true;
            return Some(cell);
        }
        let e2 = 2 * self.err;
        if e2 >= self.dy {
            self.err += self.dy;
            self.cell.x += self.sx;
        }
        if e2 <= self.dx {
            self.err += self.dx;
            self.cell.y += self.sy;
        }
        Some(cell)
    }
}

/// The cells from `a` to `b`, both included, in order: as many as the ends are apart on the
/// long axis, so bound the ends first.
pub fn bresenham(a: IVec2, b: IVec2) -> Vec<IVec2> {
    let line = Line::new(a, b);
    let mut cells = Vec::with_capacity(usize::try_from(line.cells()).unwrap_or(0).min(1 << 16));
    cells.extend(line);
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(a: (i32, i32), b: (i32, i32)) -> Vec<(i32, i32)> {
        bresenham(IVec2::new(a.0, a.1), IVec2::new(b.0, b.1))
            .into_iter()
            .map(|c| (c.x, c.y))
            .collect()
    }

    #[test]
    fn straight_and_diagonal_lines() {
        assert_eq!(cells((0, 0), (3, 0)), vec![(0, 0), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(cells((2, 2), (0, 0)), vec![(2, 2), (1, 1), (0, 0)]);
        assert_eq!(cells((1, 1), (1, 1)), vec![(1, 1)]);
    }

    #[test]
    fn one_cell_per_step_on_the_long_axis() {
        for &(b, len) in &[((7, 3), 8), ((-5, 9), 10), ((4, -4), 5), ((-8, -1), 9)] {
            let line = cells((0, 0), b);
            assert_eq!(line.len(), len, "line to {b:?}");
            for pair in line.windows(2) {
                let (dx, dy) = (pair[1].0 - pair[0].0, pair[1].1 - pair[0].1);
                assert!(dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0));
            }
            assert_eq!(*line.last().unwrap(), b);
        }
    }

    #[test]
    fn the_iterator_is_lazy_and_the_extremes_of_i32_make_a_line() {
        let far = Line::new(IVec2::new(i32::MIN, 0), IVec2::new(i32::MAX, i32::MAX));
        assert_eq!(far.cells(), u32::MAX as u64 + 1);
        let first: Vec<IVec2> = far.take(3).collect();
        assert_eq!(first[0], IVec2::new(i32::MIN, 0));
        assert_eq!(first[1].x, i32::MIN + 1);
        assert_eq!(first.len(), 3);
        let back = Line::new(IVec2::new(i32::MAX, 3), IVec2::new(i32::MAX - 2, 3));
        assert_eq!(back.count(), 3);
    }

    #[test]
    fn shallow_line_matches_the_textbook() {
        // (0,0) to (6,2): the classic Bresenham staircase.
        assert_eq!(
            cells((0, 0), (6, 2)),
            vec![(0, 0), (1, 0), (2, 1), (3, 1), (4, 1), (5, 2), (6, 2)]
        );
    }
}
