//! `draw.*`: debug shapes for the current tick (`draw.line`, `draw.circle`, `draw.text`,
//! `draw.cone`, `draw.tile`), collected by `draw.rs` for the window's V overlay.
//!
//! Drawing is display-only, so it can never change the trace: it charges no work budget,
//! allocates no Lua memory, and never raises. A bad argument skips the shape and is noted in
//! the frame's problems (the console shows it). Headless, collecting is off and each function
//! is one raw C function that returns at once (its twin in `raw.rs`); the function that reads
//! the arguments runs only while the window collects.

use super::{p, Binding, Charge, Home, Library, Make};
use crate::convert::{to_pos, to_tile, Arg};
use crate::draw::{color_named, get, Color, Shape, COLOR_NAMES, MAX_TEXT};
use crate::errors::located;
use crate::views;
use agentbox_core::nav::sees::View;
use glam::{DVec2, IVec2};
use mlua::{Lua, Value, Variadic};

/// The `draw` library, in the order its table is made.
pub const DRAW: Library = Library {
    home: Home::Draw,
    heading: "draw: debug shapes (window only)",
    doc: "Debug shapes for the current tick, shown in the window (V); headless they do nothing.",
    bindings: &[LINE, CIRCLE, TEXT, CONE, TILE],
};

pub const LINE: Binding = Binding {
    name: "draw.line",
    params: &[
        p("a", "agentbox.PosLike", "One end."),
        p("b", "agentbox.PosLike", "The other end."),
        p("color?", "string", "yellow (default), red, green, blue, cyan, magenta, orange, white or gray."),
    ],
    returns: &[("nil", "Nothing.")],
    doc: "Draws a line for this tick (shown with V in the window, kept for scrubbing; headless it does nothing). Drawing never raises or changes the run: a bad argument skips the shape and is noted in the console. At most 64 shapes per agent and tick.",
    charge: Charge::None,
    make: Make::Function(|lua| draw_fn(lua, Kind::Line)),
};

pub const CIRCLE: Binding = Binding {
    name: "draw.circle",
    params: &[
        p("at", "agentbox.PosLike", "The centre."),
        p("radius", "number", "In tiles."),
        p("color?", "string", "A colour name (default yellow)."),
    ],
    returns: &[("nil", "Nothing.")],
    doc: "Draws a circle outline for this tick (as `draw.line`).",
    charge: Charge::None,
    make: Make::Function(|lua| draw_fn(lua, Kind::Circle)),
};

pub const TEXT: Binding = Binding {
    name: "draw.text",
    params: &[
        p("at", "agentbox.PosLike", "Where the text starts."),
        p("text", "string", "At most 64 bytes are shown."),
        p("color?", "string", "A colour name (default yellow)."),
    ],
    returns: &[("nil", "Nothing.")],
    doc: "Writes a short text on the map for this tick (as `draw.line`).",
    charge: Charge::None,
    make: Make::Function(|lua| draw_fn(lua, Kind::Text)),
};

pub const CONE: Binding = Binding {
    name: "draw.cone",
    params: &[
        p("at", "agentbox.PosLike", "The apex (the looker)."),
        p("facing", "number", "The direction it faces, radians (e.g. `self.heading`)."),
        p("fov", "number", "The full angle in degrees (as `nav.sees`)."),
        p("range", "number", "Its length in tiles."),
        p("color?", "string", "A colour name (default yellow)."),
    ],
    returns: &[("nil", "Nothing.")],
    doc: "Draws a view cone for this tick (as `draw.line`): `draw.cone(self, self.heading, 90, 8)` shows what `nav.sees(self, t, {fov = 90, range = 8})` covers.",
    charge: Charge::None,
    make: Make::Function(|lua| draw_fn(lua, Kind::Cone)),
};

pub const TILE: Binding = Binding {
    name: "draw.tile",
    params: &[
        p("tile", "agentbox.PosLike", "The tile to highlight."),
        p("color?", "string", "A colour name (default yellow)."),
    ],
    returns: &[("nil", "Nothing.")],
    doc: "Highlights a tile for this tick (as `draw.line`).",
    charge: Charge::None,
    make: Make::Function(|lua| draw_fn(lua, Kind::Tile)),
};

/// A `draw.*` function: the raw gate (`raw::draw_gate`), in front of the function that reads
/// its arguments and adds the shape.
fn draw_fn(lua: &Lua, kind: Kind) -> mlua::Result<mlua::Function> {
    let slow = lua.create_function(move |lua, args: Variadic<Value>| {
        // Never raises (display only): a bad call is noted and skipped.
        let (Some(d), Some(agent)) = (get(lua), deciding(lua)) else {
            return Ok(());
        };
        match shape_of(lua, kind, &args) {
            Ok((shape, color)) => d.add(agent, shape, color),
            Err(e) => d.problem(agent, crate::errors::describe(&e)),
        }
        Ok(())
    })?;
    let drawings =
        get(lua).ok_or_else(|| mlua::Error::runtime("agentbox drawings are not installed"))?;
    crate::raw::draw_gate(lua, &drawings, slow)
}

fn deciding(lua: &Lua) -> Option<usize> {
    views::get(lua).ok()?.deciding().map(|(_, i)| i)
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
        _ => return Err(located(lua, format!("{what}: {name} must be a number"))),
    };
    if !n.is_finite() {
        return Err(located(
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
            match crate::bounded::within(s, 16)
                .ok()
                .and_then(|name| color_named(&name))
            {
                Some(color) => Ok(color),
                None => Err(located(
                    lua,
                    format!(
                        "{what}: unknown colour {} (colours: {})",
                        crate::bounded::quote_lua(s),
                        COLOR_NAMES.join(", ")
                    ),
                )),
            }
        }
        Some(other) => Err(located(
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
                crate::lent::of(lua).and_then(|lent| lent.with(|w| w.agents.get(i).map(|a| a.pos)));
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
                // Only the bytes shown are copied.
                Value::String(s) => crate::bounded::prefix(&s.as_bytes(), MAX_TEXT).into_owned(),
                Value::Integer(i) => i.to_string(),
                Value::Number(n) => n.to_string(),
                Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(located(
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
