//! `move.*` steering (Reynolds 1999, beside the book's primitives in `moves.rs`): arrival,
//! smooth wander, the flocking rules, wall avoidance, formation following, following a list
//! of tiles, and the two ways of combining actions, `move.blend` (weighted sum of the
//! velocities the parts ask for) and `move.first` (the first part that steers). Each returns
//! an action; none changes the world. A part that steps on tiles, a value that is not an
//! action, a negative weight and an empty list are located errors here, before the tick.

use super::moves::NewAction;
use super::options::{check_option_keys, number};
use super::{p, with_world, Binding, Charge, Make};
use crate::convert::{action_of, to_pos, to_target, to_tile, Arg};
use crate::errors::located;
use agentbox_core::world::{Action, FlockRule, FlockSpec, Target, TilePath};
use glam::DVec2;
use mlua::{Lua, Table, Value};

/// The most parts one `move.blend` or `move.first` may hold.
pub const MAX_PARTS: usize = 32;
/// The deepest nesting of blends and firsts (each level is one more call of the primitive).
pub const MAX_DEPTH: usize = 8;
/// The most tiles `move.follow_path` takes (the cap on waypoints).
pub const MAX_PATH_TILES: usize = 4096;

/// A radius option: above 0 and at most 64 tiles.
fn radius(
    lua: &Lua,
    opts: Option<&Table>,
    key: &str,
    default: f64,
    what: &str,
) -> mlua::Result<f64> {
    number(
        lua,
        opts,
        key,
        default,
        what,
        |x| x > 0.0 && x <= 64.0,
        "above 0 and at most 64 tiles",
    )
}

pub const ARRIVE: Binding = Binding {
    name: "move.arrive",
    params: &[
        p("target", "agentbox.Target", "Who or where to arrive at."),
        p("opts?", "{slow?: number}", "The radius in tiles inside which the agent slows down (default 2)."),
    ],
    returns: &[("agentbox.Action", "The arrival.")],
    doc: "Reynolds' arrival: full speed towards the target until within `slow` tiles, then slower the nearer it gets (never below a tenth of the speed), stopping on the point without overshooting.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(arrive)),
};

fn arrive(lua: &Lua, (target, opts): (Value, Option<Table>)) -> mlua::Result<NewAction> {
    let what = ARRIVE.name;
    with_world(lua, what, |w| {
        let target = to_target(lua, w, &target, Arg::new(what, 1))?;
        if let Some(o) = &opts {
            check_option_keys(lua, o, &["slow"], what)?;
        }
        let slow = radius(lua, opts.as_ref(), "slow", 2.0, what)?;
        Ok(NewAction(Action::Arrive(target, slow)))
    })
}

/// `move.evade(t, {predict = S})`: what `move.evade` makes when given options.
pub fn evade_with(lua: &Lua, target: Target, opts: &Table) -> mlua::Result<Action> {
    let what = "move.evade";
    check_option_keys(lua, opts, &["predict"], what)?;
    let predict = number(
        lua,
        Some(opts),
        "predict",
        0.0,
        what,
        |x| (0.0..=60.0).contains(&x),
        "from 0 to 60 seconds",
    )?;
    Ok(match predict {
        0.0 => Action::Evade(target),
        s => Action::EvadeAhead(target, s),
    })
}

pub const WANDER: Binding = Binding {
    name: "move.wander",
    params: &[p("opts?", "{rate?: number, strength?: number}", "How fast the wander point may drift (radians per second, default 3) and how far off the heading it pulls (the circle's radius against its distance of 1, default 0.5).")],
    returns: &[("agentbox.Action", "The wander.")],
    doc: "Reynolds' smooth wander: steer at full speed at a point on a circle ahead that drifts a little each tick, drawn from the agent's seeded stream, so the heading changes smoothly and every run repeats.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(wander)),
};

