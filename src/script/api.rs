//! The Lua API: the `world` object handed to `decide`, and the `move` and `nav` tables.
//! Every function here reads the world of the tick being decided; none changes it.

use super::convert::{agent_view, tile_list, to_pos, to_target, to_tile, LuaAction};
use super::errors::located;
use crate::nav::{self, Diagonal, Heuristic, PathOptions};
use crate::world::{Action, World};
use mlua::{Lua, Table, UserData, UserDataMethods, Value, Variadic};
use std::rc::Rc;

/// The world of the tick being decided, set by the host around each round of decisions.
pub struct CurrentWorld(pub Rc<World>);

/// Runs `f` with the current world, or fails with a clear message outside a decision.
fn with_world<R>(
    lua: &Lua,
    what: &str,
    f: impl FnOnce(&World) -> mlua::Result<R>,
) -> mlua::Result<R> {
    let world = lua
        .app_data_ref::<CurrentWorld>()
        .map(|w| Rc::clone(&w.0))
        .ok_or_else(|| {
            located(
                lua,
                format!("{what} can only be used inside init or decide"),
            )
        })?;
    f(&world)
}

/// The `world` argument of `decide`.
pub struct LuaWorld;

impl UserData for LuaWorld {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("agent", |lua, _, id: String| {
            with_world(lua, "world:agent", |w| match w.agent(&id) {
                Some(a) => Ok(Value::Table(agent_view(lua, a)?)),
                None => Ok(Value::Nil),
            })
        });
        methods.add_method("agents", |lua, _, filter: Option<Table>| {
            let kind: Option<String> = match &filter {
                Some(f) => f.get("kind")?,
                None => None,
            };
            with_world(lua, "world:agents", |w| {
                let list = lua.create_table()?;
                let matching = w
                    .agents
                    .iter()
                    .filter(|a| kind.as_deref().is_none_or(|k| a.kind == k));
                for (i, a) in matching.enumerate() {
                    list.raw_set(i + 1, agent_view(lua, a)?)?;
                }
                Ok(list)
            })
        });
        methods.add_method(
            "nearest",
            |lua, _, (from, kind): (Value, Option<String>)| {
                with_world(lua, "world:nearest", |w| {
                    let origin = to_pos(lua, &from, "world:nearest")?;
                    let own_id: Option<String> = match &from {
                        Value::Table(t) => t.raw_get("id")?,
                        _ => None,
                    };
                    let best = w
                        .agents
                        .iter()
                        .filter(|a| own_id.as_deref() != Some(a.id.as_str()))
                        .filter(|a| kind.as_deref().is_none_or(|k| a.kind == k))
                        .min_by(|a, b| {
                            origin
                                .distance_squared(a.pos)
                                .total_cmp(&origin.distance_squared(b.pos))
                        });
                    match best {
                        Some(a) => Ok(Value::Table(agent_view(lua, a)?)),
                        None => Ok(Value::Nil),
                    }
                })
            },
        );
        methods.add_method("tick", |lua, _, ()| {
            with_world(lua, "world:tick", |w| Ok(w.tick))
        });
        methods.add_method("time", |lua, _, ()| {
            with_world(lua, "world:time", |w| Ok(w.time()))
        });
        methods.add_method("size", |lua, _, ()| {
            with_world(lua, "world:size", |w| {
                Ok((w.grid().width(), w.grid().height()))
            })
        });
        methods.add_method("terrain", |lua, _, args: Variadic<Value>| {
            with_world(lua, "world:terrain", |w| {
                let tile = tile_arg(lua, &args, "world:terrain")?;
                Ok(w.terrain_at(tile).map(|t| t.name.clone()))
            })
        });
        methods.add_method("blocked", |lua, _, args: Variadic<Value>| {
            with_world(lua, "world:blocked", |w| {
                Ok(w.is_blocked(tile_arg(lua, &args, "world:blocked")?))
            })
        });
        methods.add_method("crumbs", |lua, _, id: String| {
            with_world(lua, "world:crumbs", |w| match w.agent(&id) {
                Some(a) => tile_list(lua, &a.crumbs.tiles),
                None => Err(located(
                    lua,
                    format!("world:crumbs: no agent with id {id:?}"),
                )),
            })
        });
        methods.add_method("goal", |lua, _, ()| {
            with_world(lua, "world:goal", |w| match w.goal {
                Some(tile) => Ok(Value::Table(super::convert::tile_table(lua, tile)?)),
                None => Ok(Value::Nil),
            })
        });
        methods.add_method("waypoints", |lua, _, ()| {
            with_world(lua, "world:waypoints", |w| tile_list(lua, &w.waypoints))
        });
    }
}

