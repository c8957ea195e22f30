//! Debug drawing from Lua: `draw.line`, `draw.circle`, `draw.text`, `draw.cone` and
//! `draw.tile` describe shapes for the current tick, and the `nav.los`/`nav.sees` calls a
//! script made are noted beside them, for the window's overlays (V and 2). The window turns
//! collecting on ([`Drawings::enabled`]) and takes each tick's [`Frame`]; headless it is off
//! and every `draw.*` call is one raw C function that returns at once.
//!
//! Drawing is display-only, so it can never change the trace: it charges no work budget,
//! allocates no Lua memory, and never raises. A bad argument skips the shape and is noted in
//! [`Frame::problems`] (the console shows it). At most [`MAX_SHAPES`] shapes and
//! [`MAX_QUERIES`] noted queries per agent and tick, text cut at [`MAX_TEXT`] bytes.
//!
//! It never changes the world and never draws (`render/` does).

use super::convert::{to_pos, to_tile, Arg};
use super::views::{self, raw_closure};
use agentbox_core::nav::sees::View;
use glam::{DVec2, IVec2};
use mlua::{ffi, Lua, Table, Value, Variadic};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::rc::Rc;

/// The most shapes one agent may draw in one tick.
pub const MAX_SHAPES: usize = 64;
/// The most `nav.los`/`nav.sees` calls noted per agent and tick.
pub const MAX_QUERIES: usize = 16;
/// The most bytes of one `draw.text`.
pub const MAX_TEXT: usize = 64;

/// The colours a shape may have (`"yellow"` by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    Yellow,
    Red,
    Green,
    Blue,
    Cyan,
    Magenta,
    Orange,
    White,
    Gray,
}

/// The colour names scripts use, in [`Color`] order.
pub const COLOR_NAMES: [&str; 9] = [
    "yellow", "red", "green", "blue", "cyan", "magenta", "orange", "white", "gray",
];
const COLORS: [Color; 9] = [
    Color::Yellow,
    Color::Red,
    Color::Green,
    Color::Blue,
    Color::Cyan,
    Color::Magenta,
    Color::Orange,
    Color::White,
    Color::Gray,
];

/// One shape, in tile units (positions as everywhere: integers are tile centres).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Line {
        a: DVec2,
        b: DVec2,
    },
    Circle {
        at: DVec2,
        radius: f64,
    },
    Text {
        at: DVec2,
        text: String,
    },
    /// A view cone: `fov` full angle in degrees, `facing` in radians, `range` in tiles.
    Cone {
        at: DVec2,
        view: View,
    },
    Tile {
        tile: IVec2,
    },
}

/// A shape an agent drew.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    /// The index of the agent that drew it, in the world of that tick.
    pub agent: usize,
    pub shape: Shape,
    pub color: Color,
}

/// A sight query a script made: from where, to where, what it answered, and the cone
/// (`nav.sees`; `None` for `nav.los`).
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub agent: usize,
    pub from: DVec2,
    pub to: DVec2,
    pub seen: bool,
    pub view: Option<View>,
}

/// What the scripts drew and asked in one tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub shapes: Vec<Drawn>,
    pub queries: Vec<Query>,
    /// `(agent index, message)`: draw calls whose arguments were wrong (the shape skipped).
    pub problems: Vec<(usize, String)>,
}

/// The collector, kept in the Lua state's app data as `Rc<Drawings>`.
#[derive(Default)]
pub struct Drawings {
    /// Collect shapes and queries (the window); off headless.
    pub enabled: Cell<bool>,
    frame: RefCell<Frame>,
    /// Shapes and queries per agent index this tick.
    counts: RefCell<BTreeMap<usize, (usize, usize)>>,
}

impl Drawings {
    /// The tick's shapes and queries, taken (the next tick starts empty).
    pub fn take(&self) -> Frame {
        self.counts.borrow_mut().clear();
        std::mem::take(&mut *self.frame.borrow_mut())
    }

    /// Notes a sight query of the deciding agent, if collecting and under its cap.
    pub fn note_query(&self, lua: &Lua, from: DVec2, to: DVec2, seen: bool, view: Option<View>) {
        if !self.enabled.get() {
            return;
        }
        let Some(agent) = deciding(lua) else { return };
        let mut counts = self.counts.borrow_mut();
        let n = counts.entry(agent).or_default();
        if n.1 >= MAX_QUERIES {
            return;
        }
        n.1 += 1;
        self.frame.borrow_mut().queries.push(Query {
            agent,
            from,
            to,
            seen,
            view,
        });
    }

