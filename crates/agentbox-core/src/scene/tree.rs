//! A scene file's YAML as a tree of nodes, each with its place in the text: the one parse of
//! a scene (serde-saphyr over granit-parser), bounded by a parse budget, from which the typed
//! read (`shape.rs`), every located message, the number rewriter (`numbers.rs`) and the map
//! saver (`save.rs`) work.
//!
//! It only reads text: it must not build worlds, check meaning or touch files.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{MessageFormatter, Spanned};
use std::fmt;

/// The deepest nesting of flow collections (`[...]`, `{...}`) a scene file may have.
pub const MAX_FLOW_DEPTH: usize = 32;

/// The deepest nesting of lists and mappings of any kind.
pub const MAX_DEPTH: usize = 128;

/// The most values (mappings, lists, keys and scalars) a scene file may have: the parse's
/// time grows with their number, and 500,000 read in well under a second.
pub const MAX_VALUES: usize = 500_000;

/// One YAML node: its value and where it starts (1-based line and column, byte offsets).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub line: usize,
    pub column: usize,
    /// Where its text starts and ends in the file (scalars; a collection's start only).
    pub start: usize,
    pub end: usize,
    pub value: Value,
}

/// What a node holds, with plain scalars resolved by YAML 1.2's core schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Text(String),
    List(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What it is, in a designer's words (`text "fast"`, `the number 3`, `a list`).
    pub fn describe(&self, raw: &str) -> String {
        match self {
            Value::Null => "nothing (null)".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(_) | Value::Float(_) => format!("the number {raw}"),
            Value::Text(t) => format!("text {t:?}"),
            Value::List(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
        }
    }
}

/// A parsed scene file: its text and its root node.
#[derive(Debug)]
pub struct Tree<'t> {
    pub text: &'t str,
    pub root: Node,
}

/// Why a text is not a tree: a place and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl<'t> Tree<'t> {
    /// Parses `text` within the bounds on nesting and values.
    pub fn parse(text: &'t str) -> Result<Tree<'t>, SyntaxError> {
        // The parser recurses once per level of nesting, with large frames (about 6 KB a
        // level optimised, 50 KB unoptimised): it runs on a thread of its own whose stack
        // holds MAX_DEPTH levels, whichever thread loads the scene.
        let parsed = std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("scene parse".into())
                .stack_size(PARSE_STACK)
                .spawn_scoped(s, || parse_root(text))
                .ok()
                .map(|h| h.join())
        });
        let root = match parsed {
            Some(Ok(result)) => result,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread to be had: parse here.
            None => parse_root(text),
        }?;
        Ok(Tree { text, root })
    }

    /// The text a scalar node is written as (quotes included), or "" for a collection.
    pub fn raw(&self, node: &Node) -> &'t str {
        self.text.get(node.start..node.end).unwrap_or("")
    }

    /// A mapping key as text (`1: x` has the key "1").
    pub fn key<'n>(&self, node: &'n Node) -> &'n str
    where
        't: 'n,
    {
        match &node.value {
            Value::Text(t) => t,
            _ => self.raw(node),
        }
    }

    /// The node at a dotted path (`agents.0.at`: mapping keys and list indices).
    pub fn get(&self, path: &str) -> Option<&Node> {
        self.walk(path).map(|(_, node)| node)
    }

    /// The key node and the value node at a path (no key for the root or a list item).
    fn walk(&self, path: &str) -> Option<(Option<&Node>, &Node)> {
        let mut key = None;
        let mut node = &self.root;
        for part in path.split('.').filter(|p| !p.is_empty()) {
            (key, node) = self.child(node, part)?;
        }
        Some((key, node))
    }

    /// One step down: a mapping's key or a list's index.
    pub fn child<'n>(&self, node: &'n Node, part: &str) -> Option<(Option<&'n Node>, &'n Node)>
    where
        't: 'n,
    {
        match &node.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| self.key(k) == part)
                .map(|(k, v)| (Some(k), v)),
            Value::List(items) => items.get(part.parse::<usize>().ok()?).map(|v| (None, v)),
            _ => None,
        }
    }

    /// The position of the node at `path`, else of its nearest ancestor, else 1:1.
    pub fn at(&self, path: &str) -> (usize, usize) {
        let mut p = path;
        loop {
            if let Some(n) = self.get(p) {
                return (n.line, n.column);
            }
            match p.rfind('.') {
                Some(i) => p = &p[..i],
                None => return (self.root.line.max(1), self.root.column.max(1)),
            }
        }
    }

    /// The position of the key naming the node at `path`, else the node's own.
    pub fn key_at(&self, path: &str) -> (usize, usize) {
        match self.walk(path) {
            Some((Some(k), _)) => (k.line, k.column),
            _ => self.at(path),
        }
    }

    /// Where the `map.rows` block's first row starts (line, column, byte offset), if rows is
    /// a `|` or `>` block scalar.
    pub fn rows_block(&self) -> Option<(usize, usize, usize)> {
        let (Some(key), value) = self.walk("map.rows")? else {
            return None;
        };
        let between = self.text.get(key.end..value.start)?;
        let after_colon = between.trim_start().strip_prefix(':')?.trim_start();
        if !after_colon.starts_with(['|', '>']) {
            return None;
        }
        // The first line of the block with text on it.
        let mut offset = self.line_start(value.start);
        let mut line = value.line;
        while let Some(rest) = self.text.get(offset..) {
            let end = rest.find('\n').map_or(rest.len(), |i| i + 1);
            let this = &rest[..end];
            if !this.trim().is_empty() || end == 0 {
                let indent = this.len() - this.trim_start_matches(' ').len();
                return Some((line, indent + 1, offset));
            }
            offset += end;
            line += 1;
        }
        None
    }

    /// The position of a character in `map.rows` (row and column counted from 0).
    pub fn row_char(&self, row: usize, column: usize) -> (usize, usize) {
        match self.rows_block() {
            Some((line, col, _)) => (line + row, col + column),
            None => self.at("map.rows"),
        }
    }

    /// The byte offset where the line holding `offset` starts.
    fn line_start(&self, offset: usize) -> usize {
        self.text
            .get(..offset)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |i| i + 1)
    }
}

