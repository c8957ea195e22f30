//! `world:send`, `world:broadcast`, `world:noise`, `world:spawn` and `world:set_tile`: the
//! `world` methods by which an agent's script acts on others and on the map. None of them
//! changes the world: each checks its arguments against the world of this tick (a located
//! error, and nothing queued, for a bad one), resolves who it reaches, charges that work to
//! the budget and queues an effect (`acts.rs`) that the simulation applies between this tick
//! and the next.

use super::{charge, p, with_world, Binding, Charge, Make};
use crate::acts::{self, deciding, to_message};
use crate::convert::{to_pos, Arg};
use crate::errors::located;
use agentbox_core::nav::hearing::walking_distances;
use agentbox_core::world::{tile_of, AgentRef, Effect, World};
use glam::DVec2;
use mlua::{ffi, Lua, Table, Value};
use std::rc::Rc;
use std::sync::Arc;

pub const SEND: Binding = Binding {
    name: "world:send",
    params: &[
        p("to", "string|agentbox.AgentView", "The receiver's id, or its view."),
        p("msg", "any", "A plain value: nil, booleans, numbers, strings and tables of those (lists or string keys), no cycles, at most 1 KiB as JSON text."),
    ],
    returns: &[],
    doc: "Sends a copy of `msg` to one agent, however far: it is in the receiver's `self:inbox()` at the next tick (at most 64 messages reach an agent in a tick; the rest are dropped, with a `messages_dropped` event). An unknown id is an error.",
    charge: Charge::Units("1 unit, and 1 per 64 bytes of the message as JSON text."),
    make: Make::Function(|lua| lua.create_function(send)),
};

fn send(lua: &Lua, (_, to, msg): (Value, Value, Value)) -> mlua::Result<()> {
    let what = SEND.name;
    let index = deciding(lua, what)?;
    with_world(lua, what, |w| {
        let to = receiver(lua, w, &to)?;
        let msg = to_message(lua, &msg, what)?;
        charge(lua, 1 + json_len(&msg) / 64)?;
        acts::get(lua)?.push(
            lua,
            index,
            Effect::Message {
                from: Arc::from(w.agents[index].id.as_str()),
                to: vec![to],
                msg: Arc::new(msg),
            },
        )?;
        Ok(())
    })
}

/// Agent `i` of `w` as a message's receiver: sharing the world's id list while it is sealed
/// (a broadcast copies no id), else its own copy.
fn receiver_ref(w: &World, i: usize) -> AgentRef {
    w.agent_ref(i)
        .unwrap_or_else(|| AgentRef::new(w.agents[i].id.as_str(), i))
}

/// A `world:send` receiver given as an id or a view; an unknown one is an error.
fn receiver(lua: &Lua, w: &World, to: &Value) -> mlua::Result<AgentRef> {
    let id = match to {
        Value::String(s) => s,
        Value::Table(t) => match super::world::own_index(lua, w, &Value::Table(t.clone()))? {
            Some(i) => return Ok(receiver_ref(w, i)),
            None => {
                return Err(located(
                    lua,
                    format!(
                        "{}: expected an agent id or view, got a table that is neither",
                        Arg::new(SEND.name, 1)
                    ),
                ))
            }
        },
        other => {
            return Err(located(
                lua,
                format!(
                    "{}: expected an agent id or view, got {}",
                    Arg::new(SEND.name, 1),
                    other.type_name()
                ),
            ))
        }
    };
    // Looked up in place; only a bounded quote of a wrong id is copied.
    let text = super::lookup_text(lua, id)?;
    if let Some(i) = text.as_ref().and_then(|text| w.agent_index(text)) {
        return Ok(receiver_ref(w, i));
    }
    let ids: Vec<&str> = w.agents.iter().map(|a| a.id.as_str()).collect();
    let meant = text
        .and_then(|text| agentbox_core::scene::suggestion(&text, &ids))
        .map(|m| format!(" (did you mean {m:?}?)"))
        .unwrap_or_default();
    Err(located(
        lua,
        format!(
            "world:send: no agent has the id {}{meant}",
            crate::bounded::quote_lua(id)
        ),
    ))
}

