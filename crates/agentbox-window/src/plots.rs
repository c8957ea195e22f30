//! The plots panel (under the sliders, Tab or J): a live chart per name, from the scene's
//! `monitors:` (every K ticks, in a Lua state of their own) and what scripts `plot`, folded per
//! tick by the name's rule. Display only: it reads the live world after each tick and the
//! tally `plot` keeps, which the trace never reads, so it cannot change the run.
//!
//! It must not change the world or the session beyond turning plot collection on.

use agentbox_core::scene::file::MonitorsSpec;
use agentbox_session::experiment::monitors::Monitors;
use agentbox_session::history::History;
use egui_macroquad::egui;
use std::collections::{BTreeMap, VecDeque};

/// Points kept per name (the chart shows the latest).
const KEEP: usize = 3000;
/// Charts shown at most.
const CHARTS: usize = 6;
const CHART_H: f32 = 80.0;

/// Every name's points, and the monitors that make some of them.
#[derive(Default)]
pub struct Plots {
    monitors: Option<(MonitorsSpec, Monitors)>,
    series: BTreeMap<String, VecDeque<(u64, f64)>>,
}

impl Plots {
    /// After a live tick: this tick's plots and, when due, the monitors' values.
    pub fn after_tick(&mut self, history: &mut History) {
        let scene = history.session().scene();
        let spec = scene.monitors.clone();
        if self.monitors.as_ref().is_none_or(|(s, _)| *s != spec) {
            let seed = history.session().world().seed;
            let made = Monitors::new(
                &spec,
                seed,
                scene.budget.instructions,
                agentbox_lua::Echo::Stderr,
            );
            self.monitors = made.ok().map(|m| (spec, m));
        }
        let session = history.session_mut();
        let (world, host) = session.world_and_host();
        let plots = host.take_plots();
        // Collect from the next tick on (a reset or a branch makes a new session).
        host.collect_plots(true);
        let Some((_, monitors)) = &mut self.monitors else {
            return;
        };
        let due = monitors.due(world.tick);
        for point in monitors.observe(world, plots, due) {
            let s = self.series.entry(point.name).or_default();
            s.push_back((point.tick, point.value));
            if s.len() > KEEP {
                s.pop_front();
            }
        }
    }

    /// Forgets the points after tick `at` (a branch), or all of them (a reset: `at` 0).
    pub fn cut(&mut self, at: u64) {
        for s in self.series.values_mut() {
            while s.back().is_some_and(|(t, _)| *t > at) {
                s.pop_back();
            }
        }
        self.series.retain(|_, s| !s.is_empty());
    }
}

