//! The waypoint node table (waypoint navigation, see `docs/algorithms.md`): for every pair of
//! nodes, the first node to move to on the shortest route between them. Plain data;
//! `nav::waypoints` builds it from the map (links by line of sight) and the simulation keeps it
//! current.

use super::Tile;

/// `next[from * n + to]`: the node to go to next from `from` towards `to` (`NONE` when `to`
/// cannot be reached); `cost[from * n + to]` the route's length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaypointTable {
    /// The nodes the table was built for, in scene order.
    pub nodes: Vec<Tile>,
    /// The map version it was built on; `None` before the first build.
    pub map_version: Option<u64>,
    pub next: Vec<u32>,
    pub cost: Vec<f64>,
}

impl WaypointTable {
    /// No next node.
    pub const NONE: u32 = u32::MAX;

    /// The most nodes a table holds: building it takes time in the cube of their number
    /// (Floyd-Warshall) and memory in the square, so 256 nodes build in tens of milliseconds.
    /// Scenes with more are refused; a world given more by other means uses the first 256.
    pub const MAX_NODES: usize = 256;

    /// The nodes a table for `nodes` is built on: the first [`Self::MAX_NODES`].
    pub fn used(nodes: &[Tile]) -> &[Tile] {
        &nodes[..nodes.len().min(Self::MAX_NODES)]
    }

    /// Whether the table was built for these nodes on this map version.
    pub fn is_current(&self, nodes: &[Tile], map_version: u64) -> bool {
        self.map_version == Some(map_version) && self.nodes == Self::used(nodes)
    }

    /// The node after `from` on the shortest route to `to` (`to` itself when linked directly;
    /// `from` when equal).
    pub fn next(&self, from: usize, to: usize) -> Option<usize> {
        let n = self.nodes.len();
        if from >= n || to >= n {
            return None;
        }
        let v = self.next[from * n + to];
        (v != Self::NONE).then_some(v as usize)
    }

    /// The nodes from `from` to `to`, both included, by repeated look-ups; `None` when
    /// unreachable.
    pub fn node_route(&self, from: usize, to: usize) -> Option<Vec<usize>> {
        let mut route = vec![from];
        let mut at = from;
        while at != to {
            at = self.next(at, to)?;
            route.push(at);
            if route.len() > self.nodes.len() {
                return None; // a corrupt table; never loop
            }
        }
        Some(route)
    }
}
