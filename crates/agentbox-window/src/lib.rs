//! Rendering: the designer's window. The only module that names macroquad. It draws the map,
//! the agents, the debug overlays, the HUD and panels; it turns input (live, or replayed from
//! a file) into time control, camera moves, inspection and edits, and drives the `Session`
//! with fixed simulation steps whatever the frame rate. It changes the world only through the
//! session (ticks, reloads, reset, paint, drag, goal).

mod agents;
mod camera;
mod console;
mod decisions;
mod drawings;
mod help;
mod hud;
mod input;
mod inspect;
mod keymap;
mod labels;
mod map_texture;
mod overlays;
mod paint;
mod palette;
mod plots;
mod search_view;
mod sessions;
mod text;
mod timeline;
mod tunables;

use agentbox_session::history::{History, Shown};
use agentbox_session::watch::FileWatcher;
use camera::Camera;
use input::{FrameInput, Source};
use keymap::{Action, Actions, Dir, Mode};
use macroquad::prelude::*;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How the window runs.
#[derive(Clone, Debug, Default)]
pub struct WindowOptions {
    /// Save a PNG of the last frame here.
    pub screenshot: Option<PathBuf>,
    /// Quit after this many frames, running ticks by frame count instead of the clock.
    pub frames: Option<u64>,
    /// Replay input from this file (see `input.rs` for the format).
    pub input: Option<PathBuf>,
    /// Record live input to this file, for replays and bug reports.
    pub record: Option<PathBuf>,
    /// Print frame-building times when the window closes.
    pub frame_stats: bool,
    /// Open this saved session (its recorded run, replayed to its last tick) instead of
    /// starting the scene afresh.
    pub session: Option<PathBuf>,
}

/// Simulation speeds the `[` and `]` keys step through.
const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// Why the window cannot open, in words a user can act on.
fn no_display_message() -> Option<String> {
    let has = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if cfg!(target_os = "linux") && !has("DISPLAY") && !has("WAYLAND_DISPLAY") {
        return Some(
            "error: agentbox run needs a display, and none was found (DISPLAY is not set).\n\
             Run without a window: agentbox headless SCENE --ticks N --trace -\n\
             Or under a virtual display: xvfb-run -a agentbox run SCENE"
                .to_string(),
        );
    }
    None
}

/// Opens the window on a scene and runs until Esc, the window closing, or `--frames`.
pub fn run_window(scene: &Path, seed: Option<u64>, options: WindowOptions) -> Result<(), String> {
    if let Some(message) = no_display_message() {
        return Err(message);
    }
    let source = match &options.input {
        Some(path) => input::load_replay(path)?,
        None => Source::Live,
    };
    let recorder = match &options.record {
        Some(path) => Some(input::Recorder::create(path)?),
        None => None,
    };
    let mut history = match &options.session {
        Some(file) => History::resume_recording(&agentbox_session::history::load_recording(file)?)?,
        None => History::open(scene, seed)?,
    };
    timeline::keep_frames(&mut history);
    let outcome: Rc<RefCell<Result<(), String>>> = Rc::new(RefCell::new(Ok(())));
    let result = Rc::clone(&outcome);
    let conf = Conf {
        window_title: format!("agentbox — {}", history.session().world().name),
        window_width: 1024,
        window_height: 768,
        high_dpi: true,
        window_resizable: true,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        let window = Window {
            history,
            view: None,
            track: timeline::Track::default(),
            ghost: Vec::new(),
            ghost_at: 0,
            show_ghost: true,
            scrubbing: false,
            parked: agentbox_session::history::Parked::new(timeline::PARK_EVERY),
            picker: None,
            options,
            source,
            recorder,
            camera: Camera::new(),
            overlays: overlays::Overlays::default(),
            painter: paint::Painter::default(),
            hud: hud::Hud::default(),
            help: false,
            selected: None,
            hovered: None,
            dragging: None,
            paused: false,
            speed: 2,
            carry: 0.0,
            step_once: false,
            last_mouse: None,
            tunables: tunables::Panel::default(),
            plots: plots::Plots::default(),
            console: console::Console::default(),
            decisions: decisions::Decisions::default(),
            drawn: drawings::Record::default(),
            show_labels: true,
            show_drawings: false,
            search: search_view::SearchMode::default(),
        };
        *result.borrow_mut() = window.run().await;
    });
    Rc::try_unwrap(outcome)
        .map(RefCell::into_inner)
        .unwrap_or(Ok(()))
}

