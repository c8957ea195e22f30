//! The API linter: reads a script's source with a real Lua 5.4 parser (`full_moon`) and finds
//! every read or call of a name the Lua API does not have: a field of a library table
//! (`move.chsae`, `nav.lose`, `draw.cirle`) and a method of the `world` handed to a function
//! (`world:neerest`), each with its line, column and the closest real name. The names come
//! from the binding declarations (`bindings/`), as the stubs' do, so the linter cannot drift
//! from what the host binds. The run-time error of the same mistake ([`not_in_api`], raised by
//! `sandbox.rs`) words it the same way.
//!
//! Scopes are followed: a `move`, `nav` or `draw` that is a local (or a global the script
//! assigns) is the script's own, and so is a field the script stores into a library table
//! (`function move.zigzag() ... end`). `world` is checked where it is a function's parameter,
//! as in `decide(self, world)`.
//!
//! It also warns where a script sets a metatable's `__mode` (in a table constructor or by
//! assignment): patched Lua honours no script's `__mode` ([`WEAK_MODE_WARNING`]), so a weak
//! table keeps its entries, which a script written for standard Lua may not expect.
//!
//! It only reads text: it runs nothing and touches no Lua state.

mod nesting;

use crate::bindings::{library, Home};
use agentbox_core::files::{ReadError, MAX_SCRIPT_BYTES};
use full_moon::ast::{
    self, Block, Call, Expression, Field, FunctionArgs, FunctionBody, Index, LastStmt, Parameter,
    Prefix, Stmt, Suffix, Var,
};
use full_moon::tokenizer::TokenReference;
use full_moon::LuaVersion;
use std::collections::BTreeSet;

/// One name a script reads that the API does not have (an error), or a `__mode` it sets (a
/// warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line of the library table or `world` the name is read from (of `__mode`).
    pub line: usize,
    /// 1-based column (in characters) of the same.
    pub column: usize,
    /// An error fails `check`; a warning does not.
    pub severity: Severity,
    /// `move.chsae is not in the API (did you mean move.chase?)`.
    pub message: String,
}

/// How much a [`Finding`] weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The script reads a name that is not there: it fails where the run reaches it.
    Error,
    /// The script runs, but not as it would in standard Lua.
    Warning,
}

/// The warning at a `__mode` a script sets.
pub const WEAK_MODE_WARNING: &str = "__mode has no effect: weak tables hold their entries in \
agentbox, like plain tables (all agents share one garbage collector, so what a weak table \
dropped would depend on what the other agents allocate); empty the table yourself";

/// The homes whose names the linter checks: the three library tables and `world`.
const CHECKED: [Home; 4] = [Home::Move, Home::Nav, Home::Draw, Home::World];

/// What `home`'s name `name` is written as: `move.chase`, `world:nearest`.
fn qualified(home: Home, name: &str) -> String {
    let sep = if home == Home::World { ':' } else { '.' };
    format!("{}{sep}{name}", home.title())
}

/// The message for a name `home` does not have: `move.chsae is not in the API (did you mean
/// move.chase?)`, the suggestion being the closest declared name, if one is close.
pub(crate) fn not_in_api(home: Home, name: &str) -> String {
    let known: Vec<&str> = library(home)
        .bindings
        .iter()
        .map(|b| b.short_name())
        .collect();
    let wrong = qualified(home, name);
    match agentbox_core::scene::suggestion(name, &known) {
        Some(meant) => format!(
            "{wrong} is not in the API (did you mean {}?)",
            qualified(home, meant)
        ),
        None => format!("{wrong} is not in the API"),
    }
}

/// Whether `home` declares `name`.
fn declared(home: Home, name: &str) -> bool {
    library(home)
        .bindings
        .iter()
        .any(|b| b.short_name() == name)
}

/// Every name `source` reads that the API does not have, in source order, or why `source`
/// cannot be linted: it is larger than a script file may be ([`MAX_SCRIPT_BYTES`]), or its
/// syntax tree could nest deeper than the linter's bound (see `nesting.rs`), located at the
/// token that goes past it. A source that does not parse gives none: compiling it reports the
/// syntax error.
///
/// The parse, the walk and the tree's drop all recurse once per level of the tree: they run on
/// a thread of their own whose stack ([`STACK_BYTES`]) holds the deepest tree the bound lets
/// through, so no input overflows the caller's stack.
pub fn lint(source: &str) -> Result<Vec<Finding>, Unlinted> {
    if source.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(Unlinted {
            line: 1,
            column: 1,
            message: format!(
                "too large to lint: {}",
                ReadError::TooLarge(MAX_SCRIPT_BYTES)
            ),
        });
    }
    if let Some((line, column)) = nesting::too_deep_at(source) {
        return Err(Unlinted {
            line,
            column,
            message: format!(
                "too deeply nested to lint: over {} levels of brackets, blocks and operators here",
                nesting::MAX_DEPTH
            ),
        });
    }
    let failed = |why: String| Unlinted {
        line: 1,
        column: 1,
        message: format!("cannot lint: {why}"),
    };
    std::thread::scope(|scope| {
        let walk = std::thread::Builder::new()
            .name("lint".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || lint_parsed(source))
            .map_err(|e| failed(format!("cannot start the linter: {e}")))?;
        walk.join()
            .map_err(|_| failed("the Lua parser failed on this script".into()))
    })
}

