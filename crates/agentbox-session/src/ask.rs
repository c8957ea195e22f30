//! Asking a run a question: a [`Question`] is a Lua expression of `world` (the read-only world
//! `expect:` predicates get, with `world:memory(id)` and views' `label`) compiled in a
//! session's script host and asked of that session's world at the tick it stands at.
//! `headless --stop-when` asks it after every tick; the window's watches, "tick where" search,
//! breakpoints and console ask it of the tick shown.
//!
//! It reads only: asking never changes the world, an agent's memory or the trace.

use crate::session::Session;
pub use agentbox_lua::expression::{Answer, Expression};

/// A compiled expression and its text.
#[derive(Clone, Debug)]
pub struct Question {
    text: String,
    expression: Expression,
}

impl Question {
    /// Compiles `text` in `session`'s host; `name` is how its messages name it (`--stop-when`
    /// gives `--stop-when:1: ...`).
    pub fn compile(session: &mut Session, name: &str, text: &str) -> Result<Question, String> {
        let expression = session.host_mut().compile_expression(name, text)?;
        Ok(Question {
            text: text.to_string(),
            expression,
        })
    }

    /// The expression as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its value at the tick `session` stands at (it must be the session it was compiled in),
    /// or the error it raised.
    pub fn ask(&self, session: &mut Session) -> Result<Answer, String> {
        let (world, host) = session.world_and_host();
        let world = std::rc::Rc::clone(world);
        host.evaluate(self.expression, &world)
    }
}

/// How a run asked to stop when a question holds ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopWhen {
    /// It held after this tick, the first that it did.
    Held(u64),
    /// It held after none of the ticks run.
    NeverHeld,
}

/// Asks questions of worlds that no session holds (past ticks rebuilt from a history's
/// frames), in a Lua state of its own, so asking can never reach the run's scripts. There
/// `world:memory(id)` reads the memories lent by [`Asker::set_memories`] (a search lends each
/// tick's, from the JSON the frames keep).
pub struct Asker {
    host: agentbox_lua::ScriptHost,
}

/// Which way "the tick where" is looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Previous,
    Next,
}

/// Why a search found no tick: the expression failed (at a tick), or the frames do not reach.
#[derive(Clone, Debug, PartialEq)]
pub enum FindError {
    Compile(String),
    Raised { tick: u64, message: String },
}

impl std::fmt::Display for FindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FindError::Compile(e) => write!(f, "{e}"),
            FindError::Raised { tick, message } => write!(f, "at tick {tick}: {message}"),
        }
    }
}

impl Asker {
    /// A Lua state for questions, with the run's seed (for `math.random` in an expression).
    pub fn new(seed: u64) -> Result<Asker, String> {
        let host = agentbox_lua::ScriptHost::new(seed).map_err(|e| e.to_string())?;
        Ok(Asker { host })
    }

    /// Compiles `text` (messages name it `name`).
    pub fn compile(&mut self, name: &str, text: &str) -> Result<Expression, String> {
        self.host.compile_expression(name, text)
    }

    /// What `world:memory(id)` gives from now on (agent id to `self.memory` as JSON): the
    /// live run's, lent by the window at the live tick; none at first.
    pub fn set_memories(
        &mut self,
        memories: std::collections::BTreeMap<String, serde_json::Value>,
    ) {
        self.host.set_memories(memories);
    }

    /// Its value against `world`, or the error it raised.
    pub fn ask(
        &mut self,
        expression: Expression,
        world: &std::rc::Rc<agentbox_core::world::World>,
    ) -> Result<Answer, String> {
        self.host.evaluate(expression, world)
    }

