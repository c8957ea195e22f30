//! From bytes to a validated [`Scene`]: the YAML tree (`tree.rs`, one parse within the bounds
//! on nesting and size), its typed read (`shape.rs`, every shape mistake at once), then every
//! rule a designer can break, each reported at the place to fix.

use super::file::{AgentSpec, SceneFile, TerrainSpec};
use super::shape;
use super::spawn;
use super::tree::Tree;
use super::{resolve_relative, Scene, SceneError, SceneErrors, SceneWarning, ScriptBudget};
use crate::world::{
    rng, tile_of, Agent, Brain, Crumbs, Grid, Motion, RowError, Terrain, TerrainTable, Walk,
    WaypointTable, World,
};
use glam::{DVec2, IVec2};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Limits that keep numbers sensible.
pub(super) const MAX_TICK_RATE: u32 = 1000;
pub(super) const MAX_SPEED: f64 = 1000.0;
pub(super) const MAX_COST: f64 = 1e6;
pub(super) const MAX_CRUMBS: u32 = 100_000;
const MAX_MAP_SIDE: usize = 4096;
pub(super) const MAX_BODY: u32 = 64;
pub(super) const MAX_SPEED_LIMIT: f64 = MAX_SPEED;

pub(super) struct Checker<'a> {
    pub(super) file: &'a Path,
    tree: &'a Tree<'a>,
    /// Paths whose values had a shape mistake (already reported): the checks of meaning stay
    /// quiet about them and everything under them.
    poisoned: BTreeSet<String>,
    /// Each `script:` text as written, and the file it names if it exists.
    scripts_seen: BTreeMap<String, Option<std::path::PathBuf>>,
    /// When rebuilding a scene that built before (`Scene::rebuild`): the scripts found then,
    /// which stand for the disk so the rebuild gives the same scene whatever the disk holds now.
    known_scripts: Option<&'a BTreeSet<std::path::PathBuf>>,
    errors: Vec<SceneError>,
}

impl Checker<'_> {
    fn tree(&self) -> &Tree<'_> {
        self.tree
    }

    pub(super) fn error_at(&mut self, (line, column): (usize, usize), message: impl Into<String>) {
        self.errors.push(SceneError {
            file: self.file.to_path_buf(),
            line,
            column,
            message: message.into(),
        });
    }

    pub(super) fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// Whether `path` or a path above it had a shape mistake.
    pub(super) fn poisoned(&self, path: &str) -> bool {
        self.poisoned.iter().any(|p| {
            path == p
                || path
                    .strip_prefix(p.as_str())
                    .is_some_and(|r| r.starts_with('.'))
        })
    }

    /// Whether anything at or under `path` had a shape mistake.
    pub(super) fn poisoned_under(&self, path: &str) -> bool {
        self.poisoned
            .iter()
            .any(|p| p == path || p.strip_prefix(path).is_some_and(|r| r.starts_with('.')))
    }

    /// Reports `message` at the node at `path`, unless a shape mistake there was reported.
    pub(super) fn error(&mut self, path: &str, message: impl Into<String>) {
        if self.poisoned(path) {
            return;
        }
        let pos = self.tree.at(path);
        self.error_at(pos, message);
    }
}

fn single(file: &Path, (line, column): (usize, usize), message: String) -> SceneErrors {
    SceneErrors(vec![SceneError {
        file: file.to_path_buf(),
        line,
        column,
        message,
    }])
}

