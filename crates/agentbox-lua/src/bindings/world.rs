//! `world:*`: read-only queries on the world of the tick being decided, as methods of the
//! `world` value handed to `decide` (and to `expect:` predicates and `metrics:`).
//!
//! `world:nearest` and `world:agents` measure from the point as given (the spatial index
//! bounds their work); the tile queries bound a point off the map to one tile off it
//! (`World::bound_pos`). `world:tick()` and `world:time()` are raw C functions and
//! `world:nearest` has a raw twin for the deciding agent's own `self` (`raw.rs`). None of them
//! changes the world.

use super::{acts, charge, p, table, with_world, Binding, Charge, Home, Library, Make};
use crate::convert::{tile_list, tile_table, to_pos, to_tile, Arg};
use crate::errors::located;
use crate::raw::{self, Origin, WorldNumber};
use crate::views;
use agentbox_core::world::World;
use mlua::{IntoLuaMulti, Lua, Table, Value, Variadic};

/// The `world` library, in the order its methods are made.
pub const WORLD: Library = Library {
    home: Home::World,
    heading: "world: queries on this tick's world, and acts applied between ticks",
    doc: "The world of the tick being decided (read-only), handed to `decide`. `world:send`, `world:broadcast`, `world:noise`, `world:spawn` and `world:set_tile` change nothing during the tick: what they ask for is applied between this tick and the next, in agent order and then call order.",
    bindings: &[
        AGENT, AGENTS, NEAREST, TICK, TIME, SIZE, TERRAIN, BLOCKED, CRUMBS, GOAL, MEMORY, WAYPOINTS,
        acts::SEND, acts::BROADCAST, acts::NOISE, acts::SPAWN, acts::SET_TILE,
    ],
};

/// The `world` argument of `decide`: a read-only table (patched Lua, `lua_setreadonly`; and
/// refused to `rawset`) holding the query methods as its own fields, so `world:nearest` is one
/// lookup in it rather than a miss and a lookup through its metatable's `__index` (about 80
/// instructions a call). A name it does not hold goes to that `__index`, the methods table,
/// whose miss-only `__index` gives the did-you-mean error; every write goes to `__newindex`,
/// which refuses it. The methods ignore their `self`.
pub fn world_table(lua: &Lua) -> mlua::Result<Table> {
    let methods = table(lua, &WORLD)?;
    methods.set_metatable(Some(super::strict_metatable(lua, Home::World)?))?;
    let world = lua.create_table()?;
    for pair in methods.pairs::<Value, Value>() {
        let (name, method) = pair?;
        world.raw_set(name, method)?;
    }
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
    // SAFETY: `exec_raw` pushes the table; marking it read-only neither allocates nor raises.
    unsafe {
        lua.exec_raw::<()>(&world, |state| crate::ffi::lua_setreadonly(state, 1))?;
    }
    crate::sandbox::protect(lua, &world, "world")?;
    Ok(world)
}

pub const AGENT: Binding = Binding {
    name: "world:agent",
    params: &[p("id", "string", "The agent's id.")],
    returns: &[(
        "agentbox.AgentView|nil",
        "Its view, or nil if there is no such agent.",
    )],
    doc: "An agent by id.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(agent)),
};

fn agent(lua: &Lua, (_, id): (Value, mlua::LuaString)) -> mlua::Result<Value> {
    with_world(lua, AGENT.name, |w| {
        let found = super::lookup_text(lua, &id)?.and_then(|id| w.agent_index(&id));
        match found {
            Some(i) => Ok(Value::Table(views::get(lua)?.view(lua, w, i)?)),
            None => {
                if let Some(unknown) = lua.app_data_ref::<UnknownAgent>() {
                    let deciding = views::get(lua)?.deciding().map(|(_, i)| i);
                    // Kept bounded: a long id is kept as its quote, with no suggestion.
                    let id = crate::bounded::within(&id, crate::bounded::NAME_BYTES)
                        .map_err(|_| crate::bounded::quote_lua(&id));
                    unknown.0.replace(Some((w.tick, deciding, id)));
                }
                Ok(Value::Nil)
            }
        }
    })
}

