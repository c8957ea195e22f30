//! Tracing around obstacles (Bourg & Seemann, *AI for Game Developers*, ch. 6 "Basic
//! Pathfinding and Waypoints", "Tracing Around Obstacles"), in the three
//! variants of the source:
//!
//! - **basic**: head straight for the goal (the next cell of the straight line); when that cell
//!   is blocked, follow the obstacle's outline with the left hand on it, and go back to heading
//!   straight as soon as the straight step is free again. On a concave obstacle this turns back
//!   into the pocket and loops: the "when to stop tracing" problem.
//! - **improved**: remember where tracing started; stop tracing only on crossing the straight
//!   line from that point to the goal, nearer the goal than the start, so the unit cannot loop
//!   back into the pocket.
//! - **sight**: while tracing, check line of sight to the goal every step; as soon as it is
//!   visible, walk the Bresenham line to it.
//!
//! Tracing moves in 4 directions by the wall rule of [`super::wall_trace`], with the left hand
//! on the obstacle by default or the right one.

use super::dirs::{can_step, dir4_of_angle};
use super::tiles::TileCtx;
use super::wall_trace;
use crate::nav::{line_of_sight, Line};
use crate::world::{
    centre_of, Hand, MoveMemory, Role, Shape, Tile, TraceMode, TraceState, TraceVariant, World,
};
use glam::DVec2;
use std::collections::VecDeque;

/// The next cell of the straight line to the goal.
fn straight_step(at: Tile, goal: Tile) -> Tile {
    Line::new(at, goal).nth(1).unwrap_or(at)
}

/// Whether `at` lies on the line from `start` to `goal`, strictly nearer the goal. The line's
/// cell `k` is `k` steps from `start` on the long axis, so only that cell is compared (walked
/// to, not stored).
pub fn crossed_line(start: Tile, goal: Tile, at: Tile) -> bool {
    let k = (at.as_i64vec2() - start.as_i64vec2()).abs().max_element();
    at != start
        && at.as_dvec2().distance(goal.as_dvec2()) < start.as_dvec2().distance(goal.as_dvec2())
        && Line::new(start, goal).nth(k as usize) == Some(at)
}

fn begin_tracing(
    world: &World,
    st: &mut TraceState,
    at: Tile,
    goal: Tile,
    hand: Hand,
) -> Option<Tile> {
    let blocked = straight_step(at, goal) - at;
    // Face along the obstacle with it on the hand side: the blocked way, turned away from the
    // hand.
    let towards = dir4_of_angle((blocked.y as f64).atan2(blocked.x as f64));
    st.mode = TraceMode::Tracing;
    st.start = at;
    st.facing = wall_trace::order(hand, towards)[2];
    st.steps = 0;
    trace_step(world, st, at, hand)
}

fn trace_step(world: &World, st: &mut TraceState, at: Tile, hand: Hand) -> Option<Tile> {
    let d = wall_trace::choose(world, at, st.facing, hand)?;
    st.facing = d;
    st.steps += 1;
    Some(at + super::dirs::DIR4[d])
}

/// The next tile towards `goal` with the given variant and hand. A goal far off the map is
/// traced towards as the nearest tile just off it ([`World::bound_tile`]), so every line kept
/// or walked is at most the map's size.
pub fn next(ctx: &mut TileCtx, goal: Tile, variant: TraceVariant, hand: Hand) -> Option<Tile> {
    let at = ctx.at;
    let world = ctx.world;
    let goal = world.bound_tile(goal);
    let mut st = match &*ctx.memory {
        MoveMemory::Trace(s) => s.clone(),
        _ => TraceState {
            mode: TraceMode::Direct,
            start: at,
            facing: 0,
            steps: 0,
        },
    };
    let to = if at == goal {
        None
    } else {
        decide(world, &mut st, at, goal, variant, hand)
    };
    ctx.shapes.push(Shape::Line {
        role: Role::Goal,
        from: centre_of(st.start),
        to: centre_of(goal),
    });
    match &st.mode {
        TraceMode::Tracing => ctx.shapes.push(Shape::Circle {
            role: Role::Probe,
            centre: centre_of(st.start),
            radius: 0.4,
        }),
        TraceMode::Sighted(path) => ctx.shapes.push(Shape::Cells {
            role: Role::Path,
            cells: path.iter().copied().collect(),
        }),
        TraceMode::Direct => {}
    }
    ctx.shapes.push(Shape::Label {
        role: Role::Weights,
        at: centre_of(at) + DVec2::new(0.0, -0.6),
        text: match st.mode {
            TraceMode::Direct => "direct".into(),
            TraceMode::Tracing => format!("tracing {}", st.steps),
            TraceMode::Sighted(_) => "in sight".into(),
        },
    });
    *ctx.memory = MoveMemory::Trace(st);
    to
}