struct Window {
    /// The live run and its history.
    history: History,
    /// The tick shown while the designer looks at the past.
    view: Option<timeline::View>,
    /// The live branch's marks and trails, for the timeline and the ghost.
    track: timeline::Track,
    /// The trails of the last abandoned branch, after its branch point, and that tick.
    ghost: Vec<Vec<[f32; 2]>>,
    ghost_at: u64,
    show_ghost: bool,
    /// A left press on the timeline is being dragged.
    scrubbing: bool,
    /// Replays parked along the history, so a jump replays a few seconds, not all of it.
    parked: agentbox_session::history::Parked,
    /// The session list (Ctrl+O), while open.
    picker: Option<sessions::Picker>,
    options: WindowOptions,
    source: Source,
    recorder: Option<input::Recorder>,
    camera: Camera,
    overlays: overlays::Overlays,
    painter: paint::Painter,
    hud: hud::Hud,
    help: bool,
    selected: Option<String>,
    /// The agent under the mouse (labelled whatever the zoom).
    hovered: Option<String>,
    /// The agent under the last left press, and where the press was (it becomes a drag only
    /// once the mouse has moved, so a click on a moving agent just selects it).
    dragging: Option<(String, Vec2)>,
    paused: bool,
    /// Index into `SPEEDS`.
    speed: usize,
    /// Ticks owed to the simulation (fractional).
    carry: f64,
    step_once: bool,
    last_mouse: Option<Vec2>,
    /// The tunables and plots panel (Tab or J).
    tunables: tunables::Panel,
    plots: plots::Plots,
    /// What scripts printed (C).
    console: console::Console,
    /// Each agent's decision history, for the inspector's strip.
    decisions: decisions::Decisions,
    /// What scripts drew and the sight queries they made, per live tick.
    drawn: drawings::Record,
    /// State labels over the agents (L).
    show_labels: bool,
    /// The scripts' `draw.*` shapes (V).
    show_drawings: bool,
    /// The search mode (Q): watch A* and JPS step by step.
    search: search_view::SearchMode,
}

impl Window {
    async fn run(mut self) -> Result<(), String> {
        let mut watcher = FileWatcher::new();
        watcher.watch(&self.history.session().watched_files());
        let mut map = map_texture::MapTexture::default();
        let disc = agents::Disc::new();
        let mut frame = 0u64;
        let mut build_times = Vec::new();
        let mut draw_times = Vec::new();
        loop {
            let started = std::time::Instant::now();
            self.camera.update(
                shown_of(&self.view, &self.history).world(),
                screen_width(),
                screen_height(),
            );
            let input = self.source.frame(frame, &self.camera);
            if let Some(r) = self.recorder.as_mut() {
                r.record(frame, &input, &self.camera);
            }
            if is_quit_requested() || !self.handle(&input) {
                break;
            }
            for reload in self.history.sync(&mut watcher) {
                eprintln!("{reload}");
                self.hud.status(reload.to_string());
            }
            self.advance();
            if self.history.session().world().agents.len() <= timeline::TRAIL_AGENTS {
                if let Err(e) = self
                    .parked
                    .work(self.history.recording(), timeline::PARK_BUDGET)
                {
                    self.hud.status(e);
                }
            }

            let drawing = std::time::Instant::now();
            clear_background(Color::from_rgba(0x1e, 0x20, 0x26, 0xff));
            let shown = shown_of(&self.view, &self.history);
            map.draw(shown.world(), &self.camera);
            if self.show_ghost {
                timeline::draw_ghost(&self.ghost, &self.camera);
            }
            self.overlays
                .draw_under(shown.world(), &self.camera, self.selected.as_deref());
            agents::draw(
                shown.world(),
                &self.camera,
                &disc,
                self.selected.as_deref(),
                self.hovered.as_deref(),
            );
            self.overlays.draw_over(shown.world(), &self.camera);
            let frame_drawn = self.drawn.at(self.shown_tick());
            if let Some(frame_drawn) = frame_drawn {
                if self.show_drawings {
                    drawings::draw_shapes(frame_drawn, &self.camera);
                }
                if self.overlays.on.contains(&overlays::Overlay::Sight) {
                    drawings::draw_queries(&frame_drawn.queries, &self.camera);
                }
            }
            if self.show_labels {
                labels::draw(shown.world(), &self.camera);
            }
            if self.search.open {
                self.search.draw(&mut map, &self.camera);
            }
            self.draw_panels();
            self.draw_widgets();
            build_times.push(started.elapsed().as_secs_f64() * 1000.0);
            draw_times.push(drawing.elapsed().as_secs_f64() * 1000.0);

            frame += 1;
            if self.options.frames.is_some_and(|n| frame >= n) {
                if let Some(path) = &self.options.screenshot {
                    save_screenshot(path);
                }
                break;
            }
            next_frame().await;
        }
        if self.options.frame_stats {
            let agents = self.history.session().world().agents.len();
            print_frame_stats(
                "whole frame (input, ticks, drawing)",
                &mut build_times,
                agents,
            );
            print_frame_stats("drawing only", &mut draw_times, agents);
        }
        Ok(())
    }

