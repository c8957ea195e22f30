//! Writing a painted map back into its scene file: only the lines of `map.rows` change, so
//! comments, key order and everything else stay as the designer wrote them. The write is
//! atomic (a temporary file renamed over the scene), so a watcher never sees half a file.

use super::tree::Tree;
use crate::files::{Disk, FileKind, Files};
use crate::world::World;
use std::path::{Path, PathBuf};

/// Why a save did not happen; its `Display` names the file where there is one.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("terrain `{0}` has no map character: add it to map.legend")]
    NoMapCharacter(String),
    #[error("the scene does not parse ({message} at line {line} column {column})")]
    Unparsable {
        message: String,
        line: usize,
        column: usize,
    },
    #[error("map.rows is not a `|` block in the scene file, so it cannot be rewritten in place")]
    RowsNotABlock,
    #[error("{}: cannot read: {source}", file.display())]
    Read {
        file: PathBuf,
        source: crate::files::ReadError,
    },
    #[error("{}: cannot read: not UTF-8 text", file.display())]
    NotText { file: PathBuf },
    #[error("{}: cannot write: {source}", file.display())]
    Write {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: cannot replace: {source}", file.display())]
    Replace {
        file: PathBuf,
        source: std::io::Error,
    },
    /// A number could not be rewritten (`numbers.rs`).
    #[error("{}: {source}", file.display())]
    Number {
        file: PathBuf,
        source: super::numbers::NumberError,
    },
    /// An agent's entry could not be added or removed (`entries.rs`).
    #[error("{}: {source}", file.display())]
    Entry {
        file: PathBuf,
        source: super::entries::EntryError,
    },
    /// The map could not be rewritten.
    #[error("{}: {source}", file.display())]
    Map {
        file: PathBuf,
        source: Box<SaveError>,
    },
}

/// The map of `world` as scene rows, a character per tile.
pub fn rows_of(world: &World) -> Result<Vec<String>, SaveError> {
    let grid = world.grid();
    (0..grid.height())
        .map(|y| {
            (0..grid.width())
                .map(|x| {
                    let id = grid.get(glam::IVec2::new(x, y)).unwrap_or(0);
                    world.terrain().glyph_of(id).ok_or_else(|| {
                        SaveError::NoMapCharacter(world.terrain().get(id).name.clone())
                    })
                })
                .collect()
        })
        .collect()
}

/// `text` with the lines of its `map.rows` block replaced by `rows`.
pub fn replace_rows(text: &str, rows: &[String]) -> Result<String, SaveError> {
    let tree = Tree::parse(text).map_err(|e| SaveError::Unparsable {
        message: e.message,
        line: e.line,
        column: e.column,
    })?;
    let (first_line, column, _) = tree.rows_block().ok_or(SaveError::RowsNotABlock)?;
    let indent = column - 1;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = first_line - 1;
    let mut end = start;
    while end < lines.len() {
        let line = lines[end].trim_end_matches(['\n', '\r']);
        let leading = line.len() - line.trim_start_matches(' ').len();
        if line.trim().is_empty() || leading < indent {
            break;
        }
        end += 1;
    }
    let newline = if lines.get(start).is_some_and(|l| l.ends_with("\r\n")) {
        "\r\n"
    } else {
        "\n"
    };
    let mut out = String::with_capacity(text.len());
    out.extend(lines[..start].iter().copied());
    for row in rows {
        out.push_str(&" ".repeat(indent));
        out.push_str(row);
        out.push_str(newline);
    }
    out.extend(lines[end..].iter().copied());
    Ok(out)
}

/// The scene file at `path` as text.
fn read_text(path: &Path) -> Result<String, SaveError> {
    let bytes = Disk
        .read(path, FileKind::Scene)
        .map_err(|source| SaveError::Read {
            file: path.to_path_buf(),
            source,
        })?;
    String::from_utf8(bytes).map_err(|_| SaveError::NotText {
        file: path.to_path_buf(),
    })
}

