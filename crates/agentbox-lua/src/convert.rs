//! Conversions between Lua values and the world's Rust types: positions, targets, actions,
//! agent views and the scene's `params`. Positions are where a script's coordinates meet the
//! map's bounds: a coordinate that is not finite is a located error naming the argument
//! ([`Arg`]); a point for a primitive or a query is bounded with `World::bound_pos`, the rule
//! the core applies again when it runs.

use super::errors::located;
use super::views::{ID, POS, X, Y};
use agentbox_core::world::spatial::FastMap;
use agentbox_core::world::{tile_of, Action, AgentRef, Target, World};
use glam::{DVec2, IVec2};
use mlua::{ffi, AnyUserData, Lua, MetaMethod, Table, UserData, UserDataMethods, Value};
use std::cell::{Cell, RefCell};
use std::ffi::c_int;
use std::rc::{Rc, Weak};

/// Every live action userdata by address (entries leave when the userdata is collected), so
/// the decision loop reads what `decide` returned without an mlua type check. Each entry
/// points at the action inside its userdata's `LuaAction`, so an action is kept once (a
/// crowd keeps tens of thousands of them in the `move.*` caches), not once more here.
#[derive(Default)]
pub struct ActionBook(RefCell<FastMap<usize, *const Action>>);

impl ActionBook {
    /// Lists the action `action` of the userdata at `at`.
    ///
    /// # Safety
    /// `action` points into a [`LuaAction`] that stays where it is until its `Drop` removes
    /// the entry (mlua keeps a userdata's value in one allocation for its life; nothing here
    /// takes the value out of its userdata).
    unsafe fn insert(&self, at: usize, action: *const Action) {
        self.0.borrow_mut().insert(at, action);
    }

    fn remove(&self, at: usize) {
        self.0.borrow_mut().remove(&at);
    }

    /// The action of the userdata at `at`, if it is one.
    #[inline]
    pub fn get(&self, at: usize) -> Option<Action> {
        let book = self.0.borrow();
        let action = *book.get(&at)?;
        // SAFETY: an entry lives only while its `LuaAction` does (its `Drop` removes it, and
        // `insert`'s contract keeps it in place), and no action is changed after it is made.
        Some(unsafe { (*action).clone() })
    }
}

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
        // `action:*`, as declared in `bindings/action.rs`.
        for binding in crate::bindings::action::ACTION.bindings {
            if let crate::bindings::Make::ActionMethod(method) = binding.make {
                methods.add_method(binding.short_name(), move |_, this, ()| {
                    Ok(method(&this.action))
                });
            }
        }
    }
}

/// A new action userdata, listed in the book.
pub fn make_action(lua: &Lua, action: Action) -> mlua::Result<AnyUserData> {
    let book = super::raw::get(lua)?.book.clone();
    let ud = lua.create_userdata(LuaAction {
        action,
        book: Rc::downgrade(&book),
        at: Cell::new(0),
    })?;
    let at = ud.to_pointer() as usize;
    let kept = ud.borrow::<LuaAction>()?;
    kept.at.set(at);
    // `kept.action` lives inside the userdata's value, which mlua holds in one
    // allocation until the userdata is collected, when `LuaAction::drop` removes the entry;
    // the value is never taken out of the userdata nor borrowed mutably (`UserData` adds only
    // `&self` methods).
    // SAFETY: as said above.
    unsafe { book.insert(at, &kept.action) };
    drop(kept);
    Ok(ud)
}

/// Which argument of which function a value is, for error messages in Lua's words:
/// `bad argument #2 to 'nav.los'`, or `bad argument #1 to 'move.potential' (field 'target')`
/// for a value read from an options table.
#[derive(Clone, Copy, Debug)]
pub struct Arg<'a> {
    pub func: &'a str,
    pub n: u8,
    pub field: Option<&'a str>,
}

impl<'a> Arg<'a> {
    /// Argument `n` (from 1, not counting a method's `self`) of `func`.
    pub const fn new(func: &'a str, n: u8) -> Self {
        Arg {
            func,
            n,
            field: None,
        }
    }

    /// The field `field` of the options table that is argument `n` of `func`.
    pub const fn field(func: &'a str, n: u8, field: &'a str) -> Self {
        Arg {
            func,
            n,
            field: Some(field),
        }
    }
}

impl std::fmt::Display for Arg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad argument #{} to '{}'", self.n, self.func)?;
        match self.field {
            Some(field) => write!(f, " (field '{field}')"),
            None => Ok(()),
        }
    }
}

/// A number as Lua prints it, for error messages (`nan`, `inf`, `-inf`).
pub fn lua_number(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else {
        v.to_string()
    }
}

