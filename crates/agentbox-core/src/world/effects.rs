//! What scripts cause besides their own actions, as plain data: the effects a tick's decisions
//! asked for (messages, noises, spawns, removals, tile changes), kept on the world until they
//! are applied between this tick and the next (`sim::effects`), and what an agent received
//! from them (`Deliveries`: this tick's inbox and what it heard).
//!
//! Only data lives here: the simulation applies the effects, the Lua host makes them. Nothing
//! here reads a clock or names a scripting engine.

use super::{AgentRef, TerrainId, Tile};
use glam::DVec2;
use std::sync::Arc;

/// The most messages delivered to one agent in one tick; the rest are dropped with an event.
pub const MAX_INBOX: usize = 64;

/// The largest message, in bytes of its JSON text.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// One message in an agent's inbox: who sent it, in which tick, and a copy of its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Letter {
    /// The sender's id, shared by every letter of one call.
    pub from: Arc<str>,
    pub tick: u64,
    /// The message as JSON (a plain value), shared by every receiver of a broadcast.
    pub msg: Arc<serde_json::Value>,
}

/// One noise an agent heard: who made it, where it stood, its kind and how far it walked.
#[derive(Clone, Debug, PartialEq)]
pub struct Heard {
    pub from: String,
    pub pos: DVec2,
    pub kind: Option<String>,
    /// Walking distance in tiles (octile steps through free tiles, no corner cutting).
    pub distance: f64,
}

/// What reached an agent between the last tick and this one: read by `self:inbox()` and
/// `self:heard()` this tick only, replaced at the next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Deliveries {
    pub inbox: Vec<Letter>,
    pub heard: Vec<Heard>,
}

/// Emptied [`Deliveries`] kept for the next tick's receivers (`sim::effects::apply`), so a
/// talking crowd does not allocate and free one per receiver each tick. Not part of what the
/// world is: a clone starts with none, and it never shows in a comparison or a trace.
#[derive(Default)]
// The boxes themselves are what is kept: each goes back to an agent (`Agent::deliveries`)
// as it is, so no box is freed or made.
#[allow(clippy::vec_box)]
pub struct SpareDeliveries(Vec<Box<Deliveries>>);

/// The most letters and noises a kept [`Deliveries`] has room for; a larger one shrinks.
const SPARE_ROOM: usize = 8;

impl SpareDeliveries {
    /// Keeps `d`, emptied (its letters' and noises' shares dropped).
    pub fn keep(&mut self, mut d: Box<Deliveries>) {
        d.inbox.clear();
        d.inbox.shrink_to(SPARE_ROOM);
        d.heard.clear();
        d.heard.shrink_to(SPARE_ROOM);
        self.0.push(d);
    }

    /// An empty `Deliveries`: a kept one, or a new one.
    pub fn take(&mut self) -> Box<Deliveries> {
        self.0.pop().unwrap_or_default()
    }
}

impl Clone for SpareDeliveries {
    fn clone(&self) -> Self {
        SpareDeliveries::default()
    }
}

impl std::fmt::Debug for SpareDeliveries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SpareDeliveries({})", self.0.len())
    }
}

/// How many messages each agent was sent this tick, by index, kept on the world for the next
/// tick's count (`sim::effects::collect`): made anew, the list of a crowd of 20,000 was an
/// 80 KB allocation every tick (and each large request made glibc consolidate the small
/// blocks the scripts' collector had just freed). All zero between counts: a count puts back
/// to zero only the entries it used. Not part of what the world is: a clone starts with none.
#[derive(Default)]
pub struct InboxCounts(pub Vec<u32>);

impl Clone for InboxCounts {
    fn clone(&self) -> Self {
        InboxCounts::default()
    }
}

impl std::fmt::Debug for InboxCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InboxCounts({})", self.0.len())
    }
}

/// One thing a script asked for during a tick's decisions, applied between ticks in agent
/// order and then call order. Receivers and hearers are resolved when the call is made,
/// against the world the scripts saw, so applying an effect reads nothing of the tick after.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// `world:send` (one receiver) or `world:broadcast` (every receiver in range), in order:
    /// each receiver as a reference (its id, and its index in the world the scripts saw as a
    /// hint, checked when the message is delivered, should the agent list have changed).
    /// The receivers share the world's id list (`World::agent_ref`), and are shared with the
    /// trace's `message` events; the sender's id is shared with the letters.
    Message {
        from: Arc<str>,
        to: Vec<AgentRef>,
        msg: Arc<serde_json::Value>,
    },
    /// `world:noise`: the agents that hear it, each with its walking distance.
    Noise {
        from: String,
        pos: DVec2,
        loudness: f64,
        kind: Option<String>,
        hearers: Vec<(String, f64)>,
    },
    /// `world:spawn`: a new agent `id` made like the scene's first agent of `kind`, standing
    /// on `at`, its template's params with `params` merged over them. The spawner `by` is a
    /// reference as a message's receivers are (sharing the world's id list), shared with the
    /// trace's `spawn` event: a crowd spawning 10,000 copied no id for it.
    Spawn {
        by: AgentRef,
        id: String,
        kind: String,
        at: Tile,
        params: serde_json::Map<String, serde_json::Value>,
    },
    /// `self:remove()`.
    Remove { agent: String },
    /// `world:set_tile`.
    Tile {
        by: String,
        at: Tile,
        terrain: TerrainId,
    },
}

impl Effect {
    /// The agent whose call asked for it.
    pub fn by(&self) -> &str {
        match self {
            Effect::Message { from, .. } => from,
            Effect::Noise { from, .. } => from,
            Effect::Spawn { by, .. } => by.id(),
            Effect::Tile { by, .. } => by,
            Effect::Remove { agent } => agent,
        }
    }
}
