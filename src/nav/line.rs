//! Bresenham's line algorithm (Bresenham 1965; as used for the tile line-of-sight chase
//! of Bourg & Seemann, *AI for Game Developers*, ch. 2): the cells of a
//! straight line between two tiles. The long axis steps every time; the short axis steps when
//! the error term says so, so the line never holds two cells side by side on the short axis.

use glam::IVec2;

/// The cells from `a` to `b`, both included, in order.
pub fn bresenham(a: IVec2, b: IVec2) -> Vec<IVec2> {
    let dx = (b.x - a.x).abs();
    let dy = -(b.y - a.y).abs();
    let sx = if a.x < b.x { 1 } else { -1 };
    let sy = if a.y < b.y { 1 } else { -1 };
    let mut err = dx + dy;
    let mut cell = a;
    let mut cells = Vec::with_capacity((dx.max(-dy) + 1) as usize);
    loop {
        cells.push(cell);
        if cell == b {
            return cells;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            cell.x += sx;
        }
        if e2 <= dx {
            err += dx;
            cell.y += sy;
        }
    }
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
    fn shallow_line_matches_the_textbook() {
        // (0,0) to (6,2): the classic Bresenham staircase.
        assert_eq!(
            cells((0, 0), (6, 2)),
            vec![(0, 0), (1, 0), (2, 1), (3, 1), (4, 1), (5, 2), (6, 2)]
        );
    }
}