fn wander(lua: &Lua, opts: Option<Table>) -> mlua::Result<NewAction> {
    let what = WANDER.name;
    if let Some(o) = &opts {
        check_option_keys(lua, o, &["rate", "strength"], what)?;
    }
    let rate = number(
        lua,
        opts.as_ref(),
        "rate",
        3.0,
        what,
        |x| (0.0..=100.0).contains(&x),
        "from 0 to 100 radians per second",
    )?;
    let strength = number(
        lua,
        opts.as_ref(),
        "strength",
        0.5,
        what,
        |x| (0.0..=10.0).contains(&x),
        "from 0 to 10",
    )?;
    Ok(NewAction(Action::Wander { rate, strength }))
}

/// A flocking rule's action from its options: `radius` (default 2) and `kind`.
fn flock(lua: &Lua, rule: FlockRule, what: &str, opts: Option<Table>) -> mlua::Result<NewAction> {
    if let Some(o) = &opts {
        check_option_keys(lua, o, &["radius", "kind"], what)?;
    }
    let radius = radius(lua, opts.as_ref(), "radius", 2.0, what)?;
    let kind = match opts.as_ref().map(|o| o.get::<Value>("kind")).transpose()? {
        None | Some(Value::Nil) => None,
        Some(Value::String(s)) => Some(
            crate::bounded::name(&s).map_err(|why| located(lua, format!("{what}: kind {why}")))?,
        ),
        Some(v) => {
            return Err(located(
                lua,
                format!("{what}: kind must be a string, got {}", v.type_name()),
            ))
        }
    };
    Ok(NewAction(Action::Flock(Box::new(FlockSpec {
        rule,
        radius,
        kind,
    }))))
}

const FLOCK_OPTS: &str = "{radius?: number, kind?: string}";
const FLOCK_OPTS_DOC: &str =
    "The neighbourhood radius in tiles (default 2) and, to narrow it, one kind.";

pub const SEPARATE: Binding = Binding {
    name: "move.separate",
    params: &[p("opts?", FLOCK_OPTS, FLOCK_OPTS_DOC)],
    returns: &[("agentbox.Action", "The separation.")],
    doc: "Reynolds' separation: away from every other agent within the radius (any kind, scripted or not, unless `kind` narrows it), each weighted by the inverse of its distance, at full speed; with none near it asks for nothing (so `move.first` moves on).",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(|lua, o: Option<Table>| flock(lua, FlockRule::Separate, SEPARATE.name, o))),
};

pub const ALIGN: Binding = Binding {
    name: "move.align",
    params: &[p("opts?", FLOCK_OPTS, FLOCK_OPTS_DOC)],
    returns: &[("agentbox.Action", "The alignment.")],
    doc: "Reynolds' alignment: along the mean velocity of the other agents within the radius (last tick's), at most the agent's speed.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(|lua, o: Option<Table>| flock(lua, FlockRule::Align, ALIGN.name, o))),
};

pub const COHERE: Binding = Binding {
    name: "move.cohere",
    params: &[p("opts?", FLOCK_OPTS, FLOCK_OPTS_DOC)],
    returns: &[("agentbox.Action", "The cohesion.")],
    doc: "Reynolds' cohesion: towards the centre of the other agents within the radius, at full speed, stopping on it.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(|lua, o: Option<Table>| flock(lua, FlockRule::Cohere, COHERE.name, o))),
};

pub const AVOID_WALLS: Binding = Binding {
    name: "move.avoid_walls",
    params: &[p("opts?", "{ahead?: number}", "How far the feelers reach, in tiles (default 2).")],
    returns: &[("agentbox.Action", "The wall avoidance.")],
    doc: "Wall avoidance: three feelers along the heading and 35 degrees either side find where the body would touch a wall; each hit pushes off the wall, harder the nearer. With no wall ahead it asks for nothing: blend it, or put it first in `move.first`.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(avoid_walls)),
};

fn avoid_walls(lua: &Lua, opts: Option<Table>) -> mlua::Result<NewAction> {
    let what = AVOID_WALLS.name;
    if let Some(o) = &opts {
        check_option_keys(lua, o, &["ahead"], what)?;
    }
    let ahead = radius(lua, opts.as_ref(), "ahead", 2.0, what)?;
    Ok(NewAction(Action::AvoidWalls { ahead }))
}

