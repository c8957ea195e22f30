//! The tick benchmark behind `agentbox bench`: runs a scene headless and reports milliseconds
//! per tick and nanoseconds per agent decision, and optionally runs the same scene with the
//! behaviour of `scripts/crowd.lua` written in Rust ([`NativeCrowd`]) in the same process, so
//! the Lua overhead is a ratio measured on the same machine at the same moment.
//!
//! Times are CPU time of the running thread (so other processes on a busy machine do not
//! inflate them), with the wall time alongside; on a platform with no per-thread CPU clock
//! they are wall time ([`CLOCK`] says which). Reads clocks (that is its job) but never feeds
//! time into the simulation.

use agentbox_core::scene;
use agentbox_core::sim::{Decider, Decision, Simulation};
use agentbox_core::world::{Action, Brain, Target, World};
use agentbox_lua::ScriptHost;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// What one measured run gave.
#[derive(Clone, Debug)]
pub struct Figures {
    pub agents: usize,
    pub decisions: u64,
    pub ticks: u64,
    /// CPU time of the measured ticks.
    pub total: Duration,
    /// Of which spent deciding.
    pub deciding: Duration,
    /// Wall time of the measured ticks.
    pub wall: Duration,
    /// Decisions that failed (script errors).
    pub failed: u64,
    /// The limits the scripts ran under: the scene's `budget:` (its defaults where the scene
    /// sets none), as headless and the window apply it. `None` for the Rust peer.
    pub budget: Option<scene::ScriptBudget>,
}

/// The clock [`thread_cpu_time`] reads on this build.
#[cfg(all(any(unix, windows), not(feature = "portable-fallbacks")))]
pub const CLOCK: &str = "thread CPU time";
/// The clock [`thread_cpu_time`] reads on this build.
#[cfg(not(all(any(unix, windows), not(feature = "portable-fallbacks"))))]
pub const CLOCK: &str = "wall time (no per-thread CPU clock on this platform)";

/// CPU time used by this thread so far (the `cpu-time` crate: `clock_gettime` on Unix,
/// `GetThreadTimes` on Windows); zero if the platform refuses to say.
#[cfg(all(any(unix, windows), not(feature = "portable-fallbacks")))]
pub fn thread_cpu_time() -> Duration {
    cpu_time::ThreadTime::try_now().map_or(Duration::ZERO, |t| t.as_duration())
}

/// Where there is no per-thread CPU clock (or with the `portable-fallbacks` feature): wall
/// time since the first call, so differences of two readings still measure the work between
/// them, other processes' load included.
#[cfg(not(all(any(unix, windows), not(feature = "portable-fallbacks"))))]
pub fn thread_cpu_time() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

impl Figures {
    pub fn ms_per_tick(&self) -> f64 {
        self.total.as_secs_f64() * 1e3 / self.ticks.max(1) as f64
    }

    /// Deciding time per decision.
    pub fn ns_per_decision(&self) -> f64 {
        self.deciding.as_secs_f64() * 1e9 / self.decisions.max(1) as f64
    }

    pub fn ticks_per_second(&self) -> f64 {
        self.ticks as f64 / self.total.as_secs_f64().max(1e-12)
    }
}

/// Wraps a decider and times it.
struct Timed<'a> {
    inner: &'a mut dyn Decider,
    spent: Duration,
    decisions: u64,
    failed: u64,
}

impl Decider for Timed<'_> {
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)> {
        let start = thread_cpu_time();
        let out = self.inner.decide(world);
        self.spent += thread_cpu_time().saturating_sub(start);
        self.decisions += out.len() as u64;
        self.failed += out
            .iter()
            .filter(|(_, d)| matches!(d, Decision::Failed(_)))
            .count() as u64;
        out
    }

    // What the scripts asked for besides their actions (messages, spawns, labels, prints)
    // goes on as in a headless run: a default here dropped it, so a scene that talks was
    // measured without a letter ever delivered.
    fn take_remarks(&mut self) -> agentbox_core::sim::Remarks {
        self.inner.take_remarks()
    }

    fn give_back(&mut self, effects: Vec<(usize, agentbox_core::world::Effect)>) {
        self.inner.give_back(effects);
    }
}

