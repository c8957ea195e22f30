//! The trace: one JSON object per tick (JSON Lines), written after the tick is applied.
//! Positions are rounded to 1e-4 tiles so golden traces stay readable; the rounding is
//! deterministic, so the same scene and seed give byte-identical lines.

use super::events::Event;
use crate::world::{ErrorKind, World};
use serde::Serialize;

#[derive(Serialize)]
struct TickLine<'a> {
    tick: u64,
    agents: Vec<AgentLine<'a>>,
    events: &'a [Event],
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
}

fn round4(v: f64) -> f64 {
    let r = (v * 1e4).round() / 1e4;
    if r == 0.0 {
        0.0 // no "-0.0" in the trace
    } else {
        r
    }
}

/// The trace line for the world as it stands after a tick, without a newline.
pub fn line(world: &World, events: &[Event]) -> String {
    let agents = world
        .agents
        .iter()
        .map(|a| AgentLine {
            id: &a.id,
            x: round4(a.pos.x),
            y: round4(a.pos.y),
            action: a.action.name(),
            error: a.error.as_ref().map(|e| e.as_str()),
            error_kind: a.error.as_ref().map(|e| e.kind),
            suspended: a.suspended,
            no_path: a.memory.no_path().map(|r| r.name()),
        })
        .collect();
    let line = TickLine {
        tick: world.tick,
        agents,
        events,
    };
    serde_json::to_string(&line).unwrap_or_else(|e| format!("{{\"trace_error\":\"{e}\"}}"))
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
        // An agent with no route says why, after every other field.
        w.agents[0].error = None;
        w.agents[0].memory = crate::world::MoveMemory::NoPath(crate::world::NoPath::OffMap);
        assert_eq!(
            line(&w, &[]),
            r#"{"tick":1,"agents":[{"id":"troll","x":2.0,"y":0.0,"action":"stop","no_path":"off_map"}],"events":[]}"#
        );
    }
}
