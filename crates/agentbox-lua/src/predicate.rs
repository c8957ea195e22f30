//! Lua predicates for `expect.lua` in scenes: each is compiled as the body of a function of
//! `world` in its own sandbox and run against the world after a tick. Implements
//! [`agentbox_core::expect::Predicates`] for the host, so the expectation logic never names mlua.

use super::{errors, sandbox, ScriptHost};
use agentbox_core::expect::Predicates;
use agentbox_core::world::World;
use mlua::chunk::ChunkMode;
use mlua::{Function, MultiValue, Table, Value};
use std::path::Path;
use std::rc::Rc;

/// The registry table holding compiled predicates, by handle.
const REGISTRY: &str = "agentbox.predicates";

impl ScriptHost {
    fn predicates(&self) -> mlua::Result<Table> {
        self.registry_table(REGISTRY)
    }
}

impl Predicates for ScriptHost {
    fn compile_predicate(&mut self, name: &str, code: &str) -> Result<usize, String> {
        let describe = |e: mlua::Error| errors::describe(&e);
        let load = self.modules.next_load();
        let ctx = sandbox::new_context(&self.lua, Path::new("."), load).map_err(describe)?;
        let env = sandbox::new_env(&self.lua, &ctx).map_err(describe)?;
        // The check runs as a function on the same line, so line numbers in messages are its
        // own; its `true` or `false, reason` become one value: true, or the reason.
        let source = format!(
            "local world = ...; local ok, why = (function() {code}\nend)()\nif ok then return true end\nreturn why or false\n"
        );
        let function = self
            .lua
            .load(source)
            .set_name(format!("=expect {name}"))
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function()
            .map_err(describe)?;
        let table = self.predicates().map_err(describe)?;
        let handle = table.raw_len() + 1;
        table.raw_set(handle, function).map_err(describe)?;
        Ok(handle)
    }

    fn run_predicate(&mut self, handle: usize, world: &Rc<World>) -> Result<(), String> {
        let describe = |e: mlua::Error| errors::describe(&e);
        let function: Function = self
            .predicates()
            .and_then(|t| t.raw_get(handle))
            .map_err(describe)?;
        // Views cached during the last round of decisions show the world before that tick.
        self.raw.views.begin_round(world);
        let args = MultiValue::from_iter([Value::Table(self.world_table.clone())]);
        let result = self.lent.lend(world, || self.call(&function, args));
        match result.map_err(String::from)? {
            Value::Boolean(true) => Ok(()),
            Value::String(s) => Err(crate::bounded::message(
                &s.as_bytes(),
                agentbox_core::world::ScriptError::MAX_BYTES,
            )),
            _ => Err("returned false".into()),
        }
    }
}
