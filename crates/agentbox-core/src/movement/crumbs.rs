//! Breadcrumb pathfinding (Bourg & Seemann, *AI for Game Developers*, ch. 6 "Basic
//! Pathfinding and Waypoints", "Breadcrumb Pathfinding"): the player drops
//! a crumb on every tile it steps onto; the trail keeps the newest `kMaxTrailLength` (15 in the
//! book), index 0 the newest. Each step the follower (the troll) scans the trail from newest to
//! oldest, and for each crumb checks its own cell and its 8 neighbours in the book's order (own
//! cell, UL, U, UR, L, R, DL, D, DR); it moves onto the first crumb found. With none found it
//! moves randomly by -1..+1 on each axis, clamped to the map.
//!
//! The book's listing adds the random offset to the *player's* position
//! (`entityList[i].row = entityList[0].row + Rnd(0,2) - 1`), which would teleport the troll
//! next to the player; the rule is a random step from the troll's own cell, as done here.

use super::tiles::TileCtx;
use crate::world::{centre_of, rng, Role, Shape, Tile};
use glam::IVec2;

/// The book's trail length (`kMaxTrailLength`).
pub const BOOK_TRAIL_LENGTH: usize = 15;

/// Where the follower looks, in the book's order: its own cell, then UL, U, UR, L, R, DL, D, DR.
pub const SCAN: [IVec2; 9] = [
    IVec2::new(0, 0),
    IVec2::new(-1, -1),
    IVec2::new(0, -1),
    IVec2::new(1, -1),
    IVec2::new(-1, 0),
    IVec2::new(1, 0),
    IVec2::new(-1, 1),
    IVec2::new(0, 1),
    IVec2::new(1, 1),
];

/// The first crumb (its index in the trail and its tile) on or next to `at`, newest first.
pub fn find_crumb(at: Tile, trail: &[Tile]) -> Option<(usize, Tile)> {
    trail
        .iter()
        .enumerate()
        .find(|(_, &crumb)| SCAN.iter().any(|&o| at + o == crumb))
        .map(|(j, &crumb)| (j, crumb))
}

/// The next tile of a follower of `leader`'s crumbs, scanning at most `trail` of them.
pub fn next(ctx: &mut TileCtx, leader: &str, trail: usize) -> Option<Tile> {
    let crumbs: Vec<Tile> = ctx
        .world
        .agent(leader)
        .map(|a| a.crumbs.tiles.iter().take(trail).copied().collect())
        .unwrap_or_default();
    ctx.shapes.push(Shape::Cells {
        role: Role::Probe,
        cells: crumbs.clone(),
    });
    if let Some((j, crumb)) = find_crumb(ctx.at, &crumbs) {
        ctx.shapes.push(Shape::Label {
            role: Role::Weights,
            at: centre_of(crumb),
            text: j.to_string(),
        });
        return Some(crumb);
    }
    let dx = rng::int_in(ctx.rng, -1, 1) as i32;
    let dy = rng::int_in(ctx.rng, -1, 1) as i32;
    let grid = ctx.world.grid();
    let to = IVec2::new(
        (ctx.at.x + dx).clamp(0, grid.width() - 1),
        (ctx.at.y + dy).clamp(0, grid.height() - 1),
    );
    Some(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: i32, y: i32) -> Tile {
        IVec2::new(x, y)
    }

    #[test]
    fn newest_crumb_first_over_own_cell_and_neighbours() {
        // The trail, newest first: (9,9) is far away, (4,5) is a neighbour, (5,5) is the own
        // cell, (6,6) another neighbour. The newest crumb in reach wins, even over the own cell.
        let trail = [t(9, 9), t(4, 5), t(5, 5), t(6, 6)];
        assert_eq!(find_crumb(t(5, 5), &trail), Some((1, t(4, 5))));
        // Only older crumbs near: the own cell before a neighbour of the same age is moot,
        // the order is by crumb age first.
        assert_eq!(find_crumb(t(5, 5), &trail[2..]), Some((0, t(5, 5))));
        assert_eq!(find_crumb(t(0, 0), &trail), None);
    }

    #[test]
    fn random_step_without_crumbs_is_clamped_to_the_map() {
        use crate::world::{Agent, MoveMemory, World};
        let world = World::from_ascii(&["...", "...", "..."]);
        let agent = Agent::new("troll", t(0, 0));
        let mut r = agent.rng.current();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..60 {
            let mut memory = MoveMemory::None;
            let mut shapes = vec![];
            let to = next(
                &mut TileCtx {
                    world: &world,
                    agent: &agent,
                    at: t(0, 0),
                    memory: &mut memory,
                    rng: &mut r,
                    shapes: &mut shapes,
                },
                "nobody",
                15,
            )
            .unwrap();
            assert!(to.x >= 0 && to.y >= 0 && to.x <= 1 && to.y <= 1, "{to}");
            seen.insert((to.x, to.y));
        }
        assert_eq!(seen.len(), 4, "every clamped offset occurs: {seen:?}");
    }
}
