//! The typed read of a scene's tree (`tree.rs`) into the serde types of `file.rs`, reporting
//! every shape mistake at once: each wrong type, unknown key and missing field, located and in
//! a designer's words (`agents[0].at: expected a list of two numbers [x, y], got 1 item`).
//!
//! A serde `Deserializer` over the tree. Unknown keys are reported and left out; a missing
//! field is reported and read as an empty value. A value of the wrong type fails the read;
//! the read then runs again with that key left out (read as absent, silently), until it
//! succeeds, so every independent mistake is found in one call. The keys left out are
//! returned as *poisoned* paths: the checks of meaning that follow stay quiet about them.
//!
//! It only reads the tree: no checks of meaning, no files.

use super::tree::{Node, Tree, Value};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;

/// Shape mistakes reported by one read, at most: a file with more is mostly not a scene.
const MAX_FAILURES: usize = 100;

/// One shape mistake: where, under which path (dotted, `agents.0.at`), and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub line: usize,
    pub column: usize,
    pub path: String,
    pub message: String,
}

/// The result of a read: the value (none if even the top level is not a mapping), every
/// mistake in file order, and the paths whose values were left out or missing.
#[derive(Debug)]
pub struct Shaped<T> {
    pub value: Option<T>,
    pub errors: Vec<ShapeError>,
    pub poisoned: BTreeSet<String>,
}

/// Reads the tree's root as a `T`, reporting every shape mistake.
pub fn read<T: DeserializeOwned>(tree: &Tree) -> Shaped<T> {
    let mut failures: Vec<ShapeError> = Vec::new();
    let mut skip: BTreeSet<String> = BTreeSet::new();
    loop {
        let reader = Reader {
            tree,
            skip: &skip,
            side: RefCell::new(Vec::new()),
            missing: RefCell::new(BTreeSet::new()),
        };
        let root = Path::ROOT;
        let result = T::deserialize(NodeDe {
            r: &reader,
            node: &tree.root,
            path: &root,
        });
        let mut errors = reader.side.into_inner();
        let mut poisoned = reader.missing.into_inner();
        let done = |value, mut errors: Vec<ShapeError>, failures: &[ShapeError]| {
            errors.extend_from_slice(failures);
            errors.sort_by_key(|e| (e.line, e.column));
            errors.dedup();
            (value, errors)
        };
        match result {
            Ok(value) => {
                poisoned.extend(skip.iter().cloned());
                let (value, errors) = done(Some(value), errors, &failures);
                return Shaped {
                    value,
                    errors,
                    poisoned,
                };
            }
            Err(fail) => {
                let located = fail
                    .at
                    .unwrap_or_else(|| Located::of(tree, &tree.root, &root));
                // Leave out the nearest mapping entry holding the mistake (a list item's
                // mistake leaves out the whole list, so later items keep their indices).
                let mut segs = located.segs.clone();
                while matches!(segs.last(), Some(Seg::Index(_))) {
                    segs.pop();
                }
                let target = dotted(&segs);
                failures.push(ShapeError {
                    line: located.line,
                    column: located.column,
                    path: dotted(&located.segs),
                    message: prefixed(&located.segs, &fail.message),
                });
                if segs.is_empty() || !skip.insert(target) || failures.len() >= MAX_FAILURES {
                    errors.retain(|e| !failures.contains(e));
                    let (_, errors) = done(None, errors, &failures);
                    poisoned.extend(skip.iter().cloned());
                    return Shaped {
                        value: None,
                        errors,
                        poisoned,
                    };
                }
            }
        }
    }
}

/// What one run of the read shares: the tree, the keys to leave out, and the mistakes it
/// reports without failing (unknown keys, missing fields).
struct Reader<'r> {
    tree: &'r Tree<'r>,
    skip: &'r BTreeSet<String>,
    side: RefCell<Vec<ShapeError>>,
    missing: RefCell<BTreeSet<String>>,
}

impl Reader<'_> {
    fn report(&self, node: &Node, path: &Path, message: String) {
        let segs = path.segs();
        self.side.borrow_mut().push(ShapeError {
            line: node.line,
            column: node.column,
            path: dotted(&segs),
            message: prefixed(&segs, &message),
        });
    }
}

/// One step of a path: a mapping key or a list index.
#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A path as a chain of steps on the stack (built only when a mistake needs it).
struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    step: Option<StepRef<'p>>,
}

