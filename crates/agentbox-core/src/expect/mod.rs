//! Expectations: the checks of a scene's `expect:` section (reach, never_on, visits,
//! no_errors, Lua predicates), observed tick by tick over a headless run; and what experiments
//! measure with the same definitions: the first tick of each reach ([`FirstReach`]) and the
//! scene's `metrics:` ([`Metrics`]).
//!
//! [`Expectations`] is pure logic over the world and the tick reports; Lua predicates and
//! metrics are run through the [`Predicates`] and [`Metrics`] traits, which the scripting layer
//! implements, so this module never names mlua. It must not reach a session, the script host, a window or the file watcher: the
//! runner behind `agentbox test` (`crate::testrun`) drives sessions and feeds this module.

use crate::scene::file::{CheckWhen, ExpectSpec, TargetSpec};
use crate::sim::TickReport;
use crate::world::{Tile, World};
use glam::{DVec2, IVec2};
use std::rc::Rc;

/// Ticks a test runs when the scene says neither `ticks` nor any `by_tick`.
pub const DEFAULT_TICKS: u64 = 300;

/// Runs the Lua predicates of `expect.lua` (implemented by the scripting layer).
pub trait Predicates {
    /// Compiles a predicate's code (the body of a function of `world`); returns its handle or
    /// the compile error.
    fn compile_predicate(&mut self, name: &str, code: &str) -> Result<usize, String>;
    /// Runs a compiled predicate against the world: `Ok(())` if it returned true, otherwise
    /// the reason (its second return value, a runtime error, or "returned false").
    fn run_predicate(&mut self, handle: usize, world: &Rc<World>) -> Result<(), String>;
}

/// Evaluates a scene's `metrics:` (implemented by the scripting layer): named Lua
/// expressions that give a number at the end of a run.
pub trait Metrics {
    /// Compiles a metric's code (an expression of `world`, or a function body that returns a
    /// number); its handle or the compile error.
    fn compile_metric(&mut self, name: &str, code: &str) -> Result<usize, String>;
    /// Runs a compiled metric against the world: the number, or why there is none.
    fn run_metric(&mut self, handle: usize, world: &Rc<World>) -> Result<f64, String>;
}

/// Where a reach's agent or target stands: an agent by id, else every agent of a `spawn:`
/// group's kind (the scene checks that one of the two exists).
fn members<'w>(world: &'w World, name: &'w str) -> impl Iterator<Item = DVec2> + 'w {
    let one = world.agent(name).map(|a| a.pos);
    let group = one.is_none().then(|| {
        world
            .agents
            .iter()
            .filter(move |a| a.kind == name)
            .map(|a| a.pos)
    });
    one.into_iter().chain(group.into_iter().flatten())
}

/// The shortest distance between a reach's agent (or any member of its group) and its target
/// (an agent, any member of a group, or a point); `None` while either side has nobody.
pub fn reach_distance(world: &World, agent: &str, target: &TargetSpec) -> Option<f64> {
    let mut best: Option<f64> = None;
    for from in members(world, agent) {
        let mut consider = |to: DVec2| {
            let d = from.distance(to);
            if best.is_none_or(|b| d < b) {
                best = Some(d);
            }
        };
        match target {
            TargetSpec::Agent(id) => members(world, id).for_each(&mut consider),
            TargetSpec::Point(p) => consider(DVec2::new(p[0], p[1])),
        }
    }
    best
}

/// The name of a reach in reports and experiment lines: `AGENT->TARGET`, or `AGENT->[x,y]`
/// for a position.
pub fn reach_key(agent: &str, target: &TargetSpec) -> String {
    match target {
        TargetSpec::Agent(id) => format!("{agent}->{id}"),
        TargetSpec::Point(p) => format!("{agent}->[{},{}]", p[0], p[1]),
    }
}

/// The first tick each of a scene's `expect.reach` entries held, watched over a run with no
/// deadline (an experiment's runs record when, not whether by a tick).
pub struct FirstReach {
    reach: Vec<(String, String, TargetSpec, f64, Option<u64>)>,
}

impl FirstReach {
    /// Watches the reach entries of `spec` (none without one).
    pub fn new(spec: Option<&ExpectSpec>) -> Self {
        let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
        FirstReach {
            reach: spec
                .map(|s| s.reach.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|r| {
                    // A second entry for the same pair (another `within`) gets `#2`, and so on.
                    let key = reach_key(&r.agent, &r.target);
                    let n = seen.entry(key.clone()).or_insert(0);
                    *n += 1;
                    (
                        if *n == 1 { key } else { format!("{key}#{n}") },
                        r.agent.clone(),
                        r.target.clone(),
                        r.within.unwrap_or(0.5),
                        None,
                    )
                })
                .collect(),
        }
    }