/// A distance in tiles: a number, finite and 0 or more; else a located error at `arg`,
/// `not_number` (followed by the type given) or `out_of_range`.
fn tiles(
    lua: &Lua,
    value: Value,
    arg: impl std::fmt::Display,
    not_number: &str,
    out_of_range: &str,
) -> mlua::Result<f64> {
    let n = match value {
        Value::Integer(n) => n as f64,
        Value::Number(n) => n,
        other => {
            return Err(located(
                lua,
                format!("{arg}: {not_number}, got {}", other.type_name()),
            ))
        }
    };
    if !(n.is_finite() && n >= 0.0) {
        return Err(located(lua, format!("{arg}: {out_of_range}")));
    }
    Ok(n)
}

/// The length of `msg` as JSON text, counted as it is written out (nothing is kept).
fn json_len(msg: &serde_json::Value) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len() as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, msg) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

pub const BROADCAST: Binding = Binding {
    name: "world:broadcast",
    params: &[
        p("msg", "any", "A plain value, as for `world:send`."),
        p("opts", "agentbox.BroadcastOptions", "`radius` (tiles, straight line; required) and `kind` (only agents of this kind)."),
    ],
    returns: &[("integer", "How many agents it reaches.")],
    doc: "Sends a copy of `msg` to every other agent within `radius` tiles of the sender (straight line, found with the spatial index), of `kind` if given: each has it in `self:inbox()` at the next tick.",
    charge: Charge::Units("1 unit per agent reached, and 1 per 64 bytes of the message as JSON text."),
    make: Make::Function(|lua| {
        let full = lua.create_function(broadcast)?;
        crate::raw::broadcast(lua, &crate::raw::get(lua)?, full)
    }),
};

fn broadcast(lua: &Lua, (_, msg, opts): (Value, Value, Value)) -> mlua::Result<usize> {
    let what = BROADCAST.name;
    let index = deciding(lua, what)?;
    let Value::Table(opts) = opts else {
        return Err(located(
            lua,
            format!("{}: expected options like {{radius = 5}} or {{radius = 5, kind = \"guard\"}}, got {}", Arg::new(what, 2), opts.type_name()),
        ));
    };
    only_keys(lua, &opts, what, 2, &["radius", "kind"])?;
    let radius = tiles(
        lua,
        opts.raw_get::<Value>("radius")?,
        Arg::field(what, 2, "radius"),
        "radius must be a number of tiles",
        "radius must be a finite distance in tiles, 0 or more",
    )?;
    let kind = kind_option(lua, &opts, what)?;
    let msg = to_message(lua, &msg, what)?;
    with_world(lua, what, |w| {
        let b = broadcast_of(w, index, radius, kind.as_deref(), msg);
        charge(lua, b.units)?;
        if let Some(effect) = b.effect {
            acts::get(lua)?.push(lua, index, effect)?;
        }
        Ok(b.reached)
    })
}

