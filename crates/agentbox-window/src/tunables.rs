//! The tunables panel (Tab): a slider per tunable of the scene (`params` declared with a range),
//! painted with egui; drags are read from the window's own input (`input.rs`), so recorded
//! input drives them. A change applies from the next tick through `History::set_tunable`, so
//! it is recorded and a replay applies it; while the designer looks at the past the sliders
//! show that tick's values and do not move. Ctrl+Z (panel open) undoes the last change, a
//! click on "reset" restores the scene's values, and Ctrl+S writes the values into the scene
//! file (`Session::save_tunables`). Below the sliders sits the plots panel (`plots.rs`).
//!
//! It changes the run only through `History`; it must not touch the world itself.

use agentbox_core::scene::tunable::Tunable;
use agentbox_core::world::World;
use agentbox_session::history::History;
use agentbox_session::session::Session;
use egui_macroquad::egui;
use macroquad::prelude::*;

/// The panel's place: the top of the left dock (`layout.rs`), or off screen without it.
fn place() -> Rect {
    match super::layout::current().content(super::layout::Side::Left) {
        Some(d) => Rect::new(d.x + 4.0, d.y + 4.0, d.w - 8.0, d.h - 8.0),
        None => Rect::new(-10_000.0, -10_000.0, 300.0, 0.0),
    }
}

/// A slider row's height, and the title's, at this frame's UI scale.
fn row() -> f32 {
    super::layout::px(40.0)
}

fn title() -> f32 {
    super::layout::px(26.0)
}

/// The panel's state: open or not, the slider being dragged, the changes to undo.
#[derive(Default)]
pub struct Panel {
    pub open: bool,
    dragging: Option<usize>,
    /// (tunable, value before the change), newest last.
    undo: Vec<(String, f64)>,
}

/// The track of row `i`.
fn track(i: usize) -> Rect {
    let at = place();
    Rect::new(
        at.x + 10.0,
        at.y + title() + row() * i as f32 + super::layout::px(20.0),
        at.w - 20.0,
        12.0,
    )
}

/// The reset button under `rows` rows.
fn reset_button(rows: usize) -> Rect {
    let at = place();
    Rect::new(
        at.x + 10.0,
        at.y + title() + row() * rows as f32 + 4.0,
        super::layout::px(180.0),
        super::layout::px(22.0),
    )
}

/// Where the sliders end (the plots start below).
pub fn bottom(rows: usize) -> f32 {
    // Without tunables the hint takes two lines.
    let below = if rows == 0 { 48.0 } else { 34.0 };
    place().y + title() + row() * rows as f32 + super::layout::px(below)
}

/// The value at screen x on a tunable's track.
fn value_at(t: &Tunable, r: Rect, x: f32) -> f64 {
    let f = ((x - r.x) / r.w).clamp(0.0, 1.0) as f64;
    t.clamp(t.min + f * (t.max - t.min))
}

impl Panel {
    /// Reads a frame's mouse for the panel: true if the panel took it (nothing under it then
    /// sees the press). `status` gets what to show in the HUD.
    pub fn handle_mouse(
        &mut self,
        input: &super::input::FrameInput,
        history: &mut History,
        in_past: bool,
        status: &mut Option<String>,
    ) -> bool {
        if !self.open {
            return false;
        }
        let tunables = history.session().scene().tunables.clone();
        let n = tunables.len();
        let at = place();
        let inside = Rect::new(at.x, at.y, at.w, bottom(n) - at.y).contains(input.mouse);
        if input.button_pressed[0] {
            if let Some(i) = (0..n).find(|&i| {
                let r = track(i);
                Rect::new(r.x - 6.0, r.y - 8.0, r.w + 12.0, r.h + 16.0).contains(input.mouse)
            }) {
                if in_past {
                    *status =
                        Some("looking at the past: Space branches here, End goes back".into());
                    return true;
                }
                self.dragging = Some(i);
                let t = &tunables[i];
                self.undo
                    .push((t.name.clone(), history.session().tunable_value(t)));
            } else if reset_button(n).contains(input.mouse) {
                if in_past {
                    *status =
                        Some("looking at the past: Space branches here, End goes back".into());
                } else {
                    for t in &tunables {
                        let now = history.session().tunable_value(t);
                        if now != t.value {
                            self.undo.push((t.name.clone(), now));
                            history.set_tunable(&t.name, t.value);
                        }
                    }
                    *status = Some("tunables reset to the scene's values".into());
                }
                return true;
            }
        }
        let Some(i) = self.dragging else {
            return inside && (input.button_pressed[0] || input.button_down[0]);
        };
        if let Some(t) = tunables.get(i) {
            if !in_past {
                let v = value_at(t, track(i), input.mouse.x);
                if v != history.session().tunable_value(t) {
                    if let Some(set) = history.set_tunable(&t.name, v) {
                        *status = Some(format!("{} = {set} from the next tick", t.name));
                    }
                }
            }
        }
        if input.button_released[0] || !input.button_down[0] {
            self.dragging = None;
            // A press and release that changed nothing leaves nothing to undo.
            if let (Some((name, before)), Some(t)) = (self.undo.last(), tunables.get(i)) {
                if *name == t.name && *before == history.session().tunable_value(t) {
                    self.undo.pop();
                }
            }
        }
        true
    }

