//! Things that happen during a tick, as they appear in the trace.

use serde::Serialize;

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
}
