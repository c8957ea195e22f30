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
    /// The CPU-time net stopped a call (`budget.cpu_ms`): work the count did not see. A clock
    /// decided it, so a replay may differ from that tick on.
    Cpu,
    /// A binding was called with an argument it cannot use.
    BadArgument,
    /// The agent is suspended after a budget or memory stop, until its script reloads, the
    /// scene resets or the designer resumes it.
    Suspended,
}

impl ErrorKind {
    /// Whether an error of this kind suspends the agent.
    pub fn suspends(self) -> bool {
        matches!(self, ErrorKind::Budget | ErrorKind::Memory | ErrorKind::Cpu)
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Budget => "budget",
            ErrorKind::Memory => "memory",
            ErrorKind::Cpu => "cpu",
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
    /// The most bytes of error text one agent gets per tick (its message is cut there).
    pub const MAX_BYTES: usize = 4096;

    /// The most bytes of error text one tick writes in all, to the trace and to stderr (and of
    /// `print` output); past that the agents' errors are counted, not written.
    pub const MAX_BYTES_PER_TICK: usize = 64 * 1024;

    /// An error, its message cut to [`Self::MAX_BYTES`].
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let mut error = ScriptError {
            kind,
            message: message.into(),
        };
        error.bound();
        error
    }

    /// Cuts the message to [`Self::MAX_BYTES`] (at a character boundary), ending it with a
    /// note of how many bytes were dropped. Cheap when it is short.
    pub fn bound(&mut self) {
        let len = self.message.len();
        if len <= Self::MAX_BYTES {
            return;
        }
        // Room for the note and a file name put in front later; the cut never splits a
        // character.
        let mut cut = Self::MAX_BYTES - 256;
        while !self.message.is_char_boundary(cut) {
            cut -= 1;
        }
        self.message.truncate(cut);
        self.message
            .push_str(&format!(" [... {} bytes dropped]", len - cut));
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

/// A script error's message as a located error line: `scripts/x.lua:12: message` becomes
/// `scripts/x.lua:12: error: message` (and `scripts/x.lua: message` becomes
/// `scripts/x.lua: error: message`), like the scene's `FILE:LINE:COL: error: message`. A
/// message already in that form is kept.
pub fn error_line(message: &str) -> String {
    let mut parts = message.splitn(3, ':');
    if let (Some(file), Some(line), Some(rest)) = (parts.next(), parts.next(), parts.next()) {
        if line.chars().all(|c| c.is_ascii_digit()) && !line.is_empty() {
            if rest.starts_with(" error: ") {
                return message.to_string();
            }
            return format!("{file}:{line}: error:{rest}");
        }
    }
    match message.split_once(": ") {
        Some((_, rest)) if rest.starts_with("error: ") => message.to_string(),
        Some((file, rest)) if !file.contains(' ') => format!("{file}: error: {rest}"),
        _ if message.starts_with("error: ") => message.to_string(),
        _ => format!("error: {message}"),
    }
}

impl From<ScriptError> for String {
    fn from(error: ScriptError) -> String {
        error.message
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_with_a_note() {
        let e = ScriptError::runtime(format!("a.lua:1: {}", "é".repeat(50_000_000)));
        assert!(
            e.message.len() <= ScriptError::MAX_BYTES,
            "{}",
            e.message.len()
        );
        assert!(e.message.starts_with("a.lua:1: éé"));
        let dropped: usize = e
            .message
            .rsplit_once("[... ")
            .and_then(|(_, n)| n.strip_suffix(" bytes dropped]"))
            .and_then(|n| n.parse().ok())
            .unwrap();
        let kept = e.message.len() - format!(" [... {dropped} bytes dropped]").len();
        assert_eq!(kept + dropped, 9 + 100_000_000);
        let short = ScriptError::runtime("a.lua:1: boom");
        assert_eq!(short.message, "a.lua:1: boom");
    }

    #[test]
    fn lua_messages_become_error_lines_once() {
        assert_eq!(
            error_line("scripts/x.lua:12: unexpected symbol near 'x'"),
            "scripts/x.lua:12: error: unexpected symbol near 'x'"
        );
        assert_eq!(
            error_line("scripts/x.lua: no decide function"),
            "scripts/x.lua: error: no decide function"
        );
        let once = error_line("a.lua:3: boom");
        assert_eq!(error_line(&once), once);
        assert_eq!(error_line("something broke"), "error: something broke");
    }
}
