//! Waypoint navigation (Bourg & Seemann, *AI for Game Developers*, ch. 6
//! "Basic Pathfinding and Waypoints"): nodes placed by the
//! designer, links between nodes that see each other, and the node table `next[from][to]` (the
//! first node to move to on the shortest route), filled once with Floyd-Warshall over the link
//! lengths and looked up at run time. To travel: go to the nearest node in sight, then follow the
//! table to the node nearest the destination that sees it.
//!
//! Links use [`line_of_sight`], so every link is walkable tile by tile along its Bresenham line
//! (the same corner rule as movement). A link's length is the cost of that line (1 straight,
//! sqrt 2 diagonal, times terrain).

use super::line::bresenham;
use super::los::line_of_sight;
use crate::world::{Tile, WaypointTable, World};

/// The cost of walking the Bresenham line from `a` to `b`.
fn line_cost(world: &World, a: Tile, b: Tile) -> f64 {
    super::search::path_cost(world, &bresenham(a, b))
}

/// Builds the node table for `nodes` on the world's current map: for the first
/// [`WaypointTable::MAX_NODES`] of them (scenes cannot have more), so the cubic build stays in
/// tens of milliseconds.
pub fn build(world: &World, nodes: &[Tile]) -> WaypointTable {
    let nodes = WaypointTable::used(nodes);
    let n = nodes.len();
    let mut cost = vec![f64::INFINITY; n * n];
    let mut next = vec![WaypointTable::NONE; n * n];
    for i in 0..n {
        cost[i * n + i] = 0.0;
        next[i * n + i] = i as u32;
        for j in i + 1..n {
            if !world.is_blocked(nodes[i]) && line_of_sight(world, nodes[i], nodes[j]) {
                let c = line_cost(world, nodes[i], nodes[j]);
                cost[i * n + j] = c;
                cost[j * n + i] = line_cost(world, nodes[j], nodes[i]);
                next[i * n + j] = j as u32;
                next[j * n + i] = i as u32;
            }
        }
    }
    for k in 0..n {
        for i in 0..n {
            let ik = cost[i * n + k];
            if ik.is_infinite() {
                continue;
            }
            for j in 0..n {
                let through = ik + cost[k * n + j];
                // Strictly shorter only, so ties keep the direct link / the lower node.
                if through < cost[i * n + j] - 1e-9 {
                    cost[i * n + j] = through;
                    next[i * n + j] = next[i * n + k];
                }
            }
        }
    }
    WaypointTable {
        nodes: nodes.to_vec(),
        map_version: Some(world.map_version()),
        next,
        cost,
    }
}

/// The world's table if current, else a fresh one.
pub fn table(world: &World) -> std::borrow::Cow<'_, WaypointTable> {
    if world
        .waypoint_table
        .is_current(&world.waypoints, world.map_version())
    {
        std::borrow::Cow::Borrowed(&world.waypoint_table)
    } else {
        std::borrow::Cow::Owned(build(world, &world.waypoints))
    }
}

/// The node nearest to `tile` (straight-line distance; ties to the first node) that it can see.
pub fn nearest_visible(world: &World, table: &WaypointTable, tile: Tile) -> Option<usize> {
    table
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, &node)| line_of_sight(world, tile, node))
        .min_by_key(|(i, &node)| ((node - tile).length_squared(), *i))
        .map(|(i, _)| i)
}

/// The waypoint route from `from` to `to`: `from`, the nodes to pass, then `to`; each leg is in
/// line of sight. `None` when no node sees either end or the nodes do not connect them.
pub fn route(world: &World, table: &WaypointTable, from: Tile, to: Tile) -> Option<Vec<Tile>> {
    if world.is_blocked(from) || world.is_blocked(to) {
        return None;
    }
    if from == to {
        return Some(vec![from]);
    }
    let a = nearest_visible(world, table, from)?;
    let b = nearest_visible(world, table, to)?;
    let nodes = table.node_route(a, b)?;
    let mut tiles = vec![from];
    tiles.extend(nodes.into_iter().map(|i| table.nodes[i]));
    tiles.push(to);
    tiles.dedup();
    Some(tiles)
}

