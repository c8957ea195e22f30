//! The worst single call on a 512x512 open map when the target is far off it: every movement
//! primitive that takes a target (one tick, with the memory that makes it work hardest) and
//! every navigation query a script can make, given points at 1e18 (bounded to one tile off the
//! map before use), beside the in-map calls they are bounded by (a line of sight across the
//! whole map, a Dijkstra search that expands every cell). Run from the project root:
//!
//! ```text
//! cargo bench -p agentbox-tools --bench bounds            # 15 timed runs of each call
//! cargo bench -p agentbox-tools --bench bounds -- 41      # 41 timed runs of each call
//! ```
//!
//! Prints the CPU time of one call (this thread's, min and median of the runs) for each, and
//! the worst by median.

use agentbox_core::movement;
use agentbox_core::nav::{self, Algorithm, Heuristic, PathOptions, Search};
use agentbox_core::world::{
    Action, Agent, Hand, LennardJones, Motion, MoveMemory, PotentialSpec, Target, TraceMode,
    TraceState, TraceVariant, World,
};
use agentbox_session::bench::thread_cpu_time;
use glam::{DVec2, IVec2};
use std::hint::black_box;
use std::time::Duration;

const SIDE: usize = 512;

/// A far-away point, as a hostile script hands it over.
const FAR: DVec2 = DVec2::new(1e18, 1e18);

fn open_map() -> World {
    let row = ".".repeat(SIDE);
    let rows: Vec<&str> = (0..SIDE).map(|_| row.as_str()).collect();
    World::from_ascii(&rows)
}

/// An agent in the corner opposite the far point, so every line towards it crosses the map.
fn agent(motion: Motion, action: Action, memory: MoveMemory) -> Agent {
    let mut a = Agent::new("a", IVec2::new(0, 0));
    a.motion = motion;
    a.speed = 5.0;
    a.action = action;
    a.memory = memory;
    a
}

/// Tracing already under way, so the sight variant checks the line to the goal (and, seeing
/// it, builds the path to walk) on this call.
fn tracing() -> MoveMemory {
    MoveMemory::Trace(TraceState {
        mode: TraceMode::Tracing,
        start: IVec2::new(0, 0),
        facing: 1,
        steps: 1,
    })
}

fn lj() -> LennardJones {
    LennardJones {
        a: 200.0,
        b: 50.0,
        n: 1.0,
        m: 2.0,
    }
}

type Call<'a> = Box<dyn Fn() + 'a>;