/// The behaviour of `scripts/crowd.lua` in Rust: every scripted agent finds its nearest agent
/// of its own kind; closer than `params.space` it evades it, otherwise it chases it.
///
/// Written as a Rust programmer would: each agent's `space` is read out of its JSON params
/// once, as the script reads its from a Lua table (looking it up in the JSON map every tick
/// cost the Rust side 13% of its tick in string compares).
#[derive(Default)]
pub struct NativeCrowd {
    /// By agent index: `params.space`.
    space: Vec<f64>,
}

impl NativeCrowd {
    /// Reads every agent's `space` when the number of agents changes (the agents of a bench
    /// run never change otherwise).
    fn learn(&mut self, world: &World) {
        if self.space.len() != world.agents.len() {
            self.space.clear();
            self.space.extend(
                world
                    .agents
                    .iter()
                    .map(|a| a.params["space"].as_f64().unwrap_or(0.0)),
            );
        }
    }
}

impl Decider for NativeCrowd {
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)> {
        self.learn(world);
        let mut out = Vec::with_capacity(world.agents.len());
        for (i, agent) in world.agents.iter().enumerate() {
            if !matches!(agent.brain, Brain::Script(_)) {
                continue;
            }
            let action = match world.nearest_of_own_kind(i) {
                None => Action::Stop,
                Some(j) => {
                    let Some(other) = world.agent_pos(j) else {
                        continue;
                    };
                    let space = self.space[i];
                    let Some(target) = world.agent_ref(j).map(Target::Agent) else {
                        continue;
                    };
                    if other.distance_squared(agent.pos) < space * space {
                        Action::Evade(target)
                    } else {
                        Action::Chase(target)
                    }
                }
            };
            out.push((i, Decision::Act(action)));
        }
        out
    }
}

/// A simulation being measured: warmed up once, then timed block by block.
struct Run<D: Decider> {
    sim: Simulation,
    decider: D,
    figures: Figures,
}

impl<D: Decider> Run<D> {
    fn new(world: World, mut decider: D, budget: Option<scene::ScriptBudget>, warmup: u64) -> Self {
        let agents = world.agents.len();
        let mut sim = Simulation::new(world);
        for _ in 0..warmup {
            sim.step(&mut decider);
        }
        let figures = Figures {
            agents,
            decisions: 0,
            ticks: 0,
            total: Duration::ZERO,
            deciding: Duration::ZERO,
            wall: Duration::ZERO,
            failed: 0,
            budget,
        };
        Run {
            sim,
            decider,
            figures,
        }
    }

    /// Steps `ticks` more measured ticks; the CPU time they took.
    fn measure(&mut self, ticks: u64) -> Duration {
        let mut timed = Timed {
            inner: &mut self.decider,
            spent: Duration::ZERO,
            decisions: 0,
            failed: 0,
        };
        let (start, cpu) = (Instant::now(), thread_cpu_time());
        for _ in 0..ticks {
            self.sim.step(&mut timed);
        }
        let f = &mut self.figures;
        let spent = thread_cpu_time().saturating_sub(cpu);
        f.total += spent;
        f.wall += start.elapsed();
        f.ticks += ticks;
        f.decisions += timed.decisions;
        f.deciding += timed.spent;
        f.failed += timed.failed;
        spent
    }
}

/// Why a bench could not start: a scene or a script that does not load (a bench measures
/// only runs whose scripts all load).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The scene: every mistake found, each located.
    #[error(transparent)]
    Scene(#[from] scene::SceneErrors),
    /// The Lua state could not be made.
    #[error("cannot start Lua: {0}")]
    Lua(String),
    /// A script did not load: its located error.
    #[error("{0}")]
    Script(String),
}