    fn add(&self, agent: usize, shape: Shape, color: Color) {
        let mut counts = self.counts.borrow_mut();
        let n = counts.entry(agent).or_default();
        if n.0 >= MAX_SHAPES {
            return;
        }
        n.0 += 1;
        self.frame.borrow_mut().shapes.push(Drawn {
            agent,
            shape,
            color,
        });
    }

    fn problem(&self, agent: usize, message: String) {
        let mut frame = self.frame.borrow_mut();
        if frame.problems.len() < 64
            && !frame
                .problems
                .iter()
                .any(|(a, m)| *a == agent && *m == message)
        {
            frame.problems.push((agent, message));
        }
    }
}

/// The collector of this state.
pub fn get(lua: &Lua) -> Option<Rc<Drawings>> {
    lua.app_data_ref::<Rc<Drawings>>().map(|d| Rc::clone(&d))
}

fn deciding(lua: &Lua) -> Option<usize> {
    views::get(lua).ok()?.deciding().map(|(_, i)| i)
}

/// The `draw` table (registered as `agentbox.draw`, copied into each script's sandbox).
pub fn install(lua: &Lua) -> mlua::Result<Table> {
    let drawings = Rc::new(Drawings::default());
    lua.set_app_data(Rc::clone(&drawings));
    let t = lua.create_table()?;
    for (name, kind) in [
        ("line", Kind::Line),
        ("circle", Kind::Circle),
        ("text", Kind::Text),
        ("cone", Kind::Cone),
        ("tile", Kind::Tile),
    ] {
        let slow = lua.create_function(move |lua, args: Variadic<Value>| {
            // Never raises (display only): a bad call is noted and skipped.
            let (Some(d), Some(agent)) = (get(lua), deciding(lua)) else {
                return Ok(());
            };
            match shape_of(lua, kind, &args) {
                Ok((shape, color)) => d.add(agent, shape, color),
                Err(e) => d.problem(agent, super::errors::describe(&e)),
            }
            Ok(())
        })?;
        let ptr = Rc::as_ptr(&drawings) as *mut c_void;
        let f = raw_closure(
            lua,
            gate,
            vec![
                Value::LightUserData(mlua::LightUserData(ptr)),
                Value::Function(slow),
            ],
        )?;
        t.raw_set(name, f)?;
    }
    super::sandbox::protect(lua, &t, "draw")?;
    Ok(t)
}

/// Each `draw.*` function: returns at once unless collecting, else hands its arguments to
/// the function that reads them (upvalue 2). Upvalue 1 is the collector, kept alive by the
/// state's app data for the state's life.
unsafe extern "C-unwind" fn gate(state: *mut ffi::lua_State) -> c_int {
    // Upvalue 1 is the `Drawings` pointer `install` gave (alive while the state is), upvalue
    // 2 a function; reading a `Cell<bool>` cannot panic; nothing needing a drop lives across
    // `lua_call`. SAFETY: Lua calls this with a live state of this thread and those upvalues.
    unsafe {
        let d = &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)) as *const Drawings);
        if !d.enabled.get() {
            return 0;
        }
        let n = ffi::lua_gettop(state);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
        ffi::lua_rotate(state, 1, 1);
        ffi::lua_call(state, n, 0);
        0
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Line,
    Circle,
    Text,
    Cone,
    Tile,
}

fn number(lua: &Lua, v: Option<&Value>, what: &str, name: &str) -> mlua::Result<f64> {
    let n = match v {
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Number(n)) => *n,
        _ => {
            return Err(super::errors::located(
                lua,
                format!("{what}: {name} must be a number"),
            ))
        }
    };
    if !n.is_finite() {
        return Err(super::errors::located(
            lua,
            format!("{what}: {name} is not a finite number"),
        ));
    }
    Ok(n)
}

