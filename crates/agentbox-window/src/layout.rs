//! Where everything goes on screen, worked out once a frame: the status bar and the legend of
//! kinds along the top, the timeline along the bottom, and docks at the edges for the panels
//! (left, from the bar to the timeline: help, or tunables, plots and watches; right: the
//! inspector and its decision strip; bottom, right of the left dock: errors and the console). The map gets what is left ([`Layout::map`]): the camera
//! fits it there, so no panel ever covers the map.
//!
//! Each dock can be collapsed (a click on its header) and resized (a drag on its inner edge);
//! both come from the window's own input, so they are recorded and replayed. The UI scale
//! (Ctrl+= / Ctrl+-) multiplies every text size and dock size. The frame's layout is kept in
//! a thread-local ([`current`]) for the panels to read, as they read macroquad's screen size;
//! this module only measures, it draws the docks' frames and nothing else.

use macroquad::prelude::*;
use std::cell::Cell;

/// Height of the status bar at scale 1, in pixels.
pub const BAR: f32 = 30.0;
/// Height of the legend row under the bar at scale 1.
const LEGEND: f32 = 24.0;
/// Height of the timeline at scale 1.
pub const TIMELINE: f32 = 38.0;
/// Height of a dock's header (its title; a click collapses or opens it) at scale 1.
pub const HEADER: f32 = 22.0;
/// The band either side of a dock's inner edge that a drag resizes, in pixels.
const GRIP: f32 = 5.0;
/// The smallest map area a dock may leave, in pixels.
const MIN_MAP: f32 = 160.0;
/// The UI scales Ctrl+= and Ctrl+- step through.
const SCALES: [f32; 9] = [0.75, 0.875, 1.0, 1.125, 1.25, 1.5, 1.75, 2.0, 2.5];

/// The docks, by edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Bottom,
}

const SIDES: [Side; 3] = [Side::Left, Side::Right, Side::Bottom];

impl Side {
    fn index(self) -> usize {
        self as usize
    }
}

/// What the frame wants docked (whether each dock has something to show).
#[derive(Clone, Copy, Debug, Default)]
pub struct Wanted {
    pub left: Option<&'static str>,
    pub right: Option<&'static str>,
    pub bottom: Option<&'static str>,
    /// Whether the legend row is shown (not in the search mode).
    pub legend: bool,
    /// The left dock holds the help, which wants more room.
    pub help: bool,
    /// Error lines at the top of the bottom dock (six at most).
    pub errors: usize,
    /// The console is open (the bottom dock then takes its full height).
    pub console: bool,
}

/// The frame's layout, in screen pixels.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub screen: Rect,
    /// The status bar.
    pub bar: Rect,
    /// The legend row (zero height when hidden).
    pub legend: Rect,
    pub timeline: Rect,
    /// Each dock's whole rectangle (header included), when shown, by [`Side`].
    pub docks: [Option<Rect>; 3],
    /// Each dock's title.
    pub titles: [&'static str; 3],
    /// Which docks are collapsed to their header.
    pub collapsed: [bool; 3],
    /// What is left for the map.
    pub map: Rect,
    /// The UI scale: text and dock sizes are multiplied by it.
    pub ui: f32,
    /// Error lines at the top of the bottom dock.
    pub errors: usize,
}

/// The height of an error line at scale 1.
pub const ERROR_ROW: f32 = 22.0;

impl Default for Layout {
    fn default() -> Self {
        Docks::default().layout(1280.0, 800.0, Wanted::default())
    }
}

thread_local! {
    static CURRENT: Cell<Layout> = Cell::new(Layout::default());
}

/// This frame's layout (set by the window at the start of each frame).
pub fn current() -> Layout {
    CURRENT.with(Cell::get)
}

/// A painter on egui layer `id` clipped to dock `side` (nothing shown while the dock is not),
/// so no panel's text runs over the map.
pub fn dock_painter(
    ctx: &egui_macroquad::egui::Context,
    id: &str,
    side: Side,
) -> egui_macroquad::egui::Painter {
    use egui_macroquad::egui;
    let k = ctx.pixels_per_point().max(0.1);
    let clip = match current().content(side) {
        Some(r) => egui::Rect::from_min_max(
            egui::pos2(r.x / k, r.y / k),
            egui::pos2((r.x + r.w) / k, (r.y + r.h) / k),
        ),
        None => egui::Rect::NOTHING,
    };
    ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::new(id),
    ))
    .with_clip_rect(clip)
}

/// `size` logical pixels at this frame's UI scale.
pub fn px(size: f32) -> f32 {
    size * current().ui
}

