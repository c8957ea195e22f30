//! Questions the designer asks of the run, each a Lua expression of the read-only `world`
//! (as `expect:` checks and `headless --stop-when` get it), typed into one prompt line: watches
//! (shown at the tick shown, live or past, in a panel at the top left; a click on one removes
//! it), "the tick where" it holds, found back or forth through the kept history without
//! touching the run, a breakpoint (play pauses after the first live tick where it holds), and
//! the console prompt (the value at the tick shown, printed into the console); the same line
//! also takes a memory value's edit for `memory_edit.rs`.
//!
//! Everything comes from the window's input (the prompt's text too, recorded as `text`
//! events), so `--input` replays it. Questions are asked in a Lua state of their own
//! (`ask::Asker`): asking never changes the run. At a past tick, `world:memory(id)` is that
//! tick's memory, read back from the JSON the frames keep. A search runs a chunk of ticks a
//! frame (`asking.rs`) under a progress bar drawn here; Esc cancels it.

use agentbox_core::world::World;
use agentbox_session::ask::{Asker, Direction, Expression, Search};
use egui_macroquad::egui;
use macroquad::prelude::*;
use std::rc::Rc;

/// What the prompt line is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Watch,
    Find,
    Break,
    Console,
    /// A value of the inspected agent's `self.memory` (a click on it in the inspector).
    Memory,
}

impl Purpose {
    fn title(self) -> &'static str {
        match self {
            Purpose::Watch => "watch (Enter adds it)",
            Purpose::Find => "find the tick where (Enter: next, Shift+Enter: previous)",
            Purpose::Break => "pause when (Enter sets the breakpoint; empty clears it)",
            Purpose::Console => "evaluate at the tick shown (Enter)",
            Purpose::Memory => "set the memory value (Enter)",
        }
    }
}

/// The prompt line being typed (from the frame after the one whose key opened it, so that
/// key's own character is not typed into it).
pub struct Prompt {
    pub purpose: Purpose,
    pub text: String,
    /// What a [`Purpose::Memory`] prompt sets.
    pub memory: Option<MemoryEdit>,
}

/// The memory value a prompt edits: whose, at which key, and what it held when opened.
pub struct MemoryEdit {
    pub agent: String,
    /// The key path from `self.memory` (an array entry's part is its index).
    pub path: Vec<String>,
    pub was: serde_json::Value,
}

impl Prompt {
    /// The prompt's heading.
    fn title(&self) -> String {
        match &self.memory {
            Some(m) => {
                let how = match m.was {
                    serde_json::Value::Bool(_) => "true or false; empty toggles",
                    serde_json::Value::Number(_) => "a number",
                    _ => "text as typed",
                };
                format!(
                    "set {}'s self.memory{} ({how}; Enter sets it, Esc cancels)",
                    m.agent,
                    memory_path_text(&m.path)
                )
            }
            None => self.purpose.title().to_string(),
        }
    }
}

/// A memory key path as Lua names it after `self.memory`: `.seen.at[2]`.
pub fn memory_path_text(path: &[String]) -> String {
    path.iter()
        .map(|part| match part.parse::<i64>() {
            Ok(i) => format!("[{i}]"),
            Err(_) => format!(".{part}"),
        })
        .collect()
}

/// The value typed for a memory edit of a value that was `was`: a number must read as one, a
/// boolean is `true` or `false` (empty toggles it), a string is taken as typed. The error
/// says what was expected.
pub fn memory_value(was: &serde_json::Value, typed: &str) -> Result<serde_json::Value, String> {
    use serde_json::Value;
    let t = typed.trim();
    match was {
        Value::Bool(b) => match t {
            "" => Ok(Value::Bool(!b)),
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("{t:?} is not true or false")),
        },
        Value::Number(_) => {
            if let Ok(i) = t.parse::<i64>() {
                return Ok(Value::from(i));
            }
            match t.parse::<f64>() {
                Ok(f) if f.is_finite() => Ok(Value::from(f)),
                _ => Err(format!("{t:?} is not a number")),
            }
        }
        Value::String(_) => Ok(Value::String(typed.to_string())),
        _ => Err("only a number, a string or a boolean can be set".into()),
    }
}

/// One watch and its value at the tick last shown.
pub struct Watch {
    pub text: String,
    expression: Result<Expression, String>,
    pub value: String,
}

