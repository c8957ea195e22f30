//! Agents on the map: a marker per agent in its colour (the scene's `color:`, else its kind's;
//! `shape:` circle, an arrow along its heading, a square or a diamond), then heading lines on
//! the round ones, then one tag per agent under it: its name and, with labels on (L), the
//! state its script set (`self:label`) in that label's colour. Markers, heading lines and the
//! tags' boxes and text share one texture with the grid (`sheet.rs`), so they batch into one
//! draw call.
//!
//! Tags never pile up: the selected and the hovered agent are always tagged (framed, drawn
//! first so they win); any other agent is tagged only when its marker is at least
//! [`LABEL_MIN_RADIUS`] pixels and its tag would cover neither a tag already placed nor
//! another agent's marker ([`Occupancy`]). Agents are taken in the world's order, so the same
//! view always shows the same tags.

use super::camera::Camera;
use super::palette::agent_color;
use crate::sheet;
use agentbox_core::world::{Agent, Marker, World};
use macroquad::prelude::*;

/// Where an agent's disc goes and how big it is: a multi-tile body (`size`, top-left cell at
/// its position) is drawn centred on its footprint.
fn body(agent: &agentbox_core::world::Agent, camera: &Camera) -> (Vec2, f32) {
    let extra = (agent.size.max(1) - 1) as f64 / 2.0;
    let p = camera.to_screen(agent.pos + ::glam::DVec2::splat(extra));
    let r = (agent.radius.max(agent.size as f64 * 0.42) as f32 * camera.tile).max(2.5);
    (p, r)
}

/// Discs smaller than this (in pixels) get no label unless selected or hovered.
pub const LABEL_MIN_RADIUS: f32 = 7.0;
/// Tag text size in logical pixels (at UI scale 1).
const LABEL_SIZE: f32 = 14.0;

/// Screen rectangles already taken, bucketed in a coarse grid so a crowd's labels are placed
/// in time proportional to the agents on screen.
pub struct Occupancy {
    cell: f32,
    buckets: std::collections::HashMap<(i32, i32), Vec<Rect>>,
}

impl Occupancy {
    pub fn new(cell: f32) -> Self {
        Occupancy {
            cell: cell.max(1.0),
            buckets: std::collections::HashMap::new(),
        }
    }

    fn cells(&self, r: Rect) -> impl Iterator<Item = (i32, i32)> {
        let (x0, x1) = (
            (r.x / self.cell).floor() as i32,
            ((r.x + r.w) / self.cell).floor() as i32,
        );
        let (y0, y1) = (
            (r.y / self.cell).floor() as i32,
            ((r.y + r.h) / self.cell).floor() as i32,
        );
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| (x, y)))
    }

    /// Marks `r` as taken.
    pub fn take(&mut self, r: Rect) {
        for c in self.cells(r).collect::<Vec<_>>() {
            self.buckets.entry(c).or_default().push(r);
        }
    }

    /// Whether `r` overlaps anything taken; `except` is ignored (an agent's own disc).
    pub fn overlaps(&self, r: Rect, except: Option<Rect>) -> bool {
        self.cells(r).any(|c| {
            self.buckets.get(&c).is_some_and(|rs| {
                rs.iter()
                    .any(|o| Some(*o) != except && overlap_area(o, &r) > 0.0)
            })
        })
    }
}

fn overlap_area(a: &Rect, b: &Rect) -> f32 {
    let w = (a.x + a.w).min(b.x + b.w) - a.x.max(b.x);
    let h = (a.y + a.h).min(b.y + b.h) - a.y.max(b.y);
    w.max(0.0) * h.max(0.0)
}

