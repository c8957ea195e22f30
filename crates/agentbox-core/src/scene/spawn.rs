//! The `spawn:` and `expect:` sections: crowds placed from the seed on free tiles, and the
//! checks that every name and tile an expectation mentions exists. Placement is deterministic:
//! the same scene and seed give the same agents in the same places with the same ids; an
//! entry's agents are numbered in reading order of their tiles.

use super::build::{check_tile, Checker, MAX_SPEED_LIMIT};
use super::file::{AreaSpec, ExpectSpec, SceneFile, SpawnSpec, SpeedSpec, TargetSpec};
use crate::world::{rng, Agent, Brain, World};
use glam::IVec2;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// At most this many agents in one scene's spawn entries together.
const MAX_SPAWNED: u64 = 500_000;
/// At most this many ticks in a test run.
pub(super) const MAX_TEST_TICKS: u64 = 10_000_000;

/// One `spawn:` entry as built: its agents are `KIND-(first+1)` to `KIND-(first+count)`.
/// A reload compares groups to tell a changed `count` (whose placement the seed redraws)
/// from a moved agent.
#[derive(Clone, Debug, PartialEq)]
pub struct SpawnGroup {
    pub kind: String,
    pub first: u64,
    pub count: u32,
    /// The entry's `speed:` as `[min, max]` (`None`: the default).
    pub speed: Option<[f64; 2]>,
}

impl SpawnGroup {
    /// Whether `id` names one of this group's agents.
    pub fn has(&self, id: &str) -> bool {
        crate::world::number_of(id, &self.kind)
            .is_some_and(|n| n > self.first && n <= self.first + self.count as u64)
    }
}

/// The scene's spawn entries as groups, in file order.
pub(super) fn groups(spec: &SceneFile) -> Vec<SpawnGroup> {
    let mut numbers: BTreeMap<&str, u64> = BTreeMap::new();
    spec.spawn
        .iter()
        .map(|s| {
            let first = *numbers.get(s.kind.as_str()).unwrap_or(&0);
            numbers.insert(s.kind.as_str(), first + s.count as u64);
            SpawnGroup {
                kind: s.kind.clone(),
                first,
                count: s.count,
                speed: s.speed.map(|v| match v {
                    SpeedSpec::Fixed(v) => [v, v],
                    SpeedSpec::Range(r) => r,
                }),
            }
        })
        .collect()
}

/// Which spawn entry produced the `n`th spawned agent.
pub fn entry_of(spec: &SceneFile, mut n: usize) -> usize {
    for (i, s) in spec.spawn.iter().enumerate() {
        if n < s.count as usize {
            return i;
        }
        n -= s.count as usize;
    }
    spec.spawn.len().saturating_sub(1)
}

/// The tiles of a rectangle, row by row, if it lies inside the map.
fn area_tiles(c: &mut Checker, path: &str, area: &AreaSpec, world: &World) -> Option<Vec<IVec2>> {
    let (w, h) = (world.grid().width() as i64, world.grid().height() as i64);
    let inside = |p: [i64; 2]| (0..w).contains(&p[0]) && (0..h).contains(&p[1]);
    if !inside(area.from) || !inside(area.to) {
        c.error(
            path,
            format!(
                "area [{}, {}]..[{}, {}] is not inside the {w}x{h} map",
                area.from[0], area.from[1], area.to[0], area.to[1]
            ),
        );
        return None;
    }
    let (x0, x1) = (area.from[0].min(area.to[0]), area.from[0].max(area.to[0]));
    let (y0, y1) = (area.from[1].min(area.to[1]), area.from[1].max(area.to[1]));
    let mut out = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            out.push(IVec2::new(x as i32, y as i32));
        }
    }
    Some(out)
}

fn check_speed(c: &mut Checker, path: &str, speed: Option<SpeedSpec>) -> Option<(f64, f64)> {
    let ok = |v: f64| v.is_finite() && (0.0..=MAX_SPEED_LIMIT).contains(&v);
    let (lo, hi) = match speed {
        None => return Some((4.0, 4.0)),
        Some(SpeedSpec::Fixed(v)) => (v, v),
        Some(SpeedSpec::Range([a, b])) => (a, b),
    };
    if !ok(lo) || !ok(hi) || lo > hi {
        c.error(
            path,
            format!("speed must be a number or [min, max] from 0 to {MAX_SPEED_LIMIT} tiles per second with min <= max"),
        );
        return None;
    }
    Some((lo, hi))
}