/// A "tick where" search under way: a chunk of ticks is looked at each frame.
pub struct Finding {
    pub text: String,
    pub direction: Direction,
    /// The tick shown when it started.
    pub from: u64,
    /// The frames it has run in so far.
    pub frames: u64,
    /// A Lua state of its own, so the watches' state cannot change what it finds.
    pub asker: Asker,
    pub search: Search,
}

/// The questions asked so far, and the prompt.
#[derive(Default)]
pub struct Questions {
    asker: Option<Asker>,
    pub watches: Vec<Watch>,
    /// The tick (and whether past) the watches' values are for; `None`: to be computed.
    shown: Option<(u64, bool)>,
    /// The last "tick where" expression (K and Shift+K look for it again).
    pub find: Option<String>,
    pub breakpoint: Option<(String, Expression)>,
    pub prompt: Option<Prompt>,
    /// The search under way, if any.
    pub finding: Option<Finding>,
}

/// How many watches are kept.
const MAX_WATCHES: usize = 12;
const ROW: f32 = 18.0;
const TOP: f32 = 64.0;

impl Questions {
    fn asker(&mut self, seed: u64) -> Result<&mut Asker, String> {
        if self.asker.is_none() {
            self.asker = Some(Asker::new(seed)?);
        }
        self.asker
            .as_mut()
            .ok_or_else(|| "no Lua state for questions".to_string())
    }

    /// Opens the prompt for `purpose`.
    pub fn open(&mut self, purpose: Purpose) {
        self.prompt = Some(Prompt {
            purpose,
            text: String::new(),
            memory: None,
        });
    }

