//! A tunable changed while the scene runs: the new value is written into the agent's
//! `self.params`, so its next `decide` sees it (a reload keeps `self`, so the value survives
//! one). Only the named param of one agent's `self` changes; nothing else of the Lua state.

use super::ScriptHost;
use mlua::Table;

impl ScriptHost {
    /// Sets `self.params[param] = value` for an agent that has a `self`; false if it has none.
    pub fn set_param(&mut self, agent: &str, param: &str, value: f64) -> bool {
        let Some(this) = self.agents.this(&self.lua, agent) else {
            return false;
        };
        let params = this.raw_get::<Table>("params");
        match params {
            Ok(p) => p.raw_set(param, value).is_ok(),
            Err(_) => false,
        }
    }
}
