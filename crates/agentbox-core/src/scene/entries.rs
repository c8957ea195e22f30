//! Agents placed and deleted in the window, written into the scene file's text: an entry added
//! at the end of the `agents:` list (a copy of another agent's entry with a new `id` and `at`,
//! or a bare one), or one agent's entry taken out. Every other line, comments included, stays
//! as the designer wrote it; an edit whose result would not load is refused, so the file is
//! never left broken. Text in, text out: `save.rs` reads and writes the file.

use super::tree::{Tree, Value};
use std::path::Path;

/// Why an agent entry could not be written.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum EntryError {
    #[error("the scene has no block list `agents:` to edit (a `[...]` list is not rewritten)")]
    NoBlockList,
    #[error("the scene has no agent `{0}` in its `agents:` list (a spawned agent is not listed)")]
    NoSuchAgent(String),
    #[error("agent `{0}` has no param naming another agent of the scene to retarget")]
    NoTarget(String),
    #[error("the edited scene would not load: {0}")]
    WouldNotLoad(String),
}

/// The `agents:` block: the line of its key, the indent of its items, and each item's lines
/// as `(first, end)`, end exclusive (trailing blank lines and comments stay outside).
struct Block {
    key: usize,
    indent: usize,
    items: Vec<(usize, usize)>,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// Finds the top-level `agents:` block list in `lines`.
fn block(lines: &[&str]) -> Result<Block, EntryError> {
    let key = lines
        .iter()
        .position(|l| l.starts_with("agents:"))
        .ok_or(EntryError::NoBlockList)?;
    let rest = lines[key]["agents:".len()..].trim();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return Err(EntryError::NoBlockList);
    }
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut indent = None;
    let mut last_content = key;
    for (i, line) in lines.iter().enumerate().skip(key + 1) {
        if is_blank_or_comment(line) {
            continue;
        }
        let at = indent_of(line);
        let item = line[at..].starts_with("- ") || line[at..] == *"-";
        if at == 0 && !item {
            break;
        }
        if item && indent.is_none_or(|n| n == at) {
            indent = Some(at);
            if let Some(prev) = items.last_mut() {
                prev.1 = last_content + 1;
            }
            items.push((i, i + 1));
        }
        last_content = i;
    }
    if let Some(prev) = items.last_mut() {
        prev.1 = last_content + 1;
    }
    Ok(Block {
        key,
        indent: indent.unwrap_or(2),
        items,
    })
}

/// The lines of the item of `block` whose `id` is `id`.
fn item_of(text: &str, block: &Block, id: &str) -> Option<(usize, usize)> {
    let tree = Tree::parse(text).ok()?;
    let Value::List(items) = &tree.get("agents")?.value else {
        return None;
    };
    let item = items.iter().find(|item| {
        tree.child(item, "id")
            .is_some_and(|(_, v)| matches!(&v.value, Value::Text(t) if t == id))
    })?;
    let line = item.line.checked_sub(1)?;
    block
        .items
        .iter()
        .copied()
        .find(|&(a, b)| a <= line && line < b)
}

/// Checks that `text` still loads as a scene (as `path`, for its scripts).
fn loads(path: &Path, text: &str) -> Result<(), EntryError> {
    super::parse(path, text.as_bytes())
        .map(drop)
        .map_err(|e| EntryError::WouldNotLoad(e.to_string()))
}

