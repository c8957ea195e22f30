//! A scene's `metrics:` for experiments: each is compiled as a Lua expression of `world` (or,
//! if it is not one, as the body of a function of `world`) in its own sandbox and run once
//! against the world at the end of a run. Implements [`agentbox_core::expect::Metrics`] for the host,
//! so the experiment logic never names mlua. The caller decides which host runs them (an
//! experiment uses a fresh one, so a metric cannot reach the run's Lua state).

use super::{errors, sandbox, ScriptHost};
use agentbox_core::expect::Metrics;
use agentbox_core::world::World;
use mlua::chunk::ChunkMode;
use mlua::{Function, MultiValue, Table, Value};
use std::path::Path;
use std::rc::Rc;

/// The registry table holding compiled metrics, by handle.
const REGISTRY: &str = "agentbox.metrics";

impl ScriptHost {
    fn metrics(&self) -> mlua::Result<Table> {
        self.registry_table(REGISTRY)
    }
}

impl Metrics for ScriptHost {
    fn compile_metric(&mut self, name: &str, code: &str) -> Result<usize, String> {
        let describe = |e: mlua::Error| errors::describe(&e);
        let load = self.modules.next_load();
        let ctx = sandbox::new_context(&self.lua, Path::new("."), load).map_err(describe)?;
        let env = sandbox::new_env(&self.lua, &ctx).map_err(describe)?;
        let compile = |source: String| {
            self.lua
                .load(source)
                .set_name(format!("=metric {name}"))
                .set_mode(ChunkMode::Text)
                .set_environment(env.clone())
                .into_function()
        };
        // An expression first; the code starts on line 1 either way, so messages keep its lines.
        let function = compile(format!("local world = ...; return ({code}\n)"))
            .or_else(|_| {
                compile(format!(
                    "local world = ...; return (function() {code}\nend)()"
                ))
            })
            .map_err(describe)?;
        let table = self.metrics().map_err(describe)?;
        let handle = table.raw_len() + 1;
        table.raw_set(handle, function).map_err(describe)?;
        Ok(handle)
    }

    fn run_metric(&mut self, handle: usize, world: &Rc<World>) -> Result<f64, String> {
        let describe = |e: mlua::Error| errors::describe(&e);
        let function: Function = self
            .metrics()
            .and_then(|t| t.raw_get(handle))
            .map_err(describe)?;
        self.raw.views.begin_round(world);
        let args = MultiValue::from_iter([Value::Table(self.world_table.clone())]);
        let result = self.lent.lend(world, || self.call(&function, args));
        let value = match result.map_err(String::from)? {
            Value::Integer(i) => i as f64,
            Value::Number(n) => n,
            Value::Boolean(b) => f64::from(u8::from(b)),
            other => {
                return Err(format!(
                    "returned {} instead of a number",
                    other.type_name()
                ))
            }
        };
        if value.is_finite() {
            Ok(value)
        } else {
            Err(format!("returned {value}, not a finite number"))
        }
    }
}
