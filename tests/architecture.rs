//! The layering invariants of ARCHITECTURE.md, checked on the parsed source: every file under
//! `src/` is parsed with `syn`, every path into the crate (`crate::…`, `super::…`, `self::…`) is
//! collected — from `use` trees (grouped, nested, renamed, glob), from paths in expressions,
//! types, patterns and attributes, and from the tokens of macro calls — and checked against an
//! explicit rule table with one entry for every top-level module. A module with no rule fails.
//! Each engine crate (mlua, macroquad, notify) may be named by one module only, checked on the
//! same parsed paths.

mod common;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::visit::Visit;

/// What each top-level module may name in the crate, besides itself: a module name allows
/// anything under it; a longer path (`movement::potential::field_at`) allows that item only.
/// The order is bottom-up: the core first.
const RULES: &[(&str, &[&str])] = &[
    ("files", &[]),
    ("world", &[]),
    ("nav", &["world"]),
    ("movement", &["world", "nav"]),
    ("scene", &["world", "files"]),
    ("sim", &["world", "nav", "movement"]),
    ("expect", &["world", "scene", "sim"]),
    ("watch", &["files"]),
    (
        "script",
        &["world", "nav", "movement", "sim", "expect", "files"],
    ),
    (
        "session",
        &["world", "scene", "sim", "script", "watch", "files"],
    ),
    ("realtime", &["sim", "session", "watch"]),
    // The history names the script module only for its file sources (plain Rust, no Lua).
    (
        "history",
        &[
            "world",
            "sim",
            "session",
            "watch",
            "files",
            "script::sources",
            "script::read_script_file",
        ],
    ),
    ("testrun", &["session", "expect"]),
    (
        "experiment",
        &["world", "scene", "sim", "script", "session", "expect"],
    ),
    ("bench", &["world", "scene", "sim", "script"]),
    ("movingai", &[]),
    (
        "paths",
        &["nav", "movingai", "bench::thread_cpu_time", "bench::CLOCK"],
    ),
    (
        "render",
        &[
            "world",
            "nav",
            "session",
            "history",
            "watch",
            // Render draws the field an agent feels through this documented read-only query,
            // and recomputes no other physics.
            "movement::potential::field_at",
            // The tunables panel lists the scene's tunables, and the plots panel runs the
            // scene's monitors through the experiments' one implementation of them.
            "scene::tunable",
            "scene::file::MonitorsSpec",
            "experiment::monitors",
        ],
    ),
    (
        "cli",
        &[
            "scene",
            "sim",
            "script",
            "session",
            "realtime",
            "testrun",
            "experiment",
            "bench",
            "paths",
            "render",
            "history",
        ],
    ),
];

/// Engine crates and the one top-level module that may name each.
const OWNERS: [(&str, &str); 4] = [
    ("mlua", "script"),
    ("macroquad", "render"),
    ("egui_macroquad", "render"),
    ("notify", "watch"),
];

/// A path found in the source: where, and its segments.
#[derive(Clone, Debug, PartialEq)]
struct Found {
    line: usize,
    /// For a path into the crate: the absolute path from the crate root (`["sim", "Decider"]`);
    /// for any other path: its segments as written (`["mlua", "Lua"]`).
    segments: Vec<String>,
    /// Whether it starts at the crate root (after resolving `super`/`self`).
    in_crate: bool,
}

/// Collects paths from one file. `module` is the file's module path from the crate root.
struct Collector {
    module: Vec<String>,
    found: Vec<Found>,
}

impl Collector {
    /// Records a path given as its leading segments, resolving `crate`/`super`/`self`.
    fn record(&mut self, line: usize, segments: Vec<String>) {
        let Some(first) = segments.first() else {
            return;
        };
        let mut base = self.module.clone();
        let rest: &[String] = match first.as_str() {
            "crate" => {
                base.clear();
                &segments[1..]
            }
            "self" => &segments[1..],
            "super" => {
                let mut rest = &segments[..];
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                if rest.first().is_some_and(|s| s == "self") {
                    rest = &rest[1..];
                }
                rest
            }
            _ => {
                self.found.push(Found {
                    line,
                    segments,
                    in_crate: false,
                });
                return;
            }
        };
        base.extend(rest.iter().cloned());
        self.found.push(Found {
            line,
            segments: base,
            in_crate: true,
        });
    }

