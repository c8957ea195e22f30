//! Steering v3's costs (issue 31), each against its peer in the same run, with the thread's
//! CPU time per tick of the whole simulation step (`Simulation::step`, no Lua: every agent
//! keeps the action it was given). Run from the project root:
//!
//! ```text
//! cargo bench -p agentbox-tools --bench steering              # the issue's sizes, 60 ticks
//! cargo bench -p agentbox-tools --bench steering -- --small   # 1,000 agents, a few ticks: a smoke run
//! cargo bench -p agentbox-tools --bench steering -- --ticks 120 --avoid-only
//! cargo bench -p agentbox-tools --bench steering -- --orca-only   # part 4 alone
//! ```
//!
//! 1. **Avoidance.** 10,000 agents spread evenly over a 512x512 open map (a lattice about 5
//!    tiles apart; speed 2 and `avoid_horizon` 2, so about 4 neighbours within ORCA's reach),
//!    each walking across the map to its mirror point (so walkers of a row meet head-on), with
//!    `avoid: true` against the same scene without it. Goals: at most 3x, and at most 16.7 ms a tick.
//! 2. **ORCA's cost per agent per neighbour** from 1,000 to 50,000 agents at the same density
//!    (the map grows with the crowd): the avoiding tick's extra time over the plain one, over
//!    agents x their mean number of neighbours in reach (at most 10). Reported, no goal.
//! 3. **A blend of three.** The same 10,000 agents with `move.separate`, `move.align` and
//!    `move.cohere` (radius 6) each alone and blended: the blend at most 1.5x its most
//!    expensive part.
//! 4. **ORCA: ours against dodgy_2d.** The avoiding crowd of part 1 after a few ticks; for every
//!    agent, the neighbours ours weighs (`movement::orca_neighbours`, the same index query and
//!    nearest `MAX_NEIGHBOURS`) go to our `orca` (f64) and to dodgy_2d 0.5's
//!    `Agent::compute_avoiding_velocity` (f32) with the same radius, share 0.5, horizon,
//!    preferred velocity and top speed; the two take turns, one pass over the crowd each per
//!    round. Reported: ns per agent for each, their ratio and how far their answers differ.
//!    No goal: the figures say what shipping our own costs. We do not ship dodgy_2d because it
//!    works in f32 and draws `rand::random()` when two agents stand on one point, so the same
//!    scene would not give the same bits.
//!
//! Each figure is the median over the timed ticks after two untimed ones; a figure and its
//! peers take turns, one tick each, so a load that comes and goes slows them alike. Goal lines
//! say MET or NOT MET.

use agentbox_core::movement::orca::{self, Body, Line, Names, Other};
use agentbox_core::movement::{orca_neighbours, MAX_NEIGHBOURS};
use agentbox_core::sim::decider::NoDecisions;
use agentbox_core::sim::Simulation;
use agentbox_core::world::{Action, Agent, FlockRule, FlockSpec, World};
use agentbox_session::bench::thread_cpu_time;
use glam::{DVec2, IVec2};
use std::borrow::Cow;
use std::hint::black_box;

/// The issue's crowd: 10,000 agents on 512x512.
const AGENTS: usize = 10_000;
const SIDE: usize = 512;
const SPEED: f64 = 2.0;
const HORIZON: f64 = 2.0;
/// The flocking radius of the blend.
const FLOCK_RADIUS: f64 = 6.0;

/// What every agent does.
#[derive(Clone, Copy, PartialEq)]
enum Task {
    Walk,
    Flock(Option<FlockRule>),
}

fn flock(rule: FlockRule) -> Action {
    Action::Flock(Box::new(FlockSpec {
        rule,
        radius: FLOCK_RADIUS,
        kind: None,
    }))
}