pub const FOLLOW: Binding = Binding {
    name: "move.follow",
    params: &[
        p("leader", "agentbox.Target", "The agent to follow."),
        p("opts?", "{offset?: agentbox.PosLike}", "The place to hold in the leader's frame: x tiles ahead of it (negative: behind), y to its right (default {-1.5, 0})."),
    ],
    returns: &[("agentbox.Action", "The formation following.")],
    doc: "Leader following: arrive at a point fixed in the leader's frame (its direction of travel; kept while it stands), `offset.x` ahead and `offset.y` to the right, so a formation turns with its leader.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(follow)),
};

fn follow(lua: &Lua, (leader, opts): (Value, Option<Table>)) -> mlua::Result<NewAction> {
    let what = FOLLOW.name;
    with_world(lua, what, |w| {
        let leader = to_target(lua, w, &leader, Arg::new(what, 1))?;
        let mut offset = DVec2::new(-1.5, 0.0);
        if let Some(o) = &opts {
            check_option_keys(lua, o, &["offset"], what)?;
            let v: Value = o.get("offset")?;
            if !v.is_nil() {
                offset = to_pos(lua, &v, Arg::field(what, 2, "offset"))?;
                if offset.abs().max_element() > 64.0 {
                    return Err(located(
                        lua,
                        format!("{what}: offset must be within 64 tiles of the leader"),
                    ));
                }
            }
        }
        Ok(NewAction(Action::Follow { leader, offset }))
    })
}

pub const FOLLOW_PATH: Binding = Binding {
    name: "move.follow_path",
    params: &[
        p("tiles", "agentbox.PosLike[]", "The tiles to walk, in order (a `nav.path` result)."),
        p("opts?", "{smooth?: boolean}", "Cut corners by line of sight for the agent's body first (default false)."),
    ],
    returns: &[("agentbox.Action", "The path following.")],
    doc: "Walk a list of tiles in order, centre to centre at full speed, and stop on the last. With `smooth = true` the list is string-pulled once, when the action starts: a tile is skipped when the body can walk straight past it, never across a blocked cell's corner.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(follow_path)),
};

fn follow_path(lua: &Lua, (tiles, opts): (Table, Option<Table>)) -> mlua::Result<NewAction> {
    let what = FOLLOW_PATH.name;
    let n = tiles.raw_len();
    if n == 0 || n > MAX_PATH_TILES {
        return Err(located(
            lua,
            format!("{what}: give from 1 to {MAX_PATH_TILES} tiles, got {n}"),
        ));
    }
    let mut list = Vec::with_capacity(n);
    for k in 1..=n {
        let v: Value = tiles.raw_get(k)?;
        list.push(to_tile(lua, &v, Arg::field(what, 1, "tiles"))?);
    }
    let smooth = match opts.as_ref() {
        Some(o) => {
            check_option_keys(lua, o, &["smooth"], what)?;
            o.get::<Option<bool>>("smooth")
                .map_err(|_| located(lua, format!("{what}: smooth must be true or false")))?
                .unwrap_or(false)
        }
        None => false,
    };
    Ok(NewAction(Action::FollowPath(Box::new(TilePath {
        tiles: list,
        smooth,
    }))))
}

/// The action a part of a blend or first is, or a located error saying why it cannot be one.
fn part_action(lua: &Lua, value: &Value, what: &str, k: usize) -> mlua::Result<Action> {
    let action = action_of(lua, value);
    let Some(action) = action else {
        let got = match value {
            Value::UserData(_) => "a userdata that is not an action".to_string(),
            v => v.type_name().to_string(),
        };
        return Err(located(
            lua,
            format!("{what}: part {k} must be a steering action such as move.chase(t), got {got}"),
        ));
    };
    if action.steps_on_tiles() {
        return Err(located(lua, format!(
            "{what}: part {k} is move.{}, which steps from tile to tile and asks for no velocity; blend free steering such as move.chase, move.evade, move.arrive or move.path_to",
            action.name()
        )));
    }
    if depth(&action) >= MAX_DEPTH {
        return Err(located(
            lua,
            format!("{what}: blends and firsts nest at most {MAX_DEPTH} deep"),
        ));
    }
    Ok(action)
}

