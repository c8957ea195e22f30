//! The timeline bar along the bottom of the window: the ticks of the live branch, reload
//! marks, error and suspension marks, contact events, the ghost branch's extent and the tick
//! shown. Scrubbing reads the window's own input (`input.rs`), so recorded and replayed input
//! drives it like the live mouse; this only draws. It also keeps what the bar and the ghost
//! show (per-tick marks and trails), and changes nothing.
//!
//! It is drawn with macroquad's shapes and text, in the batches of the status bar and legend
//! (`Window::draw_bars`), not with egui: egui then runs only once one of its panels opens,
//! which a plain run never pays for (issue 35, goal 7).

use agentbox_core::sim::TickReport;
use agentbox_core::world::{ErrorKind, World};
use macroquad::prelude::*;

/// Above this many agents the window keeps no trails for the ghost (their memory would grow
/// with agents x ticks); the timeline's marks are kept whatever the count.
pub const TRAIL_AGENTS: usize = 2000;

/// What happened at a tick, for the bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    Contact,
    Suspended,
    Error,
}

/// Marks and trails of the live branch, by tick (index 0 is tick 1).
#[derive(Default)]
pub struct Track {
    pub marks: Vec<(u64, Mark)>,
    /// Every agent's position after each tick (when there are at most [`TRAIL_AGENTS`]).
    pub trails: Vec<Vec<[f32; 2]>>,
}

impl Track {
    /// Keeps live tick `t`'s marks (errors, suspensions, contacts) and, up to
    /// [`TRAIL_AGENTS`] agents, every agent's position.
    pub fn after_tick(&mut self, t: u64, report: &TickReport, world: &World) {
        let mut marks = std::collections::BTreeSet::new();
        for (_, e) in &report.new_errors {
            marks.insert(match e.kind {
                ErrorKind::Budget | ErrorKind::Memory | ErrorKind::Cpu | ErrorKind::Suspended => {
                    Mark::Suspended
                }
                _ => Mark::Error,
            });
        }
        if report.has_contact() {
            marks.insert(Mark::Contact);
        }
        self.marks.extend(marks.into_iter().map(|m| (t, m)));
        if world.agents.len() <= TRAIL_AGENTS {
            let positions = world.agents.iter();
            let positions = positions.map(|a| [a.pos.x as f32, a.pos.y as f32]);
            self.trails.push(positions.collect());
        }
    }

    /// Drops everything after tick `to` (a branch); what was dropped becomes the ghost.
    pub fn cut(&mut self, to: u64) -> Vec<Vec<[f32; 2]>> {
        self.marks.retain(|(t, _)| *t <= to);
        let keep = (to as usize).min(self.trails.len());
        self.trails.split_off(keep)
    }
}

/// The bar's rectangle on screen.
pub fn rect() -> Rect {
    super::layout::current().timeline
}

/// The track part of the bar (left of it sits the tick label).
fn track_rect() -> Rect {
    let r = rect();
    let label = super::layout::px(150.0);
    Rect::new(
        r.x + label,
        r.y + 6.0,
        (r.w - label - 10.0).max(10.0),
        r.h - 12.0,
    )
}

/// The tick under screen x on a bar of `last` ticks.
pub fn tick_at(x: f32, last: u64) -> u64 {
    let t = track_rect();
    let f = ((x - t.x) / t.w).clamp(0.0, 1.0) as f64;
    (f * last as f64).round() as u64
}

/// What the bar shows.
pub struct Bar<'a> {
    pub last: u64,
    pub shown: u64,
    pub reloads: &'a [u64],
    pub marks: &'a [(u64, Mark)],
    /// The ghost branch's ticks, after the branch point.
    pub ghost: Option<(u64, u64)>,
    pub tick_rate: u32,
}

/// The bar's ground: the colour its old 0xf0-alpha strip (0x12 0x13 0x17) came out over the
/// window's background, drawn opaque.
const GROUND: Color = Color::new(
    0x13 as f32 / 255.0,
    0x14 as f32 / 255.0,
    0x18 as f32 / 255.0,
    1.0,
);

/// A grey as opaque as the track's parts are.
fn gray(g: u8) -> Color {
    Color::from_rgba(g, g, g, 0xff)
}