/// `n` agents on a lattice over an open `side` x `side` map, doing `task`, avoiding or not.
fn crowd(side: usize, n: usize, task: Task, avoid: bool) -> World {
    let row = ".".repeat(side);
    let rows: Vec<&str> = (0..side).map(|_| row.as_str()).collect();
    let mut world = World::from_ascii(&rows);
    let per_row = (n as f64).sqrt().ceil() as usize;
    let gap = side as f64 / per_row as f64;
    for k in 0..n {
        let (i, j) = (k % per_row, k / per_row);
        let at = IVec2::new(
            ((i as f64 + 0.5) * gap) as i32,
            ((j as f64 + 0.5) * gap) as i32,
        );
        let mut a = Agent::new(format!("a{k}"), at);
        a.speed = SPEED;
        a.avoid_horizon = avoid.then_some(HORIZON);
        a.action = match task {
            // Across to the mirror point: every row's walkers meet head-on, none share a goal.
            Task::Walk => Action::To(DVec2::new((side as i32 - 1 - at.x) as f64, at.y as f64)),
            Task::Flock(Some(rule)) => flock(rule),
            Task::Flock(None) => Action::Blend(Box::new([
                (flock(FlockRule::Separate), 1.5),
                (flock(FlockRule::Align), 1.0),
                (flock(FlockRule::Cohere), 0.8),
            ])),
        };
        // Moving already, so alignment and ORCA see velocities from the first tick.
        let east = at.x < side as i32 / 2;
        a.vel = DVec2::new(if east { SPEED } else { -SPEED }, 0.0);
        world.agents.push(a);
    }
    world
}

/// The median CPU time of one tick of each world, milliseconds, over `ticks` ticks after two
/// untimed ones. Each round steps every world once, in turn, so a neighbour loading the
/// machine for a while slows all of them alike and their ratios hold.
fn interleaved_tick_ms(worlds: Vec<World>, ticks: usize) -> Vec<f64> {
    let mut sims: Vec<Simulation> = worlds.into_iter().map(Simulation::new).collect();
    let mut nobody = NoDecisions;
    for sim in &mut sims {
        for _ in 0..2 {
            sim.step(&mut nobody);
        }
    }
    let mut times = vec![Vec::with_capacity(ticks); sims.len()];
    for _ in 0..ticks {
        for (sim, times) in sims.iter_mut().zip(&mut times) {
            let t = thread_cpu_time();
            sim.step(&mut nobody);
            times.push((thread_cpu_time() - t).as_secs_f64() * 1e3);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

/// The mean number of neighbours ORCA weighs per agent (within its reach, at most 10).
fn mean_neighbours(world: &World) -> f64 {
    let mut w = world.clone();
    w.reindex();
    let total: usize = (0..w.agents.len())
        .map(|i| {
            let a = &w.agents[i];
            let reach = a.speed * HORIZON + 2.0 * a.radius + 0.5;
            w.agents_within(a.pos, reach, None, Some(i)).len().min(10)
        })
        .sum();
    total as f64 / w.agents.len().max(1) as f64
}

/// One agent's ORCA problem: itself, its preferred velocity and its neighbours (indices).
struct Problem {
    me: usize,
    preferred: DVec2,
    near: Vec<usize>,
}

/// Part 4's answers and times: each solver's velocity per agent, and its CPU time per pass
/// over the crowd, nanoseconds per agent, one figure a round.
struct Race {
    ours: Vec<DVec2>,
    dodgy: Vec<DVec2>,
    ours_ns: Vec<f64>,
    dodgy_ns: Vec<f64>,
}

/// The ORCA problems of every agent of `world` (indexed, avoiding with `HORIZON`): the
/// neighbours ours weighs, the preferred velocity straight at its goal at top speed.
fn orca_problems(world: &World) -> Vec<Problem> {
    world
        .agents
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let goal = match a.action {
                Action::To(goal) => goal,
                _ => a.pos,
            };
            Problem {
                me: i,
                preferred: (goal - a.pos).normalize_or_zero() * a.speed,
                near: orca_neighbours(world, i, a, HORIZON)
                    .iter()
                    .map(|&j| j as usize)
                    .collect(),
            }
        })
        .collect()
}

/// Our ORCA's velocity for one problem, as `adjust.rs` computes it from the spatial index's
/// dense copies (here `others`: every agent's body and share, built once), without its small
/// random turn of the preferred velocity, which dodgy_2d has no counterpart for.
fn ours(world: &World, others: &[Other], p: &Problem, dt: f64) -> DVec2 {
    let mut slots = [others[p.me]; MAX_NEIGHBOURS];
    for (slot, &j) in slots.iter_mut().zip(&p.near) {
        *slot = others[j];
    }
    let near = &slots[..p.near.len()];
    let id_of = |j: usize| world.agents[j].id.as_str();
    let names = Names {
        me: &world.agents[p.me].id,
        of: &id_of,
    };
    let mut plane_slots = [(0, Line::default()); MAX_NEIGHBOURS];
    let me = others[p.me].body;
    let planes = orca::half_planes_into(me, &names, near, HORIZON, dt, &mut plane_slots);
    orca::solve(planes, p.preferred, world.agents[p.me].speed)
}

/// dodgy_2d's velocity for one problem; `scratch` holds the neighbour list between calls.
fn dodgy<'a>(
    agents: &'a [dodgy_2d::Agent],
    p: &Problem,
    speed: f32,
    dt: f32,
    scratch: &mut Vec<Cow<'a, dodgy_2d::Agent>>,
) -> DVec2 {
    let options = dodgy_2d::AvoidanceOptions {
        obstacle_margin: 0.0,
        time_horizon: HORIZON as f32,
        obstacle_time_horizon: HORIZON as f32,
    };
    scratch.clear();
    scratch.extend(p.near.iter().map(|&j| Cow::Borrowed(&agents[j])));
    let preferred = dodgy_2d::Vec2::new(p.preferred.x as f32, p.preferred.y as f32);
    let v = agents[p.me].compute_avoiding_velocity(scratch, &[], preferred, speed, dt, &options);
    DVec2::new(v.x as f64, v.y as f64)
}