fn decide(
    world: &World,
    st: &mut TraceState,
    at: Tile,
    goal: Tile,
    variant: TraceVariant,
    hand: Hand,
) -> Option<Tile> {
    match &mut st.mode {
        TraceMode::Sighted(path) => {
            if let Some(&n) = path.front() {
                if can_step(world, at, n) {
                    path.pop_front();
                    return Some(n);
                }
            }
            st.mode = TraceMode::Direct;
            decide(world, st, at, goal, variant, hand)
        }
        TraceMode::Direct => {
            let step = straight_step(at, goal);
            if can_step(world, at, step) {
                Some(step)
            } else {
                begin_tracing(world, st, at, goal, hand)
            }
        }
        TraceMode::Tracing => {
            let leave = match variant {
                TraceVariant::Basic => can_step(world, at, straight_step(at, goal)),
                TraceVariant::Improved => {
                    crossed_line(st.start, goal, at) && can_step(world, at, straight_step(at, goal))
                }
                TraceVariant::Sight => {
                    if line_of_sight(world, at, goal) {
                        let path: VecDeque<Tile> = Line::new(at, goal).skip(1).collect();
                        st.mode = TraceMode::Sighted(path);
                        return decide(world, st, at, goal, variant, hand);
                    }
                    false
                }
            };
            if leave {
                st.mode = TraceMode::Direct;
                return Some(straight_step(at, goal));
            }
            trace_step(world, st, at, hand)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Agent, World};
    use glam::IVec2;

    /// Runs a variant from `start` for up to `steps` tile steps; the tiles visited.
    fn run(
        rows: &[&str],
        start: Tile,
        goal: Tile,
        variant: TraceVariant,
        steps: usize,
    ) -> Vec<Tile> {
        run_with(rows, start, goal, variant, Hand::Left, steps)
    }

    fn run_with(
        rows: &[&str],
        start: Tile,
        goal: Tile,
        variant: TraceVariant,
        hand: Hand,
        steps: usize,
    ) -> Vec<Tile> {
        let world = World::from_ascii(rows);
        let agent = Agent::new("a", start);
        let mut memory = MoveMemory::None;
        let mut rng = agent.rng.current();
        let mut at = start;
        let mut visited = vec![at];
        for _ in 0..steps {
            let mut shapes = vec![];
            let mut ctx = TileCtx {
                world: &world,
                agent: &agent,
                at,
                memory: &mut memory,
                rng: &mut rng,
                shapes: &mut shapes,
            };
            match next(&mut ctx, goal, variant, hand) {
                Some(t) => {
                    assert!(can_step(&world, at, t), "{at} -> {t}");
                    at = t;
                    visited.push(at);
                }
                None => break,
            }
        }
        visited
    }

    /// A cup open towards the unit, whose goal lies behind the cup's bottom.
    const CUP: [&str; 11] = [
        "..............",
        "..............",
        "..............",
        "...#######....",
        ".........#....",
        ".........#....",
        ".........#....",
        "...#######....",
        "..............",
        "..............",
        "..............",
    ];

    #[test]
    fn improved_tracing_gets_round_a_concave_obstacle_where_basic_loops() {
        let (start, goal) = (IVec2::new(1, 5), IVec2::new(12, 5));
        let basic = run(&CUP, start, goal, TraceVariant::Basic, 300);
        assert_ne!(
            *basic.last().unwrap(),
            goal,
            "basic tracing should loop in the cup"
        );
        // It loops: some tile is visited again and again.
        let revisits = basic
            .iter()
            .filter(|&&t| t == basic[basic.len() / 2])
            .count();
        assert!(revisits > 5, "{revisits}");
        let improved = run(&CUP, start, goal, TraceVariant::Improved, 300);
        assert_eq!(*improved.last().unwrap(), goal, "{improved:?}");
        let sight = run(&CUP, start, goal, TraceVariant::Sight, 300);
        assert_eq!(*sight.last().unwrap(), goal, "{sight:?}");
        assert!(sight.len() <= improved.len());
    }

    #[test]
    fn the_right_hand_goes_round_the_other_side() {
        let (start, goal) = (IVec2::new(1, 5), IVec2::new(12, 5));
        let left = run_with(&CUP, start, goal, TraceVariant::Improved, Hand::Left, 300);
        let right = run_with(&CUP, start, goal, TraceVariant::Improved, Hand::Right, 300);
        assert_eq!(*right.last().unwrap(), goal, "{right:?}");
        // Facing the cup's bottom, the left hand turns right (down) and passes below the cup
        // (row > 7); the right hand turns left (up) and passes above it (row < 3).
        assert!(left.iter().any(|t| t.y > 7) && left.iter().all(|t| t.y >= 3));
        assert!(right.iter().any(|t| t.y < 3) && right.iter().all(|t| t.y <= 7));
    }

    #[test]
    fn the_line_test_needs_the_line_and_progress() {
        let (s, g) = (IVec2::new(0, 0), IVec2::new(6, 0));
        assert!(crossed_line(s, g, IVec2::new(3, 0)));
        assert!(!crossed_line(s, g, IVec2::new(0, 0)));
        assert!(!crossed_line(s, g, IVec2::new(3, 1)));
        assert!(!crossed_line(IVec2::new(3, 0), g, IVec2::new(2, 0)));
    }
}
