//! The designer's window, the only crate that names macroquad and egui. It draws the map, the
//! agents, the debug overlays, the HUD and panels; it turns input (live, or replayed from a
//! file) into time control, camera moves, inspection and edits, and drives the `History` with
//! fixed simulation steps whatever the frame rate. It changes the world only through the
//! history (ticks, reloads, reset, paint, drag, goal, tunables, branches).
//!
//! [`Window`] is made of parts with one job each: the [`clock::Clock`] (pause, speed, ticks
//! owed), [`travel::Travel`] (the past shown, the ghost), the camera, the [`Pointer`], the
//! painter, the [`Records`] the live ticks leave for panels, the [`Panels`] and the search
//! mode. `controls.rs` turns a frame's input into calls on them (the keys through the keymap,
//! `keymap/`), `runs.rs` replaces or saves the whole run, and this file runs the frame loop.

mod agent_edits;
mod agents;
mod asking;
mod camera;
mod clip;
mod clock;
mod console;
mod controls;
pub mod cpu_clock;
mod decisions;
mod drawings;
mod help;
mod hud;
mod input;
mod inspect;
mod keymap;
mod labels;
mod layout;
mod legend;
mod map_texture;
mod memory_edit;
mod opaque;
mod overlays;
mod paint;
mod palette;
mod plots;
mod questions;
mod runs;
mod search_view;
mod sessions;
mod settings;
mod sheet;
mod text;
mod timeline;
mod travel;
mod tunables;

use agentbox_core::sim::TickReport;
use agentbox_core::world::World;
use agentbox_session::history::History;
use agentbox_session::session::DrawFrame;
use agentbox_session::watch::FileWatcher;
use camera::Camera;
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
    /// Write the run as an animated GIF here (`--gif`).
    pub gif: Option<PathBuf>,
    /// Keep every this-many-th frame in the GIF (`--gif-every`; 0 and 1: every frame).
    pub gif_every: u64,
}

