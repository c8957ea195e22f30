//! Input for one frame, from the keyboard and mouse or replayed from a file (`--input FILE`),
//! and optionally recorded to a file (`--record FILE`) in the same format, so a session can be
//! replayed in a bug report or a test.
//!
//! The file is JSON Lines, one event per line, stamped with the frame it happens on (in
//! `--frames` mode a frame is exactly one tick). Mouse positions are in tile units, so a replay
//! does not depend on the window's size:
//! `{"frame": 3, "key": "Digit1"}` presses a key (add `"ctrl": true` or `"shift": true`);
//! `{"frame": 4, "hold": "Right"}` / `{"frame": 9, "release": "Right"}` hold a key down;
//! `{"frame": 5, "press": "left", "at": [3.0, 2.0]}`, `{"frame": 6, "move": [5.0, 2.0]}`,
//! `{"frame": 7, "release": "left", "at": [5.0, 2.0]}` drive the mouse;
//! `{"frame": 8, "wheel": 1.0, "at": [4.0, 4.0]}` zooms;
//! `{"frame": 9, "text": "world:tick()"}` types characters (into the question prompt).

use super::camera::Camera;
use macroquad::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// Mouse buttons, in index order.
pub const BUTTONS: [MouseButton; 3] = [MouseButton::Left, MouseButton::Right, MouseButton::Middle];

/// What happened this frame.
#[derive(Clone, Debug, Default)]
pub struct FrameInput {
    /// Keys pressed this frame (edges, not holds).
    pub pressed: Vec<KeyCode>,
    /// Keys held down.
    pub down: BTreeSet<KeyCodeOrd>,
    pub ctrl: bool,
    pub shift: bool,
    /// Characters typed (for `?`).
    pub chars: Vec<char>,
    /// Mouse position in screen pixels.
    pub mouse: Vec2,
    pub button_pressed: [bool; 3],
    pub button_down: [bool; 3],
    pub button_released: [bool; 3],
    pub wheel: f32,
}

/// A key code that can live in ordered sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyCodeOrd(pub u16);

impl FrameInput {
    pub fn held(&self, key: KeyCode) -> bool {
        self.down.contains(&KeyCodeOrd(key as u16))
    }
}

/// One line of an input file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub frame: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ctrl: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shift: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub press: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<[f64; 2]>,
    #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
    pub move_to: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wheel: Option<f32>,
    /// Characters typed (into the question prompt); `?` is not written, as Shift+Slash
    /// types it on replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Keys a replay may name, by the names macroquad's `KeyCode` has. Recorded files use these
/// names: they must never change (add new ones), so old recordings replay.
pub const KEYS: [(&str, KeyCode); 59] = [
    ("Space", KeyCode::Space),
    ("Escape", KeyCode::Escape),
    ("Tab", KeyCode::Tab),
    ("Left", KeyCode::Left),
    ("Right", KeyCode::Right),
    ("Up", KeyCode::Up),
    ("Down", KeyCode::Down),
    ("Digit0", KeyCode::Key0),
    ("Digit1", KeyCode::Key1),
    ("Digit2", KeyCode::Key2),
    ("Digit3", KeyCode::Key3),
    ("Digit4", KeyCode::Key4),
    ("Digit5", KeyCode::Key5),
    ("Digit6", KeyCode::Key6),
    ("Digit7", KeyCode::Key7),
    ("Digit8", KeyCode::Key8),
    ("Digit9", KeyCode::Key9),
    ("F1", KeyCode::F1),
    ("LeftBracket", KeyCode::LeftBracket),
    ("RightBracket", KeyCode::RightBracket),
    ("Period", KeyCode::Period),
    ("Minus", KeyCode::Minus),
    ("Equal", KeyCode::Equal),
    ("Home", KeyCode::Home),
    ("Slash", KeyCode::Slash),
    ("A", KeyCode::A),
    ("C", KeyCode::C),
    ("D", KeyCode::D),
    ("E", KeyCode::E),
    ("F", KeyCode::F),
    ("G", KeyCode::G),
    ("H", KeyCode::H),
    ("I", KeyCode::I),
    ("J", KeyCode::J),
    ("L", KeyCode::L),
    ("M", KeyCode::M),
    ("N", KeyCode::N),
    ("O", KeyCode::O),
    ("P", KeyCode::P),
    ("R", KeyCode::R),
    ("S", KeyCode::S),
    ("T", KeyCode::T),
    ("U", KeyCode::U),
    ("V", KeyCode::V),
    ("W", KeyCode::W),
    ("X", KeyCode::X),
    ("Y", KeyCode::Y),
    ("Z", KeyCode::Z),
    ("Enter", KeyCode::Enter),
    ("Backspace", KeyCode::Backspace),
    ("Delete", KeyCode::Delete),
    ("Q", KeyCode::Q),
    ("Comma", KeyCode::Comma),
    ("End", KeyCode::End),
    ("K", KeyCode::K),
    ("B", KeyCode::B),
    ("Backquote", KeyCode::GraveAccent),
    ("F9", KeyCode::F9),
    ("Insert", KeyCode::Insert),
];