impl Layout {
    /// Makes this the frame's layout.
    pub fn set(self) {
        CURRENT.with(|c| c.set(self));
    }

    /// The part of dock `side` under its header, when it is shown and not collapsed.
    pub fn content(&self, side: Side) -> Option<Rect> {
        let i = side.index();
        let r = self.docks[i]?;
        if self.collapsed[i] {
            return None;
        }
        let h = HEADER * self.ui;
        Some(Rect::new(r.x, r.y + h, r.w, (r.h - h).max(0.0)))
    }

    /// The bottom dock's part under its error lines (the console's).
    pub fn console(&self) -> Option<Rect> {
        let r = self.content(Side::Bottom)?;
        let used = (ERROR_ROW * self.ui * self.errors as f32).min(r.h);
        Some(Rect::new(r.x, r.y + used, r.w, r.h - used))
    }

    /// The header of dock `side`, when shown.
    fn header(&self, side: Side) -> Option<Rect> {
        let r = self.docks[side.index()]?;
        let h = HEADER * self.ui;
        Some(match (side, self.collapsed[side.index()]) {
            (Side::Left | Side::Right, true) => r,
            _ => Rect::new(r.x, r.y, r.w, h.min(r.h)),
        })
    }

    /// The band along dock `side`'s inner edge that a drag resizes.
    fn grip(&self, side: Side) -> Option<Rect> {
        let r = self.docks[side.index()]?;
        if self.collapsed[side.index()] {
            return None;
        }
        Some(match side {
            Side::Left => Rect::new(r.x + r.w - GRIP, r.y, 2.0 * GRIP, r.h),
            Side::Right => Rect::new(r.x - GRIP, r.y, 2.0 * GRIP, r.h),
            Side::Bottom => Rect::new(r.x, r.y - GRIP, r.w, 2.0 * GRIP),
        })
    }

    /// The docks' grounds and title strips, opaque (drawn first, in `opaque::flat`).
    pub fn draw_dock_grounds(&self) {
        let ground = Color::from_rgba(0x17, 0x18, 0x1d, 0xff);
        let head = Color::from_rgba(0x22, 0x24, 0x2c, 0xff);
        for side in SIDES {
            let (Some(r), Some(h)) = (self.docks[side.index()], self.header(side)) else {
                continue;
            };
            draw_rectangle(r.x, r.y, r.w, r.h, ground);
            draw_rectangle(h.x, h.y, h.w, h.h, head);
        }
    }

    /// Draws each dock's title and its edge, over [`Layout::draw_dock_grounds`].
    pub fn draw_docks(&self) {
        let edge = Color::from_rgba(0x55, 0x58, 0x66, 0xff);
        let size = 14.0 * self.ui;
        for side in SIDES {
            let (Some(r), Some(h)) = (self.docks[side.index()], self.header(side)) else {
                continue;
            };
            let collapsed = self.collapsed[side.index()];
            let title = self.titles[side.index()];
            if collapsed && side != Side::Bottom {
                // A narrow strip: the title letter by letter down it.
                let mark = if side == Side::Left { ">" } else { "<" };
                crate::text::ui_text(mark, h.x + 5.0, h.y + size + 4.0, size, WHITE);
                for (i, c) in title.chars().take(40).enumerate() {
                    let y = h.y + (size + 2.0) * (i as f32 + 2.0) + 4.0;
                    if y > h.y + h.h {
                        break;
                    }
                    let s = c.to_string();
                    crate::text::ui_text(&s, h.x + 5.0, y, size, GRAY);
                }
            } else {
                let mark = if collapsed { "[+]" } else { "[-]" };
                let text = format!("{mark} {title}");
                crate::text::ui_text(&text, h.x + 6.0, h.y + h.h * 0.5 + size * 0.35, size, WHITE);
            }
            match side {
                Side::Left => crate::sheet::line(r.x + r.w, r.y, r.x + r.w, r.y + r.h, 1.0, edge),
                Side::Right => crate::sheet::line(r.x, r.y, r.x, r.y + r.h, 1.0, edge),
                Side::Bottom => crate::sheet::line(r.x, r.y, r.x + r.w, r.y, 1.0, edge),
            }
        }
    }
}

/// The docks' sizes, what is collapsed, the UI scale, and a resize under way: what the user
/// chose, kept between frames.
#[derive(Clone, Debug)]
pub struct Docks {
    /// Each dock's size at scale 1 (width for the side docks, height for the bottom one).
    size: [f32; 3],
    collapsed: [bool; 3],
    scale: usize,
    /// The dock being resized and the mouse position when the drag began with its size then.
    resizing: Option<(Side, Vec2, f32)>,
}

