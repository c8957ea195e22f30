//! Wall tracing (Bourg & Seemann, *AI for Game Developers*, ch. 6 "Basic
//! Pathfinding and Waypoints", "Wall Tracing"): relative to the way it faces, a
//! left-handed unit tries in order: turn left, straight ahead, turn right, turn back (4
//! directions), and moves the first way that is free. Keeping a hand on the wall explores a
//! maze of rooms systematically. The right hand mirrors the order.
//!
//! The book's troll starts beside a wall. From open floor the bare rule turns left every step
//! and circles a 2x2 square forever, so a unit with no wall at hand yet first walks straight
//! ahead; on meeting a wall it turns so the wall is on its hand side, and from then on follows
//! the rule exactly.

use super::dirs::{can_step, dir4_of_angle, DIR4};
use super::tiles::TileCtx;
use crate::world::{centre_of, Hand, MoveMemory, Role, Shape, Tile, World};

/// The directions (indices into up, right, down, left) to try from `facing`, in order.
pub fn order(hand: Hand, facing: usize) -> [usize; 4] {
    let (left, right) = ((facing + 3) % 4, (facing + 1) % 4);
    match hand {
        Hand::Left => [left, facing, right, (facing + 2) % 4],
        Hand::Right => [right, facing, left, (facing + 2) % 4],
    }
}

/// The first free direction in the hand's order.
pub fn choose(world: &World, at: Tile, facing: usize, hand: Hand) -> Option<usize> {
    order(hand, facing)
        .into_iter()
        .find(|&d| can_step(world, at, at + DIR4[d]))
}

/// The next tile of a wall tracer.
pub fn next(ctx: &mut TileCtx, hand: Hand) -> Option<Tile> {
    let (mut facing, mut touching) = match &*ctx.memory {
        MoveMemory::Wall { facing, touching } => (*facing, *touching),
        _ => (dir4_of_angle(ctx.agent.heading()), false),
    };
    let at = ctx.at;
    let world = ctx.world;
    let hand_side = order(hand, facing)[0];
    if !touching {
        if world.is_blocked(at + DIR4[hand_side]) {
            touching = true;
        } else if can_step(world, at, at + DIR4[facing]) {
            *ctx.memory = MoveMemory::Wall { facing, touching };
            return Some(at + DIR4[facing]);
        } else {
            // A wall ahead: turn away from the hand so the wall is on the hand side.
            facing = order(hand, facing)[2];
            touching = true;
        }
    }
    ctx.shapes.push(Shape::Cells {
        role: Role::Probe,
        cells: order(hand, facing).iter().map(|&d| at + DIR4[d]).collect(),
    });
    let chosen = choose(world, at, facing, hand);
    if let Some(d) = chosen {
        facing = d;
    }
    *ctx.memory = MoveMemory::Wall { facing, touching };
    let to = at + DIR4[chosen?];
    ctx.shapes.push(Shape::Line {
        role: Role::Path,
        from: centre_of(at),
        to: centre_of(to),
    });
    Some(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    #[test]
    fn left_then_ahead_then_right_then_back() {
        // Facing right (1): left is up (0), then right (1), then down (2), then back left (3).
        assert_eq!(order(Hand::Left, 1), [0, 1, 2, 3]);
        assert_eq!(order(Hand::Right, 1), [2, 1, 0, 3]);
        assert_eq!(order(Hand::Left, 0), [3, 0, 1, 2]);
        // A corridor cell facing right: up blocked, right free -> ahead.
        let w = World::from_ascii(&["#####", ".....", "#####"]);
        assert_eq!(choose(&w, IVec2::new(2, 1), 1, Hand::Left), Some(1));
        // An opening upwards: left wins over ahead.
        let w = World::from_ascii(&["##.##", ".....", "#####"]);
        assert_eq!(choose(&w, IVec2::new(2, 1), 1, Hand::Left), Some(0));
        // A dead end facing right: up, right and down blocked -> back.
        let w = World::from_ascii(&["###", "..#", "###"]);
        assert_eq!(choose(&w, IVec2::new(1, 1), 1, Hand::Left), Some(3));
        // Right hand at the opening: down is blocked, so ahead.
        let w = World::from_ascii(&["##.##", ".....", "#####"]);
        assert_eq!(choose(&w, IVec2::new(2, 1), 1, Hand::Right), Some(1));
    }
}
