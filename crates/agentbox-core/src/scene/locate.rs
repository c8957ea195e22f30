//! Where things are in a scene file: a map from YAML paths (`agents.0.at`, `map.rows`) to line
//! and column, built from a second, position-aware parse, so checks that run after serde can
//! still point at the offending text.

use std::collections::BTreeMap;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Positions of the nodes of one YAML document.
#[derive(Debug, Default)]
pub struct Locator {
    nodes: BTreeMap<String, (usize, usize)>,
    keys: BTreeMap<String, (usize, usize)>,
    /// Where row 0 of `map.rows` starts, if it is a block scalar on its own lines.
    rows_origin: Option<(usize, usize)>,
}

enum Frame {
    Map { key: Option<String> },
    Seq { index: usize },
}

struct Builder<'a> {
    text: &'a str,
    frames: Vec<Frame>,
    path: Vec<String>,
    out: Locator,
}

impl Builder<'_> {
    fn here(&self, last: &str) -> String {
        let mut parts: Vec<&str> = self.path.iter().map(String::as_str).collect();
        parts.push(last);
        parts.join(".")
    }

    /// The path a new value node gets, or `None` if the node is a mapping key.
    fn value_path(&self) -> Option<String> {
        match self.frames.last() {
            None => Some(String::new()),
            Some(Frame::Map { key: None }) => None,
            Some(Frame::Map { key: Some(k) }) => Some(self.here(k)),
            Some(Frame::Seq { index }) => Some(self.here(&index.to_string())),
        }
    }

    /// Marks the node that just ended as done in its parent.
    fn finish_node(&mut self) {
        match self.frames.last_mut() {
            Some(Frame::Map { key }) => *key = None,
            Some(Frame::Seq { index }) => *index += 1,
            None => {}
        }
    }

    fn open(&mut self, frame: Frame, mark: Marker) {
        let segment = match self.frames.last() {
            Some(Frame::Map { key: Some(k) }) => Some(k.clone()),
            Some(Frame::Seq { index }) => Some(index.to_string()),
            _ => None,
        };
        if let Some(p) = self.value_path() {
            self.out.nodes.insert(p, (mark.line(), mark.col() + 1));
        }
        if let Some(s) = segment {
            self.path.push(s);
        } else if !self.frames.is_empty() {
            self.path.push("?".into()); // a mapping used as a key: positions inside are unnamed
        }
        self.frames.push(frame);
    }

    fn close(&mut self) {
        self.frames.pop();
        if !self.frames.is_empty() {
            self.path.pop();
        }
        self.finish_node();
    }

    fn scalar(&mut self, value: String, style: TScalarStyle, mark: Marker) {
        match self.value_path() {
            None => {
                let p = self.here(&value);
                self.out.keys.insert(p, (mark.line(), mark.col() + 1));
                if let Some(Frame::Map { key }) = self.frames.last_mut() {
                    *key = Some(value);
                }
                return;
            }
            Some(p) => {
                if p == "map.rows" {
                    self.out.rows_origin = self.block_origin(style, mark);
                }
                self.out.nodes.insert(p, (mark.line(), mark.col() + 1));
            }
        }
        self.finish_node();
    }

    /// For a literal or folded block scalar, the line and column of its first content line.
    fn block_origin(&self, style: TScalarStyle, mark: Marker) -> Option<(usize, usize)> {
        if !matches!(style, TScalarStyle::Literal | TScalarStyle::Folded) {
            return None;
        }
        // The marker may sit on the indicator (`rows: |`) or on the first content line.
        let lines: Vec<&str> = self.text.lines().collect();
        let on_indicator = matches!(self.text.chars().nth(mark.index()), Some('|' | '>'));
        let from = if on_indicator {
            mark.line()
        } else {
            mark.line() - 1
        };
        let first = (from..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
        let indent = lines[first].len() - lines[first].trim_start().len();
        Some((first + 1, indent + 1))
    }
}

impl MarkedEventReceiver for Builder<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::MappingStart(..) => self.open(Frame::Map { key: None }, mark),
            Event::SequenceStart(..) => self.open(Frame::Seq { index: 0 }, mark),
            Event::MappingEnd | Event::SequenceEnd => self.close(),
            Event::Scalar(value, style, ..) => self.scalar(value, style, mark),
            Event::Alias(_) => {
                if let Some(p) = self.value_path() {
                    self.out.nodes.insert(p, (mark.line(), mark.col() + 1));
                }
                self.finish_node();
            }
            _ => {}
        }
    }
}

impl Locator {
    /// Indexes a document; a document that fails to parse yields the positions seen before
    /// the failure.
    pub fn new(text: &str) -> Self {
        let mut builder = Builder {
            text,
            frames: Vec::new(),
            path: Vec::new(),
            out: Locator::default(),
        };
        let _ = Parser::new_from_str(text).load(&mut builder, false);
        builder.out
    }

    /// The position of the node at `path`, else of its nearest ancestor that has one, else 1:1.
    pub fn at(&self, path: &str) -> (usize, usize) {
        let mut p = path;
        loop {
            if let Some(&pos) = self.nodes.get(p) {
                return pos;
            }
            match p.rfind('.') {
                Some(i) => p = &p[..i],
                None => return self.nodes.get("").copied().unwrap_or((1, 1)),
            }
        }
    }

    /// The position of the node at exactly `path`, if the document has one.
    pub fn exact(&self, path: &str) -> Option<(usize, usize)> {
        self.nodes.get(path).copied()
    }

    /// The position of the key naming the node at `path`, else the node's own.
    pub fn key_at(&self, path: &str) -> (usize, usize) {
        self.keys
            .get(path)
            .copied()
            .unwrap_or_else(|| self.at(path))
    }

    /// Where the `map.rows` block's first row starts (line, column), if rows is a block scalar.
    pub fn rows_block(&self) -> Option<(usize, usize)> {
        self.rows_origin
    }

    /// The position of a character in `map.rows` (row and column counted from 0).
    pub fn row_char(&self, row: usize, column: usize) -> (usize, usize) {
        match self.rows_origin {
            Some((line, col)) => (line + row, col + column),
            None => self.at("map.rows"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "name: x\nmap:\n  rows: |\n    ###\n    #.#\nagents:\n  - id: a\n    at: [1, 1]\n  - id: b\n    at: [2, 1]\n";

    #[test]
    fn finds_nested_nodes_and_keys() {
        let l = Locator::new(DOC);
        assert_eq!(l.at("name"), (1, 7));
        assert_eq!(l.at("agents.1.at"), (10, 9));
        assert_eq!(l.at("agents.1.at.0"), (10, 10));
        assert_eq!(l.key_at("agents.0.id"), (7, 5));
        assert_eq!(l.at("agents.0.missing"), l.at("agents.0"));
    }

    #[test]
    fn locates_characters_inside_block_rows() {
        let l = Locator::new(DOC);
        assert_eq!(l.row_char(1, 1), (5, 6));
    }
}