    /// Runs the ticks this frame owes: by the clock, or one per frame (times the speed) in
    /// `--frames` runs so screenshots are reproducible.
    fn advance(&mut self) {
        let dt = self.history.session().world().dt();
        let speed = SPEEDS[self.speed];
        if self.step_once {
            self.step_once = false;
            self.live_tick();
            return;
        }
        if self.view.is_some() {
            // Looking at the past: the live run waits (Space branches).
            self.carry = 0.0;
            return;
        }
        if self.paused {
            self.carry = 0.0;
            return;
        }
        if self.options.frames.is_some() {
            self.carry += speed;
        } else {
            self.carry += (get_frame_time() as f64).min(0.25) * speed / dt;
        }
        // Never fall into a spiral: at most 64 ticks in one frame.
        let mut n = 0;
        while self.carry >= 1.0 && n < 64 {
            self.live_tick();
            self.carry -= 1.0;
            n += 1;
        }
        self.carry = self.carry.min(1.0);
    }

    /// The tick shown: the past one while looking at the past, else the live session.
    fn shown(&self) -> &dyn Shown {
        shown_of(&self.view, &self.history)
    }

    /// Whether the window shows a tick before the live end.
    fn in_past(&self) -> bool {
        self.view.is_some()
    }

    /// The tick shown.
    fn shown_tick(&self) -> u64 {
        self.view
            .as_ref()
            .map_or(self.history.ticks(), timeline::View::tick)
    }

    /// One live tick, with its marks and trails kept for the timeline and the ghost.
    fn live_tick(&mut self) {
        if self.view.is_some() {
            return;
        }
        // Scripts' shapes and sight queries are collected for the live run only (display
        // only: collecting never changes the run); set on every tick, as a branch or a reset
        // puts another session live.
        self.history.session_mut().set_drawing(true);
        let report = self.history.tick();
        self.plots.after_tick(&mut self.history);
        let t = self.history.ticks();
        let drawn = self.history.session_mut().take_drawn();
        {
            let world = self.history.session().world();
            for (agent, problem) in &drawn.problems {
                let id = world.agents.get(*agent).map_or("?", |a| a.id.as_str());
                self.console.push(t, id, problem);
            }
            self.decisions.record(t, world, self.selected.as_deref());
        }
        self.drawn.keep(t, drawn);
        for (agent, text) in report.prints() {
            self.console.push(t, agent, text);
            self.decisions.print(t, agent, text);
        }
        let mut marks = std::collections::BTreeSet::new();
        for (_, e) in &report.new_errors {
            marks.insert(match e.kind {
                agentbox_core::world::ErrorKind::Budget
                | agentbox_core::world::ErrorKind::Memory
                | agentbox_core::world::ErrorKind::Suspended => timeline::Mark::Suspended,
                _ => timeline::Mark::Error,
            });
        }
        if report.has_contact() {
            marks.insert(timeline::Mark::Contact);
        }
        self.track.marks.extend(marks.into_iter().map(|m| (t, m)));
        let world = self.history.session().world();
        if world.agents.len() <= timeline::TRAIL_AGENTS {
            self.track.trails.push(
                world
                    .agents
                    .iter()
                    .map(|a| [a.pos.x as f32, a.pos.y as f32])
                    .collect(),
            );
        }
    }

