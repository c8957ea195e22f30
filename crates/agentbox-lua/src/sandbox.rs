//! The sandbox every script runs in: its own global table holding copies of the safe parts of
//! the standard library, so a script can neither reach the host (no io, os beyond clock/time,
//! debug, dofile, loadfile, bytecode) nor change a builtin another script relies on.

use super::bindings::{strict_metatable, Home};
use super::budget::Budget;
use super::errors::located;
use agentbox_core::world::{rng, World};
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, MultiValue, Table, Value, Variadic};
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The random streams `math.random` draws from: while an agent's script runs, that agent's
/// own (`rng::stream(seed, id, "lua")`, kept by its slot number); otherwise the load stream
/// (`rng::stream(seed, "", "load")`), which starts afresh after every agent's turn. Switching
/// agents sets a number, so a decision that draws nothing pays nothing. An agent's stream is
/// made at its first draw from the key it was started with (`rng::stream_key`): a crowd
/// that never draws holds 16 bytes an agent instead of a generator each.
pub struct Rngs {
    pristine: ChaCha8Rng,
    load: RefCell<ChaCha8Rng>,
    agents: RefCell<Vec<AgentStream>>,
    current: Cell<Option<usize>>,
    /// An agent ran since the load stream was last reset.
    load_stale: Cell<bool>,
}

/// An agent's `math.random` stream: its key until it is first drawn from.
#[derive(Clone)]
enum AgentStream {
    Key(u64),
    Drawn(Box<ChaCha8Rng>),
}

impl AgentStream {
    fn rng(&mut self) -> &mut ChaCha8Rng {
        if let AgentStream::Key(key) = *self {
            *self = AgentStream::Drawn(Box::new(rng::stream_from_key(key)));
        }
        match self {
            AgentStream::Drawn(r) => r,
            AgentStream::Key(_) => unreachable!("made just above"),
        }
    }
}

impl Rngs {
    pub fn new(seed: u64) -> Self {
        let pristine = rng::stream(seed, "", "load");
        Rngs {
            load: RefCell::new(pristine.clone()),
            pristine,
            agents: RefCell::new(Vec::new()),
            current: Cell::new(None),
            load_stale: Cell::new(false),
        }
    }

    /// Gives slot `slot` a fresh stream, the one `rng::stream_key` gave `key` for.
    pub fn start(&self, slot: usize, key: u64) {
        let mut agents = self.agents.borrow_mut();
        if agents.len() <= slot {
            agents.resize(slot + 1, AgentStream::Key(key));
        }
        agents[slot] = AgentStream::Key(key);
    }

    /// Room for `slots` streams in all (`agents::room_for`).
    pub fn reserve(&self, slots: usize) {
        crate::agents::room_for(&mut self.agents.borrow_mut(), slots);
    }

    /// Slot `slot`'s agent runs now.
    pub fn enter(&self, slot: usize) {
        self.current.set(Some(slot));
    }

    /// The agent's turn is over.
    pub fn leave(&self) {
        if self.current.take().is_some() {
            self.load_stale.set(true);
        }
    }

    /// Back to the scene's start: the load stream afresh, no agent streams.
    pub fn reset(&self) {
        *self.load.borrow_mut() = self.pristine.clone();
        self.agents.borrow_mut().clear();
        self.current.set(None);
        self.load_stale.set(false);
    }

    fn draw<R>(&self, f: impl FnOnce(&mut ChaCha8Rng) -> R) -> R {
        if let Some(slot) = self.current.get() {
            if let Some(r) = self.agents.borrow_mut().get_mut(slot) {
                return f(r.rng());
            }
        }
        if self.load_stale.take() {
            *self.load.borrow_mut() = self.pristine.clone();
        }
        f(&mut self.load.borrow_mut())
    }
}

/// Base functions a script may use as they are.
const SAFE_BASE: [&str; 15] = [
    "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen",
    "rawset", "select", "tonumber", "tostring", "type", "xpcall",
];