/// Which of `labels` to draw, and where: each is (label box, the agent's disc box, forced),
/// the box under the disc. Forced labels (selected, hovered) are always drawn there; the others
/// where they cover no label placed before them and no other disc: under the disc, or else the
/// same box just above it, so a neighbour standing right below does not take an agent's name
/// away. Returns (index, how far the box moved up or down), in drawing order.
pub fn declutter(labels: &[(Rect, Rect, bool)], discs: &[Rect]) -> Vec<(usize, f32)> {
    let cell = labels.iter().map(|(l, _, _)| l.w).fold(16.0_f32, f32::max);
    let mut taken = Occupancy::new(cell);
    for d in discs {
        taken.take(*d);
    }
    let mut out = Vec::new();
    let forced = labels.iter().enumerate().filter(|(_, l)| l.2);
    let others = labels.iter().enumerate().filter(|(_, l)| !l.2);
    for (i, (label, own, is_forced)) in forced.chain(others) {
        if *is_forced || !taken.overlaps(*label, Some(*own)) {
            taken.take(*label);
            out.push((i, 0.0));
            continue;
        }
        let gap = label.y - (own.y + own.h);
        let above = Rect::new(label.x, own.y - gap - label.h, label.w, label.h);
        if !taken.overlaps(above, Some(*own)) {
            taken.take(above);
            out.push((i, above.y - label.y));
        }
    }
    out
}

/// Who is tagged whatever the crowd, and whether state labels are on.
pub struct Tags<'a> {
    pub selected: Option<&'a str>,
    pub hovered: Option<&'a str>,
    /// Show each script's `self:label` in the tag (L).
    pub labels: bool,
}

/// The marker an agent is drawn as (circle unless the scene chose one).
pub fn marker_of(agent: &Agent) -> Marker {
    agent.look.shape.unwrap_or(Marker::Circle)
}

/// Draws a marker other than the disc texture's circle (or a plain circle, for the legend):
/// centre `p`, half-size `r`, facing `dir` (a unit vector; arrows point along it).
pub fn draw_marker(p: Vec2, r: f32, shape: Marker, colour: Color, dir: Vec2) {
    let rim = Color::from_rgba(0x10, 0x10, 0x10, 0xe0);
    let width = (r * 0.18).clamp(1.0, 3.0);
    match shape {
        Marker::Circle => {
            // As many sides as the size needs (a legend's 8-pixel circle looks round with
            // 12): macroquad's default 20 and 30 cost 80 triangles a marker.
            let sides = (r * 1.5).clamp(10.0, 30.0) as u8;
            sheet::poly(p.x, p.y, sides, r, colour);
            sheet::poly_lines(p.x, p.y, sides, r, width, rim);
        }
        Marker::Square => {
            let s = r * 0.9;
            sheet::rectangle(p.x - s, p.y - s, 2.0 * s, 2.0 * s, colour);
            sheet::rectangle_lines(p.x - s, p.y - s, 2.0 * s, 2.0 * s, width, rim);
        }
        Marker::Diamond => {
            let pts = [
                p + vec2(0.0, -r * 1.15),
                p + vec2(r * 1.15, 0.0),
                p + vec2(0.0, r * 1.15),
                p + vec2(-r * 1.15, 0.0),
            ];
            sheet::triangle(pts[0], pts[1], pts[2], colour);
            sheet::triangle(pts[0], pts[2], pts[3], colour);
            for i in 0..4 {
                let (a, b) = (pts[i], pts[(i + 1) % 4]);
                sheet::line(a.x, a.y, b.x, b.y, width, rim);
            }
        }
        Marker::Arrow => {
            let side = vec2(-dir.y, dir.x);
            let tip = p + dir * r * 1.35;
            let back = p - dir * r * 0.9;
            let (a, b) = (back + side * r * 0.95, back - side * r * 0.95);
            sheet::triangle(tip, a, b, colour);
            sheet::line(tip.x, tip.y, a.x, a.y, width, rim);
            sheet::line(a.x, a.y, b.x, b.y, width, rim);
            sheet::line(b.x, b.y, tip.x, tip.y, width, rim);
        }
    }
}