#[derive(Clone, Copy)]
enum StepRef<'p> {
    Key(&'p str),
    Index(usize),
}

impl<'p> Path<'p> {
    const ROOT: Path<'static> = Path {
        parent: None,
        step: None,
    };

    fn child(&'p self, step: StepRef<'p>) -> Path<'p> {
        Path {
            parent: Some(self),
            step: Some(step),
        }
    }

    fn segs(&self) -> Vec<Seg> {
        let mut out = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            match p.step {
                Some(StepRef::Key(k)) => out.push(Seg::Key(k.to_string())),
                Some(StepRef::Index(i)) => out.push(Seg::Index(i)),
                None => {}
            }
            at = p.parent;
        }
        out.reverse();
        out
    }
}

/// `agents.0.at`, as the tree's lookups and the checks of meaning name paths.
fn dotted(segs: &[Seg]) -> String {
    segs.iter()
        .map(|s| match s {
            Seg::Key(k) => k.clone(),
            Seg::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// `agents[0].at: message`, as a designer reads a path.
fn prefixed(segs: &[Seg], message: &str) -> String {
    let mut shown = String::new();
    for s in segs {
        match s {
            Seg::Key(k) => {
                if !shown.is_empty() {
                    shown.push('.');
                }
                shown.push_str(k);
            }
            Seg::Index(i) => shown.push_str(&format!("[{i}]")),
        }
    }
    if shown.is_empty() {
        message.to_string()
    } else {
        format!("{shown}: {message}")
    }
}

/// Where a failure happened.
#[derive(Debug, Clone)]
struct Located {
    segs: Vec<Seg>,
    line: usize,
    column: usize,
}

impl Located {
    fn of(_tree: &Tree, node: &Node, path: &Path) -> Located {
        Located {
            segs: path.segs(),
            line: node.line.max(1),
            column: node.column.max(1),
        }
    }
}

/// A failed read: the message, and where once known.
#[derive(Debug)]
pub struct Fail {
    message: String,
    at: Option<Located>,
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Fail {}

impl de::Error for Fail {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Fail {
            message: msg.to_string(),
            at: None,
        }
    }
}

/// Locates a failure from below that has no place yet at `node`, in plainer words.
fn locate(fail: Fail, r: &Reader, node: &Node, path: &Path) -> Fail {
    if fail.at.is_some() {
        return fail;
    }
    let got = node.value.describe(r.tree.raw(node));
    let message = match fail
        .message
        .strip_prefix("data did not match any variant of untagged enum ")
    {
        Some("SpeedSpec") => {
            format!("expected a speed (a number) or a range [min, max], got {got}")
        }
        Some("TargetSpec") => format!("expected an agent id or a position [x, y], got {got}"),
        Some(_) => format!("unexpected {got}"),
        None => fail.message,
    };
    Fail {
        message,
        at: Some(Located::of(r.tree, node, path)),
    }
}

/// What a struct is called in messages.
fn struct_words(name: &str) -> &'static str {
    match name {
        "SceneFile" => "a scene mapping",
        "MapSpec" => "a map mapping (legend, rows)",
        "AgentSpec" => "an agent mapping",
        "SpawnSpec" => "a spawn mapping (count, kind, area, ...)",
        "ExpectSpec" => "an expect mapping (ticks, reach, never_on, ...)",
        "TerrainSpec" => "a terrain mapping (blocked, cost, color)",
        _ => "a mapping (key: value lines)",
    }
}

/// The closest of `known` to a misspelt `name`, if it is close enough to be meant.
pub fn suggestion<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    // No name is within reach when every length differs by more than the distance allowed
    // (the distance is at least the difference): a 16 MB name costs nothing then.
    let allowed = |k: &str| (k.len().max(name.len()) / 3).max(1);
    if known
        .iter()
        .all(|k| name.len().abs_diff(k.len()) > allowed(k))
    {
        return None;
    }
    let (best, distance) = known
        .iter()
        .map(|k| (*k, strsim::damerau_levenshtein(name, k)))
        .min_by_key(|(_, d)| *d)?;
    (distance <= (best.len().max(name.len()) / 3).max(1)).then_some(best)
}

/// A deserializer of one node of the tree.
struct NodeDe<'r, 'p> {
    r: &'r Reader<'r>,
    node: &'r Node,
    path: &'p Path<'p>,
}

impl<'r> NodeDe<'r, '_> {
    fn got(&self) -> String {
        self.node.value.describe(self.r.tree.raw(self.node))
    }

    fn fail(&self, expected: &str) -> Fail {
        Fail {
            message: format!("expected {expected}, got {}", self.got()),
            at: Some(Located::of(self.r.tree, self.node, self.path)),
        }
    }

    fn int<T: TryFrom<i128>>(&self, expected: &str) -> Result<T, Fail> {
        match self.node.value {
            Value::Int(n) => T::try_from(n).map_err(|_| self.fail(expected)),
            _ => Err(self.fail(expected)),
        }
    }

    fn text(&self) -> Result<&'r str, Fail> {
        match &self.node.value {
            Value::Text(t) => Ok(t),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => Ok(self.r.tree.raw(self.node)),
            _ => Err(self.fail("text")),
        }
    }
}

