//! Messages overlay: a line from each message's sender to its receiver, kept for a second of
//! simulated time and fading, and a ring round each noise reaching its farthest hearer
//! (straight line; the sound itself walked round walls). It reads the deliveries on the agents of the tick shown (`Agent::deliveries`) and
//! remembers the last second's, forgetting those after the tick shown (a rewind).

use crate::camera::Camera;
use agentbox_core::world::World;
use glam::DVec2;
use macroquad::prelude::*;
use std::collections::BTreeMap;

/// One delivery seen: the tick it was read in, where the sender stood, who received it.
struct Seen {
    tick: u64,
    from: DVec2,
    to: String,
}

/// The deliveries of the last second of ticks shown.
#[derive(Default)]
pub struct Recent {
    last: Option<u64>,
    letters: Vec<Seen>,
    /// `(tick, noise position) -> farthest hearer's straight-line distance`.
    noises: BTreeMap<(u64, [i64; 2]), f64>,
}

impl Recent {
    fn note(&mut self, world: &World) {
        let now = world.tick;
        let keep = u64::from(world.tick_rate.max(1));
        self.letters
            .retain(|s| s.tick <= now && s.tick + keep > now);
        self.noises.retain(|(t, _), _| *t <= now && *t + keep > now);
        if self.last == Some(now) {
            return;
        }
        self.last = Some(now);
        for agent in &world.agents {
            let Some(d) = agent.deliveries.as_deref() else {
                continue;
            };
            for letter in &d.inbox {
                let from = world.agent(&letter.from).map_or(agent.pos, |a| a.pos);
                self.letters.push(Seen {
                    tick: now,
                    from,
                    to: agent.id.clone(),
                });
            }
            for h in &d.heard {
                let at = [(h.pos.x * 100.0) as i64, (h.pos.y * 100.0) as i64];
                let r = self.noises.entry((now, at)).or_insert(0.0);
                *r = r.max(agent.pos.distance(h.pos));
            }
        }
    }

    pub fn draw(&mut self, world: &World, camera: &Camera) {
        self.note(world);
        let keep = world.tick_rate.max(1) as f32;
        let fade = |tick: u64| 1.0 - (world.tick.saturating_sub(tick)) as f32 / keep;
        for s in &self.letters {
            let Some(to) = world.agent(&s.to) else {
                continue;
            };
            let (a, b) = (camera.to_screen(s.from), camera.to_screen(to.pos));
            let c = Color::new(1.0, 0.85, 0.1, 0.9 * fade(s.tick));
            draw_line(a.x, a.y, b.x, b.y, 2.0, c);
            draw_circle(b.x, b.y, 3.0, c);
        }
        for (&(tick, at), &r) in &self.noises {
            let p = camera.to_screen(DVec2::new(at[0] as f64 / 100.0, at[1] as f64 / 100.0));
            let c = Color::new(0.3, 0.8, 1.0, 0.8 * fade(tick));
            draw_circle_lines(p.x, p.y, (r.max(0.5) as f32) * camera.tile, 2.0, c);
        }
    }
}