    /// Shows tick `to` (the live end shows the live session); pauses.
    fn set_view(&mut self, to: u64) {
        self.paused = true;
        let last = self.history.ticks();
        if to >= last {
            self.view = None;
            return;
        }
        if let Some(frame) = self.history.frame(to) {
            self.view = Some(timeline::View::Frame(Box::new(frame)));
            return;
        }
        let reuse = match self.view.take() {
            Some(timeline::View::Replay(r))
                if r.tick() <= to && r.follows(self.history.recording()) =>
            {
                Some(*r)
            }
            _ => None,
        };
        let replayer = match reuse {
            Some(r) => Ok(r),
            None => self.parked.take(self.history.recording(), to),
        };
        let moved = replayer.and_then(|mut r| r.advance_to(to, |_, _| {}).map(|()| r));
        match moved {
            Ok(r) => self.view = Some(timeline::View::Replay(Box::new(r))),
            Err(e) => {
                eprintln!("{e}");
                self.hud.status(format!("cannot show tick {to}: {e}"));
            }
        }
    }

    /// Space at a past tick: the replay there becomes the live run, with today's files.
    fn branch_here(&mut self) {
        let replayer = match self.view.take() {
            None => return,
            Some(timeline::View::Replay(r)) => *r,
            // A frame has no Lua state: the replay parked below goes on to its tick.
            Some(timeline::View::Frame(f)) => {
                match self.parked.take(self.history.recording(), f.tick) {
                    Ok(r) => r,
                    Err(e) => {
                        self.hud
                            .status(format!("cannot branch at tick {}: {e}", f.tick));
                        self.view = Some(timeline::View::Frame(f));
                        return;
                    }
                }
            }
        };
        let at = replayer.tick();
        // Play after a rewind uses the sliders' values as they are now.
        let live = self.history.session();
        let now: Vec<(String, f64)> = live
            .scene()
            .tunables
            .iter()
            .map(|t| (t.name.clone(), live.tunable_value(t)))
            .collect();
        let (_, reloads) = self.history.branch_from(replayer);
        for (name, value) in now {
            let t = self
                .history
                .session()
                .scene()
                .tunables
                .iter()
                .find(|t| t.name == name)
                .cloned();
            if t.is_some_and(|t| self.history.session().tunable_value(&t) != value) {
                self.history.set_tunable(&name, value);
            }
        }
        self.plots.cut(at);
        let ghost = self.track.cut(at);
        self.console.cut(at);
        self.decisions.cut(at);
        self.drawn.cut(at);
        if !ghost.is_empty() {
            self.ghost = ghost;
            self.ghost_at = at;
        }
        let mut status = format!("branched at tick {at}");
        for reload in &reloads {
            eprintln!("{reload}");
            status = format!("{status}; {reload}");
        }
        self.hud.status(status);
        self.paused = false;
    }

    /// Keys for time: pause/branch, stepping and jumping, the ghost, saving the session.
    fn handle_time_keys(&mut self, input: &FrameInput, keys: &Actions) {
        if keys.has(Action::PlayPause) {
            if self.in_past() {
                self.branch_here();
            } else {
                self.paused = !self.paused;
            }
        }
        let rate = self.history.session().world().tick_rate.max(1) as u64;
        let step = if input.ctrl {
            10 * rate
        } else if input.shift {
            rate
        } else {
            1
        };
        if keys.has(Action::StepBack) {
            let to = self.shown_tick().saturating_sub(step);
            self.set_view(to);
        }
        if keys.has(Action::StepForward) && self.paused {
            if self.in_past() {
                let to = self.shown_tick() + step;
                self.set_view(to);
            } else {
                self.step_once = true;
            }
        }
        if keys.has(Action::ToEnd) {
            self.view = None;
        }
        if keys.has(Action::ToggleGhost) {
            self.show_ghost = !self.show_ghost;
            self.hud.status(format!(
                "ghost {}",
                if self.show_ghost { "shown" } else { "hidden" }
            ));
        }
        if keys.has(Action::SaveSession) {
            self.save_session();
        }
    }

