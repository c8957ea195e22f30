//! A logged search replayed one expansion at a time: what the window's search mode shows at
//! step k. It runs the real search once ([`Search::find_logged`], A* or jump point search as
//! the options choose) and folds its events up to the k-th expansion into per-cell states
//! (open, passed, closed), G, H (= F - G of the search's own estimate) and parent links.
//!
//! It re-implements no search: every number comes from the log. Pure data, no drawing; it must
//! not name engine crates or change the world.

use super::cache;
use super::options::{PathOptions, PathResult, SearchSets};
use super::search::{Search, SearchEvent};
use crate::world::{Tile, World};

/// Where a cell stands at the step shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CellState {
    /// Not reached yet.
    #[default]
    Unseen,
    /// On the open list.
    Open,
    /// Jump point search only: recorded on a diagonal scan, never queued
    /// ([`SearchEvent::Pass`]); the search's sets count it as open.
    Passed,
    /// Expanded.
    Closed,
}

/// A cell at the step shown: its state, cost from the start (G), estimate to the goal (H; F is
/// G + H) and the node it was reached from.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell {
    pub state: CellState,
    pub g: f64,
    pub h: f64,
    pub parent: Tile,
}

impl Cell {
    /// F = G + H.
    pub fn f(&self) -> f64 {
        self.g + self.h
    }
}

/// One search's log and its state at a step.
pub struct Replay {
    width: i32,
    height: i32,
    events: Vec<SearchEvent>,
    /// Index in `events` of each expansion, in order.
    expansions: Vec<usize>,
    result: PathResult,
    cells: Vec<Cell>,
    /// Events folded into `cells`.
    applied: usize,
    step: usize,
    open: usize,
    passed: usize,
    closed: usize,
}

impl Replay {
    /// Runs the search from `from` to `to` on `world`'s map (a body of one tile) with `opts`,
    /// logged, and shows step 0 (the start opened). `None` when the map cannot be searched.
    pub fn run(world: &World, from: Tile, to: Tile, opts: &PathOptions) -> Option<Replay> {
        let opts = PathOptions { size: 1, ..*opts };
        let (result, events) = cache::with_grid(world, 1, |grid, _| {
            Search::new().find_logged(grid, from, to, &opts)
        })?;
        let grid = world.grid();
        Some(Replay::from_log(
            grid.width(),
            grid.height(),
            events,
            result,
        ))
    }