/// The stack of the thread that parses and walks a script: room for a tree [`nesting`]
/// lets through ([`nesting::MAX_DEPTH`] levels) with a debug build's frames (about 64 KiB a
/// level at worst, measured; a release build's take under half). It is address
/// space reserved, not memory: only the pages a deep script touches are used.
const STACK_BYTES: usize = 128 * 1024 * 1024;

/// A source the linter did not read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unlinted {
    /// 1-based line of the place: the token that nests too deep, or 1.
    pub line: usize,
    /// 1-based column (in characters) of the same.
    pub column: usize,
    /// `too deeply nested to lint: over 1000 levels of brackets, blocks and operators here`.
    pub message: String,
}

/// [`lint`]'s parse and walk, on a stack deep enough for `source`.
fn lint_parsed(source: &str) -> Vec<Finding> {
    let Ok(ast) = full_moon::parse_fallible(source, LuaVersion::lua54()).into_result() else {
        return Vec::new();
    };
    let mut walker = Walker::default();
    walker.block(ast.nodes());
    let Walker {
        found,
        stored,
        reassigned,
        weak_modes,
        ..
    } = walker;
    let mut findings: Vec<Finding> = found
        .into_iter()
        .filter(|m| {
            !reassigned.contains(&m.home.title())
                && !stored.contains(&(m.home.title(), m.name.clone()))
        })
        .map(|m| Finding {
            line: m.line,
            column: m.column,
            severity: Severity::Error,
            message: not_in_api(m.home, &m.name),
        })
        .chain(weak_modes.into_iter().map(|(line, column)| Finding {
            line,
            column,
            severity: Severity::Warning,
            message: WEAK_MODE_WARNING.to_string(),
        }))
        .collect();
    findings.sort_by_key(|f| (f.line, f.column));
    findings
}

/// The token of an expression that is the string literal `"__mode"` (either quotes).
fn mode_string(expr: &Expression) -> Option<&TokenReference> {
    match expr {
        Expression::String(token)
            if text(token).trim_matches(|c| c == '"' || c == '\'') == "__mode" =>
        {
            Some(token)
        }
        _ => None,
    }
}

/// A name read from a checked home, before the whole script is seen.
struct Miss {
    home: Home,
    name: String,
    line: usize,
    column: usize,
}

/// How a name in scope was bound.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Local,
    Parameter,
}