/// Part 4: ours and dodgy_2d on the same problems of `world`, `rounds` passes each, in turn.
fn orca_race(world: &World, rounds: usize) -> Race {
    let dt = world.dt();
    let problems = orca_problems(world);
    // Our bodies and dodgy_2d's agents (in f32), each built once, outside the timing.
    let others: Vec<Other> = world
        .agents
        .iter()
        .enumerate()
        .map(|(key, a)| Other {
            body: Body {
                pos: a.pos,
                vel: a.vel,
                radius: a.radius,
            },
            share: if a.avoid_horizon.is_some() { 0.5 } else { 1.0 },
            key,
        })
        .collect();
    let agents: Vec<dodgy_2d::Agent> = world
        .agents
        .iter()
        .map(|a| dodgy_2d::Agent {
            position: dodgy_2d::Vec2::new(a.pos.x as f32, a.pos.y as f32),
            velocity: dodgy_2d::Vec2::new(a.vel.x as f32, a.vel.y as f32),
            radius: a.radius as f32,
            avoidance_responsibility: if a.avoid_horizon.is_some() { 0.5 } else { 1.0 },
        })
        .collect();
    let n = problems.len().max(1) as f64;
    let mut race = Race {
        ours: vec![DVec2::ZERO; problems.len()],
        dodgy: vec![DVec2::ZERO; problems.len()],
        ours_ns: Vec::with_capacity(rounds),
        dodgy_ns: Vec::with_capacity(rounds),
    };
    let mut scratch = Vec::with_capacity(MAX_NEIGHBOURS);
    for _ in 0..rounds {
        let t = thread_cpu_time();
        for (p, out) in problems.iter().zip(&mut race.ours) {
            *out = black_box(ours(world, &others, black_box(p), dt));
        }
        race.ours_ns
            .push((thread_cpu_time() - t).as_secs_f64() * 1e9 / n);
        let t = thread_cpu_time();
        for (p, out) in problems.iter().zip(&mut race.dodgy) {
            let speed = world.agents[p.me].speed as f32;
            *out = black_box(dodgy(&agents, black_box(p), speed, dt as f32, &mut scratch));
        }
        race.dodgy_ns
            .push((thread_cpu_time() - t).as_secs_f64() * 1e9 / n);
    }
    race
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "MET"
    } else {
        "NOT MET"
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let small = args.iter().any(|a| a == "--small");
    let (n, side, mut ticks) = if small {
        (1_000, 162, 5)
    } else {
        (AGENTS, SIDE, 60)
    };
    if let Some(t) = args
        .iter()
        .position(|a| a == "--ticks")
        .and_then(|i| args.get(i + 1)?.parse().ok())
    {
        ticks = t;
    }
    let only_avoid = args.iter().any(|a| a == "--avoid-only");
    if args.iter().any(|a| a == "--orca-only") {
        orca_part(side, n, ticks);
        return;
    }

    println!("1. avoidance: {n} agents walking across {side}x{side}, {ticks} ticks");
    let world = crowd(side, n, Task::Walk, true);
    let near = mean_neighbours(&world);
    let [plain, avoiding] =
        interleaved_tick_ms(vec![crowd(side, n, Task::Walk, false), world], ticks)[..]
    else {
        unreachable!("two worlds, two times")
    };
    let ratio = avoiding / plain;
    println!("   without avoidance {plain:.3} ms/tick, with {avoiding:.3} ms/tick ({near:.1} neighbours each)");
    println!(
        "   ratio {ratio:.2}x (goal <= 3x): {}",
        verdict(ratio <= 3.0)
    );
    println!(
        "   {avoiding:.3} ms a tick (goal <= 16.7 ms): {}",
        verdict(avoiding <= 16.7)
    );

    if only_avoid {
        return;
    }
    println!("2. ORCA per agent per neighbour, same density");
    let density = AGENTS as f64 / (SIDE * SIDE) as f64;
    let sizes: &[usize] = if small {
        &[500, 1_000]
    } else {
        &[1_000, 5_000, 10_000, 20_000, 50_000]
    };
    for &m in sizes {
        let s = ((m as f64 / density).sqrt().ceil() as usize).max(16);
        let world = crowd(s, m, Task::Walk, true);
        let k = mean_neighbours(&world);
        let [base, with] =
            interleaved_tick_ms(vec![crowd(s, m, Task::Walk, false), world], ticks)[..]
        else {
            unreachable!("two worlds, two times")
        };
        let per = (with - base).max(0.0) * 1e6 / (m as f64 * k.max(1e-9));
        println!("   {m:>6} agents on {s}x{s}: {base:.3} -> {with:.3} ms/tick, {k:.1} neighbours, {per:.1} ns per agent per neighbour");
    }

    println!("3. a blend of three flocking rules, {n} agents, radius {FLOCK_RADIUS}");
    let rules = [
        ("separate", FlockRule::Separate),
        ("align", FlockRule::Align),
        ("cohere", FlockRule::Cohere),
    ];
    let mut worlds: Vec<World> = rules
        .iter()
        .map(|&(_, rule)| crowd(side, n, Task::Flock(Some(rule)), false))
        .collect();
    worlds.push(crowd(side, n, Task::Flock(None), false));
    let times = interleaved_tick_ms(worlds, ticks);
    let mut worst: f64 = 0.0;
    for ((name, _), ms) in rules.iter().zip(&times) {
        println!("   {name:<8} alone {ms:.3} ms/tick");
        worst = worst.max(*ms);
    }
    let blend = times[3];
    let ratio = blend / worst;
    println!(
        "   blend    {blend:.3} ms/tick: {ratio:.2}x its most expensive part (goal <= 1.5x): {}",
        verdict(ratio <= 1.5)
    );
    orca_part(side, n, ticks);
}