fn number(v: f64) -> String {
    if v.abs() >= 1000.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// A step of 1, 2 or 5 times a power of ten giving at most about `most` steps over `span`.
fn nice_step(span: u64, most: u64) -> u64 {
    let rough = span.div_ceil(most.max(1)).max(1);
    let mut power = 1u64;
    loop {
        for m in [1, 2, 5] {
            if power.saturating_mul(m) >= rough {
                return power.saturating_mul(m);
            }
        }
        power = power.saturating_mul(10);
    }
}

/// The tick axis under a chart: a baseline at (x0, y) `w` wide over ticks `t0..=t1`, with a
/// mark and the tick's number at each round step.
fn paint_axis(
    painter: &egui::Painter,
    k: f32,
    ui: f32,
    (x0, y, w): (f32, f32, f32),
    (t0, t1): (u64, u64),
    font: &egui::FontId,
) {
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let grey = egui::Color32::from_gray(0x88);
    painter.line_segment([p(x0, y), p(x0 + w, y)], egui::Stroke::new(1.0 / k, grey));
    let span = t1.saturating_sub(t0).max(1);
    // About one number per 70 pixels.
    let step = nice_step(span, ((w / (70.0 * ui)) as u64).max(1));
    let mut t = t0.div_ceil(step) * step;
    while t <= t1.max(t0) {
        let x = x0 + w * (t - t0) as f32 / span as f32;
        painter.line_segment(
            [p(x, y), p(x, y + 4.0 * ui)],
            egui::Stroke::new(1.0 / k, grey),
        );
        painter.text(
            p(x, y + 5.0 * ui),
            egui::Align2::CENTER_TOP,
            t.to_string(),
            font.clone(),
            egui::Color32::from_gray(0xaa),
        );
        t += step;
    }
}

/// Paints the charts from `top`, with a line at the tick shown.
pub fn paint(ctx: &egui::Context, plots: &Plots, top: f32, shown: u64) {
    let k = ctx.pixels_per_point().max(0.1);
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let painter = super::layout::dock_painter(ctx, "plots", super::layout::Side::Left);
    let layout = super::layout::current();
    let Some(dock) = layout.content(super::layout::Side::Left) else {
        return;
    };
    let ui = layout.ui;
    let (left, width) = (dock.x + 4.0, dock.w - 8.0);
    let chart_h = CHART_H * ui;
    // As many charts as the dock holds above the watches' rows.
    let room = dock.y + dock.h - top - 26.0 * ui;
    let fits = (room / (chart_h + 8.0)).floor().max(0.0) as usize;
    let n = plots.series.len().min(CHARTS).min(fits);
    let height = 26.0 * ui + (chart_h + 8.0) * n.max(1) as f32;
    painter.rect_filled(
        egui::Rect::from_min_max(p(left, top), p(left + width, top + height)),
        4.0,
        egui::Color32::from_rgb(0x12, 0x13, 0x17),
    );
    let font = egui::FontId::monospace(13.0 * ui / k);
    let small = egui::FontId::monospace(12.0 * ui / k);
    painter.text(
        p(left + 10.0, top + 13.0 * ui),
        egui::Align2::LEFT_CENTER,
        if n == 0 {
            "Plots: none yet (monitors:, plot())"
        } else {
            "Plots"
        },
        font.clone(),
        egui::Color32::from_gray(0xee),
    );
    for (i, (name, s)) in plots.series.iter().take(n).enumerate() {
        let y0 = top + 26.0 * ui + (chart_h + 8.0) * i as f32;
        // Room under the chart for the tick axis' numbers.
        let (x0, w, h) = (left + 10.0, width - 20.0, chart_h - 30.0 * ui);
        let cy = y0 + 14.0 * ui;
        let lo = s.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
        let hi = s.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
        let (t0, t1) = (s.front().map_or(0, |x| x.0), s.back().map_or(1, |x| x.0));
        let last = s.back().map_or(0.0, |x| x.1);
        painter.text(
            p(x0, y0 + 6.0),
            egui::Align2::LEFT_CENTER,
            format!("{name} = {}", number(last)),
            small.clone(),
            egui::Color32::from_gray(0xdd),
        );
        painter.text(
            p(x0 + w, y0 + 6.0),
            egui::Align2::RIGHT_CENTER,
            format!("{} .. {}", number(lo), number(hi)),
            small.clone(),
            egui::Color32::from_gray(0x99),
        );
        painter.rect_filled(
            egui::Rect::from_min_max(p(x0, cy), p(x0 + w, cy + h)),
            0.0,
            egui::Color32::from_gray(0x24),
        );
        let span = (t1.saturating_sub(t0)).max(1) as f32;
        let x_of = |t: u64| x0 + w * (t.saturating_sub(t0)) as f32 / span;
        let y_of = |v: f64| {
            let f = if hi > lo {
                ((v - lo) / (hi - lo)) as f32
            } else {
                0.5
            };
            cy + h - 2.0 - (h - 4.0) * f
        };
        let line: Vec<egui::Pos2> = s.iter().map(|&(t, v)| p(x_of(t), y_of(v))).collect();
        painter.add(egui::Shape::line(
            line,
            egui::Stroke::new(1.5 / k, egui::Color32::from_rgb(0x6c, 0xd0, 0x8a)),
        ));
        paint_axis(&painter, k, ui, (x0, cy + h, w), (t0, t1), &small);
        if shown >= t0 && shown < t1 {
            painter.line_segment(
                [p(x_of(shown), cy), p(x_of(shown), cy + h)],
                egui::Stroke::new(1.0 / k, egui::Color32::from_gray(0xf0)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::nice_step;

    #[test]
    fn axis_steps_are_round_numbers() {
        assert_eq!(nice_step(300, 4), 100);
        assert_eq!(nice_step(90, 4), 50);
        assert_eq!(nice_step(7, 4), 2);
        assert_eq!(nice_step(1, 4), 1);
        assert_eq!(nice_step(12_000, 5), 5000);
    }
}
