//! The sandbox every script runs in: its own global table holding copies of the safe parts of
//! the standard library, so a script can neither reach the host (no io, os beyond clock/time,
//! debug, dofile, loadfile, bytecode) nor change a builtin another script relies on.

use super::errors::located;
use crate::world::rng;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, MultiValue, Table, Value, Variadic};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

/// The random stream of the agent being decided (or of module loading), read by `math.random`.
pub struct CurrentRng(pub ChaCha8Rng);

/// Base functions a script may use as they are.
const SAFE_BASE: [&str; 16] = [
    "assert",
    "error",
    "ipairs",
    "next",
    "pairs",
    "rawequal",
    "rawget",
    "rawlen",
    "rawset",
    "select",
    "setmetatable",
    "getmetatable",
    "tonumber",
    "tostring",
    "type",
    "_VERSION",
];

/// Library tables copied into each sandbox, with what is left out of each.
const LIBRARIES: [(&str, &[&str]); 5] = [
    ("string", &["dump"]),
    ("table", &[]),
    ("math", &["random", "randomseed"]),
    ("utf8", &[]),
    ("coroutine", &[]),
];

/// Prepares the shared state once: protects the string metatable and stores the functions
/// sandboxes are built from.
pub fn prepare(lua: &Lua) -> mlua::Result<()> {
    // `getmetatable("")` would hand out the shared string metatable; make it opaque.
    lua.load("getmetatable('').__metatable = false")
        .set_name("=agentbox")
        .exec()?;
    lua.set_named_registry_value("agentbox.loaded", lua.create_table()?)?;
    Ok(())
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
    let mut slot = lua
        .app_data_mut::<CurrentRng>()
        .ok_or_else(|| located(lua, "math.random: no random stream (this is a bug)"))?;
    let r = &mut slot.0;
    match args.as_slice() {
        [] => Ok(Value::Number(rng::unit_f64(r))),
        [m] => {
            if *m < 1 {
                drop(slot);
                return Err(located(
                    lua,
                    "bad argument #1 to 'random' (interval is empty)",
                ));
            }
            Ok(Value::Integer(rng::int_in(r, 1, *m)))
        }
        [m, n, ..] => {
            if m > n {
                drop(slot);
                return Err(located(
                    lua,
                    "bad argument #2 to 'random' (interval is empty)",
                ));
            }
            Ok(Value::Integer(rng::int_in(r, *m, *n)))
        }
    }
}

/// Builds a fresh global table for one script whose modules live under `root`.
pub fn new_env(lua: &Lua, root: &Path, move_t: &Table, nav_t: &Table) -> mlua::Result<Table> {
    let globals = lua.globals();
    let env = lua.create_table()?;
    for name in SAFE_BASE {
        env.raw_set(name, globals.raw_get::<Value>(name)?)?;
    }
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
    let os = lua.create_table()?;
    let real_os: Table = globals.raw_get("os")?;
    os.raw_set("clock", real_os.raw_get::<Value>("clock")?)?;
    os.raw_set("time", real_os.raw_get::<Value>("time")?)?;
    env.raw_set("os", os)?;
    env.raw_set("pcall", globals.raw_get::<Value>("pcall")?)?;
    env.raw_set("xpcall", globals.raw_get::<Value>("xpcall")?)?;
    env.raw_set(
        "print",
        lua.create_function(|lua, args: Variadic<Value>| {
            let parts: Vec<String> = args
                .iter()
                .map(|v| v.to_string().unwrap_or_else(|_| v.type_name().to_string()))
                .collect();
            let at = super::errors::caller_location(lua).unwrap_or_default();
            eprintln!("{at}: {}", parts.join("\t"));
            Ok(())
        })?,
    )?;
    env.raw_set("move", shallow_copy(lua, move_t, &[])?)?;
    env.raw_set("nav", shallow_copy(lua, nav_t, &[])?)?;
    env.raw_set("load", load_function(lua, &env)?)?;
    env.raw_set(
        "require",
        require_function(lua, root.to_path_buf(), move_t, nav_t)?,
    )?;
    env.raw_set("_G", env.clone())?;
    Ok(env)
}

/// `load` for text chunks only, running in the caller's sandbox unless given another table.
fn load_function(lua: &Lua, env: &Table) -> mlua::Result<Function> {
    let home = env.clone();
    lua.create_function(
        move |lua, (chunk, name, _mode, chunk_env): (Value, Option<String>, Value, Option<Table>)| {
            let Value::String(text) = chunk else {
                return Ok((Value::Nil, Some("load: only strings of Lua source are allowed".to_string())));
            };
            let text = text.as_bytes().to_vec();
            if text.first() == Some(&0x1b) {
                return Ok((Value::Nil, Some("load: binary chunks are not allowed".to_string())));
            }
            let name = name.unwrap_or_else(|| "=(load)".to_string());
            let loaded = lua
                .load(text)
                .set_name(name)
                .set_mode(ChunkMode::Text)
                .set_environment(chunk_env.unwrap_or_else(|| home.clone()))
                .into_function();
            match loaded {
                Ok(f) => Ok((Value::Function(f), None)),
                Err(e) => Ok((Value::Nil, Some(super::errors::describe(&e)))),
            }
        },
    )
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

/// `require(name)`: loads `root/name.lua` (dots are folders) once, in its own sandbox.
fn require_function(
    lua: &Lua,
    root: PathBuf,
    move_t: &Table,
    nav_t: &Table,
) -> mlua::Result<Function> {
    let (move_t, nav_t) = (move_t.clone(), nav_t.clone());
    lua.create_function(move |lua, name: String| {
        if !valid_module_name(&name) {
            return Err(located(
                lua,
                format!(
                    "require: {name:?} is not a module name (use dotted words, e.g. \"lib.steer\")"
                ),
            ));
        }
        let path = module_path(&root, &name);
        let key = path.to_string_lossy().into_owned();
        let loaded: Table = lua.named_registry_value("agentbox.loaded")?;
        if let Some(v) = loaded.raw_get::<Option<Value>>(key.as_str())? {
            return Ok(v);
        }
        let source = std::fs::read(&path).map_err(|e| {
            located(
                lua,
                format!(
                    "require: module {name:?} not found in the scripts folder ({}: {e})",
                    path.display()
                ),
            )
        })?;
        let env = new_env(lua, &root, &move_t, &nav_t)?;
        let value: Value = lua
            .load(source)
            .set_name(format!("@{}", path.display()))
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .call(())?;
        let value = if value.is_nil() {
            Value::Boolean(true)
        } else {
            value
        };
        loaded.raw_set(key.as_str(), value.clone())?;
        Ok(value)
    })
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