/// The scene at `path` with its Lua scripts loaded under the scene's `budget:` (as
/// `Session::open` sets it for headless and the window), warmed up for `warmup` ticks.
fn lua_run(path: &Path, warmup: u64) -> Result<Run<ScriptHost>, BenchError> {
    let scene = scene::load(path)?;
    let mut host = ScriptHost::new(scene.world.seed).map_err(|e| BenchError::Lua(e.to_string()))?;
    crate::session::apply_budget(&mut host, &scene).map_err(BenchError::Lua)?;
    for script in &scene.scripts {
        host.load(script)
            .map_err(|e| BenchError::Script(e.to_string()))?;
    }
    Ok(Run::new(scene.world, host, Some(scene.budget), warmup))
}

/// The scene at `path` with [`NativeCrowd`] deciding for every scripted agent.
fn native_run(path: &Path, warmup: u64) -> Result<Run<NativeCrowd>, BenchError> {
    let scene = scene::load(path)?;
    Ok(Run::new(scene.world, NativeCrowd::default(), None, warmup))
}

/// Runs `path` for `warmup` then `ticks` measured ticks with its Lua scripts.
pub fn lua(path: &Path, warmup: u64, ticks: u64) -> Result<Figures, BenchError> {
    let mut run = lua_run(path, warmup)?;
    run.measure(ticks);
    Ok(run.figures)
}

/// Runs `path` the same way with [`NativeCrowd`] deciding for every scripted agent.
pub fn native(path: &Path, warmup: u64, ticks: u64) -> Result<Figures, BenchError> {
    let mut run = native_run(path, warmup)?;
    run.measure(ticks);
    Ok(run.figures)
}

/// How many ticks each side runs before the other takes over in [`side_by_side`].
pub const BLOCK: u64 = 10;

/// Runs `path` with its Lua scripts and with [`NativeCrowd`] side by side: both are loaded and
/// warmed up, then they take turns of [`BLOCK`] measured ticks until each has run `ticks`. On
/// a shared machine whose load changes by the second, both sides then run under the same
/// load, so their ratio does not depend on which side ran while a neighbour was busy. The
/// pair's first is the Lua run, its second the Rust peer, with each round's ratio.
pub fn side_by_side(path: &Path, warmup: u64, ticks: u64) -> Result<Pair, BenchError> {
    let mut lua = lua_run(path, warmup)?;
    let mut rust = native_run(path, warmup)?;
    let ratios = take_turns(&mut lua, &mut rust, ticks);
    Ok(Pair {
        first: lua.figures,
        second: rust.figures,
        ratios,
    })
}

/// Measures `a` and `b` in turns of [`BLOCK`] ticks until each has run `ticks` (the first
/// first in even rounds, the second in odd ones); each round's ratio of their CPU times.
fn take_turns<A: Decider, B: Decider>(a: &mut Run<A>, b: &mut Run<B>, ticks: u64) -> Vec<f64> {
    let mut ratios = Vec::new();
    let mut left = ticks;
    while left > 0 {
        let block = left.min(BLOCK);
        let (ta, tb) = if ratios.len() % 2 == 0 {
            let ta = a.measure(block);
            (ta, b.measure(block))
        } else {
            let tb = b.measure(block);
            (a.measure(block), tb)
        };
        ratios.push(ta.as_secs_f64() / tb.as_secs_f64().max(1e-12));
        left -= block;
    }
    ratios
}

/// Two scenes measured against each other by [`against`].
#[derive(Clone, Debug)]
pub struct Pair {
    pub first: Figures,
    pub second: Figures,
    /// For each round: the first scene's CPU time over the second's for the same number of
    /// ticks.
    pub ratios: Vec<f64>,
}

impl Figures {
    /// The line saying which limits the Lua side ran under (`None` for the Rust peer).
    pub fn budget_line(&self) -> Option<String> {
        self.budget.map(|b| {
            format!(
                "budget: {} instructions a call, {} MB of Lua memory, at most {} agents (the scene's `budget:` and its defaults, as headless runs it)",
                b.instructions, b.memory_mb, b.max_agents
            )
        })
    }