/// Why the window could not run; its `Display` is the message for the terminal.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    /// No display to open the window on: the message says what to run instead.
    #[error("{0}")]
    NoDisplay(String),
    /// The scene could not be opened.
    #[error(transparent)]
    Open(#[from] agentbox_session::session::OpenError),
    /// `--input` could not be read or `--record` could not be written.
    #[error("{0}")]
    Input(String),
    /// The `--session` file could not be read.
    #[error(transparent)]
    SessionFile(#[from] agentbox_session::history::SessionFileError),
    /// The `--session` file's run could not be replayed.
    #[error("{0}")]
    Replay(String),
    /// Something failed while the window ran (a screenshot or a recording not written).
    #[error("{0}")]
    Run(String),
}

/// Why the window cannot open, in words a user can act on: no display named, or the one
/// named cannot be opened. (Left to macroquad, either is a panic deep in its X11 start.)
fn no_display_message(reason: &str) -> String {
    format!(
        "error: agentbox run needs a display, and none was found ({reason}).\n\
         Run without a window: agentbox headless SCENE --ticks N --trace -\n\
         Or under a virtual display: xvfb-run -a agentbox run SCENE"
    )
}

/// A connection to the X display, made before the window opens to learn whether it can, and
/// held until the window has closed: an X server whose last client leaves resets itself, and
/// macroquad's own connection, made during that reset, would fail (and panic).
#[cfg(target_os = "linux")]
struct DisplayHeld {
    x11: macroquad::miniquad::native::linux_x11::libx11::LibX11,
    display: *mut macroquad::miniquad::native::linux_x11::libx11::Display,
}

#[cfg(target_os = "linux")]
impl Drop for DisplayHeld {
    fn drop(&mut self) {
        // SAFETY: `display` is the live connection XOpenDisplay returned in `open_display`,
        // owned by this value alone and closed only here.
        unsafe { (self.x11.XCloseDisplay)(self.display) };
    }
}

/// Opens the display the window will use, or says what stands in the way. On Linux the window
/// opens on X11 (under Wayland through Xwayland, which sets `DISPLAY`), so the display is tried
/// here as macroquad's backend will try it: load libX11 and libxkbcommon, open `DISPLAY`.
#[cfg(target_os = "linux")]
fn open_display() -> Result<DisplayHeld, String> {
    use macroquad::miniquad::native::linux_x11::libx11::{LibX11, LibXkbCommon};
    let set = |v: &str| std::env::var(v).ok().filter(|s| !s.is_empty());
    let Some(display) = set("DISPLAY") else {
        return Err(match set("WAYLAND_DISPLAY") {
            Some(_) => "DISPLAY is not set; the window opens on X11, which a Wayland session \
                        offers through Xwayland"
                .to_string(),
            None => "DISPLAY is not set".to_string(),
        });
    };
    let Ok(x11) = LibX11::try_load() else {
        return Err("libX11 cannot be loaded; install it (libx11-6)".to_string());
    };
    if LibXkbCommon::try_load().is_err() {
        return Err("libxkbcommon cannot be loaded; install it (libxkbcommon0)".to_string());
    }
    // SAFETY: XInitThreads takes no arguments and may be called more than once; it must come
    // before any other Xlib call, as it does in macroquad's start.
    unsafe { (x11.XInitThreads)() };
    // SAFETY: XOpenDisplay takes a null name to mean `DISPLAY` and returns a connection or
    // null; a connection is owned by the `DisplayHeld` made from it, which closes it once.
    let opened = unsafe { (x11.XOpenDisplay)(std::ptr::null()) };
    if opened.is_null() {
        return Err(format!("the X display DISPLAY={display} cannot be opened"));
    }
    Ok(DisplayHeld {
        x11,
        display: opened,
    })
}

/// Other systems open their own kind of window, which needs nothing checked here.
#[cfg(not(target_os = "linux"))]
fn open_display() -> Result<(), String> {
    Ok(())
}

/// Opens the window on a scene and runs until Esc, the window closing, or `--frames`.
pub fn run_window(
    scene: &Path,
    seed: Option<u64>,
    options: WindowOptions,
) -> Result<(), WindowError> {
    // Held until the window has closed (see `DisplayHeld`).
    let _display =
        open_display().map_err(|reason| WindowError::NoDisplay(no_display_message(&reason)))?;
    let feed = input::Feed::open(options.input.as_deref(), options.record.as_deref())
        .map_err(WindowError::Input)?;
    // A saved session opens at its last tick with what its ticks left on the panels (paused,
    // with its agent selected, when it names where to open).
    let (history, opened) = match &options.session {
        Some(file) => {
            let recording = agentbox_session::history::load_recording(file)?;
            let (history, opened) = runs::resume(&recording, file).map_err(WindowError::Replay)?;
            (history, Some(opened))
        }
        None => {
            let mut history = History::open(scene, seed)?;
            travel::keep_frames(&mut history);
            (history, None)
        }
    };
    let replays_or_records = options.input.is_some() || options.record.is_some();
    let mut settings = settings::Settings::for_run(replays_or_records);
    let docks = settings.load().map_or_else(layout::Docks::default, |kept| {
        layout::Docks::with_kept(&kept)
    });
    settings.starting_from(docks.kept());
    let outcome: Rc<RefCell<Result<(), String>>> = Rc::new(RefCell::new(Ok(())));
    let result = Rc::clone(&outcome);
    let (window_width, window_height) = window_size(&_display);
    let conf = Conf {
        window_title: format!("agentbox — {}", history.session().world().name),
        window_width,
        window_height,
        high_dpi: true,
        window_resizable: true,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        let mut window = Window {
            history,
            options,
            feed,
            clock: clock::Clock::default(),
            travel: travel::Travel::new(),
            camera: Camera::new(),
            pointer: Pointer::default(),
            painter: paint::Painter::default(),
            records: Records::default(),
            panels: Panels::default(),
            search: search_view::SearchMode::default(),
            questions: questions::Questions::default(),
            docks,
            settings,
            clips: clip::Clips::default(),
            egui_started: false,
        };
        window.clips = clip::Clips::new(
            window.options.gif.clone(),
            window.options.gif_every,
            window.frame_secs(),
        );
        if let Some(opened) = opened {
            opened.show(&mut window);
        }
        *result.borrow_mut() = window.run().await;
    });
    Rc::try_unwrap(outcome)
        .map(RefCell::into_inner)
        .unwrap_or(Ok(()))
        .map_err(WindowError::Run)
}

