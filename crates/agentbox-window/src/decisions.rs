//! The decision timeline in the inspector: the selected agent's history as a strip along the
//! live branch's ticks, one run of colour per primitive (its action) and, above it, per label
//! (`self:label`), with red marks for errors, orange for suspension and white ticks where it
//! printed; under the strip, the run and the printed lines at the tick shown. A click on the
//! strip jumps to that tick (the window reads the click from its own input and scrubs the
//! history). It keeps its record from the live ticks, run-length encoded and bounded, and
//! changes nothing.

use agentbox_core::world::World;
use egui_macroquad::egui;
use macroquad::prelude::*;
use std::collections::{BTreeMap, VecDeque};

/// The most runs kept per agent (the oldest go first).
pub const KEEP_RUNS: usize = 4000;
/// The most printed lines kept per agent.
pub const KEEP_PRINTS: usize = 400;
/// Above this many agents only the selected agent's history is recorded (the rest would cost
/// every tick a pass over every agent).
pub const ALL_AGENTS: usize = 2000;

const HEIGHT: f32 = 96.0;

/// A run of ticks in which the agent did the same thing.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub from: u64,
    pub to: u64,
    pub action: &'static str,
    pub label: Option<Box<str>>,
    pub error: bool,
    pub suspended: bool,
}

#[derive(Default)]
struct Log {
    runs: VecDeque<Run>,
    prints: VecDeque<(u64, String)>,
}

/// Every recorded agent's runs and printed lines, by id.
#[derive(Default)]
pub struct Decisions {
    agents: BTreeMap<String, Log>,
}

impl Decisions {
    /// Records the world after live tick `tick` (every agent, or only `selected` in a crowd).
    pub fn record(&mut self, tick: u64, world: &World, selected: Option<&str>) {
        let all = world.agents.len() <= ALL_AGENTS;
        for agent in &world.agents {
            if !all && selected != Some(agent.id.as_str()) {
                continue;
            }
            let log = self.agents.entry(agent.id.clone()).or_default();
            let run = Run {
                from: tick,
                to: tick,
                action: agent.action.name(),
                label: agent.label.clone(),
                error: agent.error.is_some(),
                suspended: agent.suspended,
            };
            match log.runs.back_mut() {
                Some(last)
                    if last.to + 1 == tick
                        && last.action == run.action
                        && last.label == run.label
                        && last.error == run.error
                        && last.suspended == run.suspended =>
                {
                    last.to = tick;
                }
                _ => {
                    if log.runs.len() >= KEEP_RUNS {
                        log.runs.pop_front();
                    }
                    log.runs.push_back(run);
                }
            }
        }
    }

    /// Records a line `agent` printed in tick `tick`.
    pub fn print(&mut self, tick: u64, agent: &str, text: &str) {
        let log = self.agents.entry(agent.to_string()).or_default();
        if log.prints.len() >= KEEP_PRINTS {
            log.prints.pop_front();
        }
        log.prints.push_back((tick, text.to_string()));
    }

    /// Drops what happened after tick `to` (a branch).
    pub fn cut(&mut self, to: u64) {
        for log in self.agents.values_mut() {
            log.runs.retain(|r| r.from <= to);
            if let Some(last) = log.runs.back_mut() {
                last.to = last.to.min(to);
            }
            log.prints.retain(|(t, _)| *t <= to);
        }
    }

    /// Forgets everything (a reset starts a new history).
    pub fn clear(&mut self) {
        self.agents.clear();
    }
}

/// The strip's height at this frame's UI scale.
pub fn height() -> f32 {
    super::layout::px(HEIGHT)
}

/// The strip's rectangle on screen: at the bottom of the right dock, under the inspector
/// (off screen while the dock is collapsed or closed).
pub fn rect() -> Rect {
    let Some(dock) = super::layout::current().content(super::layout::Side::Right) else {
        return Rect::new(-1.0, -1.0, 0.0, 0.0);
    };
    Rect::new(
        dock.x + 4.0,
        dock.y + dock.h - height() - 4.0,
        dock.w - 8.0,
        height(),
    )
}

/// The coloured track inside [`rect`].
fn track() -> Rect {
    let r = rect();
    let ui = super::layout::current().ui;
    Rect::new(r.x + 8.0, r.y + 24.0 * ui, r.w - 16.0, 20.0 * ui)
}

/// The tick under screen x, on a strip spanning ticks 0..=`last`; `None` off the strip.
pub fn tick_at(at: Vec2, last: u64) -> Option<u64> {
    let r = rect();
    if !r.contains(at) {
        return None;
    }
    let t = track();
    let f = ((at.x - t.x) / t.w).clamp(0.0, 1.0) as f64;
    Some((f * last as f64).round() as u64)
}

/// A stable colour for a name (the same primitive or label is always the same colour).
fn hue_of(name: &str, light: f32) -> egui::Color32 {
    let h = name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    let hue = (h % 360) as f32 / 360.0;
    let c = egui::ecolor::Hsva::new(hue, 0.55, light, 1.0);
    egui::Color32::from(c)
}

/// What the strip shows.
pub struct Strip<'a> {
    pub decisions: &'a Decisions,
    pub agent: &'a str,
    /// The live branch's last tick (the strip spans 0..=last, as the timeline bar).
    pub last: u64,
    pub shown: u64,
}