    /// Ctrl+Z with the panel open: the last change undone (recorded like any change).
    pub fn undo(&mut self, history: &mut History) -> Option<String> {
        let (name, value) = self.undo.pop()?;
        history.set_tunable(&name, value)?;
        Some(format!("undone: {name} = {value}"))
    }

    /// Forgets the undo list (a reset starts a new history).
    pub fn forget(&mut self) {
        self.undo.clear();
        self.dragging = None;
    }
}

/// What the panel shows: each tunable with its value in the session shown.
pub struct Sliders {
    pub rows: Vec<(Tunable, f64)>,
    pub past: bool,
}

impl Sliders {
    /// The live scene's tunables, with their values in the world shown (a past tick's).
    pub fn of(session: &Session, shown: &World, past: bool) -> Sliders {
        Sliders {
            rows: session
                .scene()
                .tunables
                .iter()
                .map(|t| (t.clone(), t.value_in(shown)))
                .collect(),
            past,
        }
    }
}

fn number(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Paints the sliders.
pub fn paint(ctx: &egui::Context, view: &Sliders) {
    let k = ctx.pixels_per_point().max(0.1);
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let painter = super::layout::dock_painter(ctx, "tunables", super::layout::Side::Left);
    let n = view.rows.len();
    let at = place();
    painter.rect_filled(
        egui::Rect::from_min_max(p(at.x, at.y), p(at.x + at.w, bottom(n))),
        4.0,
        egui::Color32::from_rgb(0x12, 0x13, 0x17),
    );
    let font = egui::FontId::monospace(super::layout::px(13.0) / k);
    let heading = if view.past {
        "Tunables at this tick (Space branches)"
    } else {
        "Tunables (Ctrl+Z undo, Ctrl+S save)"
    };
    painter.text(
        p(at.x + 10.0, at.y + title() / 2.0),
        egui::Align2::LEFT_CENTER,
        heading,
        font.clone(),
        egui::Color32::from_gray(0xee),
    );
    if n == 0 {
        painter.text(
            p(at.x + 10.0, at.y + title() + 14.0),
            egui::Align2::LEFT_CENTER,
            "no tunables: give a param",
            font.clone(),
            egui::Color32::from_gray(0x99),
        );
        painter.text(
            p(at.x + 10.0, at.y + title() + 14.0 + super::layout::px(18.0)),
            egui::Align2::LEFT_CENTER,
            "{ value, min, max }",
            font.clone(),
            egui::Color32::from_gray(0x99),
        );
    }
    for (i, (t, v)) in view.rows.iter().enumerate() {
        paint_slider(&painter, k, &font, track(i), t, *v);
    }
    if n == 0 {
        return;
    }
    let b = reset_button(n);
    painter.rect_filled(
        egui::Rect::from_min_max(p(b.x, b.y), p(b.x + b.w, b.y + b.h)),
        3.0,
        egui::Color32::from_gray(0x33),
    );
    painter.text(
        p(b.x + b.w / 2.0, b.y + b.h / 2.0),
        egui::Align2::CENTER_CENTER,
        "reset to the scene's",
        font,
        egui::Color32::from_gray(0xdd),
    );
}

/// One slider on track `r`: the name, the value (and the scene's when it differs), the bar
/// and the knob.
fn paint_slider(
    painter: &egui::Painter,
    k: f32,
    font: &egui::FontId,
    r: Rect,
    t: &Tunable,
    v: f64,
) {
    let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
    let changed = v != t.value;
    painter.text(
        p(r.x, r.y - 10.0),
        egui::Align2::LEFT_CENTER,
        &t.name,
        font.clone(),
        egui::Color32::from_gray(0xdd),
    );
    painter.text(
        p(r.x + r.w, r.y - 10.0),
        egui::Align2::RIGHT_CENTER,
        format!(
            "{}{}",
            number(v),
            if changed {
                format!(" (scene {})", number(t.value))
            } else {
                String::new()
            }
        ),
        font.clone(),
        if changed {
            egui::Color32::from_rgb(0xff, 0xc8, 0x57)
        } else {
            egui::Color32::from_gray(0xdd)
        },
    );
    painter.rect_filled(
        egui::Rect::from_min_max(p(r.x, r.y + 4.0), p(r.x + r.w, r.y + 8.0)),
        2.0,
        egui::Color32::from_gray(0x55),
    );
    let f = ((v - t.min) / (t.max - t.min)).clamp(0.0, 1.0) as f32;
    let x = r.x + r.w * f;
    painter.rect_filled(
        egui::Rect::from_min_max(p(r.x, r.y + 4.0), p(x, r.y + 8.0)),
        2.0,
        egui::Color32::from_rgb(0x4a, 0x9e, 0xe8),
    );
    painter.circle_filled(p(x, r.y + 6.0), 7.0 / k, egui::Color32::from_gray(0xf4));
}
