//! Calling a script's functions from the host: a module body, `init`, `on_reload`, an
//! `expect:` predicate or a metric runs through [`Calls::start`] and [`Calls::finish`], under
//! the work budget and the message handler, and a failure becomes a located [`ScriptError`] of
//! the right kind (a spent budget and a memory stop say how the agent comes back). The raw
//! decision loop calls `decide` under the same budget and handler (`decide_loop.rs`).
//!
//! It only calls and reports; whom to stop after a call is the host's (`agents.rs`).

use crate::bounded;
use crate::budget::{self, Budget, Stop};
use crate::errors;
use agentbox_core::world::{ErrorKind, ScriptError};
use mlua::{Function, Lua, MultiValue, Value};
use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;

/// What every budgeted call from the host runs under.
pub struct Calls {
    budget: Rc<Budget>,
    /// The real `xpcall` and the message handler every budgeted call runs under.
    xpcall: Function,
    handler: Function,
    /// The kind the message handler saw in the error it last handled (a bad argument), for
    /// the failure it becomes.
    handled: Rc<Cell<Option<ErrorKind>>>,
}

impl Calls {
    /// Installs the message handler of `lua` (`errors::message_handler`, with its Rust half
    /// and its panic probe in the registry), calling under `budget`.
    pub fn install(lua: &Lua, budget: Rc<Budget>) -> mlua::Result<Calls> {
        let xpcall: Function = lua.globals().raw_get("xpcall")?;
        let handled = Rc::new(Cell::new(None));
        let seen = Rc::clone(&handled);
        let rust_handler =
            lua.create_function(move |lua, v: Value| error_handler(lua, v, &seen))?;
        lua.set_named_registry_value("agentbox.handler", rust_handler)?;
        // Converting its argument is all it does: that raises again if the error is a panic.
        let probe = lua.create_function(|_, _: Value| Ok(()))?;
        lua.set_named_registry_value("agentbox.probe", probe)?;
        // SAFETY: `message_handler` is a Lua C function: it keeps to the stack it is given
        // and to the two registry entries just set.
        let handler = unsafe { lua.create_c_function(errors::message_handler)? };
        Ok(Calls {
            budget,
            xpcall,
            handler,
            handled,
        })
    }

    /// The work budget and memory limit calls run under.
    pub fn budget(&self) -> &Rc<Budget> {
        &self.budget
    }

    /// The message handler (the raw loop runs `decide` under it too).
    pub fn handler(&self) -> &Function {
        &self.handler
    }

    /// The kind the message handler saw in the error it last handled.
    pub fn handled(&self) -> &Cell<Option<ErrorKind>> {
        &self.handled
    }

    /// Calls `f` with `args` under the budget and the message handler: what `xpcall` gave and
    /// how the call stopped, for [`Calls::finish`].
    pub fn start(&self, f: &Function, args: MultiValue) -> (mlua::Result<MultiValue>, Stop) {
        let mut all = MultiValue::new();
        all.push_back(Value::Function(f.clone()));
        all.push_back(Value::Function(self.handler.clone()));
        all.extend(args);
        self.handled.set(None);
        self.budget.call(|| self.xpcall.call::<MultiValue>(all))
    }

    /// The first result of a call [`Calls::start`] made, or its error as a one-line message.
    pub fn finish(
        &self,
        lua: &Lua,
        result: mlua::Result<MultiValue>,
        stop: Stop,
    ) -> Result<Value, ScriptError> {
        let (message, hint) = match result {
            Ok(values) => {
                let mut values = values.into_iter();
                let ok = matches!(values.next(), Some(Value::Boolean(true)));
                let first = values.next().unwrap_or(Value::Nil);
                if ok && stop == Stop::None {
                    return Ok(first);
                }
                let message = match first {
                    _ if ok => String::new(),
                    Value::String(s) => bounded::message(&s.as_bytes(), ScriptError::MAX_BYTES),
                    other => error_handler(lua, other, &self.handled).unwrap_or_default(),
                };
                (message, self.handled.take())
            }
            Err(e) => (errors::describe(&e), Some(errors::kind_of(&e))),
        };
        Err(self.failure(message, stop, hint))
    }

    /// The error a failed call makes: its kind from how it stopped (a limit), else from what
    /// the message handler saw; the message says which limit.
    pub fn failure(&self, message: String, stop: Stop, hint: Option<ErrorKind>) -> ScriptError {
        stop_error(
            message,
            stop,
            hint,
            self.budget.memory_limit(),
            self.budget.host_refusal(),
        )
    }
}

