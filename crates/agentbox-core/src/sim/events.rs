//! Things that happen during a tick, as they appear in the trace.

use crate::world::reload::Edits;
use serde::Serialize;
use std::sync::Arc;

/// One event, serialised as `{"type": "contact", ...}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Two agents' bodies started touching.
    Contact { a: String, b: String },
    /// A line a script printed while deciding for `agent` (`file.lua:LINE: text`), within
    /// the print bounds (at most 4 KiB per agent and 64 KiB in all per tick).
    Print { agent: String, text: String },
    /// A planned move (`flow_to`, `path_to`, `waypoints`, `tank_to`: primitives that follow a
    /// route or field on the grid) was cut short by a wall this tick: the agent ended `short`
    /// tiles (rounded to 1e-4) from where its primitive asked to go. Written only when it
    /// happens, after the tick's contacts.
    WallContact { agent: String, short: f64 },
    /// A message delivered to `to` at the next tick (one per delivery), on the line of the
    /// tick `from` sent it. The ids are shared with the message's effect (a broadcast's
    /// events copy no id); `to` is written as its id.
    Message {
        from: Arc<str>,
        to: crate::world::AgentRef,
    },
    /// Messages to `agent` past the 64 a tick it may receive, dropped (`count` of them, the
    /// first of which `from` sent).
    MessagesDropped {
        agent: String,
        from: String,
        count: usize,
    },
    /// `from` made a noise of `loudness` tiles.
    Noise { from: String, loudness: f64 },
    /// `by` spawned `agent`, which appears from the next tick's line; `by` is written as its
    /// id (shared with the spawn's effect).
    Spawn {
        agent: String,
        by: crate::world::AgentRef,
    },
    /// `agent` removed itself; the next tick's line has it no more.
    Remove { agent: String },
    /// `by` set the tile `at` to `terrain`, applied before the next tick.
    Tile {
        by: String,
        at: [i32; 2],
        terrain: String,
    },
    /// A changed tile blocked the body of `agent` (or a spawned agent's tile was blocked):
    /// it was moved to the nearest free tile, `to`.
    Pushed { agent: String, to: [i32; 2] },
    /// A scene reload applied before this tick changed `agent`'s entry: `fields` are the
    /// scene keys it took (`at`, `speed`, `params`, `script`...), or `["added"]` /
    /// `["removed"]` for an entry added to or removed from the file. First on the line.
    Reload { agent: String, fields: Vec<String> },
    /// The CPU-time net (`budget.cpu_ms`) stopped `agent`'s call this tick: a clock decided
    /// it, not the count, so a replay may differ from this line on (`reason`: `cpu`). No
    /// other event says a replay may differ.
    ReplayMayDiffer { agent: String, reason: String },
}

impl Event {
    /// The trace events of a scene reload's applied edits, in the order of [`Edits`].
    pub fn reloaded(edits: &Edits) -> Vec<Event> {
        let one = |agent: &String, fields: Vec<String>| Event::Reload {
            agent: agent.clone(),
            fields,
        };
        let changed = (edits.changed.iter())
            .map(|(id, f)| one(id, f.iter().map(|f| f.name().to_string()).collect()));
        let added = (edits.added.iter()).map(|id| one(id, vec!["added".into()]));
        let removed = (edits.removed.iter()).map(|id| one(id, vec!["removed".into()]));
        changed.chain(added).chain(removed).collect()
    }
}
