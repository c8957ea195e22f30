//! Every function scripts call, each declared once: its name as scripts write it, its
//! parameters and returns, its docs, what it charges the work budget and how it is made in a
//! live Lua state, with its implementation right below the declaration. One file per library:
//! `move.*` ([`moves`]), `nav.*` ([`nav`]), `world:*` ([`world`]), `draw.*` ([`draw`]),
//! `action:*` ([`action`]), the steering part of `move.*` ([`steering`]) and the globals the host adds to the sandbox ([`globals`]); the
//! option tables several of them read are parsed in [`options`].
//!
//! The host makes each library's table from these declarations, in declaration order
//! ([`table`]), and `registry.rs` generates the editor stubs, the reference page and
//! `.luacheckrc` from the same declarations, so a function cannot be bound and undocumented,
//! or documented and missing. Where a binding has a raw C-API twin, the twin lives in
//! `raw.rs` and its declaration's `make` puts the twin in front of the mlua function.
//!
//! Every binding reads the world of the tick being decided through [`with_world`] (the loan
//! of `lent.rs`) and never changes it.

pub mod action;
pub mod acts;
pub mod draw;
pub mod globals;
pub mod moves;
pub mod nav;
pub mod options;
pub mod steering;
pub mod world;

use agentbox_core::world::{Action, World};
use mlua::{Function, Lua, Table};

/// Where a binding lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// `move.NAME(...)`: movement primitives; each returns an action.
    Move,
    /// `nav.NAME(...)`: navigation queries.
    Nav,
    /// `world:NAME(...)`: read-only queries on the world of this tick.
    World,
    /// `draw.NAME(...)`: debug shapes for the current tick (the window's V overlay).
    Draw,
    /// `action:NAME(...)`: methods of the actions `move.*` returns.
    Action,
    /// `NAME(...)`: a global the host adds to every script's sandbox.
    Global,
}

impl Home {
    /// The table or value name scripts use (`move`, `world`...; empty for globals).
    pub fn title(self) -> &'static str {
        match self {
            Home::Move => "move",
            Home::Nav => "nav",
            Home::World => "world",
            Home::Action => "action",
            Home::Draw => "draw",
            Home::Global => "",
        }
    }

    /// Whether its bindings are the fields of a global table scripts get (`move`, `nav`,
    /// `draw`).
    pub fn is_table(self) -> bool {
        matches!(self, Home::Move | Home::Nav | Home::Draw)
    }

    /// What a binding's name starts with: `move.`, `world:`...
    #[cfg(test)]
    fn prefix(self) -> &'static str {
        match self {
            Home::Move => "move.",
            Home::Nav => "nav.",
            Home::World => "world:",
            Home::Action => "action:",
            Home::Draw => "draw.",
            Home::Global => "",
        }
    }
}

/// A parameter; a name ending in `?` is optional.
pub struct Param {
    pub name: &'static str,
    /// Its lua-language-server type.
    pub ty: &'static str,
    pub doc: &'static str,
}

/// A parameter, for declarations.
pub const fn p(name: &'static str, ty: &'static str, doc: &'static str) -> Param {
    Param { name, ty, doc }
}

/// What a call spends of the running call's work budget (`budget.rs`) besides what the VM
/// counts of every call.
#[derive(Clone, Copy)]
pub enum Charge {
    /// Nothing more: the call does a bounded, small amount of work.
    None,
    /// The units the implementation charges (with [`charge`]) for the work it does in Rust,
    /// as the reference page states them.
    Units(&'static str),
}

/// How a binding is made in a live Lua state.
#[derive(Clone, Copy)]
pub enum Make {
    /// A function made once per state (a library table's field, a `world:` method, a global).
    Function(fn(&Lua) -> mlua::Result<Function>),
    /// A method of action userdata (`convert::ActionMeta`), answered from its action.
    ActionMethod(fn(&Action) -> &'static str),
}

/// One function scripts call, declared once.
pub struct Binding {
    /// As scripts write it: `nav.path`, `world:nearest`, `action:name`, `plot`.
    pub name: &'static str,
    pub params: &'static [Param],
    /// `(type, doc)` of each return value; none for a function that returns nothing.
    pub returns: &'static [(&'static str, &'static str)],
    pub doc: &'static str,
    pub charge: Charge,
    pub make: Make,
}

impl Binding {
    /// The name without its library (`path` for `nav.path`).
    pub fn short_name(&self) -> &'static str {
        match self.name.rfind(['.', ':']) {
            Some(i) => &self.name[i + 1..],
            None => self.name,
        }
    }

    /// `nav.path(from, to, opts?)`, as the reference page titles it.
    pub fn signature(&self) -> String {
        let params: Vec<&str> = self.params.iter().map(|p| p.name).collect();
        format!("{}({})", self.name, params.join(", "))
    }
}

/// A library: the bindings of one home, in the order the host makes them.
pub struct Library {
    pub home: Home,
    /// The heading of its section of the reference page.
    pub heading: &'static str,
    /// What the stubs say of its table (or class).
    pub doc: &'static str,
    pub bindings: &'static [Binding],
}

/// Every library, in the order the reference page lists them.
pub const LIBRARIES: [&Library; 6] = [
    &moves::MOVE,
    &nav::NAV,
    &world::WORLD,
    &draw::DRAW,
    &action::ACTION,
    &globals::GLOBALS,
];

/// The library of one home.
pub fn library(home: Home) -> &'static Library {
    match home {
        Home::Move => &moves::MOVE,
        Home::Nav => &nav::NAV,
        Home::World => &world::WORLD,
        Home::Draw => &draw::DRAW,
        Home::Action => &action::ACTION,
        Home::Global => &globals::GLOBALS,
    }
}

