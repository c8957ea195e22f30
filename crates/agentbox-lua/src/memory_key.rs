//! Keys of agents' `self.memory`: a cheap, exact summary of what the inspector's text
//! (`inspect.rs`) and `world:memory`'s JSON (`memory.rs`) read of a memory, so that the
//! history can tell a memory that did not change since it last kept one without formatting
//! it (formatting both cost about 10,000 instructions an agent a tick, for a memory of two
//! numbers).
//!
//! Two equal keys mean the two texts and the two JSON values would be equal: a key holds every
//! scalar both read (integers and floats apart, all their bits; a string's length and the
//! first [`STRING_BYTES`] of its bytes, more than either shows), every table's address (the
//! JSON tells cycles by it) and its entries in `next` order, to the depth either reads. Where
//! that cannot be told cheaply there is no key, and the caller formats as before: a table with
//! a metatable (its entries could depend on more than the table), a table as a key, more than
//! [`MAX_ENTRIES`] entries in all.
//!
//! It reads the Lua state with raw calls only (no metamethod runs, nothing allocates in Lua)
//! and changes nothing.

use mlua::{ffi, Lua};
use std::ffi::c_int;

/// Entries read at most, over a whole memory: more than the text (200) or the JSON (256) shows.
const MAX_ENTRIES: usize = 256;
/// Tables nested at most this deep are read: the text stops at 6, the JSON at 8.
const MAX_DEPTH: usize = 8;
/// Bytes of a string kept: the text shows 1,024 of a value and 256 of a key, the JSON 260.
const STRING_BYTES: usize = 1024;

/// Every agent's memory key for one world, in `world.agents`' order (buffers kept between
/// ticks, so a steady run allocates nothing).
#[derive(Default)]
pub struct MemoryKeys {
    bytes: Vec<u8>,
    /// Each agent's key as a range of `bytes`; `None` for an agent the host does not run or
    /// whose memory has no key.
    spans: Vec<Option<(usize, usize)>>,
}

impl MemoryKeys {
    /// Agent `index`'s key, if it has one.
    pub fn get(&self, index: usize) -> Option<&[u8]> {
        let (from, to) = (*self.spans.get(index)?)?;
        self.bytes.get(from..to)
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }
}

/// Writes into `keys` the key of each agent of `ids` whose `self` table is registry entry
/// `this(agent id)`, in one raw call.
pub(crate) fn write_keys<'a>(
    lua: &Lua,
    ids: impl ExactSizeIterator<Item = &'a str>,
    this: impl Fn(&str) -> Option<c_int>,
    keys: &mut MemoryKeys,
) {
    let count = ids.len();
    keys.clear();
    // SAFETY: raw reads only (rawgeti, rawget, next, getmetatable, scalars of their own type):
    // no metamethod runs, nothing raises; the stack's room is checked and it is left as found.
    let done = unsafe {
        lua.exec_raw::<()>((), |state| {
            if ffi::lua_checkstack(state, 3 * MAX_DEPTH as c_int + 8) == 0 {
                return;
            }
            ffi::lua_pushstring(state, c"memory".as_ptr());
            let name = ffi::lua_gettop(state);
            for id in ids {
                let span = this(id).and_then(|reference| {
                    let from = keys.bytes.len();
                    let made = ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, reference.into())
                        == ffi::LUA_TTABLE
                        && {
                            ffi::lua_pushvalue(state, name);
                            ffi::lua_rawget(state, -2);
                            let mut left = MAX_ENTRIES;
                            write_value(state, 0, &mut left, &mut keys.bytes)
                        };
                    ffi::lua_settop(state, name);
                    if made {
                        Some((from, keys.bytes.len()))
                    } else {
                        keys.bytes.truncate(from);
                        None
                    }
                });
                keys.spans.push(span);
            }
            ffi::lua_settop(state, name - 1);
        })
    };
    if done.is_err() || keys.spans.len() != count {
        keys.clear();
    }
}

/// Writes the key of the value on top of the stack, a table at `depth`; false when it has
/// none. Leaves the stack as found.
///
/// # Safety
/// A live state with a value on top and room for `3 * (MAX_DEPTH - depth)` more slots.
unsafe fn write_value(
    state: *mut ffi::lua_State,
    depth: usize,
    left: &mut usize,
    out: &mut Vec<u8>,
) -> bool {
    // SAFETY: the caller's contract; every read is raw, of the value's own type.
    unsafe {
        match ffi::lua_type(state, -1) {
            ffi::LUA_TTABLE => write_table(state, depth, left, out),
            _ => write_scalar(state, -1, out),
        }
    }
}