    /// Looks at the world after a tick (or at the start).
    pub fn observe(&mut self, world: &World) {
        for (_, agent, target, within, reached) in &mut self.reach {
            if reached.is_none()
                && reach_distance(world, agent, target).is_some_and(|d| d <= *within)
            {
                *reached = Some(world.tick);
            }
        }
    }

    /// Each reach's key and the first tick it held, in the scene's order.
    pub fn results(&self) -> Vec<(String, Option<u64>)> {
        self.reach
            .iter()
            .map(|(key, _, _, _, reached)| (key.clone(), *reached))
            .collect()
    }
}

struct Reach {
    agent: String,
    target: TargetSpec,
    within: f64,
    by_tick: u64,
    reached: Option<u64>,
    closest: Option<(f64, u64)>,
}

struct NeverOn {
    agent: String,
    terrain: String,
    broken: Option<(u64, Tile)>,
}

struct Visits {
    agent: String,
    /// Each goal (a tile or a room as a min/max rectangle) and whether it was visited.
    goals: Vec<(IVec2, IVec2, bool)>,
}

struct LuaCheck {
    name: String,
    handle: Result<usize, String>,
    when: CheckWhen,
    /// Why it failed, and after which tick.
    failed: Option<(String, u64)>,
}

/// A broken expectation: why, and where to look at it (what `agentbox test` opens).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The reason, one line, as `agentbox test` prints it.
    pub reason: String,
    /// The tick after which it failed (0: before the first tick, as a script that did not
    /// load; the last tick run for what is only known at the end).
    pub tick: u64,
    /// The agent it is about, when it is about one agent that exists at that tick.
    pub agent: Option<String>,
}

/// A script error seen by `no_errors`: its message, the tick and the agent.
struct SeenError {
    message: String,
    tick: u64,
    agent: Option<String>,
}

/// The state of one scene's expectations over a run.
pub struct Expectations {
    ticks: u64,
    no_errors: bool,
    errors: Vec<SeenError>,
    reach: Vec<Reach>,
    never_on: Vec<NeverOn>,
    visits: Vec<Visits>,
    lua: Vec<LuaCheck>,
}

fn corners(a: [i64; 2], b: [i64; 2]) -> (IVec2, IVec2) {
    let (a, b) = (
        IVec2::new(a[0] as i32, a[1] as i32),
        IVec2::new(b[0] as i32, b[1] as i32),
    );
    (a.min(b), a.max(b))
}

