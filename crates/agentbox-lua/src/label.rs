//! `self:label(name)`: the short state name an agent's script sets ("patrol", "search"),
//! kept by the host until the tick's decisions are handed over and then put on the agent by
//! the simulation (`Agent::label`), which shows it over the agent, on its decision timeline
//! and in the trace. `self:label(nil)` clears it.
//!
//! It only collects what scripts asked for; it never changes the world itself.

use super::errors::located;
use super::views;
use agentbox_core::world::Agent;
use mlua::{Lua, Value};
use std::cell::RefCell;

/// Labels set during the current round of decisions: `(agent index, label)`, in call order.
#[derive(Default)]
pub struct Labels(RefCell<Vec<(usize, Option<String>)>>);

impl Labels {
    /// The labels set since the last call.
    pub fn take(&self) -> Vec<(usize, Option<String>)> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

/// What `self:label` does, for the reference page (`registry::markdown`).
pub const DOC: &str = "`self:label(\"search\")` names the agent's state (at most 32 bytes; `self:label(nil)` clears it). It stays until changed, is shown over the agent (L), on its decision timeline, and in the trace as the agent's `label`.";

/// The registry name of the `label` function `self` hands out.
pub const REGISTRY: &str = "agentbox.label";

/// Installs the label store and the function `self.label` reads (see `views::fill`).
pub fn install(lua: &Lua) -> mlua::Result<()> {
    lua.set_app_data(std::rc::Rc::new(Labels::default()));
    let f = lua.create_function(|lua, (this, name): (Value, Value)| {
        let views = views::get(lua)?;
        let Some((_, index)) = views.deciding() else {
            return Err(located(
                lua,
                "self:label can only be used inside init or decide",
            ));
        };
        if !views.is_deciding_self(&this) {
            return Err(located(
                lua,
                "self:label: call it on your own self, with a colon: self:label(\"search\")",
            ));
        }
        let label = match &name {
            Value::Nil => None,
            Value::String(s) => {
                let text = s.to_str()?.to_string();
                if text.len() > Agent::MAX_LABEL {
                    return Err(located(
                        lua,
                        format!(
                            "self:label: a label is at most {} bytes, got {} (a short state name, e.g. \"search\")",
                            Agent::MAX_LABEL,
                            text.len()
                        ),
                    ));
                }
                Some(text)
            }
            other => {
                return Err(located(
                    lua,
                    format!(
                        "self:label: expected a string (or nil to clear it), got {}",
                        other.type_name()
                    ),
                ))
            }
        };
        if let Some(labels) = lua.app_data_ref::<std::rc::Rc<Labels>>() {
            labels.0.borrow_mut().push((index, label));
        }
        Ok(())
    })?;
    lua.set_named_registry_value(REGISTRY, f)
}