/// The last id `world:agent` found no agent for, with the tick and the deciding agent it was
/// asked in (app data of the state, installed by the host). `world:agent` returns nil for an
/// unknown id, which a script may test for; but a nil passed on where a position is expected
/// (`move.chase(world:agent("theif"))`) is explained with it, if it was asked for in the same
/// decision ([`unknown_agent_hint`]). Only a miss writes it: a found agent costs nothing.
#[derive(Default)]
#[allow(clippy::type_complexity)]
pub(crate) struct UnknownAgent(
    std::cell::RefCell<Option<(u64, Option<usize>, Result<String, String>)>>,
);

/// `world:agent("theif") returned: no agent has that id (did you mean "thief"?)`, when
/// `world:agent` was last asked for an unknown id in the decision (tick and deciding agent)
/// running now; the suggestion is the closest id in the world.
pub(crate) fn unknown_agent_hint(lua: &Lua) -> Option<String> {
    let (tick, deciding, id) = lua.app_data_ref::<UnknownAgent>()?.0.borrow().clone()?;
    let now = views::get(lua).ok()?.deciding().map(|(_, i)| i);
    let lent = crate::lent::of(lua)?;
    lent.with(|w| {
        if w.tick != tick || now != deciding {
            return None;
        }
        let (quoted, meant) = match &id {
            Ok(id) => {
                let ids: Vec<&str> = w.agents.iter().map(|a| a.id.as_str()).collect();
                let meant = agentbox_core::scene::suggestion(id, &ids)
                    .map(|m| format!(" (did you mean {m:?}?)"))
                    .unwrap_or_default();
                (crate::bounded::quote(id.as_bytes()), meant)
            }
            Err(quoted) => (quoted.clone(), String::new()),
        };
        Some(format!(
            "world:agent({quoted}) returned: no agent has that id{meant}"
        ))
    })
    .flatten()
}

pub const AGENTS: Binding = Binding {
    name: "world:agents",
    params: &[p(
        "filter?",
        "agentbox.AgentsFilter",
        "`kind`, `within`, `around`.",
    )],
    returns: &[("agentbox.AgentView[]", "Matching agents in scene order.")],
    doc: "Agents, all or filtered by kind and distance. `within` uses the spatial index.",
    charge: Charge::Units("Without `within`, a quarter unit per agent in the world (a pass over every agent); 8 units per view returned."),
    make: Make::Function(|lua| lua.create_function(agents)),
};