impl Expectations {
    /// Prepares the checks of `spec`, compiling the Lua predicates.
    pub fn new(spec: &ExpectSpec, predicates: &mut dyn Predicates) -> Self {
        let latest = spec.reach.iter().filter_map(|r| r.by_tick).max();
        let ticks = spec.ticks.or(latest).unwrap_or(DEFAULT_TICKS);
        let lua = spec
            .lua
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let name = l.name_or_index(i);
                LuaCheck {
                    handle: predicates.compile_predicate(&name, &l.check),
                    name,
                    when: l.when,
                    failed: None,
                }
            })
            .collect();
        Expectations {
            ticks,
            no_errors: spec.no_errors.unwrap_or(true),
            errors: Vec::new(),
            reach: spec
                .reach
                .iter()
                .map(|r| Reach {
                    agent: r.agent.clone(),
                    target: r.target.clone(),
                    within: r.within.unwrap_or(0.5),
                    by_tick: r.by_tick.unwrap_or(ticks),
                    reached: None,
                    closest: None,
                })
                .collect(),
            never_on: spec
                .never_on
                .iter()
                .map(|n| NeverOn {
                    agent: n.agent.clone(),
                    terrain: n.terrain.clone(),
                    broken: None,
                })
                .collect(),
            visits: spec
                .visits
                .iter()
                .map(|v| Visits {
                    agent: v.agent.clone(),
                    goals: v
                        .tiles
                        .iter()
                        .map(|t| {
                            let (a, b) = corners(*t, *t);
                            (a, b, false)
                        })
                        .chain(v.rooms.iter().map(|r| {
                            let (a, b) = corners(r.from, r.to);
                            (a, b, false)
                        }))
                        .collect(),
                })
                .collect(),
            lua,
        }
    }

    /// How many ticks the test runs.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Records script errors that happened outside a tick (a script that failed to load).
    pub fn script_errors(&mut self, messages: impl IntoIterator<Item = String>) {
        self.errors
            .extend(messages.into_iter().map(|message| SeenError {
                message,
                tick: 0,
                agent: None,
            }));
    }

    /// Looks at the world after a tick (or at the start, with no report).
    pub fn observe(
        &mut self,
        world: &Rc<World>,
        report: Option<&TickReport>,
        predicates: &mut dyn Predicates,
    ) {
        let tick = world.tick;
        if let Some(report) = report {
            for (id, message) in &report.new_errors {
                self.errors.push(SeenError {
                    message: format!("{message} (agent {id}, tick {tick})"),
                    tick,
                    agent: Some(id.clone()),
                });
            }
        }
        for r in &mut self.reach {
            if r.reached.is_some() || tick > r.by_tick {
                continue;
            }
            let Some(d) = reach_distance(world, &r.agent, &r.target) else {
                continue;
            };
            if d <= r.within {
                r.reached = Some(tick);
            }
            if r.closest.is_none_or(|(best, _)| d < best) {
                r.closest = Some((d, tick));
            }
        }
        for n in &mut self.never_on {
            if n.broken.is_some() {
                continue;
            }
            if let Some(agent) = world.agent(&n.agent) {
                let tile = agent.tile();
                if world.terrain_at(tile).is_some_and(|t| t.name == n.terrain) {
                    n.broken = Some((tick, tile));
                }
            }
        }
        for v in &mut self.visits {
            if let Some(agent) = world.agent(&v.agent) {
                let tile = agent.tile();
                for (lo, hi, seen) in &mut v.goals {
                    if tile.cmpge(*lo).all() && tile.cmple(*hi).all() {
                        *seen = true;
                    }
                }
            }
        }
        for l in &mut self.lua {
            if l.when != CheckWhen::EveryTick || l.failed.is_some() {
                continue;
            }
            if let Ok(handle) = l.handle {
                if let Err(why) = predicates.run_predicate(handle, world) {
                    l.failed = Some((format!("{why} (tick {tick})"), tick));
                }
            }
        }
    }

    /// Finishes the run: the reasons the scene fails, empty if it passes.
    pub fn finish(self, world: &Rc<World>, predicates: &mut dyn Predicates) -> Vec<String> {
        self.failures(world, predicates)
            .into_iter()
            .map(|f| f.reason)
            .collect()
    }

    /// Finishes the run: each broken expectation with the tick and agent to look at, empty if
    /// the scene passes.
    pub fn failures(mut self, world: &Rc<World>, predicates: &mut dyn Predicates) -> Vec<Failure> {
        let end = world.tick;
        // An agent the failure names, if it is one agent of the world (not a group's kind).
        let one = |id: &str| world.agent(id).map(|a| a.id.clone());
        let mut out = Vec::new();
        if self.no_errors {
            out.extend(self.errors.iter().map(|e| Failure {
                reason: format!("no_errors: {}", e.message),
                tick: e.tick,
                agent: e.agent.clone(),
            }));
        }
        for r in &self.reach {
            if r.reached.is_some() {
                continue;
            }
            let target = match &r.target {
                TargetSpec::Agent(id) => format!("`{id}`"),
                TargetSpec::Point(p) => format!("[{}, {}]", p[0], p[1]),
            };
            let closest = match r.closest {
                Some((d, t)) => format!(" (closest {d:.2} at tick {t})"),
                None => String::new(),
            };
            out.push(Failure {
                reason: format!(
                    "reach: `{}` did not come within {} of {target} by tick {}{closest}",
                    r.agent, r.within, r.by_tick
                ),
                tick: r.by_tick.min(end),
                agent: one(&r.agent),
            });
        }
        for n in &self.never_on {
            if let Some((tick, tile)) = n.broken {
                out.push(Failure {
                    reason: format!(
                        "never_on: `{}` stood on {} at [{}, {}] at tick {tick}",
                        n.agent, n.terrain, tile.x, tile.y
                    ),
                    tick,
                    agent: one(&n.agent),
                });
            }
        }
        for v in &self.visits {
            let missed: Vec<String> = v
                .goals
                .iter()
                .filter(|g| !g.2)
                .map(|(lo, hi, _)| {
                    if lo == hi {
                        format!("tile [{}, {}]", lo.x, lo.y)
                    } else {
                        format!("room [{}, {}]..[{}, {}]", lo.x, lo.y, hi.x, hi.y)
                    }
                })
                .collect();
            if !missed.is_empty() {
                out.push(Failure {
                    reason: format!("visits: `{}` never visited {}", v.agent, missed.join(", ")),
                    tick: end,
                    agent: one(&v.agent),
                });
            }
        }
        for l in &mut self.lua {
            let failure = match &l.handle {
                Err(e) => Some((e.clone(), 0)),
                Ok(handle) if l.when == CheckWhen::End => predicates
                    .run_predicate(*handle, world)
                    .err()
                    .map(|why| (why, end)),
                Ok(_) => l.failed.take(),
            };
            if let Some((why, tick)) = failure {
                out.push(Failure {
                    reason: format!("lua `{}`: {why}", l.name),
                    tick,
                    agent: None,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::file::ExpectSpec;
    use crate::world::Agent;

    /// Predicates that pass while the tick is below a limit.
    struct TickBelow(u64);

    impl Predicates for TickBelow {
        fn compile_predicate(&mut self, _name: &str, code: &str) -> Result<usize, String> {
            if code.contains("syntax error") {
                Err("expect:1: syntax error".into())
            } else {
                Ok(0)
            }
        }
        fn run_predicate(&mut self, _h: usize, world: &Rc<World>) -> Result<(), String> {
            if world.tick < self.0 {
                Ok(())
            } else {
                Err("tick too late".into())
            }
        }
    }

    fn spec(yaml: &str) -> ExpectSpec {
        serde_saphyr::from_str(yaml).expect("expect spec parses")
    }

    fn walk(spec: &ExpectSpec, path: &[(f64, f64)], limit: u64) -> Vec<String> {
        walk_failures(spec, path, limit)
            .into_iter()
            .map(|f| f.reason)
            .collect()
    }

    fn walk_failures(spec: &ExpectSpec, path: &[(f64, f64)], limit: u64) -> Vec<Failure> {
        let mut world = World::from_ascii(&["....~", ".....", "....."]);
        world.agents.push(Agent::new("a", IVec2::ZERO));
        world.agents.push(Agent::new("b", IVec2::new(4, 2)));
        let mut preds = TickBelow(limit);
        let mut e = Expectations::new(spec, &mut preds);
        let mut world = Rc::new(world);
        e.observe(&world, None, &mut preds);
        for (t, &(x, y)) in path.iter().enumerate() {
            let w = Rc::make_mut(&mut world);
            w.agents[0].pos = DVec2::new(x, y);
            w.tick = t as u64 + 1;
            let report = TickReport {
                events: Vec::new(),
                new_errors: if x < 0.0 {
                    vec![(
                        "a".into(),
                        crate::world::ScriptError::runtime("x.lua:1: boom"),
                    )]
                } else {
                    Vec::new()
                },
            };
            e.observe(&world, Some(&report), &mut preds);
        }
        e.failures(&world, &mut preds)
    }

    #[test]
    fn each_failure_names_the_tick_and_the_agent_to_open_it_at() {
        let at = |tick: u64, agent: Option<&str>| (tick, agent.map(str::to_string));
        let failures_on = |yaml: &str, path: &[(f64, f64)], limit: u64| {
            walk_failures(&spec(yaml), path, limit)
                .into_iter()
                .map(|f| (f.tick, f.agent))
                .collect::<Vec<_>>()
        };
        let failures = |yaml: &str, limit: u64| -> Vec<(u64, Option<String>)> {
            walk_failures(&spec(yaml), &PATH, limit)
                .into_iter()
                .map(|f| (f.tick, f.agent))
                .collect()
        };
        let late = "reach: [{agent: a, target: b, within: 0.1, by_tick: 3}]";
        assert_eq!(failures(late, 99), vec![at(3, Some("a"))]);
        let water = "never_on: [{agent: a, terrain: water}]";
        let wet = [(1.0, 0.0), (4.0, 0.0), (3.0, 0.0)];
        assert_eq!(failures_on(water, &wet, 99), vec![at(2, Some("a"))]);
        let erring = [(1.0, 0.0), (-1.0, 0.0), (3.0, 0.0)];
        assert_eq!(failures_on("{}", &erring, 99), vec![at(2, Some("a"))]);
        let lua = "lua: [{name: early, when: every_tick, check: 'return true'}]";
        assert_eq!(failures(lua, 2), vec![at(2, None)]);
        let end = "lua: [{name: late, check: 'return true'}]";
        assert_eq!(failures(end, 2), vec![at(5, None)]);
        let visits = "visits: [{agent: a, tiles: [[0, 2]]}]";
        assert_eq!(failures(visits, 99), vec![at(5, Some("a"))]);
        let groups = "reach: [{agent: nobody, target: b, by_tick: 2}]";
        assert_eq!(failures(groups, 99), vec![at(2, None)]);
    }

    const PATH: [(f64, f64); 5] = [(1.0, 0.0), (2.0, 0.0), (3.0, 1.0), (4.0, 2.0), (4.0, 1.0)];

    #[test]
    fn reach_passes_in_time_and_fails_late_with_the_closest_approach() {
        let ok = spec("reach: [{agent: a, target: b, within: 0.1, by_tick: 4}]");
        assert_eq!(walk(&ok, &PATH, 99), Vec::<String>::new());
        let late = spec("reach: [{agent: a, target: b, within: 0.1, by_tick: 3}]");
        let fails = walk(&late, &PATH, 99);
        assert_eq!(fails.len(), 1, "{fails:?}");
        assert!(fails[0].contains("by tick 3"), "{fails:?}");
        assert!(fails[0].contains("closest 1.41 at tick 3"), "{fails:?}");
        let point = spec("reach: [{agent: a, target: [3, 1]}]");
        assert!(walk(&point, &PATH, 99).is_empty());
        assert_eq!(Expectations::new(&late, &mut TickBelow(0)).ticks(), 3);
    }

    #[test]
    fn first_reach_records_ticks_and_groups_reach_through_any_member() {
        let mut world = World::from_ascii(&["........", "........"]);
        world.agents.push(Agent::new("h", IVec2::ZERO));
        for (i, x) in [6, 3].into_iter().enumerate() {
            let mut prey = Agent::new(format!("prey-{}", i + 1), IVec2::new(x, 0));
            prey.kind = "prey".into();
            world.agents.push(prey);
        }
        let s = spec(
            "reach: [{agent: h, target: prey, within: 0.5}, {agent: h, target: [7, 1]}, {agent: h, target: prey, within: 9}]",
        );
        assert_eq!(
            reach_distance(&world, "h", &TargetSpec::Agent("prey".into())),
            Some(3.0),
            "the nearest member of the group"
        );
        let mut first = FirstReach::new(Some(&s));
        first.observe(&world);
        for x in 1..=3 {
            world.agents[0].pos = DVec2::new(x as f64, 0.0);
            world.tick = x;
            first.observe(&world);
        }
        assert_eq!(
            first.results(),
            vec![
                ("h->prey".to_string(), Some(3)),
                ("h->[7,1]".to_string(), None),
                ("h->prey#2".to_string(), Some(0)),
            ]
        );
        assert!(FirstReach::new(None).results().is_empty());
    }

    #[test]
    fn never_on_names_the_first_tick_on_the_terrain() {
        let s = spec("never_on: [{agent: a, terrain: water}]");
        assert!(walk(&s, &PATH, 99).is_empty());
        let wet = [(1.0, 0.0), (4.0, 0.0), (3.0, 0.0)];
        let fails = walk(&s, &wet, 99);
        assert_eq!(
            fails,
            vec!["never_on: `a` stood on water at [4, 0] at tick 2".to_string()]
        );
    }

    #[test]
    fn visits_lists_what_was_missed() {
        let s = spec(
            "visits: [{agent: a, tiles: [[2, 0], [0, 2]], rooms: [{from: [3, 1], to: [4, 2]}, {from: [0, 1], to: [1, 2]}]}]",
        );
        let fails = walk(&s, &PATH, 99);
        assert_eq!(
            fails,
            vec!["visits: `a` never visited tile [0, 2], room [0, 1]..[1, 2]".to_string()]
        );
    }

    #[test]
    fn script_errors_fail_unless_allowed() {
        let errs = [(1.0, 0.0), (-1.0, 0.0)];
        let fails = walk(&spec("{}"), &errs, 99);
        assert_eq!(
            fails,
            vec!["no_errors: x.lua:1: boom (agent a, tick 2)".to_string()]
        );
        assert!(walk(&spec("no_errors: false"), &errs, 99).is_empty());
    }

    #[test]
    fn lua_predicates_run_at_the_end_or_every_tick() {
        let end = spec("lua: [{name: late, check: 'return true'}]");
        assert!(walk(&end, &PATH, 6).is_empty());
        assert_eq!(
            walk(&end, &PATH, 5),
            vec!["lua `late`: tick too late".to_string()]
        );
        let every = spec("lua: [{check: 'return true', when: every_tick}]");
        assert_eq!(
            walk(&every, &PATH, 3),
            vec!["lua `expect.lua.0`: tick too late (tick 3)".to_string()]
        );
        let broken = spec("lua: [{name: b, check: 'syntax error'}]");
        assert_eq!(
            walk(&broken, &PATH, 99),
            vec!["lua `b`: expect:1: syntax error".to_string()]
        );
    }
}