/// The name Lua reports for a script (`scripts/x.lua`).
pub fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The Lua place a message starts with (`some/file.lua:12:`), as its file part
/// (`some/file.lua`), if it starts with one.
fn place_of(message: &str) -> Option<&str> {
    let end = message.find(".lua:")? + ".lua".len();
    let (line, _) = message[end + 1..].split_once(':')?;
    (!line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())).then(|| &message[..end])
}

/// Whether a message already starts with a Lua place whose file has no spaces. A file with
/// spaces counts only when it is known to be a script's ([`in_script`], the handler's
/// caller), so a message such as `could not read config.lua:3: ...` is still located.
fn is_located(message: &str) -> bool {
    place_of(message).is_some_and(|file| !file.contains(char::is_whitespace))
}

/// Whether a message starts with `script`'s place, as Lua writes it: the whole name, or
/// (for a name longer than Lua's 60 bytes of place) `...` and the name's end.
fn is_in(script: &str, message: &str) -> bool {
    message.starts_with(script)
        || place_of(message)
            .and_then(|file| file.strip_prefix("..."))
            .is_some_and(|tail| !tail.is_empty() && script.ends_with(tail))
}

/// A message that names a place: as it is if it does, else prefixed with the script.
pub fn in_script(script: &str, message: &str) -> String {
    if is_in(script, message) || is_located(message) {
        message.to_string()
    } else {
        format!("{script}: {message}")
    }
}

/// The message handler of budgeted calls: strings pass; any other error value becomes a
/// message naming the line that threw it (so `error({})` or `error()` still says where, and
/// so does an argument mlua could not convert, such as a number passed for an options table).
fn error_handler(
    lua: &Lua,
    value: Value,
    handled: &std::cell::Cell<Option<ErrorKind>>,
) -> mlua::Result<String> {
    let what = match &value {
        Value::String(s) => return Ok(bounded::message(&s.as_bytes(), ScriptError::MAX_BYTES)),
        Value::Error(e) => {
            handled.set(Some(errors::kind_of(e)));
            let text = errors::describe(e);
            // A binding's error is located at the script line that called it (the same line
            // as the caller here), whatever the script's folder is called.
            let at_caller = || {
                errors::caller_location(lua).is_some_and(|at| {
                    text.strip_prefix(at.as_str())
                        .is_some_and(|rest| rest.starts_with(':'))
                })
            };
            if is_located(&text) || at_caller() {
                return Ok(text);
            }
            errors::name_called(lua, text)
        }
        Value::Nil => "error thrown with nil instead of a message".to_string(),
        Value::Integer(_) | Value::Number(_) => format!(
            "error thrown with a number instead of a message: {}",
            value.to_string().unwrap_or_default()
        ),
        Value::Boolean(b) => format!("error thrown with a boolean instead of a message: {b}"),
        other => format!(
            "error thrown with a {} instead of a message",
            other.type_name()
        ),
    };
    Ok(match errors::caller_location(lua) {
        Some(at) => format!("{at}: {what}"),
        None => what,
    })
}

/// The error of a call that failed with `message` (empty if a `pcall` swallowed it), given
/// how the budget and the memory limit saw it and the kind the message handler saw; `host`
/// names what the host refused to keep for the agent, when that made the memory stop
/// (`host_memory.rs`).
pub fn stop_error(
    message: String,
    stop: Stop,
    hint: Option<ErrorKind>,
    limit: usize,
    host: Option<&'static str>,
) -> ScriptError {
    match stop {
        Stop::Budget => {
            let message = if message.is_empty() {
                format!("{} (stopped after a pcall caught it)", budget::BUDGET_MESSAGE)
            } else {
                message
            };
            ScriptError::new(ErrorKind::Budget, format!("{message}; {SUSPENDED}"))
        }
        Stop::Memory => ScriptError::new(
            ErrorKind::Memory,
            format!(
                "memory limit exceeded{} (an agent may hold {} MB, all scripts together {} MB); its memory was cleared and {SUSPENDED}",
                host.map(|what| format!(" by {what} the host keeps for it")).unwrap_or_default(),
                budget::agent_memory(limit) / MB,
                limit / MB
            ),
        ),
        Stop::Cpu => {
            let message = if message.is_empty() {
                format!("{CPU_MESSAGE} (stopped after a pcall caught it)")
            } else {
                message
            };
            ScriptError::new(ErrorKind::Cpu, format!("{message}; {SUSPENDED}"))
        }
        Stop::None => ScriptError::new(hint.unwrap_or(ErrorKind::Runtime), message),
    }
}

/// The message of a call the CPU-time net stopped (the VM adds the script's place).
pub const CPU_MESSAGE: &str = "cpu time limit exceeded";

/// How a stopped agent comes back, as its error says.
pub const SUSPENDED: &str =
    "the agent is suspended until its script is saved, the scene is reset or it is resumed (U in the window)";

pub const MB: usize = 1024 * 1024;
