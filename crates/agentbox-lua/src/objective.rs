//! `agentbox tune`'s objective: a Lua expression of `summary` (a study's summary as a table:
//! `summary.reach["hunter->prey"].rate`, `summary.metrics.gap.mean`), compiled in a sandbox of
//! its own and run under the work budget, giving one finite number.
//!
//! It reads only the table it is handed: no world, no agents, no files.

use super::{convert, errors, sandbox, ScriptHost};
use mlua::chunk::ChunkMode;
use mlua::{MultiValue, Value};
use std::path::Path;

impl ScriptHost {
    /// Evaluates `code`, a Lua expression of `summary` (given as JSON), to a finite number;
    /// anything else (a syntax error, an error raised, a table, nil, NaN) is a one-line
    /// message naming the objective.
    pub fn evaluate_objective(
        &mut self,
        code: &str,
        summary: &serde_json::Value,
    ) -> Result<f64, String> {
        let describe = |e: mlua::Error| format!("--objective: {}", errors::describe(&e));
        let ctx = sandbox::new_context(&self.lua, Path::new("."), 0).map_err(describe)?;
        let env = sandbox::new_env(&self.lua, &ctx).map_err(describe)?;
        let function = self
            .lua
            .load(format!("local summary = ...; return ({code}\n)"))
            .set_name("=objective")
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function()
            .map_err(describe)?;
        let table = convert::json_to_lua(&self.lua, summary).map_err(describe)?;
        let value = self
            .call(&function, MultiValue::from_iter([table]))
            .map_err(|e| format!("--objective: {}", String::from(e)))?;
        let number = match value {
            Value::Integer(i) => i as f64,
            Value::Number(n) => n,
            other => {
                return Err(format!(
                    "--objective `{code}` gave {} instead of a number",
                    other.type_name()
                ))
            }
        };
        if number.is_finite() {
            Ok(number)
        } else {
            Err(format!(
                "--objective `{code}` gave {number}, not a finite number"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_objective_reads_the_summary_and_must_give_a_number() {
        let mut host = ScriptHost::new(1).expect("host");
        let summary = serde_json::json!({
            "reach": { "hunter->prey": { "rate": 0.75, "time": 120.5 } },
            "metrics": { "gap": { "mean": 3.0 } }
        });
        let rate = host.evaluate_objective("summary.reach['hunter->prey'].rate", &summary);
        assert_eq!(rate, Ok(0.75));
        let mixed = host.evaluate_objective(
            "summary.reach['hunter->prey'].rate * 100 - summary.metrics.gap.mean",
            &summary,
        );
        assert_eq!(mixed, Ok(72.0));
        let table = host
            .evaluate_objective("summary.reach", &summary)
            .unwrap_err();
        assert!(table.contains("gave table instead of a number"), "{table}");
        let missing = host
            .evaluate_objective("summary.metrics.nope.mean", &summary)
            .unwrap_err();
        assert!(missing.starts_with("--objective:"), "{missing}");
        let syntax = host.evaluate_objective("summary.(", &summary).unwrap_err();
        assert!(syntax.contains("objective"), "{syntax}");
        let nan = host.evaluate_objective("0/0", &summary).unwrap_err();
        assert!(nan.contains("not a finite number"), "{nan}");
        let forever = host.evaluate_objective("(function() while true do end end)()", &summary);
        assert!(forever.is_err());
    }
}
