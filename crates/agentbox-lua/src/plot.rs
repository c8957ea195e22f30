//! `plot(name, value)` for scripts: values for the window's chart and for `--monitors`. Many
//! agents plotting one name in one tick are folded by the name's rule (sum, mean or last; the
//! scene's `monitors.plots`, mean when not stated) by whoever reads them; this file only keeps
//! each name's sum, count and last value for the tick.
//!
//! Display only: `plot` returns nothing, draws no random number and writes nothing a script or
//! the trace can read. When nobody collects plots (a headless run without `--monitors`), a call
//! costs one lookup and keeps nothing.

use super::ScriptHost;
use mlua::{Lua, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One name's values within one tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub sum: f64,
    pub count: u64,
    pub last: f64,
}

/// At most this many names per tick (a script plotting in a loop with new names each time
/// costs this much and no more).
const MAX_NAMES: usize = 256;

/// The tick's plotted values, by name (kept in the Lua state's app data while collecting).
#[derive(Default)]
struct Plots(RefCell<BTreeMap<String, Tally>>);

/// The registry entries: the shared `plot` and the table whose `on` says whether plots are
/// collected.
const PLOT: &str = "agentbox.plot";
const STATE: &str = "agentbox.plot_state";

/// The global `plot`: a Lua function that returns at once unless plots are collected (a call
/// into Rust costs several times a Lua call, and a crowd may plot every tick), made once per
/// Lua state and shared by every sandbox.
pub fn install(lua: &Lua, env: &mlua::Table) -> mlua::Result<()> {
    if let Ok(f) = lua.named_registry_value::<mlua::Function>(PLOT) {
        return env.raw_set("plot", f);
    }
    let state = lua.create_table()?;
    let wrapper: mlua::Function = lua
        .load("local state, real = ...\nreturn function(name, value) if state.on then return real(name, value) end end")
        .set_name("=plot")
        .set_mode(mlua::chunk::ChunkMode::Text)
        .call((state.clone(), collector(lua)?))?;
    lua.set_named_registry_value(STATE, state)?;
    lua.set_named_registry_value(PLOT, wrapper.clone())?;
    env.raw_set("plot", wrapper)
}

/// The Rust side of `plot`, called only while plots are collected.
fn collector(lua: &Lua) -> mlua::Result<mlua::Function> {
    {
        lua.create_function(|lua, (name, value): (Value, Value)| {
            let Some(plots) = lua.app_data_ref::<Rc<Plots>>().map(|p| Rc::clone(&p)) else {
                return Ok(());
            };
            let name = match name {
                Value::String(s) => s.to_str()?.to_string(),
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
        })
    }
}

impl ScriptHost {
    /// Starts (or stops) keeping what scripts plot; stopped, `plot` keeps nothing.
    pub fn collect_plots(&mut self, on: bool) {
        if let Ok(state) = self.lua.named_registry_value::<mlua::Table>(STATE) {
            let _ = state.raw_set("on", on);
        }
        if on {
            if self.lua.app_data_ref::<Rc<Plots>>().is_none() {
                self.lua.set_app_data(Rc::new(Plots::default()));
            }
        } else {
            self.lua.remove_app_data::<Rc<Plots>>();
        }
    }

    /// What scripts plotted since the last call, by name (empty when not collecting).
    pub fn take_plots(&mut self) -> BTreeMap<String, Tally> {
        self.lua
            .app_data_ref::<Rc<Plots>>()
            .and_then(|p| {
                p.0.try_borrow_mut()
                    .ok()
                    .map(|mut m| std::mem::take(&mut *m))
            })
            .unwrap_or_default()
    }
}