/// How deep blends and firsts nest in `action` (0 for a plain action).
fn depth(action: &Action) -> usize {
    match action {
        Action::Blend(parts) => 1 + parts.iter().map(|(a, _)| depth(a)).max().unwrap_or(0),
        Action::First(parts) => 1 + parts.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The values of a list of parts, checked for length.
fn parts(lua: &Lua, list: &Table, what: &str) -> mlua::Result<Vec<Value>> {
    let n = list.raw_len();
    if n == 0 {
        return Err(located(lua, format!("{what}: give at least one action")));
    }
    if n > MAX_PARTS {
        return Err(located(
            lua,
            format!("{what}: at most {MAX_PARTS} parts, got {n}"),
        ));
    }
    (1..=n).map(|k| list.raw_get::<Value>(k)).collect()
}

pub const BLEND: Binding = Binding {
    name: "move.blend",
    params: &[p("parts", "{[1]: agentbox.Action, [2]: number}[]", "Pairs {action, weight}: each action's velocity is weighed by its weight (0 or more).")],
    returns: &[("agentbox.Action", "The blend.")],
    doc: "Blend steering: the sum of weight x the velocity each action asks for this tick (tiles/s), clamped to the agent's speed (with the agent's `max_force`, the velocity then changes by at most max_force x dt a tick). Planned actions (path_to, flow_to, waypoints, tank_to) give their next step's direction; tile-stepping ones (basic_chase, los_chase, wall_trace, trace_around, follow_crumbs, follow_road) are an error.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(blend)),
};

fn blend(lua: &Lua, list: Table) -> mlua::Result<NewAction> {
    let what = BLEND.name;
    let mut out = Vec::new();
    for (i, v) in parts(lua, &list, what)?.into_iter().enumerate() {
        let k = i + 1;
        let Value::Table(pair) = v else {
            return Err(located(
                lua,
                format!(
                    "{what}: part {k} must be a pair {{action, weight}}, got {}",
                    v.type_name()
                ),
            ));
        };
        let action = part_action(lua, &pair.raw_get::<Value>(1)?, what, k)?;
        let weight = match pair.raw_get::<Value>(2)? {
            Value::Integer(n) => n as f64,
            Value::Number(x) => x,
            Value::Nil => 1.0,
            v => {
                return Err(located(
                    lua,
                    format!(
                        "{what}: the weight of part {k} must be a number, got {}",
                        v.type_name()
                    ),
                ))
            }
        };
        if !(weight.is_finite() && (0.0..=1e6).contains(&weight)) {
            return Err(located(
                lua,
                format!("{what}: the weight of part {k} must be from 0 to 1000000, got {weight}"),
            ));
        }
        out.push((action, weight));
    }
    Ok(NewAction(Action::Blend(out.into_boxed_slice())))
}

pub const FIRST: Binding = Binding {
    name: "move.first",
    params: &[p("parts", "agentbox.Action[]", "Actions in order of priority.")],
    returns: &[("agentbox.Action", "The choice.")],
    doc: "Priority steering: the first action that asks for a non-zero velocity this tick is taken; when none does, the agent stands still. Tile-stepping actions are an error, as in `move.blend`.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(first)),
};

fn first(lua: &Lua, list: Table) -> mlua::Result<NewAction> {
    let what = FIRST.name;
    let actions = parts(lua, &list, what)?
        .iter()
        .enumerate()
        .map(|(i, v)| part_action(lua, v, what, i + 1))
        .collect::<mlua::Result<Vec<_>>>()?;
    Ok(NewAction(Action::First(actions.into_boxed_slice())))
}
