//! Things that happen during a tick, as they appear in the trace.

use serde::Serialize;

/// One event, serialised as `{"type": "contact", ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Two agents' bodies started touching.
    Contact { a: String, b: String },
    /// A line a script printed while deciding for `agent` (`file.lua:LINE: text`), within
    /// the print bounds (at most 4 KiB per agent and 64 KiB in all per tick).
    Print { agent: String, text: String },
}
