//! The Lua API: the `world` object handed to `decide`, and the `move` and `nav` tables.
//! Every function here reads the world of the tick being decided; none changes it.
//!
//! `move.*` (each returns an action for `decide` to return; a target is an agent view, an
//! agent id or a position `{x, y}`):
//! - `stop()`, `chase(t)`, `evade(t)`, `to(pos)`, `path_to(tile, opts)`: the first five.
//! - `basic_chase(t)`, `basic_evade(t)`: each axis one unit towards / away per step.
//! - `los_chase(t)`: Bresenham path on tiles, rebuilt when the target moves (free agents:
//!   straight at the target).
//! - `intercept(t)`: chase the point `St = Sprey + Vprey * |Sr| / |Vr|`.
//! - `potential{target = t, A = 200, B = 50, n = 1, m = 2, obstacle = 2, range = 3}`:
//!   Lennard-Jones `U = -A/r^n + B/r^m`; evade with `A = 0`.
//! - `swarm{kind = k, A = 100, B = 200, n = 1, m = 2, target = t, target_A = 20, target_B = 0,
//!   target_n = 1, target_m = 2, obstacle = 2, range = 8}`: every other agent of kind `k`
//!   within `range` with (A, B, n, m), an optional leader with the `target_` values.
//! - `wander_avoid(t)`: straight at `t` while in sight, a random step otherwise.
//! - `trace_around(goal, {variant = "improved" | "basic" | "sight", hand = "left" | "right"})`.
//! - `follow_crumbs(leader, {trail = 15})`: the newest of at most `trail` crumbs first.
//! - `follow_road{terrain = "road"}`, `wall_trace{hand = "left" | "right"}`.
//!
//! Coordinates (see `convert.rs`): NaN and infinities are errors naming the argument; points
//! and tiles off the map are bounded to one tile off it (`World::bound_pos`) before a `move.*`
//! primitive, a `nav.*` query or a `world` tile query uses them; `world:nearest` and
//! `world:agents` measure from the point as given (the spatial index bounds their work).
//!
//! Navigation, as scripts see it (tiles are `{x, y}` or `{x = , y = }` or agent views):
//! - `nav.path(from, to, opts)` → `path, info`: the list of tiles from `from` to `to` (both
//!   included) or `nil`, and `info = {cost, expanded, complete, jps, open, closed}` (`open` and
//!   `closed` only with `sets = true`). No path when an end is blocked (for the body) or off the
//!   map, or the goal cannot be reached.
//! - `move.path_to(goal, opts)`: follow such a route natively; re-planned when the goal, the
//!   options or the map change. The agent's scene `size` is used when `opts.size` is smaller.
//! - `opts` (every key optional; unknown keys and values are errors):
//!   `diagonal` = `"no_corner_cutting"` (default: both side cells free, as MovingAI),
//!   `"one_side"` (one side cell free), `"always"`, `"never"` (4-connected);
//!   `heuristic` = `"octile"` (default, admissible), `"manhattan"` (the source's; with diagonal
//!   steps it overestimates and paths may be longer than optimal), `"euclidean"`, `"zero"`
//!   (Dijkstra); `costs` = `"exact"` (default: 1 straight, sqrt 2 diagonal) or `"source"` (10
//!   and 14, as classic A* tutorials), times the terrain cost of the cell entered; `size` = N
//!   (an N x N body whose top-left cell is the tile; it only stands where all its cells are free and pays the
//!   dearest one); `ignore_terrain = true` (every free cell costs 1); `max_expanded` = N (stop
//!   after N expansions and return the path to the closest node reached, `info.complete` false);
//!   `algorithm` = `"auto"` (default: jump point search where it is exact — uniform terrain,
//!   size 1, no corner cutting, octile or zero, no limit — else A*), `"astar"`, `"jps"` (same
//!   as auto); `sets = true` (return the open and closed sets in `info`).
//! - `nav.los(a, b)`, `nav.line(a, b)`: line of sight and Bresenham cells. A line that only
//!   grazes a wall's corner does not see past it: a diagonal step of the line needs both side
//!   cells free, the rule movement uses, so an agent can walk every line it can see.
//! - `nav.waypoint_route(from, to)` → `{from, node, ..., to}` or `nil`: the nearest node `from`
//!   sees, the node table's route to the node nearest `to` that sees it, then `to`.
//! - `move.waypoints(goal)`: travel that route (each leg along its Bresenham line).
//! - `move.tank_to(goal)`: the tank-battle A*: plans for the agent's `size` body with 4
//!   directions, cost 1 a step, Manhattan estimate, and drives turn-and-drive legs; with no
//!   route it stays put.

use super::convert::{make_action, tile_list, to_point, to_pos, to_target, to_tile, Arg};
use super::errors::located;
use super::hot;
use super::views;
use agentbox_core::nav::{self, Algorithm, Diagonal, Heuristic, Line, PathOptions, StepCosts};
use agentbox_core::world::{
    Action, Hand, LennardJones, PotentialSpec, Target, TraceVariant, World,
};
use mlua::{IntoLuaMulti, Lua, Table, Value, Variadic};
use std::rc::Rc;

