//! Numbers in a scene's text, by path: `agents.hunter.params.space`, `spawn.0.speed`, or a
//! tunable's name (`hunter.space`, `OWNER.PARAM`). A path is resolved against the text as
//! written (agents by `id`, spawn groups by index or `kind`; a tunable's mapping by its
//! `value`), and a number is rewritten where it stands, so comments, key order and every other
//! byte stay as the designer wrote them. `agentbox sweep` edits its scene this way, and the
//! window saves tunables this way.
//!
//! It only reads and edits text: it must not build worlds or touch files.

use super::tree::{Node, Tree, Value};

/// Top-level keys that start a scene path (anything else is a tunable's name).
const TOP: &[&str] = &[
    "name",
    "seed",
    "tick_rate",
    "map",
    "terrain",
    "agents",
    "spawn",
    "waypoints",
    "expect",
    "budget",
    "metrics",
    "monitors",
];

/// Where one number sits in a scene's text.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    /// The path with names turned into indices, as the locator spells it
    /// (`agents.1.params.space.value`).
    pub path: String,
    /// Its bytes in the text.
    pub start: usize,
    pub end: usize,
    /// The number written there.
    pub value: f64,
}

/// Why there is no number to rewrite at a path; its `Display` names the path and says why.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NumberError {
    #[error("`{path}`: the scene does not parse: {message} at line {line} column {column}")]
    Unparsable {
        path: String,
        message: String,
        line: usize,
        column: usize,
    },
    #[error("`{path}`: an empty name between dots")]
    EmptyName { path: String },
    #[error("`{path}` is neither a scene path (starting with {}) nor a tunable's name (OWNER.PARAM)", TOP.join(", "))]
    NotAPath { path: String },
    #[error("`{path}`: no agent with id `{owner}` and no spawn group of kind `{owner}`")]
    NoOwner { path: String, owner: String },
    #[error("`{path}`: `{owner}` has no tunable `{param}` (declare it as params: {{ {param}: {{ value: V, min: A, max: B }} }})")]
    NoTunable {
        path: String,
        owner: String,
        param: String,
    },
    /// A misspelt tunable: `meant` is the declared one closest to `param`.
    #[error("`{path}`: `{owner}` has no tunable `{param}` (did you mean {owner}.{meant}?)")]
    MisspeltTunable {
        path: String,
        owner: String,
        param: String,
        meant: String,
    },
    /// `within` is `the scene` or a path in backquotes.
    #[error("`{path}`: {within} has no `{part}`")]
    NoSuchKey {
        path: String,
        within: String,
        part: String,
    },
    /// `what` is `a mapping`, `a list` or the value in backquotes.
    #[error("`{path}` is {what}, not a number")]
    NotANumber { path: String, what: String },
    #[error("`{path}` is written `{written}`, which cannot be rewritten in place (write it as a plain number)")]
    NotPlain { path: String, written: String },
    #[error("`{path}`: {value} is not a finite number")]
    NotFinite { path: String, value: f64 },
}

/// Finds the number at `path` in a scene's `text`, or says clearly why there is none.
pub fn locate(text: &str, path: &str) -> Result<Located, NumberError> {
    let tree = Tree::parse(text).map_err(|e| NumberError::Unparsable {
        path: path.into(),
        message: e.message,
        line: e.line,
        column: e.column,
    })?;
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(NumberError::EmptyName { path: path.into() });
    }
    let mut resolved: Vec<String> = Vec::new();
    let mut node = &tree.root;
    let parts: Vec<String> = if TOP.contains(&parts[0]) {
        parts.iter().map(|p| p.to_string()).collect()
    } else {
        tunable_path(&tree, path, &parts)?
    };
    for part in &parts {
        let Some((next, name)) = step(&tree, node, part) else {
            let at = if resolved.is_empty() {
                "the scene".to_string()
            } else {
                format!("`{}`", resolved.join("."))
            };
            return Err(NumberError::NoSuchKey {
                path: path.into(),
                within: at,
                part: part.clone(),
            });
        };
        resolved.push(name);
        node = next;
    }
    // A tunable's mapping stands for its value.
    if let Some((_, value)) = tree
        .child(node, "value")
        .filter(|_| matches!(node.value, Value::Map(_)))
    {
        resolved.push("value".into());
        node = value;
    }
    let joined = resolved.join(".");
    let not_a_number = |what: String| NumberError::NotANumber {
        path: path.into(),
        what,
    };
    let value = match node.value {
        Value::Int(n) => n as f64,
        Value::Float(x) => x,
        Value::Map(_) => return Err(not_a_number("a mapping".into())),
        Value::List(_) => return Err(not_a_number("a list".into())),
        _ => return Err(not_a_number(format!("`{}`", tree.raw(node)))),
    };
    let (start, end) = (node.start, node.end);
    if text[start..end].parse::<f64>().is_err() {
        return Err(NumberError::NotPlain {
            path: path.into(),
            written: text[start..end].into(),
        });
    }
    Ok(Located {
        path: joined,
        start,
        end,
        value,
    })
}

/// The text of a scalar node, if it is one.
fn text_of<'n>(tree: &'n Tree, node: &'n Node) -> Option<&'n str> {
    match &node.value {
        Value::Text(t) => Some(t),
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => Some(tree.raw(node)),
        _ => None,
    }
}