/// The key a recorded file names.
fn recorded_key(name: &str) -> Option<KeyCode> {
    KEYS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

/// A key's name in recorded files.
pub fn recorded_name(key: KeyCode) -> Option<&'static str> {
    KEYS.iter().find(|(_, k)| *k == key).map(|(n, _)| *n)
}

fn button_index(name: &str) -> Option<usize> {
    ["left", "right", "middle"].iter().position(|b| *b == name)
}

/// Where the window's input comes from (the keyboard and mouse, or a replayed file) and where
/// it is recorded, if anywhere.
pub struct Feed {
    source: Source,
    recorder: Option<Recorder>,
}

impl Feed {
    /// Live input, or `input`'s replay; recorded to `record` if given.
    pub fn open(
        input: Option<&std::path::Path>,
        record: Option<&std::path::Path>,
    ) -> Result<Feed, String> {
        let source = match input {
            Some(path) => load_replay(path)?,
            None => Source::Live,
        };
        let recorder = match record {
            Some(path) => Some(Recorder::create(path)?),
            None => None,
        };
        Ok(Feed { source, recorder })
    }

    /// This frame's input, recorded.
    pub fn frame(&mut self, frame: u64, camera: &Camera) -> FrameInput {
        let input = self.source.frame(frame, camera);
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.record(frame, &input, camera);
        }
        input
    }
}

/// Where a frame's input comes from.
enum Source {
    Live,
    Replay {
        events: BTreeMap<u64, Vec<Event>>,
        held: BTreeSet<KeyCodeOrd>,
        buttons: [bool; 3],
        mouse_tile: [f64; 2],
    },
}

/// Reads an input file.
fn load_replay(path: &std::path::Path) -> Result<Source, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut events: BTreeMap<u64, Vec<Event>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let event: Event = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}:{}: error: {e}", path.display(), i + 1, e.column()))?;
        for name in [&event.key, &event.hold, &event.release]
            .into_iter()
            .flatten()
        {
            if recorded_key(name).is_none() && button_index(name).is_none() {
                return Err(format!(
                    "{}:{}:1: error: unknown key {name:?}",
                    path.display(),
                    i + 1
                ));
            }
        }
        events.entry(event.frame).or_default().push(event);
    }
    Ok(Source::Replay {
        events,
        held: BTreeSet::new(),
        buttons: [false; 3],
        mouse_tile: [0.0, 0.0],
    })
}

impl Source {
    /// This frame's input.
    fn frame(&mut self, frame: u64, camera: &Camera) -> FrameInput {
        match self {
            Source::Live => live(),
            Source::Replay {
                events,
                held,
                buttons,
                mouse_tile,
            } => {
                let mut input = FrameInput::default();
                for e in events.remove(&frame).unwrap_or_default() {
                    if let Some(at) = e.at.or(e.move_to) {
                        *mouse_tile = at;
                    }
                    if let Some(k) = e.key.as_deref().and_then(recorded_key) {
                        input.pressed.push(k);
                        if k == KeyCode::Slash && e.shift {
                            input.chars.push('?');
                        }
                    }
                    input.ctrl |= e.ctrl;
                    input.shift |= e.shift;
                    if let Some(k) = e.hold.as_deref().and_then(recorded_key) {
                        held.insert(KeyCodeOrd(k as u16));
                    }
                    if let Some(name) = &e.release {
                        if let Some(k) = recorded_key(name) {
                            held.remove(&KeyCodeOrd(k as u16));
                        }
                        if let Some(b) = button_index(name) {
                            buttons[b] = false;
                            input.button_released[b] = true;
                        }
                    }
                    if let Some(b) = e.press.as_deref().and_then(button_index) {
                        buttons[b] = true;
                        input.button_pressed[b] = true;
                    }
                    if let Some(w) = e.wheel {
                        input.wheel += w;
                    }
                    if let Some(text) = &e.text {
                        input.chars.extend(text.chars());
                    }
                }
                input.down = held.clone();
                input.button_down = *buttons;
                input.mouse = camera.to_screen(::glam::DVec2::new(mouse_tile[0], mouse_tile[1]));
                input
            }
        }
    }
}