pub fn draw(world: &World, camera: &Camera, tags: &Tags) {
    let area = camera.area();
    let visible = |p: Vec2, r: f32| {
        p.x + r >= area.x
            && p.y + r >= area.y
            && p.x - r <= area.x + area.w
            && p.y - r <= area.y + area.h
    };
    // Crowds are runs of one kind: its colour is looked up once a run.
    let mut last: Option<(&str, Color)> = None;
    for agent in &world.agents {
        let (p, r) = body(agent, camera);
        if !visible(p, r) {
            continue;
        }
        let colour = match (agent.look.color, last) {
            (None, Some((kind, c))) if kind == agent.kind => c,
            _ => {
                let c = agent_color(agent);
                if agent.look.color.is_none() {
                    last = Some((agent.kind.as_str(), c));
                }
                c
            }
        };
        match marker_of(agent) {
            Marker::Circle => sheet::disc(p.x - r, p.y - r, 2.0 * r, colour),
            shape => {
                let f = agent.facing();
                draw_marker(p, r, shape, colour, vec2(f.x as f32, f.y as f32));
            }
        }
    }
    for agent in &world.agents {
        let (p, r) = body(agent, camera);
        if !visible(p, r) || r < 4.0 {
            continue;
        }
        if marker_of(agent) != Marker::Arrow {
            let facing = agent.facing();
            let dir = vec2(facing.x as f32, facing.y as f32);
            let tip = p + dir * r * 1.5;
            sheet::line(
                p.x,
                p.y,
                tip.x,
                tip.y,
                (r * 0.25).max(1.5),
                Color::from_rgba(0x10, 0x10, 0x10, 230),
            );
        }
        if agent.error.is_some() {
            sheet::poly_lines(p.x, p.y, 30, r * 1.45, 2.0, RED);
        }
        if tags.selected == Some(agent.id.as_str()) {
            sheet::poly_lines(
                p.x,
                p.y,
                30,
                r * 1.7,
                2.5,
                Color::from_rgba(0xff, 0xd0, 0x00, 0xff),
            );
        }
    }
    draw_tags(world, camera, tags, visible);
}

/// One agent's tag: where it goes and what it says.
struct Tag<'a> {
    id: &'a str,
    label: Option<&'a str>,
    /// Left end of the text's baseline.
    at: Vec2,
    id_width: f32,
    forced: bool,
}

fn draw_tags(world: &World, camera: &Camera, tags: &Tags, visible: impl Fn(Vec2, f32) -> bool) {
    let forced = |id: &str| tags.selected == Some(id) || tags.hovered == Some(id);
    let size = crate::layout::px(LABEL_SIZE);
    let mut boxes = Vec::new();
    let mut discs = Vec::new();
    let mut who = Vec::new();
    for agent in &world.agents {
        let (p, r) = body(agent, camera);
        if !visible(p, r) {
            continue;
        }
        let disc = Rect::new(p.x - r, p.y - r, 2.0 * r, 2.0 * r);
        discs.push(disc);
        let is_forced = forced(&agent.id);
        if r < LABEL_MIN_RADIUS && !is_forced {
            continue;
        }
        let label = agent.label.as_deref().filter(|_| tags.labels);
        let id_width = crate::text::measure(&agent.id, size).width;
        let label_width = label.map_or(0.0, |l| crate::text::measure(l, size).width + 8.0);
        let width = id_width + label_width;
        let dims = crate::text::measure("Ag", size);
        let baseline = p.y + r + 4.0 + dims.offset_y;
        let tag = Rect::new(
            p.x - width / 2.0 - 3.0,
            baseline - dims.offset_y - 2.0,
            width + 6.0,
            dims.height.max(dims.offset_y) + 4.0,
        );
        boxes.push((tag, disc, is_forced));
        who.push(Tag {
            id: agent.id.as_str(),
            label,
            at: vec2(p.x - width / 2.0, baseline),
            id_width,
            forced: is_forced,
        });
    }
    if boxes.iter().all(|l| l.2) {
        // Only forced tags: nothing to keep clear of.
        discs.clear();
    }
    // Boxes first, then every tag's text over them (`text_last`).
    crate::text::text_last(|| draw_decluttered(&boxes, &discs, &who, size));
}