impl Default for Docks {
    fn default() -> Self {
        Docks {
            size: [320.0, 360.0, 190.0],
            collapsed: [false; 3],
            scale: 2,
            resizing: None,
        }
    }
}

impl Docks {
    /// The UI scale.
    pub fn ui(&self) -> f32 {
        SCALES[self.scale]
    }

    /// One step larger (`+1`) or smaller (`-1`); the new scale.
    pub fn rescale(&mut self, step: i32) -> f32 {
        self.scale = (self.scale as i32 + step).clamp(0, SCALES.len() as i32 - 1) as usize;
        self.ui()
    }

    /// The docks' sizes and the UI scale to keep between runs (`settings.rs`); none while a
    /// dock is being resized.
    pub fn kept(&self) -> Option<crate::settings::Kept> {
        self.resizing.is_none().then(|| crate::settings::Kept {
            ui_scale: self.ui(),
            dock: crate::settings::DockSizes {
                left: self.size[0],
                right: self.size[1],
                bottom: self.size[2],
            },
        })
    }

    /// The docks with the sizes and the scale kept from an earlier run: the scale nearest to
    /// the kept one, each size within what a drag could make it.
    pub fn with_kept(kept: &crate::settings::Kept) -> Docks {
        let near = |s: &f32| (s - kept.ui_scale).abs();
        let scale = (0..SCALES.len())
            .min_by(|&a, &b| near(&SCALES[a]).total_cmp(&near(&SCALES[b])))
            .unwrap_or(2);
        let defaults = Docks::default();
        let size = |kept: f32, default: f32| {
            if kept.is_finite() {
                kept.clamp(80.0, 4000.0)
            } else {
                default
            }
        };
        let d = kept.dock;
        Docks {
            size: [
                size(d.left, defaults.size[0]),
                size(d.right, defaults.size[1]),
                size(d.bottom, defaults.size[2]),
            ],
            scale,
            ..defaults
        }
    }

    /// The layout of a `w` x `h` screen with the docks `wanted`.
    pub fn layout(&self, w: f32, h: f32, wanted: Wanted) -> Layout {
        let ui = self.ui();
        let bar = Rect::new(0.0, 0.0, w, BAR * ui);
        let legend_h = if wanted.legend { LEGEND * ui } else { 0.0 };
        let legend = Rect::new(0.0, bar.h, w, legend_h);
        let timeline_h = TIMELINE * ui;
        let timeline = Rect::new(0.0, h - timeline_h, w, timeline_h);
        let top = bar.h + legend_h;
        let middle = (timeline.y - top).max(0.0);
        let titles = [
            wanted.left.unwrap_or(""),
            wanted.right.unwrap_or(""),
            wanted.bottom.unwrap_or(""),
        ];
        let header = HEADER * ui;
        let extent = |side: Side, room: f32| {
            let i = side.index();
            let mut size = self.size[i] * ui;
            if side == Side::Left && wanted.help {
                size = size.max(w * 0.6);
            }
            let size = if self.collapsed[i] { header } else { size };
            size.min((room - MIN_MAP).max(header)).max(0.0)
        };
        let bottom_h = match wanted.bottom {
            None => 0.0,
            // Errors alone: just their lines.
            Some(_) if !wanted.console => {
                let rows = wanted.errors.min(6) as f32 * ERROR_ROW * ui + header + 6.0;
                let shut = self.collapsed[Side::Bottom.index()];
                (if shut { header } else { rows }).min((middle - MIN_MAP).max(header))
            }
            Some(_) => extent(Side::Bottom, middle),
        };
        let side_h = (middle - bottom_h).max(0.0);
        let left_w = wanted.left.map_or(0.0, |_| extent(Side::Left, w));
        let right_w = wanted
            .right
            .map_or(0.0, |_| extent(Side::Right, w - left_w));
        // The left dock runs from the bar to the timeline (the help needs the height); the
        // bottom dock runs from it to the right edge, under the map and the right dock.
        let docks = [
            wanted.left.map(|_| Rect::new(0.0, top, left_w, middle)),
            wanted
                .right
                .map(|_| Rect::new(w - right_w, top, right_w, side_h)),
            wanted
                .bottom
                .map(|_| Rect::new(left_w, timeline.y - bottom_h, w - left_w, bottom_h)),
        ];
        Layout {
            screen: Rect::new(0.0, 0.0, w, h),
            bar,
            legend,
            timeline,
            docks,
            titles,
            collapsed: self.collapsed,
            map: Rect::new(
                left_w,
                top,
                (w - left_w - right_w).max(1.0),
                side_h.max(1.0),
            ),
            ui,
            errors: wanted.errors.min(6),
        }
    }