    /// The nearest tick before or after `from` (not `from` itself) where `text` holds, over
    /// the ticks the frames keep, without touching the run; `progress(done, total)` is told
    /// every [`Search::CHUNK`] ticks looked at. A [`Search`] run to its end in one go.
    pub fn find(
        &mut self,
        frames: &crate::history::Frames,
        text: &str,
        from: u64,
        direction: Direction,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<Option<u64>, FindError> {
        let mut search = Search::start(self, frames, text, from, direction)?;
        loop {
            if let Some(found) = search.step(self, frames, Search::CHUNK)? {
                let (_, total) = search.progress();
                progress(total, total);
                return Ok(found);
            }
            let (done, total) = search.progress();
            progress(done, total);
        }
    }
}

/// A search for the tick where an expression holds that can be run a chunk of ticks at a time
/// (the window runs one chunk a frame, so it can draw its progress and stay responsive;
/// [`Asker::find`] runs all its chunks at once). The chunks are counted in ticks, never in
/// time, so a replayed window reaches the same state at the same frame.
pub struct Search {
    expression: Expression,
    reads_memory: bool,
    direction: Direction,
    /// The ticks the frames kept when the search started.
    first: u64,
    last: u64,
    /// Next: the next tick to look at. Previous: the end (excluded) of the next stretch.
    cursor: u64,
    done: u64,
    total: u64,
}

impl Search {
    /// The ticks [`Asker::find`] looks at between two progress reports.
    pub const CHUNK: u64 = 256;

    /// A search from `from` (not included) for where `text` holds, nothing looked at yet.
    pub fn start(
        asker: &mut Asker,
        frames: &crate::history::Frames,
        text: &str,
        from: u64,
        direction: Direction,
    ) -> Result<Search, FindError> {
        let expression = asker.compile("find", text).map_err(FindError::Compile)?;
        let (first, last) = frames.ticks().unwrap_or((1, 0));
        let total = match direction {
            Direction::Next => last.saturating_sub(from),
            Direction::Previous => from.saturating_sub(first),
        };
        let cursor = match direction {
            Direction::Next => from + 1,
            Direction::Previous => from.min(last + 1),
        };
        Ok(Search {
            expression,
            reads_memory: text.contains("memory"),
            direction,
            first,
            last,
            cursor,
            done: 0,
            total,
        })
    }

    /// Ticks looked at so far, and how many there are to look at in all.
    pub fn progress(&self) -> (u64, u64) {
        (self.done.min(self.total), self.total)
    }

    /// Looks at about `ticks` more ticks (whole stretches of [`crate::history::FRAME_EVERY`]
    /// going back): `Some(found)` once the search is over, `None` while there is more to do.
    /// Frames that no longer reach where it stands end it, found nowhere.
    pub fn step(
        &mut self,
        asker: &mut Asker,
        frames: &crate::history::Frames,
        ticks: u64,
    ) -> Result<Option<Option<u64>>, FindError> {
        use std::ops::ControlFlow::{Break, Continue};
        let (expression, reads_memory) = (self.expression, self.reads_memory);
        let mut done = 0u64;
        let mut ask = |t: u64, world: &std::rc::Rc<agentbox_core::world::World>| {
            done += 1;
            if reads_memory {
                asker.set_memories(frames.memories_json_at(t));
            }
            asker
                .host
                .evaluate(expression, world)
                .map(|a| a.holds)
                .map_err(|message| FindError::Raised { tick: t, message })
        };
        let (mut found, mut failed) = (None, None);
        let over = match self.direction {
            Direction::Next => {
                if self.cursor > self.last {
                    return Ok(Some(None));
                }
                let to = self.last.min(self.cursor.saturating_add(ticks.max(1) - 1));
                let reached = frames.walk(self.cursor, to, |t, w| match ask(t, w) {
                    Ok(false) => Continue(()),
                    Ok(true) => {
                        found = Some(t);
                        Break(())
                    }
                    Err(e) => {
                        failed = Some(e);
                        Break(())
                    }
                });
                self.cursor = to + 1;
                !reached || found.is_some() || self.cursor > self.last
            }
            Direction::Previous => {
                // Back a stretch of ticks at a time, each looked at forwards: the last match
                // in the nearest stretch that has one.
                let mut looked = 0;
                let mut reached = true;
                while reached
                    && found.is_none()
                    && failed.is_none()
                    && self.cursor > self.first
                    && looked < ticks.max(1)
                {
                    let end = self.cursor;
                    let start = end
                        .saturating_sub(crate::history::FRAME_EVERY)
                        .max(self.first);
                    reached = frames.walk(start, end - 1, |t, w| match ask(t, w) {
                        Ok(false) => Continue(()),
                        Ok(true) => {
                            found = Some(t);
                            Continue(())
                        }
                        Err(e) => {
                            failed = Some(e);
                            Break(())
                        }
                    });
                    looked += end - start;
                    self.cursor = start;
                }
                !reached || found.is_some() || self.cursor <= self.first
            }
        };
        self.done += done;
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(over.then_some(found))
    }
}