/// Checks the spawn entries and places their agents; errors go to the checker.
pub(super) fn place(
    c: &mut Checker,
    spec: &SceneFile,
    world: &World,
    scripts: &mut BTreeSet<PathBuf>,
) -> Vec<Agent> {
    let total: u64 = spec.spawn.iter().map(|s| s.count as u64).sum();
    if total > MAX_SPAWNED {
        c.error(
            "spawn",
            format!("at most {MAX_SPAWNED} spawned agents in one scene, got {total}"),
        );
        return Vec::new();
    }
    let width = world.grid().width().max(0) as usize;
    let mut taken = vec![false; width * world.grid().height().max(0) as usize];
    let index = |t: IVec2| t.y as usize * width + t.x as usize;
    for a in &spec.agents {
        let t = IVec2::new(a.at[0] as i32, a.at[1] as i32);
        if world.in_bounds(t) {
            taken[index(t)] = true;
        }
    }
    let seed = spec.seed.unwrap_or(0);
    let mut numbers: BTreeMap<&str, u64> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, s) in spec.spawn.iter().enumerate() {
        let path = format!("spawn.{i}");
        let first = *numbers.get(s.kind.as_str()).unwrap_or(&0);
        numbers.insert(s.kind.as_str(), first + s.count as u64);
        if let Some(agents) = place_one(c, &path, s, world, seed, first, &mut taken, scripts) {
            out.extend(agents);
        }
    }
    out
}

/// Places one spawn entry's agents (numbered from `first + 1`) on free tiles not yet `taken`,
/// chosen by the seed; none if the entry is wrong or the tiles too few (reported).
#[allow(clippy::too_many_arguments)]
fn place_one(
    c: &mut Checker,
    path: &str,
    s: &SpawnSpec,
    world: &World,
    seed: u64,
    first: u64,
    taken: &mut [bool],
    scripts: &mut BTreeSet<PathBuf>,
) -> Option<Vec<Agent>> {
    let (ok, speed, brain) = check_entry(c, path, s, scripts);
    let body = super::body::BodyKeys {
        radius: s.radius,
        max_force: s.max_force,
        avoid: s.avoid,
        avoid_horizon: s.avoid_horizon,
    };
    let ok = body.check(c, path, false) && ok;
    let look = super::look::LookKeys {
        color: s.color.as_deref(),
        shape: s.shape.as_deref(),
    };
    let ok = look.check(c, path) && ok;
    let look = look.look();
    let candidates = candidate_tiles(c, path, s, world)?;
    let width = world.grid().width() as usize;
    let index = |t: IVec2| t.y as usize * width + t.x as usize;
    let mut free: Vec<IVec2> = candidates
        .into_iter()
        .filter(|&t| !world.is_blocked(t) && !taken[index(t)])
        .collect();
    if free.len() < s.count as usize {
        c.error(
            &format!("{path}.count"),
            format!(
                "only {} free tiles to place {} `{}` agents on (tiles already used by agents do not count)",
                free.len(),
                s.count,
                s.kind
            ),
        );
        return None;
    }
    if !ok {
        return None;
    }
    let (lo, hi) = speed?;
    let mut r = rng::stream(seed, &format!("spawn:{}:{first}", s.kind), "place");
    // A partial Fisher-Yates shuffle: the first `count` tiles are a uniform random choice.
    let count = s.count as usize;
    for k in 0..count {
        let j = rng::int_in(&mut r, k as i64, free.len() as i64 - 1) as usize;
        free.swap(k, j);
    }
    // Numbered in reading order of their tiles (kind-1 is the top-left one), so agents that
    // start near each other sit near each other in the agent list: neighbour queries of a
    // crowd then touch nearby memory.
    free[..count].sort_unstable_by_key(|t| (t.y, t.x));
    // One map for the whole group, shared by its agents.
    let params = s.params.as_ref().map_or_else(crate::world::no_params, |p| {
        crate::world::Params::new(super::tunable::plain(p))
    });
    let agents = free[..count]
        .iter()
        .enumerate()
        .map(|(k, &tile)| {
            taken[index(tile)] = true;
            let mut a = Agent::new(format!("{}-{}", s.kind, first + k as u64 + 1), tile);
            a.kind = s.kind.clone();
            a.speed = lo + (hi - lo) * rng::unit_f64(&mut r);
            a.params = crate::world::Params::clone(&params);
            a.brain = brain.clone();
            body.apply(&mut a);
            a.look = look;
            a
        })
        .collect();
    Some(agents)
}

