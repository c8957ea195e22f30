//! The window's own settings, kept between runs: each dock's size and the UI scale, which a
//! designer sets once for their screen and eyes (a drag on a dock's edge, Ctrl+= / Ctrl+-).
//!
//! They live in the user's config folder (`directories`: `$XDG_CONFIG_HOME/agentbox/window.json`
//! on Linux, the platform's own folder elsewhere), not beside the scene: they belong to the
//! person at the screen, not to the scene, and the scene's folder is the designer's (shared,
//! versioned). They are neither read nor written when the run replays input (`--input`) or
//! records it (`--record`), since recorded mouse positions are in tile units through a camera
//! that fits what the docks leave, nor when `AGENTBOX_NO_SETTINGS` is set (the window tests
//! set it). A missing file means the defaults; an unreadable one is said once on stderr and
//! then means the defaults too. This module reads and writes that one file and nothing else.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The environment variable that keeps a run off the user's settings.
pub const NO_SETTINGS: &str = "AGENTBOX_NO_SETTINGS";

/// The largest settings file read, in bytes (it holds a few numbers).
const MAX_BYTES: u64 = 16 * 1024;

/// What is kept: the UI scale and each dock's size at scale 1, in pixels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kept {
    pub ui_scale: f32,
    pub dock: DockSizes,
}

/// Each dock's size at scale 1: the side docks' widths and the bottom dock's height.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DockSizes {
    pub left: f32,
    pub right: f32,
    pub bottom: f32,
}

/// The settings file of this run, if it uses one, and what it last held.
#[derive(Debug, Default)]
pub struct Settings {
    path: Option<PathBuf>,
    saved: Option<Kept>,
}

impl Settings {
    /// The user's settings, unless this run replays or records input or `AGENTBOX_NO_SETTINGS`
    /// is set (then nothing is read or written).
    pub fn for_run(replays_or_records: bool) -> Settings {
        let off =
            replays_or_records || std::env::var_os(NO_SETTINGS).is_some_and(|v| !v.is_empty());
        let path = (!off)
            .then(|| directories::ProjectDirs::from("", "", "agentbox"))
            .flatten()
            .map(|dirs| dirs.config_dir().join("window.json"));
        Settings::at(path)
    }

    /// The settings in the file at `path` (none: no file).
    pub fn at(path: Option<PathBuf>) -> Settings {
        Settings { path, saved: None }
    }

    /// What the file holds: none when there is no file (or it cannot be read, which is said
    /// on stderr).
    pub fn load(&mut self) -> Option<Kept> {
        let path = self.path.as_deref()?;
        match read(path) {
            Ok(kept) => {
                self.saved = kept.clone();
                kept
            }
            Err(e) => {
                eprintln!(
                    "warning: {}: {e}; using the default docks and UI scale",
                    path.display()
                );
                None
            }
        }
    }

    /// Starts from `kept` (what the window opened with), so an unchanged run writes nothing.
    pub fn starting_from(&mut self, kept: Option<Kept>) {
        self.saved = kept;
    }

    /// Writes `kept` when it differs from what the file holds; a failure is said on stderr
    /// once, and the run goes on.
    pub fn keep(&mut self, kept: Kept) {
        let Some(path) = self.path.clone() else {
            return;
        };
        if self.saved.as_ref() == Some(&kept) {
            return;
        }
        if let Err(e) = write(&path, &kept) {
            eprintln!(
                "warning: {}: cannot save the window's settings: {e}",
                path.display()
            );
            self.path = None;
        }
        self.saved = Some(kept);
    }
}

fn read(path: &Path) -> Result<Option<Kept>, String> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return Err(format!(
            "not a settings file (a regular file under {MAX_BYTES} bytes)"
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))
}

/// Writes the file whole (a temporary file renamed over it), so a crash leaves the old one.
fn write(path: &Path, kept: &Kept) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(kept).map_err(std::io::Error::other)?;
    let temporary = path.with_extension("json.new");
    std::fs::write(&temporary, text + "\n")?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(right: f32) -> Kept {
        Kept {
            ui_scale: 1.25,
            dock: DockSizes {
                left: 320.0,
                right,
                bottom: 190.0,
            },
        }
    }

    #[test]
    fn kept_settings_come_back_in_the_next_run() {
        let dir = std::env::temp_dir().join(format!("agentbox-settings-{}", std::process::id()));
        let path = dir.join("agentbox").join("window.json");
        let mut first = Settings::at(Some(path.clone()));
        assert_eq!(first.load(), None, "no file yet: the defaults");
        first.keep(kept(460.0));
        let mut next = Settings::at(Some(path.clone()));
        assert_eq!(next.load(), Some(kept(460.0)));
        std::fs::write(&path, "{\"ui_scale\": ").unwrap();
        assert_eq!(
            Settings::at(Some(path)).load(),
            None,
            "a broken file: the defaults"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_run_without_a_settings_file_writes_nothing() {
        let mut off = Settings::at(None);
        assert_eq!(off.load(), None);
        off.keep(kept(400.0));
        assert_eq!(off.path, None);
        assert!(
            Settings::for_run(true).path.is_none(),
            "replays and recordings use none"
        );
    }
}
