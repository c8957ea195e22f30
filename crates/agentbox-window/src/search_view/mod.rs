//! The search mode (Q): the designer places a start (left-click) and a goal (right-click) and
//! watches the real search run one expansion at a time (Enter), or animated (Shift+Enter), with
//! A* and jump point search side by side on the same query (or Dijkstra and A*, or one alone).
//! Each pane shows the open and closed sets, the node just expanded, parent links, G/H/F in the
//! cells when zoomed in, and the path with its cost once the goal is expanded; a small egui
//! panel on the right chooses the algorithm (M), heuristic (H) and diagonal rule (X) and shows
//! G/H/F of the cell under the mouse.
//!
//! The steps come from `nav::replay` (the core's own logged search); nothing here searches. The
//! mode works on a copy of the map taken when it opens and pauses the simulation, so the map
//! does not change under the search. Every change comes from the window's input (`input.rs`),
//! so recorded input replays it; the panel only paints. It must not change the world.

use super::camera::Camera;
use super::input::FrameInput;
use super::keymap::{Action, Actions};
use agentbox_core::nav::replay::Replay;
use agentbox_core::nav::{Algorithm, Diagonal, Heuristic, PathOptions};
use agentbox_core::world::{Tile, World};
use macroquad::prelude::*;

mod draw;
mod panel;

pub use panel::paint;

/// What a pane runs (an algorithm, or Dijkstra: A* with a zero heuristic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Searcher {
    AStar,
    Jps,
    /// A* with a zero heuristic.
    Dijkstra,
}

impl Searcher {
    fn name(self) -> &'static str {
        match self {
            Searcher::AStar => "A*",
            Searcher::Jps => "JPS",
            Searcher::Dijkstra => "Dijkstra",
        }
    }

    fn options(self, heuristic: Heuristic, diagonal: Diagonal) -> PathOptions {
        let (algorithm, heuristic) = match self {
            Searcher::AStar => (Algorithm::AStar, heuristic),
            Searcher::Jps => (Algorithm::Jps, heuristic),
            Searcher::Dijkstra => (Algorithm::AStar, Heuristic::Zero),
        };
        PathOptions {
            algorithm,
            heuristic,
            diagonal,
            ..Default::default()
        }
    }
}

/// The algorithm choice (M): side by side first.
const METHODS: [(&str, &[Searcher]); 5] = [
    ("A* | JPS", &[Searcher::AStar, Searcher::Jps]),
    ("Dijkstra | A*", &[Searcher::Dijkstra, Searcher::AStar]),
    ("A*", &[Searcher::AStar]),
    ("JPS", &[Searcher::Jps]),
    ("Dijkstra", &[Searcher::Dijkstra]),
];

/// The heuristic choice (H), the core's variants.
const HEURISTICS: [(Heuristic, &str); 4] = [
    (Heuristic::Octile, "octile"),
    (Heuristic::Manhattan, "Manhattan"),
    (Heuristic::Euclidean, "Euclidean"),
    (Heuristic::Zero, "zero"),
];

/// The diagonal rule (X), the core's variants.
const DIAGONALS: [(Diagonal, &str); 4] = [
    (Diagonal::NoCornerCutting, "no corner cutting"),
    (Diagonal::Never, "never (4-connected)"),
    (Diagonal::IfOneSideFree, "if one side is free"),
    (Diagonal::Always, "always"),
];

/// Animation speeds, in expansions per second (`[` and `]`).
const RATES: [f64; 9] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0];

/// The panel: its width and top, the height of a clickable option row and where they start.
const PANEL_W: f32 = 300.0;
const ROW: f32 = 22.0;

/// The panel's top: under the status bar (the search mode shows no legend and no docks).
fn panel_top() -> f32 {
    super::layout::current().map.y + 8.0
}

/// Where the panel's option rows start.
fn rows_top() -> f32 {
    panel_top() + 70.0
}

/// The height of a pane's caption (at its bottom).
const CAPTION: f32 = 24.0;

/// Colours (PathFinding.js's: open light green, closed pale turquoise).
const OPEN: [u8; 3] = [0x3c, 0xc8, 0x50];
const CLOSED: [u8; 3] = [0x46, 0x8c, 0xe6];
const PASSED: [u8; 3] = [0xa0, 0x64, 0xd2];
const EXPANDED: Color = Color::new(1.0, 0.55, 0.0, 1.0);
const START: Color = Color::new(0.0, 0.80, 0.0, 1.0);
const GOAL: Color = Color::new(0.93, 0.27, 0.0, 1.0);
const PATH: Color = Color::new(1.0, 0.85, 0.1, 1.0);
const LINK: Color = Color::new(0.15, 0.15, 0.2, 0.7);
const BACKGROUND: Color = Color::new(0.118, 0.125, 0.149, 1.0);

