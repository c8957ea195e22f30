//! The designer's edit of one value in an agent's `self.memory` (the window's inspector,
//! recorded as a history input): a number, string or boolean written at a key path, between
//! ticks. Only that one entry of one agent's memory changes; nothing else of the Lua state.

use super::ScriptHost;
use mlua::{Table, Value};

impl ScriptHost {
    /// Sets `self.memory[path[0]][path[1]]... = value` for an agent that has a `self`: every
    /// table on the way must already exist (a part that reads as a whole number names an
    /// array entry when the table has one there). `value` is a number, string or boolean.
    /// An error in words when the agent, a table on the path or the value's kind is wrong.
    pub fn set_memory(
        &mut self,
        agent: &str,
        path: &[String],
        value: &serde_json::Value,
    ) -> Result<(), String> {
        let Some((last, parents)) = path.split_last() else {
            return Err("no memory key given".into());
        };
        let Some(this) = self.agents.this(&self.lua, agent) else {
            return Err(format!("{agent} has no script state yet"));
        };
        let mut table: Table = match this.raw_get::<Value>("memory") {
            Ok(Value::Table(t)) => t,
            Ok(Value::Nil) => {
                let t = self.lua.create_table().map_err(|e| e.to_string())?;
                this.raw_set("memory", &t).map_err(|e| e.to_string())?;
                t
            }
            _ => return Err(format!("{agent}'s self.memory is not a table")),
        };
        for part in parents {
            table = match get(&table, part) {
                Value::Table(t) => t,
                _ => return Err(format!("memory.{} is not a table", path.join("."))),
            };
        }
        // A host table kept in memory (a shared path tile, an agent's `pos`) is read-only to
        // the edit too: a raw write would change it for every holder.
        if let Ok(Some(what)) = super::sandbox::read_only_name(&self.lua, &table) {
            return Err(format!(
                "memory.{} is in {what}, which is read-only",
                path.join(".")
            ));
        }
        let value = match value {
            serde_json::Value::Bool(b) => Value::Boolean(*b),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Value::Integer(i),
                (None, Some(f)) => Value::Number(f),
                _ => return Err(format!("{n} is not a number Lua holds")),
            },
            serde_json::Value::String(s) => {
                Value::String(self.lua.create_string(s).map_err(|e| e.to_string())?)
            }
            _ => return Err("only a number, a string or a boolean can be set".into()),
        };
        match key_of(&table, last) {
            Key::Index(i) => table.raw_set(i, value),
            Key::Name(n) => table.raw_set(n, value),
        }
        .map_err(|e| e.to_string())
    }
}

/// The entry `part` names in `table` (see [`key_of`]).
fn get(table: &Table, part: &str) -> Value {
    match key_of(table, part) {
        Key::Index(i) => table.raw_get(i),
        Key::Name(n) => table.raw_get(n),
    }
    .unwrap_or(Value::Nil)
}

/// A key of a memory table: an array index or a name.
enum Key<'a> {
    Index(i64),
    Name(&'a str),
}

/// `part` as the key it names: a whole number when the table holds an entry at that index,
/// else the string.
fn key_of<'a>(table: &Table, part: &'a str) -> Key<'a> {
    match part.parse::<i64>() {
        Ok(i) if !matches!(table.raw_get::<Value>(i), Ok(Value::Nil) | Err(_)) => Key::Index(i),
        _ => Key::Name(part),
    }
}
