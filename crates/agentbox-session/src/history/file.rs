//! The session file: a [`Recording`] as JSON, so a run can be saved, opened again and attached
//! to a bug report. Each file version is stored once (by its hash) and named by the reads that
//! gave it; text stays text, other bytes are a list of numbers.
//!
//! ```json
//! {"agentbox_session":1,"scene":"scenes/chase.yaml","seed":null,"ticks":300,
//!  "files":{"9f…":"local M = {} …"},
//!  "events":[{"at":0,"files":{"changed":[],"reads":[{"path":"scripts/a.lua","file":"9f…"}]}},
//!            {"at":12,"goal":[4,5]}],
//!  "hashes":{"64":123}}
//! ```

use super::{Event, Input, Recording};
use agentbox_lua::sources::{Blob, FileRead};
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
                            FileRead::Bytes(b) => {
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
                            FileRead::Failed { missing, message } => ReadForm {
                                path: path.clone(),
                                file: None,
                                missing: *missing,
                                error: Some(message.clone()),
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
    };
    serde_json::to_string(&form).unwrap_or_default()
}

/// A recording from session-file text; `origin` names it in errors.
pub fn from_text(text: &str, origin: &Path) -> Result<Recording, String> {
    let form: FileForm = serde_json::from_str(text).map_err(|e| {
        format!(
            "{}:{}:{}: not an agentbox session file: {e}",
            origin.display(),
            e.line(),
            e.column()
        )
    })?;
    if form.agentbox_session != VERSION {
        return Err(format!(
            "{}: session file version {} (this agentbox reads version {VERSION})",
            origin.display(),
            form.agentbox_session
        ));
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
            return Err(format!(
                "{}: event {i} is at tick {}, out of order or after the last tick {}",
                origin.display(),
                e.at,
                form.ticks
            ));
        }
        last = e.at;
        let input = match e.input {
            InputForm::Files { changed, reads } => {
                let mut out = Vec::with_capacity(reads.len());
                for r in reads {
                    let read = match (r.file, r.error) {
                        (Some(k), None) => match blobs.get(&k) {
                            Some(b) => FileRead::Bytes(b.clone()),
                            None => {
                                return Err(format!(
                                    "{}: event {i} reads {} as file {k}, which is not in \"files\"",
                                    origin.display(),
                                    r.path.display()
                                ))
                            }
                        },
                        (None, Some(message)) => FileRead::Failed {
                            missing: r.missing,
                            message,
                        },
                        _ => {
                            return Err(format!(
                                "{}: event {i}: a read of {} needs either \"file\" or \"error\"",
                                origin.display(),
                                r.path.display()
                            ))
                        }
                    };
                    out.push((r.path, read));
                }
                Input::Files {
                    changed,
                    reads: out,
                }
            }
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
        };
        events.push(Event { at: e.at, input });
    }
    Ok(Recording {
        scene: form.scene,
        seed: form.seed,
        events,
        ticks: form.ticks,
        hashes: form.hashes,
    })
}

/// Writes a recording to a session file.
pub fn save(rec: &Recording, path: &Path) -> Result<(), String> {
    std::fs::write(path, to_text(rec)).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// The largest session file read (it holds every version of every file a run read).
pub const MAX_SESSION_BYTES: u64 = 256 * 1024 * 1024;

/// Reads a session file.
pub fn load(path: &Path) -> Result<Recording, String> {
    let bytes = agentbox_core::files::read_bounded(path, MAX_SESSION_BYTES)
        .map_err(|e| format!("{}: cannot read the session file: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: the session file is not UTF-8 text", path.display()))?;
    from_text(&text, path)
}