/// A new table holding every function of `library`, set in declaration order.
pub fn table(lua: &Lua, library: &Library) -> mlua::Result<Table> {
    let table = lua.create_table()?;
    for binding in library.bindings {
        if let Make::Function(make) = binding.make {
            table.raw_set(binding.short_name(), make(lua)?)?;
        }
    }
    Ok(table)
}

/// The metatable of a library's table (`move`, `nav`, `draw`, the `world` methods) whose
/// `__index` turns a read of a name the library does not declare into an error saying so,
/// with the closest real name: `move.chsae is not in the API (did you mean move.chase?)` at
/// the script's line, worded as `agentbox check` words it (`lint.rs`). `__index` only runs on
/// a miss, so reading a real function costs nothing more. Made once per state; locked, so a
/// script cannot change what another script's tables do.
pub(crate) fn strict_metatable(lua: &Lua, home: Home) -> mlua::Result<Table> {
    let key = format!("agentbox.strict.{}", home.title());
    if let Ok(meta) = lua.named_registry_value::<Table>(&key) {
        return Ok(meta);
    }
    let meta = lua.create_table()?;
    let missing = lua.create_function(move |lua, (_, name): (mlua::Value, mlua::Value)| {
        let message = match &name {
            mlua::Value::String(s) => crate::lint::not_in_api(
                home,
                &crate::bounded::prefix(&s.as_bytes(), crate::bounded::QUOTE_BYTES),
            ),
            other => format!(
                "{}[{}] is not in the API",
                home.title(),
                crate::bounded::describe(other)
            ),
        };
        Err::<(), _>(super::errors::located(lua, message))
    })?;
    meta.raw_set("__index", missing)?;
    meta.raw_set("__metatable", false)?;
    lua.set_named_registry_value(&key, &meta)?;
    Ok(meta)
}

/// Runs `f` with the world lent to Lua (`lent.rs`), or fails with a clear message outside a
/// decision (`what` names the binding).
pub(crate) fn with_world<R>(
    lua: &Lua,
    what: &str,
    f: impl FnOnce(&World) -> mlua::Result<R>,
) -> mlua::Result<R> {
    let outside = || {
        super::errors::located(
            lua,
            format!("{what} can only be used inside init or decide"),
        )
    };
    let lent = super::lent::of(lua).ok_or_else(outside)?;
    lent.with(f).ok_or_else(outside)?
}

/// Spends `units` of the running call's work budget for what a binding did in Rust, so a loop
/// of expensive queries is stopped like a loop of Lua (see `budget.rs`).
pub(crate) fn charge(lua: &Lua, units: u64) -> mlua::Result<()> {
    match lua.app_data_ref::<std::rc::Rc<super::budget::Budget>>() {
        Some(budget) => budget.charge(units),
        None => Ok(()),
    }
}

/// A script's string as text to look a name up by (an agent id, a kind), with its reading
/// paid for: 1 unit per 64 bytes, since checking it is UTF-8 and hashing it read every byte
/// (a 16 MB id costs 262,144 units, not nothing). `None` when it is not UTF-8 (it names
/// nothing then).
pub(crate) fn lookup_text(
    lua: &Lua,
    s: &mlua::LuaString,
) -> mlua::Result<Option<mlua::BorrowedStr>> {
    let len = s.as_bytes().len() as u64;
    if len >= 64 {
        charge(lua, len / 64)?;
    }
    Ok(s.to_str().ok())
}

/// Runs `code` as an `expect:` check (the body of a function of `world` returning true, or
/// false and a reason) against `world` in a fresh host: how a binding's tests call it.
#[cfg(test)]
pub(crate) fn check(world: World, code: &str) -> Result<(), String> {
    use agentbox_core::expect::Predicates;
    let mut host = crate::ScriptHost::new(0).map_err(|e| e.to_string())?;
    let handle = host.compile_predicate("test", code)?;
    host.run_predicate(handle, &std::rc::Rc::new(world))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_binding_is_named_for_its_library_once_and_documented() {
        let mut names = BTreeSet::new();
        let homes = [
            Home::Move,
            Home::Nav,
            Home::World,
            Home::Draw,
            Home::Action,
            Home::Global,
        ];
        for home in homes {
            assert_eq!(
                LIBRARIES.iter().filter(|l| l.home == home).count(),
                1,
                "{home:?}"
            );
        }
        for lib in LIBRARIES {
            let prefix = lib.home.prefix();
            let found = library(lib.home);
            assert_eq!(found.home, lib.home);
            assert_eq!(found.heading, lib.heading);
            for b in lib.bindings {
                assert!(names.insert(b.name), "{} is declared twice", b.name);
                assert_eq!(format!("{prefix}{}", b.short_name()), b.name);
                assert!(!b.short_name().is_empty(), "{}", b.name);
                assert!(!b.doc.is_empty(), "{} has no doc", b.name);
                for p in b.params {
                    assert!(
                        !p.doc.is_empty() && !p.ty.is_empty(),
                        "{}: {}",
                        b.name,
                        p.name
                    );
                }
                if let Charge::Units(units) = b.charge {
                    assert!(!units.is_empty(), "{}", b.name);
                }
                let method = matches!(b.make, Make::ActionMethod(_));
                assert_eq!(method, lib.home == Home::Action, "{}", b.name);
            }
        }
    }
}