/// The window's state, by part.
struct Window {
    /// The live run and its history.
    history: History,
    options: WindowOptions,
    /// Where input comes from, and where it is recorded.
    feed: input::Feed,
    /// Pause, speed and the ticks owed.
    clock: clock::Clock,
    /// The past tick shown, the live branch's track, the ghost, parked replays.
    travel: travel::Travel,
    camera: Camera,
    pointer: Pointer,
    /// Paint mode, the brush and the stroke.
    painter: paint::Painter,
    records: Records,
    panels: Panels,
    /// The search mode (Q): watch A* and JPS step by step.
    search: search_view::SearchMode,
    /// Watches, the tick-where search, the breakpoint and the prompt.
    questions: questions::Questions,
    /// The docks' sizes, collapsed docks and the UI scale.
    docks: layout::Docks,
    /// Where the docks' sizes and the UI scale are kept between runs.
    settings: settings::Settings,
    /// The GIF clips being recorded (`--gif`, the clip key).
    clips: clip::Clips,
    /// Whether egui has run (from the first frame with one of its panels; `draw_widgets`).
    egui_started: bool,
}

/// The mouse's hold on the agents.
#[derive(Default)]
struct Pointer {
    /// The agent inspected.
    selected: Option<String>,
    /// The agent under the mouse (labelled whatever the zoom).
    hovered: Option<String>,
    /// The agent under the last left press, and where the press was (it becomes a drag only
    /// once the mouse has moved, so a click on a moving agent just selects it).
    dragging: Option<(String, Vec2)>,
    /// Where the mouse was last frame (middle-drag pans by the difference).
    last_mouse: Option<Vec2>,
}

/// What the live run's ticks left for the panels, cut back when a branch replaces the future.
#[derive(Default)]
struct Records {
    /// What scripts printed (C).
    console: console::Console,
    /// Each agent's decision history, for the inspector's strip.
    decisions: decisions::Decisions,
    /// What scripts drew and the sight queries they made, per live tick.
    drawn: drawings::Drawn,
    /// Monitors and `plot` values, for the plots panel.
    plots: plots::Plots,
}

impl Records {
    /// Keeps what live tick `t` left: problems and prints for the console, the decisions,
    /// the drawings.
    fn after_tick(
        &mut self,
        t: u64,
        world: &World,
        drawn: DrawFrame,
        report: &TickReport,
        selected: Option<&str>,
    ) {
        for (agent, problem) in &drawn.problems {
            let id = world.agents.get(*agent).map_or("?", |a| a.id.as_str());
            self.console.note(t, id, problem);
        }
        self.decisions.record(t, world, selected);
        self.drawn.keep(t, drawn);
        for (agent, text) in report.prints() {
            self.console.push(t, agent, text);
            self.decisions.print(t, agent, text);
        }
        for event in &report.events {
            if let agentbox_core::sim::events::Event::MessagesDropped { agent, from, count } = event
            {
                let text = format!(
                    "{count} message(s) to {agent} dropped (past 64 a tick; the first from {from})"
                );
                self.console.push(t, agent, &text);
            }
        }
    }

    /// Drops what came after tick `at` (a branch).
    fn cut(&mut self, at: u64) {
        self.plots.cut(at);
        self.console.cut(at);
        self.decisions.cut(at);
        self.drawn.cut(at);
    }

    /// A new history from the scene's start (R). The console keeps its lines.
    fn restart(&mut self) {
        self.plots.cut(0);
        self.decisions.clear();
        self.drawn = drawings::Drawn::default();
    }
}

/// What is drawn over the map besides the records' panels, and what is on.
struct Panels {
    /// The status bar and the error list.
    hud: hud::Hud,
    /// The help panel (F1 or ?).
    help: bool,
    /// The session list (Ctrl+O), while open.
    picker: Option<sessions::Picker>,
    /// The tunables and plots panel (Tab or J).
    tunables: tunables::Panel,
    overlays: overlays::Overlays,
    /// State labels over the agents (L).
    labels: bool,
    /// The scripts' `draw.*` shapes (V).
    drawings: bool,
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            hud: hud::Hud::default(),
            help: false,
            picker: None,
            tunables: tunables::Panel::default(),
            overlays: overlays::Overlays::default(),
            labels: true,
            drawings: false,
        }
    }
}

/// What the frame loop keeps between frames besides the window.
struct FrameLoop {
    count: u64,
    watcher: FileWatcher,
    map: map_texture::MapTexture,
    /// Whole-frame and drawing-only build times, in ms (`--frame-stats`).
    build_times: Vec<f64>,
    draw_times: Vec<f64>,
    /// The process's CPU time across the frames (`--frame-stats`).
    cpu: cpu_clock::FrameCpu,
}

