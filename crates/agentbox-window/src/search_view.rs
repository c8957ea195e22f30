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

use super::camera::{Camera, BAR};
use super::input::FrameInput;
use super::keymap::{self, Action, Actions, Mode};
use super::map_texture::MapTexture;
use super::text::ui_text;
use agentbox_core::nav::replay::{Cell, CellState, Replay};
use agentbox_core::nav::{Algorithm, Diagonal, Heuristic, PathOptions};
use agentbox_core::world::{Tile, World};
use egui_macroquad::egui;
use macroquad::prelude::*;

/// The algorithms a pane can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    AStar,
    Jps,
    /// A* with a zero heuristic.
    Dijkstra,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::AStar => "A*",
            Kind::Jps => "JPS",
            Kind::Dijkstra => "Dijkstra",
        }
    }

    fn options(self, heuristic: Heuristic, diagonal: Diagonal) -> PathOptions {
        let (algorithm, heuristic) = match self {
            Kind::AStar => (Algorithm::AStar, heuristic),
            Kind::Jps => (Algorithm::Jps, heuristic),
            Kind::Dijkstra => (Algorithm::AStar, Heuristic::Zero),
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
const METHODS: [(&str, &[Kind]); 5] = [
    ("A* | JPS", &[Kind::AStar, Kind::Jps]),
    ("Dijkstra | A*", &[Kind::Dijkstra, Kind::AStar]),
    ("A*", &[Kind::AStar]),
    ("JPS", &[Kind::Jps]),
    ("Dijkstra", &[Kind::Dijkstra]),
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
const PANEL_TOP: f32 = BAR + 8.0;
const ROW: f32 = 22.0;
const ROWS_TOP: f32 = PANEL_TOP + 70.0;

/// The height of a pane's caption (at its bottom).
const CAPTION: f32 = 24.0;

/// Colours (PathFinding.js's: open light green, closed pale turquoise).
const OPEN: [u8; 3] = [152, 251, 152];
const CLOSED: [u8; 3] = [175, 238, 238];
const PASSED: [u8; 3] = [216, 191, 242];
const EXPANDED: Color = Color::new(1.0, 0.55, 0.0, 1.0);
const START: Color = Color::new(0.0, 0.80, 0.0, 1.0);
const GOAL: Color = Color::new(0.93, 0.27, 0.0, 1.0);
const PATH: Color = Color::new(1.0, 0.85, 0.1, 1.0);
const LINK: Color = Color::new(0.15, 0.15, 0.2, 0.7);
const BACKGROUND: Color = Color::new(0.118, 0.125, 0.149, 1.0);

/// One pane: an algorithm and its replayed search.
struct Pane {
    kind: Kind,
    replay: Replay,
    /// The sets as a texture, a pixel per tile, and the step it shows: rebuilt only when the
    /// step changes, so a whole map of cells is one draw call.
    sets: std::cell::RefCell<Option<(usize, Texture2D)>>,
}

/// The search mode's state.
pub struct SearchMode {
    pub open: bool,
    /// The map searched and shown, copied when the mode opened.
    world: Option<Box<World>>,
    start: Option<Tile>,
    goal: Option<Tile>,
    method: usize,
    heuristic: usize,
    diagonal: usize,
    panes: Vec<Pane>,
    /// The step every pane shows (a pane whose search ended earlier shows its end).
    step: usize,
    running: bool,
    rate: usize,
    /// Expansions owed to the animation (fractional).
    carry: f64,
    hover: Option<Tile>,
    /// The camera before the mode opened (centre, tile, fitted), restored when it closes.
    saved_camera: Option<(::glam::DVec2, f32, bool)>,
    /// Whether the simulation was paused before the mode opened.
    pub was_paused: bool,
    /// The panes are fitted (refitted when their number changes).
    fitted: bool,
    /// The panes are stacked rather than side by side (chosen when fitting: whichever shows
    /// the map larger).
    stacked: bool,
    last_mouse: Option<Vec2>,
    note: Option<String>,
}

impl Default for SearchMode {
    fn default() -> Self {
        SearchMode {
            open: false,
            world: None,
            start: None,
            goal: None,
            method: 0,
            heuristic: 0,
            diagonal: 0,
            panes: Vec::new(),
            step: 0,
            running: false,
            rate: 4,
            carry: 0.0,
            hover: None,
            saved_camera: None,
            was_paused: false,
            fitted: true,
            stacked: false,
            last_mouse: None,
            note: None,
        }
    }
}

/// The map area under the status bar and above the timeline, left of the panel.
fn area() -> Rect {
    let bottom = screen_height() - super::timeline::HEIGHT;
    Rect::new(
        0.0,
        BAR,
        (screen_width() - PANEL_W - 12.0).max(40.0),
        (bottom - BAR).max(1.0),
    )
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
        PANEL_TOP,
        PANEL_W,
        screen_height() - super::timeline::HEIGHT - PANEL_TOP - 8.0,
    )
}

/// Option row `i` (algorithm, heuristic, diagonal) of the panel: a click cycles it.
fn option_row(i: usize) -> Rect {
    let p = panel_rect();
    Rect::new(p.x + 6.0, ROWS_TOP + ROW * i as f32, p.w - 12.0, ROW - 2.0)
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
        self.saved_camera = Some((camera.centre, camera.tile, camera.fitted));
        self.running = false;
        self.note = None;
        self.fit(camera);
        self.rerun(0);
    }

    /// Closes the mode: the camera as it was.
    pub fn leave(&mut self, camera: &mut Camera) {
        self.open = false;
        self.running = false;
        self.world = None;
        self.panes.clear();
        if let Some((centre, tile, fitted)) = self.saved_camera.take() {
            camera.centre = centre;
            camera.tile = tile;
            camera.fitted = fitted;
        }
    }

    fn kinds(&self) -> &'static [Kind] {
        METHODS[self.method].1
    }

    /// Fits the map into pane 0; the other panes show the same view shifted by a pane width.
    fn fit(&mut self, camera: &mut Camera) {
        let Some(world) = &self.world else {
            return;
        };
        let n = self.kinds().len();
        let (w, h) = (
            world.grid().width().max(1) as f32,
            world.grid().height().max(1) as f32,
        );
        self.stacked =
            fit_tile(pane_rect(0, n, true), w, h) > fit_tile(pane_rect(0, n, false), w, h);
        let pane = pane_rect(0, n, self.stacked);
        let tile = fit_tile(pane, w, h);
        // The camera's own centre is the middle of the whole window; pane 0's is `pane`'s.
        let shift = (screen_width() / 2.0 - (pane.x + pane.w / 2.0)) / tile;
        let down = ((BAR + (screen_height() - BAR - super::timeline::HEIGHT) / 2.0)
            - (pane.y + (pane.h - CAPTION) / 2.0))
            / tile;
        camera.tile = tile;
        camera.centre = ::glam::DVec2::new(
            (w / 2.0 - 0.5 + shift) as f64,
            (h / 2.0 - 0.5 + down) as f64,
        );
        camera.fitted = false;
        self.fitted = true;
    }

    /// Runs the query again (new options or map), showing step `keep` (clamped).
    fn rerun(&mut self, keep: usize) {
        self.panes.clear();
        self.running = false;
        self.carry = 0.0;
        let (Some(world), Some(start), Some(goal)) = (&self.world, self.start, self.goal) else {
            self.step = 0;
            return;
        };
        let heuristic = HEURISTICS[self.heuristic].0;
        let diagonal = DIAGONALS[self.diagonal].0;
        for &kind in METHODS[self.method].1 {
            if let Some(replay) =
                Replay::run(world, start, goal, &kind.options(heuristic, diagonal))
            {
                self.panes.push(Pane {
                    kind,
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
        self.step = k.min(self.last_step());
        for p in &mut self.panes {
            p.replay.seek(self.step);
        }
    }

    /// One line per pane: what it shows at this step (the caption), for the window and stderr.
    fn caption(&self, pane: &Pane) -> String {
        let r = &pane.replay;
        let mut name = pane.kind.name().to_string();
        if pane.kind == Kind::Jps && !r.result().used_jps {
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
        if self.start.is_none() {
            return "left-click: place the start".into();
        }
        if self.goal.is_none() {
            return "right-click: place the goal".into();
        }
        if self.panes.is_empty() {
            return "no search on this map: Backspace clears".into();
        }
        if self.running {
            return format!(
                "running at {}/s: Shift+Enter pauses, [ ] speed",
                RATES[self.rate]
            );
        }
        if self.step < self.last_step() {
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
        eprintln!("search step {}: {}", self.step, captions.join("; "));
    }

    /// The panes' rectangles on the screen.
    fn panes_on_screen(&self) -> Vec<Rect> {
        let n = self.kinds().len();
        (0..n).map(|i| pane_rect(i, n, self.stacked)).collect()
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
        self.hover = under.map(|(_, t)| t);
        // The camera: zoom at the cursor in whichever pane it is, pan, fit.
        let shift = under.map_or(Vec2::ZERO, |(i, _)| self.offset(i));
        let local = |at: Vec2| at - shift;
        if input.wheel != 0.0 {
            let f = if input.wheel > 0.0 { 1.15 } else { 1.0 / 1.15 };
            camera.zoom_at(local(input.mouse), f);
            self.fitted = false;
        }
        if keys.has(Action::ZoomIn) || keys.has(Action::ZoomOut) {
            let f = if keys.has(Action::ZoomIn) { 1.25 } else { 0.8 };
            camera.zoom_at(local(input.mouse), f);
            self.fitted = false;
        }
        if input.button_down[2] {
            if let Some(prev) = self.last_mouse {
                camera.pan(input.mouse - prev);
                self.fitted = false;
            }
        }
        self.last_mouse = Some(input.mouse);
        if keys.has(Action::Fit) {
            self.fit(camera);
        }
        // The choices: keys, or a click on their row of the panel.
        let clicked = |row: usize| input.button_pressed[0] && option_row(row).contains(input.mouse);
        let back = input.shift;
        let cycle = |i: usize, len: usize| {
            if back {
                (i + len - 1) % len
            } else {
                (i + 1) % len
            }
        };
        let mut changed = false;
        if keys.has(Action::CycleAlgorithm) || clicked(0) {
            self.method = cycle(self.method, METHODS.len());
            changed = true;
            if self.fitted {
                self.fit(camera);
            }
        }
        if keys.has(Action::CycleHeuristic) || clicked(1) {
            self.heuristic = cycle(self.heuristic, HEURISTICS.len());
            changed = true;
        }
        if keys.has(Action::CycleDiagonal) || clicked(2) {
            self.diagonal = cycle(self.diagonal, DIAGONALS.len());
            changed = true;
        }
        if changed {
            // The step count is kept, so the same moment of the search can be compared.
            self.rerun(self.step);
            eprintln!(
                "search options: {}, {} heuristic, diagonal {}",
                METHODS[self.method].0, HEURISTICS[self.heuristic].1, DIAGONALS[self.diagonal].1
            );
            self.report();
        }
        if keys.has(Action::Slower) {
            self.rate = self.rate.saturating_sub(1);
        }
        if keys.has(Action::Faster) {
            self.rate = (self.rate + 1).min(RATES.len() - 1);
        }
        if keys.has(Action::ClearSearch) {
            (self.start, self.goal) = (None, None);
            self.rerun(0);
            eprintln!("search cleared");
        }
        if keys.has(Action::ToEnd) {
            self.running = false;
            self.seek(usize::MAX);
            self.report();
        }
        if keys.has(Action::SearchRun) {
            self.running = !self.running && self.step < self.last_step();
            if !self.running {
                self.report();
            }
        } else if keys.has(Action::SearchStep) {
            self.running = false;
            self.seek(self.step + 1);
            self.report();
        }
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
        if self.running {
            let dt = if frames {
                1.0 / 60.0
            } else {
                (get_frame_time() as f64).min(0.25)
            };
            self.carry += RATES[self.rate] * dt;
            let k = self.carry.floor();
            self.carry -= k;
            self.seek(self.step + k as usize);
            if self.step >= self.last_step() {
                self.running = false;
                self.report();
            }
        }
        true
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
            self.start = Some(tile);
        } else {
            self.goal = Some(tile);
        }
        self.rerun(0);
        if let (Some(s), Some(g)) = (self.start, self.goal) {
            eprintln!(
                "search from {}, {} to {}, {}: {} expansions in all",
                s.x,
                s.y,
                g.x,
                g.y,
                self.panes
                    .iter()
                    .map(|p| format!("{} {}", p.kind.name(), p.replay.steps()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }

    /// Draws the panes over the map area: each pane's map, search, start and goal, clipped to
    /// the pane, and its caption.
    pub fn draw(&self, map: &mut MapTexture, camera: &Camera) {
        let Some(world) = &self.world else {
            return;
        };
        let a = area();
        draw_rectangle(a.x, a.y, screen_width() - a.x, a.h, BACKGROUND);
        let dpi = screen_dpi_scale();
        let panes = self.panes_on_screen();
        let first = panes[0];
        for (i, &r) in panes.iter().enumerate() {
            // Pane i is drawn with the window's camera as pane 0, into pane i's viewport
            // (physical pixels, from the bottom), which also clips it.
            let viewport = (
                (r.x * dpi) as i32,
                ((screen_height() - r.y - r.h) * dpi) as i32,
                (r.w * dpi) as i32,
                (r.h * dpi) as i32,
            );
            let shown = Rect::new(first.x, first.y, r.w, r.h);
            let mut view = Camera2D::from_display_rect(shown);
            // `from_display_rect` turns y up for render targets; on the screen y stays down.
            view.zoom.y = view.zoom.y.abs();
            set_camera(&Camera2D {
                viewport: Some(viewport),
                ..view
            });
            map.draw(world, camera);
            if let Some(pane) = self.panes.get(i) {
                draw_search(pane, camera, shown);
            }
            for (tile, colour) in [(self.start, START), (self.goal, GOAL)] {
                if let Some(t) = tile {
                    // At least 7 pixels, so they show on a zoomed-out large map; a frame
                    // once G/H/F are written, so they stay readable.
                    let (c, s) = camera.tile_rect(t);
                    if s >= NUMBERS_FROM {
                        draw_rectangle_lines(c.x + 2.0, c.y + 2.0, s - 4.0, s - 4.0, 6.0, colour);
                    } else {
                        let m = (s * 0.8).max(7.0);
                        draw_rectangle(c.x + (s - m) / 2.0, c.y + (s - m) / 2.0, m, m, colour);
                    }
                }
            }
        }
        set_default_camera();
        for (i, &r) in panes.iter().enumerate() {
            let text = match self.panes.get(i) {
                Some(p) => self.caption(p),
                None => self.kinds()[i].name().to_string(),
            };
            // At the bottom: the status messages of the window sit under the bar.
            let y = r.y + r.h - CAPTION;
            draw_rectangle(r.x, y, r.w, CAPTION, Color::new(0.07, 0.075, 0.09, 0.9));
            ui_text(&text, r.x + 8.0, y + 17.0, 16.0, WHITE);
            if i > 0 {
                let (x1, y1) = if self.stacked {
                    (r.x + r.w, r.y)
                } else {
                    (r.x, r.y + r.h)
                };
                draw_line(r.x, r.y, x1, y1, 2.0, Color::new(0.5, 0.5, 0.55, 1.0));
            }
        }
    }

    /// What the panel shows.
    pub fn panel(&self) -> PanelView {
        let cell_line = |p: &Pane, t: Tile| -> String {
            let name = p.kind.name();
            match p.replay.cell(t) {
                Some(c) if c.state != CellState::Unseen => {
                    let state = match c.state {
                        CellState::Open => "open",
                        CellState::Passed => "passed",
                        CellState::Closed => "closed",
                        CellState::Unseen => "",
                    };
                    format!(
                        "{name}: {state} G {} H {} F {}",
                        number(c.g, 2),
                        number(c.h, 2),
                        number(c.f(), 2)
                    )
                }
                _ => format!("{name}: not reached"),
            }
        };
        let mut hover = Vec::new();
        if let Some(t) = self.hover {
            hover.push(format!("under the mouse: {}, {}", t.x, t.y));
            for p in &self.panes {
                hover.push(cell_line(p, t));
            }
        }
        PanelView {
            status: self.status(),
            options: [
                format!("algorithm  {}", METHODS[self.method].0),
                format!("heuristic  {}", HEURISTICS[self.heuristic].1),
                format!("diagonal   {}", DIAGONALS[self.diagonal].1),
            ],
            step: format!(
                "step {} of {}{}",
                thousands(self.step),
                thousands(self.last_step()),
                if self.running { "  (running)" } else { "" }
            ),
            rate: format!("speed {} expansions/s  ([ ])", RATES[self.rate]),
            hover,
        }
    }
}

/// The panel's lines, computed by the window and painted by [`paint`].
pub struct PanelView {
    status: String,
    options: [String; 3],
    step: String,
    rate: String,
    hover: Vec<String>,
}

/// G/H/F need this many pixels a tile to be written in the cells.
const NUMBERS_FROM: f32 = 44.0;

/// One pane's search: sets, parent links, the node just expanded, numbers, the path. `view` is
/// the part of the screen shown (pane 0's coordinates).
fn draw_search(pane: &Pane, camera: &Camera, view: Rect) {
    let r = &pane.replay;
    let s = camera.tile;
    let visible = |c: Vec2| {
        c.x + s >= view.x && c.x <= view.x + view.w && c.y + s >= view.y && c.y <= view.y + view.h
    };
    let mut sets = pane.sets.borrow_mut();
    if sets.as_ref().is_none_or(|(step, _)| *step != r.step()) {
        *sets = Some((r.step(), sets_texture(r)));
    }
    if let Some((_, texture)) = sets.as_ref() {
        let corner = camera.to_screen(::glam::DVec2::new(-0.5, -0.5));
        draw_texture_ex(
            texture,
            corner.x,
            corner.y,
            WHITE,
            DrawTextureParams {
                dest_size: Some(vec2(s * texture.width(), s * texture.height())),
                ..Default::default()
            },
        );
    }
    if let Some(t) = r.just_expanded() {
        let (c, side) = camera.tile_rect(t);
        let m = side.max(5.0);
        draw_rectangle(
            c.x + (side - m) / 2.0,
            c.y + (side - m) / 2.0,
            m,
            m,
            EXPANDED,
        );
    }
    if s >= 6.0 {
        for (t, c) in r.reached() {
            let (a, b) = (centre(camera, t), centre(camera, c.parent));
            let outside = a.x.max(b.x) < view.x
                || a.x.min(b.x) > view.x + view.w
                || a.y.max(b.y) < view.y
                || a.y.min(b.y) > view.y + view.h;
            if c.parent != t && !outside {
                draw_link(camera, t, c.parent);
            }
        }
    }
    if s >= NUMBERS_FROM {
        for (t, c) in r.reached() {
            let (corner, side) = camera.tile_rect(t);
            if visible(corner) {
                draw_numbers(corner, side, c);
            }
        }
    }
    if let Some((path, _)) = r.found() {
        let width = (s * 0.18).clamp(2.0, 8.0);
        for w in path.windows(2) {
            let (a, b) = (centre(camera, w[0]), centre(camera, w[1]));
            draw_line(a.x, a.y, b.x, b.y, width, PATH);
        }
    }
}

/// The open, passed and closed cells as an image, a pixel per tile (unseen ones clear).
fn sets_texture(r: &Replay) -> Texture2D {
    let (w, h) = r.size();
    let (w, h) = (w.clamp(1, 65535) as u16, h.clamp(1, 65535) as u16);
    let mut image = Image::gen_image_color(w, h, Color::new(0.0, 0.0, 0.0, 0.0));
    for (t, c) in r.reached() {
        let [red, green, blue] = match c.state {
            CellState::Open => OPEN,
            CellState::Passed => PASSED,
            _ => CLOSED,
        };
        if t.x < w as i32 && t.y < h as i32 {
            image.set_pixel(
                t.x as u32,
                t.y as u32,
                Color::from_rgba(red, green, blue, 255),
            );
        }
    }
    let texture = Texture2D::from_image(&image);
    texture.set_filter(FilterMode::Nearest);
    texture
}

fn centre(camera: &Camera, t: Tile) -> Vec2 {
    camera.to_screen(agentbox_core::world::centre_of(t))
}

/// A line from a node towards its parent, with an arrowhead at the parent's end.
fn draw_link(camera: &Camera, from: Tile, to: Tile) {
    let (a, b) = (centre(camera, from), centre(camera, to));
    let d = b - a;
    let len = d.length();
    if len < 1.0 {
        return;
    }
    let u = d / len;
    let s = camera.tile;
    let tip = b - u * (s * 0.3);
    let width = (s * 0.05).clamp(1.0, 2.5);
    draw_line(a.x, a.y, tip.x, tip.y, width, LINK);
    let head = (s * 0.18).max(3.0);
    let n = vec2(-u.y, u.x);
    draw_triangle(
        tip,
        tip - u * head + n * head * 0.5,
        tip - u * head - n * head * 0.5,
        LINK,
    );
}

/// F top left, G bottom left, H bottom right, as PathFinding.js writes them.
fn draw_numbers(corner: Vec2, side: f32, c: &Cell) {
    let size = (side * 0.26).min(18.0);
    let ink = Color::new(0.05, 0.05, 0.08, 1.0);
    ui_text(
        &number(c.f(), 1),
        corner.x + 3.0,
        corner.y + size,
        size,
        ink,
    );
    ui_text(
        &number(c.g, 1),
        corner.x + 3.0,
        corner.y + side - 4.0,
        size,
        ink,
    );
    let h = number(c.h, 1);
    let w = super::text::measure(&h, size).width;
    ui_text(
        &h,
        corner.x + side - w - 3.0,
        corner.y + side - 4.0,
        size,
        ink,
    );
}

fn color32(c: Color) -> egui::Color32 {
    let [r, g, b, a] = c.into();
    egui::Color32::from_rgba_unmultiplied(r, g, b, a)
}

/// Paints the panel (right of the panes): the status line, the choices, the step, the cell
/// under the mouse, the colours and the keys.
pub fn paint(ctx: &egui::Context, view: &PanelView) {
    let k = ctx.pixels_per_point().max(0.1);
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::new("search"),
    ));
    let r = panel_rect();
    painter.rect_filled(
        egui::Rect::from_min_max(p(r.x, r.y), p(r.x + r.w, r.y + r.h)),
        4.0,
        egui::Color32::from_rgba_unmultiplied(0x12, 0x13, 0x17, 0xf0),
    );
    let font = egui::FontId::monospace(13.0 / k);
    let text = |y: f32, s: &str, colour: egui::Color32| {
        painter.text(
            p(r.x + 10.0, y),
            egui::Align2::LEFT_CENTER,
            s,
            font.clone(),
            colour,
        );
    };
    let white = egui::Color32::from_gray(235);
    let grey = egui::Color32::from_gray(160);
    let yellow = egui::Color32::from_rgb(0xf2, 0xc9, 0x4c);
    text(r.y + 14.0, "Search (Q or Esc leaves)", white);
    // The status line, wrapped at the panel's width (the font is monospaced).
    let per_line = ((r.w - 20.0) / 7.9).max(10.0) as usize;
    let mut y = r.y + 36.0;
    for line in wrap(&view.status, per_line).iter().take(2) {
        text(y, line, yellow);
        y += 16.0;
    }
    for (i, option) in view.options.iter().enumerate() {
        let row = option_row(i);
        painter.rect_filled(
            egui::Rect::from_min_max(p(row.x, row.y), p(row.x + row.w, row.y + row.h)),
            3.0,
            egui::Color32::from_gray(0x2a),
        );
        text(row.y + row.h / 2.0, option, white);
        painter.text(
            p(row.x + row.w - 8.0, row.y + row.h / 2.0),
            egui::Align2::RIGHT_CENTER,
            ["M", "H", "X"][i],
            font.clone(),
            grey,
        );
    }
    let mut y = option_row(2).y + ROW + 14.0;
    for line in [&view.step, &view.rate] {
        text(y, line, white);
        y += 17.0;
    }
    y += 6.0;
    for line in view.hover.iter().flat_map(|l| wrap(l, per_line)) {
        text(y, &line, white);
        y += 17.0;
    }
    if view.hover.is_empty() {
        text(y, "(hover a cell for its G, H, F)", grey);
        y += 17.0;
    }
    y += 6.0;
    let rgb = |[r, g, b]: [u8; 3]| Color::from_rgba(r, g, b, 255);
    let legend = [
        (rgb(OPEN), "open"),
        (rgb(CLOSED), "closed (expanded)"),
        (EXPANDED, "expanded this step"),
        (rgb(PASSED), "passed (JPS, not queued)"),
        (PATH, "path"),
        (START, "start (left-click)"),
        (GOAL, "goal (right-click)"),
    ];
    for (colour, name) in legend {
        painter.rect_filled(
            egui::Rect::from_min_max(p(r.x + 10.0, y - 6.0), p(r.x + 22.0, y + 6.0)),
            2.0,
            color32(colour),
        );
        painter.text(
            p(r.x + 30.0, y),
            egui::Align2::LEFT_CENTER,
            name,
            font.clone(),
            white,
        );
        y += 17.0;
    }
    y += 6.0;
    let mut keys = keymap::key_list(Mode::Search, 13, per_line);
    keys.push("cells: F top, G and H below".into());
    for line in &keys {
        text(y, line, grey);
        y += 16.0;
    }
}

/// Splits `s` into lines of at most `width` characters at spaces.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split(' ') {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
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
