//! Colours: terrain colours from the scene; agent colours by kind, each kind a distinct colour
//! of the Okabe-Ito palette (safe for the common colour-blindnesses) in the order the window
//! first saw the kinds, kept for the window's life so a kind never changes colour. A scene's
//! `color:` on an agent or `spawn:` group wins over its kind's.

use agentbox_core::world::Agent;
use macroquad::prelude::Color;
use std::cell::RefCell;

/// Okabe & Ito's colour-blind-safe palette (without its black), most distinct first.
const KIND_COLORS: [[u8; 3]; 7] = [
    [0xd5, 0x5e, 0x00], // vermillion
    [0x00, 0x72, 0xb2], // blue
    [0x00, 0x9e, 0x73], // bluish green
    [0xe6, 0x9f, 0x00], // orange
    [0xcc, 0x79, 0xa7], // reddish purple
    [0x56, 0xb4, 0xe9], // sky blue
    [0xf0, 0xe4, 0x42], // yellow
];

/// More kinds than the palette holds get a hue of their own from their name.
fn hashed(kind: &str) -> Color {
    let h = kind.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    macroquad::color::hsl_to_rgb((h % 360) as f32 / 360.0, 0.65, 0.5)
}

thread_local! {
    /// The kinds seen so far, in order, each with its colour.
    static KINDS: RefCell<Vec<(String, Color)>> = const { RefCell::new(Vec::new()) };
}

pub fn rgb(c: [u8; 3]) -> Color {
    Color::from_rgba(c[0], c[1], c[2], 0xff)
}

/// Gives every kind among `agents` not seen before the next colour of the palette.
pub fn learn<'a>(agents: impl Iterator<Item = &'a Agent>) {
    KINDS.with(|kinds| {
        let mut kinds = kinds.borrow_mut();
        let mut last: Option<&str> = None;
        for agent in agents {
            // Crowds are consecutive agents of one kind: look each run up once.
            if last == Some(agent.kind.as_str()) {
                continue;
            }
            last = Some(agent.kind.as_str());
            if !kinds.iter().any(|(k, _)| *k == agent.kind) {
                let colour = match KIND_COLORS.get(kinds.len()) {
                    Some(c) => rgb(*c),
                    None => hashed(&agent.kind),
                };
                kinds.push((agent.kind.clone(), colour));
            }
        }
    });
}

/// The colour of an agent kind: the same kind always gets the same colour.
pub fn kind_color(kind: &str) -> Color {
    KINDS.with(|kinds| {
        kinds
            .borrow()
            .iter()
            .find(|(k, _)| k == kind)
            .map_or_else(|| hashed(kind), |(_, c)| *c)
    })
}

/// The colour an agent is drawn in: its own `color:`, else its kind's.
pub fn agent_color(agent: &Agent) -> Color {
    match agent.look.color {
        Some(c) => rgb(c),
        None => kind_color(&agent.kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_get_distinct_palette_colours_in_the_order_seen() {
        let mut a = Agent::new("a", glam::IVec2::ZERO);
        a.kind = "guard".into();
        let mut b = Agent::new("b", glam::IVec2::ZERO);
        b.kind = "intruder".into();
        learn([&a, &b, &a].into_iter());
        assert_eq!(kind_color("guard"), rgb(KIND_COLORS[0]));
        assert_eq!(kind_color("intruder"), rgb(KIND_COLORS[1]));
        b.look.color = Some([1, 2, 3]);
        assert_eq!(agent_color(&b), rgb([1, 2, 3]));
    }
}
