//! Conversions between Lua values and the world's Rust types: positions, targets, actions,
//! agent views and the scene's `params`. Positions are where a script's coordinates meet the
//! map's bounds: a coordinate that is not finite is a located error naming the argument
//! ([`Arg`]); a point for a primitive or a query is bounded with `World::bound_pos`, the rule
//! the core applies again when it runs.

use super::errors::located;
use super::views::{ID, POS, X, Y};
use agentbox_core::world::{tile_of, Action, AgentRef, Target, World};
use glam::{DVec2, IVec2};
use mlua::{ffi, AnyUserData, Lua, Table, Value};
use std::ffi::{c_int, c_void};

/// The metatable every action shares, made once per state ([`ActionMeta::new`], kept in the
/// raw context): an action is a full userdata whose block is the [`Action`] itself, known by
/// this metatable. So an action costs one Lua block (its userdata), not also a boxed copy in
/// Rust and an entry in a table of live actions by address, as an mlua userdata did: a crowd
/// keeps tens of thousands of them in the `move.*` caches. The decision loop reads what
/// `decide` returned by comparing the metatable's address ([`action_at`]), without mlua.
pub struct ActionMeta {
    table: Table,
    ptr: *const c_void,
}

// A userdata's block is aligned for any C type (Lua's `LUAI_MAXALIGN`: 8 bytes on the
// platforms Lua runs on here); an `Action` needs no more.
const _: () = assert!(std::mem::align_of::<Action>() <= 8);

impl ActionMeta {
    /// The metatable: `action:*` (as declared in `bindings/action.rs`) in its `__index`,
    /// `__tostring` (`move.chase`), and `__gc`, which drops the action in place.
    pub fn new(lua: &Lua) -> mlua::Result<ActionMeta> {
        let table = lua.create_table()?;
        let methods = lua.create_table()?;
        for binding in crate::bindings::action::ACTION.bindings {
            if let crate::bindings::Make::ActionMethod(method) = binding.make {
                let name = binding.name;
                let f =
                    lua.create_function(move |lua, this: Value| match action_of(lua, &this) {
                        Some(action) => Ok(method(&action)),
                        None => Err(located(
                            lua,
                            format!(
                                "bad argument #1 to '{name}' (an action expected, got {})",
                                this.type_name()
                            ),
                        )),
                    })?;
                methods.raw_set(binding.short_name(), f)?;
            }
        }
        table.raw_set("__index", methods)?;
        let to_string = lua.create_function(|lua, this: Value| {
            Ok(action_of(lua, &this)
                .map_or_else(|| "userdata".into(), |a| format!("move.{}", a.name())))
        })?;
        table.raw_set("__tostring", to_string)?;
        // SAFETY: pushes a C function without upvalues (`lua_pushcclosure` with none
        // allocates nothing); `exec_raw` protects the call all the same.
        let gc = unsafe {
            lua.exec_raw::<mlua::Function>((), |state| {
                ffi::lua_pushcfunction(state, drop_action);
            })?
        };
        table.raw_set("__gc", gc)?;
        let ptr = table.to_pointer();
        Ok(ActionMeta { table, ptr })
    }

    /// The metatable's address, which marks a userdata as an action ([`action_at`]).
    pub fn ptr(&self) -> *const c_void {
        self.ptr
    }

    /// The metatable.
    pub fn table(&self) -> &Table {
        &self.table
    }
}

/// `__gc` of actions: drops the action in its block (Lua calls it once per userdata, and no
/// script can reach the metatable to call it: `getmetatable` shows no userdata's).
unsafe extern "C-unwind" fn drop_action(state: *mut ffi::lua_State) -> c_int {
    // Dropping an `Action` frees Rust memory only, and never panics.
    // SAFETY: Lua calls `__gc` with the userdata at 1, whose block holds an `Action` written
    // by `make_action` before the metatable was set.
    unsafe {
        let block = ffi::lua_touserdata(state, 1) as *mut Action;
        if !block.is_null() {
            std::ptr::drop_in_place(block);
        }
    }
    0
}

/// The action of the value at `at` on the stack, if it is an action (a userdata with the
/// actions' metatable `meta`).
///
/// # Safety
/// A live state with room for one value; the reference lives as long as the value does.
#[inline]
pub unsafe fn action_at<'a>(
    state: *mut ffi::lua_State,
    at: c_int,
    meta: *const c_void,
) -> Option<&'a Action> {
    // SAFETY: the caller's contract; these calls read the stack and never raise. Only
    // `make_action` sets this metatable, on a block holding an `Action`.
    unsafe {
        if ffi::lua_type(state, at) != ffi::LUA_TUSERDATA || ffi::lua_getmetatable(state, at) == 0 {
            return None;
        }
        let same = ffi::lua_topointer(state, -1) == meta;
        ffi::lua_settop(state, -2);
        let block = ffi::lua_touserdata(state, at) as *const Action;
        (same && !block.is_null()).then(|| &*block)
    }
}

/// The action a Lua value is, if it is one.
pub fn action_of(lua: &Lua, value: &Value) -> Option<Action> {
    let Value::UserData(ud) = value else {
        return None;
    };
    let meta = super::raw::get(lua).ok()?.actions.ptr();
    let mut found = None;
    // SAFETY: `exec_raw` pushes the userdata at 1; `action_at` reads it (one value more) and
    // the clone runs no Lua.
    unsafe {
        lua.exec_raw::<()>(ud, |state| {
            found = action_at(state, 1, meta).cloned();
        })
        .ok()?;
    }
    found
}

