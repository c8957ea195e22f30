//! The navigation grid cache: one [`NavGrid`] per map content and body size, and one set of
//! [`Search`] buffers, kept per thread and shared by every caller on it (`nav.path`,
//! `move.path_to`'s planning, the tank's footprint planner, the window's search overlay).
//!
//! A grid is keyed by the world's [`MapKey`] (a hash of the map's size and every cell's entry
//! cost, kept in step by the world cell by cell) and the body size, never by a counter: a
//! painted cell, a reloaded scene, a reset or a restored snapshot gives a new key exactly when
//! the map's content differs, so a grid is built once per map content and never served for
//! another map. The few most recently used grids are kept (a painted map and its body sizes),
//! the least recently used dropped first (`lru.rs`).
//!
//! Determinism: a query's answer depends only on the map and its arguments, never on what the
//! cache held (the search buffers are stamped per query, the grid is a function of the key),
//! so a warm cache changes only the time a query takes. Each thread has its own cache (the
//! simulation runs on one thread; `agentbox test` runs one session per worker thread).
//!
//! Like the rest of `nav/`, this module only reads the world and never names an engine crate.

use super::grid::NavGrid;
use super::landmarks;
use super::options::{Algorithm, NoPath, PathOptions, PathResult};
use super::search::Search;
use crate::lru::Lru;
use crate::world::{MapKey, Tile, World};
use std::cell::{Cell, RefCell};

/// How many grids a thread keeps, in weight: a grid weighs 1, or [`LANDMARK_WEIGHT`] with
/// landmarks.
const KEEP: usize = 6;

/// The weight of a grid with landmark distances (16 MiB on a 512 x 512 map, and 16 more for
/// each corner-cutting rule queried): a thread keeps at most two such maps, so a designer
/// painting a large map, each stroke a new map content, holds at most two maps' landmarks
/// (up to about 97 MB with every rule's), not six.
const LANDMARK_WEIGHT: usize = 3;

self_cell::self_cell!(
    /// A grid together with the cost array it reads (the world's, copied, or a body's
    /// footprint costs).
    struct OwnedGrid {
        owner: Box<[f32]>,
        #[covariant]
        dependent: NavGrid,
    }
);

struct Cache {
    /// Grids by map content and body size, weighed by [`LANDMARK_WEIGHT`] (at most [`KEEP`]).
    grids: Lru<(MapKey, u32), OwnedGrid>,
    search: Search,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            grids: Lru::new(KEEP),
            search: Search::default(),
        }
    }
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::default();
    static BUILDS: Cell<u64> = const { Cell::new(0) };
}

/// How many grids this thread has built so far (for tests and benchmarks: a query on an
/// unchanged map builds none).
pub fn builds() -> u64 {
    BUILDS.with(Cell::get)
}

/// Builds the grid of `world`'s map for a body of `size` tiles (1: the map itself; more: its
/// footprint costs, [`NavGrid::footprint_costs`]). `None` only for a corrupt world whose costs
/// are not positive.
fn build(world: &World, size: u32) -> Option<OwnedGrid> {
    BUILDS.with(|b| b.set(b.get() + 1));
    let (w, h) = (world.grid().width(), world.grid().height());
    let costs: Box<[f32]> = match size {
        0 | 1 => world.costs().into(),
        _ => NavGrid::new(w, h, world.costs())?
            .footprint_costs(size)
            .into(),
    };
    OwnedGrid::try_new(costs, |c| {
        let mut grid = NavGrid::new(w, h, c).ok_or(())?;
        // The default search's landmark distances, for one-tile bodies on large uniform
        // maps (`landmarks::MIN_CELLS`): built here, with the grid, never per query.
        if size <= 1 && c.len() >= landmarks::MIN_CELLS {
            grid.build_landmarks();
        }
        Ok::<_, ()>(grid)
    })
    .ok()
}

