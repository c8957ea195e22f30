//! The world lent to Lua: the one handle through which every binding, every raw C function and
//! the sandbox's `os.clock` and `print` read the world of the tick being decided (or checked by
//! an `expect:` predicate or a `metrics:` expression).
//!
//! The host lends a world for the length of one call ([`LentWorld::lend`]): the loan starts
//! when the call starts and ends when it returns, unwinds or returns early, through a guard
//! kept inside `lend` that no caller can hold or forget. Readers get the world only inside a
//! closure ([`LentWorld::with`]), so no reference to it outlives the loan (the raw C functions,
//! which read it on every call, take it for the length of their call: the unsafe
//! [`LentWorld::get`]). Outside a loan
//! there is no world: the bindings say they can only be used inside `init` or `decide`.
//!
//! It never changes the world; it only holds the loan.

use agentbox_core::world::World;
use std::cell::Cell;
use std::rc::Rc;

/// Where the world of the current call is found; one per Lua state, shared (`Rc`) by the
/// state's app data (for mlua functions) and its views (for raw C functions).
#[derive(Default)]
pub struct LentWorld {
    /// The world lent now; null outside a loan. Set only by [`LentWorld::lend`], whose
    /// caller's borrow keeps the world alive until the loan ends and this is restored.
    world: Cell<*const World>,
}

/// Restores the loan before it when dropped: when `lend`'s call returns, unwinds (a panic)
/// or returns early. Private to `lend`, so no caller can leak it and leave the pointer set.
struct Restore<'a> {
    cell: &'a Cell<*const World>,
    before: *const World,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        self.cell.set(self.before);
    }
}

impl LentWorld {
    /// Runs `f` with `world` lent: every [`LentWorld::with`] during `f` reads it. After `f`
    /// (however it ends) the loan before it, if any, is back (a predicate checked inside a
    /// round lends its own world and gives the round's back).
    pub fn lend<R>(&self, world: &World, f: impl FnOnce() -> R) -> R {
        let _restore = Restore {
            cell: &self.world,
            before: self.world.replace(world),
        };
        f()
    }

    /// Runs `f` with the world lent now; `None` outside a loan.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&World) -> R) -> Option<R> {
        // The pointer is non-null only while a `lend` call is running on this thread (the
        // `Cell` keeps the handle on it), with the world borrowed for that call; `with` runs
        // inside it, since the loan ends only when `lend`'s call returns past this frame.
        // SAFETY: as just said, and `f` cannot keep the reference: its lifetime is this call's.
        let world = unsafe { self.world.get().as_ref() };
        world.map(f)
    }

    /// The world lent now, for a raw C function Lua calls, which reads it many times and
    /// cannot afford a closure per read; `None` outside a loan.
    ///
    /// # Safety
    /// The reference must not outlive the Lua call it is taken in: a raw C function takes it,
    /// uses it and drops it before it returns (a loan ends only after every Lua call made
    /// inside it has returned).
    #[inline]
    pub unsafe fn get(&self) -> Option<&World> {
        // SAFETY: as in `with`; the caller keeps the reference within its Lua call.
        unsafe { self.world.get().as_ref() }
    }

    /// Whether a world is lent now.
    #[cfg(test)]
    fn is_lent(&self) -> bool {
        !self.world.get().is_null()
    }
}

/// The lent-world handle of a Lua state (`None` before the host installed it).
pub fn of(lua: &mlua::Lua) -> Option<Rc<LentWorld>> {
    lua.app_data_ref::<Rc<LentWorld>>().map(|l| Rc::clone(&l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loan_ends_with_its_call_even_when_it_panics() {
        let lent = LentWorld::default();
        let world = World::from_ascii(&["..."]);
        assert_eq!(lent.with(|w| w.agents.len()), None);
        let width = lent.lend(&world, || lent.with(|w| w.grid().width()));
        assert_eq!(width, Some(3));
        assert!(!lent.is_lent());
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lent.lend(&world, || panic!("a bug while lent"))
        }));
        assert!(unwound.is_err());
        assert!(!lent.is_lent(), "the loan ended with the panic");
    }

    #[test]
    fn a_nested_loan_gives_the_outer_world_back() {
        let lent = LentWorld::default();
        let (outer, inner) = (World::from_ascii(&["...."]), World::from_ascii(&[".."]));
        lent.lend(&outer, || {
            lent.lend(&inner, || {
                assert_eq!(lent.with(|w| w.grid().width()), Some(2))
            });
            assert_eq!(lent.with(|w| w.grid().width()), Some(4));
        });
        assert!(!lent.is_lent());
    }
}
