//! The globals the host adds to every script's sandbox beside the standard library (which
//! `sandbox.rs` copies and `registry::SANDBOX_STD` lists): `plot`. Each is made once per Lua
//! state, when the first sandbox is built, kept in the registry and shared by every sandbox.

use super::{p, Binding, Charge, Home, Library, Make};
use crate::plot::{Plots, MAX_NAMES, MAX_NAME_BYTES, STATE};
use mlua::{Function, Lua, Table, Value};
use std::rc::Rc;

/// The globals, in the order a sandbox gets them.
pub const GLOBALS: Library = Library {
    home: Home::Global,
    heading: "Globals",
    doc: "",
    bindings: &[PLOT],
};

/// Sets every global in a new sandbox `env`, making it the first time.
pub fn install(lua: &Lua, env: &Table) -> mlua::Result<()> {
    for binding in GLOBALS.bindings {
        let Make::Function(make) = binding.make else {
            continue;
        };
        let key = format!("agentbox.{}", binding.name);
        let function = match lua.named_registry_value::<Function>(&key) {
            Ok(f) => f,
            Err(_) => {
                let f = make(lua)?;
                lua.set_named_registry_value(&key, f.clone())?;
                f
            }
        };
        env.raw_set(binding.short_name(), function)?;
    }
    Ok(())
}

pub const PLOT: Binding = Binding {
    name: "plot",
    params: &[
        p("name", "string", "The series' name."),
        p("value", "number", "A finite number."),
    ],
    returns: &[],
    doc: "Adds a value to a named series of the window's plots panel (Tab, or J) and of `--monitors FILE.csv`. Values plotted under one name in one tick (by many agents) are folded by the name's rule from the scene's `monitors.plots` (`sum`, `mean` or `last`; `mean` when not stated). Display only: it never changes the run, and costs a lookup when nothing collects plots. A name is at most 64 bytes (longer is an error while plots are collected), at most 256 names a tick. `plot(\"hunting\", 1)` counts the agents hunting with the rule `sum`.",
    charge: Charge::None,
    make: Make::Function(plot),
};

/// `plot`: a Lua function that returns at once unless plots are collected (a call into Rust
/// costs several times a Lua call, and a crowd may plot every tick); the table whose `on`
/// says so is kept in the registry for `ScriptHost::collect_plots`.
fn plot(lua: &Lua) -> mlua::Result<Function> {
    // One state for every sandbox: `collect_plots` sets its `on` only when it changes.
    let state = crate::registry_table(lua, STATE)?;
    let wrapper: Function = lua
        .load("local state, real = ...\nreturn function(name, value) if state.on then return real(name, value) end end")
        .set_name("=plot")
        .set_mode(mlua::chunk::ChunkMode::Text)
        .call((state.clone(), lua.create_function(collect)?))?;
    Ok(wrapper)
}

/// The Rust side of `plot`, called only while plots are collected.
fn collect(lua: &Lua, (name, value): (Value, Value)) -> mlua::Result<()> {
    let Some(plots) = lua.app_data_ref::<Rc<Plots>>().map(|p| Rc::clone(&p)) else {
        return Ok(());
    };
    let name = match name {
        // Measured before it is copied: a series' name is short.
        Value::String(s) => crate::bounded::within(&s, MAX_NAME_BYTES).map_err(|len| {
            mlua::Error::runtime(format!(
                "plot(name, value): a name is at most {MAX_NAME_BYTES} bytes, got {len}"
            ))
        })?,
        other => {
            return Err(mlua::Error::runtime(format!(
                "plot(name, value): name must be a string, not {}",
                other.type_name()
            )))
        }
    };
    let value = match value {
        Value::Integer(i) => i as f64,
        Value::Number(n) if n.is_finite() => n,
        other => {
            return Err(mlua::Error::runtime(format!(
                "plot(\"{name}\", value): value must be a finite number, not {}",
                match other {
                    Value::Number(n) => n.to_string(),
                    o => o.type_name().to_string(),
                }
            )))
        }
    };
    let Ok(mut map) = plots.0.try_borrow_mut() else {
        return Ok(());
    };
    if map.len() >= MAX_NAMES && !map.contains_key(&name) {
        return Ok(());
    }
    let t = map.entry(name).or_default();
    t.sum += value;
    t.count += 1;
    t.last = value;
    Ok(())
}
