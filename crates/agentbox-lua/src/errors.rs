//! Turning mlua errors into the one-line messages designers see: `scripts/x.lua:12: message`.

use agentbox_core::world::{ErrorKind, ScriptError};
use mlua::{Error, Lua};
use std::ffi::{c_char, c_int};
use std::io::Write;

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
    // Level 0 is the message handler, level 1 [`message_handler`] that called it, level 2
    // the function that raised. No name there (it
    // was called from C, say through `pcall`): no name, rather than a caller's. `error` or
    // `assert` there re-raised an error caught earlier: not theirs either.
    let name = lua
        .inspect_stack(2, |d| d.names().name.map(|n| n.into_owned()))
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

/// The message handler every budgeted call runs under (the full path's `xpcall` and the raw
/// loop's `lua_pcall`). mlua turns a panic in a Rust function Lua calls into an error value
/// that resumes the panic wherever it is converted back to a Rust value, which the Rust
/// handler (`agentbox.handler` in the registry) would do, panicking the host. So a userdata
/// error is first handed to `agentbox.probe`, which only converts its argument: if that
/// raises, the error was a panic, and it becomes the one-line message of an internal error at
/// the script's line. Anything else goes to the Rust handler, called from here (so it sees the
/// function that raised at stack level 2).
///
/// # Safety
/// Called by Lua as a message handler, with the error value at 1, on the state's thread.
pub unsafe extern "C-unwind" fn message_handler(state: *mut mlua::ffi::lua_State) -> c_int {
    use mlua::ffi;
    // SAFETY: Lua calls this with a live state and the error at 1; every call below uses
    // at most 4 stack slots, checked first, and only the registry entries the host set.
    unsafe {
        ffi::lua_settop(state, 1);
        if ffi::lua_checkstack(state, 4) == 0 {
            return 1;
        }
        if ffi::lua_type(state, 1) == ffi::LUA_TUSERDATA {
            ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, c"agentbox.probe".as_ptr());
            ffi::lua_pushvalue(state, 1);
            if ffi::lua_pcall(state, 1, 0, 0) != ffi::LUA_OK {
                // The probe re-raised the panic as a new error value; its `__tostring` is the
                // panic's message.
                let mut len = 0;
                let what = ffi::luaL_tolstring(state, -1, &mut len);
                let what = std::slice::from_raw_parts(what as *const u8, len.min(300));
                // Written into a fixed buffer: nothing here can allocate or panic.
                let mut buf = [0u8; 512];
                let mut out = &mut buf[..];
                for level in 1..10 {
                    ffi::luaL_where(state, level);
                    let mut n = 0;
                    let at = ffi::lua_tolstring(state, -1, &mut n);
                    if n > 0 {
                        let at = std::slice::from_raw_parts(at as *const u8, n.min(200));
                        let _ = out.write_all(at);
                        let _ = out.write_all(b" ");
                        break;
                    }
                    ffi::lua_settop(state, -2);
                }
                let _ = out.write_all(
                    b"internal error (a bug in agentbox, please report it): a Rust function panicked: ",
                );
                let _ = out.write_all(what);
                let written = 512 - out.len();
                ffi::lua_settop(state, 1);
                ffi::lua_pushlstring(state, buf.as_ptr() as *const c_char, written);
                return 1;
            }
        }
        ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, c"agentbox.handler".as_ptr());
        ffi::lua_pushvalue(state, 1);
        ffi::lua_call(state, 1, 1);
        1
    }
}