/// A waypoint route expanded to neighbouring tiles (the Bresenham cells of each leg).
pub fn route_tiles(
    world: &World,
    table: &WaypointTable,
    from: Tile,
    to: Tile,
) -> Option<Vec<Tile>> {
    let corners = route(world, table, from, to)?;
    let mut tiles = vec![from];
    for pair in corners.windows(2) {
        tiles.extend(bresenham(pair[0], pair[1]).into_iter().skip(1));
    }
    Some(tiles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec2;

    fn t(x: i32, y: i32) -> IVec2 {
        IVec2::new(x, y)
    }

    /// Two rooms joined by a door at (5, 2); nodes in each room and in the door.
    fn rooms() -> (World, Vec<Tile>) {
        let w = World::from_ascii(&[
            "###########",
            "#....#....#",
            "#.........#",
            "#....#....#",
            "###########",
        ]);
        (w, vec![t(2, 2), t(5, 2), t(8, 2), t(8, 1)])
    }

    #[test]
    fn the_table_gives_the_first_node_of_the_shortest_route() {
        let (w, nodes) = rooms();
        let table = build(&w, &nodes);
        // Every node sees the door node; (2,2) and (8,2) see each other along row 2 through
        // the door, (2,2) and (8,1) do not.
        assert_eq!(table.next(0, 2), Some(2));
        assert_eq!(
            table.next(0, 3),
            Some(1),
            "to (8,1) via the door, not past the wall"
        );
        assert_eq!(table.node_route(0, 3), Some(vec![0, 1, 3]));
        assert_eq!(table.next(3, 3), Some(3));
        // 3 along row 2 to the door, then 2 straight and 1 diagonal.
        assert!(
            (table.cost[3] - (5.0 + 2f64.sqrt())).abs() < 1e-9,
            "{}",
            table.cost[3]
        );
    }

    #[test]
    fn routes_start_at_the_nearest_visible_node_and_every_leg_is_in_sight() {
        let (w, nodes) = rooms();
        let table = build(&w, &nodes);
        let r = route(&w, &table, t(1, 1), t(9, 3)).unwrap();
        assert_eq!(r.first(), Some(&t(1, 1)));
        assert_eq!(r.last(), Some(&t(9, 3)));
        assert_eq!(r[1], t(2, 2), "nearest node in sight first");
        for pair in r.windows(2) {
            assert!(line_of_sight(&w, pair[0], pair[1]), "{pair:?}");
        }
        let cells = route_tiles(&w, &table, t(1, 1), t(9, 3)).unwrap();
        assert!(cells
            .windows(2)
            .all(|p| (p[1] - p[0]).abs().max_element() == 1));
        assert!(cells.iter().all(|&c| !w.is_blocked(c)));
    }

    #[test]
    fn a_map_change_cuts_links_and_unseen_ends_have_no_route() {
        let (mut w, nodes) = rooms();
        let table = build(&w, &nodes);
        assert!(table.is_current(&nodes, w.map_version()));
        let wall = w.terrain().by_name("wall").unwrap();
        w.set_terrain(t(5, 2), wall);
        assert!(!table.is_current(&nodes, w.map_version()));
        let table = build(&w, &nodes);
        assert_eq!(table.next(0, 2), None);
        assert_eq!(route(&w, &table, t(1, 1), t(9, 3)), None);
        // A tile no node sees.
        let hidden = World::from_ascii(&["..#..", "..#.."]);
        let t2 = build(&hidden, &[t(0, 0)]);
        assert_eq!(route(&hidden, &t2, t(0, 1), t(4, 1)), None);
        assert_eq!(
            route(&hidden, &t2, t(0, 1), t(1, 1)),
            Some(vec![t(0, 1), t(0, 0), t(1, 1)])
        );
    }
}
