//! The keys that tell a cache its entries still hold: one per concern, each moved by the one
//! place that makes that kind of change, so a cache never needs a counter of its own.
//!
//! | concern | key | moved by | checked by |
//! | --- | --- | --- | --- |
//! | the map's content | [`MapKey`]: a hash of the map's size and every cell's entry cost | [`World::set_terrain`] and [`World::replace_map`], cell by cell | navigation grids and their landmarks (`nav::cache`), flow fields (`nav::flow`) |
//! | an edit of the map | [`World::map_version`]: how many times this world's map was edited | [`World::set_terrain`] and [`World::replace_map`], even when the content comes back | what was planned on the map: agents' routes ([`Route::map_version`]), the waypoint node table |
//! | the agent list | [`Roster`]: a generation never handed out twice in a process | the simulation, whenever the list may have changed | caches by agent index (the Lua host's slots, its list of turns, its views) |
//!
//! Which key a change of the map or of the agents must move is said on [`Roster`].
//!
//! Not a key: `World::seal` is the simulation's promise, while it holds its world between
//! its re-index and the write-back, that the spatial index describes the agents exactly; a
//! copy starts unsealed.
//!
//! [`World::set_terrain`]: super::World::set_terrain
//! [`World::replace_map`]: super::World::replace_map
//! [`World::map_version`]: super::World::map_version
//! [`Route::map_version`]: super::Route::map_version

/// A 128-bit hash of a map's content: its width and height and each cell's entry cost. It is
/// the XOR of one mixed term per cell (Zobrist hashing), so painting a cell updates it in
/// constant time ([`MapKey::replace`]) and it depends only on the content, never on the order
/// of the edits that led there. Two different maps share a key with probability about 2^-128.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MapKey(u64, u64);

impl MapKey {
    /// The key of a `width` x `height` map with these costs (row-major).
    pub fn of(width: i32, height: i32, costs: &[f32]) -> Self {
        let size = ((width as u32 as u64) << 32) | height as u32 as u64;
        let mut key = MapKey(mix(size ^ 0x5bd1_e995), mix(size ^ 0x9e37_79b9_7f4a_7c15));
        for (i, &c) in costs.iter().enumerate() {
            key.toggle(i, c);
        }
        key
    }

    /// The key after cell `index`'s cost changed from `old` to `new`.
    pub fn replace(&mut self, index: usize, old: f32, new: f32) {
        self.toggle(index, old);
        self.toggle(index, new);
    }

    fn toggle(&mut self, index: usize, cost: f32) {
        let term = ((index as u64) << 32) | cost.to_bits() as u64;
        self.0 ^= mix(term);
        self.1 ^= mix(term ^ 0xd6e8_feb8_6659_fd93);
    }
}

/// SplitMix64's finaliser: every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Names one arrangement of a world's agent list: which agent (id, brain, suspended or not)
/// stands at which index. While a world's roster stays, a cache kept by agent index may trust
/// it. A roster is never handed out twice in a process, so a cache kept across worlds (a reset
/// makes a new world, a replay another) never takes one world's list for another's; only
/// equality means anything, and no run's output depends on the number.
///
/// # Which key a change must move
///
/// **A change of the map** (a painted tile, a reloaded map) goes through [`World::set_terrain`]
/// or [`World::replace_map`], which move both map keys; nothing else can write them. Caches of
/// what is a function of the costs alone key by [`MapKey`], so a reset, a reload with the same
/// map or a restored snapshot finds them again, in any world on the thread. What an agent
/// planned re-plans after every edit ([`World::map_version`]), so when a route re-plans never
/// depends on what the map held before: that number counts one world's edits (a copy keeps
/// it) and means nothing across worlds.
///
/// **A change of the agents** that may change which agent stands at which index, its id, its
/// brain or whether it is suspended, goes through `Simulation::world_mut` (a reload, a drag, a
/// resume) or starts a new `Simulation` (a reset, a replay), each of which takes a new
/// [`Roster`]; the simulation also takes one when a decision suspends an agent. The agents'
/// positions, actions and memory move every tick and are no part of the roster. A world no
/// simulation holds has [`Roster::UNKNOWN`], which matches nothing: a cache then checks every
/// agent.
///
/// [`World::set_terrain`]: super::World::set_terrain
/// [`World::replace_map`]: super::World::replace_map
/// [`World::map_version`]: super::World::map_version
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Roster(u64);

impl Roster {
    /// Not known (a world no simulation has held): a cache checks every agent.
    pub const UNKNOWN: Roster = Roster(0);

    /// A roster never handed out before in this process.
    pub(crate) fn next() -> Roster {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Roster(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// Whether this names an arrangement (is not [`Roster::UNKNOWN`]).
    pub fn is_known(self) -> bool {
        self != Roster::UNKNOWN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rosters_are_never_handed_out_twice() {
        let a = Roster::next();
        let b = Roster::next();
        assert!(a.is_known() && b.is_known());
        assert_ne!(a, b);
        assert!(!Roster::UNKNOWN.is_known());
        assert_eq!(Roster::default(), Roster::UNKNOWN);
    }
}
