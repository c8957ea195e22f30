//! The keymap: one table (`table.rs`) of every key and mouse gesture the window answers, by
//! mode. The
//! window's dispatch asks it which actions a frame's keys mean ([`Actions::of`],
//! [`Actions::held`]), so no handler names a key; the F1 help and the search panel list its
//! short texts ([`key_list`]); `docs/keys.md` is generated from it (the `docs` module, a test
//! that fails when the committed file is stale and rewrites it under `BLESS=1`).
//!
//! What an action does stays with its handler (`lib.rs`, `search_view.rs`, `sessions.rs`):
//! conditions that change within a frame (paint mode, looking at the past, paused, the tunables
//! panel open) are checked there, when the action runs, so a frame with several keys runs them
//! in the order the handlers always did. Mouse gestures are listed for the help and the docs
//! only: where the pointer is decides what a click does, so `handle_mouse` dispatches them. The
//! names keys have in `--record`/`--input` files are `input.rs`'s, not these labels.

use super::input::FrameInput;
use super::overlays::Overlay;
use macroquad::prelude::KeyCode;
use KeyCode as K;

#[cfg(test)]
mod docs;
mod table;
#[cfg(test)]
mod tests;

pub use table::TABLE;

/// Who takes the keys this frame; exactly one mode is current.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The map, its panels and time travel (the default).
    Map,
    /// An error message shown whole (a click on the error list opened it).
    Message,
    /// The session list (Ctrl+O).
    Sessions,
    /// The search mode (Q).
    Search,
    /// The question prompt (a watch, the tick where, a breakpoint, the console): it takes every
    /// key.
    Prompt,
}

/// A keyboard direction, for keyboard-controlled agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Left,
    Right,
    Up,
    Down,
}

/// What a key asks for. Several modes may share an action where it means the same there
/// (Slower in the map slows the simulation, in the search mode the animation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Show or hide the help panel.
    Help,
    /// Close what is open (help, a selection, a message, a list, the search mode), or quit.
    Close,
    /// Pause or run; at a past tick, branch from it.
    PlayPause,
    /// One tick forward while paused (along the history in the past).
    StepForward,
    /// One tick back (pauses).
    StepBack,
    /// To the end: the live tick, or the search's last step.
    ToEnd,
    Slower,
    Faster,
    /// A new history from the scene's start.
    Reset,
    ZoomIn,
    ZoomOut,
    /// Fit the map to the window (or the panes).
    Fit,
    /// Keep the selected agent at the centre of the map (or stop).
    Follow,
    /// A larger / smaller UI scale (text and docks).
    UiLarger,
    UiSmaller,
    /// Resume the selected agent after a budget or memory stop.
    Resume,
    TogglePaint,
    NextBrush,
    /// Undo the last slider change (panel open) or paint stroke.
    Undo,
    /// Save the painted map and the tunables into the scene file.
    Save,
    /// Save, when in paint mode and not mid-stroke (elsewhere the key drives).
    SaveInPaintMode,
    ToggleTunables,
    /// Held: drive keyboard agents.
    Drive(Dir),
    /// Held: drive keyboard agents, outside paint mode (the letters paint mode uses).
    DriveByLetter(Dir),
    ToggleGhost,
    /// Save the session file and print the branch's headless command.
    SaveSession,
    /// Open the session list.
    OpenSessions,
    /// Start or end a GIF clip of the window.
    RecordClip,
    /// Place an agent on the tile under the mouse, saved into the scene file.
    PlaceAgent,
    /// Delete the selected agent from the scene file and the run.
    DeleteAgent,
    /// Add the tile under the mouse to the selected keyboard agent's route, or the waypoints.
    AddRouteTile,
    ToggleConsole,
    ToggleLabels,
    ToggleDrawings,
    /// Open (or, in the search mode, leave) the search mode.
    ToggleSearch,
    Overlay(Overlay),
    /// The session list's selection.
    PreviousRow,
    NextRow,
    /// Open the session chosen in the list.
    OpenRow,
    /// The search mode: one expansion.
    SearchStep,
    /// The search mode: run animated, or pause.
    SearchRun,
    ClearSearch,
    CycleAlgorithm,
    CycleHeuristic,
    CycleDiagonal,
    /// Open the prompt for a watch, the tick where, a breakpoint or the console.
    AskWatch,
    AskFind,
    AskBreak,
    AskConsole,
    /// The last "tick where" again, forwards or backwards.
    FindNext,
    FindPrevious,
    /// Remove the last watch.
    RemoveWatch,
    /// The prompt: submit (for a search, forwards), submit backwards, delete a character.
    Submit,
    SubmitBack,
    DeleteChar,
}

