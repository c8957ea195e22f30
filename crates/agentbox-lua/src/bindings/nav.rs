//! `nav.*`: navigation queries over the current map, as scripts see them (tiles are `{x, y}`
//! or `{x = , y = }` or agent views).
//!
//! - `nav.path(from, to, opts)` → `path, info`: the list of tiles from `from` to `to` (both
//!   included) or `nil`, and `info = {cost, expanded, complete, jps, open, closed}` (`open` and
//!   `closed` only with `sets = true`). No path when an end is blocked (for the body) or off the
//!   map, or the goal cannot be reached. `move.path_to(goal, opts)` follows such a route
//!   natively. The options are read by `options::path_options`. On small maps the list's
//!   tiles are shared read-only tables (`shared_tiles.rs`).
//! - `nav.los(a, b)`, `nav.line(a, b)`: line of sight and Bresenham cells. A line that only
//!   grazes a wall's corner does not see past it: a diagonal step of the line needs both side
//!   cells free, the rule movement uses, so an agent can walk every line it can see.
//! - `nav.sees(from, target, opts)`: range, view cone and line of sight.
//! - `nav.waypoint_route(from, to)` → `{from, node, ..., to}` or `nil`: the nearest node `from`
//!   sees, the node table's route to the node nearest `to` that sees it, then `to`.
//! - `nav.flow(goal, opts)`: a read-only handle on the shared Dijkstra field (`nav::flow`) with
//!   `:next(pos)`, `:cost(pos)` and `:goal()`.
//!
//! Memory: a flow handle's field is on the bill of the agent that asked while the handle
//! lives (`host_memory.rs`).
//!
//! Budget: each query charges the work it does in Rust (its declaration's `charge`). A
//! `nav.flow` call is charged `16 + cells / 16` (a 512x512 map: 16,400 of the 2,000,000 units
//! a decision may spend) whether it built the field or found it cached: the field is shared by
//! every agent asking, so each asker pays a share of its building, and the charge never depends
//! on what the cache held (a run is charged the same in the window and headless). A field's
//! `:next` and `:cost` are charged 4 each.
//!
//! Coordinates: NaN and infinities are errors naming the argument; points and tiles off the
//! map are bounded to one tile off it (`World::bound_pos`) before a query uses them.

use super::options::{flow_options, path_options, sight_options};
use super::world::own_index;
use super::{charge, p, with_world, Binding, Charge, Home, Library, Make};
use crate::convert::{tile_list, to_pos, to_tile, Arg};
use crate::errors::located;
use agentbox_core::nav::flow::{self, FlowField};
use agentbox_core::nav::{self, Line};
use agentbox_core::world::{centre_of, tile_of};
use mlua::{Lua, Table, UserData, UserDataMethods, Value};
use std::sync::Arc;

/// The `nav` library, in the order its table is made.
pub const NAV: Library = Library {
    home: Home::Nav,
    heading: "nav: navigation queries",
    doc: "Rust-native navigation queries over the current map.",
    bindings: &[LOS, SEES, LINE, PATH, WAYPOINT_ROUTE, FLOW],
};

pub const LOS: Binding = Binding {
    name: "nav.los",
    params: &[
        p("a", "agentbox.PosLike", "One end."),
        p("b", "agentbox.PosLike", "The other end."),
    ],
    returns: &[(
        "boolean",
        "Whether no blocked tile lies between the two tiles.",
    )],
    doc: "Line of sight between two tiles over the current map (false when either is off the map).",
    charge: Charge::Units("One unit per cell of the line."),
    make: Make::Function(|lua| lua.create_function(los)),
};