fn agents(lua: &Lua, (_, filter): (Value, Value)) -> mlua::Result<Table> {
    let what = AGENTS.name;
    let filter = match filter {
        Value::Nil => None,
        Value::Table(t) => Some(t),
        Value::String(kind) => {
            return Err(located(
                lua,
                format!(
                    "world:agents takes a filter table, not a string: to list the agents of kind {kind}, write world:agents({{kind = {kind}}})",
                    kind = crate::bounded::quote_lua(&kind)
                ),
            ))
        }
        other => {
            return Err(located(
                lua,
                format!(
                    "world:agents takes a filter table like {{kind = \"guard\", within = 5}} or nothing, got {}",
                    other.type_name()
                ),
            ))
        }
    };
    let (kind, within, around): (Option<mlua::LuaString>, Option<f64>, Value) = match &filter {
        Some(f) => (f.get("kind")?, f.get("within")?, f.get("around")?),
        None => (None, None, Value::Nil),
    };
    // Compared in place: a kind is never copied.
    let kind = match &kind {
        Some(k) => Some(
            super::lookup_text(lua, k)?
                .ok_or_else(|| located(lua, "world:agents: kind must be UTF-8 text"))?,
        ),
        None => None,
    };
    with_world(lua, what, |w| {
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
                    Value::Nil => deciding_agent(lua, w, what)?,
                    v => (
                        to_pos(lua, v, Arg::field(what, 1, "around"))?,
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
}

pub const NEAREST: Binding = Binding {
    name: "world:nearest",
    params: &[
        p(
            "from",
            "agentbox.PosLike",
            "Where to measure from; an agent view is itself left out.",
        ),
        p("kind?", "string", "Only agents of this kind."),
    ],
    returns: &[
        (
            "agentbox.AgentView|nil",
            "The nearest agent (ties: the one listed first), or nil.",
        ),
        (
            "number|nil",
            "Its distance from `from` in tiles (nil when there is no agent).",
        ),
    ],
    doc: "The nearest agent and its distance, found with the spatial index. `local other, d = world:nearest(self, self.kind)` needs no position reads to compare the distance. As the last argument of a call it passes both: a one-target `move.*` ignores the distance, but where an options table follows, keep only the view with parentheses: `move.path_to((world:nearest(self)))`.",
    charge: Charge::None,
    make: Make::Function(|lua| {
        let full = lua.create_function(nearest)?;
        raw::nearest(lua, &raw::get(lua)?, full)
    }),
};

/// `world:nearest` for any arguments; its raw twin (`raw::nearest`) answers the deciding
/// agent's own `self` and hands everything else here. The query is `raw::nearest_of`, for
/// both.
fn nearest(
    lua: &Lua,
    (_, from, kind): (Value, Value, Option<mlua::LuaString>),
) -> mlua::Result<mlua::MultiValue> {
    with_world(lua, NEAREST.name, |w| {
        let views = views::get(lua)?;
        let from = match views.deciding() {
            Some((_, i)) if views.is_deciding_self(&from) => Origin::Agent(i),
            _ => Origin::Point(
                to_pos(lua, &from, Arg::new(NEAREST.name, 1))?,
                own_index(lua, w, &from)?,
            ),
        };
        let kind = kind.as_ref().map(|k| k.as_bytes());
        match raw::nearest_of(w, from, kind.as_deref()) {
            Some((i, distance)) => (views.view(lua, w, i)?, distance).into_lua_multi(lua),
            None => Value::Nil.into_lua_multi(lua),
        }
    })
}

pub const TICK: Binding = Binding {
    name: "world:tick",
    params: &[],
    returns: &[("integer", "Ticks applied so far.")],
    doc: "The current tick.",
    charge: Charge::None,
    make: Make::Function(|lua| raw::world_number(lua, WorldNumber::Tick)),
};

pub const TIME: Binding = Binding {
    name: "world:time",
    params: &[],
    returns: &[("number", "Simulated seconds since the start.")],
    doc: "Simulated time (ticks times the fixed step).",
    charge: Charge::None,
    make: Make::Function(|lua| raw::world_number(lua, WorldNumber::Time)),
};

pub const SIZE: Binding = Binding {
    name: "world:size",
    params: &[],
    returns: &[
        ("integer", "Width in tiles."),
        ("integer", "Height in tiles."),
    ],
    doc: "The map size.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(size)),
};

fn size(lua: &Lua, _: Value) -> mlua::Result<(i32, i32)> {
    with_world(lua, SIZE.name, |w| {
        Ok((w.grid().width(), w.grid().height()))
    })
}

pub const TERRAIN: Binding = Binding {
    name: "world:terrain",
    params: &[
        p("x", "number|agentbox.PosLike", "Column, or a position."),
        p("y?", "number", "Row, when x is a column."),
    ],
    returns: &[("string|nil", "The terrain name, or nil outside the map.")],
    doc: "The terrain at a tile.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(terrain)),
};

fn terrain(lua: &Lua, (_, args): (Value, Variadic<Value>)) -> mlua::Result<Option<String>> {
    with_world(lua, TERRAIN.name, |w| {
        let tile = tile_arg(lua, w, &args, TERRAIN.name)?;
        Ok(w.terrain_at(tile).map(|t| t.name.clone()))
    })
}

pub const BLOCKED: Binding = Binding {
    name: "world:blocked",
    params: &[
        p("x", "number|agentbox.PosLike", "Column, or a position."),
        p("y?", "number", "Row, when x is a column."),
    ],
    returns: &[(
        "boolean",
        "Whether the tile blocks movement and sight (outside the map: true).",
    )],
    doc: "Whether a tile is blocked.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(blocked)),
};

fn blocked(lua: &Lua, (_, args): (Value, Variadic<Value>)) -> mlua::Result<bool> {
    with_world(lua, BLOCKED.name, |w| {
        Ok(w.is_blocked(tile_arg(lua, w, &args, BLOCKED.name)?))
    })
}

pub const CRUMBS: Binding = Binding {
    name: "world:crumbs",
    params: &[p("id", "string", "The agent's id.")],
    returns: &[("agentbox.Tile[]", "Its breadcrumbs, newest first.")],
    doc: "The trail an agent leaves (its `breadcrumbs` setting).",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(crumbs)),
};

fn crumbs(lua: &Lua, (_, id): (Value, mlua::LuaString)) -> mlua::Result<Table> {
    with_world(lua, CRUMBS.name, |w| {
        match super::lookup_text(lua, &id)?.and_then(|id| w.agent(&id)) {
            Some(a) => tile_list(lua, &a.crumbs.tiles),
            None => Err(located(
                lua,
                format!(
                    "world:crumbs: no agent with id {}",
                    crate::bounded::quote_lua(&id)
                ),
            )),
        }
    })
}

pub const GOAL: Binding = Binding {
    name: "world:goal",
    params: &[],
    returns: &[("agentbox.Tile|nil", "The goal tile, or nil if none is set.")],
    doc: "A goal tile set by the designer (right-click in the window).",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(goal)),
};

fn goal(lua: &Lua, _: Value) -> mlua::Result<Value> {
    with_world(lua, GOAL.name, |w| match w.goal {
        Some(tile) => Ok(Value::Table(tile_table(lua, tile)?)),
        None => Ok(Value::Nil),
    })
}

pub const MEMORY: Binding = Binding {
    name: "world:memory",
    params: &[p("id", "string", "The agent's id.")],
    returns: &[(
        "table|nil",
        "A read-only copy of its `self.memory` (at most 256 values), or nil for an agent without a script state.",
    )],
    doc: "An agent's memory, for `expect:` predicates (and `metrics:`). Agents' own scripts get an error: an agent cannot read another's mind.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(memory)),
};

fn memory(lua: &Lua, (_, id): (Value, String)) -> mlua::Result<Value> {
    if views::get(lua)?.deciding().is_some() {
        return Err(located(
            lua,
            "world:memory is for expect: and metrics:, not agents' scripts: an agent cannot read another's memory (share what it sees through its actions, or keep your own in self.memory)",
        ));
    }
    with_world(lua, MEMORY.name, |_| {
        let selves: Option<Table> = lua.named_registry_value(crate::SELVES).ok().flatten();
        let this: Option<Table> = match selves {
            Some(t) => t.raw_get(id.as_str())?,
            None => None,
        };
        match this {
            Some(this) => match this.raw_get::<Value>("memory")? {
                Value::Nil => {
                    crate::memory::read_only_copy(lua, &Value::Table(lua.create_table()?))
                }
                memory => crate::memory::read_only_copy(lua, &memory),
            },
            None => {
                let json = lua
                    .app_data_ref::<crate::memory::Snapshot>()
                    .and_then(|s| s.0.get(&id).cloned());
                match json {
                    Some(json) => {
                        let value = crate::convert::json_to_lua(lua, &json)?;
                        crate::memory::read_only_copy(lua, &value)
                    }
                    None => Ok(Value::Nil),
                }
            }
        }
    })
}

pub const WAYPOINTS: Binding = Binding {
    name: "world:waypoints",
    params: &[],
    returns: &[("agentbox.Tile[]", "The scene's waypoints.")],
    doc: "The scene's waypoints.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(waypoints)),
};

fn waypoints(lua: &Lua, _: Value) -> mlua::Result<Table> {
    with_world(lua, WAYPOINTS.name, |w| tile_list(lua, &w.waypoints))
}

/// The agent a view table (with an `id`) stands for, so queries around it leave it out.
pub(crate) fn own_index(lua: &Lua, w: &World, from: &Value) -> mlua::Result<Option<usize>> {
    if let Value::Table(t) = from {
        let views = views::get(lua)?;
        // A view (its `id` is read through its metatable, never raw).
        if let Some(i) = views.index_of(t.to_pointer()) {
            return Ok(Some(i));
        }
        // A `self` (its `id` is raw).
        if let Value::String(id) = t.raw_get::<Value>(&views.names[views::ID])? {
            return Ok(super::lookup_text(lua, &id)?.and_then(|id| w.agent_index(&id)));
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
                            crate::convert::lua_number(n)
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

#[cfg(test)]
mod tests {
    use crate::bindings::check;
    use agentbox_core::world::World;

    #[test]
    fn the_tile_queries_read_the_map_and_bound_what_is_off_it() {
        let map = || World::from_ascii(&["..#", "..."]);
        assert_eq!(
            check(map(), "local w, h = world:size(); return w == 3 and h == 2"),
            Ok(())
        );
        assert_eq!(
            check(
                map(),
                "return world:blocked(2, 0) and not world:blocked({x = 1, y = 1})"
            ),
            Ok(())
        );
        assert_eq!(
            check(
                map(),
                "return world:blocked(-50, 0) and world:terrain(99, 99) == nil"
            ),
            Ok(())
        );
        let outside = check(map(), "return world:blocked(0 / 0, 1)");
        assert!(outside.is_err_and(|e| e.contains("not a finite number")));
    }
}
