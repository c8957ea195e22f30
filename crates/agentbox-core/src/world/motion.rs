//! How an agent moves (tile-stepping or free) and the plain-data memory its movement primitive
//! keeps between ticks. The memory belongs to one decision: the simulation clears it when the
//! agent's action changes to another primitive or another target.

use super::Tile;
use std::collections::VecDeque;

/// The agent's motion mode (scene key `motion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Motion {
    /// Continuous position and velocity, capped speed and (optionally) turn rate.
    #[default]
    Free,
    /// One tile per step, from tile centre to tile centre at the agent's speed, in 8
    /// directions, or 4 when `diagonal` is false.
    Tiles { diagonal: bool },
}

impl Motion {
    pub fn is_tiles(self) -> bool {
        matches!(self, Motion::Tiles { .. })
    }

    /// Whether diagonal tile steps are allowed (always for free agents stepping on tiles).
    pub fn diagonal(self) -> bool {
        match self {
            Motion::Free => true,
            Motion::Tiles { diagonal } => diagonal,
        }
    }
}

/// What a primitive remembers between ticks.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum MoveMemory {
    /// Nothing yet (a fresh decision).
    #[default]
    None,
    /// Line-of-sight chase on tiles: the Bresenham path built towards `target`, cells still to
    /// walk, next first.
    LosPath { target: Tile, cells: VecDeque<Tile> },
    /// A compass direction kept between steps (road following: index into the 8 directions
    /// clockwise from up-left).
    Direction(usize),
    /// Wall tracing: facing (index into the 4 directions up, right, down, left) and whether a
    /// wall has been found to keep a hand on.
    Wall { facing: usize, touching: bool },
    /// Tracing around obstacles.
    Trace(TraceState),
    /// A free agent's random heading (index into the 8 directions) and the ticks it is kept.
    Wander { direction: usize, ticks_left: u32 },
    /// Smooth wander: the angle of the wander point on its circle, from the heading (radians).
    WanderAngle(f64),
    /// `move.follow`: the leader's last direction of travel, the frame of the offset.
    LeaderFrame(glam::DVec2),
    /// `move.follow_path`: the corners to walk (smoothed once, when asked) and the next one.
    Corners { corners: Vec<Tile>, next: usize },
    /// `move.blend` / `move.first`: each part's own memory, in the parts' order.
    Parts(Vec<MoveMemory>),
    /// A route-following primitive found no route to its goal, for this reason (shown in the
    /// trace as `no_path` and in the inspector); it plans again next tick.
    NoPath(super::NoPath),
}

impl MoveMemory {
    /// Why the agent's route-following primitive has no route, if that is what it remembers.
    pub fn no_path(&self) -> Option<super::NoPath> {
        match self {
            MoveMemory::NoPath(reason) => Some(*reason),
            _ => None,
        }
    }
}

/// The state of tracing around obstacles.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceState {
    pub mode: TraceMode,
    /// Where tracing started (improved tracing leaves at the line from here to the goal).
    pub start: Tile,
    /// Facing while tracing: index into the 4 directions up, right, down, left.
    pub facing: usize,
    /// Steps taken since tracing started.
    pub steps: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TraceMode {
    /// Stepping straight at the goal.
    Direct,
    /// Keeping a hand on the obstacle's outline.
    Tracing,
    /// The goal came into sight: walking the Bresenham line to it.
    Sighted(VecDeque<Tile>),
}

/// A scripted route a keyboard agent walks when no key is pressed (always, headless).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Walk {
    /// A boxed slice, not a `Vec`: every agent holds a `Walk`, and a route is never changed
    /// after the scene builds it. The 8 bytes this saves also keep `Agent` off a power-of-two
    /// size: agents 512 bytes apart put every agent's hot fields in the same few cache sets
    /// (`docs/benchmarks.md`, issue 35).
    pub tiles: Box<[Tile]>,
    /// Index of the next tile to reach; `tiles.len()` when done.
    pub next: usize,
}