/// Library tables copied into each sandbox, with what is left out of each.
const LIBRARIES: [(&str, &[&str]); 5] = [
    ("string", &["dump"]),
    ("table", &[]),
    ("math", &["random", "randomseed"]),
    ("utf8", &[]),
    ("coroutine", &[]),
];

/// Trusted Lua that builds the guarded functions from the real ones; scripts only ever see
/// the results. (`pcall`, `xpcall` and coroutines need no guard: the VM keeps a spent budget
/// spent, see `budget.rs`.)
const GUARDED: &str = r#"
local real = ...
local pcall = real.pcall
local error, type, getmetatable = real.error, real.type, real.getmetatable
local setmetatable, rawget, rawset = real.setmetatable, real.rawget, real.rawset
local load_text, require_in = real.load_text, real.require_in
local protected, locked = real.protected, real.locked
local guarded = {}
-- `load` and `require` close over the sandbox in Lua (not in Rust), so a replaced script's
-- sandbox is garbage once nothing uses it.
function guarded.install(env, ctx)
  env.load = function(chunk, name, mode, chunk_env)
    return load_text(chunk, name, chunk_env or env)
  end
  env.require = function(name) return require_in(ctx, name) end
end
-- The host's tables (world, agents' views, self) refuse `rawset` as they refuse assignment.
-- Views, `self` and inbox lists are known by their locked metatable (`locked` makes sure).
function guarded.rawset(t, k, v)
  if type(t) == "table" then
    local what = protected[t]
    if what == nil and getmetatable(t) ~= nil then what = locked(t) end
    if what then
      error("cannot change " .. what .. ": it is read-only; keep your own data in self.memory", 2)
    end
  end
  local ok, r = pcall(rawset, t, k, v)
  if not ok then error(r, 2) end
  return r
end
-- Only tables show their metatables: the shared metatables of strings, userdata (world,
-- actions) and the rest stay out of reach.
function guarded.getmetatable(v)
  if type(v) == "table" then return getmetatable(v) end
  return nil
end
-- Finalizers run whenever the collector runs, possibly outside any budgeted call, so an
-- endless loop in one could hang the host: scripts cannot set them.
function guarded.setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: __gc finalizers are not allowed in scripts", 2)
  end
  -- Its errors (a locked metatable, a wrong argument) name the script's line, not this one.
  local ok, r = pcall(setmetatable, t, mt)
  if not ok then error(r, 2) end
  return r
end
return guarded
"#;

/// Prepares the shared state once: protects the string metatable and builds the guarded
/// `rawset`, `getmetatable` and `setmetatable`, `load` and `require` every sandbox gets.
pub fn prepare(lua: &Lua) -> mlua::Result<()> {
    // `getmetatable("")` would hand out the shared string metatable; make it opaque.
    // Strings' methods come from the real `string` table: it must not offer `dump` either.
    lua.load("getmetatable('').__metatable = false; string.dump = nil")
        .set_name("=agentbox")
        .exec()?;
    let globals = lua.globals();
    let real = lua.create_table()?;
    for name in [
        "pcall",
        "xpcall",
        "error",
        "type",
        "getmetatable",
        "setmetatable",
        "rawget",
        "rawset",
    ] {
        real.raw_set(name, globals.raw_get::<Value>(name)?)?;
    }
    real.raw_set("protected", protected_tables(lua)?)?;
    real.raw_set(
        "locked",
        lua.create_function(|lua, t: Table| read_only_name(lua, &t))?,
    )?;
    real.raw_set("load_text", lua.create_function(load_text)?)?;
    real.raw_set("require_in", lua.create_function(require_in)?)?;
    let guarded: Table = lua.load(GUARDED).set_name("=agentbox").call(real)?;
    lua.set_named_registry_value("agentbox.guarded", guarded)?;
    // The table of each owner's `tostring` numbers (patched Lua's `luaL_objectid`), made
    // here by the host: made by the first agent that printed a table, it took one of that
    // agent's ids, which its neighbours' order of table keys would then show.
    lua.set_named_registry_value("agentbox.objectids", lua.create_table()?)?;
    Ok(())
}