    /// A left press on the timeline scrubs while it is held; true if the timeline took it.
    fn handle_timeline(&mut self, input: &FrameInput) -> bool {
        if input.button_pressed[0] && timeline::rect().contains(input.mouse) {
            self.scrubbing = true;
        }
        if !self.scrubbing {
            return false;
        }
        if input.button_down[0] || input.button_pressed[0] || input.button_released[0] {
            let to = timeline::tick_at(input.mouse.x, self.bar_span());
            if to != self.shown_tick() || !self.paused {
                self.set_view(to);
            }
        }
        if input.button_released[0] || !input.button_down[0] {
            self.scrubbing = false;
        }
        true
    }

    /// The ticks the bar's scale spans (the live branch, or the ghost when it is longer);
    /// scrubbing reaches the live branch's ticks.
    fn bar_span(&self) -> u64 {
        let ghost = (self.show_ghost && !self.ghost.is_empty())
            .then(|| self.ghost_at + self.ghost.len() as u64);
        self.history.ticks().max(ghost.unwrap_or(0))
    }

    /// Paints every egui widget in one egui frame per window frame (egui-macroquad allows
    /// one): each panel is a function taking the frame's `egui::Context`. Widgets only paint;
    /// clicks and drags on them are read from the window's own input (`input.rs`), so recorded
    /// and replayed input drives them like the live mouse.
    fn draw_widgets(&self) {
        let reloads = self.history.recording().reload_ticks();
        let ghost = (self.show_ghost && !self.ghost.is_empty())
            .then(|| (self.ghost_at, self.ghost_at + self.ghost.len() as u64));
        let bar = timeline::Bar {
            last: self.history.ticks(),
            shown: self.shown_tick(),
            reloads: &reloads,
            marks: &self.track.marks,
            ghost,
            tick_rate: self.history.session().world().tick_rate,
        };
        let search = self.search.open.then(|| self.search.panel());
        let panel = (self.tunables.open && search.is_none()).then(|| {
            tunables::View::of(
                self.history.session(),
                shown_of(&self.view, &self.history).world(),
                self.in_past(),
            )
        });
        let shown = self.shown_tick();
        let strip = self.selected.as_deref().map(|agent| decisions::Strip {
            decisions: &self.decisions,
            agent,
            last: self.history.ticks(),
            shown: self.shown_tick(),
        });
        egui_macroquad::ui(|ctx| {
            timeline::paint(ctx, &bar);
            if let Some(picker) = &self.picker {
                sessions::paint(ctx, picker);
            }
            if let Some(view) = &panel {
                tunables::paint(ctx, view);
                plots::paint(
                    ctx,
                    &self.plots,
                    tunables::bottom(view.rows.len()) + 8.0,
                    shown,
                );
            }
            if let Some(strip) = &strip {
                decisions::paint(ctx, strip);
            }
            self.console.paint(ctx);
            if let Some(view) = &search {
                search_view::paint(ctx, view);
            }
        });
        egui_macroquad::draw();
    }

    /// Ctrl+O opens the session list; while it is open it takes every key and click (arrows,
    /// Enter or a click open a session, Esc closes). True if it took this frame's input.
    fn handle_picker(&mut self, input: &FrameInput, keys: &Actions) -> bool {
        if self.picker.is_none() {
            if keys.has(Action::OpenSessions) {
                self.picker = Some(sessions::Picker::new(self.history.session().scene_path()));
                return true;
            }
            return false;
        }
        let choice = match self.picker.as_mut() {
            Some(p) => p.handle(input, keys),
            None => return false,
        };
        match choice {
            sessions::Choice::Stay => {}
            sessions::Choice::Close => self.picker = None,
            sessions::Choice::Open(file) => {
                self.picker = None;
                self.open_session(&file);
            }
        }
        true
    }