/// Runs `f` with the world lent to Lua (`lent.rs`), or fails with a clear message outside a
/// decision.
pub(super) fn with_world<R>(
    lua: &Lua,
    what: &str,
    f: impl FnOnce(&World) -> mlua::Result<R>,
) -> mlua::Result<R> {
    let outside = || {
        located(
            lua,
            format!("{what} can only be used inside init or decide"),
        )
    };
    let lent = super::lent::of(lua).ok_or_else(outside)?;
    lent.with(f).ok_or_else(outside)?
}

/// The `world` argument of `decide`: an empty, locked table whose metatable's `__index` holds
/// the query methods (a table, so `world:nearest` is a plain field lookup; the methods ignore
/// their `self`).
pub fn world_table(lua: &Lua) -> mlua::Result<Table> {
    let methods = lua.create_table()?;
    {
        methods.raw_set(
            "agent",
            lua.create_function(|lua, (_, id): (Value, String)| {
                with_world(lua, "world:agent", |w| match w.agent_index(&id) {
                    Some(i) => Ok(Value::Table(views::get(lua)?.view(lua, w, i)?)),
                    None => Ok(Value::Nil),
                })
            })?,
        )?;
        methods.raw_set(
            "agents",
            lua.create_function(|lua, (_, filter): (Value, Option<Table>)| {
                let (kind, within, around): (Option<String>, Option<f64>, Value) = match &filter {
                    Some(f) => (f.get("kind")?, f.get("within")?, f.get("around")?),
                    None => (None, None, Value::Nil),
                };
                with_world(lua, "world:agents", |w| {
                    let list = lua.create_table()?;
                    let picked: Vec<usize> = match within {
                        None => {
                            // A pass over every agent.
                            charge(lua, w.agents.len() as u64 / 4)?;
                            (0..w.agents.len())
                                .filter(|&i| kind.as_deref().is_none_or(|k| w.agents[i].kind == k))
                                .collect()
                        }
                        Some(r) => {
                            if !(r.is_finite() && r >= 0.0) {
                                return Err(located(
                                    lua,
                                    "world:agents: within must be a distance in tiles, 0 or more",
                                ));
                            }
                            let (centre, exclude) = match &around {
                                Value::Nil => deciding_agent(lua, w, "world:agents")?,
                                v => (
                                    to_pos(lua, v, Arg::field("world:agents", 1, "around"))?,
                                    own_index(lua, w, v)?,
                                ),
                            };
                            w.agents_within(centre, r, kind.as_deref(), exclude)
                        }
                    };
                    // Each view handed out.
                    charge(lua, 8 * picked.len() as u64)?;
                    let views = views::get(lua)?;
                    for (n, i) in picked.into_iter().enumerate() {
                        list.raw_set(n + 1, views.view(lua, w, i)?)?;
                    }
                    Ok(list)
                })
            })?,
        )?;
        // Any arguments (the raw entry reads the deciding agent's `self` itself); the query
        // is `hot::nearest_of`, for both.
        let full = lua.create_function(
            |lua, (_, from, kind): (Value, Value, Option<mlua::LuaString>)| {
                with_world(lua, "world:nearest", |w| {
                    let views = views::get(lua)?;
                    let from = match views.deciding() {
                        Some((_, i)) if views.is_deciding_self(&from) => hot::From::Agent(i),
                        _ => hot::From::Point(
                            to_pos(lua, &from, Arg::new("world:nearest", 1))?,
                            own_index(lua, w, &from)?,
                        ),
                    };
                    let kind = kind.as_ref().map(|k| k.as_bytes());
                    match hot::nearest_of(w, from, kind.as_deref()) {
                        Some((i, distance)) => {
                            (views.view(lua, w, i)?, distance).into_lua_multi(lua)
                        }
                        None => Value::Nil.into_lua_multi(lua),
                    }
                })
            },
        )?;
        methods.raw_set(
            "nearest",
            super::hot::nearest(lua, &super::hot::get(lua)?, full)?,
        )?;
        // Read every tick by many scripts: raw C functions, a few dozen instructions each.
        methods.raw_set("tick", hot::world_number(lua, hot::Number::Tick)?)?;
        methods.raw_set("time", hot::world_number(lua, hot::Number::Time)?)?;
        methods.raw_set(
            "size",
            lua.create_function(|lua, _: Value| {
                with_world(lua, "world:size", |w| {
                    Ok((w.grid().width(), w.grid().height()))
                })
            })?,
        )?;
        methods.raw_set(
            "terrain",
            lua.create_function(|lua, (_, args): (Value, Variadic<Value>)| {
                with_world(lua, "world:terrain", |w| {
                    let tile = tile_arg(lua, w, &args, "world:terrain")?;
                    Ok(w.terrain_at(tile).map(|t| t.name.clone()))
                })
            })?,
        )?;
        methods.raw_set(
            "blocked",
            lua.create_function(|lua, (_, args): (Value, Variadic<Value>)| {
                with_world(lua, "world:blocked", |w| {
                    Ok(w.is_blocked(tile_arg(lua, w, &args, "world:blocked")?))
                })
            })?,
        )?;
        methods.raw_set(
            "crumbs",
            lua.create_function(|lua, (_, id): (Value, String)| {
                with_world(lua, "world:crumbs", |w| match w.agent(&id) {
                    Some(a) => tile_list(lua, &a.crumbs.tiles),
                    None => Err(located(
                        lua,
                        format!("world:crumbs: no agent with id {id:?}"),
                    )),
                })
            })?,
        )?;
        methods.raw_set(
            "goal",
            lua.create_function(|lua, _: Value| {
                with_world(lua, "world:goal", |w| match w.goal {
                    Some(tile) => Ok(Value::Table(super::convert::tile_table(lua, tile)?)),
                    None => Ok(Value::Nil),
                })
            })?,
        )?;
        methods.raw_set(
            "memory",
            lua.create_function(|lua, (_, id): (Value, String)| {
                if views::get(lua)?.deciding().is_some() {
                    return Err(located(
                        lua,
                        "world:memory is for expect: and metrics:, not agents' scripts: an agent cannot read another's memory (share what it sees through its actions, or keep your own in self.memory)",
                    ));
                }
                with_world(lua, "world:memory", |_| {
                    let selves: Option<Table> =
                        lua.named_registry_value(super::SELVES).ok().flatten();
                    let this: Option<Table> = match selves {
                        Some(t) => t.raw_get(id.as_str())?,
                        None => None,
                    };
                    match this {
                        Some(this) => match this.raw_get::<Value>("memory")? {
                            Value::Nil => super::memory::read_only_copy(
                                lua,
                                &Value::Table(lua.create_table()?),
                            ),
                            memory => super::memory::read_only_copy(lua, &memory),
                        },
                        None => {
                            let json = lua
                                .app_data_ref::<super::memory::Snapshot>()
                                .and_then(|s| s.0.get(&id).cloned());
                            match json {
                                Some(json) => {
                                    let value = super::convert::json_to_lua(lua, &json)?;
                                    super::memory::read_only_copy(lua, &value)
                                }
                                None => Ok(Value::Nil),
                            }
                        }
                    }
                })
            })?,
        )?;
        methods.raw_set(
            "waypoints",
            lua.create_function(|lua, _: Value| {
                with_world(lua, "world:waypoints", |w| tile_list(lua, &w.waypoints))
            })?,
        )?;
    }
    let world = lua.create_table()?;
    let meta = lua.create_table()?;
    meta.raw_set("__index", methods)?;
    meta.raw_set(
        "__newindex",
        lua.create_function(|lua, _: mlua::MultiValue| -> mlua::Result<()> {
            Err(located(lua, "world is read-only"))
        })?,
    )?;
    meta.raw_set("__metatable", "world")?;
    world.set_metatable(Some(meta))?;
    super::sandbox::protect(lua, &world, "world")?;
    Ok(world)
}