/// The scene text with agent `id` added at `at`: a copy of agent `like`'s entry (its other
/// keys and comments kept) when given, else a bare entry; `path` is the scene file's, for
/// checking that the result loads.
pub fn add_agent(
    path: &Path,
    text: &str,
    id: &str,
    at: [i32; 2],
    like: Option<&str>,
) -> Result<String, EntryError> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.lines().collect();
    let (entry, after) = match block(&lines) {
        Ok(block) => {
            let pad = " ".repeat(block.indent);
            let copied = like
                .and_then(|like| item_of(text, &block, like))
                .and_then(|(a, b)| copy_entry(&lines[a..b], block.indent, id, at));
            let entry = copied.unwrap_or_else(|| {
                vec![
                    format!("{pad}- id: {id}"),
                    format!("{pad}  at: [{}, {}]", at[0], at[1]),
                ]
            });
            let after = block.items.last().map_or(block.key + 1, |&(_, end)| end);
            (entry, after)
        }
        Err(_) if !lines.iter().any(|l| l.starts_with("agents:")) => {
            let entry = vec![
                "agents:".to_string(),
                format!("  - id: {id}"),
                format!("    at: [{}, {}]", at[0], at[1]),
            ];
            (entry, lines.len())
        }
        Err(e) => return Err(e),
    };
    let mut out: Vec<String> = lines[..after].iter().map(|s| s.to_string()).collect();
    out.extend(entry);
    out.extend(lines[after..].iter().map(|s| s.to_string()));
    let mut updated = out.join(newline);
    updated.push_str(newline);
    loads(path, &updated)?;
    Ok(updated)
}

/// An entry's lines with its `id` and `at` values replaced (`None` for a flow-style entry or
/// one without both keys on lines of their own).
fn copy_entry(item: &[&str], indent: usize, id: &str, at: [i32; 2]) -> Option<Vec<String>> {
    let key_indent = indent + 2;
    let mut out = Vec::with_capacity(item.len());
    let (mut has_id, mut has_at) = (false, false);
    for (n, line) in item.iter().enumerate() {
        let body = if n == 0 {
            line.get(indent + 2..)?
        } else if indent_of(line) == key_indent {
            &line[key_indent..]
        } else {
            out.push(line.to_string());
            continue;
        };
        let prefix = &line[..line.len() - body.len()];
        if body.starts_with("id:") {
            has_id = true;
            out.push(format!("{prefix}id: {id}"));
        } else if body.starts_with("at:") {
            has_at = true;
            out.push(format!("{prefix}at: [{}, {}]", at[0], at[1]));
        } else if body.starts_with('{') {
            return None;
        } else {
            out.push(line.to_string());
        }
    }
    (has_id && has_at).then_some(out)
}

/// The scene text without agent `id`'s entry (its lines, comments inside it included).
pub fn remove_agent(path: &Path, text: &str, id: &str) -> Result<String, EntryError> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.lines().collect();
    let block = block(&lines)?;
    let (a, b) = item_of(text, &block, id).ok_or_else(|| EntryError::NoSuchAgent(id.into()))?;
    let mut out: Vec<&str> = lines[..a].to_vec();
    let last_item = block.items.len() == 1;
    if last_item {
        // The list would be empty: an empty list keeps the file a scene.
        out[block.key] = "agents: []";
    }
    out.extend(&lines[b..]);
    let mut updated = out.join(newline);
    updated.push_str(newline);
    loads(path, &updated)?;
    Ok(updated)
}

/// Where a tile is added by [`add_tile`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TileList<'a> {
    /// The scene's `waypoints:`.
    Waypoints,
    /// The `route:` of agent `id` (a keyboard agent's scripted walk).
    Route(&'a str),
}

