//! An agent's `self.memory` seen from outside its script: as JSON for the trace
//! (`headless --trace-memory`) and as a read-only copy for `world:memory(id)` in `expect:`
//! predicates and `metrics:`. Both are bounded (values, depth, string bytes) so a huge or
//! cyclic memory costs a placeholder, not a stall: a string is cut before it is converted,
//! never converted whole. Both are deterministic (object keys sorted, the walk capped in Lua's
//! own `next` order, which the patched Lua makes repeatable, tables keyed by tables included:
//! it hashes them by id, not address).
//!
//! It reads Lua values and makes new ones; it never changes an agent's memory or the world.

use mlua::{Lua, Table, Value};
use serde_json::{Map, Number, Value as Json};

/// Memories of a run this state does not hold (a metric's own state): agent id → JSON, read
/// by `world:memory` when the agent has no `self` here.
pub struct Snapshot(pub std::collections::BTreeMap<String, Json>);

/// The most values (table entries and scalars together) written for one agent.
pub const MAX_VALUES: usize = 256;
/// The deepest nesting written; deeper tables become `"<deep>"`.
pub const MAX_DEPTH: usize = 8;
/// The most bytes of one string written (cut at a character boundary).
pub const MAX_STRING: usize = 256;

/// `memory` as JSON: tables with keys 1..n become arrays, other tables objects with sorted
/// keys (non-string keys written as text); functions, coroutines and userdata become
/// `"<function>"` and friends, a table inside itself `"<cycle>"`, what is past the caps
/// `"<...>"` (one entry per cut table) or `"<deep>"`; NaN and infinities are strings.
pub fn to_json(memory: &Value) -> Json {
    let mut left = MAX_VALUES;
    let mut path = Vec::new();
    json_of(memory, &mut left, &mut path)
}

fn json_of(value: &Value, left: &mut usize, path: &mut Vec<*const std::ffi::c_void>) -> Json {
    *left = left.saturating_sub(1);
    match value {
        Value::Nil => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Integer(i) => Json::Number((*i).into()),
        Value::Number(n) => number(*n),
        Value::String(s) => Json::String(bounded_text(s)),
        Value::Table(t) => {
            let ptr = t.to_pointer();
            if path.contains(&ptr) {
                return Json::String("<cycle>".into());
            }
            if path.len() >= MAX_DEPTH {
                return Json::String("<deep>".into());
            }
            path.push(ptr);
            let json = table_json(t, left, path);
            path.pop();
            json
        }
        other => Json::String(format!("<{}>", other.type_name())),
    }
}

fn number(n: f64) -> Json {
    match Number::from_f64(n) {
        Some(n) => Json::Number(n),
        None if n.is_nan() => Json::String("nan".into()),
        None if n > 0.0 => Json::String("inf".into()),
        None => Json::String("-inf".into()),
    }
}

fn table_json(t: &Table, left: &mut usize, path: &mut Vec<*const std::ffi::c_void>) -> Json {
    // At most what is left of the cap, in `next` order; one more tells that some were cut.
    let mut entries: Vec<(Value, Value)> = Vec::new();
    let mut cut_some = false;
    for pair in t.pairs::<Value, Value>() {
        let Ok(pair) = pair else { continue };
        if entries.len() >= *left {
            cut_some = true;
            break;
        }
        entries.push(pair);
    }
    let n = entries.len();
    let is_sequence = n > 0
        && !cut_some
        && entries
            .iter()
            .all(|(k, _)| matches!(k, Value::Integer(i) if *i >= 1 && (*i as usize) <= n));
    if is_sequence {
        entries.sort_by_key(|(k, _)| match k {
            Value::Integer(i) => *i,
            _ => 0,
        });
        let mut list: Vec<Json> = entries
            .iter()
            .map(|(_, v)| json_of(v, left, path))
            .collect();
        if cut_some {
            list.push(Json::String("<...>".into()));
        }
        return Json::Array(list);
    }
    let mut keyed: Vec<(String, Value)> = entries
        .into_iter()
        .map(|(k, v)| (key_text(&k), v))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut map = Map::new();
    for (k, v) in keyed {
        if *left == 0 {
            cut_some = true;
            break;
        }
        let json = json_of(&v, left, path);
        map.insert(k, json);
    }
    if cut_some {
        map.insert("<...>".into(), Json::String("<...>".into()));
    }
    Json::Object(map)
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => bounded_text(s),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Boolean(b) => b.to_string(),
        other => format!("<{}>", other.type_name()),
    }
}

/// At most [`MAX_STRING`] bytes of `s` as text (invalid UTF-8 replaced), reading only its
/// first bytes: enough to hold every character that starts within the cut (4 bytes more), so
/// the result is what converting the whole string and cutting it would give.
fn bounded_text(s: &mlua::LuaString) -> String {
    let bytes = s.as_bytes();
    let head = &bytes[..bytes.len().min(MAX_STRING + 4)];
    cut(&String::from_utf8_lossy(head), MAX_STRING).to_string()
}

fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A read-only deep copy of `memory` for `world:memory(id)`: tables are copied (a table met
/// twice is copied once, so cycles stay cycles), each behind an empty proxy whose metatable
/// reads from the copy and refuses every write (`pairs` and `#` work through `__pairs` and
/// `__len`); at most [`MAX_VALUES`] entries in all, past which a copy holds
/// `["<...>"] = true`.
pub fn read_only_copy(lua: &Lua, memory: &Value) -> mlua::Result<Value> {
    let lock = locker(lua)?;
    let mut copies: Vec<(*const std::ffi::c_void, Value)> = Vec::new();
    let mut left = MAX_VALUES;
    copy_of(lua, memory, &lock, &mut copies, &mut left)
}

/// The Lua function that puts a copied table behind its read-only proxy (made once).
fn locker(lua: &Lua) -> mlua::Result<mlua::Function> {
    const NAME: &str = "agentbox.memory_lock";
    if let Some(f) = lua.named_registry_value::<Option<mlua::Function>>(NAME)? {
        return Ok(f);
    }
    let refuse = lua.create_function(|lua, _: mlua::MultiValue| -> mlua::Result<()> {
        Err(super::errors::located(
            lua,
            "world:memory gives a read-only copy of an agent's memory",
        ))
    })?;
    let make: mlua::Function = lua
        .load(
            "local next, setmetatable, refuse = ... \
             return function(data) \
               return setmetatable({}, {__index = data, __newindex = refuse, \
                 __len = function() return #data end, \
                 __pairs = function() return next, data, nil end, \
                 __metatable = 'memory (read-only copy)'}) \
             end",
        )
        .set_name("=world:memory")
        .call((
            lua.globals().raw_get::<Value>("next")?,
            lua.globals().raw_get::<Value>("setmetatable")?,
            refuse,
        ))?;
    lua.set_named_registry_value(NAME, &make)?;
    Ok(make)
}

fn copy_of(
    lua: &Lua,
    value: &Value,
    lock: &mlua::Function,
    copies: &mut Vec<(*const std::ffi::c_void, Value)>,
    left: &mut usize,
) -> mlua::Result<Value> {
    let Value::Table(t) = value else {
        return Ok(value.clone());
    };
    let ptr = t.to_pointer();
    if let Some((_, proxy)) = copies.iter().find(|(p, _)| *p == ptr) {
        return Ok(proxy.clone());
    }
    let data = lua.create_table()?;
    let proxy: Value = lock.call(&data)?;
    copies.push((ptr, proxy.clone()));
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair?;
        if *left == 0 {
            data.raw_set("<...>", true)?;
            break;
        }
        *left -= 1;
        let k = copy_of(lua, &k, lock, copies, left)?;
        let v = copy_of(lua, &v, lock, copies, left)?;
        data.raw_set(k, v)?;
    }
    if let Value::Table(p) = &proxy {
        super::sandbox::protect(lua, p, "a copy of an agent's memory")?;
    }
    Ok(proxy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_as_json_sorts_keys_and_marks_what_json_cannot_hold() {
        let lua = Lua::new();
        let v: Value = lua
            .load(
                "local t = {zeta = 1, alpha = {1, 2, 3}, f = print, x = 0/0, half = 0.5} \
                 t.me = t return t",
            )
            .eval()
            .unwrap();
        assert_eq!(
            to_json(&v).to_string(),
            r#"{"alpha":[1,2,3],"f":"<function>","half":0.5,"me":"<cycle>","x":"nan","zeta":1}"#
        );
        let big: Value = lua
            .load("local t = {} for i = 1, 1000 do t['k' .. i] = i end return t")
            .eval()
            .unwrap();
        let json = to_json(&big);
        let map = json.as_object().unwrap();
        assert!(map.len() <= MAX_VALUES + 1, "{}", map.len());
        assert!(map.contains_key("<...>"));
    }

    #[test]
    fn a_long_string_is_cut_as_if_converted_whole() {
        let lua = Lua::new();
        for code in [
            r"return string.rep('a', 300)",
            r"return string.rep('a', 253) .. '\u{10348}' .. 'tail'",
            r"return string.rep('a', 250) .. '\xff\xfe' .. string.rep('\u{e9}', 40)",
            r"return string.rep('\u{20ac}', 100)",
            r"return 'short'",
        ] {
            let s: mlua::LuaString = lua.load(code).eval().unwrap();
            let whole = cut(&s.to_string_lossy(), MAX_STRING).to_string();
            assert_eq!(bounded_text(&s), whole, "{code}");
        }
        // 32 MB, cut to MAX_STRING bytes: the key as much as the value.
        let v: Value = lua
            .load("local s = string.rep('x', 32 * 1024 * 1024) return { [s] = s }")
            .eval()
            .unwrap();
        let json = to_json(&v);
        let (key, value) = json.as_object().unwrap().iter().next().unwrap();
        assert_eq!(key.len(), MAX_STRING);
        assert_eq!(value.as_str().unwrap().len(), MAX_STRING);
    }

    #[test]
    fn the_copy_is_read_only_and_keeps_cycles() {
        let lua = Lua::new();
        let v: Value = lua
            .load("local t = {seen = {x = 1}} t.me = t return t")
            .eval()
            .unwrap();
        let copy = read_only_copy(&lua, &v).unwrap();
        lua.globals().set("c", copy).unwrap();
        lua.globals().set("o", v).unwrap();
        let same: bool = lua
            .load("local n = 0 for _ in pairs(c) do n = n + 1 end return c.me == c and c ~= o and c.seen.x == 1 and n == 2")
            .eval()
            .unwrap();
        assert!(same);
        assert!(lua.load("c.seen.x = 2").exec().is_err());
        assert!(lua.load("c.seen = 2").exec().is_err());
        assert!(lua.load("c.new = 2").exec().is_err());
    }
}