    /// Reads the mouse for the docks: a press on a header collapses or opens that dock, a
    /// drag from an inner edge resizes it. True if the docks took the mouse this frame.
    pub fn handle_mouse(&mut self, input: &crate::input::FrameInput, layout: &Layout) -> bool {
        let at = input.mouse;
        if let Some((side, from, size)) = self.resizing {
            if input.button_down[0] {
                let d = at - from;
                let delta = match side {
                    Side::Left => d.x,
                    Side::Right => -d.x,
                    Side::Bottom => -d.y,
                };
                let i = side.index();
                let room = match side {
                    Side::Bottom => layout.screen.h * 0.6,
                    _ => layout.screen.w * 0.6,
                };
                self.size[i] = ((size * layout.ui + delta).clamp(80.0, room.max(80.0))) / layout.ui;
            }
            if !input.button_down[0] || input.button_released[0] {
                self.resizing = None;
            }
            return true;
        }
        if !input.button_pressed[0] {
            return false;
        }
        for side in SIDES {
            if layout.grip(side).is_some_and(|g| g.contains(at)) {
                self.resizing = Some((side, at, self.size[side.index()]));
                return true;
            }
        }
        for side in SIDES {
            if layout.header(side).is_some_and(|h| h.contains(at)) {
                let i = side.index();
                self.collapsed[i] = !self.collapsed[i];
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: Rect, b: Rect) -> bool {
        a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
    }

    #[test]
    fn no_dock_overlaps_the_map_or_another_at_common_sizes() {
        let all = Wanted {
            left: Some("tunables"),
            right: Some("inspector"),
            bottom: Some("console"),
            legend: true,
            help: false,
            errors: 2,
            console: true,
        };
        for (w, h) in [
            (1024.0, 768.0),
            (1280.0, 800.0),
            (1920.0, 1080.0),
            (640.0, 480.0),
        ] {
            for help in [false, true] {
                let l = Docks::default().layout(w, h, Wanted { help, ..all });
                let mut taken = vec![l.bar, l.timeline];
                taken.extend(l.docks.iter().flatten());
                for r in &taken {
                    assert!(
                        !overlaps(*r, l.map),
                        "{w}x{h}: {r:?} over the map {:?}",
                        l.map
                    );
                }
                for (i, a) in taken.iter().enumerate() {
                    for b in &taken[i + 1..] {
                        assert!(!overlaps(*a, *b), "{w}x{h}: {a:?} over {b:?}");
                    }
                }
                assert!(
                    l.map.w >= MIN_MAP.min(w / 4.0) && l.map.h > 100.0,
                    "{w}x{h}: {:?}",
                    l.map
                );
            }
        }
    }

    #[test]
    fn a_collapsed_dock_gives_its_room_to_the_map_and_scale_grows_docks() {
        let wanted = Wanted {
            right: Some("inspector"),
            ..Wanted::default()
        };
        let mut docks = Docks::default();
        let open = docks.layout(1280.0, 800.0, wanted);
        docks.collapsed[Side::Right.index()] = true;
        let shut = docks.layout(1280.0, 800.0, wanted);
        assert!(shut.map.w > open.map.w + 200.0);
        assert!(shut.content(Side::Right).is_none());
        docks.collapsed = [false; 3];
        docks.rescale(1);
        let big = docks.layout(1280.0, 800.0, wanted);
        assert!(big.docks[1].unwrap().w > open.docks[1].unwrap().w);
        assert!(big.bar.h > open.bar.h);
    }

    #[test]
    fn kept_docks_come_back_as_they_were_and_bad_numbers_do_not() {
        let mut docks = Docks::default();
        docks.rescale(2);
        docks.size[Side::Right.index()] = 455.0;
        let kept = docks.kept().unwrap();
        let back = Docks::with_kept(&kept);
        assert_eq!(back.kept(), Some(kept.clone()));
        let odd = crate::settings::Kept {
            ui_scale: f32::NAN,
            dock: crate::settings::DockSizes {
                left: f32::INFINITY,
                right: -5.0,
                bottom: 1e9,
            },
        };
        let safe = Docks::with_kept(&odd).kept().unwrap();
        assert!(safe.ui_scale.is_finite());
        assert_eq!(safe.dock.left, 320.0);
        assert_eq!((safe.dock.right, safe.dock.bottom), (80.0, 4000.0));
    }
}