/// Checks a spawn entry's kind, count, speed, params and script: whether all are good, the
/// speed range, and the brain its agents get.
fn check_entry(
    c: &mut Checker,
    path: &str,
    s: &SpawnSpec,
    scripts: &mut BTreeSet<PathBuf>,
) -> (bool, Option<(f64, f64)>, Brain) {
    let mut ok = true;
    if s.kind.trim().is_empty() {
        c.error(&format!("{path}.kind"), "spawn kind must not be empty");
        ok = false;
    }
    if s.count == 0 {
        c.error(&format!("{path}.count"), "count must be at least 1");
        ok = false;
    }
    let speed = check_speed(c, &format!("{path}.speed"), s.speed);
    ok &= speed.is_some();
    if let Some(params) = &s.params {
        if !params.is_object() {
            c.error(
                &format!("{path}.params"),
                "params must be a mapping, e.g. { flee_from: wolf }",
            );
            ok = false;
        }
        let before = c.error_count();
        super::tunable::check(c, &format!("{path}.params"), params);
        ok &= c.error_count() == before;
    }
    let brain = match &s.script {
        Some(script) => match super::build::resolve_script(c, path, script, scripts) {
            Some(resolved) => Brain::Script(resolved.into()),
            None => {
                ok = false;
                Brain::None
            }
        },
        None => Brain::None,
    };
    (ok, speed, brain)
}

/// The tiles a spawn entry may place its agents on: its `area`, its `tiles` (each checked,
/// duplicates once) or the whole map; none if they are wrong (reported).
fn candidate_tiles(
    c: &mut Checker,
    path: &str,
    s: &SpawnSpec,
    world: &World,
) -> Option<Vec<IVec2>> {
    let candidates = match (&s.area, &s.tiles) {
        (Some(_), Some(_)) => {
            c.error(
                &format!("{path}.tiles"),
                "a spawn entry has either an area or tiles, not both",
            );
            return None;
        }
        (Some(area), None) => area_tiles(c, &format!("{path}.area"), area, world)?,
        (None, Some(tiles)) => {
            let mut out = Vec::new();
            let mut seen = BTreeSet::new();
            for (j, t) in tiles.iter().enumerate() {
                let before = c.error_count();
                check_tile(c, world, &format!("{path}.tiles.{j}"), "spawn tile", *t);
                if c.error_count() == before && seen.insert(*t) {
                    out.push(IVec2::new(t[0] as i32, t[1] as i32));
                }
            }
            out
        }
        (None, None) => {
            let whole = AreaSpec {
                from: [0, 0],
                to: [
                    world.grid().width() as i64 - 1,
                    world.grid().height() as i64 - 1,
                ],
            };
            area_tiles(c, path, &whole, world)?
        }
    };
    Some(candidates)
}

