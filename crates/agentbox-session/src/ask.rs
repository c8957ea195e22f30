//! Asking a run a question: a [`Question`] is a Lua expression of `world` (the read-only world
//! `expect:` predicates get, with `world:memory(id)` and views' `label`) compiled in a
//! session's script host and asked of that session's world at the tick it stands at.
//! `headless --stop-when` asks it after every tick; the window's watches, "tick where" search,
//! breakpoints and console ask it of the tick shown.
//!
//! It reads only: asking never changes the world, an agent's memory or the trace.

use crate::session::Session;
use agentbox_lua::expression::Expression;

pub use agentbox_lua::expression::Answer;

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