fn color_of(lua: &Lua, v: Option<&Value>, what: &str) -> mlua::Result<Color> {
    match v {
        None | Some(Value::Nil) => Ok(Color::Yellow),
        Some(Value::String(s)) => {
            let name = s.to_string_lossy();
            match COLOR_NAMES.iter().position(|c| *c == name) {
                Some(i) => Ok(COLORS[i]),
                None => Err(super::errors::located(
                    lua,
                    format!(
                        "{what}: unknown colour {name:?} (colours: {})",
                        COLOR_NAMES.join(", ")
                    ),
                )),
            }
        }
        Some(other) => Err(super::errors::located(
            lua,
            format!(
                "{what}: the colour must be a name, got {}",
                other.type_name()
            ),
        )),
    }
}

/// A position argument, read without touching Lua's heap: an agent view or the deciding
/// `self` is read from the world (reading `self.pos` through Lua would make its proxy the
/// first time, which only the window would do, so Lua's object numbers and `pairs(self)`
/// would differ from a headless run); anything else as every binding reads it.
fn pos_of(lua: &Lua, value: &Value, arg: Arg) -> mlua::Result<DVec2> {
    if let Value::Table(t) = value {
        let views = views::get(lua)?;
        let index = match views.index_of(t.to_pointer()) {
            Some(i) => Some(i),
            None if views.is_deciding_self(value) => views.deciding().map(|(_, i)| i),
            None => None,
        };
        if let Some(i) = index {
            let pos =
                super::lent::of(lua).and_then(|lent| lent.with(|w| w.agents.get(i).map(|a| a.pos)));
            if let Some(pos) = pos.flatten() {
                return Ok(pos);
            }
        }
    }
    to_pos(lua, value, arg)
}

/// A tile argument, as [`pos_of`] for agents.
fn tile_of(lua: &Lua, value: &Value, arg: Arg) -> mlua::Result<IVec2> {
    if let Value::Table(t) = value {
        let views = views::get(lua)?;
        if views.index_of(t.to_pointer()).is_some() || views.is_deciding_self(value) {
            return Ok(agentbox_core::world::tile_of(pos_of(lua, value, arg)?));
        }
    }
    to_tile(lua, value, arg)
}

fn shape_of(lua: &Lua, kind: Kind, args: &[Value]) -> mlua::Result<(Shape, Color)> {
    let nil = Value::Nil;
    let arg = |i: usize| args.get(i).unwrap_or(&nil);
    Ok(match kind {
        Kind::Line => {
            let what = "draw.line";
            let a = pos_of(lua, arg(0), Arg::new(what, 1))?;
            let b = pos_of(lua, arg(1), Arg::new(what, 2))?;
            (Shape::Line { a, b }, color_of(lua, args.get(2), what)?)
        }
        Kind::Circle => {
            let what = "draw.circle";
            let at = pos_of(lua, arg(0), Arg::new(what, 1))?;
            let radius = number(lua, args.get(1), what, "radius")?.abs().min(1e4);
            (
                Shape::Circle { at, radius },
                color_of(lua, args.get(2), what)?,
            )
        }
        Kind::Text => {
            let what = "draw.text";
            let at = pos_of(lua, arg(0), Arg::new(what, 1))?;
            let text = match arg(1) {
                Value::String(s) => s.to_string_lossy(),
                Value::Integer(i) => i.to_string(),
                Value::Number(n) => n.to_string(),
                Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(super::errors::located(
                        lua,
                        format!(
                            "{what}: the text must be a string, got {}",
                            other.type_name()
                        ),
                    ))
                }
            };
            let mut end = text.len().min(MAX_TEXT);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let text = text[..end].to_string();
            (Shape::Text { at, text }, color_of(lua, args.get(2), what)?)
        }
        Kind::Cone => {
            // draw.cone(at, facing, fov, range, colour)
            let what = "draw.cone";
            let at = pos_of(lua, arg(0), Arg::new(what, 1))?;
            let facing = number(lua, args.get(1), what, "facing (radians)")?;
            let fov = number(lua, args.get(2), what, "fov (degrees)")?.clamp(0.0, 360.0);
            let range = number(lua, args.get(3), what, "range (tiles)")?
                .abs()
                .min(1e4);
            let view = View {
                range: Some(range),
                fov,
                facing,
            };
            (Shape::Cone { at, view }, color_of(lua, args.get(4), what)?)
        }
        Kind::Tile => {
            let what = "draw.tile";
            let tile = tile_of(lua, arg(0), Arg::new(what, 1))?;
            (Shape::Tile { tile }, color_of(lua, args.get(1), what)?)
        }
    })
}
