//! The session file: a [`Recording`] as JSON, so a run can be saved, opened again and attached
//! to a bug report. Each file version is stored once (by its hash) and named by the reads that
//! gave it; text stays text, other bytes are a list of numbers.
//!
//! ```json
//! {"agentbox_session":1,"scene":"scenes/chase.yaml","seed":null,"ticks":300,
//!  "files":{"9f…":"local M = {} …"},
//!  "events":[{"at":0,"files":{"changed":[],"reads":[{"path":"scripts/a.lua","file":"9f…"}]}},
//!            {"at":12,"goal":[4,5]}],
//!  "hashes":{"64":123},
//!  "open_at":{"tick":57,"agent":"hunter","why":"reach: ..."}}
//! ```

use super::{Blob, FileRead};
use super::{Focus, Input, Recording, TimedInput};
use agentbox_core::files::{Disk, FileKind, Files, ReadError};
use glam::IVec2;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The format's version, the value of `agentbox_session`.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileForm {
    agentbox_session: u32,
    scene: PathBuf,
    seed: Option<u64>,
    ticks: u64,
    files: BTreeMap<String, Contents>,
    events: Vec<EventForm>,
    #[serde(default)]
    hashes: BTreeMap<u64, u64>,
    /// Where the window opens the session (absent: at its last tick).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    open_at: Option<FocusForm>,
}

