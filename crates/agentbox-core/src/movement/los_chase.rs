//! Line-of-sight chase on tiles (Bourg & Seemann, *AI for Game Developers*, ch. 2 "Chasing and
//! Evading", the listing's `BuildPathToTarget`): build a straight path to the target with
//! Bresenham's line, walk it one cell per step, and build it again whenever the target has moved to
//! another tile. At most [`MAX_PATH_LENGTH`] cells are stored, as the book's `kMaxPathLength`.
//!
//! The book's listing initialises the error term as `deltaRow * 2 - deltaCol` after already
//! doubling both deltas, which weights the short axis twice; this uses the textbook rule
//! ([`crate::nav::bresenham`]): the long axis steps every time, the short axis when the error
//! term says so. The path does not avoid walls: a chaser behind one presses against it, as in
//! the book.

use super::tiles::TileCtx;
use crate::nav::Line;
use crate::world::{centre_of, MoveMemory, Role, Shape, Tile};
use std::collections::VecDeque;

/// The most cells a path holds (the book's `kMaxPathLength`).
pub const MAX_PATH_LENGTH: usize = 64;

/// The cells to walk from `from` towards `target`, `from` itself left out (the line is walked
/// only as far as it is kept).
pub fn build_path(from: Tile, target: Tile) -> VecDeque<Tile> {
    Line::new(from, target)
        .take(MAX_PATH_LENGTH)
        .skip(1)
        .collect()
}

/// The next tile; keeps the path in the agent's memory.
pub fn next(ctx: &mut TileCtx, target: Tile) -> Option<Tile> {
    let keep = match &*ctx.memory {
        MoveMemory::LosPath { target: t, cells } => {
            *t == target
                && cells
                    .front()
                    .is_some_and(|c| (*c - ctx.at).abs().max_element() == 1)
        }
        _ => false,
    };
    if !keep {
        *ctx.memory = MoveMemory::LosPath {
            target,
            cells: build_path(ctx.at, target),
        };
    }
    let MoveMemory::LosPath { cells, .. } = &mut *ctx.memory else {
        return None;
    };
    ctx.shapes.push(Shape::Line {
        role: Role::Los,
        from: centre_of(ctx.at),
        to: centre_of(target),
    });
    ctx.shapes.push(Shape::Cells {
        role: Role::Path,
        cells: cells.iter().copied().collect(),
    });
    let next = *cells.front()?;
    if ctx.world.is_blocked(next) {
        return None; // pressed against a wall: stay, keep the path
    }
    cells.pop_front();
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::bresenham;
    use crate::world::{Agent, World};
    use glam::IVec2;

    fn tick(world: &World, agent: &mut Agent, memory: &mut MoveMemory, target: Tile) -> Tile {
        let mut rng = agent.rng.current();
        let mut shapes = vec![];
        let at = agent.tile();
        let mut ctx = TileCtx {
            world,
            agent,
            at,
            memory,
            rng: &mut rng,
            shapes: &mut shapes,
        };
        let to = next(&mut ctx, target).expect("a step");
        agent.pos = centre_of(to);
        to
    }

    #[test]
    fn walks_the_bresenham_line_and_rebuilds_it_when_the_target_moves() {
        let world = World::from_ascii(&[".........", ".........", ".........", "........."]);
        let mut agent = Agent::new("a", IVec2::new(0, 0));
        let mut memory = MoveMemory::None;
        let target = IVec2::new(6, 2);
        let first: Vec<Tile> = (0..3)
            .map(|_| tick(&world, &mut agent, &mut memory, target))
            .collect();
        assert_eq!(first, bresenham(IVec2::ZERO, target)[1..4].to_vec());
        // The target moves: the path is rebuilt from where the chaser stands.
        let moved = IVec2::new(3, 3);
        let from = agent.tile();
        let step = tick(&world, &mut agent, &mut memory, moved);
        assert_eq!(step, bresenham(from, moved)[1]);
        match &memory {
            MoveMemory::LosPath { target, cells } => {
                assert_eq!(*target, moved);
                assert_eq!(
                    cells.iter().copied().collect::<Vec<_>>(),
                    bresenham(from, moved)[2..].to_vec()
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_path_holds_at_most_max_path_length_cells() {
        let path = build_path(IVec2::ZERO, IVec2::new(500, 3));
        assert_eq!(path.len(), MAX_PATH_LENGTH - 1);
        assert_eq!(path[0], IVec2::new(1, 0));
    }
}