    /// Opens the prompt to edit `path` of `agent`'s memory, holding `was`, its value as text.
    pub fn open_memory(&mut self, agent: &str, path: Vec<String>, was: serde_json::Value) {
        let text = match &was {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.prompt = Some(Prompt {
            purpose: Purpose::Memory,
            text,
            memory: Some(MemoryEdit {
                agent: agent.to_string(),
                path,
                was,
            }),
        });
    }

    /// Types this frame's characters into the prompt.
    pub fn type_chars(&mut self, chars: &[char], backspace: bool) {
        let Some(p) = self.prompt.as_mut() else {
            return;
        };
        if backspace {
            p.text.pop();
        }
        p.text.extend(chars.iter().filter(|c| !c.is_control()));
    }

    /// Compiles `text` as a question (messages name it `name`).
    pub fn compile(&mut self, seed: u64, name: &str, text: &str) -> Result<Expression, String> {
        self.asker(seed)?.compile(name, text)
    }

    /// Adds a watch (an expression that does not compile shows its error as its value).
    pub fn add_watch(&mut self, seed: u64, text: &str) {
        if self.watches.len() >= MAX_WATCHES {
            self.watches.remove(0);
        }
        let expression = self.compile(seed, "watch", text);
        self.watches.push(Watch {
            text: text.to_string(),
            value: String::new(),
            expression,
        });
        self.shown = None;
    }

    /// Removes watch `i` (the last one when `None`).
    pub fn remove_watch(&mut self, i: Option<usize>) -> Option<String> {
        let i = i.or(self.watches.len().checked_sub(1))?;
        (i < self.watches.len()).then(|| self.watches.remove(i).text)
    }

    /// The value of `expression` at `world` as one line, or its error.
    pub fn ask(
        &mut self,
        seed: u64,
        expression: Expression,
        world: &Rc<World>,
    ) -> Result<(bool, String), String> {
        let answer = self.asker(seed)?.ask(expression, world)?;
        Ok((answer.holds, one_line(&answer.text)))
    }

    /// Lends the live run's memories to `world:memory(id)` (none at a past tick).
    pub fn set_memories(
        &mut self,
        seed: u64,
        memories: std::collections::BTreeMap<String, serde_json::Value>,
    ) {
        if let Ok(a) = self.asker(seed) {
            a.set_memories(memories);
        }
    }

    /// Whether any watch reads memory (then the live memories are lent before asking).
    pub fn reads_memory(&self) -> bool {
        self.watches.iter().any(|w| w.text.contains("memory"))
            || self
                .breakpoint
                .as_ref()
                .is_some_and(|(t, _)| t.contains("memory"))
    }

    /// Whether the watches' values are for `shown` (tick, past).
    pub fn is_fresh(&self, shown: (u64, bool)) -> bool {
        self.watches.is_empty() || self.shown == Some(shown)
    }

    /// Recomputes every watch's value at `world`, the tick `shown`.
    pub fn refresh(&mut self, seed: u64, shown: (u64, bool), world: &Rc<World>) {
        let mut values = Vec::with_capacity(self.watches.len());
        for i in 0..self.watches.len() {
            let value = match self.watches[i].expression.clone() {
                Ok(e) => match self.ask(seed, e, world) {
                    Ok((_, text)) => text,
                    Err(e) => format!("error: {}", one_line(&e)),
                },
                Err(e) => format!("does not compile: {}", one_line(&e)),
            };
            values.push(value);
        }
        for (w, v) in self.watches.iter_mut().zip(values) {
            w.value = v;
        }
        self.shown = Some(shown);
    }

    /// Whether [`Questions::paint`] paints anything: watches, a prompt or a search under way.
    pub fn paints(&self) -> bool {
        self.has_watches() || self.prompt.is_some() || self.finding.is_some()
    }

    /// Whether there are watches or a breakpoint to show (they then take the left dock).
    pub fn has_watches(&self) -> bool {
        !self.watches.is_empty() || self.breakpoint.is_some()
    }

    /// A left click at `at` (screen pixels) on a watch removes it; true if it took the click.
    pub fn click(&mut self, at: Vec2) -> bool {
        let r = self.rect();
        if self.watches.is_empty() || !r.contains(at) {
            return false;
        }
        let row_h = ROW * super::layout::current().ui;
        let row = ((at.y - r.y - row_h - 4.0) / row_h).floor();
        if row >= 0.0 {
            self.remove_watch(Some(row as usize));
        }
        true
    }

    /// The watches panel's rectangle: at the bottom of the left dock (off screen while the
    /// dock is collapsed or holds the help).
    fn rect(&self) -> Rect {
        let layout = super::layout::current();
        let Some(dock) = layout.content(super::layout::Side::Left) else {
            return Rect::new(-1.0, -1.0, 0.0, 0.0);
        };
        let rows = self.watches.len().max(1) as f32 + 1.0;
        let h = (ROW * layout.ui * rows + 8.0).min(dock.h - 8.0).max(0.0);
        Rect::new(dock.x + 4.0, dock.y + dock.h - h - 4.0, dock.w - 8.0, h)
    }

    /// Paints the watches panel and the prompt into the window's one egui frame.
    pub fn paint(&self, ctx: &egui::Context, help: bool) {
        let ui = super::layout::current().ui;
        let k = ctx.pixels_per_point().max(0.1);
        let p = |x: f32, y: f32| egui::pos2(x / k, y / k);
        let painter = ctx.layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::new("questions"),
        ));
        let text = |x: f32, y: f32, s: &str, c: egui::Color32| {
            painter.text(
                p(x, y),
                egui::Align2::LEFT_CENTER,
                s,
                egui::FontId::monospace(13.0 * ui / k),
                c,
            );
        };
        // Opaque, with an edge: a prompt opened over the inspector must not show its text
        // through.
        let panel = |r: Rect| {
            let rect = egui::Rect::from_min_max(p(r.x, r.y), p(r.x + r.w, r.y + r.h));
            painter.rect_filled(rect, 3.0, egui::Color32::from_rgb(0x12, 0x13, 0x17));
            painter.rect_stroke(
                rect,
                3.0,
                egui::Stroke::new(1.0, egui::Color32::from_gray(0x50)),
                egui::StrokeKind::Inside,
            );
        };
        if self.has_watches() && !help {
            let r = self.rect();
            let row_h = ROW * ui;
            panel(r);
            let title = match &self.breakpoint {
                Some((b, _)) => format!("watches (click one to remove)   break when {b}"),
                None => "watches (click one to remove)".to_string(),
            };
            let chars = ((r.w - 16.0) / (7.8 * ui)).max(10.0) as usize;
            text(
                r.x + 8.0,
                r.y + 4.0 + row_h / 2.0,
                &super::console::ellipsis(&title, chars),
                egui::Color32::from_rgb(0x90, 0xc8, 0xff),
            );
            for (i, w) in self.watches.iter().enumerate() {
                let line = format!("{} = {}", w.text, w.value);
                let line = super::console::ellipsis(&line, chars);
                let y = r.y + 4.0 + row_h * (i as f32 + 1.5);
                if y > r.y + r.h {
                    break;
                }
                text(r.x + 8.0, y, &line, egui::Color32::from_gray(0xe0));
            }
        }
        if let Some(prompt) = &self.prompt {
            let w = (screen_width() * 0.6).clamp(300.0, 800.0);
            let r = Rect::new((screen_width() - w) / 2.0, screen_height() * 0.3, w, 52.0);
            panel(r);
            text(
                r.x + 10.0,
                r.y + 14.0,
                &prompt.title(),
                egui::Color32::from_rgb(0x90, 0xc8, 0xff),
            );
            let chars = ((r.w - 20.0) / (7.8 * ui)).max(10.0) as usize;
            let typed = format!("{}_", prompt.text);
            let skip = typed.chars().count().saturating_sub(chars);
            let typed: String = typed.chars().skip(skip).collect();
            text(r.x + 10.0, r.y + 36.0, &typed, egui::Color32::WHITE);
        }
        if let Some(f) = &self.finding {
            let w = (screen_width() * 0.5).clamp(300.0, 640.0);
            let r = Rect::new((screen_width() - w) / 2.0, TOP, w, 64.0);
            panel(r);
            let (done, total) = f.search.progress();
            let way = match f.direction {
                Direction::Next => "after",
                Direction::Previous => "before",
            };
            let title = format!("finding the tick {way} {} where {}", f.from, f.text);
            let chars = ((r.w - 20.0) / (7.8 * ui)).max(10.0) as usize;
            let title: String = title.chars().take(chars).collect();
            text(
                r.x + 10.0,
                r.y + 14.0,
                &title,
                egui::Color32::from_rgb(0x90, 0xc8, 0xff),
            );
            let bar = Rect::new(r.x + 10.0, r.y + 28.0, r.w - 20.0, 10.0);
            text(
                r.x + 10.0,
                r.y + 50.0,
                &format!("{done} / {total} ticks looked at   Esc cancels"),
                egui::Color32::from_gray(0xe0),
            );
            let share = if total == 0 {
                1.0
            } else {
                done as f32 / total as f32
            };
            painter.rect_filled(
                egui::Rect::from_min_max(p(bar.x, bar.y), p(bar.x + bar.w, bar.y + bar.h)),
                2.0,
                egui::Color32::from_gray(0x40),
            );
            painter.rect_filled(
                egui::Rect::from_min_max(
                    p(bar.x, bar.y),
                    p(bar.x + bar.w * share.clamp(0.0, 1.0), bar.y + bar.h),
                ),
                2.0,
                egui::Color32::from_rgb(0x60, 0xa8, 0xf0),
            );
        }
    }
}