fn los(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<bool> {
    with_world(lua, LOS.name, |w| {
        let a = to_tile(lua, &a, Arg::new(LOS.name, 1))?;
        let b = to_tile(lua, &b, Arg::new(LOS.name, 2))?;
        charge(lua, Line::new(a, b).cells())?;
        let seen = nav::line_of_sight(w, a, b);
        if let Some(d) = crate::draw::get(lua) {
            d.note_query(lua, centre_of(a), centre_of(b), seen, None);
        }
        Ok(seen)
    })
}

pub const SEES: Binding = Binding {
    name: "nav.sees",
    params: &[
        p("from", "agentbox.PosLike", "The looker: an agent (its heading and `sense` are the defaults) or a position."),
        p("target", "agentbox.PosLike", "An agent view or a position."),
        p("opts?", "agentbox.SightOptions", "`range`, `fov`, `facing`."),
    ],
    returns: &[("boolean", "Whether the target is in range, inside the cone and in line of sight.")],
    doc: "What an agent sees: in range, in its view cone (`fov`, the full angle in degrees, facing its heading unless `facing` says otherwise) and in line of sight (as `nav.los`). `nav.sees(self, prey, {range = 8, fov = 90})`. The sight overlay (2) draws the calls a script made this tick.",
    charge: Charge::Units("One unit per cell of the line from the looker to the target, plus 4."),
    make: Make::Function(|lua| lua.create_function(sees)),
};

fn sees(lua: &Lua, (from, target, opts): (Value, Value, Option<Table>)) -> mlua::Result<bool> {
    let what = SEES.name;
    with_world(lua, what, |w| {
        let at = to_pos(lua, &from, Arg::new(what, 1))?;
        let to = to_pos(lua, &target, Arg::new(what, 2))?;
        let looker = own_index(lua, w, &from)?.and_then(|i| w.agents.get(i));
        let view = sight_options(lua, opts.as_ref(), looker, at, what)?;
        let (p, q) = (w.bound_pos(at).unwrap_or(at), w.bound_pos(to).unwrap_or(to));
        charge(lua, Line::new(tile_of(p), tile_of(q)).cells() + 4)?;
        let seen = nav::sees::sees(w, p, q, &view);
        if let Some(d) = crate::draw::get(lua) {
            d.note_query(lua, p, q, seen, Some(view));
        }
        Ok(seen)
    })
}

pub const LINE: Binding = Binding {
    name: "nav.line",
    params: &[
        p("a", "agentbox.PosLike", "First tile."),
        p("b", "agentbox.PosLike", "Last tile."),
    ],
    returns: &[("agentbox.Tile[]", "The cells from a to b, both included.")],
    doc: "Bresenham line between two tiles (ends off the map first moved to at most one tile off it; outside `init` and `decide`, with no map, lines longer than 4100 cells are an error).",
    charge: Charge::Units("4 units per cell returned."),
    make: Make::Function(|lua| lua.create_function(line)),
};

/// The most cells `nav.line` returns when its ends could not be bounded to a map (outside
/// `init` and `decide`): a little more than a line across the largest map a scene may have.
const MAX_LINE_CELLS: u64 = 4100;

fn line(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<Table> {
    let a = to_tile(lua, &a, Arg::new(LINE.name, 1))?;
    let b = to_tile(lua, &b, Arg::new(LINE.name, 2))?;
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
}

pub const PATH: Binding = Binding {
    name: "nav.path",
    params: &[
        p("from", "agentbox.PosLike", "Start tile."),
        p("to", "agentbox.PosLike", "Goal tile."),
        p("opts?", "agentbox.PathOptions", "Diagonal rule, heuristic, costs, body size, limits, algorithm."),
    ],
    returns: &[
        ("agentbox.Tile[]|nil", "The tiles from start to goal (both included), or nil if an end is blocked or off the map or the goal cannot be reached (`info.reason` says which). The list is yours; its tiles are read-only (copy the numbers to change them), and on maps of up to 128 x 128 cells each is one table shared by every path."),
        ("agentbox.PathInfo", "Cost, expansions, how the search went and, with no path, why."),
    ],
    doc: "A* (or jump point search where it is exact) over the current map, on the map's grid built once per map content and body size and shared by every query (a call pays only for its own search). `local p, info = nav.path(a, b); if not p then print(info.reason) end`.",
    charge: Charge::Units("16 units, plus 32 per node expanded and 4 per tile of the path returned (never the building of the shared grid, so the charge does not depend on what the cache held)."),
    make: Make::Function(|lua| lua.create_function(path)),
};

fn path(
    lua: &Lua,
    (from, to, opts): (Value, Value, Option<Table>),
) -> mlua::Result<(Value, Table)> {
    with_world(lua, PATH.name, |w| {
        let from = to_tile(lua, &from, Arg::new(PATH.name, 1))?;
        let to = to_tile(lua, &to, Arg::new(PATH.name, 2))?;
        let opts = path_options(lua, opts, PATH.name, false)?;
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
            Some(path) => {
                let (width, height) = (w.grid().width(), w.grid().height());
                Value::Table(crate::shared_tiles::path_list(lua, width, height, path)?)
            }
            None => Value::Nil,
        };
        Ok((path, info))
    })
}

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

pub const WAYPOINT_ROUTE: Binding = Binding {
    name: "nav.waypoint_route",
    params: &[
        p("from", "agentbox.PosLike", "Start tile."),
        p("to", "agentbox.PosLike", "Goal tile."),
    ],
    returns: &[("agentbox.Tile[]|nil", "`{from, node, ..., to}`, or nil when no route exists.")],
    doc: "A route over the scene's waypoints: the nearest node `from` sees, the node table's route to the node nearest `to` that sees it, then `to`.",
    charge: Charge::Units("For n waypoints, 8 n^2 units (a line of sight per pair) plus n^3 / 8 (all pairs' shortest routes)."),
    make: Make::Function(|lua| lua.create_function(waypoint_route)),
};

fn waypoint_route(lua: &Lua, (from, to): (Value, Value)) -> mlua::Result<Value> {
    let what = WAYPOINT_ROUTE.name;
    with_world(lua, what, |w| {
        let from = to_tile(lua, &from, Arg::new(what, 1))?;
        let to = to_tile(lua, &to, Arg::new(what, 2))?;
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
}

pub const FLOW: Binding = Binding {
    name: "nav.flow",
    params: &[
        p("goal", "agentbox.PosLike", "The goal (rounded to its tile; an error when off the map)."),
        p("opts?", "{size?: integer, diagonal?: \"no_corner_cutting\"|\"one_side\"|\"always\"|\"never\"}", "Body size (1 to 64) and diagonal rule, as `nav.path`'s; other keys are errors."),
    ],
    returns: &[("agentbox.FlowField", "The field: `field:next(pos)`, `field:cost(pos)`, `field:goal()`.")],
    doc: "The Dijkstra flow field towards a goal tile: every tile's cheapest cost to the goal and first step. One field per goal tile, map content, body size and diagonal rule, kept in a cache of at most 64 MB (least recently used dropped) and shared by every caller and `move.flow_to`. A handle keeps its field alive, so while it lives the field's bytes count against the memory share of the agent that asked (a hoard of handles is a memory stop).",
    charge: Charge::Units("16 + cells / 16 units (cells: the map's tiles), whether or not the field was cached; a field's `:next` and `:cost` 4 each."),
    make: Make::Function(|lua| lua.create_function(flow)),
};

fn flow(lua: &Lua, (goal, opts): (Value, Option<Table>)) -> mlua::Result<Value> {
    with_world(lua, FLOW.name, |w| {
        let goal = to_tile(lua, &goal, Arg::new(FLOW.name, 1))?;
        let opts = flow_options(lua, opts)?;
        let cells = w.grid().width() as u64 * w.grid().height() as u64;
        charge(lua, 16 + cells / 16)?;
        match flow::field(w, goal, opts) {
            Some(field) => {
                // The handle may keep its field alive after the cache drops it: on the bill.
                let bill = crate::host_memory::keep(lua, "nav.flow handles", field.bytes())?;
                lua.create_userdata(FlowHandle(field, bill))
                    .map(Value::UserData)
            }
            None => Err(located(
                lua,
                format!(
                    "nav.flow: the goal {}, {} is off the map ({} x {})",
                    goal.x,
                    goal.y,
                    w.grid().width(),
                    w.grid().height()
                ),
            )),
        }
    })
}

/// A script's handle on a flow field (`nav.flow`'s result): the field itself, shared with the
/// cache (it stays valid after the cache drops it). Its methods are documented with the
/// `agentbox.FlowField` class (`registry.rs`). The field's bytes are on the bill of the agent
/// that asked for it while the handle lives (`host_memory.rs`): 1,800 handles kept in
/// `self.memory` would otherwise hold 588 MB of fields the cache had let go.
pub struct FlowHandle(
    pub Arc<FlowField>,
    // Kept for its `Drop`, which gives the field's bytes back to the agent's account.
    #[allow(dead_code)] crate::host_memory::Bill,
);

fn xy(lua: &Lua, t: glam::IVec2) -> mlua::Result<Table> {
    let out = lua.create_table_with_capacity(0, 2)?;
    out.raw_set("x", t.x)?;
    out.raw_set("y", t.y)?;
    Ok(out)
}

impl UserData for FlowHandle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("next", |lua, this, pos: Value| {
            charge(lua, 4)?;
            let t = to_tile(lua, &pos, Arg::new("field:next", 1))?;
            match this.0.next(t) {
                Some(n) => Ok(Value::Table(xy(lua, n)?)),
                None => Ok(Value::Nil),
            }
        });
        methods.add_method("cost", |lua, this, pos: Value| {
            charge(lua, 4)?;
            let t = to_tile(lua, &pos, Arg::new("field:cost", 1))?;
            Ok(this.0.cost(t))
        });
        methods.add_method("goal", |lua, this, ()| xy(lua, this.0.goal()));
        methods.add_meta_method(mlua::MetaMethod::ToString, |_, this, ()| {
            let g = this.0.goal();
            Ok(format!("flow field to {}, {}", g.x, g.y))
        });
    }
}
