//! Conversions between Lua values and the world's Rust types: positions, targets, actions,
//! agent views and the scene's `params`.

use super::errors::located;
use super::hot::ActionBook;
use super::views::{ID, POS, X, Y};
use crate::world::{Action, AgentRef, Target, World};
use glam::{DVec2, IVec2};
use mlua::{AnyUserData, Lua, MetaMethod, Table, UserData, UserDataMethods, Value};
use std::cell::Cell;
use std::rc::{Rc, Weak};

/// An action returned by a `move.*` function, handed back by `decide`. Made only by
/// [`make_action`], which lists it in the state's [`ActionBook`] by address until it is
/// collected, so the decision loop can read it without an mlua type check.
#[derive(Debug)]
pub struct LuaAction {
    pub action: Action,
    book: Weak<ActionBook>,
    at: Cell<usize>,
}

impl Drop for LuaAction {
    fn drop(&mut self) {
        if let Some(book) = self.book.upgrade() {
            book.remove(self.at.get());
        }
    }
}

impl UserData for LuaAction {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("move.{}", this.action.name()))
        });
        methods.add_method("name", |_, this, ()| Ok(this.action.name()));
    }
}

/// A new action userdata, listed in the book.
pub fn make_action(lua: &Lua, action: Action) -> mlua::Result<AnyUserData> {
    let book = super::hot::get(lua)?.book.clone();
    let ud = lua.create_userdata(LuaAction {
        action: action.clone(),
        book: Rc::downgrade(&book),
        at: Cell::new(0),
    })?;
    let at = ud.to_pointer() as usize;
    ud.borrow::<LuaAction>()?.at.set(at);
    book.insert(at, action);
    Ok(ud)
}

/// A position from `{x = , y = }`, `{a, b}` or an agent view (its `pos`).
pub fn to_pos(lua: &Lua, value: &Value, what: &str) -> mlua::Result<DVec2> {
    if let Value::Table(t) = value {
        let views = super::views::get(lua)?;
        if let Some(p) = read_xy(&views, t)? {
            return Ok(p);
        }
        // A view's `pos` is filled in on first read, through its metatable.
        if let Value::Table(pos) = t.get::<Value>(&views.names[POS])? {
            if let Some(p) = read_xy(&views, &pos)? {
                return Ok(p);
            }
        }
    }
    Err(located(
        lua,
        format!(
            "{what}: expected a position like {{x = 1, y = 2}} or {{1, 2}}, got {}",
            value.type_name()
        ),
    ))
}

fn read_xy(views: &super::views::Views, t: &Table) -> mlua::Result<Option<DVec2>> {
    let pair = |a: Value, b: Value| match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => Some(DVec2::new(x as f64, y as f64)),
        (Value::Number(x), Value::Integer(y)) => Some(DVec2::new(x, y as f64)),
        (Value::Integer(x), Value::Number(y)) => Some(DVec2::new(x as f64, y)),
        (Value::Number(x), Value::Number(y)) => Some(DVec2::new(x, y)),
        _ => None,
    };
    let x: Value = t.raw_get(&views.names[X])?;
    let named = if x.is_nil() {
        None
    } else {
        pair(x, t.raw_get(&views.names[Y])?)
    };
    let p = match named {
        Some(p) => Some(p),
        None => match t.raw_get::<Value>(1)? {
            Value::Nil => None,
            first => pair(first, t.raw_get(2)?),
        },
    };
    Ok(p.filter(|p| p.is_finite()))
}

/// A tile from a position (rounded to the nearest tile centre).
pub fn to_tile(lua: &Lua, value: &Value, what: &str) -> mlua::Result<IVec2> {
    let p = to_pos(lua, value, what)?;
    Ok(IVec2::new(p.x.round() as i32, p.y.round() as i32))
}

/// A target: an agent id, an agent view (followed as it moves) or a fixed position.
pub fn to_target(lua: &Lua, world: &World, value: &Value, what: &str) -> mlua::Result<Target> {
    let id = match value {
        Value::String(s) => Some(s.to_str()?.to_string()),
        Value::Table(t) => match t.raw_get::<Value>(&super::views::get(lua)?.names[ID])? {
            Value::String(s) => Some(s.to_str()?.to_string()),
            _ => None,
        },
        _ => None,
    };
    match id {
        Some(id) => match world.agent_index(&id) {
            Some(i) => Ok(Target::Agent(AgentRef::new(id, i))),
            None => Err(located(lua, format!("{what}: no agent with id {id:?}"))),
        },
        None => Ok(Target::Point(to_pos(lua, value, what)?)),
    }
}

/// `{x = , y = }` with integer coordinates, for tiles.
pub fn tile_table(lua: &Lua, tile: IVec2) -> mlua::Result<Table> {
    let t = lua.create_table_with_capacity(0, 2)?;
    t.raw_set("x", tile.x)?;
    t.raw_set("y", tile.y)?;
    Ok(t)
}

/// A list of tiles as a Lua array of `{x, y}` tables.
pub fn tile_list<'a>(lua: &Lua, tiles: impl IntoIterator<Item = &'a IVec2>) -> mlua::Result<Table> {
    let list = lua.create_table()?;
    for (i, t) in tiles.into_iter().enumerate() {
        list.raw_set(i + 1, tile_table(lua, *t)?)?;
    }
    Ok(list)
}

/// JSON (the scene's `params`) as Lua values.
pub fn json_to_lua(lua: &Lua, value: &serde_json::Value) -> mlua::Result<Value> {
    Ok(match value {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => Value::String(lua.create_string(s)?),
        serde_json::Value::Array(items) => {
            let t = lua.create_table_with_capacity(items.len(), 0)?;
            for (i, item) in items.iter().enumerate() {
                t.raw_set(i + 1, json_to_lua(lua, item)?)?;
            }
            Value::Table(t)
        }
        serde_json::Value::Object(map) => {
            let t = lua.create_table_with_capacity(0, map.len())?;
            for (k, v) in map {
                t.raw_set(k.as_str(), json_to_lua(lua, v)?)?;
            }
            Value::Table(t)
        }
    })
}
