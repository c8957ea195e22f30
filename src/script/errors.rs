//! Turning mlua errors into the one-line messages designers see: `scripts/x.lua:12: message`.

use crate::world::{ErrorKind, ScriptError};
use mlua::{Error, Lua};

/// The kind of an mlua error, from its variant (never from its words).
pub fn kind_of(error: &Error) -> ErrorKind {
    match error {
        Error::CallbackError { cause, .. } | Error::WithContext { cause, .. } => kind_of(cause),
        Error::SyntaxError { .. } => ErrorKind::Syntax,
        Error::MemoryError(_) => ErrorKind::Memory,
        Error::BadArgument { .. } | Error::FromLuaConversionError { .. } => ErrorKind::BadArgument,
        _ => ErrorKind::Runtime,
    }
}

/// An mlua error as a script error: its kind and its one-line message.
pub fn script_error(error: &Error) -> ScriptError {
    ScriptError::new(kind_of(error), describe(error))
}

/// Like [`script_error`], with the message prefixed as [`describe_in`] does.
pub fn error_in(script: &str, error: &Error) -> ScriptError {
    ScriptError::new(kind_of(error), describe_in(script, error))
}

/// The message of an error, without mlua's wrapping and without the stack traceback.
pub fn describe(error: &Error) -> String {
    let text = match error {
        Error::CallbackError { cause, .. } => return describe(cause),
        Error::WithContext { cause, .. } => return describe(cause),
        Error::RuntimeError(m) => m.clone(),
        Error::SyntaxError { message, .. } => message.clone(),
        Error::MemoryError(_) => "memory limit exceeded".to_string(),
        Error::ExternalError(e) => e.to_string(),
        other => other.to_string(),
    };
    let text = match text.find("\nstack traceback:") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.trim_end().to_string()
}

/// Like [`describe`], but prefixed with `script` when the message names no place of its own
/// (a memory error, an error thrown with a table).
pub fn describe_in(script: &str, error: &Error) -> String {
    let message = describe(error);
    if message.starts_with(script) {
        message
    } else {
        format!("{script}: {message}")
    }
}

/// The `file.lua:LINE` of the innermost script function calling into Rust, if any: the
/// sandbox's own trusted Lua (chunks named `agentbox`, such as the `require` wrapper) is
/// skipped, so an error names the designer's line.
pub fn caller_location(lua: &Lua) -> Option<String> {
    (1..8).find_map(|level| {
        lua.inspect_stack(level, |d| {
            let line = d.current_line()?;
            let src = d.source().short_src?.into_owned();
            (src != "agentbox").then(|| format!("{src}:{line}"))
        })
        .flatten()
    })
}

/// mlua's `bad argument #N: ...` with the name of the function it was passed to (the Rust
/// function being called, found from inside the message handler), as Lua's own say it:
/// `bad argument #2 to 'path_to': ...`.
pub fn name_called(lua: &Lua, message: String) -> String {
    let Some(rest) = message.strip_prefix("bad argument #") else {
        return message;
    };
    let Some((pos, cause)) = rest.split_once(": ") else {
        return message;
    };
    // Level 0 is the message handler, level 1 the function that raised. No name there (it
    // was called from C, say through `pcall`): no name, rather than a caller's. `error` or
    // `assert` there re-raised an error caught earlier: not theirs either.
    let name = lua
        .inspect_stack(1, |d| d.names().name.map(|n| n.into_owned()))
        .flatten();
    match name {
        Some(name)
            if pos.bytes().all(|b| b.is_ascii_digit()) && name != "error" && name != "assert" =>
        {
            format!("bad argument #{pos} to '{name}': {cause}")
        }
        _ => message,
    }
}

/// A runtime error that points at the Lua line that called the failing function.
pub fn located(lua: &Lua, message: impl std::fmt::Display) -> Error {
    match caller_location(lua) {
        Some(at) => Error::RuntimeError(format!("{at}: {message}")),
        None => Error::RuntimeError(message.to_string()),
    }
}