/// The scene text with `tile` added at the end of a list of tiles (the waypoints, or an
/// agent's route): into the list where it is written, flow (`[[1, 2], ...]`) or block
/// (`- [1, 2]` lines), or as a new key (`waypoints: [[x, y]]` at the end of the file, `route:
/// [[x, y]]` under the agent's `at:`) when there is none.
pub fn add_tile(
    path: &Path,
    text: &str,
    list: TileList,
    tile: [i32; 2],
) -> Result<String, EntryError> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let written = format!("[{}, {}]", tile[0], tile[1]);
    let tree = Tree::parse(text).map_err(|e| EntryError::WouldNotLoad(e.message))?;
    let agent = match list {
        TileList::Waypoints => None,
        TileList::Route(id) => {
            let Some(Value::List(items)) = tree.get("agents").map(|n| &n.value) else {
                return Err(EntryError::NoBlockList);
            };
            let item = items.iter().find(|item| {
                tree.child(item, "id")
                    .is_some_and(|(_, v)| matches!(&v.value, Value::Text(t) if t == id))
            });
            Some(item.ok_or_else(|| EntryError::NoSuchAgent(id.into()))?)
        }
    };
    let existing = match agent {
        None => tree.get("waypoints"),
        Some(item) => tree.child(item, "route").map(|(_, v)| v),
    };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let updated = match existing.map(|n| (n, &n.value)) {
        Some((node, Value::List(items))) if text[node.start..].starts_with('[') => {
            let close = node.start
                + matching_bracket(&text[node.start..])
                    .ok_or_else(|| EntryError::WouldNotLoad("an unclosed `[` list".into()))?;
            let glue = if items.is_empty() { "" } else { ", " };
            format!("{}{glue}{written}{}", &text[..close], &text[close..])
        }
        Some((_, Value::List(items))) if !items.is_empty() => {
            let last = items[items.len() - 1].line - 1;
            let dash = lines[last].find('-').unwrap_or(0);
            lines.insert(last + 1, format!("{}- {written}", " ".repeat(dash)));
            lines.join(newline) + newline
        }
        Some(_) => {
            return Err(EntryError::WouldNotLoad(
                "the list to add to is not a list of tiles".into(),
            ))
        }
        None => match agent {
            None => {
                lines.push(format!("waypoints: [{written}]"));
                lines.join(newline) + newline
            }
            Some(item) => {
                let (Some(key), _) = tree.child(item, "at").ok_or(EntryError::NoBlockList)? else {
                    return Err(EntryError::NoBlockList);
                };
                let pad = " ".repeat(key.column - 1);
                lines.insert(key.line, format!("{pad}route: [{written}]"));
                lines.join(newline) + newline
            }
        },
    };
    loads(path, &updated)?;
    Ok(updated)
}

