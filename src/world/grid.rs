//! The tile grid: a rectangle of terrain ids, row-major, row 0 at the top.

use super::terrain::TerrainId;
use glam::IVec2;

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
}

#[cfg(test)]
mod tests {
    use super::*;

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