/// The simulated seconds since the scene started: what `os.clock` and `os.time` return.
fn sim_seconds(lua: &Lua) -> f64 {
    super::lent::of(lua)
        .and_then(|lent| lent.with(World::time))
        .unwrap_or(0.0)
}

/// The host's tables scripts may read but not change, with what to call them in the error:
/// a table with weak keys in the registry, so a forgotten view goes.
pub fn protected_tables(lua: &Lua) -> mlua::Result<Table> {
    if let Ok(t) = lua.named_registry_value::<Table>("agentbox.protected") {
        return Ok(t);
    }
    let t = lua.create_table()?;
    t.set_metatable(Some(host_weak_metatable(lua, "k")?))?;
    lua.set_named_registry_value("agentbox.protected", &t)?;
    Ok(t)
}

/// A metatable with `__mode = mode` that the collector honours: patched Lua makes a table weak
/// only by a metatable the host marked (`lua_hostweak`), so a script's weak table keeps its
/// entries (what it lost would show when the shared collector ran, so what other agents
/// allocated). For the host's own weak tables only; never hand one to a script.
pub fn host_weak_metatable(lua: &Lua, mode: &str) -> mlua::Result<Table> {
    let meta = lua.create_table()?;
    meta.raw_set("__mode", mode)?;
    // SAFETY: `exec_raw` pushes `meta` at 1; `lua_hostweak` only sets a flag in its header.
    unsafe { lua.exec_raw::<()>(&meta, |state| super::ffi::lua_hostweak(state, 1))? };
    Ok(meta)
}

/// Marks a host table as read-only for `rawset` (assignment is refused by its metatable).
pub fn protect(lua: &Lua, table: &Table, what: &str) -> mlua::Result<()> {
    protected_tables(lua)?.raw_set(table, what)
}

/// The host's metatables whose every table is read-only, with what to call such a table in
/// the error (kept in the registry): for tables made in numbers every tick (`self:inbox()`'s
/// lists), which would otherwise each be an entry of [`protected_tables`].
fn locked_metatables(lua: &Lua) -> mlua::Result<Table> {
    const KEY: &str = "agentbox.locked_metatables";
    if let Ok(t) = lua.named_registry_value::<Table>(KEY) {
        return Ok(t);
    }
    let t = lua.create_table()?;
    lua.set_named_registry_value(KEY, &t)?;
    Ok(t)
}

/// Marks every table with the metatable `meta` as read-only for `rawset`, as [`protect`]
/// marks one table (assignment is refused by the metatable itself).
pub fn protect_by_metatable(lua: &Lua, meta: &Table, what: &str) -> mlua::Result<()> {
    locked_metatables(lua)?.raw_set(meta, what)
}

/// What a read-only host table is called when a change to it is refused: its entry among the
/// [`protected_tables`]; for a view or a `self`, what the agents' locked metatable says
/// (`Views::lock_name`); for a table of a locked metatable ([`protect_by_metatable`]), that
/// metatable's name; `None` for a table a script may change.
pub fn read_only_name(lua: &Lua, table: &Table) -> mlua::Result<Option<String>> {
    if let Some(what) = protected_tables(lua)?.raw_get::<Option<String>>(table)? {
        return Ok(Some(what));
    }
    let Some(meta) = table.metatable() else {
        return Ok(None);
    };
    if let Some(what) = crate::views::get(lua).ok().and_then(|v| v.lock_name(table)) {
        return Ok(Some(what.to_string()));
    }
    locked_metatables(lua)?.raw_get(meta)
}

/// The module files each script load asked for (found or not), by load id: a change to any of
/// them reloads the script. Kept in the Lua state's app data, filled by `require`.
#[derive(Default)]
pub struct Requires(pub BTreeMap<u64, BTreeSet<PathBuf>>);