/// A tile from `(x, y)` numbers or one position argument.
fn tile_arg(lua: &Lua, args: &[Value], what: &str) -> mlua::Result<glam::IVec2> {
    match args {
        [Value::Integer(_) | Value::Number(_), Value::Integer(_) | Value::Number(_), ..] => {
            let n = |v: &Value| {
                v.as_number()
                    .or(v.as_integer().map(|i| i as f64))
                    .unwrap_or(0.0)
            };
            Ok(glam::IVec2::new(
                n(&args[0]).round() as i32,
                n(&args[1]).round() as i32,
            ))
        }
        [v, ..] => to_tile(lua, v, what),
        [] => Err(located(lua, format!("{what}: expected a tile"))),
    }
}

fn action(a: Action) -> LuaAction {
    LuaAction(a)
}

/// The `move` table: each function returns an action for `decide` to return.
pub fn move_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "stop",
        lua.create_function(|_, ()| Ok(action(Action::Stop)))?,
    )?;
    t.set(
        "chase",
        lua.create_function(|lua, target: Value| {
            with_world(lua, "move.chase", |w| {
                Ok(action(Action::Chase(to_target(
                    lua,
                    w,
                    &target,
                    "move.chase",
                )?)))
            })
        })?,
    )?;
    t.set(
        "evade",
        lua.create_function(|lua, target: Value| {
            with_world(lua, "move.evade", |w| {
                Ok(action(Action::Evade(to_target(
                    lua,
                    w,
                    &target,
                    "move.evade",
                )?)))
            })
        })?,
    )?;
    t.set(
        "to",
        lua.create_function(|lua, point: Value| {
            Ok(action(Action::To(to_pos(lua, &point, "move.to")?)))
        })?,
    )?;
    t.set(
        "path_to",
        lua.create_function(|lua, goal: Value| {
            Ok(action(Action::PathTo(to_tile(lua, &goal, "move.path_to")?)))
        })?,
    )?;
    Ok(t)
}

fn path_options(lua: &Lua, opts: Option<Table>) -> mlua::Result<PathOptions> {
    let mut o = PathOptions::default();
    let Some(opts) = opts else { return Ok(o) };
    if let Some(d) = opts.get::<Option<String>>("diagonal")? {
        o.diagonal = match d.as_str() {
            "never" => Diagonal::Never,
            "no_corner_cutting" => Diagonal::NoCornerCutting,
            "one_side" => Diagonal::IfOneSideFree,
            "always" => Diagonal::Always,
            other => {
                return Err(located(
                    lua,
                    format!("nav.path: diagonal must be never, no_corner_cutting, one_side or always, got {other:?}"),
                ))
            }
        };
    }
    if let Some(h) = opts.get::<Option<String>>("heuristic")? {
        o.heuristic = match h.as_str() {
            "octile" => Heuristic::Octile,
            "manhattan" => Heuristic::Manhattan,
            "euclidean" => Heuristic::Euclidean,
            "zero" => Heuristic::Zero,
            other => {
                return Err(located(
                    lua,
                    format!("nav.path: heuristic must be octile, manhattan, euclidean or zero, got {other:?}"),
                ))
            }
        };
    }
    Ok(o)
}

/// The `nav` table: line of sight, lines and A* over the current map.
pub fn nav_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "los",
        lua.create_function(|lua, (a, b): (Value, Value)| {
            with_world(lua, "nav.los", |w| {
                let (a, b) = (to_tile(lua, &a, "nav.los")?, to_tile(lua, &b, "nav.los")?);
                Ok(nav::line_of_sight(w, a, b))
            })
        })?,
    )?;
    t.set(
        "line",
        lua.create_function(|lua, (a, b): (Value, Value)| {
            let (a, b) = (to_tile(lua, &a, "nav.line")?, to_tile(lua, &b, "nav.line")?);
            if (a - b).abs().max_element() > 100_000 {
                return Err(located(lua, "nav.line: the ends are too far apart"));
            }
            tile_list(lua, &nav::bresenham(a, b))
        })?,
    )?;
    t.set(
        "path",
        lua.create_function(|lua, (from, to, opts): (Value, Value, Option<Table>)| {
            with_world(lua, "nav.path", |w| {
                let from = to_tile(lua, &from, "nav.path")?;
                let to = to_tile(lua, &to, "nav.path")?;
                let opts = path_options(lua, opts)?;
                match nav::find_path(w, from, to, &opts) {
                    Some(path) => Ok(Value::Table(tile_list(lua, &path)?)),
                    None => Ok(Value::Nil),
                }
            })
        })?,
    )?;
    Ok(t)
}