/// The agent a view table (with an `id`) stands for, so queries around it leave it out.
fn own_index(lua: &Lua, w: &World, from: &Value) -> mlua::Result<Option<usize>> {
    if let Value::Table(t) = from {
        let views = views::get(lua)?;
        // A view (its `id` is read through its metatable, never raw).
        if let Some(i) = views.index_of(t.to_pointer()) {
            return Ok(Some(i));
        }
        // A `self` (its `id` is raw).
        if let Value::String(id) = t.raw_get::<Value>(&views.names[views::ID])? {
            return Ok(w.agent_index(&id.to_str()?));
        }
    }
    Ok(None)
}

/// Where the agent deciding now stands, and its index (queries around it leave it out).
fn deciding_agent(lua: &Lua, w: &World, what: &str) -> mlua::Result<(glam::DVec2, Option<usize>)> {
    match views::get(lua)?.deciding() {
        Some((_, i)) if i < w.agents.len() => Ok((w.agents[i].pos, Some(i))),
        _ => Err(located(
            lua,
            format!("{what}: `within` needs `around` (a position or an agent) outside decide"),
        )),
    }
}

/// A tile from `(x, y)` numbers or one position argument, bounded to within one tile of the
/// map as every tile a script hands over (off the map stays off it); numbers must be finite.
fn tile_arg(lua: &Lua, w: &World, args: &[Value], what: &str) -> mlua::Result<glam::IVec2> {
    match args {
        [Value::Integer(_) | Value::Number(_), Value::Integer(_) | Value::Number(_), ..] => {
            let mut xy = [0.0; 2];
            for (i, (name, v)) in ["x", "y"].iter().zip(args).enumerate() {
                let n = match v {
                    Value::Integer(n) => *n as f64,
                    Value::Number(n) => *n,
                    _ => 0.0,
                };
                if !n.is_finite() {
                    return Err(located(
                        lua,
                        format!(
                            "{}: {name} is not a finite number (got {})",
                            Arg::new(what, i as u8 + 1),
                            super::convert::lua_number(n)
                        ),
                    ));
                }
                xy[i] = n;
            }
            let p = glam::DVec2::new(xy[0], xy[1]);
            Ok(agentbox_core::world::tile_of(w.bound_pos(p).unwrap_or(p)))
        }
        [v, ..] => to_tile(lua, v, Arg::new(what, 1)),
        [] => Err(located(lua, format!("{what}: expected a tile"))),
    }
}

/// An action to hand back to Lua: made (and listed in the action book) when converted.
struct NewAction(Action);

impl mlua::IntoLua for NewAction {
    fn into_lua(self, lua: &Lua) -> mlua::Result<Value> {
        make_action(lua, self.0).map(Value::UserData)
    }
}

fn action(a: Action) -> NewAction {
    NewAction(a)
}