/// Where a script load finds its modules: `root` is the script's folder, `id` names the load
/// in [`Requires`]; modules required during the load share its module cache.
pub fn new_context(lua: &Lua, root: &Path, id: u64) -> mlua::Result<Table> {
    let ctx = lua.create_table()?;
    ctx.raw_set("root", root.to_string_lossy().into_owned())?;
    ctx.raw_set("id", id)?;
    ctx.raw_set("cache", lua.create_table()?)?;
    ctx.raw_set("loading", lua.create_table()?)?;
    Ok(ctx)
}

fn shallow_copy(lua: &Lua, source: &Table, leave_out: &[&str]) -> mlua::Result<Table> {
    let copy = lua.create_table()?;
    for pair in source.pairs::<Value, Value>() {
        let (k, v) = pair?;
        if let Value::String(s) = &k {
            if leave_out.iter().any(|l| s.as_bytes() == l.as_bytes()) {
                continue;
            }
        }
        copy.raw_set(k, v)?;
    }
    Ok(copy)
}

fn random(lua: &Lua, args: Variadic<i64>) -> mlua::Result<Value> {
    let rngs = lua
        .app_data_ref::<Rc<Rngs>>()
        .map(|r| Rc::clone(&r))
        .ok_or_else(|| located(lua, "math.random: no random stream (this is a bug)"))?;
    match args.as_slice() {
        [] => Ok(Value::Number(rngs.draw(rng::unit_f64))),
        [m] => {
            if *m < 1 {
                return Err(located(
                    lua,
                    "bad argument #1 to 'random' (interval is empty)",
                ));
            }
            Ok(Value::Integer(rngs.draw(|r| rng::int_in(r, 1, *m))))
        }
        [m, n, ..] => {
            if m > n {
                return Err(located(
                    lua,
                    "bad argument #2 to 'random' (interval is empty)",
                ));
            }
            Ok(Value::Integer(rngs.draw(|r| rng::int_in(r, *m, *n))))
        }
    }
}

/// What the sandbox's `print` does, for the reference page (`registry::markdown`).
pub const PRINT_DOC: &str = "`print(...)` writes its arguments (through `tostring`, tab-separated) as one line prefixed with the caller's `file.lua:LINE:`. Lines printed while an agent decides go to stderr, to the window's console (C: stamped with the tick and the agent, filterable, the last 1,000 lines) and to the agent's decision timeline, and headless into the trace as events `{\"type\":\"print\",\"agent\":ID,\"text\":LINE}`. Any Lua string prints: bytes that are not UTF-8 become U+FFFD. Bounded: at most 4 KiB per agent and 64 KiB in all per tick (a line is measured before it is copied); past that lines are dropped and one note per tick on stderr says how many bytes, for whom.";

