//! The extension API of agentbox's patched Lua, declared for Rust in one place.
//!
//! The functions below are the ones the patch series in `vendor/lua-src/patches` adds to
//! `lapi.c` and `lua.h` and the host calls; `vendor/lua-src/PATCHES.md` says why each exists.
//! mlua-sys links the Lua that `[patch.crates-io] lua-src` at the repository root points at, so
//! these symbols exist only if that patch applied. What keeps the two sides in step:
//! - the build script (`build.rs`) refuses a `lua.h` without `LUA_AGENTBOX_PATCHLEVEL` (an
//!   unpatched Lua) and hands its level to [`PATCHLEVEL`]'s compile-time check here;
//! - the tests below call each function once on a fresh state and check its effect, and
//!   compare every declaration with its prototype in the `lua.h` that was compiled.
//!
//! The patched Lua adds a few functions Rust does not call (the tests' `C_ONLY`). A change to
//! the extension API bumps `LUA_AGENTBOX_PATCHLEVEL` in the patch series and [`PATCHLEVEL`]
//! here, together with the declarations. This module declares; it calls nothing itself.

use mlua::ffi::{lua_Integer, lua_State};
use std::ffi::{c_int, c_longlong, c_uint, c_void};

/// The level of the extension API declared here: the patched `lua.h`'s
/// `LUA_AGENTBOX_PATCHLEVEL`, which the build script reads (a mismatch does not compile).
pub const PATCHLEVEL: c_int = 6;

const _: () = assert!(
    level_is(env!("AGENTBOX_LUA_PATCHLEVEL"), PATCHLEVEL),
    "the patched lua.h is at another LUA_AGENTBOX_PATCHLEVEL than crates/agentbox-lua/src/ffi.rs \
     declares: bring the declarations there and its PATCHLEVEL up to date with lua.h"
);

/// Whether `text` is the decimal number `level` (a `const fn`, for the check above).
const fn level_is(text: &str, level: c_int) -> bool {
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return false;
    }
    let mut value: c_int = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || value > (c_int::MAX - 9) / 10 {
            return false;
        }
        value = value * 10 + (bytes[i] - b'0') as c_int;
        i += 1;
    }
    value == level
}

/// [`lua_agentcall`]'s bit: the call spent its work budget (`LUA_AGENTSPENT`).
pub const AGENT_SPENT: c_int = 1;
/// [`lua_agentcall`]'s bit: an allocation was refused for the memory limit or a quota
/// (`LUA_AGENTMEMOUT`).
pub const AGENT_MEMOUT: c_int = 2;
/// [`lua_agentcall`]'s bit: the shared limit named an owner to stop (`LUA_AGENTVICTIM`).
pub const AGENT_VICTIM: c_int = 4;

/// One agent's turn of a [`lua_agentbatch`] (`lua_AgentTurn`): what the host says of it
/// (`reference`, `owner`) and what the VM writes back once its call returned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LuaAgentTurn {
    /// The registry key of the agent's `self`.
    pub reference: lua_Integer,
    /// The owner of what its call allocates.
    pub owner: c_uint,
    /// How its call ended: [`AGENT_SPENT`], [`AGENT_MEMOUT`], [`AGENT_VICTIM`] bits.
    pub ended: c_int,
    /// The Lua type of its result (`LUA_TNIL`, `LUA_TUSERDATA`...; -1 until written).
    pub rtype: c_int,
    /// Its result's identity ([`lua_toidentity`]; null for a value that is no object).
    pub result: *const c_void,
}

impl LuaAgentTurn {
    /// A turn for the agent whose `self` is the registry's `reference`, run as `owner`.
    pub fn new(reference: lua_Integer, owner: c_uint) -> Self {
        LuaAgentTurn {
            reference,
            owner,
            ended: 0,
            rtype: -1,
            result: std::ptr::null(),
        }
    }
}

/// What [`lua_agentbatch`] calls before each agent's call (`lua_AgentNext`): with its `ud` and
/// the turn's number; 0 ends the batch before that call. It may raise a Lua error.
#[allow(non_camel_case_types)]
pub type lua_AgentNext = Option<unsafe extern "C-unwind" fn(ud: *mut c_void, i: c_int) -> c_int>;