/// The `move` table: each function returns an action for `decide` to return.
pub fn move_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    // Actions are read-only, so every call of a parameterless one returns the same object.
    let stop = make_action(lua, Action::Stop)?;
    t.set("stop", lua.create_function(move |_, ()| Ok(stop.clone()))?)?;
    t.set("chase", target_fn(lua, "move.chase", Action::Chase)?)?;
    t.set("evade", target_fn(lua, "move.evade", Action::Evade)?)?;
    t.set("flow_to", target_fn(lua, "move.flow_to", Action::FlowTo)?)?;
    t.set(
        "to",
        lua.create_function(|lua, point: Value| {
            Ok(action(Action::To(to_point(
                lua,
                &point,
                Arg::new("move.to", 1),
            )?)))
        })?,
    )?;
    t.set(
        "path_to",
        lua.create_function(|lua, (goal, opts): (Value, Option<Table>)| {
            let goal = to_tile(lua, &goal, Arg::new("move.path_to", 1))?;
            let opts = path_options(lua, opts, "move.path_to")?;
            Ok(action(Action::PathTo(goal, Box::new(opts))))
        })?,
    )?;
    t.set(
        "waypoints",
        lua.create_function(|lua, goal: Value| {
            Ok(action(Action::Waypoints(to_tile(
                lua,
                &goal,
                Arg::new("move.waypoints", 1),
            )?)))
        })?,
    )?;
    t.set(
        "tank_to",
        lua.create_function(|lua, goal: Value| {
            Ok(action(Action::TankTo(to_tile(
                lua,
                &goal,
                Arg::new("move.tank_to", 1),
            )?)))
        })?,
    )?;
    add_primitives(lua, &t)?;
    Ok(t)
}

/// A `move.*` function taking a target and returning an action built from it.
fn target_fn(
    lua: &Lua,
    name: &'static str,
    make: fn(Target) -> Action,
) -> mlua::Result<mlua::Function> {
    let hot = hot::get(lua)?;
    let actions = lua.create_table()?;
    let cache = hot.new_cache(make, &actions);
    let kept = actions.clone();
    let context = Rc::clone(&hot);
    let full = lua.create_function(move |lua, target: Value| {
        with_world(lua, name, |w| {
            let hot = &context;
            match hot.view_index(&target) {
                // A view of this round stands for its agent whatever its fields say now.
                Some(j) => {
                    let Some(target) = hot::target_of(w, j) else {
                        return make_action(
                            lua,
                            make(to_target(lua, w, &target, Arg::new(name, 1))?),
                        );
                    };
                    let ud = make_action(lua, make(target))?;
                    hot::remember(hot, &kept, cache, j, &ud)?;
                    Ok(ud)
                }
                None => make_action(lua, make(to_target(lua, w, &target, Arg::new(name, 1))?)),
            }
        })
    })?;
    hot::target(lua, &hot, full, cache, actions)
}

/// Reads an optional number from an options table, checked against a range.
fn number(
    lua: &Lua,
    opts: Option<&Table>,
    key: &str,
    default: f64,
    what: &str,
    ok: impl Fn(f64) -> bool,
    rule: &str,
) -> mlua::Result<f64> {
    let Some(opts) = opts else { return Ok(default) };
    match opts.get::<Value>(key)? {
        Value::Nil => Ok(default),
        Value::Integer(i) if ok(i as f64) => Ok(i as f64),
        Value::Number(n) if n.is_finite() && ok(n) => Ok(n),
        other => Err(located(
            lua,
            format!(
                "{what}: {key} must be {rule}, got {}",
                match other {
                    Value::Integer(i) => i.to_string(),
                    Value::Number(n) => n.to_string(),
                    v => v.type_name().to_string(),
                }
            ),
        )),
    }
}

/// The Lennard-Jones parameters `A`, `B`, `n`, `m` of an options table (keys may be prefixed,
/// e.g. `target_A`).
fn lennard_jones(
    lua: &Lua,
    opts: &Table,
    prefix: &str,
    default: LennardJones,
    what: &str,
) -> mlua::Result<LennardJones> {
    let any = |x: f64| x.is_finite() && x.abs() <= 1e9;
    let exponent = |x: f64| x > 0.0 && x <= 12.0;
    Ok(LennardJones {
        a: number(
            lua,
            Some(opts),
            &format!("{prefix}A"),
            default.a,
            what,
            any,
            "a number",
        )?,
        b: number(
            lua,
            Some(opts),
            &format!("{prefix}B"),
            default.b,
            what,
            any,
            "a number",
        )?,
        n: number(
            lua,
            Some(opts),
            &format!("{prefix}n"),
            default.n,
            what,
            exponent,
            "above 0 and at most 12",
        )?,
        m: number(
            lua,
            Some(opts),
            &format!("{prefix}m"),
            default.m,
            what,
            exponent,
            "above 0 and at most 12",
        )?,
    })
}

/// The chase defaults: strong attraction, a little repulsion, balanced half a tile away.
const CHASE_LJ: LennardJones = LennardJones {
    a: 200.0,
    b: 50.0,
    n: 1.0,
    m: 2.0,
};
/// The swarm defaults: mates settle 4 tiles apart (`r = m B / (n A)`).
const SWARM_LJ: LennardJones = LennardJones {
    a: 100.0,
    b: 200.0,
    n: 1.0,
    m: 2.0,
};

fn optional_target(lua: &Lua, w: &World, opts: &Table, what: &str) -> mlua::Result<Option<Target>> {
    match opts.get::<Value>("target")? {
        Value::Nil => Ok(None),
        v => Ok(Some(to_target(lua, w, &v, Arg::field(what, 1, "target"))?)),
    }
}