/// Line and column (1-based) of a byte offset.
fn position_of(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

/// The built agents' indices (`agents:` entries, then every `spawn:` group's agents) in the
/// order their entries come in the file: a group's agents all stand where the first group of
/// their kind does, which is all that choosing the first of each kind needs.
fn file_order(tree: &Tree, spec: &SceneFile, agents: &[Agent]) -> Vec<usize> {
    let listed = spec.agents.len();
    let mut group_of_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (g, group) in spec.spawn.iter().enumerate() {
        group_of_kind
            .entry(group.kind.as_str())
            .or_insert_with(|| tree.at(&format!("spawn.{g}")));
    }
    let mut placed: Vec<((usize, usize), usize)> = agents
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            let at = match group_of_kind.get(agent.kind.as_str()) {
                Some(&group) if i >= listed => group,
                _ => tree.at(&format!("agents.{i}")),
            };
            (at, i)
        })
        .collect();
    placed.sort(); // by place, then by index
    placed.into_iter().map(|(_, i)| i).collect()
}

/// Builds a scene from a scene file's bytes (read from `file`, which locates the errors and
/// the scripts), with its seed replaced if `seed` is given: every rule checked, every error
/// found reported with its place.
pub fn build(file: &Path, bytes: &[u8], seed: Option<u64>) -> Result<Scene, SceneErrors> {
    build_knowing(file, bytes, seed, None)
}

/// [`build`], with the scripts that exist given (`known_scripts`) instead of looked up on the
/// disk when it is `Some` (a rebuild of a scene that built before).
pub(super) fn build_knowing(
    file: &Path,
    bytes: &[u8],
    seed: Option<u64>,
    known_scripts: Option<&BTreeSet<std::path::PathBuf>>,
) -> Result<Scene, SceneErrors> {
    let text = scene_text(file, bytes)?;
    let tree = Tree::parse(text).map_err(|e| single(file, (e.line, e.column), e.message))?;
    let shaped = shape::read::<SceneFile>(&tree);
    let shape_errors: Vec<SceneError> = shaped
        .errors
        .into_iter()
        .map(|e| SceneError {
            file: file.to_path_buf(),
            line: e.line,
            column: e.column,
            message: e.message,
        })
        .collect();
    let Some(mut spec) = shaped.value else {
        return Err(SceneErrors(shape_errors));
    };
    if seed.is_some() {
        spec.seed = seed;
    }
    let mut checker = Checker {
        file,
        tree: &tree,
        poisoned: shaped.poisoned,
        scripts_seen: BTreeMap::new(),
        known_scripts,
        errors: Vec::new(),
    };
    let world = build_world(&mut checker, &spec);
    let budget = check_budget(&mut checker, &spec);
    let mut scripts = check_agents(&mut checker, &spec, world.as_ref());
    let spawned = match &world {
        Some(w) => spawn::place(&mut checker, &spec, w, &mut scripts),
        None => Vec::new(),
    };
    if let Some(w) = &world {
        check_names(&mut checker, &spec, w, &spawned);
    }
    let mut checked = std::mem::take(&mut checker.errors);
    checked.sort();
    checked.dedup();
    // Shape mistakes first where both are at one place; file order overall.
    let mut errors = shape_errors;
    errors.extend(checked);
    errors.sort_by_key(|e| (e.line, e.column));
    match world {
        Some(mut world) if errors.is_empty() => {
            world.agents = spec
                .agents
                .iter()
                .map(|a| make_agent(file, a, spec.seed.unwrap_or(0)))
                .chain(spawned)
                .collect();
            crate::world::share_equal_params(&mut world.agents);
            // Agents a script spawns are made like the first agent or `spawn:` group of their
            // kind in file order, whichever of `agents:` and `spawn:` comes first.
            let order = file_order(&tree, &spec, &world.agents);
            world.take_templates(order);
            world.waypoints = spec
                .waypoints
                .iter()
                .map(|w| IVec2::new(w[0] as i32, w[1] as i32))
                .collect();
            let warnings = route_warnings(&checker, file, &spec, &world);
            Ok(Scene {
                path: file.to_path_buf(),
                world,
                source: super::Source {
                    bytes: bytes.into(),
                    seed,
                },
                scripts,
                budget,
                expect: spec.expect.clone(),
                metrics: spec.metrics.clone(),
                monitors: spec.monitors.clone().unwrap_or_default(),
                tunables: super::tunable::list(&spec),
                groups: spawn::groups(&spec),
                warnings,
            })
        }
        _ => Err(SceneErrors(errors)),
    }
}