    /// Opens a saved session: its run replayed to its last tick becomes the live one.
    fn open_session(&mut self, file: &Path) {
        let opened = agentbox_session::history::load_recording(file)
            .and_then(|rec| History::resume_recording(&rec));
        match opened {
            Ok(mut h) => {
                timeline::keep_frames(&mut h);
                self.history = h;
                self.view = None;
                self.track = timeline::Track::default();
                self.ghost.clear();
                self.parked = agentbox_session::history::Parked::new(timeline::PARK_EVERY);
                self.painter = paint::Painter::default();
                self.paused = true;
                let status = format!("opened {} at tick {}", file.display(), self.history.ticks());
                eprintln!("{status}");
                self.hud.status(status);
            }
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                self.hud
                    .status(format!("cannot open {}: {e}", file.display()));
            }
        }
    }

    /// Ctrl+E: writes the session file beside the scene and prints the branch's headless
    /// command.
    fn save_session(&mut self) {
        let scene = self.history.session().scene_path().to_path_buf();
        let file = scene.with_extension("session.json");
        match agentbox_session::history::save_recording(self.history.recording(), &file) {
            Ok(()) => {
                let dir = scene.with_extension("branch");
                let command =
                    agentbox_session::history::export_branch(self.history.recording(), &dir);
                match command {
                    Ok(c) => {
                        eprintln!("saved {}\n{c}", file.display());
                        self.hud
                            .status(format!("saved {}; branch: {c}", file.display()));
                    }
                    Err(e) => {
                        eprintln!("saved {} ({e})", file.display());
                        self.hud.status(format!("saved {} ({e})", file.display()));
                    }
                }
            }
            Err(e) => {
                eprintln!("{e}");
                self.hud.status(e);
            }
        }
    }

    /// Who takes this frame's keys.
    fn mode(&self) -> Mode {
        if self.picker.is_some() {
            Mode::Sessions
        } else if self.search.open {
            Mode::Search
        } else if self.hud.expanded.is_some() {
            Mode::Message
        } else {
            Mode::Map
        }
    }

    /// Applies one frame of input; false to quit.
    fn handle(&mut self, input: &FrameInput) -> bool {
        let mode = self.mode();
        let keys = Actions::of(input, mode);
        if self.handle_picker(input, &keys) {
            return true;
        }
        if mode == Mode::Search {
            self.handle_search(input, &keys);
            return true;
        }
        let dir = keyboard_direction(&Actions::held(input, mode), !self.painter.active);
        if self.view.is_none() {
            self.history.set_keyboard(dir);
        }
        if mode == Mode::Message {
            if input.button_pressed[0] || keys.has(Action::Close) {
                self.hud.expanded = None;
            }
            return true;
        }
        if keys.has(Action::Close) {
            if self.help {
                self.help = false;
            } else if self.selected.is_some() {
                self.selected = None;
            } else {
                return false;
            }
        }
        if keys.has(Action::Help) {
            self.help = !self.help;
        }
        self.handle_keys(input, &keys);
        self.handle_mouse(input);
        true
    }

    fn handle_keys(&mut self, input: &FrameInput, keys: &Actions) {
        self.handle_time_keys(input, keys);
        if keys.has(Action::Slower) {
            self.speed = self.speed.saturating_sub(1);
        }
        if keys.has(Action::Faster) {
            self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
        }
        if keys.has(Action::Resume) {
            if let Some(id) = self.selected.clone() {
                if self.in_past() {
                    // Nothing to do: the past is not edited (Space branches first).
                } else if self.history.resume(&id) {
                    self.hud.status(format!("resumed {id}"));
                }
            }
        }
        if keys.has(Action::Reset) {
            match History::open(
                &self.history.recording().scene.clone(),
                self.history.recording().seed,
            ) {
                Ok(mut h) => {
                    timeline::keep_frames(&mut h);
                    self.history = h;
                    self.view = None;
                    self.track = timeline::Track::default();
                    self.ghost.clear();
                    self.tunables.forget();
                    self.plots.cut(0);
                    self.decisions.clear();
                    self.drawn = drawings::Record::default();
                    self.hud.status("reset to the scene's start".into());
                }
                Err(e) => self.hud.status(format!("cannot reset: {e}")),
            }
            self.painter = paint::Painter::default();
        }
        if keys.has(Action::ToggleConsole) {
            self.console.open = !self.console.open;
        }
        if keys.has(Action::ToggleSearch) {
            self.enter_search();
        }
        if keys.has(Action::ToggleLabels) {
            self.show_labels = !self.show_labels;
            self.hud.status(format!(
                "labels {}",
                if self.show_labels { "shown" } else { "hidden" }
            ));
        }
        if keys.has(Action::ToggleDrawings) {
            self.show_drawings = !self.show_drawings;
            self.hud.status(format!(
                "debug drawing {}",
                if self.show_drawings { "on" } else { "off" }
            ));
        }
        if keys.has(Action::Fit) {
            self.camera.fit(shown_of(&self.view, &self.history).world());
        }
        if keys.has(Action::ZoomIn) {
            self.camera.zoom_at(input.mouse, 1.25);
        }
        if keys.has(Action::ZoomOut) {
            self.camera.zoom_at(input.mouse, 0.8);
        }
        for action in keys.iter() {
            if let Action::Overlay(overlay) = action {
                let (name, on) = self.overlays.toggle(overlay);
                self.hud
                    .status(format!("overlay {name} {}", if on { "on" } else { "off" }));
            }
        }
        if keys.has(Action::TogglePaint) {
            self.painter.active = !self.painter.active;
            self.painter.end_stroke();
        }
        if keys.has(Action::NextBrush) {
            let id = self.painter.next_brush(self.history.session().world());
            let name = self
                .history
                .session()
                .world()
                .terrain()
                .get(id)
                .name
                .clone();
            self.hud.status(format!("brush: {name}"));
        }
        if keys.has(Action::ToggleTunables) {
            self.tunables.open = !self.tunables.open;
        }
        if keys.has(Action::Undo) && self.tunables.open {
            let undone = if self.in_past() {
                None
            } else {
                self.tunables.undo(&mut self.history)
            };
            self.hud
                .status(undone.unwrap_or_else(|| "no tunable change to undo".into()));
        } else if keys.has(Action::Undo) {
            let undone = !self.in_past() && self.painter.undo(&mut self.history);
            self.hud.status(if undone {
                "undone".into()
            } else {
                "nothing to undo".into()
            });
        }
        // S saves in paint mode (outside it, S is "down" for keyboard agents); Ctrl+S always.
        if keys.has(Action::Save)
            || (keys.has(Action::SaveInPaintMode)
                && self.painter.active
                && !self.painter.active_drag(input))
        {
            // One save for the painted rows and the tunables' values.
            let saved = self
                .history
                .session()
                .save_tunables()
                .and_then(|_| self.history.session().save_map());
            match saved {
                Ok(()) => {
                    self.painter.dirty = false;
                    self.hud.status(format!(
                        "saved the map and tunables into {}",
                        self.history.session().scene_path().display()
                    ));
                }
                Err(e) => {
                    eprintln!("{e}");
                    self.hud.status(format!("cannot save: {e}"));
                }
            }
        }
    }

    fn handle_mouse(&mut self, input: &FrameInput) {
        let world_pos = self.camera.to_world(input.mouse);
        let tile = self.camera.tile_at(input.mouse);
        if input.wheel != 0.0 {
            self.camera.zoom_at(
                input.mouse,
                if input.wheel > 0.0 { 1.15 } else { 1.0 / 1.15 },
            );
        }
        if input.button_down[2] {
            // Middle-drag pans: the world point under the cursor follows it.
            if let Some(prev) = self.last_mouse {
                self.camera.pan(input.mouse - prev);
            }
        }
        self.last_mouse = Some(input.mouse);
        self.hovered = agent_at(self.shown().world(), world_pos);
        if self.handle_timeline(input) {
            return;
        }
        let mut status = None;
        let past = self.in_past();
        let took = self
            .tunables
            .handle_mouse(input, &mut self.history, past, &mut status);
        if let Some(s) = status {
            self.hud.status(s);
        }
        if took {
            return;
        }
        if input.button_pressed[0] {
            if self.console.click(input.mouse) {
                return;
            }
            if self.selected.is_some() {
                if let Some(to) = decisions::tick_at(input.mouse, self.history.ticks()) {
                    self.set_view(to);
                    return;
                }
            }
        }
        if input.button_pressed[0] {
            if let Some(e) = self.hud.error_at(input.mouse) {
                self.hud.expanded = Some(e);
                return;
            }
        }
        if self.painter.active {
            if self.in_past() {
                if input.button_pressed[0] || input.button_pressed[1] {
                    self.hud
                        .status("looking at the past: Space branches here, End goes back".into());
                }
                return;
            }
            if input.button_down[0] {
                let brush = self.painter.brush(self.history.session().world());
                self.painter.paint(&mut self.history, tile, brush);
            } else if input.button_down[1] {
                let floor = self
                    .history
                    .session()
                    .world()
                    .terrain()
                    .by_name("floor")
                    .unwrap_or(0);
                self.painter.paint(&mut self.history, tile, floor);
            }
            if input.button_released[0] || input.button_released[1] {
                self.painter.end_stroke();
            }
            return;
        }
        if input.button_pressed[0] {
            let hit = agent_at(self.shown().world(), world_pos);
            self.selected = hit.clone();
            self.dragging = hit.map(|id| (id, input.mouse));
        }
        if input.button_released[0] {
            let dragged = self
                .dragging
                .take()
                .filter(|(_, from)| from.distance(input.mouse) > 6.0);
            if let Some((id, _)) = dragged.filter(|_| !self.in_past()) {
                if self.history.place(&id, tile) {
                    self.hud
                        .status(format!("moved {id} to {}, {}", tile.x, tile.y));
                }
            }
        }
        if input.button_pressed[1] && !self.in_past() {
            let world = self.history.session().world();
            if world.in_bounds(tile) {
                let goal = if world.goal == Some(tile) {
                    None
                } else {
                    Some(tile)
                };
                self.history.set_goal(goal);
                self.hud.status(match goal {
                    Some(g) => format!("goal set to {}, {}", g.x, g.y),
                    None => "goal cleared".into(),
                });
            }
        }
    }

    fn draw_panels(&mut self) {
        let mode = if self.search.open {
            Some(self.search.hud_text())
        } else if self.painter.active {
            let world = self.history.session().world();
            let brush = self.painter.brush.unwrap_or(0);
            Some(format!(
                "PAINT {}{}",
                world.terrain().get(brush).name,
                if self.painter.dirty {
                    " (unsaved: S)"
                } else {
                    ""
                }
            ))
        } else {
            None
        };
        let fps = self.options.frames.is_none().then(get_fps);
        let shown = shown_of(&self.view, &self.history);
        self.hud.draw(
            shown,
            hud::BarState {
                paused: self.paused,
                speed: SPEEDS[self.speed],
                fps,
                mode: mode.as_deref(),
            },
        );
        if let Some(id) = self.selected.clone().filter(|_| !self.search.open) {
            if !inspect::draw(shown, &id) {
                self.selected = None;
            }
        }
        if self.help {
            help::draw(&self.overlays);
        }
    }
}