fn obstacle_and_range(lua: &Lua, opts: &Table, what: &str, range: f64) -> mlua::Result<(f64, f64)> {
    Ok((
        number(
            lua,
            Some(opts),
            "obstacle",
            2.0,
            what,
            |x| (0.0..=1e6).contains(&x),
            "from 0 to 1000000",
        )?,
        number(
            lua,
            Some(opts),
            "range",
            range,
            what,
            |x| x > 0.0 && x <= 64.0,
            "above 0 and at most 64 tiles",
        )?,
    ))
}

/// The `hand` option: "left" (the default, as in the book) or "right".
fn hand_option(lua: &Lua, opts: Option<&Table>, what: &str) -> mlua::Result<Hand> {
    let hand = match opts {
        Some(o) => o.get::<Option<String>>("hand")?,
        None => None,
    };
    match hand.as_deref() {
        None | Some("left") => Ok(Hand::Left),
        Some("right") => Ok(Hand::Right),
        Some(other) => Err(located(
            lua,
            format!("{what}: hand must be \"left\" or \"right\", got {other:?}"),
        )),
    }
}

/// The primitives of `docs/algorithms.md` beyond the first five.
fn add_primitives(lua: &Lua, t: &Table) -> mlua::Result<()> {
    t.set(
        "basic_chase",
        target_fn(lua, "move.basic_chase", Action::BasicChase)?,
    )?;
    t.set(
        "basic_evade",
        target_fn(lua, "move.basic_evade", Action::BasicEvade)?,
    )?;
    t.set(
        "los_chase",
        target_fn(lua, "move.los_chase", Action::LosChase)?,
    )?;
    t.set(
        "intercept",
        target_fn(lua, "move.intercept", Action::Intercept)?,
    )?;
    t.set(
        "wander_avoid",
        target_fn(lua, "move.wander_avoid", Action::WanderAvoid)?,
    )?;
    t.set(
        "potential",
        lua.create_function(|lua, opts: Table| {
            let what = "move.potential";
            with_world(lua, what, |w| {
                let target = optional_target(lua, w, &opts, what)?;
                if target.is_none() {
                    return Err(located(lua, "move.potential: needs a target, e.g. move.potential{target = prey}; use move.swarm for a swarm"));
                }
                let lj = lennard_jones(lua, &opts, "", CHASE_LJ, what)?;
                let (obstacle, range) = obstacle_and_range(lua, &opts, what, 3.0)?;
                Ok(action(Action::Potential(Box::new(PotentialSpec {
                    target,
                    lj,
                    swarm: None,
                    swarm_lj: SWARM_LJ,
                    obstacle,
                    range,
                }))))
            })
        })?,
    )?;
    t.set(
        "swarm",
        lua.create_function(|lua, opts: Table| {
            let what = "move.swarm";
            with_world(lua, what, |w| {
                let kind: String = match opts.get::<Value>("kind")? {
                    Value::String(s) => s.to_str()?.to_string(),
                    _ => return Err(located(lua, "move.swarm: needs the kind of the swarm's members, e.g. move.swarm{kind = \"bird\"}")),
                };
                let swarm_lj = lennard_jones(lua, &opts, "", SWARM_LJ, what)?;
                let target = optional_target(lua, w, &opts, what)?;
                let target_lj = lennard_jones(
                    lua,
                    &opts,
                    "target_",
                    LennardJones { a: 20.0, b: 0.0, n: 1.0, m: 2.0 },
                    what,
                )?;
                let (obstacle, range) = obstacle_and_range(lua, &opts, what, 8.0)?;
                Ok(action(Action::Potential(Box::new(PotentialSpec {
                    target,
                    lj: target_lj,
                    swarm: Some(kind),
                    swarm_lj,
                    obstacle,
                    range,
                }))))
            })
        })?,
    )?;
    t.set(
        "trace_around",
        lua.create_function(|lua, (goal, opts): (Value, Option<Table>)| {
            let what = "move.trace_around";
            with_world(lua, what, |w| {
                let goal = to_target(lua, w, &goal, Arg::new(what, 1))?;
                let variant = match opts
                    .as_ref()
                    .map(|o| o.get::<Option<String>>("variant"))
                    .transpose()?
                    .flatten()
                    .as_deref()
                {
                    None | Some("improved") => TraceVariant::Improved,
                    Some("basic") => TraceVariant::Basic,
                    Some("sight") => TraceVariant::Sight,
                    Some(other) => {
                        return Err(located(
                            lua,
                            format!(
                                "{what}: variant must be basic, improved or sight, got {other:?}"
                            ),
                        ))
                    }
                };
                let hand = hand_option(lua, opts.as_ref(), what)?;
                Ok(action(Action::TraceAround {
                    goal,
                    variant,
                    hand,
                }))
            })
        })?,
    )?;
    t.set(
        "follow_crumbs",
        lua.create_function(|lua, (leader, opts): (Value, Option<Table>)| {
            let what = "move.follow_crumbs";
            with_world(lua, what, |w| {
                let Target::Agent(leader) = to_target(lua, w, &leader, Arg::new(what, 1))? else {
                    return Err(located(
                        lua,
                        "move.follow_crumbs: give the agent (or its id) whose crumbs to follow",
                    ));
                };
                let trail = number(
                    lua,
                    opts.as_ref(),
                    "trail",
                    agentbox_core::movement::crumbs::BOOK_TRAIL_LENGTH as f64,
                    what,
                    |x| (1.0..=100_000.0).contains(&x) && x.fract() == 0.0,
                    "a whole number from 1 to 100000",
                )? as usize;
                Ok(action(Action::FollowCrumbs {
                    leader: leader.into(),
                    trail,
                }))
            })
        })?,
    )?;
    t.set(
        "follow_road",
        lua.create_function(|lua, opts: Option<Table>| {
            let what = "move.follow_road";
            with_world(lua, what, |w| {
                let terrain = opts
                    .as_ref()
                    .map(|o| o.get::<Option<String>>("terrain"))
                    .transpose()?
                    .flatten()
                    .unwrap_or_else(|| "road".to_string());
                if w.terrain().by_name(&terrain).is_none() {
                    return Err(located(
                        lua,
                        format!("{what}: no terrain named {terrain:?} in this scene"),
                    ));
                }
                Ok(action(Action::FollowRoad { terrain }))
            })
        })?,
    )?;
    t.set(
        "wall_trace",
        lua.create_function(|lua, opts: Option<Table>| {
            Ok(action(Action::WallTrace(hand_option(
                lua,
                opts.as_ref(),
                "move.wall_trace",
            )?)))
        })?,
    )?;
    Ok(())
}

