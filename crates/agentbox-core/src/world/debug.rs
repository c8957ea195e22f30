//! Debug shapes: what a movement primitive wants drawn over the map to explain its choice (its
//! line of sight, its planned cells, its probes, the forces on it, the weights it compared).
//! Plain data in tile units; the window decides colours from each shape's [`Role`].

use super::Tile;
use glam::DVec2;

/// What a shape means, so the overlay can colour and toggle it by meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// A line of sight that was checked (clear or not, see the shape).
    Los,
    /// Cells or lines the agent plans to walk.
    Path,
    /// Cells or points the primitive looked at to decide (neighbours, crumbs, wall probes).
    Probe,
    /// A force or velocity (potential functions, steering).
    Force,
    /// Numbers the primitive compared (terrain weights, crumb indices).
    Weights,
    /// The point the agent is heading for (an intercept point, the tracing start).
    Goal,
    /// Part `n` (from 0) of a `move.blend` or `move.first`: its weighted velocity and weight,
    /// each part in its own colour.
    Part(u8),
    /// Avoidance: the neighbours ORCA gives way to (lines to them); the velocity it chose is a
    /// `Force`.
    Avoid,
    /// The velocity the primitive asked for, before avoidance changed it.
    Asked,
}

impl Role {
    /// A short lower-case name, for keys and legends.
    pub fn name(self) -> &'static str {
        match self {
            Role::Los => "los",
            Role::Path => "path",
            Role::Probe => "probe",
            Role::Force => "force",
            Role::Weights => "weights",
            Role::Goal => "goal",
            Role::Part(_) => "part",
            Role::Avoid => "avoid",
            Role::Asked => "asked",
        }
    }
}

/// One thing to draw, in tile units (integer coordinates are tile centres).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A segment between two points.
    Line { role: Role, from: DVec2, to: DVec2 },
    /// Whole tiles to highlight.
    Cells { role: Role, cells: Vec<Tile> },
    /// A circle outline.
    Circle {
        role: Role,
        centre: DVec2,
        radius: f64,
    },
    /// An arrow from a point by a displacement.
    Vector {
        role: Role,
        from: DVec2,
        delta: DVec2,
    },
    /// A short text at a point.
    Label { role: Role, at: DVec2, text: String },
    /// A weight shown at a point (a blend's part: the window writes its number and weight),
    /// kept as a number so a tick formats no text.
    Weight { role: Role, at: DVec2, weight: f64 },
}

impl Shape {
    pub fn role(&self) -> Role {
        match self {
            Shape::Line { role, .. }
            | Shape::Cells { role, .. }
            | Shape::Circle { role, .. }
            | Shape::Vector { role, .. }
            | Shape::Label { role, .. }
            | Shape::Weight { role, .. } => *role,
        }
    }
}
