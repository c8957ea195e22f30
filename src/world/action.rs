//! What an agent has decided to do: plain data produced by a decision layer (a Lua script,
//! the keyboard) and executed by the movement primitives.

use glam::DVec2;

/// Something to move relative to: another agent (followed as it moves) or a fixed point.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Agent(String),
    Point(DVec2),
}

/// A movement decision. Each variant is executed by one primitive under `movement/`.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Action {
    /// Stand still.
    #[default]
    Stop,
    /// Steer straight at the target's current position.
    Chase(Target),
    /// Steer straight away from the target's current position.
    Evade(Target),
    /// Go straight to a point and stop on it.
    To(DVec2),
    /// Follow an A* route to a tile, re-planned when the goal or the map changes.
    PathTo(glam::IVec2),
    /// Move in a direction (the keyboard): each component -1, 0 or 1.
    Steer(glam::IVec2),
}

impl Action {
    /// The name shown in traces and the window.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Stop => "stop",
            Action::Chase(_) => "chase",
            Action::Evade(_) => "evade",
            Action::To(_) => "to",
            Action::PathTo(_) => "path_to",
            Action::Steer(_) => "steer",
        }
    }
}
