//! Rust memory on the agent's bill: what the host allocates because a script asked (a
//! `nav.flow` handle keeping its field alive, the effects `world:send` and the other acts
//! queue, labels, `print` lines kept for the trace, `plot` series, drawings) is kept on the
//! account of the agent whose call asked (`Budget::keep`), for as long as the host keeps it.
//! What the VM says an agent holds and what the host keeps for it together stay within the
//! agent's quota; past it the binding raises a memory error and the call ends as a memory stop
//! like a Lua one, so a script can never make the host allocate without bound.
//!
//! A [`Bill`] is the receipt: it gives its bytes back when dropped (a collected flow handle,
//! a round's queue taken). Everything billed is bounded before it is copied (`bounded.rs`),
//! so the bill is checked before the copy is made.
//!
//! It keeps the account only; it never frees or changes what it bills.

use crate::budget::Budget;
use mlua::Lua;
use std::rc::{Rc, Weak};

/// Bytes kept on an agent's account until dropped.
pub struct Bill {
    budget: Weak<Budget>,
    owner: u32,
    bytes: usize,
}

impl Bill {
    /// A bill of nothing (no budget installed).
    fn none() -> Bill {
        Bill {
            budget: Weak::new(),
            owner: 0,
            bytes: 0,
        }
    }
}

impl Drop for Bill {
    fn drop(&mut self) {
        if self.bytes != 0 {
            if let Some(budget) = self.budget.upgrade() {
                budget.release(self.owner, self.bytes);
            }
        }
    }
}

/// Keeps `bytes` on the account of the agent whose call is running (`what` names them, as
/// the memory stop's message says), or a memory error when they would take it over its quota.
pub fn keep(lua: &Lua, what: &'static str, bytes: usize) -> mlua::Result<Bill> {
    let budget = lua.app_data_ref::<Rc<Budget>>().map(|b| Rc::clone(&b));
    keep_in(budget.as_ref(), what, bytes)
}

/// [`keep`] with the state's budget given (a raw C function has no `Lua` to find it by).
pub fn keep_in(
    budget: Option<&Rc<Budget>>,
    what: &'static str,
    bytes: usize,
) -> mlua::Result<Bill> {
    let Some(budget) = budget else {
        return Ok(Bill::none());
    };
    match budget.keep(what, bytes) {
        Ok(owner) => Ok(Bill {
            budget: Rc::downgrade(budget),
            owner,
            bytes,
        }),
        Err(()) => Err(mlua::Error::MemoryError(refusal(what))),
    }
}

/// The message of a refusal: what the host would have kept.
pub fn refusal(what: &str) -> String {
    format!("memory limit exceeded: the host keeps {what} for this agent, and with what its Lua holds they would pass its memory quota")
}

/// The bytes a kept string costs the host (its text and a heap block's header).
pub fn string_bytes(len: usize) -> usize {
    len + 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bill_is_kept_within_the_quota_and_given_back_when_dropped() {
        let lua = Lua::new();
        let budget = Rc::new(Budget::install(&lua, 8 * 1024 * 1024).unwrap());
        lua.set_app_data(Rc::clone(&budget));
        budget.own(3);
        let call = budget.begin();
        let bill = keep(&lua, "flow handles", 1024 * 1024).unwrap();
        assert_eq!(budget.host_held(3), 1024 * 1024);
        // A quota is 2 MB: another 1.5 MB is refused, and the call ends as a memory stop.
        let refused = keep(&lua, "flow handles", 1536 * 1024);
        assert!(matches!(refused, Err(mlua::Error::MemoryError(_))));
        assert_eq!(budget.end(call), crate::budget::Stop::Memory);
        assert_eq!(budget.host_refusal(), Some("flow handles"));
        drop(bill);
        assert_eq!(budget.host_held(3), 0);
        // The host's own calls are not limited.
        let host = keep(&lua, "plots", 64 * 1024 * 1024).unwrap();
        assert_eq!(budget.host_held(0), 64 * 1024 * 1024);
        drop(host);
    }
}
