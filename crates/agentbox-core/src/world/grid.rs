//! The tile grid: a rectangle of terrain ids, row-major, row 0 at the top; and the rule that
//! keeps coordinates handed to primitives and queries near it ([`Grid::bound_pos`]).

use super::terrain::TerrainId;
use glam::{DVec2, IVec2};

/// How far outside the map, in tiles, a bounded point or tile may lie: one ring of tiles, so a
/// point off the map stays off it (blocked, no terrain, no path) while every line, trace or
/// route towards it stays within the map's size.
pub const BOUND_MARGIN: i32 = 1;

/// Why map rows do not make a grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowError {
    /// A row's length differs from the first row's.
    Ragged {
        row: usize,
        len: usize,
        expected: usize,
    },
    /// A character that stands for no terrain.
    Unknown {
        row: usize,
        column: usize,
        glyph: char,
    },
}

/// A rectangular map of terrain ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    width: i32,
    height: i32,
    cells: Vec<TerrainId>,
}

impl Grid {
    /// A grid filled with one terrain.
    pub fn filled(width: i32, height: i32, fill: TerrainId) -> Self {
        let width = width.max(0);
        let height = height.max(0);
        Grid {
            width,
            height,
            cells: vec![fill; (width * height) as usize],
        }
    }

    /// Builds a grid from text rows, mapping each character with `glyph`. Rows must all have
    /// the length of the first; the first problem found is returned.
    pub fn from_rows<S: AsRef<str>>(
        rows: &[S],
        glyph: impl Fn(char) -> Option<TerrainId>,
    ) -> Result<Self, RowError> {
        let height = rows.len();
        let width = rows.first().map_or(0, |r| r.as_ref().chars().count());
        let mut cells = Vec::with_capacity(width * height);
        for (y, row) in rows.iter().enumerate() {
            let len = row.as_ref().chars().count();
            if len != width {
                return Err(RowError::Ragged {
                    row: y,
                    len,
                    expected: width,
                });
            }
            for (x, c) in row.as_ref().chars().enumerate() {
                cells.push(glyph(c).ok_or(RowError::Unknown {
                    row: y,
                    column: x,
                    glyph: c,
                })?);
            }
        }
        let (width, height) = (width as i32, height as i32);
        Ok(Grid {
            width,
            height,
            cells,
        })
    }

    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    pub fn in_bounds(&self, tile: IVec2) -> bool {
        tile.x >= 0 && tile.y >= 0 && tile.x < self.width && tile.y < self.height
    }

    /// The flat index of an in-bounds tile.
    pub fn index(&self, tile: IVec2) -> Option<usize> {
        self.in_bounds(tile)
            .then(|| (tile.y * self.width + tile.x) as usize)
    }

    pub fn get(&self, tile: IVec2) -> Option<TerrainId> {
        self.index(tile).map(|i| self.cells[i])
    }

    /// Sets a tile; returns false (and changes nothing) outside the grid.
    pub fn set(&mut self, tile: IVec2, id: TerrainId) -> bool {
        match self.index(tile) {
            Some(i) => {
                self.cells[i] = id;
                true
            }
            None => false,
        }
    }

    /// All cells, row-major.
    pub fn cells(&self) -> &[TerrainId] {
        &self.cells
    }

    /// The rule for a position handed to a movement primitive or a navigation query: `None`
    /// when a coordinate is not finite (NaN, +-inf); otherwise the nearest point of the map's
    /// rectangle grown by [`BOUND_MARGIN`] tiles (tile centres `-1..=width`), so work that
    /// grows with distance (lines, traces, probes) grows at most with the map's size. Points
    /// within it are returned unchanged.
    pub fn bound_pos(&self, p: DVec2) -> Option<DVec2> {
        if !p.is_finite() {
            return None;
        }
        let m = BOUND_MARGIN as f64;
        Some(DVec2::new(
            p.x.clamp(-m, (self.width - 1) as f64 + m),
            p.y.clamp(-m, (self.height - 1) as f64 + m),
        ))
    }