/// Paints the selected agent's strip into the window's one egui frame.
pub fn paint(ctx: &egui::Context, strip: &Strip) {
    let (r, t) = (rect(), track());
    let k = ctx.pixels_per_point().max(0.1);
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let painter = super::layout::dock_painter(ctx, "decisions", super::layout::Side::Right);
    painter.rect_filled(
        egui::Rect::from_min_max(p(r.x, r.y), p(r.x + r.w, r.y + r.h)),
        3.0,
        egui::Color32::from_rgba_unmultiplied(0x12, 0x13, 0x17, 0xe8),
    );
    let ui = super::layout::current().ui;
    let small = egui::FontId::proportional(13.0 * ui / k);
    let mono = egui::FontId::monospace(13.0 * ui / k);
    let log = strip.decisions.agents.get(strip.agent);
    painter.text(
        p(r.x + 8.0, r.y + 12.0 * ui),
        egui::Align2::LEFT_CENTER,
        format!("decisions of {} (click to jump)", strip.agent),
        small.clone(),
        egui::Color32::from_rgb(0x90, 0xc8, 0xff),
    );
    painter.rect_filled(
        egui::Rect::from_min_max(p(t.x, t.y), p(t.x + t.w, t.y + t.h)),
        0.0,
        egui::Color32::from_gray(0x2a),
    );
    let Some(log) = log else {
        return;
    };
    paint_track(&painter, k, log, strip);
    painter.text(
        p(r.x + 8.0, t.y + t.h + 11.0 * ui),
        egui::Align2::LEFT_CENTER,
        doing_at(log, strip.shown),
        mono.clone(),
        egui::Color32::from_gray(0xe0),
    );
    let chars = ((r.w - 16.0) / (7.9 * ui)).max(10.0) as usize;
    if let Some(line) = printed_at(log, strip.shown, chars) {
        painter.text(
            p(r.x + 8.0, t.y + t.h + 28.0 * ui),
            egui::Align2::LEFT_CENTER,
            line,
            mono,
            egui::Color32::from_rgb(0xff, 0xf0, 0xb0),
        );
    }
}

/// The track's runs (action below, label above, errors and suspensions at the bottom), a
/// white tick where the agent printed, and the tick shown.
fn paint_track(painter: &egui::Painter, k: f32, log: &Log, strip: &Strip) {
    let t = track();
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let span = strip.last.max(1) as f32;
    let x_of = |tick: u64| t.x + t.w * (tick as f32 / span).min(1.0);
    for run in &log.runs {
        // A run covers the ticks from..=to: from the end of tick from-1 to the end of to.
        let (x0, x1) = (
            x_of(run.from.saturating_sub(1)),
            x_of(run.to).max(x_of(run.from.saturating_sub(1)) + 1.0),
        );
        let rect = |top: f32, bottom: f32| {
            egui::Rect::from_min_max(p(x0, t.y + t.h * top), p(x1, t.y + t.h * bottom))
        };
        painter.rect_filled(rect(0.35, 1.0), 0.0, hue_of(run.action, 0.75));
        if let Some(label) = &run.label {
            painter.rect_filled(rect(0.0, 0.3), 0.0, hue_of(label, 0.95));
        }
        if run.error || run.suspended {
            let c = if run.suspended {
                egui::Color32::from_rgb(0xff, 0xa0, 0x30)
            } else {
                egui::Color32::from_rgb(0xff, 0x40, 0x40)
            };
            painter.rect_filled(rect(0.8, 1.0), 0.0, c);
        }
    }
    for (tick, _) in &log.prints {
        let x = x_of(*tick);
        painter.line_segment(
            [p(x, t.y - 4.0), p(x, t.y + 2.0)],
            egui::Stroke::new(1.5 / k, egui::Color32::WHITE),
        );
    }
    let x = x_of(strip.shown);
    painter.rect_filled(
        egui::Rect::from_center_size(p(x, t.y + t.h / 2.0), egui::vec2(3.0 / k, (t.h + 8.0) / k)),
        1.0,
        egui::Color32::WHITE,
    );
}

/// What the agent was doing at tick `shown`.
fn doing_at(log: &Log, shown: u64) -> String {
    let now = log
        .runs
        .iter()
        .find(|run| run.from <= shown && shown <= run.to);
    match now {
        Some(run) => {
            let mut s = format!("tick {shown}: {}", run.action);
            if let Some(l) = &run.label {
                s.push_str(&format!(" [{l}]"));
            }
            if run.suspended {
                s.push_str(" suspended");
            } else if run.error {
                s.push_str(" error");
            }
            s
        }
        None => format!("tick {shown}: not recorded"),
    }
}

/// The first line the agent printed at tick `shown` (and how many more), cut to `chars`.
fn printed_at(log: &Log, shown: u64, chars: usize) -> Option<String> {
    let printed: Vec<&str> = log
        .prints
        .iter()
        .filter(|(tick, _)| *tick == shown)
        .map(|(_, text)| text.as_str())
        .collect();
    let text = printed.first()?;
    let more = if printed.len() > 1 {
        format!(" (+{})", printed.len() - 1)
    } else {
        String::new()
    };
    Some(super::console::ellipsis(
        &format!("print: {text}{more}"),
        chars,
    ))
}