/// Builds a fresh global table for one script (or module) loaded in `ctx` (see
/// [`new_context`]); `move` and `nav` are copied from the registry's `agentbox.move`/`.nav`.
pub fn new_env(lua: &Lua, ctx: &Table) -> mlua::Result<Table> {
    let globals = lua.globals();
    let guarded: Table = lua.named_registry_value("agentbox.guarded")?;
    let env = lua.create_table()?;
    for name in SAFE_BASE {
        env.raw_set(name, globals.raw_get::<Value>(name)?)?;
    }
    env.raw_set("_VERSION", globals.raw_get::<Value>("_VERSION")?)?;
    for (name, leave_out) in LIBRARIES {
        let lib: Table = globals.raw_get(name)?;
        env.raw_set(name, shallow_copy(lua, &lib, leave_out)?)?;
    }
    let math: Table = env.raw_get("math")?;
    math.raw_set("random", lua.create_function(random)?)?;
    // The scene's seed decides all randomness; reseeding from a script is ignored.
    math.raw_set(
        "randomseed",
        lua.create_function(|_, _: MultiValue| Ok(()))?,
    )?;
    for name in ["getmetatable", "setmetatable", "rawset"] {
        env.raw_set(name, guarded.raw_get::<Value>(name)?)?;
    }
    // Simulated time, so a script that reads the clock runs the same way every time.
    let os = lua.create_table()?;
    os.raw_set(
        "clock",
        lua.create_function(|lua, ()| Ok(sim_seconds(lua)))?,
    )?;
    os.raw_set(
        "time",
        lua.create_function(|lua, _: MultiValue| Ok(sim_seconds(lua).floor() as i64))?,
    )?;
    env.raw_set("os", os)?;
    env.raw_set(
        "print",
        lua.create_function(|lua, args: Variadic<Value>| {
            // Lua's own `tostring` (stable object numbers, not addresses); an error in a
            // `__tostring` (a spent budget too) propagates, as in Lua's print.
            let tostring: Function = lua.globals().raw_get("tostring")?;
            let parts = args
                .iter()
                .map(|v| tostring.call::<mlua::LuaString>(v.clone()))
                .collect::<mlua::Result<Vec<mlua::LuaString>>>()?;
            let at = super::errors::caller_location(lua).unwrap_or_default();
            // Measured before anything is copied: a line over an agent's bound is only
            // counted as dropped; a shorter one is copied, invalid UTF-8 replaced.
            let len = at.len() + 2 + parts.iter().map(|p| p.as_bytes().len() + 1).sum::<usize>()
                - parts.len().min(1);
            let line = if len > super::output::AGENT_TICK_BYTES {
                None
            } else {
                let mut line = format!("{at}: ");
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        line.push('\t');
                    }
                    line.push_str(&super::bounded::prefix(&part.as_bytes(), len));
                }
                Some(line)
            };
            let deciding = super::views::get(lua)
                .ok()
                .and_then(|v| v.deciding())
                .map(|(_, i)| i);
            // The tick and the deciding agent's index and id, from the world lent now.
            let (tick, agent) = super::lent::of(lua)
                .and_then(|lent| {
                    lent.with(|w| {
                        let agent = deciding.and_then(|i| Some((i, w.agents.get(i)?.id.clone())));
                        (w.tick, agent)
                    })
                })
                .unwrap_or((0, None));
            let agent = agent.as_ref().map(|(i, id)| (*i, id.as_str()));
            let bill = match &line {
                Some(line) if agent.is_some() => Some(super::host_memory::keep(
                    lua,
                    "print lines",
                    super::host_memory::string_bytes(line.len()),
                )?),
                _ => None,
            };
            match (lua.app_data_ref::<Rc<super::output::Output>>(), line) {
                (Some(out), Some(line)) => out.print(tick, agent, &line, bill),
                (Some(out), None) => out.drop_line(tick, agent, len),
                (None, Some(line)) => eprintln!("{line}"),
                (None, None) => {}
            }
            Ok(())
        })?,
    )?;
    super::bindings::globals::install(lua, &env)?;
    // The libraries' copies refuse to read a name they lack (`move.chsae`), saying which
    // name was meant.
    for home in [Home::Move, Home::Nav, Home::Draw] {
        let library: Table = lua.named_registry_value(&format!("agentbox.{}", home.title()))?;
        let copy = shallow_copy(lua, &library, &[])?;
        copy.set_metatable(Some(strict_metatable(lua, home)?))?;
        env.raw_set(home.title(), copy)?;
    }
    let install: Function = guarded.raw_get("install")?;
    install.call::<()>((env.clone(), ctx.clone()))?;
    env.raw_set("_G", env.clone())?;
    Ok(env)
}