/// The scene text with agent `id`'s target changed to agent `to`: the first of its `params`
/// (in file order) whose value names another agent of the scene is rewritten where it stands.
/// Returns the text and that param's name.
pub fn retarget(
    path: &Path,
    text: &str,
    id: &str,
    to: &str,
) -> Result<(String, String), EntryError> {
    let tree = Tree::parse(text).map_err(|e| EntryError::WouldNotLoad(e.message))?;
    let Some(Value::List(items)) = tree.get("agents").map(|n| &n.value) else {
        return Err(EntryError::NoBlockList);
    };
    let id_of = |item: &super::tree::Node| match tree.child(item, "id").map(|(_, v)| &v.value) {
        Some(Value::Text(t)) => Some(t.clone()),
        _ => None,
    };
    let ids: Vec<String> = items.iter().filter_map(id_of).collect();
    let item = (items.iter())
        .find(|item| id_of(item).as_deref() == Some(id))
        .ok_or_else(|| EntryError::NoSuchAgent(id.into()))?;
    let params = tree.child(item, "params").map(|(_, v)| &v.value);
    let Some(Value::Map(entries)) = params else {
        return Err(EntryError::NoTarget(id.into()));
    };
    let (key, value) = entries
        .iter()
        .find(|(_, v)| matches!(&v.value, Value::Text(t) if t != id && ids.contains(t)))
        .ok_or_else(|| EntryError::NoTarget(id.into()))?;
    let plain =
        !to.is_empty() && (to.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let written = if plain {
        to.to_string()
    } else {
        serde_json::to_string(to).unwrap_or_default()
    };
    let updated = format!("{}{written}{}", &text[..value.start], &text[value.end..]);
    loads(path, &updated)?;
    Ok((updated, tree.key(key).to_string()))
}

/// The offset of the `]` that closes the `[` `text` starts with.
fn matching_bracket(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            '#' | '\n' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "# the scene\nname: t\nmap:\n  rows: |\n    ......\n    ......\nagents:\n  # the hunter\n  - id: a # first\n    at: [0, 0]\n    speed: 2 # slow\n  - id: b\n    at: [1, 0]\n\n# after the agents\n";

    #[test]
    fn a_copy_of_an_agent_is_added_at_the_end_of_the_list_with_comments_kept() {
        let out = add_agent(Path::new("t.yaml"), SCENE, "a-2", [4, 1], Some("a")).unwrap();
        assert_eq!(
            out,
            "# the scene\nname: t\nmap:\n  rows: |\n    ......\n    ......\nagents:\n  # the hunter\n  - id: a # first\n    at: [0, 0]\n    speed: 2 # slow\n  - id: b\n    at: [1, 0]\n  - id: a-2\n    at: [4, 1]\n    speed: 2 # slow\n\n# after the agents\n"
        );
        let bare = add_agent(Path::new("t.yaml"), SCENE, "c", [5, 1], None).unwrap();
        assert!(bare.contains("  - id: b\n    at: [1, 0]\n  - id: c\n    at: [5, 1]\n\n# after"));
    }

    #[test]
    fn an_agent_is_removed_with_its_lines_only() {
        let out = remove_agent(Path::new("t.yaml"), SCENE, "a").unwrap();
        assert_eq!(
            out,
            "# the scene\nname: t\nmap:\n  rows: |\n    ......\n    ......\nagents:\n  # the hunter\n  - id: b\n    at: [1, 0]\n\n# after the agents\n"
        );
        let none = remove_agent(Path::new("t.yaml"), &out, "b").unwrap();
        assert!(
            none.contains("agents: []\n  # the hunter\n\n# after"),
            "{none}"
        );
        assert_eq!(
            remove_agent(Path::new("t.yaml"), SCENE, "zz"),
            Err(EntryError::NoSuchAgent("zz".into()))
        );
    }

    #[test]
    fn tiles_are_added_to_flow_and_block_lists_and_new_keys() {
        let p = Path::new("t.yaml");
        let keyboard = SCENE.replace("  - id: b\n", "  - id: b\n    control: keyboard\n");
        let route = add_tile(p, &keyboard, TileList::Route("b"), [2, 1]).unwrap();
        assert!(
            route.contains(
                "  - id: b\n    control: keyboard\n    at: [1, 0]\n    route: [[2, 1]]\n"
            ),
            "{route}"
        );
        let more = add_tile(p, &route, TileList::Route("b"), [3, 1]).unwrap();
        assert!(more.contains("    route: [[2, 1], [3, 1]]\n"), "{more}");
        let waypoints = add_tile(p, SCENE, TileList::Waypoints, [5, 1]).unwrap();
        assert!(
            waypoints.ends_with("# after the agents\nwaypoints: [[5, 1]]\n"),
            "{waypoints}"
        );
        let block = "name: t\nmap:\n  rows: |\n    ......\nwaypoints:\n  - [0, 0] # first\n  - [1, 0]\nagents: []\n";
        let out = add_tile(p, block, TileList::Waypoints, [4, 0]).unwrap();
        assert!(
            out.contains("  - [1, 0]\n  - [4, 0]\nagents: []\n"),
            "{out}"
        );
        assert!(
            add_tile(p, SCENE, TileList::Waypoints, [40, 0]).is_err(),
            "off the map"
        );
    }

    #[test]
    fn a_target_param_is_rewritten_where_it_stands() {
        let p = Path::new("t.yaml");
        let scene = SCENE.replace(
            "    speed: 2 # slow\n",
            "    speed: 2 # slow\n    params: { speed_up: 2, prey: b } # chase\n",
        ) + "  - id: c\n    at: [2, 0]\n";
        let scene = scene.replace("\n# after the agents\n", "\n");
        let (out, param) = retarget(p, &scene, "a", "c").unwrap();
        assert_eq!(param, "prey");
        assert!(
            out.contains("    params: { speed_up: 2, prey: c } # chase\n"),
            "{out}"
        );
        assert_eq!(
            retarget(p, &scene, "b", "c"),
            Err(EntryError::NoTarget("b".into()))
        );
    }

    #[test]
    fn an_edit_that_would_not_load_is_refused() {
        // [9, 9] is off the 6x2 map.
        let out = add_agent(Path::new("t.yaml"), SCENE, "c", [9, 9], None);
        assert!(matches!(out, Err(EntryError::WouldNotLoad(_))), "{out:?}");
        let dup = add_agent(Path::new("t.yaml"), SCENE, "b", [2, 0], None);
        assert!(matches!(dup, Err(EntryError::WouldNotLoad(_))), "{dup:?}");
    }
}
