//! The inspector: the selected agent's id, kind, script, current action (and why it has no
//! route, when it has none), params, memory and last error, refreshed every frame so it
//! follows the agent. Everything is shown as a script would write it (Lua tables, `path_to tile 3, 4 {diagonal = "never"}`), never as Rust's
//! `Debug` text or JSON.

use super::layout::{current, Side};
use super::text::{fit_lines, panel, wrap};
use agentbox_core::world::{Agent, Brain};
use agentbox_session::history::TickView;
use macroquad::prelude::*;

/// Draws the panel for agent `id` in the right dock, above the decision strip; returns false
/// if the agent is gone.
pub fn draw(session: &dyn TickView, id: &str) -> bool {
    let Some(agent) = session.world().agent(id) else {
        return false;
    };
    let Some(at) = place() else {
        return true;
    };
    let lines = fit_lines(lines(session, agent, id, &at), at.room, at.size);
    panel(
        at.x,
        at.y,
        at.width,
        &format!("agent {id}"),
        &lines,
        at.size,
    );
    true
}

/// Where the panel stands this frame and its font size.
struct Place {
    x: f32,
    y: f32,
    width: f32,
    room: f32,
    size: u16,
}

fn place() -> Option<Place> {
    let layout = current();
    let dock = layout.content(Side::Right)?;
    Some(Place {
        x: dock.x + 4.0,
        y: dock.y + 4.0,
        width: dock.w - 8.0,
        room: (dock.h - super::decisions::height() - 8.0).max(0.0),
        size: (15.0 * layout.ui).round() as u16,
    })
}

/// The key path in agent `id`'s `self.memory` whose line of the panel is under `mouse`, when
/// it holds a number, string or boolean, at the top level or in a table inside it: the path
/// (an array entry's part is its index, `"2"`) and the value (what the memory view's click
/// edits).
pub fn memory_value_at(
    session: &dyn TickView,
    id: &str,
    mouse: Vec2,
) -> Option<(Vec<String>, serde_json::Value)> {
    let agent = session.world().agent(id)?;
    let at = place()?;
    let line_h = at.size as f32 + 3.0;
    if mouse.x < at.x || mouse.x > at.x + at.width || mouse.y < at.y {
        return None;
    }
    // Line i's baseline is at y + 8 + line_h * (i + 2) (`text::panel`).
    let row = ((mouse.y - at.y - 8.0) / line_h - 1.0).floor();
    if row < 0.0 {
        return None;
    }
    let shown = fit_lines(lines(session, agent, id, &at), at.room, at.size);
    let keys = memory_keys(&shown, row as usize)?;
    let memories = session.memories_json();
    let mut value = memories.get(id)?;
    for key in &keys {
        value = match value {
            serde_json::Value::Array(list) => {
                let i: usize = key.strip_prefix('[')?.strip_suffix(']')?.parse().ok()?;
                list.get(i.checked_sub(1)?)?
            }
            other => other.get(key)?,
        };
    }
    let path = keys
        .iter()
        .map(
            |k| match k.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
                Some(index) if index.parse::<i64>().is_ok() => Some(index.to_string()),
                Some(_) => None,
                None => Some(k.clone()),
            },
        )
        .collect::<Option<Vec<String>>>()?;
    (value.is_number() || value.is_string() || value.is_boolean()).then(|| (path, value.clone()))
}

/// The keys, as the memory view shows them (`name` or `[2]`), from `self.memory` down to the
/// entry on line `row` of the panel's `lines`, when that line is an entry of the memory view
/// that is not a table: its own key, and each table's above it, read from the nearest line
/// above at each lesser indent (each level indents two spaces, under the view's two and the
/// table's two).
fn memory_keys(lines: &[String], row: usize) -> Option<Vec<String>> {
    let entry = |line: &str| {
        let body = line.strip_prefix("  ")?;
        let indent = body.len() - body.trim_start_matches(' ').len();
        let (key, value) = body.trim_start().split_once(" = ")?;
        (indent >= 2 && indent % 2 == 0).then(|| (indent / 2, key.to_string(), value.to_string()))
    };
    let (depth, key, value) = entry(lines.get(row)?)?;
    if value.starts_with('{') {
        return None;
    }
    let mut keys = vec![key];
    let mut want = depth - 1;
    for line in lines[..row].iter().rev() {
        // The first line above that is not indented must be the memory view's heading.
        if !line.starts_with(' ') {
            return (want == 0 && line.starts_with("memory")).then(|| {
                keys.reverse();
                keys
            });
        }
        match entry(line) {
            Some((d, key, value)) if d == want && value == "{" => {
                keys.push(key);
                want -= 1;
            }
            Some((d, ..)) if d < want => return None,
            _ => {}
        }
    }
    None
}