impl paint::Painter {
    /// Whether a stroke is in progress (S then paints nothing and is not a save).
    fn active_drag(&self, input: &FrameInput) -> bool {
        self.active && (input.button_down[0] || input.button_down[1])
    }
}

/// The tick shown: the past one while looking at the past, else the live session.
fn shown_of<'a>(view: &'a Option<timeline::View>, history: &'a History) -> &'a dyn Shown {
    match view {
        Some(v) => v.shown(),
        None => history.session(),
    }
}

/// The held driving keys as a direction (the letters only when `letters`: paint mode takes S).
fn keyboard_direction(held: &Actions, letters: bool) -> ::glam::IVec2 {
    let any = |dir: Dir| {
        held.has(Action::Drive(dir)) || (letters && held.has(Action::DriveByLetter(dir)))
    };
    ::glam::IVec2::new(
        any(Dir::Right) as i32 - any(Dir::Left) as i32,
        any(Dir::Down) as i32 - any(Dir::Up) as i32,
    )
}

/// Saves the window as an opaque PNG (the framebuffer's alpha is whatever blending left, which
/// image viewers would composite over their own background).
/// The agent whose body is under a world point (the nearest, if bodies overlap).
fn agent_at(world: &agentbox_core::world::World, at: ::glam::DVec2) -> Option<String> {
    world
        .agents
        .iter()
        .filter(|a| a.pos.distance(at) <= a.radius.max(0.45))
        .min_by(|a, b| a.pos.distance(at).total_cmp(&b.pos.distance(at)))
        .map(|a| a.id.clone())
}

fn save_screenshot(path: &Path) {
    let mut image = get_screen_data();
    for px in image.bytes.chunks_exact_mut(4) {
        px[3] = 255;
    }
    image.export_png(&path.to_string_lossy());
}

fn print_frame_stats(what: &str, times: &mut [f64], agents: usize) {
    if times.is_empty() {
        return;
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
    eprintln!(
        "frames: {} frames, {agents} agents, {what}: frame build time (wall clock) mean {mean:.2} ms, p95 {p95:.2} ms (before the GPU presents the frame)",
        times.len()
    );
}