/// Calls `f` with the grid of `world`'s map for a body of `size` tiles (0 counts as 1) and
/// this thread's search buffers, building the grid only if the cache has none for this map
/// content and size. `None` for a corrupt world (costs not positive), where no path exists.
///
/// `f` must not call back into this cache; if it does, the inner call runs on a grid and
/// buffers of its own, built for it, rather than failing.
pub fn with_grid<R>(
    world: &World,
    size: u32,
    f: impl FnOnce(&NavGrid, &mut Search) -> R,
) -> Option<R> {
    let size = size.max(1);
    let key = world.map_key();
    let mut f = Some(f);
    let cached = CACHE.try_with(|cache| {
        let Ok(mut cache) = cache.try_borrow_mut() else {
            return None;
        };
        let cache = &mut *cache;
        let grid = cache
            .grids
            .get_or_insert_with((key, size), || {
                let grid = build(world, size)?;
                let weight = match grid.borrow_dependent().landmarks() {
                    Some(_) => LANDMARK_WEIGHT,
                    None => 1,
                };
                Some((grid, weight))
            })?
            .borrow_dependent();
        let f = f.take()?;
        Some(f(grid, &mut cache.search))
    });
    match (cached, f) {
        (Ok(Some(r)), _) => Some(r),
        // Not answered from the cache (called from inside `f`, or while the thread ends):
        // a grid and buffers for this call alone.
        (_, Some(f)) => {
            let grid = build(world, size)?;
            Some(f(grid.borrow_dependent(), &mut Search::new()))
        }
        // `f` ran, or the grid could not be built.
        (_, None) => None,
    }
}