/// A new action userdata.
pub fn make_action(lua: &Lua, action: Action) -> mlua::Result<AnyUserData> {
    let context = super::raw::get(lua)?;
    let mut action = Some(action);
    // `exec_raw` pushes the metatable at 1 and runs this in a protected call. The block is
    // made first (it may raise a memory error, with `action` still outside the closure's
    // frame), then the action is written into it, then the metatable, with its `__gc`, is
    // set: from then on Lua drops the action when it collects the userdata. The userdata
    // then takes the metatable's place, as the one value left.
    // SAFETY: as said above; a new userdata's block is `size_of::<Action>()` bytes, aligned
    // for it (see the assertion by `ActionMeta`).
    unsafe {
        lua.exec_raw::<AnyUserData>(context.actions.table(), |state| {
            let size = std::mem::size_of::<Action>();
            let block = ffi::lua_newuserdatauv(state, size, 0) as *mut Action;
            match action.take() {
                Some(action) if block.align_offset(std::mem::align_of::<Action>()) == 0 => {
                    block.write(action);
                    ffi::lua_pushvalue(state, 1);
                    ffi::lua_setmetatable(state, -2);
                    // The userdata alone is the result.
                    ffi::lua_replace(state, 1);
                }
                // Not reached (see the assertion); leaves no userdata, so `exec_raw` fails.
                _ => ffi::lua_settop(state, 1),
            }
        })
    }
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
        let p = match views.index_of(t.to_pointer()) {
            // A view holds no raw field and its `__index` gives nothing for `x`, `y` or `1`:
            // only its `pos` is read, the proxy its `__index` would hand out (made on the
            // first read, as a script's `view.pos` makes it).
            Some(index) => read_xy(&views, &views.part(lua, index, POS)?)?,
            None => match read_xy(&views, t)? {
                Some(p) => Some(p),
                // A `self`'s `pos`, read as Lua would (raw once read, else its `__index`).
                None => match t.get::<Value>(&views.names[POS])? {
                    Value::Table(pos) => read_xy(&views, &pos)?,
                    _ => None,
                },
            },
        };
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
    // An agent's part proxy (`prey.pos`, `self.tile`): its numbers straight from the world
    // being decided, what its `__index` (or the numbers lent to it) would give, without a
    // call through Lua per coordinate.
    if let Some(p) = views.proxy_xy(t.to_pointer() as usize) {
        return Ok(Some(p));
    }
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

#[cfg(test)]
mod tests {
    use crate::ScriptHost;
    use agentbox_core::sim::Simulation;
    use agentbox_core::world::{Agent, Brain, Tile, World};

    /// A binding handed an agent's part proxy (`prey.pos`, `self.tile`, another's `vel`,
    /// lent or not) or an agent's view reads the numbers a script would copy out of it: each
    /// query answers what the same query on a plain copy answers, tick after tick.
    #[test]
    fn a_binding_reads_a_proxy_or_a_view_as_its_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let script = r#"
local function copy(p)
  if p.pos then p = p.pos end
  return { x = p.x, y = p.y }
end
return { decide = function(self, world)
  local seen = 0
  for _, a in ipairs(world:agents()) do
    for _, p in ipairs({ a.pos, a.vel, a.tile, a, self.pos, self.vel, self.tile, self }) do
      -- An agent (a view, `self`) is left out of its own nearest: ask from its `pos`.
      local o, d = world:nearest(p.pos or p)
      local w, wd = world:nearest(copy(p))
      if (o and o.id) ~= (w and w.id) or d ~= wd then
        error(("nearest: %s %s, want %s %s"):format(tostring(o and o.id), tostring(d),
          tostring(w and w.id), tostring(wd)))
      end
      local line, want = nav.line(p, a.tile), nav.line(copy(p), a.tile)
      if #line ~= #want or line[1].x ~= want[1].x or line[1].y ~= want[1].y then
        error("nav.line from " .. tostring(p))
      end
      if nav.los(p, self) ~= nav.los(copy(p), self) then error("nav.los") end
      seen = seen + 1
    end
  end
  self.memory.seen = seen
  return move.to({ x = 7 - self.pos.x, y = 5 - self.pos.y })
end }
"#;
        let path = dir.path().join("p.lua");
        std::fs::write(&path, script).unwrap();
        let mut host = ScriptHost::new(0).unwrap();
        host.load(&path).unwrap();
        let mut world = World::from_ascii(&["........"; 6]);
        for (id, x, y) in [("a", 0, 0), ("b", 3, 1), ("c", 6, 4)] {
            let mut agent = Agent::new(id, Tile::new(x, y));
            agent.brain = Brain::Script(path.as_path().into());
            world.agents.push(agent);
        }
        let mut sim = Simulation::new(world);
        for tick in 0..5 {
            sim.step(&mut host);
            for agent in &sim.world().agents {
                assert!(agent.error.is_none(), "tick {tick}: {:?}", agent.error);
            }
        }
        let moved = sim.world().agents.iter().any(|a| a.vel.length() > 0.0);
        assert!(moved, "the agents move, so `vel` is read non-zero");
    }
}