/// Part 4: ours against dodgy_2d on the avoiding crowd of part 1 after 3 ticks, `ticks`
/// rounds (at least 3).
fn orca_part(side: usize, n: usize, ticks: usize) {
    println!("4. ORCA: ours (f64) against dodgy_2d 0.5 (f32), {n} avoiding agents after 3 ticks");
    let mut sim = Simulation::new(crowd(side, n, Task::Walk, true));
    for _ in 0..3 {
        sim.step(&mut NoDecisions);
    }
    let mut world = sim.world().clone();
    world.reindex();
    let race = orca_race(&world, ticks.max(3));
    let near = mean_neighbours(&world);
    let (ours_ns, dodgy_ns) = (median(race.ours_ns), median(race.dodgy_ns));
    println!(
        "   ours {ours_ns:.1} ns/agent, dodgy_2d {dodgy_ns:.1} ns/agent ({near:.1} neighbours each): dodgy_2d/ours {:.2}x",
        dodgy_ns / ours_ns
    );
    let gaps: Vec<f64> = race
        .ours
        .iter()
        .zip(&race.dodgy)
        .map(|(a, b)| a.distance(*b))
        .collect();
    let apart = gaps.iter().filter(|&&g| g > 1e-3).count();
    let max = gaps.iter().copied().fold(0.0, f64::max);
    let problems = orca_problems(&world);
    let turned = race
        .ours
        .iter()
        .zip(&problems)
        .filter(|(v, p)| v.distance(p.preferred) > 1e-9)
        .count();
    println!(
        "   |v_ours - v_dodgy|: median {:.2e}, max {max:.2e} tiles/s; {apart} of {} agents differ by more than 1e-3 ({turned} turned aside by ours)",
        median(gaps.clone()),
        gaps.len()
    );
    println!("   (not shipped: dodgy_2d is f32 and draws rand::random() when two agents overlap exactly)");
}
