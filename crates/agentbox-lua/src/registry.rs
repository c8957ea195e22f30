//! The reference of the Lua API, generated: the lua-language-server stubs
//! (`types/agentbox.lua`), the `.luarc.json`, the reference page (`docs/lua-api.md`) and the
//! luacheck configuration (`.luacheckrc`), written by `agentbox api`. The functions come from
//! their declarations (`bindings/`, one per binding, beside its implementation); this file adds
//! the shapes scripts see (`self`, agent views, positions, option tables) and the sandbox's
//! standard library. Tests compare it with a live Lua state and with the committed files, so
//! none of them can drift.
//!
//! Plain data and text generation: nothing here runs Lua.

use crate::bindings::{library, Binding, Charge, Home, LIBRARIES};

/// Bumped when the Lua API changes in a way scripts can notice.
pub const API_VERSION: u32 = 3;

/// Where the functions are declared, as the generated files say.
const SOURCE: &str = "crates/agentbox-lua/src/bindings/";

/// A field of a class.
pub struct Field {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

/// A table shape scripts see.
pub struct Class {
    pub name: &'static str,
    pub parent: Option<&'static str>,
    pub doc: &'static str,
    pub fields: &'static [Field],
}

/// A named union of types.
pub struct Alias {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

const fn f(name: &'static str, ty: &'static str, doc: &'static str) -> Field {
    Field { name, ty, doc }
}

pub const ALIASES: &[Alias] = &[
    Alias {
        name: "agentbox.PosLike",
        ty: "agentbox.Pos|agentbox.Tile|number[]|agentbox.AgentView",
        doc: "A position: `{x = 1, y = 2}`, `{1, 2}`, or an agent view (its `pos`). Both numbers must be finite: NaN or an infinity is an error naming the argument (`bad argument #2 to 'nav.los': x is not a finite number`). A point off the map is moved to the nearest point at most one tile off it before a `move.*` primitive, a `nav.*` query or `world:terrain`/`world:blocked` uses it (it stays off the map: blocked, no terrain, no path), so no call works in proportion to how far away it is; `world:nearest` and `world:agents` measure from the point as given.",
    },
    Alias {
        name: "agentbox.Target",
        ty: "string|agentbox.AgentView|agentbox.PosLike",
        doc: "Something to move relative to: an agent id or view (followed as it moves), or a fixed position.",
    },
];

pub const CLASSES: &[Class] = &[
    Class {
        name: "agentbox.Pos",
        parent: None,
        doc: "A position in tile units; integers are tile centres, row 0 is the top.",
        fields: &[f("x", "number", "Column."), f("y", "number", "Row.")],
    },
    Class {
        name: "agentbox.Tile",
        parent: None,
        doc: "A tile `[column, row]` as integers.",
        fields: &[f("x", "integer", "Column."), f("y", "integer", "Row.")],
    },
    Class {
        name: "agentbox.AgentView",
        parent: None,
        doc: "What a script sees of an agent during one tick. Views are read-only: every field is read from the tick being decided at the moment you read it (an agent's `self` shares `pos`, `vel` and `tile` with its view), so copy the numbers you want to keep, and do not write to them. Read fields by name: a view holds no field of its own (`pairs` and `rawget` see none), `self` holds `id`, `kind`, `params`, `memory` and, once read, `pos`, `vel` and `tile`; the metatable is locked.",
        fields: &[
            f("id", "string", "Unique id."),
            f("kind", "string", "The scene's `kind` (default: the id)."),
            f("pos", "agentbox.Pos", "Position in tiles."),
            f("vel", "agentbox.Pos", "Velocity of the last tick, tiles per second."),
            f("heading", "number", "Facing in radians; 0 is east, positive turns south."),
            f("speed", "number", "Top speed, tiles per second."),
            f("tile", "agentbox.Tile", "The tile it stands on."),
            f("action", "string", "The name of the action it is executing, e.g. \"chase\"."),
            f("sense", "number|nil", "How far it senses, in tiles (the scene's `sense`), or nil."),
            f("label", "string|nil", "The state name its script last set with `self:label(name)`, or nil (on `self`, `label` is that method)."),
        ],
    },
    Class {
        name: "agentbox.Self",
        parent: Some("agentbox.AgentView"),
        doc: "The agent deciding: its view plus what persists.",
        fields: &[
            f("params", "table<string, any>", "The scene's `params` mapping."),
            f("memory", "table<string, any>", "Kept across ticks and hot reloads; made the first time it is read (so `pairs(self)` lists it only after that)."),
            f("label", "fun(self: agentbox.Self, name: string|nil)", "`self:label(\"search\")` sets a short state name (at most 32 bytes; nil clears it): it stays until changed, is shown over the agent (L) and on its decision timeline in the inspector, and is written to the trace as `label`. Call it in `init` or `decide`."),
            f("inbox", "fun(self: agentbox.Self): agentbox.Letter[]", "`self:inbox()`: the messages delivered to this agent this tick (sent with `world:send` or `world:broadcast` during the last tick), in send order; the same letters in the same order however often it is called (each call hands a new read-only list of new copies, so a change made to a letter is not seen by the next call), and unread ones are not kept. The list is read-only (an agent with no letters gets one shared empty list): writing to it, with `rawset` or `table.insert` too, is an error; copy what you keep into `self.memory`. At most 64 a tick; the rest are dropped with a `messages_dropped` event."),
            f("heard", "fun(self: agentbox.Self): agentbox.Heard[]", "`self:heard()`: the noises this agent heard this tick (made with `world:noise` during the last tick), in the order they were made; the same noises in the same order however often it is called (each call hands a new list of new copies)."),
            f("remove", "fun(self: agentbox.Self)", "`self:remove()`: the agent leaves at the end of this tick (a `remove` event on this tick's trace line; no line after it)."),
            f("touching", "fun(self: agentbox.Self): agentbox.AgentView[]", "`self:touching()`: views of the agents whose bodies overlap this agent's at the start of the tick (centre distance at most the sum of the radii), in agent order."),
        ],
    },
    Class {
        name: "agentbox.Letter",
        parent: None,
        doc: "One message of `self:inbox()`.",
        fields: &[
            f("from", "string", "The sender's id."),
            f("tick", "integer", "The tick it was sent in (`world:tick()` of the sender)."),
            f("msg", "any", "A copy of the message."),
        ],
    },
    Class {
        name: "agentbox.Heard",
        parent: None,
        doc: "One noise of `self:heard()`.",
        fields: &[
            f("from", "string", "The id of the agent that made it."),
            f("pos", "agentbox.Pos", "Where it stood when it made it."),
            f("kind", "string|nil", "The noise's `kind`, if given."),
            f("distance", "number", "The walking distance in tiles (octile steps through free tiles, no corner cutting)."),
        ],
    },
    Class {
        name: "agentbox.BroadcastOptions",
        parent: None,
        doc: "Options of `world:broadcast` (unknown keys are errors).",
        fields: &[
            f("radius", "number", "Every other agent within this many tiles (straight line) receives it."),
            f("kind?", "string", "Only agents of this kind."),
        ],
    },
    Class {
        name: "agentbox.NoiseOptions",
        parent: None,
        doc: "Options of `world:noise` (unknown keys are errors).",
        fields: &[f("kind?", "string", "What hearers are told the noise was (\"footsteps\").")],
    },
    Class {
        name: "agentbox.SpawnSpec",
        parent: None,
        doc: "What `world:spawn` makes (unknown keys are errors).",
        fields: &[
            f("kind", "string", "The kind of a scene agent or `spawn:` group; the first of that kind in file order is the template."),
            f("at", "agentbox.PosLike", "A free tile on the map."),
            f("params?", "table<string, any>", "Merged over the template's `params`."),
        ],
    },
    Class {
        name: "agentbox.SightOptions",
        parent: None,
        doc: "Options of `nav.sees` (every key optional; unknown keys are errors).",
        fields: &[
            f("range?", "number", "The farthest distance seen in tiles (default: the looker's `sense`, else no limit)."),
            f("fov?", "number", "The cone's full angle in degrees, more than 0 and at most 360 (default 360: all round)."),
            f("facing?", "number|agentbox.PosLike", "The direction the cone faces: radians (0 east, as `heading`) or a position to face (default: the looking agent's heading; needed when looking from a position with a cone)."),
        ],
    },
    Class {
        name: "agentbox.PathOptions",
        parent: None,
        doc: "Options of `nav.path` and `move.path_to` (every key optional; unknown keys and values are errors).",
        fields: &[
            f("diagonal?", "\"no_corner_cutting\"|\"one_side\"|\"always\"|\"never\"", "When diagonal steps are allowed (default no_corner_cutting: both side cells free; never: 4-connected)."),
            f("heuristic?", "\"octile\"|\"manhattan\"|\"euclidean\"|\"zero\"", "A* estimate (default octile; manhattan overestimates with diagonals; zero is Dijkstra)."),
            f("costs?", "\"exact\"|\"source\"", "Step costs: exact (1 and sqrt 2, default) or source (10 and 14, as classic A* tutorials), times the terrain cost."),
            f("size?", "integer", "An N x N body whose top-left cell is the tile (1 to 64)."),
            f("ignore_terrain?", "boolean", "Every free cell costs 1."),
            f("max_expanded?", "integer", "Stop after this many expansions and return the path to the closest node reached."),
            f("algorithm?", "\"auto\"|\"astar\"|\"jps\"", "auto (default): jump point search where it is exact, else A*."),
            f("sets?", "boolean", "Return the open and closed sets in the info table."),
        ],
    },
    Class {
        name: "agentbox.PathInfo",
        parent: None,
        doc: "The second result of `nav.path`.",
        fields: &[
            f("reason?", "\"blocked\"|\"unreachable\"|\"off_map\"", "Why there is no path (only when the path is nil): an end is blocked for the body, no way joins the ends, or an end is outside the map."),
            f("cost", "number", "The path's cost."),
            f("expanded", "integer", "Nodes expanded."),
            f("complete", "boolean", "False when max_expanded stopped the search early."),
            f("jps", "boolean", "Whether jump point search was used."),
            f("open?", "agentbox.Tile[]", "The open set (with sets = true)."),
            f("closed?", "agentbox.Tile[]", "The closed set (with sets = true)."),
        ],
    },
    Class {
        name: "agentbox.FlowField",
        parent: None,
        doc: "What `nav.flow` returns: a read-only handle on a shared Dijkstra field towards one goal tile (call its functions with `:`).",
        fields: &[
            f("next", "fun(self: agentbox.FlowField, pos: agentbox.PosLike): agentbox.Tile|nil", "The neighbour tile to step to from `pos`'s tile towards the goal; nil on the goal, on a blocked tile, off the map or where the goal cannot be reached."),
            f("cost", "fun(self: agentbox.FlowField, pos: agentbox.PosLike): number|nil", "The cost of the cheapest walk from `pos`'s tile to the goal (0 on the goal); nil where there is none."),
            f("goal", "fun(self: agentbox.FlowField): agentbox.Tile", "The goal tile."),
        ],
    },
    Class {
        name: "agentbox.AgentsFilter",
        parent: None,
        doc: "Filter of `world:agents`.",
        fields: &[
            f("kind?", "string", "Only agents of this kind."),
            f("within?", "number", "Only agents within this many tiles (uses the spatial index)."),
            f("around?", "agentbox.PosLike", "Centre for `within` (default: the deciding agent, which is left out; an agent view given here is left out too)."),
        ],
    },
    Class {
        name: "agentbox.Behaviour",
        parent: None,
        doc: "The table a behaviour script returns.",
        fields: &[
            f("init?", "fun(self: agentbox.Self)", "Once per agent, before its first decision."),
            f("decide", "fun(self: agentbox.Self, world: agentbox.World): agentbox.Action", "Every tick: return an action from `move.*`."),
            f("on_reload?", "fun(self: agentbox.Self)", "After a hot reload of the script, memory intact."),
        ],
    },
];

/// Lua annotation lines for a binding's doc, budget charge, params and returns.
fn annotate(out: &mut String, binding: &Binding) {
    for line in binding.doc.lines() {
        out.push_str(&format!("---{line}\n"));
    }
    if let Charge::Units(units) = binding.charge {
        out.push_str(&format!("---Budget: {units}\n"));
    }
    for param in binding.params {
        out.push_str(&format!(
            "---@param {} {} {}\n",
            param.name, param.ty, param.doc
        ));
    }
    for (ty, doc) in binding.returns {
        out.push_str(&format!("---@return {ty} # {doc}\n"));
    }
}

fn plain_params(binding: &Binding) -> String {
    binding
        .params
        .iter()
        .map(|p| p.name.trim_end_matches('?'))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The stubs of a library's functions, each written as `function {owner}{name}(...) end`.
fn stub_functions(out: &mut String, home: Home, owner: &str) {
    for binding in library(home).bindings {
        annotate(out, binding);
        out.push_str(&format!(
            "function {owner}{}({}) end\n\n",
            binding.short_name(),
            plain_params(binding)
        ));
    }
}

/// The class the stubs give a library table (`agentbox.MoveLib` for `move`), or `world`
/// (`agentbox.World`): declared as a class, a table holds only the functions declared on it,
/// so a language server flags `move.chsae` even in a script with no annotations.
pub fn library_class(home: Home) -> &'static str {
    match home {
        Home::Move => "agentbox.MoveLib",
        Home::Nav => "agentbox.NavLib",
        Home::Draw => "agentbox.DrawLib",
        Home::World => "agentbox.World",
        Home::Action => "agentbox.Action",
        Home::Global => "",
    }
}

/// The lua-language-server stubs (`types/agentbox.lua`).
pub fn stubs() -> String {
    let mut out = String::new();
    out.push_str("---@meta agentbox\n");
    out.push_str(&format!(
        "-- Generated by `agentbox api --stubs` from {SOURCE}: do not edit.\n"
    ));
    out.push_str(&format!("-- agentbox Lua API version {API_VERSION}.\n\n"));
    for alias in ALIASES {
        out.push_str(&format!(
            "---{}\n---@alias {} {}\n\n",
            alias.doc, alias.name, alias.ty
        ));
    }
    for class in CLASSES {
        out.push_str(&format!("---{}\n", class.doc));
        match class.parent {
            Some(parent) => out.push_str(&format!("---@class {}: {parent}\n", class.name)),
            None => out.push_str(&format!("---@class {}\n", class.name)),
        }
        for field in class.fields {
            out.push_str(&format!(
                "---@field {} {} {}\n",
                field.name, field.ty, field.doc
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "---{}\n---@class agentbox.Action\nlocal Action = {{}}\n\n",
        library(Home::Action).doc
    ));
    stub_functions(&mut out, Home::Action, "Action:");
    stub_functions(&mut out, Home::Global, "");
    out.push_str(&format!(
        "---{}\n---@class agentbox.World\nlocal World = {{}}\n\n",
        library(Home::World).doc
    ));
    stub_functions(&mut out, Home::World, "World:");
    for table in LIBRARIES.iter().filter(|l| l.home.is_table()) {
        let name = table.home.title();
        out.push_str(&format!(
            "---{}\n---@class {}\n{name} = {{}}\n\n",
            table.doc,
            library_class(table.home)
        ));
        stub_functions(&mut out, table.home, &format!("{name}."));
    }
    out
}

/// The `.luarc.json` that points lua-language-server at the stubs and the sandbox.
pub fn luarc() -> String {
    let value = serde_json::json!({
        "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
        "runtime.version": "Lua 5.4",
        "runtime.builtin": { "io": "disable", "debug": "disable", "package": "disable" },
        "workspace.library": ["types"],
        "workspace.checkThirdParty": false,
        "diagnostics.globals": ["move", "nav", "draw"]
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The standard library a script's global table holds (`sandbox::new_env` builds it), besides
/// `move`, `nav`, `draw` and the host's globals (`bindings/globals.rs`): each global's name
/// and, for a library table, its fields (math keeps the Lua 5.3 compatibility functions the
/// vendored Lua is built with). A test compares this with a live sandbox, so the
/// `.luacheckrc` made from it cannot drift.
pub const SANDBOX_STD: &[(&str, &[&str])] = &[
    ("_G", &[]),
    ("_VERSION", &[]),
    ("assert", &[]),
    (
        "coroutine",
        &[
            "close",
            "create",
            "isyieldable",
            "resume",
            "running",
            "status",
            "wrap",
            "yield",
        ],
    ),
    ("error", &[]),
    ("getmetatable", &[]),
    ("ipairs", &[]),
    ("load", &[]),
    (
        "math",
        &[
            "abs",
            "acos",
            "asin",
            "atan",
            "atan2",
            "ceil",
            "cos",
            "cosh",
            "deg",
            "exp",
            "floor",
            "fmod",
            "frexp",
            "huge",
            "ldexp",
            "log",
            "log10",
            "max",
            "maxinteger",
            "min",
            "mininteger",
            "modf",
            "pi",
            "pow",
            "rad",
            "random",
            "randomseed",
            "sin",
            "sinh",
            "sqrt",
            "tan",
            "tanh",
            "tointeger",
            "type",
            "ult",
        ],
    ),
    ("next", &[]),
    ("os", &["clock", "time"]),
    ("pairs", &[]),
    ("pcall", &[]),
    ("print", &[]),
    ("rawequal", &[]),
    ("rawget", &[]),
    ("rawlen", &[]),
    ("rawset", &[]),
    ("require", &[]),
    ("select", &[]),
    ("setmetatable", &[]),
    (
        "string",
        &[
            "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "pack",
            "packsize", "rep", "reverse", "sub", "unpack", "upper",
        ],
    ),
    (
        "table",
        &[
            "concat", "insert", "move", "pack", "remove", "sort", "unpack",
        ],
    ),
    ("tonumber", &[]),
    ("tostring", &[]),
    ("type", &[]),
    (
        "utf8",
        &["char", "charpattern", "codepoint", "codes", "len", "offset"],
    ),
    ("xpcall", &[]),
];

/// A Lua string literal.
fn lua_quote(text: &str) -> String {
    format!("{text:?}")
}

/// The luacheck configuration (`.luacheckrc`): the sandbox's standard library and the host's
/// globals as the only standard globals, and `move`, `nav` and `draw` as read-only tables
/// holding exactly the declared functions, so `move.chsae(...)` is flagged; unused `self` and
/// `world` arguments (the callbacks' signature) are not warned about.
pub fn luacheckrc() -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "-- Generated by `agentbox api --luacheckrc` from {SOURCE}: do not edit.\n"
    ));
    out.push_str(&format!(
        "-- luacheck (Debian: lua-check) for agentbox scripts, Lua API version {API_VERSION}.\n"
    ));
    out.push_str(
        "-- The globals are the sandbox's: no io, debug, package, dofile or loadfile; os has\n-- only clock and time. `world` and actions are values handed to `decide`, not globals.\n",
    );
    out.push_str("stds.agentbox = {\n  read_globals = {\n");
    let field_list = |fields: &mut dyn Iterator<Item = &str>| {
        fields.map(lua_quote).collect::<Vec<_>>().join(", ")
    };
    let mut globals: Vec<(&str, &[&str])> = SANDBOX_STD.to_vec();
    globals.extend(
        library(Home::Global)
            .bindings
            .iter()
            .map(|b| (b.name, &[] as &[&str])),
    );
    globals.sort();
    for (name, fields) in globals {
        if fields.is_empty() {
            out.push_str(&format!("    {name} = {{}},\n"));
        } else {
            out.push_str(&format!(
                "    {name} = {{ fields = {{ {} }} }},\n",
                field_list(&mut fields.iter().copied())
            ));
        }
    }
    for table in LIBRARIES.iter().filter(|l| l.home.is_table()) {
        out.push_str(&format!(
            "    {} = {{ fields = {{ {} }} }},\n",
            table.home.title(),
            field_list(&mut table.bindings.iter().map(|b| b.short_name()))
        ));
    }
    out.push_str("  },\n}\nstd = \"agentbox\"\n");
    out.push_str("-- The callbacks are called as decide(self, world), init(self), on_reload(self),\n-- whether a script uses their arguments or not.\n");
    out.push_str("ignore = { \"212/self\", \"212/world\" }\n");
    out
}

fn md_escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A binding's entry on the reference page: its signature, doc, parameters, returns and
/// budget charge.
fn md_entry(out: &mut String, binding: &Binding) {
    out.push_str(&format!(
        "### `{}`\n\n{}\n\n",
        binding.signature(),
        binding.doc
    ));
    if !binding.params.is_empty() {
        out.push_str("| parameter | type | |\n|---|---|---|\n");
        for p in binding.params {
            out.push_str(&format!(
                "| `{}` | `{}` | {} |\n",
                p.name,
                md_escape(p.ty),
                md_escape(p.doc)
            ));
        }
        out.push('\n');
    }
    let returns: Vec<String> = binding
        .returns
        .iter()
        .map(|(ty, doc)| format!("`{}` {}", md_escape(ty), doc))
        .collect();
    if returns.is_empty() {
        out.push_str("Returns: nothing.\n\n");
    } else {
        out.push_str(&format!("Returns: {}\n\n", returns.join("; ")));
    }
    if let Charge::Units(units) = binding.charge {
        out.push_str(&format!("Budget: {units}\n\n"));
    }
}

/// The reference page (`docs/lua-api.md`).
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str("# agentbox Lua API reference\n\n");
    out.push_str(&format!("api_version: {API_VERSION}\n\n"));
    out.push_str(&format!("Generated by `agentbox api --markdown` from the declarations in `{SOURCE}`: do not edit. Editor stubs for lua-language-server: `types/agentbox.lua` (with `.luarc.json`). Lint: `luacheck scripts/` (Debian: `apt-get install lua-check`) reads `.luacheckrc`, which knows the sandbox's globals and every `move.*` and `nav.*` function.\n\n"));
    out.push_str("A behaviour script returns a table with `decide(self, world)` (and optionally `init(self)` and `on_reload(self)`). `decide` returns an action from `move.*`.\n\n");
    out.push_str("A call whose entry says `Budget:` spends that many units of the calling function's work budget (2,000,000 by default) for the work it does in Rust, besides what the VM counts of every call, so a loop of expensive queries is stopped like a loop of Lua.\n\n");
    out.push_str(&format!("## print\n\n{}\n\n", crate::sandbox::PRINT_DOC));
    out.push_str(&format!("## self:label\n\n{}\n\n", crate::label::DOC));
    for library in LIBRARIES {
        out.push_str(&format!("## {}\n\n", library.heading));
        for binding in library.bindings {
            md_entry(&mut out, binding);
        }
    }
    out.push_str("## Types\n\n");
    for alias in ALIASES {
        out.push_str(&format!(
            "### `{}`\n\n{} `{}`\n\n",
            alias.name, alias.doc, alias.ty
        ));
    }
    for class in CLASSES {
        out.push_str(&format!("### `{}`\n\n{}", class.name, class.doc));
        if let Some(parent) = class.parent {
            out.push_str(&format!(" Has every field of `{parent}`, and:"));
        }
        out.push_str("\n\n| field | type | |\n|---|---|---|\n");
        for field in class.fields {
            out.push_str(&format!(
                "| `{}` | `{}` | {} |\n",
                field.name,
                md_escape(field.ty),
                md_escape(field.doc)
            ));
        }
        out.push('\n');
    }
    out
}

/// Where agentbox's checkout keeps the reference page ([`markdown`]).
pub const REFERENCE_PAGE: &str = "docs/lua-api.md";

/// The generated files and how to make each: `(path from the project root, text)`.
pub fn generated() -> Vec<(&'static str, String)> {
    vec![
        ("types/agentbox.lua", stubs()),
        (REFERENCE_PAGE, markdown()),
        (".luarc.json", luarc()),
        (".luacheckrc", luacheckrc()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScriptHost;
    use mlua::{Table, Value};
    use std::collections::BTreeSet;

    fn keys(table: &Table) -> BTreeSet<String> {
        table
            .pairs::<Value, Value>()
            .filter_map(Result::ok)
            .filter(|(_, v)| matches!(v, Value::Function(_)))
            .filter_map(|(k, _)| k.as_string().map(|s| s.to_string_lossy()))
            .collect()
    }

    fn registered(home: Home) -> BTreeSet<String> {
        library(home)
            .bindings
            .iter()
            .map(|b| b.short_name().to_string())
            .collect()
    }

    fn methods(meta: mlua::Result<Table>) -> BTreeSet<String> {
        let index: Table = meta
            .and_then(|m| m.get("__index"))
            .expect("methods live in an __index table");
        keys(&index)
    }

    #[test]
    fn every_bound_function_is_registered_and_every_entry_is_bound() {
        let host = ScriptHost::new(0).expect("a host starts");
        let move_t: Table = host.lua.named_registry_value("agentbox.move").unwrap();
        let nav_t: Table = host.lua.named_registry_value("agentbox.nav").unwrap();
        let draw_t: Table = host.lua.named_registry_value("agentbox.draw").unwrap();
        assert_eq!(
            keys(&draw_t),
            registered(Home::Draw),
            "draw.*: bound vs declared"
        );
        assert_eq!(
            keys(&move_t),
            registered(Home::Move),
            "move.*: bound vs declared (crates/agentbox-lua/src/bindings/)"
        );
        assert_eq!(
            keys(&nav_t),
            registered(Home::Nav),
            "nav.*: bound vs declared (crates/agentbox-lua/src/bindings/)"
        );
        assert_eq!(
            methods(
                host.world_table
                    .metatable()
                    .ok_or_else(|| mlua::Error::runtime("world has no metatable"))
            ),
            registered(Home::World),
            "world: methods bound vs declared (crates/agentbox-lua/src/bindings/)"
        );
        super::super::convert::make_action(&host.lua, agentbox_core::world::Action::Stop)
            .expect("an action is made");
        let index: Table = super::super::raw::get(&host.lua)
            .and_then(|c| c.actions.table().raw_get("__index"))
            .expect("action methods live in an __index table");
        assert_eq!(
            keys(&index),
            registered(Home::Action),
            "action methods bound vs declared"
        );
    }

    /// Every global of a live sandbox and every field of its library tables, as
    /// `SANDBOX_STD` lists them (plus `move`, `nav` and `draw`, checked above, and the
    /// declared globals, checked here).
    #[test]
    fn the_sandbox_std_is_what_scripts_get() {
        let host = ScriptHost::new(0).expect("a host starts");
        let ctx =
            super::super::sandbox::new_context(&host.lua, std::path::Path::new("."), 0).unwrap();
        let env = super::super::sandbox::new_env(&host.lua, &ctx).unwrap();
        let mut globals = registered(Home::Global);
        let mut live: Vec<(String, Vec<String>)> = Vec::new();
        for pair in env.pairs::<String, Value>() {
            let (name, value) = pair.unwrap();
            if name == "move" || name == "nav" || name == "draw" {
                continue;
            }
            if globals.remove(name.as_str()) {
                assert!(matches!(value, Value::Function(_)), "{name}");
                continue;
            }
            let mut fields = Vec::new();
            if let (Value::Table(t), false) = (&value, name == "_G") {
                for field in t.pairs::<String, Value>() {
                    fields.push(field.unwrap().0);
                }
            }
            fields.sort();
            live.push((name, fields));
        }
        live.sort();
        let listed: Vec<(String, Vec<String>)> = SANDBOX_STD
            .iter()
            .map(|(n, f)| (n.to_string(), f.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(
            listed, live,
            "SANDBOX_STD vs a live sandbox (crates/agentbox-lua/src/sandbox.rs)"
        );
        assert!(
            globals.is_empty(),
            "declared but not in a sandbox: {globals:?}"
        );
    }

    #[test]
    fn the_committed_stubs_and_page_are_up_to_date() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        for (path, text) in generated() {
            let committed = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            assert!(
                committed == text,
                "{path} is out of date with the declarations in {SOURCE}; regenerate with\n    cargo run --release -- api --write"
            );
        }
    }

    #[test]
    fn the_stubs_are_valid_lua_that_defines_every_function() {
        let lua = mlua::Lua::new();
        lua.load(stubs())
            .exec()
            .expect("the stubs parse and run as Lua");
        for home in [Home::Move, Home::Nav, Home::Draw] {
            let t: Table = lua.globals().get(home.title()).unwrap();
            assert_eq!(keys(&t), registered(home));
        }
        let page = markdown();
        assert!(page.contains(&format!("api_version: {API_VERSION}")));
        for library in LIBRARIES {
            for binding in library.bindings {
                assert!(
                    page.contains(&binding.signature()),
                    "{}",
                    binding.signature()
                );
            }
        }
    }
}