/// One call per case: its name and the call.
fn cases(world: &World) -> Vec<(String, Call<'_>)> {
    let mut out: Vec<(String, Call)> = Vec::new();
    let far = Target::Point(FAR);
    let corner = world.bound_tile(IVec2::new(i32::MAX, i32::MAX));
    let tiles = Motion::Tiles { diagonal: true };
    let mut step_case = |name: &str, a: Agent| {
        let dt = world.dt();
        out.push((
            format!("move step: {name}"),
            Box::new(move || {
                black_box(movement::step(world, black_box(&a), dt));
            }),
        ));
    };
    for (name, variant) in [
        ("trace_around sight (tracing)", TraceVariant::Sight),
        ("trace_around improved (tracing)", TraceVariant::Improved),
    ] {
        let action = Action::TraceAround {
            goal: far.clone(),
            variant,
            hand: Hand::Left,
        };
        step_case(name, agent(tiles, action, tracing()));
    }
    step_case(
        "wander_avoid, tiles",
        agent(tiles, Action::WanderAvoid(far.clone()), MoveMemory::None),
    );
    step_case(
        "wander_avoid, free",
        agent(
            Motion::Free,
            Action::WanderAvoid(far.clone()),
            MoveMemory::None,
        ),
    );
    step_case(
        "los_chase, tiles",
        agent(tiles, Action::LosChase(far.clone()), MoveMemory::None),
    );
    step_case(
        "intercept, free",
        agent(
            Motion::Free,
            Action::Intercept(far.clone()),
            MoveMemory::None,
        ),
    );
    step_case("to, tiles", agent(tiles, Action::To(FAR), MoveMemory::None));
    step_case(
        "potential range 64 (the most a script may ask)",
        agent(
            Motion::Free,
            Action::Potential(Box::new(PotentialSpec {
                target: Some(far.clone()),
                lj: lj(),
                swarm: None,
                swarm_lj: lj(),
                obstacle: 2.0,
                range: 64.0,
            })),
            MoveMemory::None,
        ),
    );
    step_case(
        "path_to a far tile (refused)",
        agent(
            Motion::Free,
            Action::PathTo(IVec2::new(i32::MAX, 5), Box::default()),
            MoveMemory::None,
        ),
    );
    step_case(
        "path_to the far corner (auto: jump points)",
        agent(
            Motion::Free,
            Action::PathTo(IVec2::new(SIDE as i32 - 1, SIDE as i32 - 1), Box::default()),
            MoveMemory::None,
        ),
    );
    step_case(
        "tank_to the far corner (A*, Manhattan)",
        agent(
            Motion::Free,
            Action::TankTo(IVec2::new(SIDE as i32 - 1, SIDE as i32 - 1)),
            MoveMemory::None,
        ),
    );
    let origin = IVec2::new(0, 0);
    let last = IVec2::new(SIDE as i32 - 1, SIDE as i32 - 1);
    out.push((
        "nav.los to a far point (bounded)".into(),
        Box::new(move || {
            black_box(nav::line_of_sight(world, origin, black_box(corner)));
        }),
    ));
    out.push((
        "nav.los across the map".into(),
        Box::new(move || {
            black_box(nav::line_of_sight(world, origin, black_box(last)));
        }),
    ));
    out.push((
        "nav.line to a far point (bounded)".into(),
        Box::new(move || {
            black_box(nav::bresenham(origin, black_box(corner)));
        }),
    ));
    let path = |opts: PathOptions, to: IVec2| -> Call<'_> {
        Box::new(move || {
            black_box(Search::new().find(world, origin, black_box(to), &opts));
        })
    };
    out.push((
        "nav.path to a far tile (refused)".into(),
        path(PathOptions::default(), corner),
    ));
    out.push((
        "nav.path across the map, auto".into(),
        path(PathOptions::default(), last),
    ));
    out.push((
        "nav.path across the map, A* octile".into(),
        path(
            PathOptions {
                algorithm: Algorithm::AStar,
                ..Default::default()
            },
            last,
        ),
    ));
    out.push((
        "nav.path across the map, Dijkstra (every cell)".into(),
        path(
            PathOptions {
                algorithm: Algorithm::AStar,
                heuristic: Heuristic::Zero,
                ..Default::default()
            },
            last,
        ),
    ));
    out.push((
        "nav.waypoint_route to a far tile (no nodes)".into(),
        Box::new(move || {
            let table = nav::waypoints::table(world);
            black_box(nav::waypoints::route(
                world,
                &table,
                origin,
                black_box(corner),
            ));
        }),
    ));
    out
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(15)
        .max(1);
    let world = open_map();
    println!(
        "{SIDE}x{SIDE} open map, far point {FAR} (bounded to {}); CPU time of one call, {runs} runs",
        world.bound_pos(FAR).unwrap_or_default()
    );
    println!("{:>12} {:>12}  call", "min µs", "median µs");
    let mut worst: Option<(String, Duration, Duration)> = None;
    for (name, call) in cases(&world) {
        call(); // warm up: first-touch of buffers, caches
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let t0 = thread_cpu_time();
                call();
                thread_cpu_time() - t0
            })
            .collect();
        times.sort();
        let (min, median) = (times[0], times[times.len() / 2]);
        println!("{:>12.1} {:>12.1}  {name}", micros(min), micros(median));
        if worst.as_ref().is_none_or(|w| median > w.2) {
            worst = Some((name, min, median));
        }
    }
    if let Some((name, min, median)) = worst {
        println!(
            "worst: {name}: min {:.1} µs, median {:.1} µs",
            micros(min),
            micros(median)
        );
    }
}
