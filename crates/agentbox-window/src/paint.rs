//! Painting terrain with the mouse: strokes of tiles, undo by stroke (Ctrl+Z), and the choice
//! of terrain (T cycles through the kinds that have a map character, so a save can write them).

use agentbox_core::world::{TerrainId, Tile, World};
use agentbox_session::history::History;

#[derive(Default)]
pub struct Painter {
    pub active: bool,
    /// The terrain left-drag paints.
    pub brush: Option<TerrainId>,
    stroke: Vec<(Tile, TerrainId)>,
    undo: Vec<Vec<(Tile, TerrainId)>>,
    /// Whether the map was painted since the last save.
    pub dirty: bool,
}

/// Terrain kinds that can be painted (those written with a map character), in id order.
pub fn paintable(world: &World) -> Vec<TerrainId> {
    (0..world.terrain().kinds().len())
        .map(|i| i as TerrainId)
        .filter(|&id| world.terrain().glyph_of(id).is_some())
        .collect()
}

impl Painter {
    /// The brush, defaulting to walls.
    pub fn brush(&mut self, world: &World) -> TerrainId {
        *self
            .brush
            .get_or_insert_with(|| world.terrain().by_name("wall").unwrap_or(0))
    }

    /// Switches to the next paintable terrain.
    pub fn next_brush(&mut self, world: &World) -> TerrainId {
        let kinds = paintable(world);
        let now = self.brush(world);
        let next = kinds
            .iter()
            .position(|&k| k == now)
            .map_or(kinds.first().copied(), |i| {
                kinds.get((i + 1) % kinds.len()).copied()
            })
            .unwrap_or(now);
        self.brush = Some(next);
        next
    }

    /// Paints one tile as part of the current stroke.
    pub fn paint(&mut self, history: &mut History, tile: Tile, id: TerrainId) {
        let Some(old) = history.session().world().grid().get(tile) else {
            return;
        };
        if !history.set_terrain(tile, id) {
            return;
        }
        self.stroke.push((tile, old));
        self.dirty = true;
    }

    /// Closes the current stroke so one Ctrl+Z undoes it whole.
    pub fn end_stroke(&mut self) {
        if !self.stroke.is_empty() {
            self.undo.push(std::mem::take(&mut self.stroke));
        }
    }

    /// Undoes the last stroke; false if there is none.
    pub fn undo(&mut self, history: &mut History) -> bool {
        self.end_stroke();
        let Some(stroke) = self.undo.pop() else {
            return false;
        };
        for (tile, old) in stroke.into_iter().rev() {
            history.set_terrain(tile, old);
        }
        self.dirty = true;
        true
    }
}