/// Writes numbers (by path, `scene::numbers`) into the scene file at `path`, atomically,
/// every other byte as it was; nothing is written when none changes.
pub fn save_numbers(path: &Path, changes: &[(String, f64)]) -> Result<bool, SaveError> {
    let text = read_text(path)?;
    let updated =
        super::numbers::set_numbers(&text, changes).map_err(|source| SaveError::Number {
            file: path.to_path_buf(),
            source,
        })?;
    if updated == text {
        return Ok(false);
    }
    write_atomically(path, &updated)?;
    Ok(true)
}

/// Replaces the file at `path` by `text` through a temporary file renamed over it.
fn write_atomically(path: &Path, text: &str) -> Result<(), SaveError> {
    let name = path
        .file_name()
        .map_or("scene".into(), |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.agentbox-save"));
    std::fs::write(&temp, text).map_err(|source| SaveError::Write {
        file: temp.clone(),
        source,
    })?;
    std::fs::rename(&temp, path).map_err(|source| SaveError::Replace {
        file: path.to_path_buf(),
        source,
    })
}

/// Saves the world's map into the scene file at `path`, atomically.
pub fn save_map(path: &Path, world: &World) -> Result<(), SaveError> {
    let text = read_text(path)?;
    let rows = rows_of(world)?;
    let updated = replace_rows(&text, &rows).map_err(|e| SaveError::Map {
        file: path.to_path_buf(),
        source: Box::new(e),
    })?;
    write_atomically(path, &updated)
}

/// Adds agent `id` at `at` to the scene file at `path` (a copy of agent `like`'s entry when
/// given), atomically, every other line kept.
pub fn save_added_agent(
    path: &Path,
    id: &str,
    at: [i32; 2],
    like: Option<&str>,
) -> Result<(), SaveError> {
    let text = read_text(path)?;
    let updated = super::entries::add_agent(path, &text, id, at, like).map_err(|source| {
        SaveError::Entry {
            file: path.to_path_buf(),
            source,
        }
    })?;
    write_atomically(path, &updated)
}

/// Adds `tile` at the end of the scene's waypoints or of a keyboard agent's route in the
/// scene file at `path`, atomically.
pub fn save_added_tile(
    path: &Path,
    list: super::entries::TileList,
    tile: [i32; 2],
) -> Result<(), SaveError> {
    let text = read_text(path)?;
    let updated =
        super::entries::add_tile(path, &text, list, tile).map_err(|source| SaveError::Entry {
            file: path.to_path_buf(),
            source,
        })?;
    write_atomically(path, &updated)
}

/// Points agent `id`'s target param at agent `to` in the scene file at `path`, atomically
/// (see [`super::entries::retarget`]); the param's name.
pub fn save_retarget(path: &Path, id: &str, to: &str) -> Result<String, SaveError> {
    let text = read_text(path)?;
    let (updated, param) =
        super::entries::retarget(path, &text, id, to).map_err(|source| SaveError::Entry {
            file: path.to_path_buf(),
            source,
        })?;
    write_atomically(path, &updated)?;
    Ok(param)
}

/// Removes agent `id`'s entry from the scene file at `path`, atomically.
pub fn save_removed_agent(path: &Path, id: &str) -> Result<(), SaveError> {
    let text = read_text(path)?;
    let updated =
        super::entries::remove_agent(path, &text, id).map_err(|source| SaveError::Entry {
            file: path.to_path_buf(),
            source,
        })?;
    write_atomically(path, &updated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_rows_change() {
        let text = "# a comment\nname: x   # trailing\nmap:\n  rows: |\n    ###\n    #.#\n  # after rows\nagents: []\n";
        let out = replace_rows(text, &["#.#".into(), "...".into()]).unwrap();
        assert_eq!(
            out,
            "# a comment\nname: x   # trailing\nmap:\n  rows: |\n    #.#\n    ...\n  # after rows\nagents: []\n"
        );
    }

    #[test]
    fn rows_that_are_not_a_block_are_refused() {
        assert!(replace_rows("map:\n  rows: \"...\"\n", &["#".into()]).is_err());
    }

    #[test]
    fn painted_tiles_round_trip_through_the_text() {
        let mut world = World::from_ascii(&["...", ".#."]);
        let water = world.terrain().by_name("water").unwrap();
        world.set_terrain(glam::IVec2::new(0, 0), water);
        assert_eq!(
            rows_of(&world).unwrap(),
            vec!["~..".to_string(), ".#.".to_string()]
        );
    }
}
