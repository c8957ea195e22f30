//! What scripts draw, collected: the shapes of `draw.*` (bound in `bindings/draw.rs`) for the
//! current tick, and the `nav.los`/`nav.sees` calls a script made beside them, for the
//! window's overlays (V and 2). The window turns collecting on ([`Drawings::enabled`]) and
//! takes each tick's [`Frame`]; headless it is off and every `draw.*` call is one raw C
//! function that returns at once.
//!
//! Drawing is display-only, so it can never change the trace: it charges no work budget,
//! allocates no Lua memory, and never raises. A bad argument skips the shape and is noted in
//! [`Frame::problems`] (the console shows it). At most [`MAX_SHAPES`] shapes and
//! [`MAX_QUERIES`] noted queries per agent and tick, text cut at [`MAX_TEXT`] bytes (only that
//! much is copied), a problem's message at [`MAX_PROBLEM`]. These fixed bounds, not the
//! agents' memory account (`host_memory.rs`), bound what drawing keeps: a refusal would be an
//! error, and drawing must not change the run whether the window collects or not.
//!
//! It never changes the world and never draws (`render/` does).

use super::views;
use agentbox_core::nav::sees::View;
use glam::{DVec2, IVec2};
use mlua::Lua;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The most shapes one agent may draw in one tick.
pub const MAX_SHAPES: usize = 64;
/// The most `nav.los`/`nav.sees` calls noted per agent and tick.
pub const MAX_QUERIES: usize = 16;
/// The most bytes of one `draw.text`.
pub const MAX_TEXT: usize = 64;
/// The most bytes of one noted problem (its message, cut).
pub const MAX_PROBLEM: usize = 256;

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

    pub(crate) fn add(&self, agent: usize, shape: Shape, color: Color) {
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

    pub(crate) fn problem(&self, agent: usize, message: String) {
        let message = crate::bounded::prefix(message.as_bytes(), MAX_PROBLEM).into_owned();
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

/// Installs the collector of a state (before the `draw` table is made).
pub fn install(lua: &Lua) {
    lua.set_app_data(Rc::new(Drawings::default()));
}

/// The colour named `name`, if it is one of [`COLOR_NAMES`].
pub fn color_named(name: &str) -> Option<Color> {
    COLOR_NAMES
        .iter()
        .position(|c| *c == name)
        .map(|i| COLORS[i])
}
