//! Fast agent views: the `self` table and the tables `world:agent`, `world:agents` and
//! `world:nearest` return are filled by a small Lua function in one call, in place, instead
//! of field by field from Rust (each Rust-side table write is a protected call costing hundreds
//! of nanoseconds). Views of other agents are kept per agent and refreshed at most once per
//! round of decisions, so the second query for the same agent in a tick costs a lookup.
//!
//! A view is a snapshot of one tick: `self.pos`, `view.pos` and friends are refreshed in place,
//! so a script that wants to keep a position across ticks copies its numbers.

use crate::world::spatial::FastMap;
use crate::world::{Agent, World};
use mlua::{Function, Lua, LuaString, Table, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

const HELPERS: &str = r#"
local rawget, type = rawget, type
local function fill(t, id, kind, x, y, vx, vy, tx, ty, heading, speed, action, sense)
  if t == nil then t = {} end
  if id ~= nil then t.id = id end
  if kind ~= nil then t.kind = kind end
  local p = rawget(t, "pos")
  if type(p) ~= "table" then p = {}; t.pos = p end
  p.x = x; p.y = y
  local v = rawget(t, "vel")
  if type(v) ~= "table" then v = {}; t.vel = v end
  v.x = vx; v.y = vy
  local c = rawget(t, "tile")
  if type(c) ~= "table" then c = {}; t.tile = c end
  c.x = tx; c.y = ty
  t.heading = heading; t.speed = speed; t.action = action; t.sense = sense
  return t
end
return fill
"#;

/// Per-state helpers and caches, kept in the Lua state's app data.
pub struct Views {
    fill: Function,
    /// Bumped at every round of decisions; a view filled in an earlier round is refreshed.
    round: Cell<u64>,
    /// By agent index: the round a view was filled in, and the view.
    tables: RefCell<Vec<(u64, Option<Table>)>>,
    /// Interned Lua strings for ids and kinds.
    names: RefCell<FastMap<String, LuaString>>,
    /// Action names (static strings) as Lua strings, found by address.
    actions: RefCell<Vec<(usize, LuaString)>>,
    /// The `self` table of the agent deciding now (null between decisions), so queries
    /// around `self` skip reading it back.
    deciding: Cell<*const std::ffi::c_void>,
    /// Keys read from Rust on every query.
    pub key_x: LuaString,
    pub key_y: LuaString,
    pub key_pos: LuaString,
    pub key_id: LuaString,
}

/// Compiles the helpers and stores them in the state.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    let fill: Function = lua.load(HELPERS).set_name("=agentbox.views").call(())?;
    lua.set_app_data(Rc::new(Views {
        fill,
        round: Cell::new(0),
        tables: RefCell::new(Vec::new()),
        names: RefCell::new(FastMap::default()),
        actions: RefCell::new(Vec::new()),
        deciding: Cell::new(std::ptr::null()),
        key_x: lua.create_string("x")?,
        key_y: lua.create_string("y")?,
        key_pos: lua.create_string("pos")?,
        key_id: lua.create_string("id")?,
    }));
    Ok(())
}

/// The helpers of this state.
pub fn get(lua: &Lua) -> mlua::Result<Rc<Views>> {
    lua.app_data_ref::<Rc<Views>>()
        .map(|v| Rc::clone(&v))
        .ok_or_else(|| mlua::Error::RuntimeError("agentbox views are not installed".into()))
}

impl Views {
    /// Starts a new round: every view is refreshed on its next use.
    pub fn next_round(&self) {
        self.round.set(self.round.get() + 1);
    }

    /// Marks `this` as the `self` of the agent deciding now (`None`: nobody).
    pub fn set_deciding(&self, this: Option<&Table>) {
        self.deciding
            .set(this.map_or(std::ptr::null(), |t| t.to_pointer()));
    }

    /// Whether a value is the `self` table of the agent deciding now.
    pub fn is_deciding_self(&self, value: &Value) -> bool {
        let d = self.deciding.get();
        !d.is_null() && matches!(value, Value::Table(t) if t.to_pointer() == d)
    }

    /// An action's name as a Lua string.
    fn action_name(&self, lua: &Lua, name: &'static str) -> mlua::Result<LuaString> {
        let key = name.as_ptr() as usize;
        if let Some((_, s)) = self.actions.borrow().iter().find(|(k, _)| *k == key) {
            return Ok(s.clone());
        }
        let s = lua.create_string(name)?;
        self.actions.borrow_mut().push((key, s.clone()));
        Ok(s)
    }

    /// An interned Lua string.
    pub fn name(&self, lua: &Lua, text: &str) -> mlua::Result<LuaString> {
        if let Some(s) = self.names.borrow().get(text) {
            return Ok(s.clone());
        }
        let s = lua.create_string(text)?;
        self.names.borrow_mut().insert(text.to_string(), s.clone());
        Ok(s)
    }

    /// The view of agent `index`, filled for this round.
    pub fn view(&self, lua: &Lua, world: &World, index: usize) -> mlua::Result<Table> {
        let round = self.round.get();
        let cached = {
            let tables = self.tables.borrow();
            tables.get(index).cloned()
        };
        let old = match cached {
            Some((r, Some(t))) if r == round => return Ok(t),
            Some((_, t)) => t,
            None => None,
        };
        let agent = &world.agents[index];
        // A reused table keeps its id and kind unless the agent in this slot changed.
        let same = match &old {
            Some(t) => {
                matches!(t.raw_get::<Value>(&self.key_id)?, Value::String(s) if s.as_bytes() == agent.id.as_bytes())
            }
            None => false,
        };
        let table = self.fill_table(
            lua,
            old.map(Value::Table).unwrap_or(Value::Nil),
            agent,
            !same,
        )?;
        let mut tables = self.tables.borrow_mut();
        if tables.len() < world.agents.len() {
            tables.resize(world.agents.len(), (0, None));
        }
        tables[index] = (round, Some(table.clone()));
        Ok(table)
    }

    fn fill_table(&self, lua: &Lua, t: Value, agent: &Agent, names: bool) -> mlua::Result<Table> {
        let tile = agent.tile();
        let (id, kind) = if names {
            (
                Value::String(self.name(lua, &agent.id)?),
                Value::String(self.name(lua, &agent.kind)?),
            )
        } else {
            (Value::Nil, Value::Nil)
        };
        self.fill.call((
            t,
            id,
            kind,
            agent.pos.x,
            agent.pos.y,
            agent.vel.x,
            agent.vel.y,
            tile.x,
            tile.y,
            agent.heading,
            agent.speed,
            self.action_name(lua, agent.action.name())?,
            agent.sense,
        ))
    }

    /// Fills an agent's `self` table in place.
    pub fn refresh(&self, lua: &Lua, this: &Table, agent: &Agent) -> mlua::Result<()> {
        self.fill_table(lua, Value::Table(this.clone()), agent, true)
            .map(|_| ())
    }
}
