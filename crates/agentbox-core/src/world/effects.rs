//! What scripts cause besides their own actions, as plain data: the effects a tick's decisions
//! asked for (messages, noises, spawns, removals, tile changes), kept on the world until they
//! are applied between this tick and the next (`sim::effects`), and what an agent received
//! from them (`Deliveries`: this tick's inbox and what it heard).
//!
//! Only data lives here: the simulation applies the effects, the Lua host makes them. Nothing
//! here reads a clock or names a scripting engine.

use super::{TerrainId, Tile};
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

/// One thing a script asked for during a tick's decisions, applied between ticks in agent
/// order and then call order. Receivers and hearers are resolved when the call is made,
/// against the world the scripts saw, so applying an effect reads nothing of the tick after.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// `world:send` (one receiver) or `world:broadcast` (every receiver in range), in order:
    /// each receiver's index in the world the scripts saw, and its id (which the index is
    /// checked against when the message is delivered, should the agent list have changed).
    /// The ids are shared with the trace's `message` events and the letters.
    Message {
        from: Arc<str>,
        to: Vec<(usize, Arc<str>)>,
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
    /// on `at`, its template's params with `params` merged over them.
    Spawn {
        by: String,
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
            Effect::Spawn { by, .. } | Effect::Tile { by, .. } => by,
            Effect::Remove { agent } => agent,
        }
    }
}