/// A path on `world`'s map with the cached grid and buffers: the same answer as
/// [`Search::find`] with fresh ones, plus why there is none when there is none.
pub fn find(
    world: &World,
    from: Tile,
    to: Tile,
    opts: &PathOptions,
) -> (PathResult, Option<NoPath>) {
    if !world.in_bounds(from) || !world.in_bounds(to) {
        return (PathResult::default(), Some(NoPath::OffMap));
    }
    let size = opts.size.max(1);
    // The body's grid already holds its footprint costs, so the search runs on it as for a
    // one-tile body; A* as before for larger bodies (jump point search needs a one-tile
    // body on the map itself).
    let body_opts = PathOptions {
        size: 1,
        algorithm: if size > 1 {
            Algorithm::AStar
        } else {
            opts.algorithm
        },
        ..*opts
    };
    let answer = with_grid(world, size, |grid, search| {
        let blocked = [from, to]
            .iter()
            .any(|&t| grid.index(t).is_none_or(|i| grid.costs()[i].is_infinite()));
        if blocked {
            return (PathResult::default(), Some(NoPath::Blocked));
        }
        let result = search.find_on(grid, from, to, &body_opts);
        let reason = result.path.is_none().then_some(NoPath::Unreachable);
        (result, reason)
    });
    answer.unwrap_or((PathResult::default(), Some(NoPath::Unreachable)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::path_cost;
    use crate::world::World;
    use glam::IVec2;

    fn t(x: i32, y: i32) -> Tile {
        IVec2::new(x, y)
    }

    /// The cached answer is the uncached one, for every body size and both algorithms, and an
    /// unchanged map builds no grid.
    #[test]
    fn cached_queries_answer_as_fresh_ones_and_build_once() {
        let world = World::from_ascii(&[
            "..........",
            "..#####...",
            "......#.:.",
            "..#...#...",
            "..#.......",
        ]);
        let ends = [(t(0, 0), t(9, 4)), (t(0, 4), t(7, 0)), (t(3, 2), t(8, 3))];
        for size in [1, 2, 3] {
            for algorithm in [Algorithm::Auto, Algorithm::AStar] {
                let opts = PathOptions {
                    size,
                    algorithm,
                    ..Default::default()
                };
                for (a, b) in ends {
                    let fresh = Search::new().find(&world, a, b, &opts);
                    let (cached, reason) = find(&world, a, b, &opts);
                    assert_eq!(cached, fresh, "size {size} {algorithm:?} {a} {b}");
                    assert_eq!(reason.is_some(), fresh.path.is_none());
                }
            }
        }
        let before = builds();
        for _ in 0..50 {
            find(&world, t(0, 0), t(9, 4), &PathOptions::default());
        }
        assert_eq!(builds(), before, "no grid built for an unchanged map");
    }

    /// The stale-grid test: a wall painted across the way makes the next query build a grid
    /// for the new map, and its path goes round the wall; painting it away finds the old grid
    /// again (same content, same key) without building.
    #[test]
    fn a_painted_wall_rebuilds_the_grid_and_no_stale_path_crosses_it() {
        let mut world = World::from_ascii(&["........", "........", "........", "........"]);
        let opts = PathOptions::default();
        let (from, to) = (t(0, 1), t(7, 1));
        let (open, _) = find(&world, from, to, &opts);
        assert_eq!(open.path.as_ref().unwrap().len(), 8, "straight along row 1");
        let before = builds();
        let wall = world.terrain().by_name("wall").unwrap();
        let floor = world.terrain().by_name("floor").unwrap();
        for y in 0..3 {
            assert!(world.set_terrain(t(4, y), wall));
        }
        let (round, reason) = find(&world, from, to, &opts);
        assert_eq!(builds(), before + 1, "the edit rebuilt the grid");
        assert_eq!(reason, None);
        let path = round.path.unwrap();
        assert!(path.iter().all(|&c| !world.is_blocked(c)), "{path:?}");
        assert!(path.contains(&t(4, 3)), "through the only gap: {path:?}");
        assert!((path_cost(&world, &path) - round.cost).abs() < 1e-9);
        // Close the gap: no way at all, and the reason says so.
        assert!(world.set_terrain(t(4, 3), wall));
        let (none, reason) = find(&world, from, to, &opts);
        assert_eq!((none.path, reason), (None, Some(NoPath::Unreachable)));
        // Back to the open map: the grid of that content is still kept.
        let built = builds();
        for y in 0..4 {
            assert!(world.set_terrain(t(4, y), floor));
        }
        assert_eq!(find(&world, from, to, &opts).0, open);
        assert_eq!(builds(), built, "the open map's grid was found again");
    }

    /// The stale-grid test on a map large enough for landmark distances: the open map gets
    /// none (refused before paying for them), the edited map gets them with its new grid (a
    /// stale table would overestimate round the new walls and lose optimality), and every
    /// answer costs what plain A* finds.
    #[test]
    fn a_painted_wall_rebuilds_the_landmarks_too() {
        let row = ".".repeat(130);
        let rows: Vec<&str> = (0..130).map(|_| row.as_str()).collect();
        let mut world = World::from_ascii(&rows);
        let (from, to) = (t(2, 60), t(127, 66));
        let astar = PathOptions {
            algorithm: Algorithm::AStar,
            ..Default::default()
        };
        let check = |world: &World| {
            let (auto, _) = find(world, from, to, &PathOptions::default());
            let plain = Search::new().find(world, from, to, &astar);
            let path = auto.path.expect("a path");
            assert!(path.iter().all(|&c| !world.is_blocked(c)), "{path:?}");
            assert!((path_cost(world, &path) - plain.cost).abs() < 1e-9);
        };
        check(&world);
        let gain = |world: &World| with_grid(world, 1, |g, _| g.landmarks().map(|l| l.gain));
        // On the open map the walls bend no route: the landmarks' bound never beats the
        // octile distance.
        assert_eq!(gain(&world), Some(Some(0.0)));
        let before = builds();
        let wall = world.terrain().by_name("wall").unwrap();
        // Two walls, the first open at the top, the second at the bottom: a long detour.
        for y in 1..130 {
            assert!(world.set_terrain(t(43, y), wall));
            assert!(world.set_terrain(t(86, y - 1), wall));
        }
        check(&world);
        // The new landmarks see the detour round the wall (the per-map choice is remade).
        assert!(gain(&world).flatten().unwrap() > 0.2, "{:?}", gain(&world));
        assert_eq!(
            builds(),
            before + 1,
            "the edit rebuilt the grid and its landmarks"
        );
    }

    /// A thread keeps the grids of at most two large maps with landmarks (16 MiB each on
    /// 512 x 512): a third map content drops the least recently used one, while small maps'
    /// grids (no landmarks) stay six.
    #[test]
    fn at_most_two_maps_with_landmarks_are_kept() {
        let wall = |k: i32| {
            let mut world = World::from_ascii(&vec![".".repeat(130).as_str(); 130]);
            let wall = world.terrain().by_name("wall").unwrap();
            assert!(world.set_terrain(t(k, 5), wall));
            world
        };
        let large: Vec<World> = (0..3).map(wall).collect();
        let (from, to) = (t(0, 0), t(129, 129));
        let opts = PathOptions::default();
        for world in &large[..2] {
            find(world, from, to, &opts);
            assert!(with_grid(world, 1, |g, _| g.landmarks().is_some()).unwrap());
        }
        let before = builds();
        find(&large[0], from, to, &opts);
        assert_eq!(builds(), before, "two large maps kept");
        // The least recently used is now the second: the third map's grid replaces it.
        find(&large[2], from, to, &opts);
        find(&large[0], from, to, &opts);
        assert_eq!(builds(), before + 1, "the first kept beside the third");
        find(&large[1], from, to, &opts);
        assert_eq!(builds(), before + 2, "the second was built again");
        let small: Vec<World> = (0..6)
            .map(|k| World::from_ascii(&[&".".repeat(k + 2), "..."]))
            .collect();
        for world in &small {
            find(world, t(0, 0), t(1, 1), &opts);
        }
        let before = builds();
        for world in &small {
            find(world, t(0, 0), t(1, 1), &opts);
        }
        assert_eq!(builds(), before, "six small maps kept");
    }

    #[test]
    fn reasons_for_no_path() {
        let world = World::from_ascii(&["..#..", "..#..", "..#.#"]);
        let opts = PathOptions::default();
        let why = |a, b, o: &PathOptions| find(&world, a, b, o).1;
        assert_eq!(why(t(0, 0), t(1, 2), &opts), None);
        assert_eq!(why(t(0, 0), t(2, 1), &opts), Some(NoPath::Blocked));
        assert_eq!(why(t(2, 0), t(0, 0), &opts), Some(NoPath::Blocked));
        assert_eq!(why(t(0, 0), t(4, 0), &opts), Some(NoPath::Unreachable));
        assert_eq!(why(t(0, 0), t(5, 0), &opts), Some(NoPath::OffMap));
        assert_eq!(why(t(-1, 0), t(1, 0), &opts), Some(NoPath::OffMap));
        // A 2x2 body has no room with its top-left cell at (3, 1): the wall at (4, 2).
        let big = PathOptions {
            size: 2,
            ..Default::default()
        };
        assert_eq!(why(t(3, 0), t(3, 1), &big), Some(NoPath::Blocked));
        assert_eq!(why(t(0, 0), t(0, 1), &big), None);
    }

    #[test]
    fn a_call_from_inside_gets_its_own_grid() {
        let world = World::from_ascii(&["....", "...."]);
        let outer = with_grid(&world, 1, |grid, _| {
            let inner = with_grid(&world, 1, |g, s| {
                s.find_on(g, t(0, 0), t(3, 1), &PathOptions::default())
            });
            (grid.width(), inner.and_then(|r| r.path).map(|p| p.len()))
        });
        assert_eq!(outer, Some((4, Some(4))));
    }
}