/// The stack of the thread that parses a scene: room for MAX_DEPTH levels of the parser's
/// recursion, unoptimised, with a margin (only the pages used are ever touched).
const PARSE_STACK: usize = 64 << 20;

/// Parses `text` into its root node, within the bounds on nesting and values.
fn parse_root(text: &str) -> Result<Node, SyntaxError> {
    let budget = serde_saphyr::budget! {
        max_depth: MAX_DEPTH,
        flow_nesting_limit: MAX_FLOW_DEPTH,
        max_nodes: MAX_VALUES,
        max_events: 4 * MAX_VALUES,
        max_documents: 1,
    };
    let options = serde_saphyr::options! {
        budget: budget,
        strict_booleans: true,
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        with_snippet: false,
    };
    serde_saphyr::from_str_with_options::<Node>(text, options).map_err(|e| syntax_error(text, &e))
}

/// The parser's error as a located message, in a designer's words.
fn syntax_error(text: &str, e: &serde_saphyr::Error) -> SyntaxError {
    let e = e.without_snippet();
    let (line, column) = e.location().map_or((1, 1), |l| {
        (l.line().max(1) as usize, l.column().max(1) as usize)
    });
    let raw = serde_saphyr::DefaultMessageFormatter.format_message(e);
    let line_text = text.lines().nth(line - 1).unwrap_or("");
    // A tab where indentation goes: point at the tab itself.
    if raw.contains("tab") {
        if let Some(tab) = line_text.find('\t') {
            return SyntaxError {
                line,
                column: line_text[..tab].chars().count() + 1,
                message: "a tab character: YAML is indented with spaces, not tabs".into(),
            };
        }
    }
    let open_bracket = if raw.contains("unclosed") {
        None
    } else {
        unclosed_flow(text, line, column)
    };
    let message = match e {
        serde_saphyr::Error::Budget { breach, .. } => match breach {
            serde_saphyr::budget::BudgetBreach::Depth { .. } => format!(
                "nested too deeply: lists and mappings may nest at most {MAX_DEPTH} deep"
            ),
            _ => format!(
                "too many values: a scene file may have at most {MAX_VALUES} (keys, numbers, texts and lists); place crowds with `spawn:`"
            ),
        },
        // The parser's flow nesting limit (block nesting meets the budget's depth first).
        _ if raw.contains("recursion limit") => {
            format!("nested too deeply: `[` and `{{` may nest at most {MAX_FLOW_DEPTH} deep")
        }
        serde_saphyr::Error::DuplicateMappingKey { key, .. } => match key {
            Some(k) => format!("duplicate key `{k}`"),
            None => "duplicate key".into(),
        },
        // A `[` or `{` left open on an earlier line: the parser stops where the text can no
        // longer belong inside it, often lines later; point at the bracket instead.
        _ if open_bracket.is_some() => {
            let (open_line, open_column, bracket) = open_bracket.unwrap_or((line, column, '['));
            return SyntaxError {
                line: open_line,
                column: open_column,
                message: format!(
                    "YAML syntax error: unclosed bracket '{bracket}' (the parser stopped at {line}:{column}: {raw})"
                ),
            };
        }
        _ => {
            let hint = if raw.contains("unclosed") {
                ""
            } else if raw.contains("flow") {
                " (is a `[` or `{` never closed?)"
            } else if raw.contains("quoted") {
                " (is a quote never closed?)"
            } else {
                ""
            };
            format!("YAML syntax error: {raw}{hint}")
        }
    };
    SyntaxError {
        line,
        column,
        message,
    }
}