/// Checks that an `expect:` section names agents, terrain and tiles that exist.
pub(super) fn check_expect(
    c: &mut Checker,
    expect: &ExpectSpec,
    world: &World,
    ids: &BTreeSet<&str>,
    kinds: &BTreeSet<&str>,
) {
    let agent = |c: &mut Checker, path: String, id: &str| {
        if !ids.contains(id) {
            c.error(&path, format!("no agent with id `{id}` in this scene"));
        }
    };
    if let Some(t) = expect.ticks {
        if t == 0 || t > MAX_TEST_TICKS {
            c.error(
                "expect.ticks",
                format!("ticks must be from 1 to {MAX_TEST_TICKS}"),
            );
        }
    }
    check_reaches(c, expect, ids, kinds);
    for (i, n) in expect.never_on.iter().enumerate() {
        let path = format!("expect.never_on.{i}");
        agent(c, format!("{path}.agent"), &n.agent);
        if world.terrain().by_name(&n.terrain).is_none() {
            let known: Vec<&str> = world
                .terrain()
                .kinds()
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            c.error(
                &format!("{path}.terrain"),
                format!(
                    "unknown terrain `{}` (known: {})",
                    n.terrain,
                    known.join(", ")
                ),
            );
        }
    }
    for (i, v) in expect.visits.iter().enumerate() {
        let path = format!("expect.visits.{i}");
        agent(c, format!("{path}.agent"), &v.agent);
        if v.tiles.is_empty() && v.rooms.is_empty() {
            c.error(&path, "visits needs `tiles` or `rooms`");
        }
        for (j, t) in v.tiles.iter().enumerate() {
            check_tile(c, world, &format!("{path}.tiles.{j}"), "tile to visit", *t);
        }
        for (j, room) in v.rooms.iter().enumerate() {
            area_tiles(c, &format!("{path}.rooms.{j}"), room, world);
        }
    }
    for (i, l) in expect.lua.iter().enumerate() {
        if l.check.trim().is_empty() {
            c.error(
                &format!("expect.lua.{i}.check"),
                "check must be Lua code, e.g. `return world:tick() > 0`",
            );
        }
    }
}

/// Checks `expect.reach`: each names an agent or a spawn group (by its kind), a finite target,
/// a distance of 0 or more, and a tick within the test.
fn check_reaches(
    c: &mut Checker,
    expect: &ExpectSpec,
    ids: &BTreeSet<&str>,
    kinds: &BTreeSet<&str>,
) {
    let agent_or_group = |c: &mut Checker, path: String, id: &str| {
        if !ids.contains(id) && !kinds.contains(id) {
            c.error(
                &path,
                format!(
                    "no agent with id `{id}` in this scene (nor a `spawn:` group of that kind)"
                ),
            );
        }
    };
    for (i, r) in expect.reach.iter().enumerate() {
        let path = format!("expect.reach.{i}");
        agent_or_group(c, format!("{path}.agent"), &r.agent);
        match &r.target {
            TargetSpec::Agent(id) => agent_or_group(c, format!("{path}.target"), id),
            TargetSpec::Point(p) if !(p[0].is_finite() && p[1].is_finite()) => {
                c.error(&format!("{path}.target"), "target must be finite")
            }
            TargetSpec::Point(_) => {}
        }
        if let Some(w) = r.within {
            if !(w.is_finite() && w >= 0.0) {
                c.error(
                    &format!("{path}.within"),
                    "within must be a distance in tiles, 0 or more",
                );
            }
        }
        if let (Some(by), Some(ticks)) = (r.by_tick, expect.ticks) {
            if by > ticks {
                c.error(
                    &format!("{path}.by_tick"),
                    format!("by_tick {by} is after the test's last tick ({ticks})"),
                );
            }
        }
    }
}

/// At most this many metrics in one scene.
pub(super) const MAX_METRICS: usize = 256;

/// Checks that every metric has a name and some code (the code compiles when a run starts).
pub(super) fn check_metrics(c: &mut Checker, metrics: &BTreeMap<String, String>) {
    check_named_code(c, "metrics", metrics);
}

/// Checks a mapping of names to Lua code at `root` (`metrics`, `monitors.values`).
pub(super) fn check_named_code(c: &mut Checker, root: &str, metrics: &BTreeMap<String, String>) {
    if metrics.len() > MAX_METRICS {
        c.error(
            root,
            format!("at most {MAX_METRICS} entries, got {}", metrics.len()),
        );
    }
    for (name, code) in metrics {
        if name.trim().is_empty() || name.chars().any(char::is_control) {
            c.error(root, "a name must be visible text");
        }
        if code.trim().is_empty() {
            c.error(
                &format!("{root}.{name}"),
                "this must be Lua code, e.g. `world:agent(\"prey\").pos.x`",
            );
        }
    }
}
