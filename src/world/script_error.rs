//! What went wrong in an agent's script, as one typed value from the script host through the
//! simulation to the trace, the window and the command line. Plain data: it names no engine.

use serde::Serialize;
use std::fmt;

/// The kind of a script error. Behaviour depends on the kind, never on the message's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The script does not compile.
    Syntax,
    /// The script raised an error, returned something that is no action, or has no `decide`.
    Runtime,
    /// A call spent its work budget (an endless loop, a runaway pattern match).
    Budget,
    /// A call went over the memory limit.
    Memory,
    /// A binding was called with an argument it cannot use.
    BadArgument,
    /// The agent is suspended after a budget or memory stop, until its script reloads, the
    /// scene resets or the designer resumes it.
    Suspended,
}

impl ErrorKind {
    /// Whether an error of this kind suspends the agent.
    pub fn suspends(self) -> bool {
        matches!(self, ErrorKind::Budget | ErrorKind::Memory)
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Budget => "budget",
            ErrorKind::Memory => "memory",
            ErrorKind::BadArgument => "bad_argument",
            ErrorKind::Suspended => "suspended",
        }
    }
}

/// A script error: its kind and its message, `file.lua:LINE: text` where the place is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ScriptError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ScriptError {
            kind,
            message: message.into(),
        }
    }

    pub fn runtime(message: impl Into<String>) -> Self {
        ScriptError::new(ErrorKind::Runtime, message)
    }

    pub fn as_str(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ScriptError> for String {
    fn from(error: ScriptError) -> String {
        error.message
    }
}