/// The flow collection (`[` or `{`, with its 1-based line and column) still open at the
/// parser's stop (`line`, `column`), when it opened on an earlier line. A light scan: quotes,
/// comments and block scalars (`rows: |`) are skipped, and a bracket counts only where a value
/// starts (after `:`, `-`, `,`, `?`, another bracket or at a line's start), so `name: a [b`
/// opens nothing, as in YAML.
fn unclosed_flow(text: &str, line: usize, column: usize) -> Option<(usize, usize, char)> {
    let mut open: Vec<(usize, usize, char)> = Vec::new();
    let mut quote: Option<char> = None;
    let mut block_scalar_indent: Option<usize> = None;
    for (index, row) in text.lines().enumerate().take(line) {
        let number = index + 1;
        let indent = row.len() - row.trim_start_matches(' ').len();
        if let Some(block) = block_scalar_indent {
            if row.trim().is_empty() || indent > block {
                continue;
            }
            block_scalar_indent = None;
        }
        let chars: Vec<char> = row.chars().collect();
        let end = if number == line {
            chars.len().min(column.saturating_sub(1))
        } else {
            chars.len()
        };
        // The last character that is not a space, before the one read ('\n': none yet).
        let mut last = '\n';
        let mut at = 0;
        while at < end {
            let c = chars[at];
            match quote {
                Some('"') if c == '\\' => at += 1,
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => {
                    let value_starts = matches!(last, '\n' | ':' | '-' | ',' | '?' | '[' | '{');
                    match c {
                        '#' if at == 0 || chars[at - 1] == ' ' => break,
                        '"' | '\'' if value_starts => quote = Some(c),
                        '[' | '{' if value_starts || !open.is_empty() => {
                            open.push((number, at + 1, c));
                        }
                        ']' | '}' if !open.is_empty() => {
                            open.pop();
                        }
                        _ => {}
                    }
                }
            }
            if c != ' ' {
                last = c;
            }
            at += 1;
        }
        // A block scalar's header (`key: |`, `- >-`): its lines are text, not YAML.
        let code = row.split(" #").next().unwrap_or("").trim_end();
        let header = code.trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
        if open.is_empty()
            && quote.is_none()
            && (header.ends_with(": |")
                || header.ends_with(": >")
                || header.ends_with("- |")
                || header.ends_with("- >")
                || header == "|"
                || header == ">")
        {
            block_scalar_indent = Some(indent);
        }
    }
    open.last()
        .copied()
        .filter(|&(open_line, _, _)| open_line < line)
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Value>::deserialize(d)?;
        let at = spanned.referenced;
        let span = at.span();
        let start = span.byte_offset().unwrap_or(0) as usize;
        let end = start + span.byte_len().unwrap_or(0) as usize;
        Ok(Node {
            line: at.line() as usize,
            column: at.column() as usize,
            start,
            end,
            value: spanned.value,
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Int(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Int(n.into()))
    }

    fn visit_i128<E>(self, n: i128) -> Result<Value, E> {
        Ok(Value::Int(n))
    }

    fn visit_u128<E>(self, n: u128) -> Result<Value, E> {
        Ok(i128::try_from(n).map_or(Value::Float(n as f64), Value::Int))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::Float(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Text(s.into()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::Text(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<Node, Node>()? {
            entries.push(entry);
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "name: x\nmap:\n  rows: |\n    ###\n    #.#\nagents:\n  - id: a\n    at: [1, 1]\n  - id: b\n    at: [2, 1]\n";

    #[test]
    fn a_bracket_left_open_is_blamed_where_it_opens_not_where_the_parser_stops() {
        // The parser meets `speed:` a line later; the designer's slip is the `[` above it.
        let text = "map:\n  rows: |\n    [.[\nagents:\n  - id: a # [ in a comment\n    name: 'a [b' \n    label: a [b\n    at: [1, 0\n    speed: 3\n";
        let e = Tree::parse(text).unwrap_err();
        assert_eq!((e.line, e.column), (8, 9), "{}", e.message);
        assert!(
            e.message
                .starts_with("YAML syntax error: unclosed bracket '['"),
            "{}",
            e.message
        );
        // Closed brackets, over two lines too, leave nothing open.
        assert_eq!(
            unclosed_flow("a: [1,\n  2]\nb: {c: [1]}\nd: x\n", 4, 4),
            None
        );
        assert_eq!(
            unclosed_flow("a: {b: [1,\n  2\nd: x\n", 3, 2),
            Some((1, 8, '['))
        );
    }

    #[test]
    fn finds_nested_nodes_and_keys() {
        let t = Tree::parse(DOC).unwrap();
        assert_eq!(t.at("name"), (1, 7));
        assert_eq!(t.at("agents.1.at"), (10, 9));
        assert_eq!(t.at("agents.1.at.0"), (10, 10));
        assert_eq!(t.key_at("agents.0.id"), (7, 5));
        assert_eq!(t.at("agents.0.missing"), t.at("agents.0"));
    }

    #[test]
    fn locates_characters_inside_block_rows() {
        let t = Tree::parse(DOC).unwrap();
        assert_eq!(t.row_char(1, 1), (5, 6));
        let commented = "map:\n  rows: |  # the map\n\n    ##\n";
        assert_eq!(
            Tree::parse(commented)
                .unwrap()
                .rows_block()
                .map(|b| (b.0, b.1)),
            Some((4, 5))
        );
        let quoted = Tree::parse("map:\n  rows: \"##\"\n").unwrap();
        assert_eq!(quoted.rows_block(), None);
    }

    #[test]
    fn scalars_keep_their_text() {
        let t = Tree::parse("a: 0x1f\nb: yes\n1: [2.5, ~]\n").unwrap();
        assert_eq!(t.get("a").unwrap().value, Value::Int(31));
        assert_eq!(t.raw(t.get("a").unwrap()), "0x1f");
        // Only true and false are booleans (YAML 1.2).
        assert_eq!(t.get("b").unwrap().value, Value::Text("yes".into()));
        assert_eq!(t.get("1.0").unwrap().value, Value::Float(2.5));
        assert_eq!(t.get("1.1").unwrap().value, Value::Null);
    }

    #[test]
    fn bounds_are_located() {
        let deep = format!("a: {}{}\n", "[".repeat(40), "]".repeat(40));
        let e = Tree::parse(&deep).unwrap_err();
        assert!(e.message.starts_with("nested too deeply: `[`"), "{e:?}");
        let tab = Tree::parse("map:\n\trows: x\n").unwrap_err();
        assert_eq!((tab.line, tab.column), (2, 1));
    }
}
