//! The option tables and option values bindings read: `nav.path`'s and `move.path_to`'s path
//! options, `nav.flow`'s, `nav.sees`'s sight options, the Lennard-Jones parameters of
//! `move.potential` and `move.swarm`, and the `hand` of the tracing primitives. Unknown keys
//! and values are located errors naming the choices; nothing here reads the world beyond an
//! agent given to it, or changes anything.

use crate::bounded;
use crate::convert::{to_pos, to_target, Arg};
use crate::errors::located;
use agentbox_core::nav::flow::FlowOptions;
use agentbox_core::nav::{self, Algorithm, Diagonal, Heuristic, PathOptions, StepCosts};
use agentbox_core::world::{Hand, LennardJones, Target, World};
use mlua::{Lua, Table, Value};

/// Reads an optional number from an options table, checked against a range.
pub fn number(
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
pub fn lennard_jones(
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
pub const CHASE_LJ: LennardJones = LennardJones {
    a: 200.0,
    b: 50.0,
    n: 1.0,
    m: 2.0,
};
/// The swarm defaults: mates settle 4 tiles apart (`r = m B / (n A)`).
pub const SWARM_LJ: LennardJones = LennardJones {
    a: 100.0,
    b: 200.0,
    n: 1.0,
    m: 2.0,
};

pub fn optional_target(
    lua: &Lua,
    w: &World,
    opts: &Table,
    what: &str,
) -> mlua::Result<Option<Target>> {
    match opts.get::<Value>("target")? {
        Value::Nil => Ok(None),
        v => Ok(Some(to_target(lua, w, &v, Arg::field(what, 1, "target"))?)),
    }
}

pub fn obstacle_and_range(
    lua: &Lua,
    opts: &Table,
    what: &str,
    range: f64,
) -> mlua::Result<(f64, f64)> {
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
pub fn hand_option(lua: &Lua, opts: Option<&Table>, what: &str) -> mlua::Result<Hand> {
    let hand = match opts {
        Some(o) => o.get::<Value>("hand")?,
        None => Value::Nil,
    };
    match bounded::choice(&hand, &["left", "right"]) {
        Ok(None | Some(0)) => Ok(Hand::Left),
        Ok(Some(_)) => Ok(Hand::Right),
        Err(got) => Err(located(
            lua,
            format!("{what}: hand must be \"left\" or \"right\", got {got}"),
        )),
    }
}

/// Reads `nav.sees`'s options: `range` (tiles; default the looker's `sense`, else no
/// limit), `fov` (full angle in degrees, more than 0 and at most 360; default 360) and
/// `facing` (radians, or a position to face; default the looker's heading; needed for a cone
/// from a position).
pub fn sight_options(
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
pub fn check_option_keys(lua: &Lua, opts: &Table, keys: &[&str], what: &str) -> mlua::Result<()> {
    for pair in opts.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let known = match &key {
            Value::String(k) => keys.iter().any(|c| c.as_bytes() == &*k.as_bytes()),
            _ => false,
        };
        if !known {
            return Err(located(
                lua,
                format!(
                    "{what}: unknown option {} (options: {})",
                    bounded::describe(&key),
                    keys.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The diagonal rule an options table names in `diagonal` (none when absent); any other value
/// is a located error naming the choices.
pub fn diagonal_option(lua: &Lua, opts: &Table, what: &str) -> mlua::Result<Option<Diagonal>> {
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
            if let Some(i) = NAMES.iter().position(|n| n.as_bytes() == &*s.as_bytes()) {
                return Ok(Some(RULES[i]));
            }
            bounded::quote_lua(&s)
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
/// unknown keys and values are errors naming the choices. `smooth` (cut the walked route's
/// corners) is an option of `move.path_to` only: `walking` says whether it is allowed.
pub fn path_options(
    lua: &Lua,
    opts: Option<Table>,
    what: &str,
    walking: bool,
) -> mlua::Result<PathOptions> {
    let mut o = PathOptions::default();
    let Some(opts) = opts else { return Ok(o) };
    let walk_keys: Vec<&str> = PATH_OPTION_KEYS.iter().copied().chain(["smooth"]).collect();
    let keys: &[&str] = if walking {
        &walk_keys
    } else {
        &PATH_OPTION_KEYS
    };
    check_option_keys(lua, &opts, keys, what)?;
    let choice = |key: &str, choices: &[&str]| -> mlua::Result<Option<usize>> {
        bounded::choice(&opts.get::<Value>(key)?, choices).map_err(|got| {
            located(
                lua,
                format!(
                    "{what}: {key} must be one of {}, got {got}",
                    choices.join(", ")
                ),
            )
        })
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
    if let Some(b) = flag("smooth")? {
        o.smooth = b;
    }
    Ok(o)
}

/// The largest body side a script may ask for.
pub const MAX_BODY: i64 = 64;

/// The keys `nav.flow`'s `opts` may hold.
const FLOW_OPTION_KEYS: [&str; 2] = ["size", "diagonal"];

/// Reads `nav.flow`'s options: `size` (1 to 64) and `diagonal`; anything else is an error.
pub fn flow_options(lua: &Lua, opts: Option<Table>) -> mlua::Result<FlowOptions> {
    let mut o = FlowOptions::default();
    let Some(opts) = opts else { return Ok(o) };
    check_option_keys(lua, &opts, &FLOW_OPTION_KEYS, "nav.flow")?;
    match opts.get::<Value>("size")? {
        Value::Nil => {}
        Value::Integer(n) if (1..=MAX_BODY).contains(&n) => o.size = n as u32,
        _ => {
            return Err(located(
                lua,
                format!("nav.flow: size must be a whole number from 1 to {MAX_BODY}"),
            ))
        }
    }
    if let Some(d) = diagonal_option(lua, &opts, "nav.flow")? {
        o.diagonal = d;
    }
    Ok(o)
}