impl Action {
    /// Whether the action lasts while its key is held (else it happens when pressed).
    fn is_held(self) -> bool {
        matches!(self, Action::Drive(_) | Action::DriveByLetter(_))
    }
}

/// A key: a key code, or a typed character (`?`, whatever key types it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Code(KeyCode),
    Char(char),
}

/// What a modifier must be for a chord to match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Held or not.
    Any,
    /// Held.
    Held,
    /// Not held.
    Free,
}

impl Need {
    fn allows(self, held: bool) -> bool {
        match self {
            Need::Any => true,
            Need::Held => held,
            Need::Free => !held,
        }
    }
}

/// A key and what Ctrl and Shift must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chord {
    pub key: Key,
    pub ctrl: Need,
    pub shift: Need,
}

impl Chord {
    /// Whether this frame's Ctrl and Shift are what the chord needs.
    fn modifiers_allow(&self, input: &FrameInput) -> bool {
        self.ctrl.allows(input.ctrl) && self.shift.allows(input.shift)
    }
}

/// One row of the table: the keys (and mouse gesture) that do one thing, or a pair of opposite
/// things, in the modes listed.
pub struct Row {
    pub modes: &'static [Mode],
    /// A mouse gesture that does this, as the help and docs name it (dispatched by where the
    /// pointer is, in `handle_mouse`).
    pub mouse: Option<&'static str>,
    /// The keys and what each asks for.
    pub keys: &'static [(Chord, Action)],
    /// What it does, for `docs/keys.md` (read only by the generator, a test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub what: &'static str,
    /// The short text in the mode's key list (the F1 help, the search panel); `None`: the
    /// docs only.
    pub help: Option<&'static str>,
}

/// The actions a frame's keys ask for in one mode, in the order the keys were pressed (a key
/// pressed twice in a frame asks twice).
pub struct Actions(Vec<Action>);

impl Actions {
    /// The actions of the keys pressed (and characters typed) this frame.
    pub fn of(input: &FrameInput, mode: Mode) -> Actions {
        let pressed = input.pressed.iter().map(|&code| Key::Code(code));
        let typed = input.chars.iter().map(|&c| Key::Char(c));
        Actions(
            pressed
                .chain(typed)
                .filter_map(|k| action_of(k, input, mode).filter(|a| !a.is_held()))
                .collect(),
        )
    }

    /// The actions of the keys held down this frame (driving).
    pub fn held(input: &FrameInput, mode: Mode) -> Actions {
        // Most frames hold no key: then no binding need be looked at.
        if input.down.is_empty() {
            return Actions(Vec::new());
        }
        Actions(
            bindings(mode)
                .filter(|(chord, action)| {
                    action.is_held()
                        && matches!(chord.key, Key::Code(code) if input.held(code))
                        && chord.modifiers_allow(input)
                })
                .map(|(_, action)| action)
                .collect(),
        )
    }

    pub fn has(&self, action: Action) -> bool {
        self.0.contains(&action)
    }

    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        self.0.iter().copied()
    }
}

/// Every key binding of a mode, in table order.
fn bindings(mode: Mode) -> impl Iterator<Item = (Chord, Action)> {
    TABLE
        .iter()
        .filter(move |row| row.modes.contains(&mode))
        .flat_map(|row| row.keys.iter().copied())
}

/// What `key` asks for in `mode`, with this frame's modifiers.
fn action_of(key: Key, input: &FrameInput, mode: Mode) -> Option<Action> {
    bindings(mode)
        .find(|(chord, _)| chord.key == key && chord.modifiers_allow(input))
        .map(|(_, action)| action)
}

/// A key as the help and the docs write it.
fn label_of(key: Key) -> String {
    let code = match key {
        Key::Char(c) => return c.to_string(),
        Key::Code(code) => code,
    };
    let name = match code {
        K::Escape => "Esc",
        K::LeftBracket => "[",
        K::RightBracket => "]",
        K::Period => ".",
        K::Comma => ",",
        K::Minus => "-",
        K::Equal => "+",
        K::Slash => "/",
        K::GraveAccent => "`",
        K::Key0 => "0",
        K::Key1 => "1",
        K::Key2 => "2",
        K::Key3 => "3",
        K::Key4 => "4",
        K::Key5 => "5",
        K::Key6 => "6",
        K::Key7 => "7",
        K::Key8 => "8",
        K::Key9 => "9",
        // The rest as macroquad names them (Space, Tab, Home, End, Enter, F1, letters, ...).
        other => return format!("{other:?}"),
    };
    name.to_string()
}

