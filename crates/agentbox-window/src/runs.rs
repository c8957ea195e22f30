//! Replacing or saving the whole run: reset to the scene's start (R), the session list and
//! opening a saved session from it (Ctrl+O), saving the session (Ctrl+E) and saving the
//! painted map and tunables into the scene file (Ctrl+S). Each reports in the status bar (and
//! on stderr where a file was written or could not be).

use super::input::FrameInput;
use super::keymap::{Action, Actions};
use super::{paint, sessions, timeline, travel, Records, Window};
use agentbox_session::history::{self, History, Recording};
use agentbox_session::session::DrawFrame;
use std::path::Path;

/// What a saved session's replayed ticks left for the panels (the decision strip, the
/// console, the timeline's marks), as if they had run live, and where it asks to open (a
/// failing test's tick and agent).
pub(super) struct Opened {
    records: Records,
    track: timeline::Track,
    /// Whether the session names where to open (`open_at`): then it opens paused there.
    focused: bool,
    /// The agent to select, from the session's `open_at`.
    selected: Option<String>,
    /// The status line (also printed on stderr).
    status: String,
}

impl Opened {
    /// Puts what the replay left on the window's panels (its history is already live).
    pub(super) fn show(self, window: &mut Window) {
        window.travel.restart();
        window.travel.track = self.track;
        window.travel.forget_parked();
        window.records = self.records;
        window.painter = paint::Painter::default();
        if self.focused {
            window.clock.paused = true;
            window.pointer.selected = self.selected;
        }
        eprintln!("{}", self.status);
        window.panels.hud.status(self.status);
    }
}

/// Replays `rec` (read from `file`) to its last tick (a failure's session ends at the tick it
/// failed at) and makes it live.
pub(super) fn resume(rec: &Recording, file: &Path) -> Result<(History, Opened), String> {
    let selected = rec.focus.as_ref().and_then(|f| f.agent.clone());
    let mut records = Records::default();
    let mut track = timeline::Track::default();
    let mut history = History::resume_recording_with(rec, |session, report| {
        let world = session.world();
        let t = world.tick;
        records.after_tick(t, world, DrawFrame::default(), report, selected.as_deref());
        track.after_tick(t, report, world);
    })?;
    travel::keep_frames(&mut history);
    // A reach names an agent or a `spawn:` group's kind: then its first member is selected.
    let world = history.session().world();
    let selected = selected.and_then(|name| {
        let agent = world
            .agent(&name)
            .or_else(|| world.agents.iter().find(|a| a.kind == name));
        agent.map(|a| a.id.clone())
    });
    let status = match &rec.focus {
        Some(f) => format!(
            "opened {} at tick {}: {}",
            file.display(),
            history.ticks(),
            f.why
        ),
        None => format!("opened {} at tick {}", file.display(), history.ticks()),
    };
    let opened = Opened {
        records,
        track,
        focused: rec.focus.is_some(),
        selected,
        status,
    };
    Ok((history, opened))
}

impl Window {
    /// R: a new history from the scene's files as they are now.
    pub(super) fn reset(&mut self) {
        let recording = self.history.recording();
        match History::open(&recording.scene.clone(), recording.seed) {
            Ok(mut h) => {
                travel::keep_frames(&mut h);
                self.history = h;
                self.travel.restart();
                self.panels.tunables.forget();
                self.records.restart();
                self.panels.hud.status("reset to the scene's start".into());
            }
            Err(e) => self.panels.hud.failure(format!("cannot reset: {e}")),
        }
        self.painter = paint::Painter::default();
    }

    /// How long a frame of the run lasts, for a clip's frame delay: one tick with `--frames`
    /// (one tick a frame), else a 60 Hz display's frame.
    pub(super) fn frame_secs(&self) -> f64 {
        match self.options.frames {
            Some(_) => 1.0 / self.history.session().world().tick_rate.max(1) as f64,
            None => 1.0 / 60.0,
        }
    }

    /// F9: starts a clip to the next free `SCENE.clip-N.gif`, or ends the one recording.
    pub(super) fn toggle_clip(&mut self) {
        let scene = self.history.session().scene_path().to_path_buf();
        let said = self.clips.toggle(&scene, self.frame_secs());
        eprintln!("{said}");
        self.panels.hud.status(said);
    }

    /// Ctrl+S (or S in paint mode): one save for the painted rows and the tunables' values.
    pub(super) fn save_scene(&mut self) {
        let session = self.history.session();
        match session.save_tunables().and_then(|_| session.save_map()) {
            Ok(()) => {
                self.painter.dirty = false;
                self.panels.hud.status(format!(
                    "saved the map and tunables into {}",
                    session.scene_path().display()
                ));
            }
            Err(e) => {
                eprintln!("{e}");
                self.panels.hud.failure(format!("cannot save: {e}"));
            }
        }
    }

    /// Ctrl+O opens the session list; while it is open it takes every key and click (arrows,
    /// Enter or a click open a session, Esc closes). True if it took this frame's input.
    pub(super) fn handle_picker(&mut self, input: &FrameInput, keys: &Actions) -> bool {
        let Some(picker) = self.panels.picker.as_mut() else {
            if keys.has(Action::OpenSessions) {
                let scene = self.history.session().scene_path();
                self.panels.picker = Some(sessions::Picker::new(scene));
                return true;
            }
            return false;
        };
        match picker.handle(input, keys) {
            sessions::Choice::Stay => {}
            sessions::Choice::Close => self.panels.picker = None,
            sessions::Choice::Open(file) => {
                self.panels.picker = None;
                self.open_session(&file);
            }
        }
        true
    }

    /// Opens a saved session: its run replayed to its last tick becomes the live one.
    fn open_session(&mut self, file: &Path) {
        let opened = history::load_recording(file)
            .map_err(|e| e.to_string())
            .and_then(|rec| resume(&rec, file));
        match opened {
            Ok((history, opened)) => {
                self.history = history;
                // Ctrl+O always opens paused (a focused session also selects its agent).
                self.clock.paused = true;
                opened.show(self);
            }
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                let status = format!("cannot open {}: {e}", file.display());
                self.panels.hud.status(status);
            }
        }
    }

    /// Ctrl+E: writes the session file beside the scene and prints the branch's headless
    /// command.
    pub(super) fn save_session(&mut self) {
        let scene = self.history.session().scene_path().to_path_buf();
        let file = scene.with_extension("session.json");
        if let Err(e) = history::save_recording(self.history.recording(), &file) {
            eprintln!("{e}");
            self.panels.hud.failure(e.to_string());
            return;
        }
        let dir = scene.with_extension("branch");
        match history::export_branch(self.history.recording(), &dir) {
            Ok(c) => {
                eprintln!("saved {}\n{c}", file.display());
                let status = format!("saved {}; branch: {c}", file.display());
                self.panels.hud.status(status);
            }
            Err(e) => {
                eprintln!("saved {} ({e})", file.display());
                self.panels
                    .hud
                    .failure(format!("saved {} ({e})", file.display()));
            }
        }
    }
}