    /// A loud warning when any measured decision failed (a script error, a missing file, a
    /// limit): such a run times the error path, not the behaviour, so its figures compare
    /// nothing. `None` when every decision succeeded.
    pub fn failure_warning(&self, what: &str) -> Option<String> {
        (self.failed > 0).then(|| {
            format!(
                "WARNING: {what}: {} of {} measured decisions FAILED (script errors): these figures time the failures, not the scene's behaviour; run `agentbox headless` on it to see the errors",
                self.failed, self.decisions
            )
        })
    }
}

impl Pair {
    /// The goal line of `bench --against --goal` (`peer`: "the other scene") and `bench
    /// --native --goal` ("the Rust peer"): MET or NOT MET by the median ratio, and never MET
    /// when a decision failed on either side (the ratio then compares error paths).
    pub fn verdict(&self, goal: f64, peer: &str) -> String {
        let median = self.median();
        let failed = self.first.failed + self.second.failed;
        if failed > 0 {
            return format!(
                "goal: at most {goal}x {peer}: NOT JUDGED, {failed} decisions failed ({median:.2}x means nothing)"
            );
        }
        let met = if median <= goal { "MET" } else { "NOT MET" };
        format!("goal: at most {goal}x {peer}: {met} ({median:.2}x)")
    }

    /// The median of the rounds' ratios (the mean of the middle two for an even count).
    pub fn median(&self) -> f64 {
        let mut r = self.ratios.clone();
        r.sort_by(f64::total_cmp);
        match r.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => r[n / 2],
            n => (r[n / 2 - 1] + r[n / 2]) / 2.0,
        }
    }
}