thread_local! {
    /// The receivers' indices of the last broadcast, its room kept for the next (see
    /// [`broadcast_of`]).
    static NEAR: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A broadcast resolved against the world of this tick: what to queue, whom it reaches and
/// what it costs. Both entries of `world:broadcast` (the mlua function above and its raw
/// twin, `raw::broadcast`, through [`broadcast_plain`]) queue what this makes.
pub(crate) struct Broadcast {
    /// The message to every receiver, or `None` when it reaches nobody (nothing is queued).
    pub effect: Option<Effect>,
    pub reached: usize,
    /// Its charge: 1 unit per agent reached and 1 per 64 bytes of the message as JSON text.
    pub units: u64,
}

/// Agent `index`'s broadcast of `msg` to every other agent within `radius` tiles (of `kind`
/// if given), its receivers in agent order.
pub(crate) fn broadcast_of(
    w: &World,
    index: usize,
    radius: f64,
    kind: Option<&str>,
    msg: serde_json::Value,
) -> Broadcast {
    let sender = &w.agents[index];
    // The receivers' indices are gathered in a list kept for the next broadcast and put in
    // agent order as `World::agents_within` gives them; the references are then made in a
    // list of their exact size (grown by doubling, it was reallocated about four times a
    // broadcast, 2,450 times a tick in a talking crowd of 20,000).
    let to = NEAR.with_borrow_mut(|near| {
        near.clear();
        w.visit_agents_within(sender.pos, radius, kind, |i| {
            if i != index {
                near.push(i);
            }
        });
        near.sort_unstable();
        let mut to = Vec::with_capacity(near.len());
        to.extend(near.iter().map(|&i| receiver_ref(w, i)));
        to
    });
    let reached = to.len();
    let units = reached as u64 + json_len(&msg) / 64;
    let effect = (reached > 0).then(|| Effect::Message {
        from: Arc::from(sender.id.as_str()),
        to,
        msg: Arc::new(msg),
    });
    Broadcast {
        effect,
        reached,
        units,
    }
}

/// `world:broadcast(msg, {radius = R, kind = K})` with a plain scalar `msg` as its raw entry
/// (`raw::broadcast`) queues it for agent `index`, with the work `work` left in the running
/// call and the state's `budget`: how many it reaches and the work left after the charge,
/// exactly as [`broadcast`] charges and queues it. `None`, with nothing changed, for one the
/// budget or the memory quota cannot pay for (the mlua function then raises as usual).
#[allow(clippy::too_many_arguments)]
pub(crate) fn broadcast_plain(
    acts: &acts::Acts,
    budget: Option<&Rc<crate::budget::Budget>>,
    work: i64,
    w: &World,
    index: usize,
    radius: f64,
    kind: Option<&str>,
    msg: serde_json::Value,
) -> Option<(usize, i64)> {
    if index >= w.agents.len() {
        return None;
    }
    let b = broadcast_of(w, index, radius, kind, msg);
    let left = work.checked_sub(i64::try_from(b.units).ok()?)?;
    if left < 0 {
        return None;
    }
    if let Some(effect) = b.effect {
        let bill = acts::keep_for(budget, &effect)?;
        acts.push_billed(index, effect, bill);
    }
    Some((b.reached, left))
}

/// An options table's `kind`: a string or nil.
fn kind_option(lua: &Lua, opts: &Table, what: &str) -> mlua::Result<Option<String>> {
    match opts.raw_get::<Value>("kind")? {
        Value::Nil => Ok(None),
        Value::String(s) => crate::bounded::name(&s)
            .map(Some)
            .map_err(|why| located(lua, format!("{}: kind {why}", Arg::field(what, 2, "kind")))),
        other => Err(located(
            lua,
            format!(
                "{}: kind must be a string, got {}",
                Arg::field(what, 2, "kind"),
                other.type_name()
            ),
        )),
    }
}

/// An error for a key of an options table that is not one of `known`.
fn only_keys(lua: &Lua, opts: &Table, what: &str, n: u8, known: &[&str]) -> mlua::Result<()> {
    for pair in opts.pairs::<Value, Value>() {
        let (key, _) = pair?;
        // Compared as bytes: a known key costs no copy.
        if matches!(&key, Value::String(s) if known.iter().any(|k| k.as_bytes() == &s.as_bytes()[..]))
        {
            continue;
        }
        let meant = match &key {
            Value::String(s) => crate::bounded::within(s, crate::bounded::NAME_BYTES)
                .ok()
                .and_then(|name| agentbox_core::scene::suggestion(&name, known))
                .map(|m| format!(" (did you mean {m:?}?)"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        return Err(located(
            lua,
            format!(
                "{}: unknown option {}{meant}; it takes {}",
                Arg::new(what, n),
                crate::bounded::describe(&key),
                known.join(", ")
            ),
        ));
    }
    Ok(())
}

pub const NOISE: Binding = Binding {
    name: "world:noise",
    params: &[
        p("loudness", "number", "How far it carries, in tiles of walking distance (0 or more)."),
        p("opts?", "agentbox.NoiseOptions", "`kind`: what the hearers are told it was (\"footsteps\")."),
    ],
    returns: &[("integer", "How many agents hear it.")],
    doc: "Makes a noise where the agent stands: every other agent whose walking distance (octile steps through free tiles, no corner cutting, terrain cost ignored) is at most `loudness` tiles hears it at the next tick, in `self:heard()`. A wall between makes a sound walk round it.",
    charge: Charge::Units("1 unit per tile the bounded search visits (at most (2 x loudness + 1)^2, and the map), and 1 per agent within reach."),
    make: Make::Function(|lua| lua.create_function(noise)),
};

fn noise(lua: &Lua, (_, loudness, opts): (Value, Value, Value)) -> mlua::Result<usize> {
    let what = NOISE.name;
    let index = deciding(lua, what)?;
    let loudness = tiles(
        lua,
        loudness,
        Arg::new(what, 1),
        "loudness must be a number of tiles",
        "loudness must be a finite number of tiles, 0 or more",
    )?;
    let kind = match opts {
        Value::Nil => None,
        Value::Table(t) => {
            only_keys(lua, &t, what, 2, &["kind"])?;
            kind_option(lua, &t, what)?
        }
        other => {
            return Err(located(
                lua,
                format!(
                    "{}: expected options like {{kind = \"footsteps\"}}, got {}",
                    Arg::new(what, 2),
                    other.type_name()
                ),
            ))
        }
    };
    with_world(lua, what, |w| {
        let sender = &w.agents[index];
        // Charged before the search by the square it may visit (so a huge loudness is stopped
        // by the budget, not run), the rest after.
        let side =
            (2.0 * loudness.floor() + 1.0).min(f64::from(w.grid().width().max(w.grid().height())));
        charge(lua, (side as u64).saturating_mul(side as u64) / 8)?;
        let hearing = walking_distances(w, sender.tile(), loudness);
        let near = w.agents_within(
            sender.pos,
            loudness * std::f64::consts::SQRT_2 + 1.0,
            None,
            Some(index),
        );
        charge(lua, hearing.visited as u64 + near.len() as u64)?;
        let hearers: Vec<(String, f64)> = near
            .into_iter()
            .filter_map(|i| {
                let d = hearing.distance(w.agents[i].tile())?;
                Some((w.agents[i].id.clone(), (d * 1e4).round() / 1e4))
            })
            .collect();
        let heard = hearers.len();
        acts::get(lua)?.push(
            lua,
            index,
            Effect::Noise {
                from: sender.id.clone(),
                pos: sender.pos,
                loudness,
                kind,
                hearers,
            },
        )?;
        Ok(heard)
    })
}

pub const SPAWN: Binding = Binding {
    name: "world:spawn",
    params: &[p("spec", "agentbox.SpawnSpec", "`kind` (required), `at` (required: a free tile) and `params` (merged over the template's).")],
    returns: &[("string", "The new agent's id, `KIND-N`.")],
    doc: "Spawns an agent made like the scene's first agent or `spawn:` group of `kind` (its script, speed, sense, body and every other key), standing on `at`, with `params` merged over that agent's. Its id is `KIND-N`, N one more than the highest number any agent of that kind has had (never reused); it appears at the next tick, and its `init` runs before its first decide. A kind the scene does not have, a wall, a tile off the map or more agents than `budget.max_agents` is an error.",
    charge: Charge::Units("16 units, and 1 per 64 bytes of `params` as JSON text."),
    make: Make::Function(|lua| {
        let full = lua.create_function(spawn)?;
        crate::raw::spawn(lua, &crate::raw::get(lua)?, full)
    }),
};

/// The keys a spawn spec takes.
const SPAWN_KEYS: [&str; 3] = ["kind", "at", "params"];

/// A spawn spec's `kind`, `at` and `params`, and a key it has besides them (nil if none),
/// read in one raw call: a hive spawning a crowd in a loop spent more on reading its specs
/// through mlua (an iterator over the keys, then a lookup for each) than on the rest of the
/// call (`docs/benchmarks.md`, "Agents that act").
/// With them, `at`'s numbers when it is a plain `{x = X, y = Y}` or `{X, Y}` of finite
/// numbers (any other `at` is read by `to_pos`, which says what is wrong with it).
type SpawnFields = (Value, Value, Value, Value, Option<DVec2>);

fn spawn_fields(lua: &Lua, spec: &Table) -> mlua::Result<SpawnFields> {
    // `exec_raw` pushes the spec (1); the three fields are pushed by raw reads (2..4),
    // then the keys are walked with `lua_next` (which leaves nothing once done), stopping at
    // one that is not a string among `SPAWN_KEYS`, which stays on the stack; the spec is then
    // removed, leaving the four values, and `at`'s two numbers (or nils) are pushed. Reading a
    // string key's bytes does not change it; nothing here holds a Rust value needing a drop
    // while Lua may raise.
    // SAFETY: as said above.
    let (kind, at, params, other, x, y): (Value, Value, Value, Value, Value, Value) = unsafe {
        lua.exec_raw(spec, |state| {
            for key in [c"kind", c"at", c"params"] {
                ffi::lua_pushstring(state, key.as_ptr());
                ffi::lua_rawget(state, 1);
            }
            ffi::lua_pushnil(state);
            let mut other = false;
            while ffi::lua_next(state, 1) != 0 {
                ffi::lua_settop(state, -2);
                if ffi::lua_type(state, -1) == ffi::LUA_TSTRING {
                    let mut len = 0;
                    let at = ffi::lua_tolstring(state, -1, &mut len);
                    let key = std::slice::from_raw_parts(at.cast::<u8>(), len);
                    if SPAWN_KEYS.iter().any(|k| k.as_bytes() == key) {
                        continue;
                    }
                }
                other = true;
                break;
            }
            if !other {
                ffi::lua_pushnil(state);
            }
            ffi::lua_rotate(state, 1, -1);
            ffi::lua_settop(state, -2);
            push_plain_xy(state, 2);
        })?
    };
    let at_xy = match (x, y) {
        (Value::Number(x), Value::Number(y)) if x.is_finite() && y.is_finite() => {
            Some(DVec2::new(x, y))
        }
        _ => None,
    };
    Ok((kind, at, params, other, at_xy))
}

/// Pushes the two numbers of the table at `at` if it is `{x = X, y = Y}` or `{X, Y}` read
/// raw (as `convert::read_xy` reads them), else two nils.
///
/// # Safety
/// A live state with room for four values; this reads raw fields only and neither allocates
/// nor raises.
pub(crate) unsafe fn push_plain_xy(state: *mut ffi::lua_State, at: std::ffi::c_int) {
    // SAFETY: the caller's contract.
    unsafe {
        let number = |state, i| ffi::lua_type(state, i) == ffi::LUA_TNUMBER;
        // The two numbers on top, as floats (an integer exactly as `as f64` makes it).
        let floats = |state| {
            let x = ffi::lua_tonumberx(state, -2, std::ptr::null_mut());
            let y = ffi::lua_tonumberx(state, -1, std::ptr::null_mut());
            ffi::lua_settop(state, -3);
            ffi::lua_pushnumber(state, x);
            ffi::lua_pushnumber(state, y);
        };
        if ffi::lua_type(state, at) == ffi::LUA_TTABLE {
            ffi::lua_pushstring(state, c"x".as_ptr());
            ffi::lua_rawget(state, at);
            ffi::lua_pushstring(state, c"y".as_ptr());
            ffi::lua_rawget(state, at);
            if number(state, -2) && number(state, -1) {
                return floats(state);
            }
            let named = ffi::lua_isnil(state, -2) == 0;
            ffi::lua_settop(state, -3);
            if !named {
                ffi::lua_rawgeti(state, at, 1);
                ffi::lua_rawgeti(state, at, 2);
                if number(state, -2) && number(state, -1) {
                    return floats(state);
                }
                ffi::lua_settop(state, -3);
            }
        }
        ffi::lua_pushnil(state);
        ffi::lua_pushnil(state);
    }
}

fn spawn(lua: &Lua, (_, spec): (Value, Value)) -> mlua::Result<String> {
    let what = SPAWN.name;
    let index = deciding(lua, what)?;
    let Value::Table(spec) = spec else {
        return Err(located(
            lua,
            format!(
                "{}: expected a table like {{kind = \"drone\", at = {{x = 3, y = 4}}}}, got {}",
                Arg::new(what, 1),
                spec.type_name()
            ),
        ));
    };
    let (kind, at, params, other, at_xy) = spawn_fields(lua, &spec)?;
    if !other.is_nil() {
        only_keys(lua, &spec, what, 1, &SPAWN_KEYS)?;
    }
    let kind = match kind {
        Value::String(s) => crate::bounded::name(&s)
            .map_err(|why| located(lua, format!("{}: kind {why}", Arg::field(what, 1, "kind"))))?,
        other => {
            return Err(located(
                lua,
                format!(
                    "{}: kind must be a string, got {}",
                    Arg::field(what, 1, "kind"),
                    other.type_name()
                ),
            ))
        }
    };
    let at = match at_xy {
        Some(xy) => xy,
        None => to_pos(lua, &at, Arg::field(what, 1, "at"))?,
    };
    let params = match params {
        Value::Nil => serde_json::Map::new(),
        v @ Value::Table(_) => match to_message(lua, &v, what)? {
            serde_json::Value::Object(map) => map,
            serde_json::Value::Array(a) if a.is_empty() => serde_json::Map::new(),
            _ => {
                return Err(located(
                    lua,
                    format!(
                        "{}: params must be a table with string keys",
                        Arg::field(what, 1, "params")
                    ),
                ))
            }
        },
        other => {
            return Err(located(
                lua,
                format!(
                    "{}: params must be a table, got {}",
                    Arg::field(what, 1, "params"),
                    other.type_name()
                ),
            ))
        }
    };
    with_world(lua, what, |w| {
        let tile = tile_of(at);
        if let Some(why) = spawn_refusal(w, &kind, tile) {
            return Err(located(lua, why));
        }
        let params_len = if params.is_empty() {
            0
        } else {
            json_len(&serde_json::Value::Object(params.clone()))
        };
        charge(lua, 16 + params_len / 64)?;
        let acts = acts::get(lua)?;
        let id = acts.spawn_id(lua, w, &kind)?;
        let by = receiver_ref(w, index);
        acts.push(lua, index, spawn_effect(by, id.clone(), kind, tile, params))?;
        Ok(id)
    })
}

/// What `world:spawn` charges for a spawn without `params`, in work units.
pub(crate) const SPAWN_UNITS: i64 = 16;

/// Why a spawn of `kind` on `tile` is refused (a kind the scene does not have, a tile off the
/// map or blocked), or `None`.
fn spawn_refusal(w: &World, kind: &str, tile: agentbox_core::world::Tile) -> Option<String> {
    if !w.templates.contains_key(kind) {
        let kinds: Vec<&str> = w.templates.keys().map(String::as_str).collect();
        let meant = agentbox_core::scene::suggestion(kind, &kinds)
            .map(|m| format!(" (did you mean {m:?}?)"))
            .unwrap_or_default();
        return Some(format!(
            "world:spawn: the scene has no agent or spawn: group of kind {kind:?}{meant}; its kinds: {}",
            kinds.join(", ")
        ));
    }
    if !w.in_bounds(tile) {
        return Some(format!(
            "world:spawn: at ({}, {}) is off the map ({} x {} tiles)",
            tile.x,
            tile.y,
            w.grid().width(),
            w.grid().height()
        ));
    }
    if w.is_blocked(tile) {
        return Some(format!(
            "world:spawn: at ({}, {}) is a blocked tile ({}); spawn on a free one",
            tile.x,
            tile.y,
            w.terrain_at(tile).map_or("wall", |t| t.name.as_str())
        ));
    }
    None
}

fn spawn_effect(
    by: AgentRef,
    id: String,
    kind: String,
    at: agentbox_core::world::Tile,
    params: serde_json::Map<String, serde_json::Value>,
) -> Effect {
    Effect::Spawn {
        by,
        id,
        kind,
        at,
        params,
    }
}

/// `world:spawn{kind = KIND, at = AT}` (no `params`, a name-sized `kind`) as its raw entry
/// (`raw::spawn`) queues it for agent `index`, with the work `work` left in the running call
/// and the state's `budget`: the new id and the work left after the charge, exactly as
/// [`spawn`] would queue and charge it. `None`, with nothing changed, for a spawn [`spawn`]
/// refuses (it says why) or one the budget or the memory quota cannot pay for (it raises).
pub(crate) fn spawn_plain(
    acts: &acts::Acts,
    budget: Option<&Rc<crate::budget::Budget>>,
    work: i64,
    w: &World,
    index: usize,
    kind: &str,
    at: DVec2,
) -> Option<(String, i64)> {
    let tile = tile_of(at);
    let left = work - SPAWN_UNITS;
    if left < 0 || kind.len() > crate::bounded::NAME_BYTES || acts.at_limit(w) {
        return None;
    }
    if spawn_refusal(w, kind, tile).is_some() {
        return None;
    }
    let (id, n) = acts.next_id(w, kind);
    if index >= w.agents.len() {
        return None;
    }
    // Shares the world's id list while it is sealed (the decisions): no id string a spawn.
    let by = receiver_ref(w, index);
    let effect = spawn_effect(
        by,
        id.clone(),
        kind.to_string(),
        tile,
        serde_json::Map::new(),
    );
    let bill = acts::keep_for(budget, &effect)?;
    acts.take_id(kind, n);
    acts.push_billed(index, effect, bill);
    Some((id, left))
}

pub const SET_TILE: Binding = Binding {
    name: "world:set_tile",
    params: &[
        p("at", "agentbox.PosLike", "The tile."),
        p("terrain", "string", "A terrain name (\"floor\", \"door\") or a map character (\".\")."),
    ],
    returns: &[],
    doc: "Sets a tile's terrain at the end of this tick, as the designer's paint does (navigation caches follow the map's content); an agent whose tile it blocks is moved to the nearest free tile. The window shows the map as it now stands; the map it saves (S) stays the designer's. An unknown terrain or a tile outside the map is an error.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(set_tile)),
};

fn set_tile(lua: &Lua, (_, at, terrain): (Value, Value, Value)) -> mlua::Result<()> {
    let what = SET_TILE.name;
    let index = deciding(lua, what)?;
    let at = to_pos(lua, &at, Arg::new(what, 1))?;
    let Value::String(name) = terrain else {
        return Err(located(
            lua,
            format!(
                "{}: expected a terrain name or map character, got {}",
                Arg::new(what, 2),
                terrain.type_name()
            ),
        ));
    };
    let name = crate::bounded::name(&name)
        .map_err(|why| located(lua, format!("{}: terrain {why}", Arg::new(what, 2))))?;
    with_world(lua, what, |w| {
        let tile = tile_of(at);
        if !w.in_bounds(tile) {
            return Err(located(
                lua,
                format!(
                    "world:set_tile: ({}, {}) is outside the map ({} x {} tiles)",
                    tile.x,
                    tile.y,
                    w.grid().width(),
                    w.grid().height()
                ),
            ));
        }
        let table = w.terrain();
        let mut chars = name.chars();
        let glyph = match (chars.next(), chars.next()) {
            (Some(c), None) => table.by_glyph(c),
            _ => None,
        };
        let Some(id) = table.by_name(&name).or(glyph) else {
            let known: Vec<&str> = table.kinds().iter().map(|t| t.name.as_str()).collect();
            let meant = agentbox_core::scene::suggestion(&name, &known)
                .map(|m| format!(" (did you mean {m:?}?)"))
                .unwrap_or_default();
            return Err(located(
                lua,
                format!(
                    "world:set_tile: unknown terrain {name:?}{meant}; the scene's terrains: {}",
                    known.join(", ")
                ),
            ));
        };
        acts::get(lua)?.push(
            lua,
            index,
            Effect::Tile {
                by: w.agents[index].id.clone(),
                at: tile,
                terrain: id,
            },
        )?;
        Ok(())
    })
}