impl Window {
    async fn run(mut self) -> Result<(), String> {
        let mut watcher = FileWatcher::new();
        watcher.watch(&self.history.session().watched_files());
        let mut frame_loop = FrameLoop {
            count: 0,
            watcher,
            map: map_texture::MapTexture::default(),
            build_times: Vec::new(),
            draw_times: Vec::new(),
            cpu: cpu_clock::FrameCpu::default(),
        };
        loop {
            frame_loop.cpu.frame_starts(frame_loop.count);
            let started = std::time::Instant::now();
            if !self.update(&mut frame_loop) {
                break;
            }
            let drawing = std::time::Instant::now();
            self.draw(&mut frame_loop.map);
            frame_loop
                .build_times
                .push(started.elapsed().as_secs_f64() * 1000.0);
            frame_loop
                .draw_times
                .push(drawing.elapsed().as_secs_f64() * 1000.0);
            self.clips.capture()?;
            frame_loop.count += 1;
            if self.options.frames.is_some_and(|n| frame_loop.count >= n) {
                if let Some(path) = &self.options.screenshot {
                    save_screenshot(path);
                }
                break;
            }
            next_frame().await;
        }
        for line in self.clips.finish() {
            eprintln!("{line}");
        }
        if self.options.frame_stats {
            let agents = self.history.session().world().agents.len();
            let whole = "whole frame (input, ticks, drawing)";
            print_frame_stats(whole, &mut frame_loop.build_times, agents);
            print_frame_stats("drawing only", &mut frame_loop.draw_times, agents);
            if let Some(line) = frame_loop.cpu.line(whole, agents) {
                eprintln!("{line}");
            }
        }
        Ok(())
    }

    /// A frame's input, reloads, ticks and parking; false to quit.
    fn update(&mut self, frame_loop: &mut FrameLoop) -> bool {
        let layout = self.layout();
        layout.set();
        let shown = self.travel.shown(&self.history).world();
        palette::learn(shown.agents.iter());
        self.camera.update(shown, layout.map);
        let input = self.feed.frame(frame_loop.count, &self.camera);
        if is_quit_requested() || !self.handle(&input) {
            return false;
        }
        if let Some(kept) = self.docks.kept() {
            self.settings.keep(kept);
        }
        for reload in self.history.sync(&mut frame_loop.watcher) {
            eprintln!("{reload}");
            self.panels.hud.reload(&reload);
        }
        self.advance();
        self.step_finding();
        self.update_watches();
        if let Err(e) = self.travel.park(&self.history) {
            self.panels.hud.failure(e);
        }
        true
    }

    /// Draws the frame: the map, the ghost, overlays, agents, drawings, labels, the search
    /// mode's panes, then the panels and widgets.
    fn draw(&mut self, map: &mut map_texture::MapTexture) {
        clear_background(Color::from_rgba(0x1e, 0x20, 0x26, 0xff));
        let shown = self.travel.shown(&self.history);
        let world = shown.world();
        let (camera, selected) = (&self.camera, self.pointer.selected.as_deref());
        map.draw(world, camera);
        if self.travel.ghost.shown {
            timeline::draw_ghost(&self.travel.ghost.trails, camera);
        }
        let overlays = &mut self.panels.overlays;
        overlays.draw_under(world, camera, selected);
        let tags = agents::Tags {
            selected,
            hovered: self.pointer.hovered.as_deref(),
            labels: self.panels.labels,
        };
        agents::draw(world, camera, &tags);
        overlays.draw_over(world, camera);
        if let Some(drawn) = self.records.drawn.at(self.travel.tick(&self.history)) {
            if self.panels.drawings {
                drawings::draw_shapes(drawn, camera);
            }
            if overlays.on.contains(&overlays::Overlay::Sight) {
                drawings::draw_queries(&drawn.queries, camera);
            }
        }
        if self.search.open {
            self.search.draw(map, camera);
        }
        self.draw_panels();
        self.draw_widgets();
    }

    /// Runs the ticks this frame owes (see [`clock::Clock::ticks_due`]).
    fn advance(&mut self) {
        let dt = self.history.session().world().dt();
        let (past, fixed) = (self.travel.in_past(), self.options.frames.is_some());
        for _ in 0..self.clock.ticks_due(past, fixed, dt) {
            self.live_tick();
            // A breakpoint that held paused the clock: no more ticks this frame.
            if self.clock.paused {
                break;
            }
        }
    }

