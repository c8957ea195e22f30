//! Lua values as text for the window's inspector: tables pretty-printed with sorted keys,
//! bounded in depth and size so a huge or cyclic `memory` cannot stall a frame.

use mlua::{Table, Value};
use std::fmt::Write;

const MAX_DEPTH: usize = 6;
const MAX_ENTRIES: usize = 200;

/// A readable multi-line rendering of a value.
pub fn pretty(value: &Value) -> String {
    let mut out = String::new();
    let mut budget = MAX_ENTRIES;
    write_value(&mut out, value, 0, &mut budget);
    out
}

fn scalar(value: &Value) -> Option<String> {
    Some(match value {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{n:.1}")
            } else {
                format!("{n:.4}")
            }
        }
        // Only what the inspector can show is copied.
        Value::String(s) => format!("{:?}", crate::bounded::prefix(&s.as_bytes(), 1024)),
        Value::Table(_) => return None,
        other => format!("<{}>", other.type_name()),
    })
}

fn write_value(out: &mut String, value: &Value, depth: usize, budget: &mut usize) {
    match value {
        Value::Table(t) => write_table(out, t, depth, budget),
        other => out.push_str(&scalar(other).unwrap_or_default()),
    }
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => crate::bounded::prefix(&s.as_bytes(), 256).into_owned(),
        other => format!("[{}]", scalar(other).unwrap_or_else(|| "<table>".into())),
    }
}

fn write_table(out: &mut String, table: &Table, depth: usize, budget: &mut usize) {
    if depth >= MAX_DEPTH {
        out.push_str("{...}");
        return;
    }
    let mut entries: Vec<(String, Value)> = table
        .pairs::<Value, Value>()
        .filter_map(Result::ok)
        .map(|(k, v)| (key_text(&k), v))
        .collect();
    if entries.is_empty() {
        out.push_str("{}");
        return;
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    out.push('{');
    let indent = "  ".repeat(depth + 1);
    for (key, value) in entries {
        if *budget == 0 {
            let _ = write!(out, "\n{indent}...");
            break;
        }
        *budget -= 1;
        let _ = write!(out, "\n{indent}{key} = ");
        write_value(out, &value, depth + 1, budget);
    }
    let _ = write!(out, "\n{}}}", "  ".repeat(depth));
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlua::Lua;

    #[test]
    fn tables_print_sorted_and_nested_and_cycles_stop() {
        let lua = Lua::new();
        let v: Value = lua
            .load("local t = {b = 2, a = {x = 1.5, y = 'hi'}} t.self = t return t")
            .eval()
            .unwrap();
        let text = pretty(&v);
        assert!(text.starts_with("{\n  a = {\n    x = 1.5000"), "{text}");
        assert!(text.contains("\n  b = 2\n"), "{text}");
        assert!(text.contains("{...}"), "a cycle is cut off: {text}");
    }
}