extern "C-unwind" {
    /// Sets the work units the running call may still spend (`LUA_NOWORKLIMIT`,
    /// `0x3fff_ffff_ffff_ffff`, for no limit; larger values are clamped to it). The VM charges
    /// 4 per call and a loop body's length per jump back, the libraries the work they do in C;
    /// once below zero, every charge raises `instruction budget exceeded`.
    pub fn lua_setwork(state: *mut lua_State, units: c_longlong);

    /// The work units left: negative once the budget is spent.
    pub fn lua_getwork(state: *mut lua_State) -> c_longlong;

    /// Sets the thread CPU time, in nanoseconds, one budgeted call may take (0: no limit): the
    /// CPU-time net under the count. It is looked at after every C function and at every C
    /// charge, once [`lua_nettick`] has moved; a call over it is stopped as a spent budget
    /// with `cpu time limit exceeded` and sets the flag [`lua_cpuout`] reads.
    pub fn lua_setcpulimit(state: *mut lua_State, ns: c_longlong);

    /// Whether the CPU-time net stopped a call since the last call (1 or 0); clears the flag.
    pub fn lua_cpuout(state: *mut lua_State) -> c_int;

    /// Advances the tick every state's net looks at (one process-wide counter): a host thread
    /// calls it every few milliseconds. Takes no state; safe from any thread.
    pub fn lua_nettick();

    /// Sets the bytes the whole state may hold (0: no limit). An allocation past it collects
    /// garbage first, then fails with a memory error and sets the flag [`lua_memout`] reads.
    pub fn lua_setmemlimit(state: *mut lua_State, bytes: usize);

    /// Whether an allocation was refused for the memory limit or a quota since the last call
    /// (1 or 0); clears the flag.
    pub fn lua_memout(state: *mut lua_State) -> c_int;

    /// Makes `owner` (0 is the host) the owner of the blocks allocated from now on: their bytes
    /// count against it until they are freed, and the tables, functions, userdata and threads
    /// made from now on take their ids (which tables hash them by) from its counter. 0 if its
    /// count could not be made (the memory owner then stays as it was, and ids are the host's),
    /// else 1.
    pub fn lua_setowner(state: *mut lua_State, owner: c_uint) -> c_int;

    /// The bytes the blocks of `owner` hold now (0 for an owner never made current).
    pub fn lua_held(state: *mut lua_State, owner: c_uint) -> usize;

    /// Sets the bytes one owner other than the host may hold (0: no quota). An owner past it
    /// is refused memory.
    pub fn lua_setquota(state: *mut lua_State, bytes: usize);

    /// The owner the VM chose to stop when the shared limit was hit by another owner's
    /// allocation (the largest holder; 0 if none since the last call); clears it.
    pub fn lua_victim(state: *mut lua_State) -> c_uint;

    /// One agent's call in one step: calls the function at `func` with two arguments, the value
    /// the registry holds at `reference` (the agent's `self`) and the value at `arg`, and leaves
    /// its one result on the stack, as `lua_call` would (`func` and `arg` positive, room for
    /// three values). The call is made with `owner` as the owner of what it allocates (as
    /// [`lua_setowner`]; when its count cannot be made, the owner stays as it was) and a fresh
    /// work budget of `units` (as [`lua_setwork`]), the memory flag cleared first. Returns how
    /// it ended, in bits: [`AGENT_SPENT`], [`AGENT_MEMOUT`] (the flag is cleared again) and
    /// [`AGENT_VICTIM`] (read it with [`lua_victim`]). The owner and the budget stay as the
    /// call left them, for the next agent's call to replace, but ids and `tostring`'s numbers
    /// go back to the host's (`lua_idowner` is 0), so what the host makes between agents' calls
    /// moves no agent's. Raises as `lua_call` does.
    pub fn lua_agentcall(
        state: *mut lua_State,
        func: c_int,
        reference: lua_Integer,
        arg: c_int,
        units: c_longlong,
        owner: c_uint,
    ) -> c_int;

    /// The calls of many agents in one step: for each of the `n` turns in order, what
    /// [`lua_agentcall`]`(state, func, turn.reference, arg, units, turn.owner)` does (the same
    /// owner, fresh budget and bits, written to `turn.ended`), and writes its result's type to
    /// `turn.rtype` and its identity ([`lua_toidentity`]) to `turn.result`. `next` (if any) is
    /// called with `ud` and the turn's number before each call, for the host to make that agent
    /// its current one; 0 ends the batch before the call. A call's result stays on top of the
    /// stack while `next` looks at it and is removed when the next call begins, so the last
    /// one's is left there. The batch also ends after a call that ended with a bit set. Returns
    /// how many calls returned (their turns written; if any, the last one's result on the
    /// stack). An error in a call or in `next` propagates as from `lua_call`, the turns before
    /// it written; the owner and budget stay as the last call left them. Needs room for four
    /// values.
    pub fn lua_agentbatch(
        state: *mut lua_State,
        func: c_int,
        arg: c_int,
        turns: *mut LuaAgentTurn,
        n: c_int,
        units: c_longlong,
        next: lua_AgentNext,
        ud: *mut c_void,
    ) -> c_int;

    /// The identity of the value at `idx`: its object's address for a table, string, function,
    /// full userdata or thread, null for any other value. Reads nothing but the value (not a
    /// full userdata's header, unlike `lua_topointer`); never raises.
    pub fn lua_toidentity(state: *mut lua_State, idx: c_int) -> *const c_void;

    /// Sets the counter the current id owner's next table, function, userdata or thread takes
    /// its id from; returns the one it replaces (for the caller to put back). The host gives
    /// what it shares between agents an id that does not depend on who asked for it first.
    pub fn lua_setnextid(state: *mut lua_State, id: c_uint) -> c_uint;

    /// Makes the table at `idx` read-only: every write through the VM or the standard API
    /// (`lua_setfield`, `lua_settable`, `lua_seti`) goes to its `__newindex`, even for a key it
    /// holds (without one, the write raises); `lua_rawset` still writes. Never raises.
    pub fn lua_setreadonly(state: *mut lua_State, idx: c_int);

    /// Lets the table at `idx`, as a metatable, make tables weak by its `__mode`: the collector
    /// honours no other `__mode`, so a script's weak table keeps its entries (what it lost
    /// would show when the collector ran, so how much the other agents allocated). For the
    /// host's own weak tables only. Never raises.
    pub fn lua_hostweak(state: *mut lua_State, idx: c_int);

    /// Lends a proxy its numbers: sets the existing fields named by the short strings at `kx`
    /// and `ky` of the table that the table at `owner` holds raw under the short string at
    /// `kpart` to `x` and `y` (integers if `ints` is not 0), pushes that proxy and returns 1;
    /// returns 0 and pushes nothing if there is no such table or it has no slot for either key.
    /// Allocates nothing and never raises. Indices must be positive.
    #[allow(clippy::too_many_arguments)]
    pub fn lua_lend(
        state: *mut lua_State,
        owner: c_int,
        kpart: c_int,
        kx: c_int,
        ky: c_int,
        x: f64,
        y: f64,
        ints: c_int,
    ) -> c_int;

    /// Empties every field of the table at `obj` (a lent proxy), keeping its slots for the next
    /// [`lua_lend`]. Allocates nothing and never raises. The index must be positive.
    pub fn lua_lendback(state: *mut lua_State, obj: c_int);

    /// The number of hash slots of the table at `idx` (0 when it has none).
    pub fn lua_hashsize(state: *mut lua_State, idx: c_int) -> c_int;

    /// Pushes a copy of the table at `idx`: its array and hash parts with their sizes, each
    /// entry in the slot it has there (so `next` visits the copy's in the same order), made
    /// as `lua_createtable` with those sizes makes a table (the same allocations and the next
    /// object id). Shallow (a table value is the same table in both); no metatable, not
    /// read-only. May raise a memory error.
    pub fn lua_clonetable(state: *mut lua_State, idx: c_int);

    /// Gives the array part of the table at `idx` room for at least `n` entries (nothing
    /// changes if it has that room), at once: as setting its keys 1 to `n` one by one would
    /// grow it, without rehashing it on each doubling. May raise a memory error.
    pub fn lua_reservearray(state: *mut lua_State, idx: c_int, n: c_int);

    /// The level of the extension API the linked Lua was built with
    /// (`LUA_AGENTBOX_PATCHLEVEL`). Only the tests call it: the host is checked against the
    /// header's level when it compiles.
    #[cfg(test)]
    pub fn lua_agentbox_patchlevel() -> c_int;
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlua::ffi;
    use std::ffi::CStr;

    /// Functions of the extension API that only the patched C code calls (the libraries' work
    /// charges, the memory check of `luaL_Buffer` boxes, the traceback's depth, the owner whose
    /// numbers `tostring` gives).
    const C_ONLY: [&str; 6] = [
        "lua_chargework",
        "lua_chargelater",
        "lua_memused",
        "lua_memroom",
        "lua_stackdepth",
        "lua_idowner",
    ];

    /// A fresh state with the standard libraries, closed on drop.
    struct State(*mut lua_State);

    impl State {
        fn new() -> State {
            // SAFETY: `luaL_newstate` makes a new state (null only if out of memory, checked);
            // `luaL_openlibs` only needs a live state.
            unsafe {
                let state = ffi::luaL_newstate();
                assert!(!state.is_null());
                ffi::luaL_openlibs(state);
                State(state)
            }
        }

        /// Runs `code`; the error message if it raised. Leaves the stack as it found it.
        fn run(&self, code: &CStr) -> Result<(), String> {
            // SAFETY: a live state; the chunk and its error are popped before returning.
            unsafe {
                let top = ffi::lua_gettop(self.0);
                let status = match ffi::luaL_loadstring(self.0, code.as_ptr()) {
                    ffi::LUA_OK => ffi::lua_pcall(self.0, 0, 0, 0),
                    failed => failed,
                };
                let result = if status == ffi::LUA_OK {
                    Ok(())
                } else {
                    let message = ffi::lua_tolstring(self.0, -1, std::ptr::null_mut());
                    Err(CStr::from_ptr(message).to_string_lossy().into_owned())
                };
                ffi::lua_settop(self.0, top);
                result
            }
        }

        /// The integer value of the global `name` (0 if it is not a number).
        fn global(&self, name: &CStr) -> i64 {
            // SAFETY: a live state; the value is popped again.
            unsafe {
                ffi::lua_getglobal(self.0, name.as_ptr());
                let value = ffi::lua_tointegerx(self.0, -1, std::ptr::null_mut());
                ffi::lua_settop(self.0, -2);
                value
            }
        }

        /// The bytes the state holds (Lua's own count).
        fn bytes(&self) -> usize {
            // SAFETY: a live state; `lua_gc` with COUNT and COUNTB only reads the count.
            unsafe {
                let kib = ffi::lua_gc(self.0, ffi::LUA_GCCOUNT, 0, 0) as usize;
                kib * 1024 + ffi::lua_gc(self.0, ffi::LUA_GCCOUNTB, 0, 0) as usize
            }
        }
    }

    impl Drop for State {
        fn drop(&mut self) {
            // SAFETY: the state was made by `State::new` and is closed once, here.
            unsafe { ffi::lua_close(self.0) }
        }
    }

    #[test]
    fn the_linked_lua_is_at_the_declared_level() {
        // SAFETY: takes no state and only returns a constant.
        assert_eq!(unsafe { lua_agentbox_patchlevel() }, PATCHLEVEL);
    }

    #[test]
    fn a_spent_work_budget_stops_a_loop() {
        let lua = State::new();
        // SAFETY: a live state; the setters only store a number.
        unsafe {
            lua_setwork(lua.0, 1000);
            assert_eq!(lua_getwork(lua.0), 1000);
        }
        let error = lua.run(c"for i = 1, 1e9 do end").unwrap_err();
        assert!(error.contains("instruction budget exceeded"), "{error}");
        // SAFETY: as above.
        assert!(unsafe { lua_getwork(lua.0) } < 0);
    }

    /// A C function that charges nothing and spins for 30 ms: what the count cannot see, and
    /// the CPU-time net is for.
    unsafe extern "C-unwind" fn uncharged_spin(_state: *mut lua_State) -> c_int {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(30) {
            std::hint::spin_loop();
        }
        0
    }

    #[test]
    fn the_cpu_net_stops_what_the_count_cannot_see() {
        let lua = State::new();
        // SAFETY: a live state; registering a C function and storing limits; `lua_nettick`
        // takes no state.
        unsafe {
            ffi::lua_pushcfunction(lua.0, uncharged_spin);
            ffi::lua_setglobal(lua.0, c"spin".as_ptr());
            lua_setcpulimit(lua.0, 100_000_000);
            lua_setwork(lua.0, 1_000_000_000);
        }
        // The tick moves on its own thread as the host's does.
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ticker = {
            let done = done.clone();
            std::thread::spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    // SAFETY: takes no state; an atomic add.
                    unsafe { lua_nettick() };
                }
            })
        };
        let error = lua.run(c"for i = 1, 1e9 do spin() end").unwrap_err();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        ticker.join().unwrap();
        assert!(error.contains("cpu time limit exceeded"), "{error}");
        // SAFETY: as above; the flag reader clears it.
        unsafe {
            assert!(lua_getwork(lua.0) < 0, "the net spends the budget");
            assert_eq!(lua_cpuout(lua.0), 1);
            assert_eq!(lua_cpuout(lua.0), 0);
            lua_setwork(lua.0, 1_000_000_000);
        }
        // The count alone: a plain loop is stopped by its budget, never by the net.
        // SAFETY: as above.
        unsafe { lua_setwork(lua.0, 100_000) };
        let error = lua.run(c"for i = 1, 1e9 do end").unwrap_err();
        assert!(error.contains("instruction budget exceeded"), "{error}");
        // SAFETY: as above.
        assert_eq!(unsafe { lua_cpuout(lua.0) }, 0);
    }

    #[test]
    fn the_memory_limit_refuses_and_says_so() {
        let lua = State::new();
        // SAFETY: a live state; the setter only stores a number, the flag reader clears one.
        unsafe {
            lua_setmemlimit(lua.0, lua.bytes() + 64 * 1024);
            assert_eq!(lua_memout(lua.0), 0);
        }
        let error = lua.run(c"big = string.rep('x', 1000000)").unwrap_err();
        assert!(error.contains("not enough memory"), "{error}");
        // SAFETY: as above.
        unsafe {
            assert_eq!(lua_memout(lua.0), 1);
            assert_eq!(lua_memout(lua.0), 0, "reading the flag clears it");
            lua_setmemlimit(lua.0, 0);
        }
        lua.run(c"big = string.rep('x', 1000000)").unwrap();
    }

    #[test]
    fn memory_counts_against_its_owner_its_quota_and_the_largest_holder() {
        let lua = State::new();
        // SAFETY: a live state throughout; the setters store numbers, `lua_setowner` grows
        // the owners' counts, the readers read (and the victim's reader clears) one.
        unsafe {
            lua_setquota(lua.0, 1 << 20);
            assert_eq!(lua_setowner(lua.0, 1), 1);
            lua.run(c"one = string.rep('a', 600000)").unwrap();
            assert!(lua_held(lua.0, 1) >= 600_000, "{}", lua_held(lua.0, 1));
            assert_eq!(lua_held(lua.0, 2), 0);

            // Owner 2 is refused past its quota, and only owner 2.
            assert_eq!(lua_setowner(lua.0, 2), 1);
            let error = lua.run(c"two = string.rep('b', 2000000)").unwrap_err();
            assert!(error.contains("not enough memory"), "{error}");
            assert_eq!(lua_memout(lua.0), 1);

            // At the shared limit, owner 2 goes on and owner 1, the largest holder, is named.
            lua_setmemlimit(lua.0, lua.bytes() + 200 * 1024);
            lua.run(c"two = string.rep('b', 300000)").unwrap();
            assert_eq!(lua_victim(lua.0), 1);
            assert_eq!(lua_victim(lua.0), 0, "reading the victim clears it");
            assert_eq!(lua_setowner(lua.0, 0), 1);
        }
    }

    #[test]
    fn an_agent_call_sets_its_owner_and_budget_and_says_how_it_ended() {
        let lua = State::new();
        // SAFETY: a live state throughout; each chunk is loaded at 2 and called with room
        // for three values (a C function's 20), its result checked at 3.
        unsafe {
            // `f(me, arg)` with `me` the registry's value at `reference` and `arg` at 1: `f`
            // is a chunk (at 2), which sees them as `...`.
            ffi::lua_pushinteger(lua.0, 7);
            let reference = ffi::luaL_ref(lua.0, ffi::LUA_REGISTRYINDEX) as lua_Integer;
            ffi::lua_pushinteger(lua.0, 5);
            let call = |code: &CStr, units: i64, owner: u32| {
                ffi::lua_settop(lua.0, 1);
                // Compiling is charged: the host compiles outside calls, with no limit.
                lua_setwork(lua.0, 0x3fff_ffff_ffff_ffff);
                assert_eq!(ffi::luaL_loadstring(lua.0, code.as_ptr()), ffi::LUA_OK);
                let ended = lua_agentcall(lua.0, 2, reference, 1, units, owner);
                assert_eq!(ffi::lua_gettop(lua.0), 3, "the one result on top");
                ended
            };
            assert_eq!(
                call(c"local me, arg = ... return me * 10 + arg", 1000, 3),
                0
            );
            assert_eq!(ffi::lua_tointegerx(lua.0, 3, std::ptr::null_mut()), 75);
            lua_setquota(lua.0, 1 << 20);
            let left = lua_getwork(lua.0);
            assert!(
                (900..1000).contains(&left),
                "the budget given, less the call: {left}"
            );
            assert_eq!(call(c"one = string.rep('a', 100000)", 1_000_000, 1), 0);
            assert!(lua_held(lua.0, 1) >= 100_000, "{}", lua_held(lua.0, 1));
            // A spent budget is said, and left spent (a pcall swallowed the error).
            let spent = call(c"pcall(function() for i = 1, 1e9 do end end)", 1000, 2);
            assert_eq!(spent, AGENT_SPENT);
            assert!(lua_getwork(lua.0) < 0);
            // An allocation refused (past the owner's quota) is said once.
            let refused = call(c"pcall(string.rep, 'x', 2000000)", 10_000_000, 2);
            assert_eq!(refused, AGENT_MEMOUT);
            assert_eq!(lua_memout(lua.0), 0, "the flag was read");
            // The shared limit names the largest holder, owner 1, while owner 2 goes on.
            lua_setmemlimit(lua.0, lua.bytes() + 20 * 1024);
            let named = call(c"two = string.rep('b', 60000)", 1_000_000, 2);
            assert_eq!(named, AGENT_VICTIM);
            assert_eq!(lua_victim(lua.0), 1);
            lua_setmemlimit(lua.0, 0);
        }
    }

    /// Counts the calls of [`batch_next`] and ends the batch at the turn it holds.
    struct Stopper {
        state: *mut lua_State,
        calls: c_int,
        stop_at: c_int,
    }

    unsafe extern "C-unwind" fn batch_next(ud: *mut c_void, i: c_int) -> c_int {
        // SAFETY: the test hands a live `Stopper` as `ud`, its state the batch's.
        let stopper = unsafe { &mut *(ud as *mut Stopper) };
        assert_eq!(i, stopper.calls, "called once per turn, in order");
        // SAFETY: as above; reads the stack's size.
        let top = unsafe { ffi::lua_gettop(stopper.state) };
        assert_eq!(top, 2 + (i > 0) as c_int, "the call before's result on top");
        stopper.calls += 1;
        (i != stopper.stop_at) as c_int
    }

    #[test]
    fn a_batch_calls_each_agent_as_an_agent_call_and_writes_its_turn() {
        let lua = State::new();
        // SAFETY: a live state throughout; the chunk is loaded at 2 with the argument at 1 and
        // room for three more values; the turns and the stopper outlive each batch.
        unsafe {
            let mut refs = Vec::new();
            for n in 1..=4 {
                ffi::lua_pushinteger(lua.0, n);
                refs.push(ffi::luaL_ref(lua.0, ffi::LUA_REGISTRYINDEX) as lua_Integer);
            }
            ffi::lua_pushinteger(lua.0, 10);
            lua_setwork(lua.0, 0x3fff_ffff_ffff_ffff);
            let code = c"local me, arg = ...
                if me == 2 then kept = {} return kept end
                if me == 3 then one = string.rep('a', 100000) return 'three' end
                if me == 4 then pcall(function() for i = 1, 1e9 do end end) end
                return me * arg";
            assert_eq!(ffi::luaL_loadstring(lua.0, code.as_ptr()), ffi::LUA_OK);
            let turns = |owners: &[u32]| {
                let turns: Vec<LuaAgentTurn> = refs
                    .iter()
                    .zip(owners)
                    .map(|(&r, &o)| LuaAgentTurn::new(r, o))
                    .collect();
                turns
            };
            let mut stopper = Stopper {
                state: lua.0,
                calls: 0,
                stop_at: -1,
            };
            let ud = &mut stopper as *mut Stopper as *mut c_void;
            // All four: the fourth spends its budget and is the last written.
            let mut all = turns(&[1, 2, 3, 4]);
            let ran = lua_agentbatch(
                lua.0,
                2,
                1,
                all.as_mut_ptr(),
                4,
                100_000,
                Some(batch_next),
                ud,
            );
            assert_eq!(ran, 4);
            assert_eq!(
                ffi::lua_gettop(lua.0),
                3,
                "the last result left on the stack"
            );
            ffi::lua_settop(lua.0, 2);
            assert_eq!((all[0].ended, all[0].rtype), (0, ffi::LUA_TNUMBER));
            assert!(all[0].result.is_null(), "a number is no object");
            assert_eq!((all[1].ended, all[1].rtype), (0, ffi::LUA_TTABLE));
            ffi::lua_getglobal(lua.0, c"kept".as_ptr());
            assert_eq!(
                all[1].result,
                lua_toidentity(lua.0, -1),
                "the table returned"
            );
            ffi::lua_settop(lua.0, 2);
            assert_eq!(all[2].rtype, ffi::LUA_TSTRING);
            assert!(
                lua_held(lua.0, 3) >= 100_000,
                "turn 3's owner holds its string"
            );
            assert_eq!(lua_held(lua.0, 1), 0);
            assert_eq!(all[3].ended, AGENT_SPENT);
            assert!(
                lua_getwork(lua.0) < 0,
                "left spent, as lua_agentcall leaves it"
            );
            assert_eq!(stopper.calls, 4);
            // A spent budget ends the batch after that agent.
            let mut spent = turns(&[1, 4, 1, 2]);
            spent.swap(1, 3);
            stopper.calls = 0;
            let ran = lua_agentbatch(
                lua.0,
                2,
                1,
                spent.as_mut_ptr(),
                4,
                100_000,
                Some(batch_next),
                ud,
            );
            assert_eq!(ran, 2);
            assert_eq!(spent[1].ended, AGENT_SPENT);
            ffi::lua_settop(lua.0, 2);
            // The host's `next` ends it before a call.
            let mut stopped = turns(&[1, 2, 3, 4]);
            stopper.calls = 0;
            stopper.stop_at = 1;
            let ran = lua_agentbatch(
                lua.0,
                2,
                1,
                stopped.as_mut_ptr(),
                4,
                100_000,
                Some(batch_next),
                ud,
            );
            assert_eq!((ran, stopper.calls), (1, 2));
            assert_eq!(
                ffi::lua_tointegerx(lua.0, 3, std::ptr::null_mut()),
                10,
                "turn 0's result"
            );
            // An error propagates, the turns before it written.
            ffi::lua_settop(lua.0, 1);
            let code = c"local me = ... if me == 2 then error('two') end return me";
            assert_eq!(ffi::luaL_loadstring(lua.0, code.as_ptr()), ffi::LUA_OK);
            unsafe extern "C-unwind" fn batch(state: *mut lua_State) -> c_int {
                // SAFETY: called by `lua_pcall` below with the turns as a light userdata at 3.
                unsafe {
                    let turns = ffi::lua_touserdata(state, 3) as *mut LuaAgentTurn;
                    lua_agentbatch(state, 2, 1, turns, 4, 100_000, None, std::ptr::null_mut());
                }
                0
            }
            let mut failing = turns(&[1, 2, 3, 4]);
            ffi::lua_pushcfunction(lua.0, batch);
            ffi::lua_insert(lua.0, 1);
            ffi::lua_pushlightuserdata(lua.0, failing.as_mut_ptr() as *mut c_void);
            assert_eq!(ffi::lua_pcall(lua.0, 3, 0, 0), ffi::LUA_ERRRUN);
            assert_eq!(failing[0].rtype, ffi::LUA_TNUMBER);
            assert_eq!(failing[2].rtype, -1, "no turn written after the error");
        }
    }

    /// The order `pairs` visits tables, functions and threads in, as a string of their indices.
    const WALK: &CStr = c"local keys = {} \
        for i = 1, 40 do keys[i] = ({ {}, function() end, coroutine.create(print) })[i % 3 + 1] end \
        local t, index = {}, {} \
        for i, k in ipairs(keys) do t[k] = i; index[k] = i end \
        t[print] = 0; t[string.len] = -1 \
        local seen = {} \
        for k, v in pairs(t) do seen[#seen + 1] = v end \
        order = table.concat(seen, ',')";

    /// The global string `name`.
    fn global_string(lua: &State, name: &CStr) -> String {
        // SAFETY: a live state; the value is popped again.
        unsafe {
            ffi::lua_getglobal(lua.0, name.as_ptr());
            let text = ffi::lua_tolstring(lua.0, -1, std::ptr::null_mut());
            let text = CStr::from_ptr(text).to_string_lossy().into_owned();
            ffi::lua_settop(lua.0, -2);
            text
        }
    }

    #[test]
    fn tables_keyed_by_tables_are_walked_in_the_same_order_wherever_they_live() {
        // Two states, whose objects lie at other addresses, and a third whose heap was
        // disturbed first (by strings, which take no id): the same order each time.
        let first = State::new();
        first.run(WALK).unwrap();
        let second = State::new();
        second.run(WALK).unwrap();
        let third = State::new();
        // SAFETY: a live state; 1000 strings pushed (room checked) and popped again.
        unsafe {
            assert_ne!(ffi::lua_checkstack(third.0, 1000), 0);
            let text = [b'x'; 1000];
            for i in 1..=1000 {
                ffi::lua_pushlstring(third.0, text.as_ptr().cast(), i);
            }
            ffi::lua_settop(third.0, 0);
        }
        third.run(WALK).unwrap();
        let order = global_string(&first, c"order");
        assert_eq!(order.split(',').count(), 42, "{order}");
        assert_eq!(global_string(&second, c"order"), order);
        assert_eq!(global_string(&third, c"order"), order);
    }

    #[test]
    fn each_owner_counts_its_own_ids_and_the_host_has_them_between_agent_calls() {
        let lua = State::new();
        // SAFETY: a live state; the setter stores fields and may grow the count arrays.
        unsafe { assert_eq!(lua_setowner(lua.0, 1), 1) };
        lua.run(c"first = tostring({})").unwrap();
        // SAFETY: as above.
        unsafe { assert_eq!(lua_setowner(lua.0, 2), 1) };
        lua.run(c"for i = 1, 100 do tostring({}) end other = tostring({})")
            .unwrap();
        // SAFETY: as above.
        unsafe { assert_eq!(lua_setowner(lua.0, 1), 1) };
        lua.run(c"second = tostring({})").unwrap();
        assert_eq!(global_string(&lua, c"first"), "table: #1");
        assert_eq!(global_string(&lua, c"other"), "table: #101");
        assert_eq!(
            global_string(&lua, c"second"),
            "table: #2",
            "owner 2's names do not move owner 1's"
        );
        // Owner 3 names five tables in an agent's call; the host then names its first.
        // SAFETY: a live state; the chunk is called with one argument at 1 and room for three.
        unsafe {
            ffi::lua_settop(lua.0, 0);
            ffi::lua_pushinteger(lua.0, 1);
            let code = c"for i = 1, 5 do tostring({}) end";
            assert_eq!(ffi::luaL_loadstring(lua.0, code.as_ptr()), ffi::LUA_OK);
            lua_agentcall(lua.0, 2, 0, 1, 1_000_000, 3);
            ffi::lua_settop(lua.0, 0);
        }
        lua.run(c"host = tostring({})").unwrap();
        assert_eq!(
            global_string(&lua, c"host"),
            "table: #1",
            "the host's numbers after an agent's call"
        );
    }

    #[test]
    fn a_read_only_table_sends_every_write_to_newindex() {
        let lua = State::new();
        lua.run(c"hits = 0; ro = setmetatable({ x = 1 }, { __newindex = function() hits = hits + 1 end })")
            .unwrap();
        // SAFETY: a live state; `ro` is a table at index 1 while it is made read-only.
        unsafe {
            ffi::lua_getglobal(lua.0, c"ro".as_ptr());
            lua_setreadonly(lua.0, 1);
            ffi::lua_settop(lua.0, 0);
        }
        lua.run(c"ro.x = 2; rawset(ro, 'y', 3); held = rawget(ro, 'x') * 10 + ro.y")
            .unwrap();
        assert_eq!(
            lua.global(c"hits"),
            1,
            "the write to a held key went to __newindex"
        );
        assert_eq!(
            lua.global(c"held"),
            13,
            "the held key kept its value; rawset wrote"
        );
    }

    #[test]
    fn a_lent_proxy_holds_the_numbers_until_given_back() {
        let lua = State::new();
        lua.run(c"proxy = { x = 0, y = 0 }; owner = { pos = proxy }")
            .unwrap();
        // SAFETY: a live state; the owner table and three short strings sit at 1 to 4, the
        // lent proxy is pushed at 5 and given back from there.
        unsafe {
            ffi::lua_getglobal(lua.0, c"owner".as_ptr());
            for key in [c"pos", c"x", c"y"] {
                ffi::lua_pushstring(lua.0, key.as_ptr());
            }
            assert_eq!(lua_lend(lua.0, 1, 2, 3, 4, 1.5, 2.5, 0), 1);
            assert_eq!(ffi::lua_gettop(lua.0), 5);
            lua.run(c"lent = proxy.x * 10 + proxy.y * 100").unwrap();
            lua_lendback(lua.0, 5);
            ffi::lua_settop(lua.0, 0);
        }
        assert_eq!(lua.global(c"lent"), 265);
        lua.run(c"assert(proxy.x == nil and proxy.y == nil)")
            .unwrap();
    }

    #[test]
    fn only_a_metatable_the_host_marked_makes_a_table_weak() {
        let lua = State::new();
        lua.run(c"script = setmetatable({}, { __mode = 'k' }); late = setmetatable({}, {}); getmetatable(late).__mode = 'k'; host = {}; hostmeta = { __mode = 'k' }")
            .unwrap();
        // SAFETY: a live state; `hostmeta` is a table at index 1 while it is marked.
        unsafe {
            ffi::lua_getglobal(lua.0, c"hostmeta".as_ptr());
            lua_hostweak(lua.0, 1);
            ffi::lua_settop(lua.0, 0);
        }
        lua.run(c"setmetatable(host, hostmeta); for _, t in ipairs({ script, late, host }) do t[{}] = true end; collectgarbage(); n = (next(script) and 1 or 0) + (next(late) and 10 or 0) + (next(host) and 100 or 0)")
            .unwrap();
        assert_eq!(
            lua.global(c"n"),
            11,
            "the scripts' weak tables kept their key (__mode set before or after setmetatable); the host's lost it"
        );
        // `tostring`'s numbers (lauxlib's own weak tables) keep nothing alive.
        lua.run(c"tostring({}); collectgarbage()").unwrap();
        let before = lua.bytes();
        lua.run(c"for i = 1, 20000 do tostring({}) end; collectgarbage()")
            .unwrap();
        let after = lua.bytes();
        assert!(
            after < before + 64 * 1024,
            "20,000 numbered tables were kept: {before} bytes, then {after}"
        );
    }

    /// `0024-small-block-pool`: small blocks come from slabs the state's allocator gives; once
    /// a hoard of small tables is collected, its slabs go back (all but the few the pool keeps),
    /// so the memory the host sees falls back with Lua's own count.
    #[test]
    fn the_small_block_pool_gives_emptied_slabs_back() {
        let lua = mlua::Lua::new();
        lua.gc_collect().unwrap();
        let before = lua.used_memory();
        lua.load("hoard = {} for i = 1, 200000 do hoard[i] = { i } end")
            .exec()
            .unwrap();
        let full = lua.used_memory();
        assert!(full > before + 16 * 1024 * 1024, "{before} -> {full}");
        lua.load("hoard = nil").exec().unwrap();
        lua.gc_collect().unwrap();
        lua.gc_collect().unwrap();
        let after = lua.used_memory();
        assert!(
            after < before + 2 * 1024 * 1024,
            "the pool kept {after} bytes after the hoard went ({before} before, {full} full)"
        );
        // The freed blocks are handed out again: a second hoard works as the first did.
        lua.load("hoard = {} for i = 1, 200000 do hoard[i] = { i } end assert(#hoard == 200000)")
            .exec()
            .unwrap();
    }

    #[test]
    fn hashsize_counts_a_tables_slots() {
        let lua = State::new();
        // SAFETY: a live state; the two tables are pushed and popped again.
        unsafe {
            ffi::lua_createtable(lua.0, 0, 5);
            assert_eq!(lua_hashsize(lua.0, -1), 8);
            ffi::lua_createtable(lua.0, 4, 0);
            assert_eq!(lua_hashsize(lua.0, -1), 0);
            ffi::lua_settop(lua.0, 0);
        }
    }

    #[test]
    fn a_cloned_table_has_the_originals_entries_sizes_and_order() {
        let lua = State::new();
        lua.run(c"t = { 1, 2, 3, x = 1, y = 'two', z = { 3 } } t[7] = 7 t.gone = 1 t.gone = nil")
            .unwrap();
        // SAFETY: a live state; `t` and its copy are pushed, read and popped again.
        unsafe {
            ffi::lua_getglobal(lua.0, c"t".as_ptr());
            lua_clonetable(lua.0, 1);
            assert_eq!(lua_hashsize(lua.0, 2), lua_hashsize(lua.0, 1));
            assert_ne!(ffi::lua_topointer(lua.0, 1), ffi::lua_topointer(lua.0, 2));
            ffi::lua_setglobal(lua.0, c"c".as_ptr());
            ffi::lua_settop(lua.0, 0);
        }
        let same = r#"
            local a, b = {}, {}
            for k, v in pairs(t) do a[#a + 1] = tostring(k) .. "=" .. tostring(v) end
            for k, v in pairs(c) do b[#b + 1] = tostring(k) .. "=" .. tostring(v) end
            assert(table.concat(a, ",") == table.concat(b, ","), table.concat(b, ","))
            assert(#a == 7 and #c == 3 and c.z == t.z and getmetatable(c) == nil)
            c.w = 4; c[4] = 4; c.x = nil
            assert(t.w == nil and t[4] == nil and t.x == 1 and c.w == 4 and c[4] == 4)
            for i = 1, 100 do c["k" .. i] = i end
            assert(c.k100 == 100 and t.k100 == nil)
        "#;
        lua.run(&std::ffi::CString::new(same).unwrap()).unwrap();
    }

    #[test]
    fn a_reserved_array_part_takes_its_keys_without_growing() {
        let lua = State::new();
        let setup = c"collectgarbage('stop') t, u = { 1, 2, x = 1 }, { 1, 2, x = 1 }
            function fill(t) for i = 3, 1000 do t[i] = i end end";
        lua.run(setup).unwrap();
        // SAFETY: a live state; `t` is pushed and popped again.
        unsafe {
            ffi::lua_getglobal(lua.0, c"t".as_ptr());
            lua_reservearray(lua.0, 1, 1000);
            lua_reservearray(lua.0, 1, 10);
            ffi::lua_settop(lua.0, 0);
        }
        let grown = |name: &CStr| {
            let before = lua.bytes();
            lua.run(name).unwrap();
            lua.bytes() - before
        };
        // Only the chunk that calls `fill` is allocated for the reserved table; the other's
        // array part grows to 1,024 slots of 16 bytes.
        let (reserved, plain) = (grown(c"fill(t)"), grown(c"fill(u)"));
        assert!(reserved < 2048 && plain > 16_000, "{reserved} {plain}");
        lua.run(c"assert(#t == 1000 and t.x == 1 and t[1] == 1 and t[1000] == 1000)")
            .unwrap();
    }

    /// A C type as written in a prototype, without the parameter's name and extra spaces.
    fn c_type(param: &str) -> String {
        let param = param.trim();
        let bare = param.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
        let ty = if bare.trim().is_empty() { param } else { bare };
        ty.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(" *", "*")
    }

    /// The C type a Rust type of the declarations above stands for.
    fn as_c(rust: &str) -> &'static str {
        match rust.trim() {
            "*mut lua_State" => "lua_State*",
            "c_longlong" => "long long",
            "usize" => "size_t",
            "c_int" => "int",
            "c_uint" => "unsigned int",
            "lua_Integer" => "lua_Integer",
            "f64" => "lua_Number",
            "*mut LuaAgentTurn" => "lua_AgentTurn*",
            "lua_AgentNext" => "lua_AgentNext",
            "*mut c_void" => "void*",
            "*const c_void" => "const void *",
            "" => "void",
            other => panic!("add {other} to as_c"),
        }
    }

    /// (name, return type, parameter types) of each declaration in the extern block above.
    fn rust_declarations() -> Vec<(String, String, Vec<String>)> {
        let source = include_str!("ffi.rs");
        let start = source.find("extern \"C-unwind\" {").unwrap();
        let end = start + source[start..].find("\n}\n").unwrap();
        let code: String = source[start..end]
            .lines()
            .skip(1)
            .filter(|l| !l.trim_start().starts_with("///") && !l.trim_start().starts_with("#["))
            .collect::<Vec<_>>()
            .join(" ");
        code.split(';')
            .filter_map(|item| item.split_once("fn "))
            .map(|(_, item)| {
                let (name, rest) = item.split_once('(').unwrap();
                let (params, ret) = rest.rsplit_once(')').unwrap();
                let ret = ret.trim().trim_start_matches("->");
                let params = params
                    .split(',')
                    .filter(|p| !p.trim().is_empty())
                    .map(|p| as_c(p.split_once(':').unwrap().1).to_string())
                    .collect();
                (name.trim().to_string(), as_c(ret).to_string(), params)
            })
            .collect()
    }

    /// The same of each function `lua.h` declares after its first `agentbox:` comment.
    fn header_prototypes() -> Vec<(String, String, Vec<String>)> {
        let path = std::path::Path::new(env!("AGENTBOX_LUA_INCLUDE")).join("lua.h");
        let header = std::fs::read_to_string(&path).unwrap();
        let ours = &header[header.find("agentbox:").expect("a patched lua.h")..];
        let mut out = Vec::new();
        let mut rest = ours;
        while let Some(at) = rest.find("LUA_API") {
            let end = at + rest[at..].find(';').unwrap();
            let proto = rest[at + "LUA_API".len()..end].replace('\n', " ");
            rest = &rest[end..];
            // `ret (name) (params)`
            let (ret, after) = proto.split_once('(').unwrap();
            let (name, params) = after.split_once(')').unwrap();
            let params = params.trim().trim_start_matches('(').trim_end_matches(')');
            let params = if params.trim() == "void" {
                Vec::new()
            } else {
                params.split(',').map(c_type).collect()
            };
            let ret = ret.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push((name.trim().to_string(), ret, params));
            if name.trim() == "lua_agentbox_patchlevel" {
                break;
            }
        }
        out
    }

    #[test]
    fn each_declaration_matches_its_prototype_in_the_compiled_lua_h() {
        let header = header_prototypes();
        let rust = rust_declarations();
        assert_eq!(rust.len(), 23, "{rust:?}");
        for declared in &rust {
            let proto = header.iter().find(|p| p.0 == declared.0);
            assert_eq!(proto, Some(declared), "{} differs from lua.h", declared.0);
        }
        for proto in &header {
            assert!(
                rust.iter().any(|r| r.0 == proto.0) || C_ONLY.contains(&proto.0.as_str()),
                "lua.h's {} is neither declared here nor listed in C_ONLY",
                proto.0
            );
        }
        for name in C_ONLY {
            assert!(header.iter().any(|p| p.0 == name), "{name} is not in lua.h");
        }
    }
}