/// One pane: an algorithm and its replayed search.
struct Pane {
    searcher: Searcher,
    replay: Replay,
    /// The sets as a texture, a pixel per tile, and the step it shows: rebuilt only when the
    /// step changes, so a whole map of cells is one draw call.
    sets: std::cell::RefCell<Option<(usize, Texture2D)>>,
}

/// The query: where from, where to, and how.
#[derive(Default)]
struct Query {
    start: Option<Tile>,
    goal: Option<Tile>,
    /// Indices into `METHODS`, `HEURISTICS` and `DIAGONALS`.
    method: usize,
    heuristic: usize,
    diagonal: usize,
}

/// Stepping through the searches.
struct Playback {
    /// The step every pane shows (a pane whose search ended earlier shows its end).
    step: usize,
    /// Animated (Shift+Enter).
    running: bool,
    /// Index into `RATES`.
    rate: usize,
    /// Expansions owed to the animation (fractional).
    carry: f64,
}

impl Default for Playback {
    fn default() -> Self {
        Playback {
            step: 0,
            running: false,
            rate: 4,
            carry: 0.0,
        }
    }
}

/// How the panes sit on the screen, and the mouse over them.
struct Layout {
    /// The camera before the mode opened (centre, tile, fitted), restored when it closes.
    saved_camera: Option<(::glam::DVec2, f32, bool)>,
    /// The panes are fitted (refitted when their number changes).
    fitted: bool,
    /// The panes are stacked rather than side by side (chosen when fitting: whichever shows
    /// the map larger).
    stacked: bool,
    last_mouse: Option<Vec2>,
    /// The tile under the mouse, for the panel's G/H/F.
    hover: Option<Tile>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            saved_camera: None,
            fitted: true,
            stacked: false,
            last_mouse: None,
            hover: None,
        }
    }
}

/// The search mode's state.
#[derive(Default)]
pub struct SearchMode {
    pub open: bool,
    /// Whether the simulation was paused before the mode opened.
    pub was_paused: bool,
    /// The map searched and shown, copied when the mode opened.
    world: Option<Box<World>>,
    query: Query,
    /// One per algorithm of the method chosen (none until start and goal are placed).
    panes: Vec<Pane>,
    playback: Playback,
    layout: Layout,
    /// Why the last click placed nothing, shown as the status until the next frame.
    note: Option<String>,
}

/// The map area under the status bar and above the timeline, left of the panel.
fn area() -> Rect {
    let m = super::layout::current().map;
    Rect::new(m.x, m.y, (m.w - PANEL_W - 12.0).max(40.0), m.h)
}

/// Pane `i` of `n`, in screen pixels: side by side, or stacked (for maps wider than tall).
fn pane_rect(i: usize, n: usize, stacked: bool) -> Rect {
    let a = area();
    let n = n.max(1) as f32;
    if stacked {
        let h = a.h / n;
        Rect::new(a.x, a.y + h * i as f32, a.w, h)
    } else {
        let w = a.w / n;
        Rect::new(a.x + w * i as f32, a.y, w, a.h)
    }
}

/// The tile size that fits a `w` x `h` map into a pane.
fn fit_tile(pane: Rect, w: f32, h: f32) -> f32 {
    ((pane.w - 16.0) / w)
        .min((pane.h - CAPTION - 16.0) / h)
        .max(0.5)
}

/// The panel's rectangle.
fn panel_rect() -> Rect {
    Rect::new(
        screen_width() - PANEL_W - 6.0,
        panel_top(),
        PANEL_W,
        super::layout::current().timeline.y - panel_top() - 8.0,
    )
}

/// Option row `i` (algorithm, heuristic, diagonal) of the panel: a click cycles it.
fn option_row(i: usize) -> Rect {
    let p = panel_rect();
    Rect::new(
        p.x + 6.0,
        rows_top() + ROW * i as f32,
        p.w - 12.0,
        ROW - 2.0,
    )
}