fn live() -> FrameInput {
    let mut input = FrameInput {
        pressed: get_keys_pressed().into_iter().collect(),
        down: get_keys_down()
            .into_iter()
            .map(|k| KeyCodeOrd(k as u16))
            .collect(),
        ctrl: is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl),
        shift: is_key_down(KeyCode::LeftShift) || is_key_down(KeyCode::RightShift),
        mouse: mouse_position().into(),
        // One notch per frame at most, whatever the platform's wheel units (0 stays 0:
        // `signum` would turn it into 1).
        wheel: match mouse_wheel().1 {
            w if w > 0.0 => 1.0,
            w if w < 0.0 => -1.0,
            _ => 0.0,
        },
        ..Default::default()
    };
    input.pressed.sort_by_key(|k| *k as u16);
    while let Some(c) = get_char_pressed() {
        input.chars.push(c);
    }
    for (i, b) in BUTTONS.iter().enumerate() {
        input.button_pressed[i] = is_mouse_button_pressed(*b);
        input.button_down[i] = is_mouse_button_down(*b);
        input.button_released[i] = is_mouse_button_released(*b);
    }
    input
}

/// Writes live input as a replayable file.
struct Recorder {
    out: std::io::BufWriter<std::fs::File>,
    held: BTreeSet<KeyCodeOrd>,
}

impl Recorder {
    fn create(path: &std::path::Path) -> Result<Self, String> {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        Ok(Recorder {
            out: std::io::BufWriter::new(file),
            held: BTreeSet::new(),
        })
    }

    /// Appends this frame's events.
    fn record(&mut self, frame: u64, input: &FrameInput, camera: &Camera) {
        let at = camera.to_world(input.mouse);
        let at = Some([
            (at.x * 100.0).round() / 100.0,
            (at.y * 100.0).round() / 100.0,
        ]);
        let mut events = Vec::new();
        let base = Event {
            frame,
            ..Default::default()
        };
        for k in &input.pressed {
            if let Some(name) = recorded_name(*k) {
                events.push(Event {
                    key: Some(name.into()),
                    ctrl: input.ctrl,
                    shift: input.shift,
                    ..base.clone()
                });
            }
        }
        for k in input.down.difference(&self.held) {
            if let Some(name) = KEYS.iter().find(|(_, c)| *c as u16 == k.0).map(|(n, _)| *n) {
                events.push(Event {
                    hold: Some(name.into()),
                    ..base.clone()
                });
            }
        }
        for k in self.held.difference(&input.down) {
            if let Some(name) = KEYS.iter().find(|(_, c)| *c as u16 == k.0).map(|(n, _)| *n) {
                events.push(Event {
                    release: Some(name.into()),
                    ..base.clone()
                });
            }
        }
        self.held = input.down.clone();
        for (i, name) in ["left", "right", "middle"].iter().enumerate() {
            if input.button_pressed[i] {
                events.push(Event {
                    press: Some(name.to_string()),
                    at,
                    ..base.clone()
                });
            }
            if input.button_released[i] {
                events.push(Event {
                    release: Some(name.to_string()),
                    at,
                    ..base.clone()
                });
            }
        }
        if input.button_down.iter().any(|b| *b) && events.is_empty() {
            events.push(Event {
                move_to: at,
                ..base.clone()
            });
        }
        if input.wheel != 0.0 {
            events.push(Event {
                wheel: Some(input.wheel),
                at,
                ..base.clone()
            });
        }
        let text: String = input.chars.iter().filter(|c| **c != '?').collect();
        if !text.is_empty() {
            events.push(Event {
                text: Some(text),
                ..base.clone()
            });
        }
        for e in events {
            if let Ok(line) = serde_json::to_string(&e) {
                let _ = writeln!(self.out, "{line}");
            }
        }
    }
}