/// The panel's lines for `agent`, before they are fitted to its room.
fn lines(session: &dyn TickView, agent: &Agent, id: &str, at: &Place) -> Vec<String> {
    let size = at.size;
    let inner = at.width - 16.0;
    let mut lines = vec![
        format!("kind     {}", agent.kind),
        format!(
            "script   {}",
            match &agent.brain {
                Brain::Script(p) => p.display().to_string(),
                Brain::Keyboard => "keyboard".into(),
                Brain::None => "none (stands still)".into(),
            }
        ),
        format!(
            "pos      {:.2}, {:.2}  tile {}, {}",
            agent.pos.x,
            agent.pos.y,
            agent.tile().x,
            agent.tile().y
        ),
        format!(
            "speed    {:.2} tiles/s (now {:.2})",
            agent.speed,
            agent.vel.length()
        ),
    ];
    lines.extend(wrap(
        &format!("action   {}", agent.action.describe()),
        inner,
        size,
    ));
    if let Some(line) = no_path_line(agent) {
        lines.extend(wrap(&line, inner, size));
    }
    lines.push("params".into());
    let params = lua_text(&agent.params, 0);
    lines.extend(
        wrap(&params, inner, size)
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    lines.extend(delivery_lines(agent, inner, size));
    lines.extend(memory_lines(session, id, inner, size));
    if agent.suspended {
        lines.push("suspended: its script is not called; U resumes it".into());
    }
    if let Some(e) = &agent.error {
        lines.push(format!("last error ({})", e.kind.name().replace('_', " ")));
        lines.extend(wrap(e.as_str(), inner, size));
    }
    lines
}

/// This tick's inbox (`self:inbox()`) and what the agent heard (`self:heard()`), at most 8
/// of each, or nothing when neither holds anything.
fn delivery_lines(agent: &Agent, inner: f32, size: u16) -> Vec<String> {
    let Some(d) = agent.deliveries.as_deref() else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if !d.inbox.is_empty() {
        lines.push(format!("inbox    {} this tick", d.inbox.len()));
        for letter in d.inbox.iter().take(8) {
            let text = format!(
                "  {} (tick {}): {}",
                letter.from,
                letter.tick,
                lua_text(&letter.msg, 1)
            );
            lines.extend(wrap(&text, inner, size));
        }
    }
    if !d.heard.is_empty() {
        lines.push(format!("heard    {} this tick", d.heard.len()));
        for h in d.heard.iter().take(8) {
            lines.push(format!(
                "  {} {} at {:.1}, {:.1}, {:.1} tiles walking",
                h.from,
                h.kind.as_deref().unwrap_or("noise"),
                h.pos.x,
                h.pos.y,
                h.distance
            ));
        }
    }
    lines
}

/// The memory heading (with what the agent holds) and its script state, as Lua, 40 lines at
/// most.
fn memory_lines(session: &dyn TickView, id: &str, inner: f32, size: u16) -> Vec<String> {
    let mut lines = vec![match session.memory_held(id) {
        Some(bytes) if bytes < 1 << 20 => format!(
            "memory   (it holds {} KB of Lua memory)",
            bytes.div_ceil(1024)
        ),
        Some(bytes) => format!(
            "memory   (it holds {:.1} MB of Lua memory)",
            bytes as f64 / 1048576.0
        ),
        None => "memory".into(),
    }];
    let memory = session
        .memory_text(id)
        .unwrap_or_else(|| "(no script state yet)".into());
    lines.extend(
        wrap(&memory, inner, size)
            .into_iter()
            .take(40)
            .map(|l| format!("  {l}")),
    );
    lines
}

/// Why the agent's route-following action has no route, as the inspector shows it.
fn no_path_line(agent: &Agent) -> Option<String> {
    let reason = agent.memory.no_path()?;
    Some(format!("no path  {}: {}", reason.name(), reason.describe()))
}

/// A scene's `params` (JSON) as the Lua table a script sees in `self.params`: keys sorted,
/// one per line, nested tables indented, whole numbers without a fraction.
pub fn lua_text(value: &serde_json::Value, depth: usize) -> String {
    use serde_json::Value;
    let indent = "  ".repeat(depth + 1);
    let close = "  ".repeat(depth);
    match value {
        Value::Null => "nil".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
            (None, Some(f)) => f.to_string(),
            (None, None) => n.to_string(),
        },
        Value::String(s) => lua_string(s),
        Value::Array(items) if items.is_empty() => "{}".into(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(|v| lua_text(v, depth + 1)).collect();
            if items.iter().all(|v| !v.is_object() && !v.is_array()) {
                format!("{{{}}}", inner.join(", "))
            } else {
                format!(
                    "{{\n{indent}{}\n{close}}}",
                    inner.join(&format!(",\n{indent}"))
                )
            }
        }
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    let key = if is_lua_name(k) {
                        k.clone()
                    } else {
                        format!("[{}]", lua_string(k))
                    };
                    format!("{key} = {}", lua_text(&map[k], depth + 1))
                })
                .collect();
            format!(
                "{{\n{indent}{}\n{close}}}",
                entries.join(&format!(",\n{indent}"))
            )
        }
    }
}