    /// A replay of a log on a `width` x `height` map, at step 0.
    pub fn from_log(width: i32, height: i32, events: Vec<SearchEvent>, result: PathResult) -> Self {
        let expansions = events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, SearchEvent::Expand { .. }))
            .map(|(i, _)| i)
            .collect();
        let cells = vec![Cell::default(); (width.max(0) as usize) * (height.max(0) as usize)];
        let mut replay = Replay {
            width,
            height,
            events,
            expansions,
            result,
            cells,
            applied: 0,
            step: 0,
            open: 0,
            passed: 0,
            closed: 0,
        };
        replay.seek(0);
        replay
    }

    /// The map's width and height.
    pub fn size(&self) -> (i32, i32) {
        (self.width, self.height)
    }

    /// How many expansions the search made (the last step).
    pub fn steps(&self) -> usize {
        self.expansions.len()
    }

    /// The step shown: this many expansions done.
    pub fn step(&self) -> usize {
        self.step
    }

    /// Whether the last step is shown.
    pub fn done(&self) -> bool {
        self.step == self.steps()
    }

    /// Shows step `k` (clamped to the last): every event before the (k+1)-th expansion.
    /// Forward from the step shown costs the events in between; backward starts again from 0.
    pub fn seek(&mut self, k: usize) {
        let k = k.min(self.steps());
        if k < self.step || self.applied == 0 {
            self.cells.iter_mut().for_each(|c| *c = Cell::default());
            (self.applied, self.open, self.passed, self.closed) = (0, 0, 0, 0);
        }
        let end = self.expansions.get(k).copied().unwrap_or(self.events.len());
        while self.applied < end {
            let event = self.events[self.applied];
            self.apply(event);
            self.applied += 1;
        }
        self.step = k;
    }

    fn index(&self, t: Tile) -> Option<usize> {
        (t.x >= 0 && t.y >= 0 && t.x < self.width && t.y < self.height)
            .then(|| (t.y * self.width + t.x) as usize)
    }

    fn count(&mut self, state: CellState, by: isize) {
        let n = match state {
            CellState::Open => &mut self.open,
            CellState::Passed => &mut self.passed,
            CellState::Closed => &mut self.closed,
            CellState::Unseen => return,
        };
        *n = n.saturating_add_signed(by);
    }

    fn set(&mut self, node: Tile, cell: Cell) {
        let Some(i) = self.index(node) else {
            return;
        };
        let before = self.cells[i].state;
        self.count(before, -1);
        self.count(cell.state, 1);
        self.cells[i] = cell;
    }

    fn apply(&mut self, event: SearchEvent) {
        match event {
            SearchEvent::Open { node, g, f, parent } => self.set(
                node,
                Cell {
                    state: CellState::Open,
                    g,
                    h: f - g,
                    parent,
                },
            ),
            SearchEvent::Pass { node, g, f, parent } => self.set(
                node,
                Cell {
                    state: CellState::Passed,
                    g,
                    h: f - g,
                    parent,
                },
            ),
            SearchEvent::Expand { node, g } => {
                let old = self.cell(node).copied().unwrap_or_default();
                self.set(
                    node,
                    Cell {
                        state: CellState::Closed,
                        g,
                        ..old
                    },
                );
            }
        }
    }

    /// A cell at the step shown (`None` off the map).
    pub fn cell(&self, t: Tile) -> Option<&Cell> {
        self.index(t).map(|i| &self.cells[i])
    }

    /// Every cell reached so far with its tile, row-major.
    pub fn reached(&self) -> impl Iterator<Item = (Tile, &Cell)> + '_ {
        let w = self.width.max(1);
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.state != CellState::Unseen)
            .map(move |(i, c)| (Tile::new(i as i32 % w, i as i32 / w), c))
    }

    /// The node the step shown expanded (none at step 0).
    pub fn just_expanded(&self) -> Option<Tile> {
        let at = *self.expansions.get(self.step.checked_sub(1)?)?;
        match self.events[at] {
            SearchEvent::Expand { node, .. } => Some(node),
            _ => None,
        }
    }

    /// Cells on the open list now.
    pub fn open_count(&self) -> usize {
        self.open
    }

    /// Cells recorded on a diagonal scan and never queued (jump point search).
    pub fn passed_count(&self) -> usize {
        self.passed
    }

    /// Cells expanded so far (the step).
    pub fn closed_count(&self) -> usize {
        self.closed
    }

    /// The open (with the passed) and closed sets at the step shown, row-major: at the last
    /// step they are the search's own `keep_sets`.
    pub fn sets(&self) -> SearchSets {
        let mut sets = SearchSets::default();
        for (t, c) in self.reached() {
            match c.state {
                CellState::Open | CellState::Passed => sets.open.push(t),
                CellState::Closed => sets.closed.push(t),
                CellState::Unseen => {}
            }
        }
        sets
    }

    /// The whole search's result (path, cost, expansions, whether jump point search ran).
    pub fn result(&self) -> &PathResult {
        &self.result
    }

    /// The path and its cost, once the last step is shown and the goal was reached.
    pub fn found(&self) -> Option<(&[Tile], f64)> {
        if !self.done() || !self.result.complete {
            return None;
        }
        self.result.path.as_deref().map(|p| (p, self.result.cost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::{Algorithm, Diagonal, Heuristic};
    use glam::IVec2;

    fn maze() -> World {
        World::from_ascii(&[
            "....................",
            "..#######....#......",
            "........#....#......",
            "..#.....#....#......",
            "..#.....######......",
            "..#.................",
            "..#######...#####...",
            "............#.......",
        ])
    }

    fn opts(algorithm: Algorithm, heuristic: Heuristic) -> PathOptions {
        PathOptions {
            algorithm,
            heuristic,
            ..Default::default()
        }
    }

    fn all_options() -> Vec<PathOptions> {
        let mut all = Vec::new();
        for algorithm in [Algorithm::AStar, Algorithm::Jps] {
            for heuristic in [
                Heuristic::Octile,
                Heuristic::Manhattan,
                Heuristic::Euclidean,
                Heuristic::Zero,
            ] {
                for diagonal in [
                    Diagonal::Never,
                    Diagonal::NoCornerCutting,
                    Diagonal::IfOneSideFree,
                    Diagonal::Always,
                ] {
                    all.push(PathOptions {
                        diagonal,
                        ..opts(algorithm, heuristic)
                    });
                }
            }
        }
        all
    }

    /// At the last step the replayed sets are the search's own (`keep_sets`), for every
    /// algorithm, heuristic and diagonal rule, and the goal's G is the path's cost.
    #[test]
    fn the_last_step_shows_the_searchs_own_sets_and_cost() {
        let world = maze();
        let (from, to) = (IVec2::new(4, 3), IVec2::new(17, 7));
        for o in all_options() {
            let mut r = Replay::run(&world, from, to, &o).unwrap();
            let kept = Search::new().find(
                &world,
                from,
                to,
                &PathOptions {
                    keep_sets: true,
                    ..o
                },
            );
            assert!(kept.complete, "{o:?}");
            assert_eq!(r.steps(), kept.expanded, "{o:?}");
            r.seek(usize::MAX);
            assert!(r.done());
            assert_eq!(Some(r.sets()), kept.sets, "{o:?}");
            assert_eq!(r.closed_count(), kept.expanded, "{o:?}");
            let goal = r.cell(to).unwrap();
            assert_eq!(goal.state, CellState::Closed);
            assert_eq!(goal.g, kept.cost, "{o:?}");
            assert_eq!(r.just_expanded(), Some(to));
            let (path, cost) = r.found().unwrap();
            assert_eq!((path, cost), (kept.path.as_deref().unwrap(), kept.cost));
        }
    }

    /// Step by step: step k has k nodes closed, the k-th expansion highlighted, the sets only
    /// grow into closed, and seeking back gives the same state as stepping forward.
    #[test]
    fn each_step_closes_one_node_and_seeking_back_agrees() {
        let world = maze();
        let (from, to) = (IVec2::new(0, 0), IVec2::new(19, 7));
        for algorithm in [Algorithm::AStar, Algorithm::Jps] {
            let mut r = Replay::run(&world, from, to, &opts(algorithm, Heuristic::Octile)).unwrap();
            assert_eq!(r.step(), 0);
            assert_eq!(r.just_expanded(), None);
            assert_eq!(
                r.sets().open,
                vec![from],
                "only the start is open at step 0"
            );
            assert_eq!(r.cell(from).unwrap().g, 0.0);
            let mut states = Vec::new();
            for k in 1..=r.steps() {
                r.seek(k);
                assert_eq!(r.closed_count(), k);
                let node = r.just_expanded().unwrap();
                assert_eq!(r.cell(node).unwrap().state, CellState::Closed);
                states.push(r.sets());
            }
            for k in (1..=r.steps()).rev() {
                r.seek(k);
                assert_eq!(r.sets(), states[k - 1], "{algorithm:?} step {k}");
            }
            // F = G + H with H the octile estimate (a uniform map of cost 1).
            for (t, c) in r.reached() {
                let d = (to - t).abs();
                let h = d.x.max(d.y) as f64 + (2f64.sqrt() - 1.0) * d.x.min(d.y) as f64;
                assert!((c.h - h).abs() < 1e-9, "{t}: {} vs {h}", c.h);
                assert!((c.f() - c.g - h).abs() < 1e-9);
            }
        }
    }

    /// Jump point search expands fewer nodes than A* on the same query; Dijkstra (A* with a
    /// zero heuristic) more, with H zero everywhere; all three find the same cost.
    #[test]
    fn jps_expands_fewer_and_dijkstra_more_than_astar() {
        let world = maze();
        let (from, to) = (IVec2::new(0, 0), IVec2::new(19, 7));
        let run = |o: PathOptions| {
            let mut r = Replay::run(&world, from, to, &o).unwrap();
            r.seek(usize::MAX);
            r
        };
        let astar = run(opts(Algorithm::AStar, Heuristic::Octile));
        let jps = run(opts(Algorithm::Jps, Heuristic::Octile));
        let dijkstra = run(opts(Algorithm::AStar, Heuristic::Zero));
        assert!(jps.result().used_jps && !astar.result().used_jps);
        assert!(
            jps.steps() < astar.steps(),
            "{} {}",
            jps.steps(),
            astar.steps()
        );
        assert!(dijkstra.steps() > astar.steps());
        assert!(dijkstra.reached().all(|(_, c)| c.h == 0.0));
        for r in [&jps, &dijkstra] {
            assert!((r.result().cost - astar.result().cost).abs() < 1e-9);
        }
    }

    /// No path: the replay runs to the search's end (every reachable cell closed) and finds
    /// nothing.
    #[test]
    fn an_unreachable_goal_replays_to_an_empty_open_list() {
        let world = World::from_ascii(&["..#..", "..#..", "..#.."]);
        let mut r = Replay::run(
            &world,
            IVec2::new(0, 0),
            IVec2::new(4, 2),
            &opts(Algorithm::AStar, Heuristic::Octile),
        )
        .unwrap();
        r.seek(usize::MAX);
        assert_eq!(r.open_count(), 0);
        assert_eq!(r.closed_count(), 6);
        assert!(r.found().is_none());
    }
}