/// The scene file's text, if it is UTF-8 text without NUL bytes and not empty.
fn scene_text<'a>(file: &Path, bytes: &'a [u8]) -> Result<&'a str, SceneErrors> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return Err(single(
                file,
                position_of(bytes, e.valid_up_to()),
                "not a text file: scene files are UTF-8 YAML".into(),
            ))
        }
    };
    if text.contains('\0') {
        let at = text.find('\0').unwrap_or(0);
        return Err(single(
            file,
            position_of(bytes, at),
            "not a text file: NUL byte in a scene file".into(),
        ));
    }
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Err(single(
            file,
            (1, 1),
            "scene file is empty: it needs at least a map".into(),
        ));
    }
    Ok(text)
}

/// Checks what names agents and kinds on a built map: spawned ids against the listed ones,
/// `expect:`, `metrics:` and `monitors:`.
fn check_names(c: &mut Checker, spec: &SceneFile, world: &World, spawned: &[Agent]) {
    let mut ids: BTreeSet<&str> = spec.agents.iter().map(|a| a.id.as_str()).collect();
    for (i, a) in spawned.iter().enumerate() {
        if !ids.insert(a.id.as_str()) {
            let entry = spawn::entry_of(spec, i);
            c.error(
                &format!("spawn.{entry}.kind"),
                format!("spawned id `{}` is already an agent's id", a.id),
            );
        }
    }
    let kinds: BTreeSet<&str> = spec.spawn.iter().map(|s| s.kind.as_str()).collect();
    if let Some(expect) = &spec.expect {
        spawn::check_expect(c, expect, world, &ids, &kinds);
    }
    spawn::check_metrics(c, &spec.metrics);
    if let Some(m) = &spec.monitors {
        spawn::check_named_code(c, "monitors.values", &m.values);
        if m.every == Some(0) {
            c.error("monitors.every", "every must be at least 1 tick");
        }
    }
}

/// Limits of `budget:`: enough for real scripts, small enough to stop a runaway soon and keep
/// the process well under 1 GB.
pub(super) const BUDGET_INSTRUCTIONS: std::ops::RangeInclusive<u64> = 10_000..=10_000_000_000;
pub(super) const BUDGET_MEMORY_MB: std::ops::RangeInclusive<u64> = 8..=768;
pub(super) const BUDGET_MAX_AGENTS: std::ops::RangeInclusive<u64> = 1..=1_000_000;
pub(super) const BUDGET_CPU_MS: std::ops::RangeInclusive<u64> = 10..=600_000;

fn check_budget(c: &mut Checker, spec: &SceneFile) -> ScriptBudget {
    let mut budget = ScriptBudget::default();
    let Some(b) = &spec.budget else {
        return budget;
    };
    if let Some(n) = b.instructions {
        if BUDGET_INSTRUCTIONS.contains(&n) {
            budget.instructions = n;
        } else {
            c.error(
                "budget.instructions",
                format!(
                    "budget.instructions must be from {} to {}, got {n}",
                    BUDGET_INSTRUCTIONS.start(),
                    BUDGET_INSTRUCTIONS.end()
                ),
            );
        }
    }
    if let Some(mb) = b.memory_mb {
        if BUDGET_MEMORY_MB.contains(&mb) {
            budget.memory_mb = mb;
        } else {
            c.error(
                "budget.memory_mb",
                format!(
                    "budget.memory_mb must be from {} to {} megabytes, got {mb}",
                    BUDGET_MEMORY_MB.start(),
                    BUDGET_MEMORY_MB.end()
                ),
            );
        }
    }
    if let Some(n) = b.max_agents {
        if BUDGET_MAX_AGENTS.contains(&n) {
            budget.max_agents = n;
        } else {
            c.error(
                "budget.max_agents",
                format!(
                    "budget.max_agents must be from {} to {}, got {n}",
                    BUDGET_MAX_AGENTS.start(),
                    BUDGET_MAX_AGENTS.end()
                ),
            );
        }
    }
    if let Some(ms) = b.cpu_ms {
        if BUDGET_CPU_MS.contains(&ms) {
            budget.cpu_ms = Some(ms);
        } else {
            c.error(
                "budget.cpu_ms",
                format!(
                    "budget.cpu_ms must be from {} to {} milliseconds, got {ms}",
                    BUDGET_CPU_MS.start(),
                    BUDGET_CPU_MS.end()
                ),
            );
        }
    }
    budget
}