    /// One live tick, with what it left kept for the panels, the timeline and the ghost.
    fn live_tick(&mut self) {
        if self.travel.in_past() {
            return;
        }
        // Scripts' shapes and sight queries are collected for the live run only (display
        // only: collecting never changes the run); set on every tick, as a branch or a reset
        // puts another session live.
        self.history.session_mut().set_drawing(true);
        let report = self.history.tick();
        self.records.plots.after_tick(&mut self.history);
        let t = self.history.ticks();
        let drawn = self.history.session_mut().take_drawn();
        let world = self.history.session().world();
        let selected = self.pointer.selected.as_deref();
        self.records.after_tick(t, world, drawn, &report, selected);
        self.travel.track.after_tick(t, &report, world);
        self.check_breakpoint();
    }

    /// What the frame docks: help or the tunables (with plots and watches) on the left, the
    /// inspector on the right, errors and the console at the bottom; none in the search mode.
    fn layout(&self) -> layout::Layout {
        let mut wanted = layout::Wanted::default();
        if !self.search.open {
            let shown = self.travel.shown(&self.history);
            wanted.legend = true;
            wanted.help = self.panels.help;
            wanted.left = if self.panels.help {
                Some("help: keys and overlays (F1)")
            } else if self.panels.tunables.open {
                Some("tunables and plots (Tab)")
            } else if self.questions.has_watches() {
                Some("watches")
            } else {
                None
            };
            wanted.right = self
                .pointer
                .selected
                .as_ref()
                .filter(|id| shown.world().agent(id).is_some())
                .map(|_| "inspector (Esc closes)");
            wanted.errors = hud::Hud::errors(shown).len();
            wanted.console = self.records.console.open;
            wanted.bottom = match (wanted.console, wanted.errors > 0) {
                (true, _) => Some("console (C)"),
                (false, true) => Some("errors (click one to read it whole)"),
                (false, false) => None,
            };
        }
        self.docks.layout(screen_width(), screen_height(), wanted)
    }

    /// The docks, the status bar, the legend, the inspector and the help.
    fn draw_panels(&mut self) {
        let layout = layout::current();
        // The docks' strips, the legend and the bar, then all their text (`text_last`).
        text::text_last(|| self.draw_bars(&layout));
        if let Some(id) = self.pointer.selected.clone().filter(|_| !self.search.open) {
            if !inspect::draw(self.travel.shown(&self.history), &id) {
                self.pointer.selected = None;
            }
        }
        if self.panels.help {
            help::draw(&self.panels.overlays);
        }
        if self.camera.follow.is_some() {
            let a = self.camera.area();
            draw_rectangle_lines(a.x + 1.0, a.y + 1.0, a.w - 2.0, a.h - 2.0, 2.0, ORANGE);
        }
    }

    /// The docks' strips and titles, the legend, the status bar, the error rows and the
    /// timeline.
    fn draw_bars(&mut self, layout: &layout::Layout) {
        // The opaque grounds first, flat and unblended (`opaque.rs`), in the order they
        // overlap: docks, legend, bar.
        opaque::flat(|| {
            layout.draw_dock_grounds();
            legend::draw_ground(layout);
            hud::Hud::draw_bar_ground();
            timeline::draw_ground();
        });
        layout.draw_docks();
        legend::draw(self.travel.shown(&self.history).world(), layout);
        let mode = if self.search.open {
            Some(self.search.hud_text())
        } else if self.painter.active {
            let world = self.history.session().world();
            let brush = self.painter.brush.unwrap_or(0);
            let unsaved = if self.painter.dirty {
                " (unsaved: S)"
            } else {
                ""
            };
            Some(format!(
                "PAINT {}{unsaved}",
                world.terrain().get(brush).name
            ))
        } else {
            None
        };
        let fps = self.options.frames.is_none().then(get_fps);
        let shown = self.travel.shown(&self.history);
        let bar = hud::BarState {
            paused: self.clock.paused,
            speed: self.clock.speed(),
            fps,
            mode: mode.as_deref(),
        };
        self.panels.hud.draw(shown, bar);
        let reloads = self.history.recording().reload_ticks();
        timeline::draw(&timeline::Bar {
            last: self.history.ticks(),
            shown: self.travel.tick(&self.history),
            reloads: &reloads,
            marks: &self.travel.track.marks,
            ghost: self.travel.ghost_span(),
            tick_rate: self.history.session().world().tick_rate,
        });
    }