/// `"open_at": {"tick": 57, "agent": "hunter", "why": "reach: ..."}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FocusForm {
    tick: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
    #[serde(default)]
    why: String,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Contents {
    Text(String),
    Bytes(Vec<u8>),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventForm {
    at: u64,
    #[serde(flatten)]
    input: InputForm,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum InputForm {
    Files {
        changed: Vec<PathBuf>,
        reads: Vec<ReadForm>,
    },
    Keyboard([i32; 2]),
    Terrain {
        tile: [i32; 2],
        id: u8,
    },
    Place {
        agent: String,
        tile: [i32; 2],
    },
    Goal(Option<[i32; 2]>),
    Resume(String),
    Tunable {
        name: String,
        value: f64,
    },
    SetMemory {
        agent: String,
        path: Vec<String>,
        value: serde_json::Value,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadForm {
    path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    missing: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn key(bytes: &[u8]) -> String {
    format!("{:016x}", super::line_hash_bytes(bytes))
}

fn tile(t: IVec2) -> [i32; 2] {
    [t.x, t.y]
}

fn from_tile(t: [i32; 2]) -> IVec2 {
    IVec2::new(t[0], t[1])
}

/// The recording as session-file text.
pub fn to_text(rec: &Recording) -> String {
    let mut files = BTreeMap::new();
    let events = rec
        .events
        .iter()
        .map(|e| EventForm {
            at: e.at,
            input: match &e.input {
                Input::Files { changed, reads } => InputForm::Files {
                    changed: changed.clone(),
                    reads: reads
                        .iter()
                        .map(|(path, read)| match read {
                            Ok(b) => {
                                let k = key(b);
                                files.entry(k.clone()).or_insert_with(
                                    || match std::str::from_utf8(b) {
                                        Ok(t) => Contents::Text(t.to_string()),
                                        Err(_) => Contents::Bytes(b.to_vec()),
                                    },
                                );
                                ReadForm {
                                    path: path.clone(),
                                    file: Some(k),
                                    missing: false,
                                    error: None,
                                }
                            }
                            Err(e) => ReadForm {
                                path: path.clone(),
                                file: None,
                                missing: e.is_missing(),
                                error: Some(e.to_string()),
                            },
                        })
                        .collect(),
                },
                Input::Keyboard(d) => InputForm::Keyboard(tile(*d)),
                Input::Terrain { tile: t, id } => InputForm::Terrain {
                    tile: tile(*t),
                    id: *id,
                },
                Input::Place { agent, tile: t } => InputForm::Place {
                    agent: agent.clone(),
                    tile: tile(*t),
                },
                Input::Goal(g) => InputForm::Goal(g.map(tile)),
                Input::Resume(a) => InputForm::Resume(a.clone()),
                Input::Tunable { name, value } => InputForm::Tunable {
                    name: name.clone(),
                    value: *value,
                },
                Input::SetMemory { agent, path, value } => InputForm::SetMemory {
                    agent: agent.clone(),
                    path: path.clone(),
                    value: value.clone(),
                },
            },
        })
        .collect();
    let form = FileForm {
        agentbox_session: VERSION,
        scene: rec.scene.clone(),
        seed: rec.seed,
        ticks: rec.ticks,
        files,
        events,
        hashes: rec.hashes.clone(),
        open_at: rec.focus.as_ref().map(|f| FocusForm {
            tick: f.tick,
            agent: f.agent.clone(),
            why: f.why.clone(),
        }),
    };
    serde_json::to_string(&form).unwrap_or_default()
}

/// Why a session file could not be read or written; its `Display` names the file.
#[derive(Debug, thiserror::Error)]
pub enum SessionFileError {
    #[error("{}: cannot read the session file: {source}", .path.display())]
    Read { path: PathBuf, source: ReadError },
    #[error("{}: the session file is not UTF-8 text", .path.display())]
    NotText { path: PathBuf },
    #[error("{}:{}:{}: not an agentbox session file: {source}", .path.display(), .source.line(), .source.column())]
    NotASessionFile {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: session file version {found} (this agentbox reads version {VERSION})", .path.display())]
    Version { path: PathBuf, found: u32 },
    /// An event that does not fit the file (out of order, a read of a version not stored).
    #[error("{}: {message}", .path.display())]
    BadEvent { path: PathBuf, message: String },
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A recording from session-file text; `origin` names it in errors.
pub fn from_text(text: &str, origin: &Path) -> Result<Recording, SessionFileError> {
    let path = || origin.to_path_buf();
    let form: FileForm =
        serde_json::from_str(text).map_err(|source| SessionFileError::NotASessionFile {
            path: path(),
            source,
        })?;
    if form.agentbox_session != VERSION {
        return Err(SessionFileError::Version {
            path: path(),
            found: form.agentbox_session,
        });
    }
    let blobs: BTreeMap<String, Blob> = form
        .files
        .into_iter()
        .map(|(k, c)| {
            let b: Blob = match c {
                Contents::Text(t) => Blob::from(t.into_bytes()),
                Contents::Bytes(b) => Blob::from(b),
            };
            (k, b)
        })
        .collect();
    let mut events = Vec::with_capacity(form.events.len());
    let mut last = 0;
    for (i, e) in form.events.into_iter().enumerate() {
        if e.at < last || e.at > form.ticks {
            return Err(SessionFileError::BadEvent {
                path: path(),
                message: format!(
                    "event {i} is at tick {}, out of order or after the last tick {}",
                    e.at, form.ticks
                ),
            });
        }
        last = e.at;
        let input = input_from(e.input, &blobs, i, origin)?;
        events.push(TimedInput { at: e.at, input });
    }
    let focus = form.open_at.map(|f| Focus {
        tick: f.tick.min(form.ticks),
        agent: f.agent,
        why: f.why,
    });
    Ok(Recording {
        scene: form.scene,
        seed: form.seed,
        events,
        ticks: form.ticks,
        hashes: form.hashes,
        focus,
    })
}

/// An input from its session-file form; `blobs` are the file's stored versions by key, `i`
/// and `origin` name the event in errors.
fn input_from(
    input: InputForm,
    blobs: &BTreeMap<String, Blob>,
    i: usize,
    origin: &Path,
) -> Result<Input, SessionFileError> {
    Ok(match input {
        InputForm::Files { changed, reads } => Input::Files {
            changed,
            reads: reads_from(reads, blobs, i, origin)?,
        },
        InputForm::Keyboard(d) => Input::Keyboard(from_tile(d).clamp(-IVec2::ONE, IVec2::ONE)),
        InputForm::Terrain { tile: t, id } => Input::Terrain {
            tile: from_tile(t),
            id,
        },
        InputForm::Place { agent, tile: t } => Input::Place {
            agent,
            tile: from_tile(t),
        },
        InputForm::Goal(g) => Input::Goal(g.map(from_tile)),
        InputForm::Resume(a) => Input::Resume(a),
        InputForm::Tunable { name, value } => Input::Tunable { name, value },
        InputForm::SetMemory { agent, path, value } => Input::SetMemory { agent, path, value },
    })
}

/// The reads of a `files` event from their session-file form: each names a stored version
/// (`blobs`, by key) or keeps a failure's text and whether the file was missing.
fn reads_from(
    reads: Vec<ReadForm>,
    blobs: &BTreeMap<String, Blob>,
    i: usize,
    origin: &Path,
) -> Result<Vec<(PathBuf, FileRead)>, SessionFileError> {
    let bad = |message: String| SessionFileError::BadEvent {
        path: origin.to_path_buf(),
        message,
    };
    let mut out = Vec::with_capacity(reads.len());
    for r in reads {
        let read: FileRead = match (r.file, r.error) {
            (Some(k), None) => match blobs.get(&k) {
                Some(b) => Ok(b.clone()),
                None => {
                    return Err(bad(format!(
                        "event {i} reads {} as file {k}, which is not in \"files\"",
                        r.path.display()
                    )))
                }
            },
            // Only the text and whether the file was missing are kept.
            (None, Some(message)) if r.missing => Err(ReadError::Missing(message)),
            (None, Some(message)) => Err(ReadError::Other(message)),
            _ => {
                return Err(bad(format!(
                    "event {i}: a read of {} needs either \"file\" or \"error\"",
                    r.path.display()
                )))
            }
        };
        out.push((r.path, read));
    }
    Ok(out)
}

/// Writes a recording to a session file.
pub fn save(rec: &Recording, path: &Path) -> Result<(), SessionFileError> {
    std::fs::write(path, to_text(rec)).map_err(|source| SessionFileError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a session file.
pub fn load(path: &Path) -> Result<Recording, SessionFileError> {
    let bytes = Disk
        .read(path, FileKind::Recording)
        .map_err(|source| SessionFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let text = String::from_utf8(bytes).map_err(|_| SessionFileError::NotText {
        path: path.to_path_buf(),
    })?;
    from_text(&text, path)
}