/// Draws the tags [`declutter`] keeps: each one's box, then its name and label.
fn draw_decluttered(boxes: &[(Rect, Rect, bool)], discs: &[Rect], who: &[Tag], size: f32) {
    for (i, dy) in declutter(boxes, discs) {
        let tag = &who[i];
        let mut b = boxes[i].0;
        b.y += dy;
        let at_y = tag.at.y + dy;
        crate::sheet::rectangle(b.x, b.y, b.w, b.h, Color::from_rgba(0x10, 0x10, 0x14, 0xc8));
        if tag.forced {
            crate::sheet::rectangle_lines(
                b.x,
                b.y,
                b.w,
                b.h,
                1.5,
                Color::from_rgba(0xff, 0xd0, 0x00, 0xff),
            );
        }
        crate::text::ui_text(tag.id, tag.at.x, at_y, size, WHITE);
        if let Some(label) = tag.label {
            let x = tag.at.x + tag.id_width + 8.0;
            crate::text::ui_text(label, x, at_y, size, crate::labels::label_color(label));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect::new(x, y, w, h)
    }

    /// The indices `declutter` keeps, in drawing order.
    fn kept(labels: &[(Rect, Rect, bool)], discs: &[Rect]) -> Vec<usize> {
        declutter(labels, discs)
            .into_iter()
            .map(|(i, _)| i)
            .collect()
    }

    // Tags sit 2 px under their disc (as `draw_tags` makes them); the spot above is as far
    // over the disc: for a 20 px disc at y 0 and a 12 px tag, y 22..34 under, y -14..-2 above.

    #[test]
    fn a_label_that_would_cover_another_goes_above_its_agent() {
        let labels = [
            (r(0.0, 22.0, 40.0, 12.0), r(10.0, 0.0, 20.0, 20.0), false),
            // Its spot under overlaps the first label: above instead.
            (r(30.0, 22.0, 40.0, 12.0), r(40.0, 0.0, 20.0, 20.0), false),
            // Clear of both: under.
            (r(100.0, 22.0, 40.0, 12.0), r(110.0, 0.0, 20.0, 20.0), false),
        ];
        let discs: Vec<Rect> = labels.iter().map(|l| l.1).collect();
        assert_eq!(
            declutter(&labels, &discs),
            vec![(0, 0.0), (1, -36.0), (2, 0.0)]
        );
    }

    #[test]
    fn a_label_with_both_spots_over_other_discs_is_skipped_but_its_own_is_no_obstacle() {
        let labels = [
            // Agent 0 between agent 1 (right below) and agent 2 (right above): under covers
            // agent 1's disc, above covers agent 2's: skipped.
            (r(0.0, 22.0, 40.0, 12.0), r(10.0, 0.0, 20.0, 20.0), false),
            (r(0.0, 46.0, 40.0, 12.0), r(10.0, 24.0, 20.0, 20.0), false),
            // Agent 2's spot under covers agent 0's disc; above is clear.
            (r(0.0, -2.0, 40.0, 12.0), r(10.0, -24.0, 20.0, 20.0), false),
        ];
        let discs: Vec<Rect> = labels.iter().map(|l| l.1).collect();
        assert_eq!(declutter(&labels, &discs), vec![(1, 0.0), (2, -36.0)]);
    }

    #[test]
    fn the_selected_or_hovered_label_wins_wherever_it_is() {
        let labels = [
            (r(0.0, 22.0, 40.0, 12.0), r(10.0, 0.0, 20.0, 20.0), false),
            (r(20.0, 22.0, 40.0, 12.0), r(30.0, 0.0, 20.0, 20.0), true),
        ];
        let discs: Vec<Rect> = labels.iter().map(|l| l.1).collect();
        // The forced one is placed first, under its agent; the plain one it covers moves.
        assert_eq!(declutter(&labels, &discs), vec![(1, 0.0), (0, -36.0)]);
    }

    #[test]
    fn labels_far_apart_in_a_large_crowd_are_all_kept() {
        let labels: Vec<(Rect, Rect, bool)> = (0..50)
            .map(|i| {
                let x = i as f32 * 100.0;
                (r(x, 0.0, 40.0, 12.0), r(x + 10.0, 20.0, 20.0, 20.0), false)
            })
            .collect();
        let discs: Vec<Rect> = labels.iter().map(|l| l.1).collect();
        assert_eq!(kept(&labels, &discs), (0..50).collect::<Vec<_>>());
    }
}
