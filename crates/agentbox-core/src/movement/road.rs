//! Path following on roads (Bourg & Seemann, *AI for Game Developers*, ch. 6 "Basic
//! Pathfinding and Waypoints", "Path Following"): terrain
//! analysis of the 8 neighbours (road 10, off-road or outside the map 0), then weighting by the
//! current direction: the same direction +2, the two beside it +1 each, the opposite -1. The
//! unit moves one cell towards the largest weight (strictly above 0; the first in the order
//! UL, U, UR, R, DR, D, DL, L on a tie, as the book's `>` scan) and takes it as its direction.
//! It keeps to the road and prefers going straight, with no destination.
//!
//! Where the book's listing differs from its rule, the rule is implemented: it sets
//! `direction=2` after moving right (index 4) and `direction=6` after moving down-left (7); for
//! direction 4 it lowers index 7 instead of the opposite 8, and for direction 5 index 8 instead
//! of the opposite 1. A diagonal step that would cut a blocked corner counts as off-road.

use super::dirs::{can_step, dir8_of_angle, DIR8};
use super::tiles::TileCtx;
use crate::world::{centre_of, MoveMemory, Role, Shape, Tile, World};
use glam::DVec2;

/// Terrain analysis plus direction weights around `at`; `on_road` says which tiles are road.
pub fn weights(
    world: &World,
    at: Tile,
    direction: Option<usize>,
    on_road: &dyn Fn(Tile) -> bool,
) -> [i32; 8] {
    let mut w = [0i32; 8];
    for (i, d) in DIR8.iter().enumerate() {
        let to = at + *d;
        w[i] = if world.in_bounds(to) && on_road(to) && can_step(world, at, to) {
            10
        } else {
            0
        };
    }
    if let Some(d) = direction {
        w[d] += 2;
        w[(d + 1) % 8] += 1;
        w[(d + 7) % 8] += 1;
        w[(d + 4) % 8] -= 1;
    }
    w
}

/// The direction of the largest weight above 0, the first on a tie.
pub fn choose(weights: &[i32; 8]) -> Option<usize> {
    let mut best = None;
    let mut max = 0;
    for (i, &w) in weights.iter().enumerate() {
        if w > max {
            max = w;
            best = Some(i);
        }
    }
    best
}

/// The next tile of a road follower keeping to tiles of terrain `road`.
pub fn next(ctx: &mut TileCtx, road: &str) -> Option<Tile> {
    let direction = match &*ctx.memory {
        MoveMemory::Direction(d) => *d,
        _ => dir8_of_angle(ctx.agent.heading()),
    };
    let world = ctx.world;
    let on_road = |t: Tile| world.terrain_at(t).is_some_and(|k| k.name == road);
    let w = weights(world, ctx.at, Some(direction), &on_road);
    for (i, d) in DIR8.iter().enumerate() {
        ctx.shapes.push(Shape::Label {
            role: Role::Weights,
            at: centre_of(ctx.at) + DVec2::new(d.x as f64, d.y as f64) * 0.5,
            text: w[i].to_string(),
        });
    }
    let chosen = choose(&w)?;
    *ctx.memory = MoveMemory::Direction(chosen);
    let to = ctx.at + DIR8[chosen];
    ctx.shapes.push(Shape::Line {
        role: Role::Path,
        from: centre_of(ctx.at),
        to: centre_of(to),
    });
    Some(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    fn roads(world: &World) -> impl Fn(Tile) -> bool + '_ {
        |t| world.terrain_at(t).is_some_and(|k| k.name == "road")
    }

    #[test]
    fn the_weights_of_the_rule() {
        let world = World::from_ascii(&["===", "===", "==="]);
        let at = IVec2::new(1, 1);
        // All road around; heading right (index 3): R +2, UR and DR +1, L -1.
        let w = weights(&world, at, Some(3), &roads(&world));
        assert_eq!(w, [10, 10, 11, 12, 11, 10, 10, 9]);
        // Heading down-right (index 4): opposite is up-left (index 0).
        let w = weights(&world, at, Some(4), &roads(&world));
        assert_eq!(w, [9, 10, 10, 11, 12, 11, 10, 10]);
        assert_eq!(choose(&w), Some(4));
    }

    #[test]
    fn keeps_to_the_road_and_turns_with_it() {
        // A road going right then turning down at column 3.
        let world = World::from_ascii(&["....", "====", "...=", "...="]);
        let w = weights(&world, IVec2::new(2, 1), Some(3), &roads(&world));
        // Off-road neighbours are 0 (+ direction bonus); road R = 12, DR = 11.
        assert_eq!(w, [0, 0, 1, 12, 11, 0, 0, 9]);
        assert_eq!(choose(&w), Some(3));
        let w = weights(&world, IVec2::new(3, 1), Some(3), &roads(&world));
        assert_eq!(choose(&w), Some(5), "down is the only road ahead: {w:?}");
        // No road anywhere: no move.
        let empty = World::from_ascii(&["...", "...", "..."]);
        let w = weights(&empty, IVec2::new(1, 1), Some(3), &roads(&empty));
        assert_eq!(
            choose(&w),
            Some(3),
            "the +2 of the direction alone is above 0"
        );
        let w = weights(&empty, IVec2::new(1, 1), None, &roads(&empty));
        assert_eq!(choose(&w), None);
    }
}