/// A chord as the help and docs write it: `Ctrl+` or `Shift+` when the modifier is needed.
/// `code` writes the key itself (plain for the help, a code span for the docs).
fn chord_name(chord: &Chord, code: &dyn Fn(&str) -> String) -> String {
    let mut name = String::new();
    if chord.ctrl == Need::Held {
        name.push_str("Ctrl+");
    }
    if chord.shift == Need::Held {
        name.push_str("Shift+");
    }
    name + &code(&label_of(chord.key))
}

/// Runs of keys the help and docs name as one: the arrows, WASD, the digits.
const GROUPS: [(&[KeyCode], &str); 3] = [
    (&[K::Left, K::Right, K::Up, K::Down], "arrows"),
    (&[K::W, K::A, K::S, K::D], "WASD"),
    (
        &[
            K::Key1,
            K::Key2,
            K::Key3,
            K::Key4,
            K::Key5,
            K::Key6,
            K::Key7,
            K::Key8,
            K::Key9,
            K::Key0,
        ],
        "0-9",
    ),
];

/// A row's keys as the help and docs write them: keys for one action joined with " or ", the
/// actions with " / " (the arrows, WASD and the digits as one name each), after the mouse
/// gesture if there is one.
fn row_keys(row: &Row, code: &dyn Fn(&str) -> String) -> String {
    let mut parts: Vec<(String, Option<Action>)> = Vec::new();
    let mut rest = row.keys;
    'next: while let Some(&(chord, action)) = rest.first() {
        for (group, name) in GROUPS {
            let run = rest.len() >= group.len()
                && rest
                    .iter()
                    .zip(group)
                    .all(|((c, _), k)| c.key == Key::Code(*k));
            if run {
                parts.push((name.to_string(), None));
                rest = &rest[group.len()..];
                continue 'next;
            }
        }
        let name = chord_name(&chord, code);
        match parts.last_mut() {
            Some((text, Some(last))) if *last == action => {
                text.push_str(" or ");
                text.push_str(&name);
            }
            _ => parts.push((name, Some(action))),
        }
        rest = &rest[1..];
    }
    let keys = parts
        .into_iter()
        .map(|(text, _)| text)
        .collect::<Vec<_>>()
        .join(" / ");
    match (row.mouse, keys.is_empty()) {
        (Some(mouse), true) => mouse.to_string(),
        (Some(mouse), false) => format!("{mouse}, {keys}"),
        (None, _) => keys,
    }
}

/// The first key bound to `action` in `mode`, as the help writes it.
pub fn key_label(mode: Mode, action: Action) -> Option<String> {
    bindings(mode)
        .find(|(_, a)| *a == action)
        .map(|(chord, _)| label_of(chord.key))
}

/// The key that toggles an overlay, as the help writes it.
pub fn overlay_key(overlay: Overlay) -> String {
    key_label(Mode::Map, Action::Overlay(overlay)).unwrap_or_else(|| "-".to_string())
}

/// A mode's key list for a panel: each row with a short text, its keys padded to `keys`
/// characters, the text wrapped at `width` characters (continuations under the text).
pub fn key_list(mode: Mode, keys: usize, width: usize) -> Vec<String> {
    let plain = |k: &str| k.to_string();
    let mut lines = Vec::new();
    for row in TABLE.iter().filter(|r| r.modes.contains(&mode)) {
        let Some(help) = row.help else {
            continue;
        };
        let label = row_keys(row, &plain);
        let mut line = format!("{label:<keys$}");
        if label.len() >= keys {
            line.push(' ');
        }
        let mut words = 0;
        for word in help.split(' ') {
            if words > 0 && line.len() + 1 + word.len() > width {
                lines.push(std::mem::replace(&mut line, " ".repeat(keys)));
                words = 0;
            }
            if words > 0 {
                line.push(' ');
            }
            line.push_str(word);
            words += 1;
        }
        lines.push(line);
    }
    lines
}