/// Reads `nav.sees`'s options: `range` (tiles; default the looker's `sense`, else no
/// limit), `fov` (full angle in degrees, more than 0 and at most 360; default 360) and
/// `facing` (radians, or a position to face; default the looker's heading; needed for a cone
/// from a position).
fn sight_options(
    lua: &Lua,
    opts: Option<&Table>,
    looker: Option<&agentbox_core::world::Agent>,
    at: glam::DVec2,
    what: &str,
) -> mlua::Result<nav::sees::View> {
    const KEYS: [&str; 3] = ["range", "fov", "facing"];
    let get = |key: &str| -> mlua::Result<Value> {
        match opts {
            Some(o) => o.get(key),
            None => Ok(Value::Nil),
        }
    };
    if let Some(o) = opts {
        check_option_keys(lua, o, &KEYS, what)?;
    }
    let num = |key: &str, v: &Value| -> mlua::Result<Option<f64>> {
        match v {
            Value::Nil => Ok(None),
            Value::Integer(i) => Ok(Some(*i as f64)),
            Value::Number(n) if n.is_finite() => Ok(Some(*n)),
            _ => Err(located(
                lua,
                format!("{what}: {key} must be a finite number"),
            )),
        }
    };
    let range = match num("range", &get("range")?)? {
        Some(r) if r >= 0.0 => Some(r),
        Some(_) => {
            return Err(located(
                lua,
                format!("{what}: range must be 0 or more tiles"),
            ))
        }
        None => looker.and_then(|a| a.sense),
    };
    let fov = match num("fov", &get("fov")?)? {
        Some(f) if f > 0.0 && f <= 360.0 => f,
        Some(_) => {
            return Err(located(
                lua,
                format!(
                    "{what}: fov is the cone's full angle in degrees, more than 0 and at most 360"
                ),
            ))
        }
        None => 360.0,
    };
    let facing = match get("facing")? {
        Value::Nil => match looker {
            Some(a) => a.heading(),
            None if fov < 360.0 => {
                return Err(located(
                    lua,
                    format!("{what}: looking from a position, give the cone's facing (radians or a position to face)"),
                ))
            }
            None => 0.0,
        },
        v @ (Value::Integer(_) | Value::Number(_)) => num("facing", &v)?.unwrap_or(0.0),
        v => {
            let towards = to_pos(lua, &v, Arg::field(what, 3, "facing"))?;
            let d = towards - at;
            d.y.atan2(d.x)
        }
    };
    Ok(nav::sees::View { range, fov, facing })
}

/// The keys `opts` of `nav.path` and `move.path_to` may hold.
const PATH_OPTION_KEYS: [&str; 8] = [
    "diagonal",
    "heuristic",
    "costs",
    "size",
    "ignore_terrain",
    "max_expanded",
    "algorithm",
    "sets",
];

