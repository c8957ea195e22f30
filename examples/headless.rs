//! Runs a shipped scene headless through the library, as `agentbox headless` does, and prints
//! what a designer wants to know from it: when each agent changed what it was doing, and when
//! agents touched.
//!
//! `cargo run --release --example headless [SCENE] [TICKS]` (default: the tutorial's guard).

use agentbox_core::sim::Event;
use agentbox_session::session::{OpenError, Session};
use std::path::{Path, PathBuf};

/// The report lines of `ticks` ticks of `scene`, or the scene's errors.
fn run(scene: &Path, ticks: u64) -> Result<Vec<String>, OpenError> {
    // Loads the scene and its scripts; an error names the file, line and column.
    let mut session = Session::open(scene, None)?;
    let mut lines = Vec::new();
    let mut doing: Vec<String> = Vec::new();
    for _ in 0..ticks {
        let report = session.tick();
        let world = session.world();
        doing.resize(world.agents.len(), String::new());
        for (i, agent) in world.agents.iter().enumerate() {
            if doing[i] != agent.action.name() {
                doing[i] = agent.action.name().to_string();
                lines.push(format!("tick {:>4}: {} {}", world.tick, agent.id, doing[i]));
            }
        }
        for event in &report.events {
            if let Event::Contact { a, b } = event {
                lines.push(format!("tick {:>4}: {a} touches {b}", world.tick));
            }
        }
    }
    for agent in &session.world().agents {
        lines.push(format!(
            "{} ends at ({:.1}, {:.1})",
            agent.id, agent.pos.x, agent.pos.y
        ));
    }
    Ok(lines)
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let scene = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/guard.yaml"));
    let ticks = args
        .next()
        .map_or(Ok(600), |t| t.parse::<u64>().map_err(|e| e.to_string()))?;
    for line in run(&scene, ticks).map_err(|e| e.to_string())? {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_goes_round_its_cycle() {
        let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/guard.yaml");
        let lines = run(&scene, 600).unwrap();
        let guard: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.split_once(": guard ").map(|(_, action)| action))
            .collect();
        let chase = guard.iter().position(|a| *a == "chase").expect("a chase");
        let search = guard.iter().position(|a| *a == "stop").expect("a search");
        assert!(
            chase < search && guard.last() == Some(&"path_to"),
            "{lines:?}"
        );
        assert!(
            lines.last().unwrap().starts_with("intruder ends at"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_bad_scene_is_a_located_error() {
        let err = run(Path::new("no/such/scene.yaml"), 1)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("no/such/scene.yaml:1:1: error:"), "{err}");
    }
}