macro_rules! ints {
    ($($method:ident $visit:ident $ty:ty, $words:expr;)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
            let n: $ty = self.int($words)?;
            visitor.$visit(n)
        })*
    };
}

const SIGNED: &str = "a whole number";
const UNSIGNED: &str = "a whole number (0 or more)";

impl<'de, 'r: 'de> de::Deserializer<'de> for NodeDe<'r, '_> {
    type Error = Fail;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match &self.node.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(n) => match (i64::try_from(*n), u64::try_from(*n)) {
                (Ok(i), _) => visitor.visit_i64(i),
                (_, Ok(u)) => visitor.visit_u64(u),
                _ => visitor.visit_f64(*n as f64),
            },
            Value::Float(x) => visitor.visit_f64(*x),
            Value::Text(t) => visitor.visit_str(t),
            Value::List(items) => visitor.visit_seq(Items::new(self.r, items, self.path)),
            Value::Map(entries) => visitor.visit_map(Entries::plain(self.r, entries, self.path)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match self.node.value {
            Value::Bool(b) => visitor.visit_bool(b),
            _ => Err(self.fail("true or false")),
        }
    }

    ints! {
        deserialize_i8 visit_i8 i8, SIGNED;
        deserialize_i16 visit_i16 i16, SIGNED;
        deserialize_i32 visit_i32 i32, SIGNED;
        deserialize_i64 visit_i64 i64, SIGNED;
        deserialize_u8 visit_u8 u8, UNSIGNED;
        deserialize_u16 visit_u16 u16, UNSIGNED;
        deserialize_u32 visit_u32 u32, UNSIGNED;
        deserialize_u64 visit_u64 u64, UNSIGNED;
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match self.node.value {
            Value::Int(n) => visitor.visit_f64(n as f64),
            Value::Float(x) => visitor.visit_f64(x),
            _ => Err(self.fail("a number")),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        let text = self.text()?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => visitor.visit_char(c),
            _ => Err(self.fail("one character")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Fail> {
        Err(self.fail("bytes"))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match self.node.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match self.node.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(self.fail("nothing (null)")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Fail> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Fail> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match &self.node.value {
            Value::List(items) => visitor.visit_seq(Items::new(self.r, items, self.path)),
            _ => Err(self.fail("a list")),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Fail> {
        let expected = if len == 2 {
            "a list of two numbers [x, y]".to_string()
        } else {
            format!("a list of {len} items")
        };
        match &self.node.value {
            Value::List(items) if items.len() == len => {
                visitor.visit_seq(Items::new(self.r, items, self.path))
            }
            Value::List(items) => {
                let n = items.len();
                let noun = if n == 1 { "item" } else { "items" };
                Err(Fail {
                    message: format!("expected {expected}, got {n} {noun}"),
                    at: Some(Located::of(self.r.tree, self.node, self.path)),
                })
            }
            _ => Err(self.fail(&expected)),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Fail> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        match &self.node.value {
            Value::Map(entries) => visitor.visit_map(Entries::plain(self.r, entries, self.path)),
            _ => Err(self.fail("a mapping (key: value lines)")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fail> {
        let Value::Map(entries) = &self.node.value else {
            if self.path.parent.is_none() {
                return Err(Fail {
                    message:
                        "a scene must be a YAML mapping with keys such as name, map and agents"
                            .into(),
                    at: Some(Located::of(self.r.tree, self.node, self.path)),
                });
            }
            return Err(self.fail(struct_words(name)));
        };
        visitor.visit_map(Entries::fields(
            self.r, self.node, entries, self.path, fields,
        ))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fail> {
        match &self.node.value {
            Value::Text(t) if variants.contains(&t.as_str()) => {
                visitor.visit_enum(t.as_str().into_deserializer())
            }
            _ => Err(self.fail(&format!("one of {}", variants.join(", ")))),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        visitor.visit_unit()
    }
}

/// A list's items.
struct Items<'r, 'p> {
    r: &'r Reader<'r>,
    items: &'r [Node],
    path: &'p Path<'p>,
    next: usize,
}

impl<'r, 'p> Items<'r, 'p> {
    fn new(r: &'r Reader<'r>, items: &'r [Node], path: &'p Path<'p>) -> Self {
        Items {
            r,
            items,
            path,
            next: 0,
        }
    }
}

impl<'de, 'r: 'de> de::SeqAccess<'de> for Items<'r, '_> {
    type Error = Fail;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Fail> {
        let Some(node) = self.items.get(self.next) else {
            return Ok(None);
        };
        let path = self.path.child(StepRef::Index(self.next));
        self.next += 1;
        seed.deserialize(NodeDe {
            r: self.r,
            node,
            path: &path,
        })
        .map(Some)
        .map_err(|f| locate(f, self.r, node, &path))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.next)
    }
}

/// What a mapping's next value is: a node of the tree, or a field the file leaves out.
enum Slot<'r> {
    Node(&'r Node),
    /// Absent: `report` says whether a required field's absence is a mistake (a field the
    /// file never had) or not (a field left out after a mistake, already reported).
    Absent {
        report: bool,
    },
}

/// A mapping's entries: all of them (a `BTreeMap`), or a struct's known fields followed by
/// its absent ones.
struct Entries<'r, 'p> {
    r: &'r Reader<'r>,
    /// The mapping node (where a missing field is reported).
    owner: Option<&'r Node>,
    list: Vec<(&'r str, Option<&'r Node>, Slot<'r>)>,
    path: &'p Path<'p>,
    next: usize,
}

impl<'r, 'p> Entries<'r, 'p> {
    fn skipped(r: &Reader, path: &Path, key: &str) -> bool {
        if r.skip.is_empty() {
            return false;
        }
        let mut segs = path.segs();
        segs.push(Seg::Key(key.to_string()));
        r.skip.contains(&dotted(&segs))
    }

    fn plain(r: &'r Reader<'r>, entries: &'r [(Node, Node)], path: &'p Path<'p>) -> Self {
        let list = entries
            .iter()
            .map(|(k, v)| (r.tree.key(k), Some(k), Slot::Node(v)))
            .filter(|(key, _, _)| !Self::skipped(r, path, key))
            .collect();
        Entries {
            r,
            owner: None,
            list,
            path,
            next: 0,
        }
    }

    fn fields(
        r: &'r Reader<'r>,
        owner: &'r Node,
        entries: &'r [(Node, Node)],
        path: &'p Path<'p>,
        fields: &'static [&'static str],
    ) -> Self {
        let mut list = Vec::new();
        for (k, v) in entries {
            let key = r.tree.key(k);
            if !fields.contains(&key) {
                let hint = match suggestion(key, fields) {
                    Some(s) => format!(" (did you mean {s}?)"),
                    None => format!(", expected one of {}", fields.join(", ")),
                };
                r.report(k, path, format!("unknown field `{key}`{hint}"));
            } else if Self::skipped(r, path, key) {
                list.push((key, Some(k), Slot::Absent { report: false }));
            } else {
                list.push((key, Some(k), Slot::Node(v)));
            }
        }
        for field in fields {
            if !list.iter().any(|(k, _, _)| k == field) {
                list.push((field, None, Slot::Absent { report: true }));
            }
        }
        Entries {
            r,
            owner: Some(owner),
            list,
            path,
            next: 0,
        }
    }
}

impl<'de, 'r: 'de> de::MapAccess<'de> for Entries<'r, '_> {
    type Error = Fail;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Fail> {
        let Some((key, _, _)) = self.list.get(self.next) else {
            return Ok(None);
        };
        let key: &'r str = key;
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Fail> {
        let (key, _, slot) = &self.list[self.next];
        self.next += 1;
        let key: &'r str = key;
        let path = self.path.child(StepRef::Key(key));
        match slot {
            Slot::Node(node) => seed
                .deserialize(NodeDe {
                    r: self.r,
                    node,
                    path: &path,
                })
                .map_err(|f| locate(f, self.r, node, &path)),
            Slot::Absent { report } => seed.deserialize(Absent {
                r: self.r,
                owner: self.owner,
                path: &path,
                report: *report,
                reported: std::cell::Cell::new(false),
            }),
        }
    }
}

/// A field the file leaves out: none for an option, empty for a list or a mapping (the
/// defaults), the first variant for an enum with a default; for anything else the field is
/// required, so its absence is reported (once) and an empty value stands in.
struct Absent<'r, 'p> {
    r: &'r Reader<'r>,
    owner: Option<&'r Node>,
    path: &'p Path<'p>,
    report: bool,
    reported: std::cell::Cell<bool>,
}

impl Absent<'_, '_> {
    fn required(&self) {
        if !self.report || self.reported.replace(true) {
            return;
        }
        let segs = self.path.segs();
        self.r.missing.borrow_mut().insert(dotted(&segs));
        if let (Some(owner), Some(parent)) = (self.owner, self.path.parent) {
            let field = match segs.last() {
                Some(Seg::Key(k)) => k.as_str(),
                _ => "?",
            };
            self.r
                .report(owner, parent, format!("missing field `{field}`"));
        }
    }
}

/// An empty value of any requested kind (the items of an absent `[x, y]`).
struct Zero;

impl<'de> de::Deserializer<'de> for Zero {
    type Error = Fail;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        visitor.visit_i64(0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> de::SeqAccess<'de> for ZeroItems {
    type Error = Fail;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Fail> {
        if self.0 == 0 {
            return Ok(None);
        }
        self.0 -= 1;
        seed.deserialize(Zero).map(Some)
    }
}

/// `n` zeros.
struct ZeroItems(usize);

impl<'de> de::Deserializer<'de> for Absent<'_, '_> {
    type Error = Fail;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_str("")
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_bool(false)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_i64(0)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_u64(0)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_f64(0.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        visitor.visit_none()
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        visitor.visit_seq(ZeroItems(0))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_seq(ZeroItems(len))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        visitor.visit_map(de::value::MapDeserializer::new(std::iter::empty::<(
            &str,
            &str,
        )>()))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fail> {
        visitor.visit_enum(variants.first().copied().unwrap_or("").into_deserializer())
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_str("")
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fail> {
        self.deserialize_str(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fail> {
        self.required();
        visitor.visit_map(de::value::MapDeserializer::new(std::iter::empty::<(
            &str,
            &str,
        )>()))
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i128 u8 u16 u32 u128 f32 char bytes byte_buf unit unit_struct
        newtype_struct tuple_struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Agent {
        id: String,
        at: [i64; 2],
        speed: Option<f64>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        rate: Option<u32>,
        #[serde(default)]
        agents: Vec<Agent>,
    }

    fn messages(text: &str) -> (Option<Doc>, Vec<String>) {
        let tree = Tree::parse(text).unwrap();
        let shaped = read::<Doc>(&tree);
        let lines = shaped
            .errors
            .iter()
            .map(|e| format!("{}:{}: {}", e.line, e.column, e.message))
            .collect();
        (shaped.value, lines)
    }

    #[test]
    fn every_independent_mistake_is_reported_at_once() {
        let (doc, errors) = messages(
            "rate: fast\nagents:\n  - id: a\n    at: [1]\n    sped: 2\n  - at: [1, x]\n  - id: c\n    at: [3, 4]\n",
        );
        assert_eq!(
            errors,
            [
                "1:7: rate: expected a whole number (0 or more), got text \"fast\"",
                "4:9: agents[0].at: expected a list of two numbers [x, y], got 1 item",
                "5:5: agents[0]: unknown field `sped` (did you mean speed?)",
                "6:5: agents[1]: missing field `id`",
                "6:13: agents[1].at[1]: expected a whole number, got text \"x\"",
            ]
        );
        // The rest still reads, with the items in their places.
        let doc = doc.unwrap();
        assert_eq!(doc.agents.len(), 3);
        assert_eq!(doc.agents[2].at, [3, 4]);
    }

    #[test]
    fn a_top_level_that_is_not_a_mapping_reads_nothing() {
        let (doc, errors) = messages("- 1\n- 2\n");
        assert!(doc.is_none());
        assert_eq!(
            errors,
            ["1:1: a scene must be a YAML mapping with keys such as name, map and agents"]
        );
    }

    #[test]
    fn suggestions_are_close_names_only() {
        assert_eq!(suggestion("spede", &["speed", "sense"]), Some("speed"));
        assert_eq!(suggestion("colour", &["name", "seed", "map"]), None);
    }
}