fn is_lua_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A Lua string literal.
fn lua_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::{lua_text, no_path_line};
    use agentbox_core::world::{Agent, MoveMemory, NoPath};
    use glam::IVec2;

    /// The inspector shows the reason the primitive remembered (set by `follow_route`).
    #[test]
    fn an_agent_with_no_route_shows_why() {
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        assert_eq!(no_path_line(&agent), None);
        agent.memory = MoveMemory::Wander {
            direction: 1,
            ticks_left: 3,
        };
        assert_eq!(no_path_line(&agent), None);
        agent.memory = MoveMemory::NoPath(NoPath::Blocked);
        assert_eq!(
            no_path_line(&agent).as_deref(),
            Some("no path  blocked: the start or the goal is blocked for this body")
        );
    }

    #[test]
    fn params_read_as_the_lua_table_a_script_sees() {
        let params = serde_json::json!({
            "space": 1.0,
            "speed": 2,
            "name": "say \"hi\"",
            "patrol": [[1, 2], [3, 4]],
            "weights": [0.5, 1.5],
            "on": true,
            "two words": null,
        });
        assert_eq!(
            lua_text(&params, 0),
            "{\n  name = \"say \\\"hi\\\"\",\n  on = true,\n  patrol = {\n    {1, 2},\n    {3, 4}\n  },\n  space = 1.0,\n  speed = 2,\n  [\"two words\"] = nil,\n  weights = {0.5, 1.5}\n}"
        );
        assert_eq!(lua_text(&serde_json::json!({}), 0), "{}");
    }
}

#[cfg(test)]
mod memory_path_tests {
    use super::*;

    #[test]
    fn a_nested_memory_line_names_its_path() {
        let lines: Vec<String> = [
            "speed    4.00 tiles/s (now 0.00)",
            "memory   (it holds 1 KB of Lua memory)",
            "  {",
            "    alert = false",
            "    seen = {",
            "      at = {",
            "        [1] = 3",
            "        [2] = 4",
            "      }",
            "      who = \"b\"",
            "    }",
            "  }",
        ]
        .map(String::from)
        .to_vec();
        let keys = |row| memory_keys(&lines, row);
        assert_eq!(keys(3), Some(vec!["alert".to_string()]));
        assert_eq!(
            keys(7),
            Some(vec!["seen".into(), "at".into(), "[2]".into()])
        );
        assert_eq!(keys(9), Some(vec!["seen".into(), "who".into()]));
        assert_eq!(keys(4), None, "a table is not edited");
        assert_eq!(keys(0), None, "nor a line outside the memory view");
    }
}