/// The bar's opaque parts under everything else on it: its ground and the track (drawn first
/// with the other grounds, in `opaque::flat`: under software OpenGL a blended pixel costs
/// several times a flat, opaque one, and these are most of the bar's pixels).
pub fn draw_ground() {
    let (r, t) = (rect(), track_rect());
    draw_rectangle(r.x, r.y, r.w, r.h, GROUND);
    draw_rectangle(t.x, t.y, t.w, t.h, gray(0x2a));
}

/// Draws the bar over [`draw_ground`] (in the status bar's [`crate::text::text_last`] scope:
/// shapes, then text).
pub fn draw(bar: &Bar) {
    let (r, t) = (rect(), track_rect());
    let seconds = bar.shown as f64 / bar.tick_rate.max(1) as f64;
    let label = if bar.shown < bar.last {
        format!("{} / {}  {seconds:.1}s", bar.shown, bar.last)
    } else {
        format!("{}  {seconds:.1}s", bar.last)
    };
    // As large as egui's 14-point monospace was, and as the status bar's text.
    let size = super::layout::px(18.0);
    let label_colour = Color::from_rgba(0xdd, 0xdd, 0xdd, 0xff);
    super::text::ui_text(
        &label,
        r.x + 8.0,
        r.y + r.h / 2.0 + size * 0.35,
        size,
        label_colour,
    );
    let span = bar.last.max(bar.ghost.map_or(0, |(_, end)| end)).max(1) as f32;
    let x_of = |tick: u64| t.x + t.w * (tick as f32 / span).min(1.0);
    if let Some((from, to)) = bar.ghost {
        let (x0, x1) = (x_of(from), x_of(to));
        let faded = Color::from_rgba(0x90, 0x90, 0xff, 0x40);
        crate::sheet::rectangle(x0, t.y + t.h * 0.35, x1 - x0, t.h * 0.3, faded);
    }
    let lived = x_of(bar.last) - t.x;
    crate::sheet::rectangle(t.x, t.y + t.h * 0.4, lived, t.h * 0.2, gray(0x66));
    for (tick, mark) in bar.marks {
        let (c, top, bottom) = match mark {
            Mark::Contact => (Color::from_rgba(0x60, 0xc0, 0xff, 0xc0), 0.55, 1.0),
            Mark::Suspended => (Color::from_rgba(0xff, 0xa0, 0x30, 0xff), 0.0, 0.5),
            Mark::Error => (Color::from_rgba(0xff, 0x40, 0x40, 0xff), 0.0, 0.5),
        };
        let x = x_of(*tick);
        crate::sheet::line(x, t.y + t.h * top, x, t.y + t.h * bottom, 1.5, c);
    }
    let reload = Color::from_rgba(0x50, 0xe0, 0x70, 0xff);
    for tick in bar.reloads {
        let x = x_of(*tick);
        crate::sheet::line(x, t.y - 3.0, x, t.y + t.h + 3.0, 2.0, reload);
    }
    let x = x_of(bar.shown);
    crate::sheet::rectangle(x - 2.0, t.y - 4.0, 4.0, t.h + 8.0, WHITE);
}

/// Draws the ghost: the abandoned branch's trails, faded.
pub fn draw_ghost(trails: &[Vec<[f32; 2]>], camera: &super::camera::Camera) {
    let Some(first) = trails.first() else {
        return;
    };
    let faded = Color::from_rgba(0x90, 0x90, 0xff, 0x90);
    // At most ~400 points per agent, whatever the length.
    let stride = (trails.len() / 400).max(1);
    for agent in 0..first.len() {
        let mut prev: Option<Vec2> = None;
        for tick in trails.iter().step_by(stride) {
            let Some(&[x, y]) = tick.get(agent) else {
                prev = None;
                continue;
            };
            let at = camera.to_screen(::glam::DVec2::new(x as f64, y as f64));
            if let Some(p) = prev {
                draw_line(p.x, p.y, at.x, at.y, 3.0, faded);
            }
            prev = Some(at);
        }
        if let Some(p) = prev {
            draw_circle_lines(p.x, p.y, 6.0, 2.0, faded);
        }
    }
}