pub(super) fn parse_color(text: &str) -> Option<[u8; 3]> {
    let hex = text.strip_prefix('#')?;
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

fn terrain_table(c: &mut Checker, specs: &BTreeMap<String, TerrainSpec>) -> TerrainTable {
    let mut table = TerrainTable::builtin();
    for (name, spec) in specs {
        let path = format!("terrain.{name}");
        let base = table.by_name(name).map(|id| table.get(id).clone());
        let mut terrain = base.unwrap_or(Terrain {
            name: name.clone(),
            blocked: false,
            cost: 1.0,
            color: [0xff, 0x00, 0xff],
        });
        if let Some(b) = spec.blocked {
            terrain.blocked = b;
        }
        if let Some(cost) = spec.cost {
            if cost.is_finite() && cost > 0.0 && cost <= MAX_COST {
                terrain.cost = cost;
            } else {
                c.error(
                    &format!("{path}.cost"),
                    format!("terrain `{name}`: cost must be a number above 0 and at most {MAX_COST}, got {cost}"),
                );
            }
        }
        if let Some(color) = &spec.color {
            match parse_color(color) {
                Some(rgb) => terrain.color = rgb,
                None => c.error(
                    &format!("{path}.color"),
                    format!("terrain `{name}`: color must look like \"#a0522d\", got {color:?}"),
                ),
            }
        }
        if table.define(terrain).is_none() {
            c.error(&path, "too many terrain kinds (at most 256)");
        }
    }
    table
}

fn build_world(c: &mut Checker, spec: &SceneFile) -> Option<World> {
    let mut table = terrain_table(c, &spec.terrain);
    let tick_rate = spec.tick_rate.unwrap_or(30);
    if tick_rate == 0 || tick_rate > MAX_TICK_RATE {
        c.error(
            "tick_rate",
            format!(
                "tick_rate must be from 1 to {MAX_TICK_RATE} ticks per second, got {tick_rate}"
            ),
        );
    }
    let Some(map) = &spec.map else {
        if !c.poisoned("map") {
            c.error_at((1, 1), "scene has no `map`: add `map: { rows: ... }`");
        }
        return None;
    };
    bind_legend(c, &mut table, &map.legend);
    let grid = build_grid(c, &map.rows, &table)?;
    let name = spec.name.clone().unwrap_or_else(|| {
        c.file
            .file_stem()
            .map_or("scene".into(), |s| s.to_string_lossy().into_owned())
    });
    let world = World::new(name, grid, table, tick_rate, spec.seed.unwrap_or(0));
    let most = WaypointTable::MAX_NODES;
    if spec.waypoints.len() > most {
        c.error(
            &format!("waypoints.{most}"),
            format!(
                "too many waypoints: {}, the most is {most} (the route table grows with the cube of their number)",
                spec.waypoints.len()
            ),
        );
    }
    for (i, w) in spec.waypoints.iter().enumerate().take(most) {
        check_tile(c, &world, &format!("waypoints.{i}"), "waypoint", *w);
    }
    Some(world)
}

/// Binds the map's `legend:` characters to their terrain kinds in `table`, reporting a key
/// that is not one character and an unknown terrain.
fn bind_legend(c: &mut Checker, table: &mut TerrainTable, legend: &BTreeMap<String, String>) {
    for (glyph, name) in legend {
        let path = format!("map.legend.{glyph}");
        let mut chars = glyph.chars();
        let (Some(ch), None) = (chars.next(), chars.next()) else {
            let pos = c.tree().key_at(&path);
            c.error_at(
                pos,
                format!("legend keys are single map characters, got {glyph:?}"),
            );
            continue;
        };
        match table.by_name(name) {
            Some(id) => table.bind_glyph(ch, id),
            None => {
                let known: Vec<&str> = table.kinds().iter().map(|t| t.name.as_str()).collect();
                c.error(
                    &path,
                    format!(
                        "unknown terrain `{name}` for {ch:?} (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
    }
}

/// The map's grid from its `rows:` text, or none with the error located: no rows, too large,
/// ragged, or a character the legend does not name.
fn build_grid(c: &mut Checker, rows: &str, table: &TerrainTable) -> Option<Grid> {
    let rows: Vec<&str> = rows
        .split('\n')
        .map(|r| r.strip_suffix('\r').unwrap_or(r))
        .collect();
    let rows: &[&str] = match rows.split_last() {
        Some((&"", rest)) => rest,
        _ => &rows,
    };
    if rows.is_empty() || rows[0].is_empty() {
        c.error("map.rows", "map has no rows");
        return None;
    }
    if rows.len() > MAX_MAP_SIDE || rows[0].chars().count() > MAX_MAP_SIDE {
        c.error(
            "map.rows",
            format!("map is larger than {MAX_MAP_SIDE} tiles on a side"),
        );
        return None;
    }
    match Grid::from_rows(rows, |ch| table.by_glyph(ch)) {
        Ok(g) => Some(g),
        Err(RowError::Ragged { row, len, expected }) => {
            let pos = c.tree().row_char(row, 0);
            c.error_at(
                pos,
                format!("ragged map: row {row} has {len} characters, row 0 has {expected}"),
            );
            None
        }
        // A legend with a shape mistake was left out: its characters are unknown for that.
        Err(RowError::Unknown { .. }) if c.poisoned_under("map.legend") => None,
        Err(RowError::Unknown { row, column, glyph }) => {
            let pos = c.tree().row_char(row, column);
            c.error_at(
                pos,
                format!("unknown map character {glyph:?} at column {column} of row {row}: add it to map.legend"),
            );
            None
        }
    }
}

/// Resolves an agent's or spawn entry's `script` from the scene file's folder; records it in
/// `scripts`, or reports a located error at `{path}.script` if the file is not there.
pub(super) fn resolve_script(
    c: &mut Checker,
    path: &str,
    script: &str,
    scripts: &mut BTreeSet<std::path::PathBuf>,
) -> Option<std::path::PathBuf> {
    // Each script is looked up on disk once: a crowd of 20,000 listed agents shares one.
    let found = match c.scripts_seen.get(script) {
        Some(found) => found.clone(),
        None => {
            let resolved = resolve_relative(c.file, script);
            let exists = match c.known_scripts {
                Some(known) => known.contains(&resolved),
                None => resolved.is_file(),
            };
            let found = exists.then_some(resolved);
            c.scripts_seen.insert(script.to_string(), found.clone());
            found
        }
    };
    if let Some(resolved) = found {
        scripts.insert(resolved.clone());
        Some(resolved)
    } else {
        let resolved = resolve_relative(c.file, script);
        c.error(
            &format!("{path}.script"),
            format!(
                "script not found: {} (paths are relative to the scene file)",
                resolved.display()
            ),
        );
        None
    }
}

/// Checks that `[column, row]` is a free tile; reports at `path`.
pub(super) fn check_tile(c: &mut Checker, world: &World, path: &str, what: &str, at: [i64; 2]) {
    let (w, h) = (world.grid().width() as i64, world.grid().height() as i64);
    if at[0] < 0 || at[1] < 0 || at[0] >= w || at[1] >= h {
        c.error(
            path,
            format!(
                "{what} at [{}, {}] is outside the {w}x{h} map",
                at[0], at[1]
            ),
        );
        return;
    }
    let tile = IVec2::new(at[0] as i32, at[1] as i32);
    if world.is_blocked(tile) {
        let name = world.terrain_at(tile).map_or("?", |t| t.name.as_str());
        c.error(
            path,
            format!(
                "{what} at [{}, {}] is on a blocked tile ({name})",
                at[0], at[1]
            ),
        );
    }
}

/// Checks a `size: N` body: N from 1 to `MAX_BODY`, and the N x N cells from `at` (its top-left
/// tile) inside the map and free.
fn check_body(c: &mut Checker, world: &World, path: &str, agent: &AgentSpec, size: u32) {
    if !(1..=MAX_BODY).contains(&size) {
        c.error(
            &format!("{path}.size"),
            format!("size must be from 1 to {MAX_BODY} tiles, got {size}"),
        );
        return;
    }
    for dy in 0..size as i64 {
        for dx in 0..size as i64 {
            let (x, y) = (agent.at[0] + dx, agent.at[1] + dy);
            let tile = IVec2::new(x as i32, y as i32);
            if x < 0 || y < 0 || !world.in_bounds(tile) || world.is_blocked(tile) {
                c.error(
                    &format!("{path}.size"),
                    format!(
                        "agent `{}`: a {size}x{size} body at [{}, {}] does not fit: [{x}, {y}] is {}",
                        agent.id,
                        agent.at[0],
                        agent.at[1],
                        if world.in_bounds(tile) && x >= 0 && y >= 0 { "blocked" } else { "outside the map" }
                    ),
                );
                return;
            }
        }
    }
}

fn check_agents(
    c: &mut Checker,
    spec: &SceneFile,
    world: Option<&World>,
) -> BTreeSet<std::path::PathBuf> {
    let mut scripts = BTreeSet::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, agent) in spec.agents.iter().enumerate() {
        let path = format!("agents.{i}");
        check_agent(c, &path, agent, world, &mut scripts);
        if let Some(first) = seen.insert(agent.id.as_str(), i) {
            c.error(
                &format!("{path}.id"),
                format!("duplicate agent id `{}` (also agent {first})", agent.id),
            );
        }
    }
    scripts
}

fn check_agent(
    c: &mut Checker,
    path: &str,
    agent: &AgentSpec,
    world: Option<&World>,
    scripts: &mut BTreeSet<std::path::PathBuf>,
) {
    if agent.id.trim().is_empty() {
        c.error(&format!("{path}.id"), "agent id must not be empty");
    }
    // An `at` with a shape mistake stands in as [0, 0]: nothing to check there.
    let placed = !c.poisoned(&format!("{path}.at"));
    if let (Some(world), true) = (world, placed) {
        check_tile(
            c,
            world,
            &format!("{path}.at"),
            &format!("agent `{}`", agent.id),
            agent.at,
        );
    }
    if let Some(speed) = agent.speed {
        if !(speed.is_finite() && (0.0..=MAX_SPEED).contains(&speed)) {
            c.error(
                &format!("{path}.speed"),
                format!("speed must be from 0 to {MAX_SPEED} tiles per second, got {speed}"),
            );
        }
    }
    if let (Some(size), Some(world), true) = (agent.size, world, placed) {
        check_body(c, world, path, agent, size);
    }
    if let Some(sense) = agent.sense {
        if !(sense.is_finite() && (0.0..=MAX_SPEED).contains(&sense)) {
            c.error(
                &format!("{path}.sense"),
                format!("sense must be from 0 to {MAX_SPEED} tiles, got {sense}"),
            );
        }
    }
    if let Some(n) = agent.breadcrumbs {
        if n > MAX_CRUMBS {
            c.error(
                &format!("{path}.breadcrumbs"),
                format!("breadcrumbs must be at most {MAX_CRUMBS}"),
            );
        }
    }
    check_motion(c, path, agent, world);
    agent_body(agent).check(c, path, agent.motion.as_deref() == Some("tiles"));
    agent_look(agent).check(c, path);
    if let Some(params) = &agent.params {
        if !params.is_object() {
            c.error(
                &format!("{path}.params"),
                "params must be a mapping, e.g. { prey: player }",
            );
        }
        super::tunable::check(c, &format!("{path}.params"), params);
    }
    match (&agent.script, &agent.control) {
        (Some(_), Some(_)) => c.error(
            &format!("{path}.control"),
            "an agent has either a script or a control, not both",
        ),
        (_, Some(control)) if control != "keyboard" => c.error(
            &format!("{path}.control"),
            format!("unknown control {control:?}: the only control is \"keyboard\""),
        ),
        (Some(script), None) => {
            resolve_script(c, path, script, scripts);
        }
        _ => {}
    }
}

/// Most degrees per second a `turn_rate` may be.
pub(super) const MAX_TURN_RATE: f64 = 36_000.0;

/// The motion keys: `motion`, `directions`, `turn_rate` and a keyboard agent's `route`.
fn check_motion(c: &mut Checker, path: &str, agent: &AgentSpec, world: Option<&World>) {
    let tiles = match agent.motion.as_deref() {
        None | Some("free") => false,
        Some("tiles") => true,
        Some(other) => {
            c.error(
                &format!("{path}.motion"),
                format!("unknown motion {other:?}: use \"free\" or \"tiles\""),
            );
            false
        }
    };
    if let Some(n) = agent.directions {
        if n != 4 && n != 8 {
            c.error(
                &format!("{path}.directions"),
                format!("directions must be 4 or 8, got {n}"),
            );
        } else if !tiles {
            c.error(
                &format!("{path}.directions"),
                "directions only applies to `motion: tiles`",
            );
        }
    }
    if let Some(rate) = agent.turn_rate {
        if !(rate.is_finite() && rate > 0.0 && rate <= MAX_TURN_RATE) {
            c.error(
                &format!("{path}.turn_rate"),
                format!("turn_rate must be above 0 and at most {MAX_TURN_RATE} degrees per second, got {rate}"),
            );
        } else if tiles {
            c.error(
                &format!("{path}.turn_rate"),
                "turn_rate only applies to free motion (tile-stepping agents turn on the spot)",
            );
        }
    }
    if let Some(route) = &agent.route {
        if agent.control.as_deref() != Some("keyboard") {
            c.error(
                &format!("{path}.route"),
                "route is the scripted walk of a `control: keyboard` agent; scripted agents move from their script",
            );
        }
        if let Some(world) = world {
            for (i, at) in route.iter().enumerate() {
                check_tile(
                    c,
                    world,
                    &format!("{path}.route.{i}"),
                    &format!("route point {i} of `{}`", agent.id),
                    *at,
                );
            }
        }
    }
}

/// How far apart, in tiles, [`leg_hits_wall`] looks along a leg.
const LEG_STEP: f64 = 0.05;

/// The first point of the straight walk from `from` to `to` where a body of `radius` touches
/// a wall (or leaves the map), looked for every [`LEG_STEP`] tiles.
fn leg_hits_wall(world: &World, from: DVec2, to: DVec2, radius: f64) -> Option<DVec2> {
    let steps = (from.distance(to) / LEG_STEP).ceil().max(1.0) as u32;
    (0..=steps)
        .map(|s| from.lerp(to, s as f64 / steps as f64))
        .find(|&p| world.circle_hits_wall(p, radius))
}

/// A warning for each leg of a keyboard agent's `route:` (from where it stands to the first
/// point, then point to point) that runs into a wall: the walk goes straight, so the agent
/// would slide along the wall instead of following the route.
fn route_warnings(
    checker: &Checker,
    file: &Path,
    spec: &SceneFile,
    world: &World,
) -> Vec<SceneWarning> {
    let mut out = Vec::new();
    for (i, (a, agent)) in spec.agents.iter().zip(&world.agents).enumerate() {
        let Some(route) = &a.route else { continue };
        let mut from = agent.pos;
        for (k, point) in route.iter().enumerate() {
            let to = DVec2::new(point[0] as f64, point[1] as f64);
            if let Some(hit) = leg_hits_wall(world, from, to, agent.radius) {
                // The locator is built only when there is something to locate.
                let (line, column) = checker.tree().at(&format!("agents.{i}.route.{k}"));
                // The blocked tile (or the tile off the map) the body touches there.
                let at = tile_of(hit);
                let near = (-1..=1)
                    .flat_map(|dy| (-1..=1).map(move |dx| at + IVec2::new(dx, dy)))
                    .filter(|&t| world.is_blocked(t))
                    .min_by(|&a, &b| {
                        let d = |t: IVec2| {
                            let c = DVec2::new(t.x as f64, t.y as f64);
                            hit.clamp(c - 0.5, c + 0.5).distance_squared(hit)
                        };
                        d(a).total_cmp(&d(b))
                    })
                    .unwrap_or(at);
                out.push(SceneWarning(SceneError {
                    file: file.to_path_buf(),
                    line,
                    column,
                    message: format!(
                        "the route of `{}` from [{}, {}] to [{}, {}] runs into a wall near [{}, {}]; the walk is straight, so the agent will slide along the wall",
                        agent.id, from.x, from.y, to.x, to.y, near.x, near.y
                    ),
                }));
            }
            from = to;
        }
    }
    out
}

/// An agent entry's body keys.
fn agent_body(spec: &AgentSpec) -> super::body::BodyKeys {
    super::body::BodyKeys {
        radius: spec.radius,
        max_force: spec.max_force,
        avoid: spec.avoid,
        avoid_horizon: spec.avoid_horizon,
    }
}

/// An agent entry's display keys.
fn agent_look(spec: &AgentSpec) -> super::look::LookKeys<'_> {
    super::look::LookKeys {
        color: spec.color.as_deref(),
        shape: spec.shape.as_deref(),
    }
}

fn make_agent(file: &Path, spec: &AgentSpec, seed: u64) -> Agent {
    let mut agent = Agent::new(
        spec.id.clone(),
        IVec2::new(spec.at[0] as i32, spec.at[1] as i32),
    );
    if let Some(kind) = &spec.kind {
        agent.kind = kind.clone();
    }
    if let Some(speed) = spec.speed {
        agent.speed = speed;
    }
    if let Some(params) = &spec.params {
        agent.params = crate::world::Params::new(super::tunable::plain(params));
    }
    agent.sense = spec.sense;
    agent.size = spec.size.unwrap_or(1);
    agent.crumbs = Crumbs {
        max: spec.breadcrumbs.unwrap_or(0) as usize,
        ..Default::default()
    };
    agent.crumbs.drop_on(agent.tile());
    agent.motion = match spec.motion.as_deref() {
        Some("tiles") => Motion::Tiles {
            diagonal: spec.directions != Some(4),
        },
        _ => Motion::Free,
    };
    agent.turn_rate = spec.turn_rate.map(f64::to_radians);
    agent_body(spec).apply(&mut agent);
    agent.look = agent_look(spec).look();
    agent.walk = Walk {
        tiles: spec
            .route
            .iter()
            .flatten()
            .map(|t| IVec2::new(t[0] as i32, t[1] as i32))
            .collect(),
        next: 0,
    };
    agent.rng = rng::AgentRng::new(seed, &agent.id);
    agent.brain = match (&spec.script, &spec.control) {
        (Some(script), _) => Brain::Script(resolve_relative(file, script).into()),
        (None, Some(_)) => Brain::Keyboard,
        (None, None) => Brain::None,
    };
    agent
}