    /// [`Grid::bound_pos`] for a tile: the nearest tile at most [`BOUND_MARGIN`] outside the
    /// map. `bound_tile(tile_of(p)) == tile_of(bound_pos(p))` for every finite `p`.
    pub fn bound_tile(&self, tile: IVec2) -> IVec2 {
        let m = BOUND_MARGIN;
        IVec2::new(
            tile.x.clamp(-m, (self.width - 1).saturating_add(m)),
            tile.y.clamp(-m, (self.height - 1).saturating_add(m)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_refused_when_not_finite_and_bounded_to_one_tile_off_the_map() {
        let g = Grid::filled(10, 4, 0);
        let b = |x: f64, y: f64| g.bound_pos(DVec2::new(x, y));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(b(bad, 1.0), None, "{bad}");
            assert_eq!(b(1.0, bad), None, "{bad}");
        }
        // Inside, and within the margin: unchanged.
        assert_eq!(b(3.25, 2.5), Some(DVec2::new(3.25, 2.5)));
        assert_eq!(b(-1.0, 4.0), Some(DVec2::new(-1.0, 4.0)));
        assert_eq!(b(9.9, -0.6), Some(DVec2::new(9.9, -0.6)));
        // Far away: the nearest point one tile off the map, each axis on its own.
        assert_eq!(b(1e18, 1e18), Some(DVec2::new(10.0, 4.0)));
        assert_eq!(b(-1e18, 2.0), Some(DVec2::new(-1.0, 2.0)));
        assert_eq!(b(4294967295.0, 5.0), Some(DVec2::new(10.0, 4.0)));
        assert_eq!(b(-3.0, -1e300), Some(DVec2::new(-1.0, -1.0)));
        assert_eq!(b(f64::MAX, f64::MIN), Some(DVec2::new(10.0, -1.0)));
    }

    #[test]
    fn tiles_are_bounded_the_same_way_and_agree_with_rounding() {
        let g = Grid::filled(10, 4, 0);
        let t = |x, y| g.bound_tile(IVec2::new(x, y));
        assert_eq!(t(3, 2), IVec2::new(3, 2));
        assert_eq!(t(i32::MAX, i32::MIN), IVec2::new(10, -1));
        assert_eq!(t(-5, 7), IVec2::new(-1, 4));
        for p in [
            DVec2::new(1e18, -1e18),
            DVec2::new(10.4, 4.6),
            DVec2::new(-1.49, -1.51),
            DVec2::new(-0.5, 9.5),
            DVec2::new(5.5, 2.0),
        ] {
            assert_eq!(
                g.bound_tile(crate::world::tile_of(p)),
                crate::world::tile_of(g.bound_pos(p).unwrap()),
                "{p}"
            );
        }
        // An empty grid still has a (margin-only) rectangle.
        let empty = Grid::filled(0, 0, 0);
        assert_eq!(empty.bound_tile(IVec2::new(9, -9)), IVec2::new(0, -1));
        assert_eq!(
            empty.bound_pos(DVec2::new(9.0, -9.0)),
            Some(DVec2::new(0.0, -1.0))
        );
    }

    #[test]
    fn rows_map_to_cells_and_unknown_characters_are_located() {
        let g = Grid::from_rows(&["ab", "ba"], |c| match c {
            'a' => Some(0),
            'b' => Some(1),
            _ => None,
        })
        .unwrap();
        assert_eq!(g.get(IVec2::new(1, 0)), Some(1));
        assert_eq!(g.get(IVec2::new(1, 1)), Some(0));
        assert_eq!(g.get(IVec2::new(2, 0)), None);
        let err = Grid::from_rows(&["ab", "bz"], |c| (c != 'z').then_some(0)).unwrap_err();
        assert_eq!(
            err,
            RowError::Unknown {
                row: 1,
                column: 1,
                glyph: 'z'
            }
        );
        let err = Grid::from_rows(&["ab", "abb"], |_| Some(0)).unwrap_err();
        assert_eq!(
            err,
            RowError::Ragged {
                row: 1,
                len: 3,
                expected: 2
            }
        );
    }
}
