//! Limits that keep one runaway script from stopping the scene: an instruction budget per
//! call of `init`/`decide`/`on_reload`, and a memory cap for the whole Lua state.

use mlua::{HookTriggers, Lua, VmState};
use std::cell::Cell;
use std::rc::Rc;

/// How often the hook runs, in Lua instructions.
const PERIOD: u32 = 1000;

/// Instructions one call may run by default (roughly 10 ms of plain Lua here).
pub const DEFAULT_INSTRUCTIONS: u64 = 2_000_000;

/// Bytes the Lua state may hold by default.
pub const DEFAULT_MEMORY: usize = 256 * 1024 * 1024;

/// The instructions left for the call that is running; shared with the hook.
#[derive(Default)]
pub struct Budget {
    left: Cell<i64>,
    armed: Cell<bool>,
}

impl Budget {
    /// Starts a call with `instructions` to spend.
    pub fn arm(&self, instructions: u64) {
        self.left.set(instructions.min(i64::MAX as u64) as i64);
        self.armed.set(true);
    }

    /// Ends the call: the hook stops counting.
    pub fn disarm(&self) {
        self.armed.set(false);
    }
}

/// Installs the hook and the memory cap. Once a call's budget is spent, every later hook call
/// in that call fails again, so a script cannot swallow the error with `pcall` and go on.
pub fn install(lua: &Lua, budget: Rc<Budget>, memory: usize) -> mlua::Result<()> {
    lua.set_memory_limit(memory)?;
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(PERIOD),
        move |_lua, debug| {
            if !budget.armed.get() {
                return Ok(VmState::Continue);
            }
            let left = budget.left.get() - PERIOD as i64;
            budget.left.set(left);
            if left >= 0 {
                return Ok(VmState::Continue);
            }
            let src = debug.source().short_src.map(|s| s.into_owned());
            let at = match (src, debug.current_line()) {
                (Some(s), Some(l)) => format!("{s}:{l}: "),
                _ => String::new(),
            };
            Err(mlua::Error::RuntimeError(format!(
                "{at}instruction budget exceeded (an endless loop?)"
            )))
        },
    )
}