/// Writes a non-table value at `index`; a table there gets no key.
///
/// # Safety
/// A live state with a value at `index`.
unsafe fn write_scalar(state: *mut ffi::lua_State, index: c_int, out: &mut Vec<u8>) -> bool {
    // SAFETY: the caller's contract; each read is of the value's own type, so nothing is
    // converted in place (which would confuse `lua_next`).
    unsafe {
        match ffi::lua_type(state, index) {
            ffi::LUA_TNIL => out.push(b'n'),
            ffi::LUA_TBOOLEAN => out.extend([b'b', ffi::lua_toboolean(state, index) as u8]),
            ffi::LUA_TNUMBER if ffi::lua_isinteger(state, index) != 0 => {
                out.push(b'i');
                let n = ffi::lua_tointegerx(state, index, std::ptr::null_mut());
                out.extend(n.to_le_bytes());
            }
            ffi::LUA_TNUMBER => {
                out.push(b'f');
                let n = ffi::lua_tonumberx(state, index, std::ptr::null_mut());
                out.extend(n.to_bits().to_le_bytes());
            }
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let text = ffi::lua_tolstring(state, index, &mut len);
                out.push(b's');
                out.extend((len as u64).to_le_bytes());
                if !text.is_null() {
                    let shown =
                        std::slice::from_raw_parts(text.cast::<u8>(), len.min(STRING_BYTES));
                    out.extend_from_slice(shown);
                }
            }
            ffi::LUA_TTABLE => return false,
            // Functions, userdata, threads: both read only the type.
            other => out.extend([b'o', other as u8]),
        }
    }
    true
}

/// Writes the table on top of the stack: its address, then its entries in `next` order.
///
/// # Safety
/// As [`write_value`], with a table on top.
unsafe fn write_table(
    state: *mut ffi::lua_State,
    depth: usize,
    left: &mut usize,
    out: &mut Vec<u8>,
) -> bool {
    // SAFETY: the caller's contract: raw reads only; `lua_next` is handed the key it gave.
    unsafe {
        out.push(b't');
        out.extend((ffi::lua_topointer(state, -1) as usize).to_le_bytes());
        if depth >= MAX_DEPTH {
            // Neither the text nor the JSON reads inside it.
            return true;
        }
        if ffi::lua_getmetatable(state, -1) != 0 {
            ffi::lua_pop(state, 1);
            return false;
        }
        let table = ffi::lua_gettop(state);
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, table) != 0 {
            let fits = *left > 0 && {
                *left -= 1;
                write_scalar(state, -2, out) && write_value(state, depth + 1, left, out)
            };
            ffi::lua_pop(state, 1);
            if !fits {
                ffi::lua_pop(state, 1);
                return false;
            }
        }
        out.push(b'e');
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of `selves` (Lua expressions for `self` tables), in order.
    fn keys_of(lua: &Lua, selves: &[&str]) -> Vec<Option<Vec<u8>>> {
        let refs: Vec<c_int> = selves
            .iter()
            .map(|code| {
                let table: mlua::Table = lua.load(*code).eval().unwrap();
                // SAFETY: `exec_raw` pushes the table; `luaL_ref` pops it into the registry.
                unsafe {
                    lua.exec_raw::<i64>(table, |state| {
                        let r = ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                        ffi::lua_pushinteger(state, r.into());
                    })
                }
                .unwrap() as c_int
            })
            .collect();
        let ids: Vec<String> = (0..selves.len()).map(|i| i.to_string()).collect();
        let mut keys = MemoryKeys::default();
        let this = |id: &str| refs.get(id.parse::<usize>().ok()?).copied();
        write_keys(lua, ids.iter().map(String::as_str), this, &mut keys);
        (0..selves.len())
            .map(|i| keys.get(i).map(<[u8]>::to_vec))
            .collect()
    }

    #[test]
    fn equal_memories_have_equal_keys_and_any_change_shows() {
        let lua = Lua::new();
        lua.load("shared = {x = 1, y = 2} m = {a = shared, n = 1}")
            .exec()
            .unwrap();
        let keys = keys_of(
            &lua,
            &[
                "return {memory = m}",
                "return {memory = m}",
                "return {memory = {a = shared, n = 1.0}}",
                "return {memory = {a = {x = 1, y = 2}, n = 1}}",
                "return {memory = {a = shared, n = 1, s = 'hi'}}",
                "return {}",
                "return {memory = setmetatable({}, {__index = shared})}",
                "return {memory = {[{}] = 1}}",
            ],
        );
        let key = |i: usize| keys[i].as_deref().expect("a key");
        assert_eq!(key(0), key(1), "the same contents, the same key");
        let tail = |i: usize| &key(i)[9..];
        assert_ne!(tail(0), tail(2), "an integer and a float print apart");
        assert_ne!(
            tail(0),
            tail(3),
            "another table (the JSON tells cycles by address)"
        );
        assert_ne!(tail(0), tail(4), "one more entry");
        assert_eq!(key(5), b"n", "no memory yet");
        assert_eq!(keys[6], None, "a metatable: formatted every time");
        assert_eq!(keys[7], None, "a table as a key: formatted every time");
        lua.load("shared.y = 3").exec().unwrap();
        let again = keys_of(&lua, &["return {memory = m}"]);
        assert_ne!(again[0].as_deref(), Some(key(0)), "a nested value changed");
    }

    #[test]
    fn a_large_memory_has_no_key() {
        let lua = Lua::new();
        let keys = keys_of(
            &lua,
            &["local t = {} for i = 1, 300 do t[i] = i end return {memory = t}"],
        );
        assert_eq!(keys[0], None);
    }
}
