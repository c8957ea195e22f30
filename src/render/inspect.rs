//! The inspector: the selected agent's id, kind, script, current action, params, memory and
//! last error, refreshed every frame so it follows the agent.

use super::text::{panel, wrap};
use crate::session::Session;
use crate::world::Brain;
use macroquad::prelude::*;

pub const WIDTH: f32 = 380.0;

/// Draws the panel for agent `id`; returns false if the agent is gone.
pub fn draw(session: &Session, id: &str) -> bool {
    let Some(agent) = session.world().agent(id) else {
        return false;
    };
    let size = 15;
    let width = WIDTH.min(screen_width() * 0.45);
    let inner = width - 16.0;
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
    lines.push("params".into());
    let params = serde_json::to_string_pretty(&agent.params).unwrap_or_default();
    lines.extend(
        wrap(&params, inner, size)
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    lines.push("memory".into());
    let memory = session
        .memory_text(id)
        .unwrap_or_else(|| "(no script state yet)".into());
    lines.extend(
        wrap(&memory, inner, size)
            .into_iter()
            .take(40)
            .map(|l| format!("  {l}")),
    );
    if agent.suspended {
        lines.push("suspended: its script is not called; U resumes it".into());
    }
    if let Some(e) = &agent.error {
        lines.push(format!("last error ({})", e.kind.name().replace('_', " ")));
        lines.extend(wrap(e.as_str(), inner, size));
    }
    panel(
        screen_width() - width - 8.0,
        38.0,
        width,
        &format!("agent {id}"),
        &lines,
        size,
    );
    true
}