/// A position from `{x = , y = }`, `{a, b}` or an agent view (its `pos`), exactly as given:
/// for queries that measure distances from it (`world:nearest`, `world:agents`). Both
/// coordinates must be finite: NaN or an infinity is an error naming the argument and the
/// coordinate.
pub fn to_pos(lua: &Lua, value: &Value, arg: Arg) -> mlua::Result<DVec2> {
    if let Value::Table(t) = value {
        let views = super::views::get(lua)?;
        let mut p = read_xy(&views, t)?;
        if p.is_none() {
            // A view's `pos` is read through its metatable.
            if let Value::Table(pos) = t.get::<Value>(&views.names[POS])? {
                p = read_xy(&views, &pos)?;
            }
        }
        if let Some(p) = p {
            for (name, v) in [("x", p.x), ("y", p.y)] {
                if !v.is_finite() {
                    return Err(located(
                        lua,
                        format!(
                            "{arg}: {name} is not a finite number (got {})",
                            lua_number(v)
                        ),
                    ));
                }
            }
            return Ok(p);
        }
    }
    // A nil that `world:agent` returned this decision for an unknown id says so.
    let why = match value {
        Value::Nil => super::bindings::world::unknown_agent_hint(lua)
            .map(|hint| format!(", which {hint}"))
            .unwrap_or_default(),
        _ => String::new(),
    };
    Err(located(
        lua,
        format!(
            "{arg}: expected a position like {{x = 1, y = 2}} or {{1, 2}}, got {}{why}",
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
    Ok(match named {
        Some(p) => Some(p),
        None => match t.raw_get::<Value>(1)? {
            // An agent's `pos` (a read-only proxy) or a table of the script's with `__index`:
            // read it as Lua would.
            Value::Nil if t.metatable().is_some() => {
                pair(t.get(&views.names[X])?, t.get(&views.names[Y])?)
            }
            Value::Nil => None,
            first => pair(first, t.raw_get(2)?),
        },
    })
}

/// A finite position bounded to within one tile of the current map ([`World::bound_pos`]):
/// what a `move.*` primitive or a `nav.*` query is handed. Outside `init` and `decide` there
/// is no map to bound it to; the primitive bounds it when it runs.
pub fn to_point(lua: &Lua, value: &Value, arg: Arg) -> mlua::Result<DVec2> {
    let p = to_pos(lua, value, arg)?;
    let bounded = super::lent::of(lua).and_then(|lent| lent.with(|w| w.bound_pos(p)));
    Ok(bounded.flatten().unwrap_or(p))
}

/// A tile from a position (rounded to the nearest tile centre), bounded as [`to_point`].
pub fn to_tile(lua: &Lua, value: &Value, arg: Arg) -> mlua::Result<IVec2> {
    Ok(tile_of(to_point(lua, value, arg)?))
}

/// A target: an agent id, an agent view (followed as it moves) or a fixed position (bounded
/// to within one tile of the map, as [`to_point`]).
pub fn to_target(lua: &Lua, world: &World, value: &Value, arg: Arg) -> mlua::Result<Target> {
    // An id is looked up in place; only a bounded quote of an unknown one is copied.
    let by_id = |s: &mlua::LuaString| -> mlua::Result<Result<usize, String>> {
        let found = crate::bindings::lookup_text(lua, s)?.and_then(|id| world.agent_index(&id));
        Ok(found.ok_or_else(|| crate::bounded::quote_lua(s)))
    };
    let found = match value {
        Value::String(s) => Some(by_id(s)?),
        Value::Table(t) => {
            let views = super::views::get(lua)?;
            // A view: its `id` is read through its metatable, never raw.
            match views.index_of(t.to_pointer()) {
                Some(i) => world.agents.get(i).map(|_| Ok(i)),
                // A `self` (its `id` is raw), or a table with an `id` of the script's own.
                None => match t.raw_get::<Value>(&views.names[ID])? {
                    Value::String(s) => Some(by_id(&s)?),
                    _ => None,
                },
            }
        }
        _ => None,
    };
    match found {
        Some(found) => match found {
            Ok(i) => Ok(Target::Agent(AgentRef::new(world.agents[i].id.as_str(), i))),
            Err(id) => Err(located(lua, format!("{arg}: no agent with id {id}"))),
        },
        None => {
            let p = to_pos(lua, value, arg)?;
            Ok(Target::Point(world.bound_pos(p).unwrap_or(p)))
        }
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
///
/// Built in one protected call with the raw API: through `Table::raw_set` every table and
/// every field is a protected call of its own while a memory limit is set (three per tile),
/// which made handing a path back cost more than finding it.
pub fn tile_list<'a>(lua: &Lua, tiles: impl IntoIterator<Item = &'a IVec2>) -> mlua::Result<Table> {
    let tiles: Vec<IVec2> = tiles.into_iter().copied().collect();
    let tiles = tiles.as_slice();
    let n = c_int::try_from(tiles.len()).unwrap_or(c_int::MAX);
    // Inside `exec_raw` the state is valid and the call is protected; the closure pushes the
    // list and at most two values more (within the stack a C call is guaranteed), and leaves
    // the list alone on the stack as the result.
    // SAFETY: as said above; a memory error unwinds past the closure, which holds only a
    // borrowed slice (nothing to drop).
    unsafe {
        lua.exec_raw::<Table>((), |state| {
            ffi::lua_createtable(state, n, 0);
            for (i, t) in tiles.iter().enumerate() {
                ffi::lua_createtable(state, 0, 2);
                ffi::lua_pushinteger(state, t.x as ffi::lua_Integer);
                ffi::lua_setfield(state, -2, c"x".as_ptr());
                ffi::lua_pushinteger(state, t.y as ffi::lua_Integer);
                ffi::lua_setfield(state, -2, c"y".as_ptr());
                ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
            }
        })
    }
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