    fn use_tree(&mut self, line: usize, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(line, prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.record(line, full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.record(line, full);
            }
            syn::UseTree::Glob(_) => {
                let mut full = prefix.clone();
                full.push("*".into());
                self.record(line, full);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(line, prefix, t);
                }
            }
        }
    }

    /// Paths in a macro's tokens: every run of `ident :: ident :: …` (with an optional
    /// leading `::`), so `format!("{}", crate::sim::X::new())` is seen whether or not the
    /// tokens parse as expressions.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(ident) => {
                    let line = ident.span().start().line;
                    let mut segments = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
                        (trees.get(j), trees.get(j + 1))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        match trees.get(j + 2) {
                            Some(TokenTree::Ident(next)) => segments.push(next.to_string()),
                            Some(TokenTree::Punct(p)) if p.as_char() == '*' => {
                                segments.push("*".into())
                            }
                            _ => break,
                        }
                        j += 3;
                    }
                    // A lone identifier is not a path; `a::b` is.
                    if segments.len() > 1 {
                        self.record(line, segments);
                    }
                    i = j;
                }
                TokenTree::Punct(_) | TokenTree::Literal(_) => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let line = item.use_token.span.start().line;
        // `use ::mlua::Lua` names an external crate just as `use mlua::Lua` does.
        let mut prefix = Vec::new();
        self.use_tree(line, &mut prefix, &item.tree);
        for attr in &item.attrs {
            self.visit_attribute(attr);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        if segments.len() > 1 || matches!(segments.first().map(String::as_str), Some("crate")) {
            self.record(line, segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // The macro's own path (`mlua::chunk!`) and the paths inside its tokens.
        self.visit_path(&mac.path);
        self.tokens(mac.tokens.clone());
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        // `#[derive(mlua::FromLua)]`, `#[serde(with = "…")]`: the path of the attribute, and
        // the paths among its tokens.
        self.visit_path(attr.path());
        if let syn::Meta::List(list) = &attr.meta {
            self.tokens(list.tokens.clone());
        }
    }

    fn visit_item_extern_crate(&mut self, item: &'ast syn::ItemExternCrate) {
        let line = item.extern_token.span.start().line;
        self.record(line, vec![item.ident.to_string(), "*".into()]);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        // An inline module: `super::` inside it means the module around it.
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }
}

/// Every path in `source`, a file of module `module` (`["render", "overlays", "heat"]`).
fn paths_in(module: &[&str], source: &str) -> Result<Vec<Found>, syn::Error> {
    let file = syn::parse_file(source)?;
    let mut collector = Collector {
        module: module.iter().map(|s| s.to_string()).collect(),
        found: Vec::new(),
    };
    collector.visit_file(&file);
    Ok(collector.found)
}

/// The violations of the rule table in one file: `line: what`.
fn check(module: &[&str], source: &str) -> Result<Vec<String>, String> {
    let found = paths_in(module, source).map_err(|e| {
        let at = e.span().start();
        format!("{}:{}: cannot parse: {e}", at.line, at.column + 1)
    })?;
    let top = module.first().copied().unwrap_or("");
    if top.is_empty() {
        // `lib.rs` only declares the modules.
        return Ok(Vec::new());
    }
    let rules: BTreeMap<&str, &[&str]> = RULES.iter().copied().collect();
    let Some(allowed) = rules.get(top) else {
        return Err(format!(
            "module `{top}` has no rule in tests/architecture.rs RULES"
        ));
    };
    let mut out = Vec::new();
    for f in found {
        if f.in_crate {
            let Some(target) = f.segments.first() else {
                continue; // `use crate::{self}`-like: the crate root itself
            };
            if target == top {
                continue;
            }
            let permitted = allowed.iter().any(|rule| {
                let rule: Vec<&str> = rule.split("::").collect();
                rule.len() <= f.segments.len() && rule.iter().zip(&f.segments).all(|(a, b)| a == b)
            });
            if !permitted {
                out.push(format!(
                    "{}: `{top}` names `crate::{}`",
                    f.line,
                    f.segments.join("::")
                ));
            }
        } else if let Some(krate) = f.segments.first() {
            for (engine, owner) in OWNERS {
                if krate == engine && top != owner {
                    out.push(format!(
                        "{}: `{top}` names the engine crate {engine} (`{}`); only src/{owner}/ may",
                        f.line,
                        f.segments.join("::")
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// Every `.rs` file under a folder, with its text.
fn sources(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path, text));
        }
    }
    out
}

/// A file's module path from the crate root: `render/overlays/heat.rs` → render, overlays,
/// heat; `sim/mod.rs` → sim; `lib.rs` → (none). Binaries (`main.rs`, `bin/`) are their own
/// crates: `None`.
fn module_of(relative: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") || parts == ["main.rs"] {
        return None;
    }
    let last = parts.pop()?;
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// The top-level modules `src/lib.rs` declares.
fn declared_modules() -> BTreeSet<String> {
    let text = std::fs::read_to_string(common::root().join("src/lib.rs")).unwrap();
    let file = syn::parse_file(&text).unwrap();
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_module_has_exactly_one_rule() {
    let declared = declared_modules();
    let ruled: Vec<&str> = RULES.iter().map(|(m, _)| *m).collect();
    let ruled_set: BTreeSet<String> = ruled.iter().map(|m| m.to_string()).collect();
    assert_eq!(ruled.len(), ruled_set.len(), "a module has two rules");
    let missing: Vec<_> = declared.difference(&ruled_set).collect();
    assert!(
        missing.is_empty(),
        "modules in src/lib.rs with no rule in RULES: {missing:?}"
    );
    let stale: Vec<_> = ruled_set.difference(&declared).collect();
    assert!(
        stale.is_empty(),
        "rules for modules that do not exist: {stale:?}"
    );
    for (module, allowed) in RULES {
        for rule in *allowed {
            let target = rule.split("::").next().unwrap_or("");
            assert!(
                declared.contains(target),
                "`{module}` allows `{rule}`, which names no module"
            );
        }
    }
}

/// The rule table itself has no cycle, so no set of files obeying it can form one.
#[test]
fn the_rules_form_no_cycle() {
    let edges: BTreeMap<&str, Vec<&str>> = RULES
        .iter()
        .map(|(m, allowed)| {
            let targets = allowed
                .iter()
                .map(|r| r.split("::").next().unwrap_or(""))
                .collect();
            (*m, targets)
        })
        .collect();
    // Depth-first search with the path kept, so a cycle is reported by its modules.
    fn visit<'a>(
        node: &'a str,
        edges: &BTreeMap<&'a str, Vec<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(at) = path.iter().position(|n| *n == node) {
            panic!("the rules form a cycle: {}", path[at..].join(" → "));
        }
        if !done.insert(node) {
            return;
        }
        path.push(node);
        for next in edges.get(node).into_iter().flatten() {
            visit(next, edges, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for module in edges.keys() {
        visit(module, &edges, &mut Vec::new(), &mut done);
    }
}

#[test]
fn every_file_keeps_to_its_layer() {
    let src = common::root().join("src");
    let mut problems = Vec::new();
    let mut checked = 0;
    for (path, text) in sources(&src) {
        let relative = path.strip_prefix(&src).unwrap();
        let Some(module) = module_of(relative) else {
            continue;
        };
        let module: Vec<&str> = module.iter().map(String::as_str).collect();
        match check(&module, &text) {
            Ok(found) => {
                for f in found {
                    problems.push(format!("src/{}:{f}", relative.display()));
                }
            }
            Err(e) => problems.push(format!("src/{}:{e}", relative.display())),
        }
        checked += 1;
    }
    assert!(checked > 50, "only {checked} files found under src/");
    assert!(
        problems.is_empty(),
        "layer rules broken:\n{}",
        problems.join("\n")
    );
}

/// Binaries are their own crates; they may still name an engine crate only as its owner
/// module does, that is: not at all.
#[test]
fn binaries_name_no_engine_crate() {
    let src = common::root().join("src");
    for (path, text) in sources(&src) {
        let relative = path.strip_prefix(&src).unwrap();
        if module_of(relative).is_some() {
            continue;
        }
        for f in paths_in(&[], &text).unwrap() {
            for (engine, owner) in OWNERS {
                assert!(
                    f.in_crate || f.segments.first().map(String::as_str) != Some(engine),
                    "src/{}:{}: names {engine}; only src/{owner}/ may",
                    relative.display(),
                    f.line
                );
            }
        }
    }
}

// The checker itself: each way of reaching up a layer is caught.

#[test]
fn a_grouped_use_is_caught() {
    let found = check(&["world", "grid"], "use crate::{sim::Decider};\n").unwrap();
    assert_eq!(found, ["1: `world` names `crate::sim::Decider`"]);
    let nested = "use crate::{nav::{self, los}, scene::{load as l, *}};\n";
    let found = check(&["nav"], nested).unwrap();
    assert_eq!(
        found,
        [
            "1: `nav` names `crate::scene::load`",
            "1: `nav` names `crate::scene::*`"
        ]
    );
}

#[test]
fn an_inline_path_is_caught() {
    let source = "fn f() -> u32 {\n    let x = crate::sim::X::new();\n    x.n\n}\n";
    let found = check(&["movement", "chase"], source).unwrap();
    assert_eq!(found, ["2: `movement` names `crate::sim::X::new`"]);
    let in_type = "struct S { d: Box<dyn crate::sim::Decider> }\n";
    assert_eq!(
        check(&["world"], in_type).unwrap(),
        ["1: `world` names `crate::sim::Decider`"]
    );
    let in_pattern = "fn g(e: E) { if let crate::script::E::A = e {} }\n";
    assert_eq!(
        check(&["sim"], in_pattern).unwrap(),
        ["1: `sim` names `crate::script::E::A`"]
    );
}

#[test]
fn a_path_inside_a_macro_is_caught() {
    let source = "fn f() { println!(\"{:?}\", crate::session::Session::open(p)); }\n";
    assert_eq!(
        check(&["scene"], source).unwrap(),
        ["1: `scene` names `crate::session::Session::open`"]
    );
}

#[test]
fn super_paths_resolve_to_their_module() {
    // From render/overlays/heat.rs, `super::super::super::world` is crate::world: allowed.
    let ok = "use super::super::super::world::World;\n";
    assert!(check(&["render", "overlays", "heat"], ok)
        .unwrap()
        .is_empty());
    // From sim/trace.rs, `super::super::script` is crate::script: not allowed.
    let up = "use super::super::script::ScriptHost;\nfn f() { super::Simulation::x(); }\n";
    assert_eq!(
        check(&["sim", "trace"], up).unwrap(),
        ["1: `sim` names `crate::script::ScriptHost`"]
    );
    // Inside an inline `mod tests`, `super` is the file's own module.
    let tests = "mod tests { use super::*; use super::super::Agent; }\n";
    assert!(check(&["world", "grid"], tests).unwrap().is_empty());
}

#[test]
fn render_may_ask_for_the_field_but_not_recompute_it() {
    let query = "use crate::movement::potential::field_at;\n";
    assert!(check(&["render", "overlays", "heat"], query)
        .unwrap()
        .is_empty());
    let physics = "use crate::movement::potential::{force, field_at};\n";
    assert_eq!(
        check(&["render", "overlays", "heat"], physics).unwrap(),
        ["1: `render` names `crate::movement::potential::force`"]
    );
}

#[test]
fn engine_crates_are_caught_in_every_form() {
    for (source, line) in [
        ("use mlua::Lua;\n", 1),
        ("use {std::rc::Rc, mlua::{Lua as L}};\n", 1),
        ("fn f() {\n    let l = mlua::Lua::new();\n}\n", 2),
        ("fn f() { let _ = format!(\"{}\", ::mlua::VERSION); }\n", 1),
        ("#[derive(mlua::FromLua)]\nstruct S;\n", 1),
    ] {
        let found = check(&["sim"], source).unwrap();
        assert_eq!(found.len(), 1, "{source}: {found:?}");
        assert!(found[0].starts_with(&format!("{line}: `sim` names the engine crate mlua")));
    }
    assert!(check(&["script", "api"], "use mlua::Lua;\n")
        .unwrap()
        .is_empty());
}

#[test]
fn a_module_with_no_rule_fails() {
    let err = check(&["newmodule"], "fn f() {}\n").unwrap_err();
    assert!(err.contains("`newmodule` has no rule"), "{err}");
}