/// The scene path a tunable's name (`OWNER.PARAM`) stands for, as parts: the agent with id
/// OWNER (else the spawn group of kind OWNER), then `params.PARAM`, which must be declared as a
/// range (a mapping with a `value`).
fn tunable_path(tree: &Tree, path: &str, parts: &[&str]) -> Result<Vec<String>, NumberError> {
    // OWNER.PARAM: an agent's id or a spawn group's kind, then a param declared as a range.
    let [owner, param] = parts[..] else {
        return Err(NumberError::NotAPath { path: path.into() });
    };
    let in_list = |list: &str, key: &str| {
        let Value::List(items) = &tree.get(list)?.value else {
            return None;
        };
        items
            .iter()
            .position(|item| {
                tree.child(item, key).and_then(|(_, v)| text_of(tree, v)) == Some(owner)
            })
            .map(|i| format!("{list}.{i}"))
    };
    let Some(base) = in_list("agents", "id").or_else(|| in_list("spawn", "kind")) else {
        return Err(NumberError::NoOwner {
            path: path.into(),
            owner: owner.into(),
        });
    };
    let full = format!("{base}.params.{param}");
    let declared = tree
        .get(&full)
        .is_some_and(|n| tree.child(n, "value").is_some());
    if !declared {
        let tunables: Vec<&str> = match tree.get(&format!("{base}.params")).map(|n| &n.value) {
            Some(Value::Map(entries)) => entries
                .iter()
                .filter(|(_, v)| tree.child(v, "value").is_some())
                .map(|(k, _)| tree.key(k))
                .collect(),
            _ => Vec::new(),
        };
        let (path, owner) = (path.to_string(), owner.to_string());
        return Err(match super::shape::suggestion(param, &tunables) {
            Some(meant) => NumberError::MisspeltTunable {
                path,
                owner,
                param: param.into(),
                meant: meant.into(),
            },
            None => NumberError::NoTunable {
                path,
                owner,
                param: param.into(),
            },
        });
    }
    Ok(full.split('.').map(str::to_string).collect())
}

/// One step down: a mapping's key, or a list's index, or (in `agents` and `spawn`) an agent's
/// id or a group's kind. Returns the child and the segment as the tree's paths name it.
fn step<'n>(tree: &'n Tree, node: &'n Node, part: &str) -> Option<(&'n Node, String)> {
    match &node.value {
        Value::Map(_) => tree.child(node, part).map(|(_, v)| (v, part.to_string())),
        Value::List(items) => {
            if let Ok(i) = part.parse::<usize>() {
                return items.get(i).map(|v| (v, i.to_string()));
            }
            let i = items.iter().position(|item| {
                ["id", "kind"]
                    .iter()
                    .any(|k| tree.child(item, k).and_then(|(_, v)| text_of(tree, v)) == Some(part))
            })?;
            Some((&items[i], i.to_string()))
        }
        _ => None,
    }
}

/// How a number is written back: the shortest text that reads back as the same number.
pub fn format_number(value: f64) -> String {
    format!("{value}")
}

/// `text` with the numbers at `changes` (path, value) rewritten, everything else untouched.
pub fn set_numbers(text: &str, changes: &[(String, f64)]) -> Result<String, NumberError> {
    let mut out = text.to_string();
    for (path, value) in changes {
        if !value.is_finite() {
            return Err(NumberError::NotFinite {
                path: path.clone(),
                value: *value,
            });
        }
        let at = locate(&out, path)?;
        out.replace_range(at.start..at.end, &format_number(*value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# top\nagents:\n  - id: hunter # the hunter\n    speed: 4\n    params: { space: { value: 3, min: 1, max: 8 }, prey: p }\nspawn:\n  - kind: prey\n    speed: 5.5   # fast\n";

    #[test]
    fn paths_by_id_index_kind_and_tunable_name_reach_the_same_numbers() {
        assert_eq!(locate(DOC, "agents.hunter.speed").unwrap().value, 4.0);
        assert_eq!(
            locate(DOC, "agents.0.speed").unwrap().path,
            "agents.0.speed"
        );
        assert_eq!(locate(DOC, "spawn.prey.speed").unwrap().value, 5.5);
        let space = locate(DOC, "agents.hunter.params.space").unwrap();
        assert_eq!(space.path, "agents.0.params.space.value");
        assert_eq!(locate(DOC, "hunter.space").unwrap(), space);
    }

    #[test]
    fn rewriting_keeps_every_other_byte() {
        let out = set_numbers(
            DOC,
            &[("hunter.space".into(), 4.5), ("spawn.0.speed".into(), 6.0)],
        )
        .unwrap();
        assert_eq!(
            out,
            DOC.replace("value: 3,", "value: 4.5,")
                .replace("5.5   # fast", "6   # fast")
        );
    }

    #[test]
    fn bad_paths_say_why() {
        let e = |p: &str| locate(DOC, p).unwrap_err().to_string();
        assert!(
            e("agents.wolf.speed").contains("has no `wolf`"),
            "{}",
            e("agents.wolf.speed")
        );
        assert!(e("agents.hunter.params.prey").contains("not a number"));
        assert!(e("agents.hunter.params").contains("a mapping"));
        assert!(e("hunter.prey").contains("no tunable `prey`"));
        assert!(!e("hunter.prey").contains("did you mean"));
        assert_eq!(
            e("hunter.sapce"),
            "`hunter.sapce`: `hunter` has no tunable `sapce` (did you mean hunter.space?)"
        );
        assert!(e("wolf.space").contains("no agent with id `wolf`"));
        assert!(e("a.b.c").contains("neither a scene path"));
        assert!(e("agents..speed").contains("empty name"));
    }
}
