//! Terrain kinds: what a map character means (blocked or not, movement cost, colour).

use std::collections::BTreeMap;

/// Index into a [`TerrainTable`].
pub type TerrainId = u8;

/// One kind of ground.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    pub name: String,
    /// Blocks movement and line of sight.
    pub blocked: bool,
    /// Cost multiplier for entering a tile of this kind (floor is 1).
    pub cost: f64,
    /// Display colour, RGB.
    pub color: [u8; 3],
}

/// The terrain kinds of a scene and the map characters that stand for them.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainTable {
    kinds: Vec<Terrain>,
    glyphs: BTreeMap<char, TerrainId>,
}

/// The built-in kinds: `(glyph, name, blocked, cost, colour)`.
pub const BUILTIN: [(char, &str, bool, f64, [u8; 3]); 5] = [
    ('.', "floor", false, 1.0, [0xd8, 0xd2, 0xc4]),
    ('#', "wall", true, 1.0, [0x3b, 0x3f, 0x4a]),
    ('=', "road", false, 1.0, [0x9a, 0x96, 0x90]),
    ('~', "water", true, 1.0, [0x3f, 0x7f, 0xc8]),
    (':', "mud", false, 3.0, [0x8a, 0x6a, 0x3f]),
];

/// The most terrain kinds a scene may define.
pub const MAX_KINDS: usize = 256;

impl TerrainTable {
    /// The built-in kinds with their glyphs.
    pub fn builtin() -> Self {
        let mut table = TerrainTable {
            kinds: Vec::new(),
            glyphs: BTreeMap::new(),
        };
        for (glyph, name, blocked, cost, color) in BUILTIN {
            let id = table.define(Terrain {
                name: name.into(),
                blocked,
                cost,
                color,
            });
            table.glyphs.insert(glyph, id.expect("builtins fit"));
        }
        table
    }

    /// Adds a kind, or replaces the one with the same name; `None` if the table is full.
    pub fn define(&mut self, terrain: Terrain) -> Option<TerrainId> {
        if let Some(id) = self.by_name(&terrain.name) {
            self.kinds[id as usize] = terrain;
            return Some(id);
        }
        if self.kinds.len() >= MAX_KINDS {
            return None;
        }
        self.kinds.push(terrain);
        Some((self.kinds.len() - 1) as TerrainId)
    }

    /// Makes a map character stand for a kind.
    pub fn bind_glyph(&mut self, glyph: char, id: TerrainId) {
        self.glyphs.insert(glyph, id);
    }

    pub fn get(&self, id: TerrainId) -> &Terrain {
        &self.kinds[id as usize]
    }

    pub fn by_name(&self, name: &str) -> Option<TerrainId> {
        self.kinds
            .iter()
            .position(|t| t.name == name)
            .map(|i| i as TerrainId)
    }

    pub fn by_glyph(&self, glyph: char) -> Option<TerrainId> {
        self.glyphs.get(&glyph).copied()
    }

    /// The character a kind is written with in map rows, if it has one.
    pub fn glyph_of(&self, id: TerrainId) -> Option<char> {
        self.glyphs.iter().find(|(_, &v)| v == id).map(|(&c, _)| c)
    }

    pub fn kinds(&self) -> &[Terrain] {
        &self.kinds
    }
}