/// Refuses a key of an options table that is not one of `keys`, with a located error naming
/// the choices (`nav.path`, `move.path_to`, `nav.flow`).
pub(super) fn check_option_keys(
    lua: &Lua,
    opts: &Table,
    keys: &[&str],
    what: &str,
) -> mlua::Result<()> {
    for pair in opts.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let name = match &key {
            Value::String(k) => k.to_str()?.to_string(),
            other => format!("{other:?}"),
        };
        if !keys.contains(&name.as_str()) {
            return Err(located(
                lua,
                format!(
                    "{what}: unknown option {name:?} (options: {})",
                    keys.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The diagonal rule an options table names in `diagonal` (none when absent); any other value
/// is a located error naming the choices.
pub(super) fn diagonal_option(
    lua: &Lua,
    opts: &Table,
    what: &str,
) -> mlua::Result<Option<Diagonal>> {
    const NAMES: [&str; 4] = ["never", "no_corner_cutting", "one_side", "always"];
    const RULES: [Diagonal; 4] = [
        Diagonal::Never,
        Diagonal::NoCornerCutting,
        Diagonal::IfOneSideFree,
        Diagonal::Always,
    ];
    let got = match opts.get::<Value>("diagonal")? {
        Value::Nil => return Ok(None),
        Value::String(s) => {
            let name = s.to_string_lossy();
            if let Some(i) = NAMES.iter().position(|n| **n == *name) {
                return Ok(Some(RULES[i]));
            }
            format!("{name:?}")
        }
        v => v.type_name().to_string(),
    };
    Err(located(
        lua,
        format!(
            "{what}: diagonal must be one of {}, got {got}",
            NAMES.join(", ")
        ),
    ))
}

/// Reads the `opts` table of `nav.path` / `move.path_to` (see the module docs of `script`):
/// unknown keys and values are errors naming the choices.
fn path_options(lua: &Lua, opts: Option<Table>, what: &str) -> mlua::Result<PathOptions> {
    let mut o = PathOptions::default();
    let Some(opts) = opts else { return Ok(o) };
    check_option_keys(lua, &opts, &PATH_OPTION_KEYS, what)?;
    let choice = |key: &str, choices: &[&str]| -> mlua::Result<Option<usize>> {
        match opts.get::<Option<String>>(key)? {
            None => Ok(None),
            Some(v) => match choices.iter().position(|c| *c == v) {
                Some(i) => Ok(Some(i)),
                None => Err(located(
                    lua,
                    format!(
                        "{what}: {key} must be one of {}, got {v:?}",
                        choices.join(", ")
                    ),
                )),
            },
        }
    };
    if let Some(d) = diagonal_option(lua, &opts, what)? {
        o.diagonal = d;
    }
    if let Some(i) = choice("heuristic", &["octile", "manhattan", "euclidean", "zero"])? {
        o.heuristic = [
            Heuristic::Octile,
            Heuristic::Manhattan,
            Heuristic::Euclidean,
            Heuristic::Zero,
        ][i];
    }
    if let Some(i) = choice("costs", &["exact", "source"])? {
        o.step_costs = [StepCosts::Exact, StepCosts::Source][i];
    }
    if let Some(i) = choice("algorithm", &["auto", "astar", "jps"])? {
        o.algorithm = [Algorithm::Auto, Algorithm::AStar, Algorithm::Jps][i];
    }
    let count = |key: &str, max: i64| -> mlua::Result<Option<i64>> {
        match opts.get::<Option<i64>>(key) {
            Ok(None) => Ok(None),
            Ok(Some(n)) if (1..=max).contains(&n) => Ok(Some(n)),
            _ => Err(located(
                lua,
                format!("{what}: {key} must be a whole number from 1 to {max}"),
            )),
        }
    };
    if let Some(n) = count("size", MAX_BODY)? {
        o.size = n as u32;
    }
    if let Some(n) = count("max_expanded", 100_000_000)? {
        o.max_expanded = Some(n as usize);
    }
    let flag = |key: &str| -> mlua::Result<Option<bool>> {
        opts.get::<Option<bool>>(key)
            .map_err(|_| located(lua, format!("{what}: {key} must be true or false")))
    };
    if let Some(b) = flag("ignore_terrain")? {
        o.ignore_terrain_cost = b;
    }
    if let Some(b) = flag("sets")? {
        o.keep_sets = b;
    }
    Ok(o)
}

/// The largest body side a script may ask for.
const MAX_BODY: i64 = 64;

/// The second result of `nav.path`: `{cost, expanded, complete, jps, reason, open, closed}`
/// (`reason` only when there is no path, the sets only with `sets = true`). The fixed fields
/// are set in one protected call with the raw API (through `Table::set` each field was a
/// protected call of its own, on a table every query makes).
fn path_info(lua: &Lua, r: &nav::PathResult, reason: Option<nav::NoPath>) -> mlua::Result<Table> {
    let reason = reason.map(|r| match r {
        nav::NoPath::Blocked => c"blocked",
        nav::NoPath::Unreachable => c"unreachable",
        nav::NoPath::OffMap => c"off_map",
    });
    let (cost, expanded) = (r.cost, r.expanded as mlua::ffi::lua_Integer);
    let (complete, jps) = (r.complete as std::ffi::c_int, r.used_jps as std::ffi::c_int);
    // Inside `exec_raw` the state is valid and the call is protected; the closure pushes the
    // table and one value at a time (within the stack a C call is guaranteed) and leaves the
    // table alone on the stack as the result.
    // SAFETY: as said above; the closure holds only plain values, so a memory error
    // unwinding past it drops nothing.
    let info = unsafe {
        lua.exec_raw::<Table>((), |state| {
            use mlua::ffi;
            ffi::lua_createtable(state, 0, 5);
            ffi::lua_pushnumber(state, cost);
            ffi::lua_setfield(state, -2, c"cost".as_ptr());
            ffi::lua_pushinteger(state, expanded);
            ffi::lua_setfield(state, -2, c"expanded".as_ptr());
            ffi::lua_pushboolean(state, complete);
            ffi::lua_setfield(state, -2, c"complete".as_ptr());
            ffi::lua_pushboolean(state, jps);
            ffi::lua_setfield(state, -2, c"jps".as_ptr());
            if let Some(reason) = reason {
                ffi::lua_pushstring(state, reason.as_ptr());
                ffi::lua_setfield(state, -2, c"reason".as_ptr());
            }
        })?
    };
    if let Some(sets) = &r.sets {
        info.raw_set("open", tile_list(lua, &sets.open)?)?;
        info.raw_set("closed", tile_list(lua, &sets.closed)?)?;
    }
    Ok(info)
}

/// Spends `units` of the running call's work budget for what a query did in Rust, so a loop
/// of expensive queries is stopped like a loop of Lua (see `budget.rs`).
fn charge(lua: &Lua, units: u64) -> mlua::Result<()> {
    match lua.app_data_ref::<Rc<super::budget::Budget>>() {
        Some(budget) => budget.charge(units),
        None => Ok(()),
    }
}

/// The most cells `nav.line` returns when its ends could not be bounded to a map (outside
/// `init` and `decide`): a little more than a line across the largest map a scene may have.
const MAX_LINE_CELLS: u64 = 4100;

/// The `nav` table: line of sight, lines and A* over the current map.
pub fn nav_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "los",
        lua.create_function(|lua, (a, b): (Value, Value)| {
            with_world(lua, "nav.los", |w| {
                let a = to_tile(lua, &a, Arg::new("nav.los", 1))?;
                let b = to_tile(lua, &b, Arg::new("nav.los", 2))?;
                charge(lua, Line::new(a, b).cells())?;
                let seen = nav::line_of_sight(w, a, b);
                if let Some(d) = super::draw::get(lua) {
                    let (p, q) = (
                        agentbox_core::world::centre_of(a),
                        agentbox_core::world::centre_of(b),
                    );
                    d.note_query(lua, p, q, seen, None);
                }
                Ok(seen)
            })
        })?,
    )?;
    t.set(
        "sees",
        lua.create_function(|lua, (from, target, opts): (Value, Value, Option<Table>)| {
            let what = "nav.sees";
            with_world(lua, what, |w| {
                let at = to_pos(lua, &from, Arg::new(what, 1))?;
                let to = to_pos(lua, &target, Arg::new(what, 2))?;
                let looker = own_index(lua, w, &from)?.and_then(|i| w.agents.get(i));
                let view = sight_options(lua, opts.as_ref(), looker, at, what)?;
                let (p, q) = (w.bound_pos(at).unwrap_or(at), w.bound_pos(to).unwrap_or(to));
                charge(
                    lua,
                    Line::new(
                        agentbox_core::world::tile_of(p),
                        agentbox_core::world::tile_of(q),
                    )
                    .cells()
                        + 4,
                )?;
                let seen = nav::sees::sees(w, p, q, &view);
                if let Some(d) = super::draw::get(lua) {
                    d.note_query(lua, p, q, seen, Some(view));
                }
                Ok(seen)
            })
        })?,
    )?;
    t.set(
        "line",
        lua.create_function(|lua, (a, b): (Value, Value)| {
            let a = to_tile(lua, &a, Arg::new("nav.line", 1))?;
            let b = to_tile(lua, &b, Arg::new("nav.line", 2))?;
            // Inside `init` and `decide` the ends are bounded to the map; outside, with no map
            // to bound them to, the line is refused past a fixed length.
            let cells = Line::new(a, b).cells();
            if cells > MAX_LINE_CELLS {
                return Err(located(
                    lua,
                    format!("nav.line: the ends are more than {MAX_LINE_CELLS} tiles apart"),
                ));
            }
            charge(lua, cells * 4)?;
            tile_list(lua, &nav::bresenham(a, b))
        })?,
    )?;
    t.set(
        "path",
        lua.create_function(|lua, (from, to, opts): (Value, Value, Option<Table>)| {
            with_world(lua, "nav.path", |w| {
                let from = to_tile(lua, &from, Arg::new("nav.path", 1))?;
                let to = to_tile(lua, &to, Arg::new("nav.path", 2))?;
                let opts = path_options(lua, opts, "nav.path")?;
                // On the map's shared grid (`nav::cache`): built once per map content and
                // body size, so a call pays only for its own search.
                let (result, reason) = nav::cache::find(w, from, to, &opts);
                // The look-up, every expansion (tens of instructions each) and the path
                // handed back; never the grid's building, so the charge does not depend on
                // what the cache held.
                let steps = result.path.as_ref().map_or(0, |p| p.len() as u64);
                charge(lua, 16 + 32 * result.expanded as u64 + 4 * steps)?;
                let info = path_info(lua, &result, reason)?;
                let path = match &result.path {
                    Some(path) => Value::Table(tile_list(lua, path)?),
                    None => Value::Nil,
                };
                Ok((path, info))
            })
        })?,
    )?;
    t.set(
        "waypoint_route",
        lua.create_function(|lua, (from, to): (Value, Value)| {
            with_world(lua, "nav.waypoint_route", |w| {
                let from = to_tile(lua, &from, Arg::new("nav.waypoint_route", 1))?;
                let to = to_tile(lua, &to, Arg::new("nav.waypoint_route", 2))?;
                // The node table: a line of sight per pair of waypoints, then all pairs'
                // shortest routes.
                let n = w.waypoints.len() as u64;
                charge(lua, n * n * 8 + n * n * n / 8)?;
                let table = nav::waypoints::table(w);
                match nav::waypoints::route(w, &table, from, to) {
                    Some(route) => Ok(Value::Table(tile_list(lua, &route)?)),
                    None => Ok(Value::Nil),
                }
            })
        })?,
    )?;
    super::flow::add(lua, &t)?;
    Ok(t)
}