/// Walks a chunk keeping the names in scope.
#[derive(Default)]
struct Walker {
    scopes: Vec<Vec<(String, Bound)>>,
    found: Vec<Miss>,
    /// Library fields the script stores (`move.zigzag = ...`): its own.
    stored: BTreeSet<(&'static str, String)>,
    /// Library globals the script assigns (`move = ...`): its own.
    reassigned: BTreeSet<&'static str>,
    /// Where the script sets a `__mode` (line, column): a warning each.
    weak_modes: Vec<(usize, usize)>,
}

fn text(token: &TokenReference) -> String {
    token.token().to_string()
}

impl Walker {
    fn declare(&mut self, token: &TokenReference, bound: Bound) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((text(token), bound));
        }
    }

    fn binding(&self, name: &str) -> Option<Bound> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| *b)
    }

    /// The checked home a name stands for here: a library table when it is the global,
    /// `world` when it is a parameter.
    fn home_of(&self, name: &str) -> Option<Home> {
        let home = CHECKED.into_iter().find(|h| h.title() == name)?;
        match (home, self.binding(name)) {
            (Home::World, Some(Bound::Parameter)) => Some(home),
            (Home::World, _) => None,
            (_, None) => Some(home),
            (_, Some(_)) => None,
        }
    }

    fn block(&mut self, block: &Block) {
        self.scopes.push(Vec::new());
        self.statements(block);
        self.scopes.pop();
    }

    /// A block's statements in the current scope (a `repeat` body's locals reach `until`).
    fn statements(&mut self, block: &Block) {
        for stmt in block.stmts() {
            self.stmt(stmt);
        }
        if let Some(LastStmt::Return(ret)) = block.last_stmt() {
            for e in ret.returns().iter() {
                self.expr(e);
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Assignment(a) => {
                for e in a.expressions().iter() {
                    self.expr(e);
                }
                for var in a.variables().iter() {
                    self.assigned(var);
                }
            }
            Stmt::LocalAssignment(a) => {
                for e in a.expressions().iter() {
                    self.expr(e);
                }
                for name in a.names().iter() {
                    self.declare(name, Bound::Local);
                }
            }
            Stmt::LocalFunction(f) => {
                self.declare(f.name(), Bound::Local);
                self.function(f.body(), false);
            }
            Stmt::FunctionDeclaration(f) => {
                let names: Vec<&TokenReference> = f.name().names().iter().collect();
                if let [table, field, ..] = names.as_slice() {
                    self.stored_into(table, field);
                } else if let ([table], Some(method)) = (names.as_slice(), f.name().method_name()) {
                    self.stored_into(table, method);
                } else if let [name] = names.as_slice() {
                    self.assigned_global(name);
                }
                self.function(f.body(), f.name().method_colon().is_some());
            }
            Stmt::FunctionCall(call) => self.call(call.prefix(), call.suffixes()),
            Stmt::Do(d) => self.block(d.block()),
            Stmt::While(w) => {
                self.expr(w.condition());
                self.block(w.block());
            }
            Stmt::Repeat(r) => {
                self.scopes.push(Vec::new());
                self.statements(r.block());
                self.expr(r.until());
                self.scopes.pop();
            }
            Stmt::If(i) => {
                self.expr(i.condition());
                self.block(i.block());
                for branch in i.else_if().into_iter().flatten() {
                    self.expr(branch.condition());
                    self.block(branch.block());
                }
                if let Some(block) = i.else_block() {
                    self.block(block);
                }
            }
            Stmt::NumericFor(f) => {
                self.expr(f.start());
                self.expr(f.end());
                if let Some(step) = f.step() {
                    self.expr(step);
                }
                self.scopes.push(Vec::new());
                self.declare(f.index_variable(), Bound::Local);
                self.block(f.block());
                self.scopes.pop();
            }
            Stmt::GenericFor(f) => {
                for e in f.expressions().iter() {
                    self.expr(e);
                }
                self.scopes.push(Vec::new());
                for name in f.names().iter() {
                    self.declare(name, Bound::Local);
                }
                self.block(f.block());
                self.scopes.pop();
            }
            _ => {}
        }
    }

    /// `table.field = ...` or `function table.field()`: a library's new field is the script's.
    fn stored_into(&mut self, table: &TokenReference, field: &TokenReference) {
        if let Some(home) = self.home_of(&text(table)) {
            self.stored.insert((home.title(), text(field)));
        }
    }

    /// `name = ...`: a library global replaced is the script's.
    fn assigned_global(&mut self, name: &TokenReference) {
        if let Some(home) = self.home_of(&text(name)) {
            if home != Home::World {
                self.reassigned.insert(home.title());
            }
        }
    }

    /// A `__mode` the script sets, at `token`.
    fn weak_mode(&mut self, token: &TokenReference) {
        let at = token.start_position();
        self.weak_modes.push((at.line(), at.character()));
    }

    /// The target of an assignment: its reads are checked, its last field is stored; a
    /// `__mode` it sets is noted.
    fn assigned(&mut self, var: &Var) {
        match var {
            Var::Name(name) => self.assigned_global(name),
            Var::Expression(v) => {
                let suffixes: Vec<&Suffix> = v.suffixes().collect();
                match suffixes.last() {
                    Some(Suffix::Index(Index::Dot { name, .. })) if text(name) == "__mode" => {
                        self.weak_mode(name)
                    }
                    Some(Suffix::Index(Index::Brackets { expression, .. })) => {
                        if let Some(token) = mode_string(expression) {
                            self.weak_mode(token);
                        }
                    }
                    _ => {}
                }
                if let (Prefix::Name(table), [Suffix::Index(Index::Dot { name, .. })]) =
                    (v.prefix(), suffixes.as_slice())
                {
                    self.stored_into(table, name);
                } else {
                    self.call(v.prefix(), v.suffixes());
                }
            }
            _ => {}
        }
    }

    fn function(&mut self, body: &FunctionBody, method: bool) {
        self.scopes.push(Vec::new());
        if method {
            if let Some(scope) = self.scopes.last_mut() {
                scope.push(("self".to_string(), Bound::Parameter));
            }
        }
        for param in body.parameters().iter() {
            if let Parameter::Name(name) = param {
                self.declare(name, Bound::Parameter);
            }
        }
        self.block(body.block());
        self.scopes.pop();
    }

    /// A prefix and its suffixes (`move.chase(prey)`, `world:nearest(self, "x").pos`): the
    /// first suffix after a checked name is the name read from it.
    fn call<'a>(&mut self, prefix: &Prefix, suffixes: impl Iterator<Item = &'a Suffix>) {
        let mut suffixes = suffixes.peekable();
        match prefix {
            Prefix::Name(token) => {
                if let Some(home) = self.home_of(&text(token)) {
                    let read = match suffixes.peek() {
                        Some(Suffix::Index(Index::Dot { name, .. })) => Some(name),
                        Some(Suffix::Call(Call::MethodCall(m))) => Some(m.name()),
                        _ => None,
                    };
                    if let Some(name) = read.map(text) {
                        if !declared(home, &name) {
                            let at = token.start_position();
                            self.found.push(Miss {
                                home,
                                name,
                                line: at.line(),
                                column: at.character(),
                            });
                        }
                    }
                }
            }
            Prefix::Expression(e) => self.expr(e),
            _ => {}
        }
        for suffix in suffixes {
            match suffix {
                Suffix::Call(Call::AnonymousCall(args)) => self.args(args),
                Suffix::Call(Call::MethodCall(m)) => self.args(m.args()),
                Suffix::Index(Index::Brackets { expression, .. }) => self.expr(expression),
                _ => {}
            }
        }
    }

    fn args(&mut self, args: &FunctionArgs) {
        match args {
            FunctionArgs::Parentheses { arguments, .. } => {
                for e in arguments.iter() {
                    self.expr(e);
                }
            }
            FunctionArgs::TableConstructor(t) => self.table(t),
            _ => {}
        }
    }

    fn table(&mut self, table: &ast::TableConstructor) {
        for field in table.fields().iter() {
            match field {
                Field::ExpressionKey { key, value, .. } => {
                    if let Some(token) = mode_string(key) {
                        self.weak_mode(token);
                    }
                    self.expr(key);
                    self.expr(value);
                }
                Field::NameKey { key, value, .. } => {
                    if text(key) == "__mode" {
                        self.weak_mode(key);
                    }
                    self.expr(value)
                }
                Field::NoKey(value) => self.expr(value),
                _ => {}
            }
        }
    }

    fn expr(&mut self, expr: &Expression) {
        match expr {
            Expression::BinaryOperator { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            Expression::Parentheses { expression, .. }
            | Expression::UnaryOperator { expression, .. } => self.expr(expression),
            Expression::Function(f) => self.function(f.body(), false),
            Expression::FunctionCall(call) => self.call(call.prefix(), call.suffixes()),
            Expression::TableConstructor(t) => self.table(t),
            Expression::Var(Var::Expression(v)) => self.call(v.prefix(), v.suffixes()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(source: &str) -> Vec<String> {
        lint(source)
            .expect("linted")
            .into_iter()
            .map(|f| format!("{}:{}: {}", f.line, f.column, f.message))
            .collect()
    }

    #[test]
    fn misspelt_library_fields_and_world_methods_are_found_with_a_suggestion() {
        let source = "local M = {}\nfunction M.decide(self, world)\n  local p = world:neerest(self, \"prey\")\n  if nav.lose(self, p) then\n    return   move.chsae(p)\n  end\n  draw.zzzzzzzz(1)\n  return move.stop()\nend\nreturn M\n";
        assert_eq!(
            messages(source),
            [
                "3:13: world:neerest is not in the API (did you mean world:nearest?)",
                "4:6: nav.lose is not in the API (did you mean nav.los?)",
                "5:14: move.chsae is not in the API (did you mean move.chase?)",
                "7:3: draw.zzzzzzzz is not in the API",
            ]
        );
    }

    #[test]
    fn the_scripts_own_names_are_not_flagged() {
        let source = "local function f(move) return move.chsae end\n\
            local nav = { lose = 1 }\nprint(nav.lose)\n\
            function move.zigzag() end\nmove.spin = 1\nprint(move.zigzag, move.spin)\n\
            local world = {}\nprint(world:neerest())\n\
            local t = { world = 1 }\nprint(t.world, t.move)\n\
            for move in pairs({}) do print(move.x) end\n\
            repeat local draw = {} until draw.x\n";
        assert_eq!(messages(source), Vec::<String>::new());
    }

    #[test]
    fn reads_in_every_kind_of_expression_are_checked() {
        let source = "local x = { move.a, k = nav.b, [draw.c] = 1 }\n\
            local y = -(move.d) + #nav.e\n\
            local z = function(world) return world.f end\n\
            while move.g do end\nf(move.h)\nf{nav.i}\nt[move.j] = 1\nlocal s = move.stop\n";
        let found: Vec<String> = lint(source)
            .expect("linted")
            .into_iter()
            .map(|f| f.message.split(' ').next().unwrap_or("").to_string())
            .collect();
        assert_eq!(
            found,
            [
                "move.a", "nav.b", "draw.c", "move.d", "nav.e", "world:f", "move.g", "move.h",
                "nav.i", "move.j"
            ]
        );
    }

    #[test]
    fn a_mode_the_script_sets_is_a_warning_where_it_is_written() {
        let source = "local a = setmetatable({}, { __mode = 'k' })\n\
            local meta = { ['__mode'] = \"v\" }\n\
            meta.__mode = 'kv'\nmeta[\"__mode\"] = nil\n\
            local mode = meta.__mode\nlocal t = { mode = 'k', __index = meta }\n";
        let found: Vec<(usize, usize, Severity)> = lint(source)
            .expect("linted")
            .into_iter()
            .inspect(|f| assert_eq!(f.message, WEAK_MODE_WARNING))
            .map(|f| (f.line, f.column, f.severity))
            .collect();
        assert_eq!(
            found,
            [
                (1, 30, Severity::Warning),
                (2, 17, Severity::Warning),
                (3, 6, Severity::Warning),
                (4, 6, Severity::Warning),
            ],
            "reading __mode, or a field named mode, is no warning"
        );
    }

    #[test]
    fn every_shipped_script_lints_clean() {
        let scripts = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts"));
        let mut seen = 0;
        for entry in std::fs::read_dir(scripts).expect("scripts/ is there") {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "lua") {
                let source = std::fs::read_to_string(&path).unwrap();
                assert!(full_moon::parse(&source).is_ok(), "{}", path.display());
                assert_eq!(lint(&source), Ok(vec![]), "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen > 20, "only {seen} scripts");
    }

    #[test]
    fn a_source_that_does_not_parse_gives_nothing() {
        assert_eq!(lint("local = move.chsae"), Ok(vec![]));
    }

    /// The deepest trees the bound lets through, of every kind that nests, are linted on the
    /// linter's own stack (a debug build's frames are the largest); one level more is refused
    /// at its token.
    #[test]
    fn the_deepest_scripts_the_bound_allows_are_linted_and_deeper_ones_located() {
        let depth = nesting::MAX_DEPTH;
        let shapes = [
            format!("return move.chsae{}", " + 1".repeat(depth)),
            format!("return move.chsae{}", " .. 1".repeat(depth)),
            format!("return {}move.chsae", "not -".repeat(depth / 2)),
            format!(
                "return {}move.chsae{}",
                "(".repeat(depth),
                ")".repeat(depth)
            ),
            format!(
                "return {}move.chsae{}",
                "{".repeat(depth),
                "}".repeat(depth)
            ),
            format!(
                "return {}move.chsae{}",
                "t[".repeat(depth),
                "]".repeat(depth)
            ),
            format!(
                "return {}move.chsae{}",
                "f(".repeat(depth),
                ")".repeat(depth)
            ),
            format!(
                "return {}move.chsae{}",
                // Each body's parameter list is a level while it is read.
                "function() return ".repeat(depth - 1),
                " end".repeat(depth - 1)
            ),
            format!(
                "{}x = move.chsae{}",
                "if a then ".repeat(depth),
                " end".repeat(depth)
            ),
            format!(
                "return {}move.chsae{}",
                "(1 + ".repeat(depth / 2),
                ")".repeat(depth / 2)
            ),
        ];
        for shape in &shapes {
            let found = lint(shape).unwrap_or_else(|e| panic!("{e:?} in {}", &shape[..60]));
            assert_eq!(found.len(), 1, "{}", &shape[..60]);
            let deeper = format!("do {shape} end");
            let refused = lint(&deeper).expect_err(&deeper[..60]);
            assert_eq!(refused.line, 1);
            let expected = format!("too deeply nested to lint: over {depth} levels of brackets");
            assert!(
                refused.message.starts_with(&expected),
                "{}",
                refused.message
            );
        }
    }

    #[test]
    fn a_source_larger_than_a_script_file_is_not_linted() {
        let source = format!("return 1 --{}", "x".repeat(MAX_SCRIPT_BYTES as usize));
        assert_eq!(
            lint(&source),
            Err(Unlinted {
                line: 1,
                column: 1,
                message: "too large to lint: larger than 4 MiB, the most a file may have".into()
            })
        );
    }
}
