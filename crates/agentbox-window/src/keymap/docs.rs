//! `docs/keys.md`, generated from the keymap: a test compares the committed file with
//! [`markdown`] and, under `BLESS=1`, rewrites it. Nothing else reads this module.

use super::{row_keys, Chord, Key, Mode, Need, Row, TABLE};
use crate::overlays::ALL;
use macroquad::prelude::KeyCode;

/// Every mode, in the order the page lists them.
pub const MODES: [Mode; 5] = [
    Mode::Map,
    Mode::Message,
    Mode::Sessions,
    Mode::Search,
    Mode::Prompt,
];

/// The page's path, from this crate.
const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/keys.md");

const INTRO: &str = "\
# Keys and mouse in the window

<!-- Generated from crates/agentbox-window/src/keymap/table.rs: edit the table there, then
     run BLESS=1 cargo test -p agentbox-window keys_md to rewrite this page. -->

One plan for every key and mouse action, so new features take free keys and nothing is bound
twice. One table, `crates/agentbox-window/src/keymap/table.rs`, holds every binding: the
window's dispatch reads it, the F1 help and the search panel list it, and this page is
generated from it (`cargo test -p agentbox-window` fails when the page is stale;
`BLESS=1 cargo test -p agentbox-window keys_md` rewrites it).

A key works with Ctrl and Shift held too unless its row writes `Ctrl+` or `Shift+`, or the
same key with Ctrl has a row of its own.
";

/// A mode's heading and what to say under its table.
fn heading(mode: Mode) -> (&'static str, &'static str) {
    match mode {
        Mode::Map => (
            "The map",
            "`agentbox run SCENE --session FILE` opens a saved session and replays it to its last tick.",
        ),
        Mode::Message => (
            "An error message shown whole",
            "A click on an error in the list opens it; while it is open, held keys still drive keyboard agents and other keys wait.",
        ),
        Mode::Sessions => (
            "The session list (Ctrl+O)",
            "While the list is open it takes every key and click.",
        ),
        Mode::Search => (
            "The search mode (Q)",
            "A change of algorithm, heuristic or diagonal rule runs the query again and keeps the \
             step count, so the same moment of two searches can be compared; a new start or goal \
             starts at step 0. The simulation pauses while the mode is open, and the search works \
             on a copy of the map taken when it opened. In `--record`/`--input` files a click's \
             `at` is in the tiles of the first pane (top or left; the other pane is the same view \
             one pane further).",
        ),
        Mode::Prompt => (
            "The question prompt (Ctrl+W, `/`, Ctrl+B, `` ` ``)",
            "While the prompt is open it takes every key; what is typed goes into its line (in `--record`/`--input` files as `{\"frame\": 5, \"text\": \"world:tick()\"}`).",
        ),
    }
}

/// A key for markdown: punctuation in a code span.
fn code_span(key: &str) -> String {
    if key.chars().all(|c| c.is_ascii_alphanumeric()) {
        key.to_string()
    } else if key.contains('`') {
        format!("`` {key} ``")
    } else {
        format!("`{key}`")
    }
}

fn table(rows: &[&Row]) -> String {
    let mut out = String::from("| keys | what |\n| --- | --- |\n");
    for row in rows {
        out.push_str(&format!(
            "| {} | {} |\n",
            row_keys(row, &code_span),
            row.what
        ));
    }
    out
}

fn overlays() -> String {
    let mut out = String::from(
        "### Overlays\n\n\
         Each overlay explains one kind of decision; its key turns it on and off.\n\n\
         | key | overlay | what it shows |\n| --- | --- | --- |\n",
    );
    for (overlay, name, what) in ALL {
        let key = super::overlay_key(overlay);
        out.push_str(&format!("| {} | {name} | {what} |\n", code_span(&key)));
    }
    out
}

/// The names `--record` writes and `--input` reads.
fn recorded_names() -> String {
    let names: Vec<String> = crate::input::KEYS
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect();
    format!(
        "## Key names in recorded input\n\n\
         `--record` writes keys, and `--input` reads them, by these names (`input.rs`); they \
         never change, so old recordings replay: {}. See `input.rs` for the file's format.\n",
        names.join(", ")
    )
}

/// Keys a new binding could take: free in the map (and where the search mode uses them).
fn free_keys() -> String {
    let candidates: Vec<KeyCode> = crate::input::KEYS
        .iter()
        .map(|(_, code)| *code)
        .filter(|code| {
            let name = format!("{code:?}");
            name.len() == 1 || matches!(code, KeyCode::Delete | KeyCode::Backspace | KeyCode::Enter)
        })
        .collect();
    let bound = |mode: Mode, code: KeyCode, ctrl: bool| {
        super::bindings(mode).any(|(chord, _): (Chord, _)| {
            chord.key == Key::Code(code) && (chord.ctrl == Need::Held) == ctrl
        })
    };
    let mut free = Vec::new();
    let mut search_only = Vec::new();
    for &code in &candidates {
        if bound(Mode::Map, code, false) {
            continue;
        }
        let name = super::label_of(Key::Code(code));
        let name = if bound(Mode::Map, code, true) {
            format!("{} (Ctrl+{name} is taken)", code_span(&name))
        } else {
            code_span(&name)
        };
        if bound(Mode::Search, code, false) {
            search_only.push(name.clone());
        }
        free.push(name);
    }
    let ctrl: Vec<String> = super::bindings(Mode::Map)
        .filter(|(chord, _)| chord.ctrl == Need::Held)
        .map(|(chord, _)| super::chord_name(&chord, &code_span))
        .collect();
    format!(
        "## Free keys\n\n\
         Free in the map, among the keys recorded input can name: {}. Of these the search mode \
         uses {}. Taken with Ctrl: {}; other keys with Ctrl or Shift are free.\n",
        free.join(", "),
        search_only.join(", "),
        ctrl.join(", ")
    )
}

/// The whole page.
pub fn markdown() -> String {
    let mut out = String::from(INTRO);
    for mode in MODES {
        let (title, note) = heading(mode);
        let rows: Vec<&Row> = TABLE.iter().filter(|r| r.modes.contains(&mode)).collect();
        out.push_str(&format!("\n## {title}\n\n{}", table(&rows)));
        if mode == Mode::Map {
            out.push('\n');
            out.push_str(&overlays());
        }
        out.push_str(&format!("\n{note}\n"));
    }
    out.push('\n');
    out.push_str(&recorded_names());
    out.push('\n');
    out.push_str(&free_keys());
    out
}

/// `docs/keys.md` is the table's: run `BLESS=1 cargo test -p agentbox-window keys_md` after
/// changing the keymap.
#[test]
fn keys_md_is_current() {
    let want = markdown();
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        std::fs::write(PATH, &want).expect("docs/keys.md written");
        return;
    }
    let have = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        have == want,
        "docs/keys.md is not the keymap's: run BLESS=1 cargo test -p agentbox-window keys_md"
    );
}
