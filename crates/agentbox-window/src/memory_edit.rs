//! Editing the inspected agent's `self.memory` in the window: a click on a number, string or
//! boolean of the inspector's memory view, at the top level or in a table inside it, opens the prompt line with its value, and
//! Enter sets it through the history (`History::set_memory`), recorded as a `set_memory`
//! input so a replay, a rewind and a saved session set it on the same tick. A value that does
//! not read as the kind it replaces changes nothing and says why in the status line.
//!
//! It never touches the Lua state itself: the history's session does, between ticks.

use super::inspect;
use super::questions::{memory_path_text, memory_value, Prompt};
use super::Window;
use macroquad::prelude::Vec2;

impl Window {
    /// A click at `mouse` on a memory value of the inspected agent: opens its prompt (in the
    /// past, says Space branches first). True if the click was on one.
    pub(super) fn click_memory(&mut self, mouse: Vec2) -> bool {
        let Some(id) = self.pointer.selected.clone() else {
            return false;
        };
        let shown = self.travel.shown(&self.history);
        let Some((path, was)) = inspect::memory_value_at(shown, &id, mouse) else {
            return false;
        };
        if !self.refused_in_past() {
            self.questions.open_memory(&id, path, was);
        }
        true
    }

    /// Enter in a memory prompt: the typed value set from the next tick, or why not.
    pub(super) fn submit_memory(&mut self, prompt: Prompt) {
        let Some(edit) = prompt.memory else {
            return;
        };
        let name = format!(
            "{}'s self.memory{}",
            edit.agent,
            memory_path_text(&edit.path)
        );
        let set = memory_value(&edit.was, &prompt.text).and_then(|value| {
            let shown = value.to_string();
            (self.history.set_memory(&edit.agent, &edit.path, value)).map(|()| shown)
        });
        // On stderr too, so a replayed run says it.
        match set {
            Ok(shown) => {
                let line = format!("{name} = {shown} from the next tick");
                eprintln!("{line}");
                self.panels.hud.status(line);
            }
            Err(e) => {
                let line = format!("{name} not set: {e}; nothing changed");
                eprintln!("{line}");
                self.panels.hud.failure(line);
            }
        }
    }
}