/// A value's text on one line (tables are printed over several).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_takes_printable_characters_and_watches_are_kept_and_removed() {
        let mut q = Questions::default();
        q.open(Purpose::Watch);
        q.type_chars(&['a', 'b', '\n'], false);
        q.type_chars(&[], true);
        assert_eq!(q.prompt.as_ref().map(|p| p.text.as_str()), Some("a"));
        let mut world = World::from_ascii(&["...."]);
        world.tick = 7;
        let world = Rc::new(world);
        q.add_watch(1, "world:tick() * 2");
        q.add_watch(1, "world:");
        assert!(!q.is_fresh((7, false)));
        q.refresh(1, (7, false), &world);
        assert!(q.is_fresh((7, false)));
        assert_eq!(q.watches[0].value, "14");
        assert!(
            q.watches[1].value.starts_with("does not compile"),
            "{}",
            q.watches[1].value
        );
        assert_eq!(q.remove_watch(None).as_deref(), Some("world:"));
        assert_eq!(q.remove_watch(Some(5)), None);
        assert_eq!(q.watches.len(), 1);
    }

    #[test]
    fn a_memory_value_must_read_as_the_kind_it_replaces() {
        use super::memory_value;
        use serde_json::json;
        assert_eq!(memory_value(&json!(3), " 12 "), Ok(json!(12)));
        assert_eq!(memory_value(&json!(3), "2.5"), Ok(json!(2.5)));
        let e = memory_value(&json!(3), "fast").unwrap_err();
        assert_eq!(e, "\"fast\" is not a number");
        assert!(memory_value(&json!(3), "nan").is_err());
        assert_eq!(memory_value(&json!(true), ""), Ok(json!(false)));
        assert_eq!(memory_value(&json!(false), "true"), Ok(json!(true)));
        assert!(memory_value(&json!(false), "yes").is_err());
        assert_eq!(
            memory_value(&json!("a"), " two words"),
            Ok(json!(" two words"))
        );
    }
}
