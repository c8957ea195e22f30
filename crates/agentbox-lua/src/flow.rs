//! The Lua side of flow fields: `nav.flow(goal, opts)` returns a read-only handle on the shared
//! field (`nav::flow`) with `:next(pos)`, `:cost(pos)` and `:goal()`. `move.flow_to(goal)` is
//! bound in `api.rs` beside the other one-target primitives.
//!
//! Budget: a `nav.flow` call is charged `16 + cells / 16` (a 512x512 map: 16,400 of the
//! 2,000,000 units a decision may spend) whether it built the field or found it cached: the
//! field is shared by every agent asking, so each asker pays a share of its building, and the
//! charge never depends on what the cache held (a run is charged the same in the window and
//! headless). `:next` and `:cost` are charged 4 each.
//!
//! Bad arguments are located errors (`script.lua:LINE: nav.flow: ...`); a panic in a binding
//! becomes a Lua error as for every function here (`errors.rs`).

use super::api::with_world;
use super::convert::{to_tile, Arg};
use super::errors::located;
use agentbox_core::nav::flow::{self, FlowField, FlowOptions};
use mlua::{Lua, Table, UserData, UserDataMethods, Value};
use std::rc::Rc;
use std::sync::Arc;

/// The largest body a field is built for (as `nav.path`'s `size`).
const MAX_BODY: i64 = 64;

/// The keys `nav.flow`'s `opts` may hold.
const KEYS: [&str; 2] = ["size", "diagonal"];

/// A script's handle on a field: the field itself, shared with the cache (it stays valid
/// after the cache drops it).
pub struct FlowHandle(pub Arc<FlowField>);

fn charge(lua: &Lua, units: u64) -> mlua::Result<()> {
    match lua.app_data_ref::<Rc<super::budget::Budget>>() {
        Some(budget) => budget.charge(units),
        None => Ok(()),
    }
}

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

/// Reads `nav.flow`'s options: `size` (1 to 64) and `diagonal`; anything else is an error.
fn options(lua: &Lua, opts: Option<Table>) -> mlua::Result<FlowOptions> {
    let mut o = FlowOptions::default();
    let Some(opts) = opts else { return Ok(o) };
    super::api::check_option_keys(lua, &opts, &KEYS, "nav.flow")?;
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
    if let Some(d) = super::api::diagonal_option(lua, &opts, "nav.flow")? {
        o.diagonal = d;
    }
    Ok(o)
}

/// Adds `nav.flow` to the `nav` table.
pub fn add(lua: &Lua, nav: &Table) -> mlua::Result<()> {
    nav.set(
        "flow",
        lua.create_function(|lua, (goal, opts): (Value, Option<Table>)| {
            with_world(lua, "nav.flow", |w| {
                let goal = to_tile(lua, &goal, Arg::new("nav.flow", 1))?;
                let opts = options(lua, opts)?;
                let cells = w.grid().width() as u64 * w.grid().height() as u64;
                charge(lua, 16 + cells / 16)?;
                match flow::field(w, goal, opts) {
                    Some(field) => lua.create_userdata(FlowHandle(field)).map(Value::UserData),
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
        })?,
    )
}
