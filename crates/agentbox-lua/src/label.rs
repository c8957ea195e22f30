//! `self:label(name)`: the short state name an agent's script sets ("patrol", "search"),
//! kept by the host until the tick's decisions are handed over and then put on the agent by
//! the simulation (`Agent::label`), which shows it over the agent, on its decision timeline
//! and in the trace. `self:label(nil)` clears it.
//!
//! It only collects what scripts asked for; it never changes the world itself.

use super::bounded;
use super::errors::located;
use super::host_memory::{self, Bill};
use super::views;
use agentbox_core::world::Agent;
use mlua::{Lua, Value};
use std::cell::RefCell;

/// Labels set during the current round of decisions: `(agent index, label)`, in call order
/// (an agent setting its label again in one call replaces it), each on the bill of the agent
/// that set it until taken (`host_memory.rs`).
#[derive(Default)]
pub struct Labels(RefCell<Vec<(usize, Option<String>)>>, RefCell<Vec<Bill>>);

impl Labels {
    /// The labels set since the last call.
    pub fn take(&self) -> Vec<(usize, Option<String>)> {
        self.1.borrow_mut().clear();
        std::mem::take(&mut *self.0.borrow_mut())
    }

    fn set(&self, index: usize, label: Option<String>, bill: Bill) {
        let mut labels = self.0.borrow_mut();
        match labels.last_mut() {
            Some(last) if last.0 == index => {
                last.1 = label;
                if let Some(last) = self.1.borrow_mut().last_mut() {
                    *last = bill;
                }
            }
            _ => {
                labels.push((index, label));
                self.1.borrow_mut().push(bill);
            }
        }
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
            // The length is checked before anything is copied.
            Value::String(s) => match bounded::within(s, Agent::MAX_LABEL) {
                Ok(_) => Some(s.to_str()?.to_string()),
                Err(len) => {
                    return Err(located(
                        lua,
                        format!(
                            "self:label: a label is at most {} bytes, got {len} (a short state name, e.g. \"search\")",
                            Agent::MAX_LABEL,
                        ),
                    ))
                }
            },
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
        let bytes = std::mem::size_of::<(usize, Option<String>)>() + Agent::MAX_LABEL;
        let bill = host_memory::keep(lua, "labels", bytes)?;
        if let Some(labels) = lua.app_data_ref::<std::rc::Rc<Labels>>() {
            labels.set(index, label, bill);
        }
        Ok(())
    })?;
    crate::acts::set_self_method(lua, "label", REGISTRY, f)
}