    /// Paints every egui widget in one egui frame per window frame (egui-macroquad allows
    /// one): each panel is a function taking the frame's `egui::Context`. Widgets only paint;
    /// clicks and drags on them are read from the window's own input (`input.rs`), so recorded
    /// and replayed input drives them like the live mouse.
    ///
    /// egui starts with the first frame that shows one of its panels and then runs every
    /// frame (it must, to take the input macroquad queues for it); until then a frame pays
    /// nothing for it.
    fn draw_widgets(&mut self) {
        let shown = self.travel.tick(&self.history);
        let search = self.search.open.then(|| self.search.panel());
        let sliders = (self.panels.tunables.open && search.is_none()).then(|| {
            let world = self.travel.shown(&self.history).world();
            tunables::Sliders::of(self.history.session(), world, self.travel.in_past())
        });
        let strip = self
            .pointer
            .selected
            .as_deref()
            .map(|agent| decisions::Strip {
                decisions: &self.records.decisions,
                agent,
                last: self.history.ticks(),
                shown,
            });
        let wanted = search.is_some()
            || sliders.is_some()
            || strip.is_some()
            || self.panels.picker.is_some()
            || self.records.console.open
            || self.questions.paints();
        if !(wanted || self.egui_started) {
            // Hand the frame's batch to OpenGL here, as `egui_macroquad::draw` does, so that
            // `--frame-stats` times the same work with egui or without.
            // SAFETY: called on macroquad's thread between drawing calls, as egui-macroquad
            // does before painting; nothing else holds the context now.
            unsafe { get_internal_gl() }.flush();
            return;
        }
        self.egui_started = true;
        egui_macroquad::ui(|ctx| {
            if let Some(picker) = &self.panels.picker {
                sessions::paint(ctx, picker);
            }
            if let Some(sliders) = &sliders {
                if !self.panels.help {
                    tunables::paint(ctx, sliders);
                    let top = tunables::bottom(sliders.rows.len()) + 8.0;
                    plots::paint(ctx, &self.records.plots, top, shown);
                }
            }
            if let Some(strip) = &strip {
                decisions::paint(ctx, strip);
            }
            self.records.console.paint(ctx);
            self.questions.paint(ctx, self.panels.help);
            if let Some(panel) = &search {
                search_view::paint(ctx, panel);
            }
        });
        egui_macroquad::draw();
    }
}

/// The window's size: the whole screen up to 1920 x 1200 (a smaller screen gets all of it,
/// as `xvfb-run -s "-screen 0 1280x800x24"` does), four fifths of a larger one.
#[cfg(target_os = "linux")]
fn window_size(display: &DisplayHeld) -> (i32, i32) {
    use macroquad::miniquad::native::linux_x11::libx11::_XPrivDisplay;
    let private = display.display as _XPrivDisplay;
    // SAFETY: `display` is a live Xlib connection (`DisplayHeld`); this is DefaultScreenOfDisplay's
    // own read of `screens[default_screen]`, which Xlib keeps valid while the connection lives.
    let (w, h) = unsafe {
        let d = &*private;
        let screen = &*d.screens.add(d.default_screen.max(0) as usize);
        (screen.width, screen.height)
    };
    fit_screen(w, h)
}

#[cfg(not(target_os = "linux"))]
fn window_size(_display: &()) -> (i32, i32) {
    (1280, 800)
}

/// The window size for a `w` x `h` screen (see [`window_size`]).
fn fit_screen(w: i32, h: i32) -> (i32, i32) {
    if w <= 0 || h <= 0 {
        return (1280, 800);
    }
    if w <= 1920 && h <= 1200 {
        (w.max(640), h.max(480))
    } else {
        ((w * 4 / 5).max(1920), (h * 4 / 5).max(1080))
    }
}

/// Saves the window as an opaque PNG (the framebuffer's alpha is whatever blending left, which
/// image viewers would composite over their own background).
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
    let median = cpu_clock::median_after_warm_up(times).map_or(String::new(), |m| {
        format!(", median after warm-up {m:.3} ms")
    });
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
    eprintln!(
        "frames: {} frames, {agents} agents, {what}: frame build time (wall clock) mean {mean:.2} ms, p95 {p95:.2} ms (before the GPU presents the frame){median}",
        times.len()
    );
}
