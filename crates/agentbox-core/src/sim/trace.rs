//! The trace: one JSON object per tick (JSON Lines), written after the tick is applied.
//! Positions are rounded to 1e-4 tiles so golden traces stay readable; the rounding is
//! deterministic, so the same scene and seed give byte-identical lines.

use super::events::Event;
use crate::world::{ErrorKind, ScriptError, World};
use serde::Serialize;

#[derive(Serialize)]
struct TickLine<'a> {
    tick: u64,
    agents: Vec<AgentLine<'a>>,
    events: &'a [Event],
    /// Bytes of error text left out of this line: past 64 KiB of it, agents keep their
    /// `error_kind` but not their `error`.
    #[serde(skip_serializing_if = "is_zero")]
    error_bytes_dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct AgentLine<'a> {
    id: &'a str,
    x: f64,
    y: f64,
    action: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_kind: Option<ErrorKind>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    suspended: bool,
    /// Why the agent's route-following primitive has no route (`blocked`, `unreachable`,
    /// `off_map`); absent otherwise, so other agents' lines are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    no_path: Option<&'static str>,
    /// The state name the script set (`self:label`); absent while none is set, so scenes
    /// that never label keep their lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<&'a str>,
    /// The agent's `self.memory` as JSON (`headless --trace-memory` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<&'a serde_json::Value>,
}

fn round4(v: f64) -> f64 {
    let r = (v * 1e4).round() / 1e4;
    if r == 0.0 {
        0.0 // no "-0.0" in the trace
    } else {
        r
    }
}

/// The trace line for the world as it stands after a tick, without a newline. Error text is
/// bounded: 4 KiB per agent (`ScriptError::MAX_BYTES`), 64 KiB per line in all, past which
/// `error_bytes_dropped` counts what was left out.
pub fn line(world: &World, events: &[Event]) -> String {
    line_with_memory(world, events, &Default::default())
}

/// [`line`], with each agent's memory from `memory` (by agent id) where it has one.
pub fn line_with_memory(
    world: &World,
    events: &[Event],
    memory: &std::collections::BTreeMap<String, serde_json::Value>,
) -> String {
    let mut error_bytes = 0;
    let mut error_bytes_dropped = 0;
    let agents = world
        .agents
        .iter()
        .map(|a| AgentLine {
            id: &a.id,
            x: round4(a.pos.x),
            y: round4(a.pos.y),
            action: a.action.name(),
            error: a.error.as_ref().and_then(|e| {
                let text = e.as_str();
                let len = text.len().min(ScriptError::MAX_BYTES);
                if error_bytes + len > ScriptError::MAX_BYTES_PER_TICK {
                    error_bytes_dropped += text.len();
                    return None;
                }
                error_bytes += len;
                // Bounded where it is made; cut here too for a world built by other means.
                Some(cut(text, ScriptError::MAX_BYTES))
            }),
            error_kind: a.error.as_ref().map(|e| e.kind),
            suspended: a.suspended,
            no_path: a.memory.no_path().map(|r| r.name()),
            label: a.label.as_deref(),
            memory: memory.get(&a.id),
        })
        .collect();
    let line = TickLine {
        tick: world.tick,
        agents,
        events,
        error_bytes_dropped,
    };
    serde_json::to_string(&line).unwrap_or_else(|e| format!("{{\"trace_error\":\"{e}\"}}"))
}

/// `text`'s first `max` bytes at most, never splitting a character.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Agent;
    use glam::IVec2;

    #[test]
    fn matches_the_documented_shape() {
        let mut w = World::from_ascii(&["....."]);
        w.agents.push(Agent::new("troll", IVec2::new(2, 0)));
        w.tick = 1;
        assert_eq!(
            line(&w, &[]),
            r#"{"tick":1,"agents":[{"id":"troll","x":2.0,"y":0.0,"action":"stop"}],"events":[]}"#
        );
        w.agents[0].error = Some(crate::world::ScriptError::runtime("scripts/x.lua:3: boom"));
        let events = [Event::Contact {
            a: "a".into(),
            b: "b".into(),
        }];
        let l = line(&w, &events);
        assert!(l.contains(r#""error":"scripts/x.lua:3: boom""#), "{l}");
        assert!(
            l.contains(r#""events":[{"type":"contact","a":"a","b":"b"}]"#),
            "{l}"
        );
        assert!(!l.contains("error_bytes_dropped"), "{l}");
        // An agent with no route says why, after every other field.
        w.agents[0].error = None;
        w.agents[0].memory = crate::world::MoveMemory::NoPath(crate::world::NoPath::OffMap);
        assert_eq!(
            line(&w, &[]),
            r#"{"tick":1,"agents":[{"id":"troll","x":2.0,"y":0.0,"action":"stop","no_path":"off_map"}],"events":[]}"#
        );
    }

    #[test]
    fn error_text_is_bounded_per_line() {
        let mut w = World::from_ascii(&["....."]);
        for i in 0..40 {
            let mut a = Agent::new(format!("a{i}"), IVec2::new(0, 0));
            a.error = Some(crate::world::ScriptError::runtime("x".repeat(3000)));
            w.agents.push(a);
        }
        let l = line(&w, &[]);
        // 21 errors of 3,000 bytes fit in 64 KiB; the other 19 are counted.
        assert_eq!(l.matches(&"x".repeat(3000)).count(), 21, "{}", l.len());
        assert!(
            l.ends_with(r#""events":[],"error_bytes_dropped":57000}"#),
            "{}",
            &l[l.len() - 80..]
        );
        assert_eq!(l.matches(r#""error_kind":"runtime""#).count(), 40);
    }
}