/// Runs two scenes, each with its own Lua scripts, in turns: both are loaded and warmed up,
/// then each round runs [`BLOCK`] measured ticks of each (the first scene first in even rounds,
/// the second first in odd ones) until each has run `ticks`, and keeps the round's ratio of CPU
/// times. Both sides see the same machine load, so the median ratio is what one costs against
/// the other (`agentbox bench A --against B`).
pub fn against(path: &Path, other: &Path, warmup: u64, ticks: u64) -> Result<Pair, BenchError> {
    let mut a = lua_run(path, warmup)?;
    let mut b = lua_run(other, warmup)?;
    let ratios = take_turns(&mut a, &mut b, ticks);
    Ok(Pair {
        first: a.figures,
        second: b.figures,
        ratios,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crowd_scene(dir: &Path, walkers: usize) -> std::path::PathBuf {
        let script = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scripts/crowd.lua"
        ));
        let row = format!("    #{}#\n", ".".repeat(38));
        let wall = format!("    {}\n", "#".repeat(40));
        let scene = format!(
            "seed: 4\nmap:\n  rows: |\n{wall}{}{wall}spawn:\n  - count: {walkers}\n    kind: walker\n    script: {}\n    speed: [1.5, 3]\n    params: {{ space: 1.0 }}\n  - count: 20\n    kind: post\n",
            row.repeat(28),
            script.display()
        );
        let path = dir.join("crowd.yaml");
        std::fs::write(&path, scene).unwrap();
        path
    }

    fn figures(decisions: u64, failed: u64) -> Figures {
        Figures {
            agents: 10,
            decisions,
            ticks: 10,
            total: Duration::from_millis(10),
            deciding: Duration::from_millis(5),
            wall: Duration::from_millis(10),
            failed,
            budget: None,
        }
    }

    /// A run whose decisions failed says so loudly and is never judged MET, whatever its
    /// ratio (every decision failing once measured about 37x and printed only the count).
    #[test]
    fn failed_decisions_are_loud_and_never_met() {
        let ok = figures(100, 0);
        assert_eq!(ok.failure_warning("a.yaml"), None);
        let bad = figures(100, 100);
        let warning = bad.failure_warning("a.yaml").unwrap();
        assert!(
            warning.contains("WARNING") && warning.contains("100 of 100"),
            "{warning}"
        );
        let judged = |first: &Figures, second: &Figures, ratio: f64| {
            Pair {
                first: first.clone(),
                second: second.clone(),
                ratios: vec![ratio],
            }
            .verdict(1.35, "the other scene")
        };
        assert!(judged(&ok, &ok, 1.2).ends_with(": MET (1.20x)"));
        assert!(judged(&ok, &ok, 1.5).contains("NOT MET"));
        for (first, second) in [(&bad, &ok), (&ok, &bad)] {
            let line = judged(first, second, 0.5);
            assert!(
                line.contains("NOT JUDGED") && !line.contains(": MET"),
                "{line}"
            );
        }
    }

    /// The per-thread CPU clock counts this thread's work and not its sleep.
    #[cfg(all(any(unix, windows), not(feature = "portable-fallbacks")))]
    #[test]
    fn thread_cpu_time_counts_work_not_sleep() {
        assert_eq!(CLOCK, "thread CPU time");
        let before = thread_cpu_time();
        std::thread::sleep(Duration::from_millis(100));
        let slept = thread_cpu_time().saturating_sub(before);
        assert!(slept < Duration::from_millis(50), "sleeping cost {slept:?}");
        let (start, before) = (Instant::now(), thread_cpu_time());
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        assert!(
            thread_cpu_time() > before,
            "30 ms of spinning cost no CPU time"
        );
    }

    /// The fallback of platforms without a per-thread CPU clock, built on this one by the
    /// `portable-fallbacks` feature: a wall clock that never goes back, counts sleep, and
    /// still gives `bench` figures.
    #[cfg(feature = "portable-fallbacks")]
    #[test]
    fn portable_fallback_clock_is_the_wall_clock_and_bench_runs_on_it() {
        assert!(CLOCK.starts_with("wall time"), "{CLOCK}");
        let before = thread_cpu_time();
        std::thread::sleep(Duration::from_millis(30));
        let after = thread_cpu_time();
        assert!(after.saturating_sub(before) >= Duration::from_millis(30));
        assert!(thread_cpu_time() >= after);
        let dir = tempfile::tempdir().unwrap();
        let path = crowd_scene(dir.path(), 20);
        let f = lua(&path, 1, 5).unwrap();
        assert_eq!((f.agents, f.ticks, f.decisions, f.failed), (40, 5, 100, 0));
        assert!(f.total > Duration::ZERO && f.deciding <= f.total);
    }

    /// Side by side, each side runs every measured tick once, in turns, and decides for its
    /// scripted agents every tick.
    #[test]
    fn side_by_side_measures_both_sides_for_every_tick() {
        let dir = tempfile::tempdir().unwrap();
        let path = crowd_scene(dir.path(), 50);
        let pair = side_by_side(&path, 2, 25).unwrap();
        assert_eq!(pair.ratios.len(), 3, "blocks of 10, 10 and 5 ticks");
        for f in [&pair.first, &pair.second] {
            assert_eq!(
                (f.agents, f.ticks, f.decisions, f.failed),
                (70, 25, 50 * 25, 0)
            );
            assert!(f.total > Duration::ZERO && f.deciding <= f.total);
        }
    }

    /// Against another scene, both run every measured tick once, in rounds of [`BLOCK`],
    /// and the median is taken over the rounds' ratios.
    #[test]
    fn against_measures_both_scenes_in_rounds() {
        let dir = tempfile::tempdir().unwrap();
        let path = crowd_scene(dir.path(), 30);
        let pair = against(&path, &path, 1, 25).unwrap();
        for f in [&pair.first, &pair.second] {
            assert_eq!((f.ticks, f.decisions, f.failed), (25, 30 * 25, 0));
        }
        assert_eq!(pair.ratios.len(), 3, "blocks of 10, 10 and 5 ticks");
        assert!(pair.ratios.iter().all(|r| r.is_finite() && *r > 0.0));
        let fixed = Pair {
            ratios: vec![3.0, 1.0, 2.0, 10.0],
            ..pair.clone()
        };
        assert_eq!(fixed.median(), 2.5);
        assert_eq!(
            Pair {
                ratios: vec![3.0, 1.0, 2.0],
                ..pair
            }
            .median(),
            2.0
        );
    }

    /// A scene with one walker whose `decide` loops `passes` times, under `budget`.
    fn looping_scene(dir: &Path, passes: u64, budget: &str) -> std::path::PathBuf {
        let script = dir.join("loop.lua");
        std::fs::write(
            &script,
            format!("return {{ decide = function(self, world)\n  local n = 0\n  for i = 1, {passes} do n = n + i end\n  return move.stop()\nend }}\n"),
        )
        .unwrap();
        let path = dir.join("loop.yaml");
        std::fs::write(
            &path,
            format!("seed: 1\n{budget}map:\n  rows: |\n    #####\n    #...#\n    #####\nagents:\n  - id: looper\n    at: [1, 1]\n    script: loop.lua\n"),
        )
        .unwrap();
        path
    }

    /// `bench` runs the scripts under the scene's `budget:`, as headless does: a decide of
    /// 1,000,000 loop passes (a few instructions each) fails under the default 2,000,000 and runs under a
    /// raised budget; one of 50,000 passes runs by default and fails under a lowered one. The
    /// figures carry the budget for the output's line.
    #[test]
    fn bench_runs_under_the_scenes_budget() {
        let dir = tempfile::tempdir().unwrap();
        let decided = |passes: u64, budget: &str| {
            let f = lua(&looping_scene(dir.path(), passes, budget), 0, 2).unwrap();
            (f.decisions - f.failed, f.budget.unwrap().instructions)
        };
        assert_eq!(decided(1_000_000, ""), (0, 2_000_000));
        assert_eq!(
            decided(1_000_000, "budget: { instructions: 8000000 }\n"),
            (2, 8_000_000)
        );
        assert_eq!(decided(50_000, ""), (2, 2_000_000));
        assert_eq!(
            decided(50_000, "budget: { instructions: 20000 }\n"),
            (0, 20_000)
        );
        let f = lua(
            &looping_scene(
                dir.path(),
                10,
                "budget: { instructions: 20000, memory_mb: 64 }\n",
            ),
            0,
            1,
        )
        .unwrap();
        let line = f.budget_line().unwrap();
        assert!(
            line.contains("20000 instructions a call") && line.contains("64 MB"),
            "{line}"
        );
        assert_eq!(
            native(&looping_scene(dir.path(), 10, ""), 0, 1)
                .unwrap()
                .budget,
            None
        );
    }

    /// Where every agent stands after `ticks` ticks of `scene` with `decider`.
    fn positions(scene: &Path, decider: &mut dyn Decider, ticks: u64) -> Vec<(String, u64, u64)> {
        let loaded = scene::load(scene).unwrap();
        let mut sim = Simulation::new(loaded.world);
        for _ in 0..ticks {
            sim.step(decider);
        }
        sim.world()
            .agents
            .iter()
            .map(|a| (a.id.clone(), a.pos.x.to_bits(), a.pos.y.to_bits()))
            .collect()
    }

    /// The ratio `agentbox bench --native` reports is only fair if both sides do the same
    /// work: a crowd decided by `scripts/crowd.lua` (through the fast paths of
    /// `world:nearest` and `move.*`) and by `NativeCrowd` ends in the same places, bit for bit.
    #[test]
    fn native_crowd_moves_the_crowd_exactly_as_crowd_lua_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = crowd_scene(dir.path(), 600);
        let mut host = ScriptHost::new(4).unwrap();
        for s in &scene::load(&path).unwrap().scripts {
            host.load(s).unwrap();
        }
        let lua = positions(&path, &mut host, 40);
        let native = positions(&path, &mut NativeCrowd::default(), 40);
        assert_eq!(lua.len(), 620);
        let start = positions(&path, &mut NativeCrowd::default(), 0);
        let moved = lua.iter().zip(&start).filter(|(a, b)| a != b).count();
        assert!(moved > 500, "only {moved} agents moved");
        assert_eq!(lua, native);
    }
}