fn number(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl SearchMode {
    /// Opens the mode on a copy of `world`'s map: fits the panes and re-runs the last query,
    /// if any, on this map.
    pub fn enter(&mut self, world: World, camera: &mut Camera) {
        self.open = true;
        self.world = Some(Box::new(world));
        self.layout.saved_camera = Some((camera.centre, camera.tile, camera.fitted));
        self.playback.running = false;
        self.note = None;
        self.fit(camera);
        self.rerun(0);
    }

    /// Closes the mode: the camera as it was.
    pub fn leave(&mut self, camera: &mut Camera) {
        self.open = false;
        self.playback.running = false;
        self.world = None;
        self.panes.clear();
        if let Some((centre, tile, fitted)) = self.layout.saved_camera.take() {
            camera.centre = centre;
            camera.tile = tile;
            camera.fitted = fitted;
        }
    }

    fn searchers(&self) -> &'static [Searcher] {
        METHODS[self.query.method].1
    }

    /// Fits the map into pane 0; the other panes show the same view shifted by a pane width.
    fn fit(&mut self, camera: &mut Camera) {
        let Some(world) = &self.world else {
            return;
        };
        let n = self.searchers().len();
        let (w, h) = (
            world.grid().width().max(1) as f32,
            world.grid().height().max(1) as f32,
        );
        self.layout.stacked =
            fit_tile(pane_rect(0, n, true), w, h) > fit_tile(pane_rect(0, n, false), w, h);
        let pane = pane_rect(0, n, self.layout.stacked);
        let tile = fit_tile(pane, w, h);
        // The camera's own centre is the middle of the whole window; pane 0's is `pane`'s.
        let centre = camera.area().center();
        let shift = (centre.x - (pane.x + pane.w / 2.0)) / tile;
        let down = (centre.y - (pane.y + (pane.h - CAPTION) / 2.0)) / tile;
        camera.tile = tile;
        camera.centre = ::glam::DVec2::new(
            (w / 2.0 - 0.5 + shift) as f64,
            (h / 2.0 - 0.5 + down) as f64,
        );
        camera.fitted = false;
        self.layout.fitted = true;
    }

    /// Runs the query again (new options or map), showing step `keep` (clamped).
    fn rerun(&mut self, keep: usize) {
        self.panes.clear();
        self.playback.running = false;
        self.playback.carry = 0.0;
        let (Some(world), Some(start), Some(goal)) =
            (&self.world, self.query.start, self.query.goal)
        else {
            self.playback.step = 0;
            return;
        };
        let heuristic = HEURISTICS[self.query.heuristic].0;
        let diagonal = DIAGONALS[self.query.diagonal].0;
        for &searcher in METHODS[self.query.method].1 {
            if let Some(replay) =
                Replay::run(world, start, goal, &searcher.options(heuristic, diagonal))
            {
                self.panes.push(Pane {
                    searcher,
                    replay,
                    sets: Default::default(),
                });
            }
        }
        self.seek(keep);
    }

    /// The last step of the longest search.
    fn last_step(&self) -> usize {
        self.panes
            .iter()
            .map(|p| p.replay.steps())
            .max()
            .unwrap_or(0)
    }

    fn seek(&mut self, k: usize) {
        self.playback.step = k.min(self.last_step());
        for p in &mut self.panes {
            p.replay.seek(self.playback.step);
        }
    }

    /// One line per pane: what it shows at this step (the caption), for the window and stderr.
    fn caption(&self, pane: &Pane) -> String {
        let r = &pane.replay;
        let mut name = pane.searcher.name().to_string();
        if pane.searcher == Searcher::Jps && !r.result().used_jps {
            name.push_str(" (not valid here: A* ran)");
        }
        let passed = if r.passed_count() > 0 {
            format!(", passed {}", thousands(r.passed_count()))
        } else {
            String::new()
        };
        let end = match r.found() {
            Some((_, cost)) => format!(", cost {}", number(cost, 2)),
            None if r.done() => ", no path".to_string(),
            None => String::new(),
        };
        format!(
            "{name}: {} expanded, open {}{passed}{end}",
            thousands(r.closed_count()),
            thousands(r.open_count()),
        )
    }

    /// What to do next, for a newcomer.
    pub fn status(&self) -> String {
        if let Some(note) = &self.note {
            return note.clone();
        }
        if self.query.start.is_none() {
            return "left-click: place the start".into();
        }
        if self.query.goal.is_none() {
            return "right-click: place the goal".into();
        }
        if self.panes.is_empty() {
            return "no search on this map: Backspace clears".into();
        }
        if self.playback.running {
            return format!(
                "running at {}/s: Shift+Enter pauses, [ ] speed",
                RATES[self.playback.rate]
            );
        }
        if self.playback.step < self.last_step() {
            return "Enter: one expansion; Shift+Enter: run".into();
        }
        if self.panes.iter().any(|p| p.replay.found().is_some()) {
            "goal reached: M/H/X change the search, Backspace clears".into()
        } else {
            "no path: move start or goal, Backspace clears".into()
        }
    }

    /// The status bar's mode text.
    pub fn hud_text(&self) -> String {
        format!("SEARCH: {}", self.status())
    }

    /// Prints the step's captions on stderr (the record of what the window showed).
    fn report(&self) {
        if self.panes.is_empty() {
            return;
        }
        let captions: Vec<String> = self.panes.iter().map(|p| self.caption(p)).collect();
        eprintln!(
            "search step {}: {}",
            self.playback.step,
            captions.join("; ")
        );
    }

    /// The panes' rectangles on the screen.
    fn panes_on_screen(&self) -> Vec<Rect> {
        let n = self.searchers().len();
        (0..n)
            .map(|i| pane_rect(i, n, self.layout.stacked))
            .collect()
    }

    /// How far pane `i` is from pane 0, which the window's camera shows.
    fn offset(&self, i: usize) -> Vec2 {
        let panes = self.panes_on_screen();
        panes
            .get(i)
            .map_or(Vec2::ZERO, |r| r.point() - panes[0].point())
    }

    /// The pane under a screen point and the tile there.
    fn tile_under(&self, at: Vec2, camera: &Camera) -> Option<(usize, Tile)> {
        let panes = self.panes_on_screen();
        (0..panes.len()).find_map(|i| {
            panes[i]
                .contains(at)
                .then(|| (i, camera.tile_at(at - self.offset(i))))
        })
    }

    /// Reads a frame's input; false when the mode closes (Esc or Q).
    pub fn handle(
        &mut self,
        input: &FrameInput,
        keys: &Actions,
        camera: &mut Camera,
        frames: bool,
    ) -> bool {
        if keys.has(Action::Close) || keys.has(Action::ToggleSearch) {
            self.leave(camera);
            return false;
        }
        self.note = None;
        let under = self.tile_under(input.mouse, camera);
        self.layout.hover = under.map(|(_, t)| t);
        self.handle_camera(input, keys, camera, under.map(|(pane, _)| pane));
        self.handle_choices(input, keys, camera);
        self.handle_steps(keys);
        if !panel_rect().contains(input.mouse) {
            if let Some((_, tile)) = under {
                if input.button_pressed[0] {
                    self.place(tile, true);
                }
                if input.button_pressed[1] {
                    self.place(tile, false);
                }
            }
        }
        if self.playback.running {
            self.animate(frames);
        }
        true
    }

    /// The camera: zoom at the cursor in whichever pane it is (`pane`), pan, fit.
    fn handle_camera(
        &mut self,
        input: &FrameInput,
        keys: &Actions,
        camera: &mut Camera,
        pane: Option<usize>,
    ) {
        let shift = pane.map_or(Vec2::ZERO, |i| self.offset(i));
        let local = |at: Vec2| at - shift;
        if input.wheel != 0.0 {
            let f = if input.wheel > 0.0 { 1.15 } else { 1.0 / 1.15 };
            camera.zoom_at(local(input.mouse), f);
            self.layout.fitted = false;
        }
        if keys.has(Action::ZoomIn) || keys.has(Action::ZoomOut) {
            let f = if keys.has(Action::ZoomIn) { 1.25 } else { 0.8 };
            camera.zoom_at(local(input.mouse), f);
            self.layout.fitted = false;
        }
        if input.button_down[2] {
            if let Some(prev) = self.layout.last_mouse {
                camera.pan(input.mouse - prev);
                self.layout.fitted = false;
            }
        }
        self.layout.last_mouse = Some(input.mouse);
        if keys.has(Action::Fit) {
            self.fit(camera);
        }
    }

    /// The choices (algorithm, heuristic, diagonal rule): keys, or a click on their row of
    /// the panel; Shift goes back. A change runs the query again at the same step.
    fn handle_choices(&mut self, input: &FrameInput, keys: &Actions, camera: &mut Camera) {
        let clicked = |row: usize| input.button_pressed[0] && option_row(row).contains(input.mouse);
        let back = input.shift;
        let cycle = |i: usize, len: usize| {
            if back {
                (i + len - 1) % len
            } else {
                (i + 1) % len
            }
        };
        let query = &mut self.query;
        let mut changed = false;
        if keys.has(Action::CycleAlgorithm) || clicked(0) {
            query.method = cycle(query.method, METHODS.len());
            changed = true;
            if self.layout.fitted {
                self.fit(camera);
            }
        }
        let query = &mut self.query;
        if keys.has(Action::CycleHeuristic) || clicked(1) {
            query.heuristic = cycle(query.heuristic, HEURISTICS.len());
            changed = true;
        }
        if keys.has(Action::CycleDiagonal) || clicked(2) {
            query.diagonal = cycle(query.diagonal, DIAGONALS.len());
            changed = true;
        }
        if changed {
            // The step count is kept, so the same moment of the search can be compared.
            self.rerun(self.playback.step);
            let query = &self.query;
            eprintln!(
                "search options: {}, {} heuristic, diagonal {}",
                METHODS[query.method].0, HEURISTICS[query.heuristic].1, DIAGONALS[query.diagonal].1
            );
            self.report();
        }
    }

    /// Animation speed, clearing, and stepping: one expansion, run or pause, the last step.
    fn handle_steps(&mut self, keys: &Actions) {
        if keys.has(Action::Slower) {
            self.playback.rate = self.playback.rate.saturating_sub(1);
        }
        if keys.has(Action::Faster) {
            self.playback.rate = (self.playback.rate + 1).min(RATES.len() - 1);
        }
        if keys.has(Action::ClearSearch) {
            (self.query.start, self.query.goal) = (None, None);
            self.rerun(0);
            eprintln!("search cleared");
        }
        if keys.has(Action::ToEnd) {
            self.playback.running = false;
            self.seek(usize::MAX);
            self.report();
        }
        if keys.has(Action::SearchRun) {
            let running = !self.playback.running && self.playback.step < self.last_step();
            self.playback.running = running;
            if !running {
                self.report();
            }
        } else if keys.has(Action::SearchStep) {
            self.playback.running = false;
            self.seek(self.playback.step + 1);
            self.report();
        }
    }

    /// The running animation's expansions for this frame (by the clock, or 1/60 s a frame in
    /// `--frames` runs); it stops at the last step.
    fn animate(&mut self, frames: bool) {
        let dt = if frames {
            1.0 / 60.0
        } else {
            (get_frame_time() as f64).min(0.25)
        };
        let playback = &mut self.playback;
        playback.carry += RATES[playback.rate] * dt;
        let k = playback.carry.floor();
        playback.carry -= k;
        self.seek(self.playback.step + k as usize);
        if self.playback.step >= self.last_step() {
            self.playback.running = false;
            self.report();
        }
    }

    /// Places the start (or the goal) on a free tile and runs the query from step 0.
    fn place(&mut self, tile: Tile, start: bool) {
        let Some(world) = &self.world else {
            return;
        };
        if world.step_cost(tile).is_none() {
            self.note = Some(format!(
                "{}, {} is {}: pick a free tile",
                tile.x,
                tile.y,
                if world.in_bounds(tile) {
                    "blocked"
                } else {
                    "off the map"
                }
            ));
            return;
        }
        if start {
            self.query.start = Some(tile);
        } else {
            self.query.goal = Some(tile);
        }
        self.rerun(0);
        if let (Some(s), Some(g)) = (self.query.start, self.query.goal) {
            eprintln!(
                "search from {}, {} to {}, {}: {} expansions in all",
                s.x,
                s.y,
                g.x,
                g.y,
                self.panes
                    .iter()
                    .map(|p| format!("{} {}", p.searcher.name(), p.replay.steps()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

impl super::Window {
    /// Q: opens the search mode on the map shown; the simulation pauses while it is open.
    pub(super) fn enter_search(&mut self) {
        let world = self.travel.shown(&self.history).world().clone();
        self.search.was_paused = self.clock.paused;
        self.clock.paused = true;
        // No status flash: it would sit over the top pane's corner, and the top bar and the
        // panel already say the mode is open and how to leave it.
        self.search.enter(world, &mut self.camera);
    }

    /// A frame's input while the search mode is open: it takes every key and click but help.
    pub(super) fn handle_search(&mut self, input: &FrameInput, keys: &Actions) {
        if keys.has(Action::Help) {
            self.panels.help = !self.panels.help;
        }
        if self.panels.help && keys.has(Action::Close) {
            self.panels.help = false;
            return;
        }
        let frames = self.options.frames.is_some();
        if !self.search.handle(input, keys, &mut self.camera, frames) {
            self.clock.paused = self.search.was_paused;
            self.panels.hud.status("left the search mode".into());
        }
    }
}