/// `load` for text chunks only, in the sandbox it is given (the caller's by default).
fn load_text(
    lua: &Lua,
    (chunk, name, env): (Value, Option<String>, Table),
) -> mlua::Result<(Value, Option<String>)> {
    let Value::String(text) = chunk else {
        return Ok((
            Value::Nil,
            Some("load: only strings of Lua source are allowed".to_string()),
        ));
    };
    let text = text.as_bytes().to_vec();
    if let Some(budget) = lua.app_data_ref::<Rc<Budget>>() {
        // Compiling is work, like the library's own `load`.
        budget.charge(text.len() as u64 / 4)?;
    }
    if text.first() == Some(&0x1b) {
        return Ok((
            Value::Nil,
            Some("load: binary chunks are not allowed".to_string()),
        ));
    }
    let name = name.unwrap_or_else(|| "=(load)".to_string());
    let loaded = lua
        .load(text)
        .set_name(name)
        .set_mode(ChunkMode::Text)
        .set_environment(env)
        .into_function();
    match loaded {
        Ok(f) => Ok((Value::Function(f), None)),
        Err(e) => Ok((Value::Nil, Some(super::errors::describe(&e)))),
    }
}

/// Whether a module name is plain dotted words (no paths, no `..`).
fn valid_module_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The file a module name stands for under `root`.
pub fn module_path(root: &Path, name: &str) -> PathBuf {
    root.join(format!("{}.lua", name.replace('.', "/")))
}

/// `require(name)`: loads `root/name.lua` (dots are folders) once per load of the script that
/// requires it, in its own sandbox, and records the file so a change to it reloads the script.
fn require_in(lua: &Lua, (ctx, name): (Table, mlua::LuaString)) -> mlua::Result<Value> {
    let name = match super::bounded::within(&name, super::bounded::NAME_BYTES) {
        Ok(text) if valid_module_name(&text) => text,
        _ => {
            return Err(located(
                lua,
                format!(
                    "require: {} is not a module name (use dotted words, e.g. \"lib.steer\")",
                    super::bounded::quote_lua(&name)
                ),
            ))
        }
    };
    let root: String = ctx.raw_get("root")?;
    let id: u64 = ctx.raw_get("id")?;
    let path = module_path(Path::new(&root), &name);
    if let Some(mut log) = lua.app_data_mut::<Requires>() {
        log.0.entry(id).or_default().insert(path.clone());
    }
    let key = path.to_string_lossy().into_owned();
    let cache: Table = ctx.raw_get("cache")?;
    if let Some(v) = cache.raw_get::<Option<Value>>(key.as_str())? {
        return Ok(v);
    }
    let loading: Table = ctx.raw_get("loading")?;
    if loading.raw_get::<bool>(key.as_str())? {
        return Err(located(
            lua,
            format!("require: module {name:?} requires itself (a require cycle)"),
        ));
    }
    let source = super::files::read_script(lua, &path).map_err(|e| {
        let why = if e.is_missing() {
            format!("there is no file {}", path.display())
        } else {
            format!("{}: {e}", path.display())
        };
        located(
            lua,
            format!("require: module {name:?} not found in the scripts folder: {why}"),
        )
    })?;
    if source.iter().all(u8::is_ascii_whitespace) {
        // Most likely a save caught half way (truncated, not yet written): not a module.
        return Err(located(
            lua,
            format!("require: module {name:?} is empty ({})", path.display()),
        ));
    }
    let env = new_env(lua, &ctx)?;
    let chunk = lua
        .load(source)
        .set_name(format!("@{}", path.display()))
        .set_mode(ChunkMode::Text)
        .set_environment(env)
        .into_function()?;
    loading.raw_set(key.as_str(), true)?;
    let value = chunk.call::<Value>(());
    loading.raw_set(key.as_str(), Value::Nil)?;
    let value = match value? {
        Value::Nil => Value::Boolean(true),
        v => v,
    };
    cache.raw_set(key.as_str(), value.clone())?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_cannot_escape_the_folder() {
        assert!(valid_module_name("lib.steer"));
        assert!(valid_module_name("util"));
        assert!(!valid_module_name("../secret"));
        assert!(!valid_module_name("/etc/passwd"));
        assert!(!valid_module_name("a..b"));
        assert!(!valid_module_name(""));
    }
}
