//! Limits that keep one runaway script from stopping the scene: a work budget per call of
//! `init`/`decide`/`on_reload` (and per module load, `expect` check), and a memory limit.
//!
//! The budget is counted by the patched Lua VM itself (`vendor/lua-src/PATCHES.md`), on the
//! thread that runs the state: every call costs a few units, every jump back (a loop's next
//! pass) costs the length of the loop's body in instructions, and the libraries charge for
//! the work they do in C (a pattern match's steps, `string.rep`'s copies, `table.sort`'s
//! comparisons, `load`'s source). Every byte C goes over is paid where every library function
//! passes (patch `0016-choke-point-charges`): a unit per 16 bytes of each string a C function
//! reads (`lua_tolstring`, so `luaL_checklstring`), per 128 bytes of a `luaL_Buffer` as it
//! grows, per 4 values of `...` copied, per 16 bytes of a long string hashed or compared or a
//! string read as a number, per chain node past the eighth a lookup visits, per 8 empty slots
//! `next` skips, per KiB in use at an emergency collection; compiling pays a unit per token
//! and per step of the parser's jump lists, so a script file is compiled under a call's
//! budget too. Nothing is timed, so a budget stop happens at the same instruction in every
//! run, and no other thread touches the Lua state.
//!
//! Under the count there is a net in time, for work the count does not see: each budgeted
//! call may take `budget.cpu_ms` of thread CPU time ([`Budget::set_cpu_ms`]; by default the
//! larger of 250 ms and 2.5 us per unit). The VM looks at it after every C function and at
//! every C charge, against a tick one process-wide thread moves every 5 ms while a budgeted
//! call runs anywhere in the process ([`start_net_tick`], the only thread that touches
//! anything of Lua's: an atomic counter, never a state); with none running (an idle window,
//! the time between ticks) it sleeps until the next call starts ([`net_enter`]). A call it stops ends as a spent budget and [`Stop::Cpu`]: a clock decided
//! it, so a replay may differ from there (the trace says so). The hostile corpus checks that
//! the count stops every known case first.
//!
//! Once spent, the budget stays spent for the rest of the call: the VM raises
//! `file.lua:LINE: instruction budget exceeded` again at every later charge, so neither
//! `pcall`, `xpcall`, an error handler, a `__close` method nor `coroutine.close` can go on
//! running, and a call whose budget ran out counts as failed even if a `pcall` swallowed the
//! error ([`Budget::end`] says so).
//!
//! Memory is counted by the VM too, per agent: every block Lua allocates carries the number of
//! the agent (the *owner*) whose call allocated it, and the VM keeps the bytes each owner holds,
//! so a block stays counted against its maker whoever's call the collector frees it in. Two
//! limits hold: what one agent may hold (its quota) and what all scripts together may hold
//! (the cap). An agent over its quota is refused; when the cap is hit, the largest holder is
//! the one stopped, and the agent whose allocation found the cap full goes on: the VM names
//! the largest holder (the *victim*) and the host stops it and releases its memory after the
//! call. No agent gets a memory error for another's bytes.
//!
//! The host's own allocations never meet a full cap: between calls (and in
//! [`Budget::as_host`]) the state may hold a [reserve](host_reserve) more than the cap, so
//! stopping an agent, clearing its memory or making the next round's views cannot be refused
//! (a refusal there would fail the host's own work, between any two agents' calls); a call
//! starts with the cap itself again.
//!
//! Inside a call, a refusal can meet a binding (a Rust function Lua called) at any of the
//! allocations it makes through mlua: a result table, a string, a field set. mlua protects those
//! calls only when it holds a memory limit of its own, so [`Budget::install`] gives it one its
//! allocator never reaches (`protect_mlua_allocations`): the refusal then comes back to the
//! binding as an error and its Rust frames return, where it would otherwise `longjmp` through
//! them and skip their destructors. Our own C-API code either runs inside `exec_raw` (a
//! protected call) or is a raw C function that keeps nothing needing a drop alive across a call
//! that may raise (`raw.rs`'s audit rules), so a refusal anywhere ends as a memory stop and
//! nothing the host holds is left half-done.
//!
//! Beside what the VM counts, each agent has an account of the host's memory kept on its
//! behalf (`host_memory.rs`: flow handles, queued effects, labels, print lines, plots,
//! drawings). What the VM says an agent holds and what the host keeps for it together stay
//! within its quota; past it the host refuses, and the call ends as a memory stop
//! ([`Stop::Memory`]) whatever a `pcall` made of the refusal.

use crate::ffi::{
    lua_cpuout, lua_getwork, lua_held, lua_memout, lua_nettick, lua_setcpulimit, lua_setmemlimit,
    lua_setnextid, lua_setowner, lua_setquota, lua_setwork, lua_victim, AGENT_MEMOUT, AGENT_SPENT,
    AGENT_VICTIM,
};
use mlua::{ffi, Lua};
use std::cell::Cell;
use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Units a budget without limit holds (the patched `LUA_NOWORKLIMIT`).
const NO_LIMIT: i64 = 0x3fff_ffff_ffff_ffff;

/// Work units one call may spend by default: about 2M Lua instructions.
pub const DEFAULT_INSTRUCTIONS: u64 = 2_000_000;

/// The least thread CPU time one budgeted call may take by default, in milliseconds.
pub const DEFAULT_CPU_MS_FLOOR: u64 = 250;

/// Thread CPU time one unit of a call's budget may take by default, in nanoseconds: the CPU
/// limit defaults to the larger of [`DEFAULT_CPU_MS_FLOOR`] and this per unit (5 s for the
/// default 2M units).
pub const DEFAULT_CPU_NS_PER_UNIT: u64 = 2_500;

/// How often the process-wide tick the CPU-time net looks at moves.
const NET_TICK: std::time::Duration = std::time::Duration::from_millis(5);

/// Bytes the Lua state may hold by default.
pub const DEFAULT_MEMORY: usize = 256 * 1024 * 1024;

/// Bytes one agent may hold at most (its quota; a quarter of the cap if that is less): an
/// agent that allocates more (a memory bomb) is the one stopped, before it starves the others.
pub const DEFAULT_AGENT_MEMORY: usize = 64 * 1024 * 1024;

/// The owner number of the host's own allocations (agents are numbered from 1).
pub const HOST: u32 = 0;

/// Whether the work budget is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No work budget (for measuring the cost of enforcement only).
    Off,
    /// Every call is counted from its first instruction (the default).
    Counted,
}

/// The work budget and memory limit of one host's Lua state. Lives on the state's thread;
/// every method is a few loads and stores on the VM's global state.
pub struct Budget {
    /// The main Lua state (any thread of it reaches the same counters).
    main: *mut ffi::lua_State,
    units: Cell<i64>,
    /// `budget.cpu_ms`: the thread CPU time one call may take; `None`: from the units.
    cpu_ms: Cell<Option<u64>>,
    mode: Cell<Mode>,
    /// How many budgeted calls are running (a `require` inside a `decide` runs inside it and
    /// must not refill the budget).
    depth: Cell<u32>,
    /// Bytes the whole state may hold.
    cap: Cell<usize>,
    /// The owner of the running call (the host's between calls).
    owner: Cell<u32>,
    /// The agent the VM named for the cap and the host has not stopped yet.
    victim: Cell<Option<u32>>,
    /// Whether the VM's limit is the cap plus the host's reserve (between calls).
    reserve_on: Cell<bool>,
    /// Whether this state counts in [`NET_RUNNING`] (from a call's start to the end of the
    /// call, or of the batch of agents' calls).
    net_on: Cell<bool>,
    /// Bytes the host keeps on each owner's behalf, by owner number (`host_memory.rs`).
    host_held: std::cell::RefCell<Vec<usize>>,
    /// What the host refused to keep for the running call (it went over the agent's quota).
    host_refused: Cell<Option<&'static str>>,
}

/// The token of a running budgeted call, handed back to [`Budget::end`].
#[must_use]
pub struct Call {
    outer: bool,
}

impl Budget {
    /// Installs the budget on a Lua state, with a limit of `memory` bytes for the whole state.
    pub fn install(lua: &Lua, memory: usize) -> mlua::Result<Budget> {
        let mut main = std::ptr::null_mut();
        // SAFETY: inside `exec_raw` the state is valid and its stack is ours; we push the
        // main thread and pop it again.
        unsafe {
            lua.exec_raw::<()>((), |state| {
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ffi::LUA_RIDX_MAINTHREAD);
                main = ffi::lua_tothread(state, -1);
                ffi::lua_settop(state, -2);
            })?;
        }
        let budget = Budget {
            main,
            units: Cell::new(DEFAULT_INSTRUCTIONS as i64),
            cpu_ms: Cell::new(None),
            mode: Cell::new(Mode::Counted),
            depth: Cell::new(0),
            cap: Cell::new(memory),
            owner: Cell::new(HOST),
            victim: Cell::new(None),
            reserve_on: Cell::new(false),
            net_on: Cell::new(false),
            host_held: Default::default(),
            host_refused: Cell::new(None),
        };
        budget.set_memory_limit(memory);
        protect_mlua_allocations(lua)?;
        start_net_tick();
        budget.set_cpu_limit();
        Ok(budget)
    }

    /// Sets the work units one call may spend.
    pub fn set_instructions(&self, instructions: u64) {
        self.units.set(instructions.min(NO_LIMIT as u64) as i64);
        self.set_cpu_limit();
    }

    /// Sets the thread CPU time one call may take (`budget.cpu_ms`); `None`: the default, the
    /// larger of 250 ms and 2.5 us per unit of the call's budget.
    pub fn set_cpu_ms(&self, ms: Option<u64>) {
        self.cpu_ms.set(ms);
        self.set_cpu_limit();
    }

    fn cpu_ns(&self) -> u64 {
        if self.mode.get() == Mode::Off {
            return 0;
        }
        match self.cpu_ms.get() {
            Some(ms) => ms.saturating_mul(1_000_000),
            None => (self.units.get().max(0) as u64)
                .saturating_mul(DEFAULT_CPU_NS_PER_UNIT)
                .max(DEFAULT_CPU_MS_FLOOR * 1_000_000),
        }
    }

    fn set_cpu_limit(&self) {
        let ns = self.cpu_ns().min(i64::MAX as u64) as i64;
        // SAFETY: as in `set_memory_limit`; the call only stores fields.
        unsafe { lua_setcpulimit(self.main, ns) };
    }

    pub fn set_mode(&self, mode: Mode) {
        self.mode.set(mode);
        self.set_cpu_limit();
    }

    /// Sets the bytes the whole state may hold (0: no limit), and so what one agent may hold
    /// (a quarter of it, at most [`DEFAULT_AGENT_MEMORY`]).
    pub fn set_memory_limit(&self, bytes: usize) {
        self.cap.set(bytes);
        // SAFETY: `main` lives as long as the host owning this budget, and this runs on the
        // state's thread; the call only stores a field of the global state.
        unsafe { lua_setquota(self.main, agent_memory(bytes)) };
        self.reserve(self.depth.get() == 0 || self.owner.get() == HOST);
    }

    /// Sets the VM's limit to the cap plus the host's reserve (`on`) or to the cap alone.
    #[inline]
    fn reserve(&self, on: bool) {
        let cap = self.cap.get();
        let limit = if on {
            cap.saturating_add(host_reserve(cap))
        } else {
            cap
        };
        // SAFETY: as in `set_memory_limit`; the call only stores a field.
        unsafe { lua_setmemlimit(self.main, limit) };
        self.reserve_on.set(on);
    }

    /// The bytes the whole state may hold.
    pub fn memory_limit(&self) -> usize {
        self.cap.get()
    }

    /// Makes `owner` (an agent's number, from 1) the owner of what the next budgeted call
    /// allocates, until that call ends. Must not be called inside a budgeted call.
    pub fn own(&self, owner: u32) {
        if self.depth.get() == 0 {
            self.set_owner(owner);
        }
    }

    /// Runs `f` with the host as the owner of what it allocates (tables shared by every agent,
    /// which no agent should be charged for), then gives the running call its owner back.
    pub fn as_host<R>(&self, f: impl FnOnce() -> R) -> R {
        let owner = self.owner.get();
        if owner == HOST {
            return f();
        }
        self.set_owner(HOST);
        let reserved = self.reserve_on.get();
        if !reserved {
            self.reserve(true);
        }
        let result = f();
        if !reserved {
            self.reserve(false);
        }
        self.set_owner(owner);
        result
    }

    /// Runs `f`, which makes one table, function, userdata or thread, with `id` as its id
    /// (which tables keyed by it hash it by), then puts the id owner's counter back: for what
    /// the host makes once and shares between agents, whose id must not say when it was made.
    pub fn with_next_id<R>(&self, id: u32, f: impl FnOnce() -> R) -> R {
        // SAFETY: as in `set_memory_limit`; the call stores a field.
        let old = unsafe { lua_setnextid(self.main, id) };
        let result = f();
        // SAFETY: as above.
        unsafe { lua_setnextid(self.main, old) };
        result
    }

    fn set_owner(&self, owner: u32) {
        // When the VM's count array cannot grow, the owner is not counted and the host's stays.
        // SAFETY: as in `set_memory_limit`; the call stores a field and may grow the count
        // array through the state's allocator, on this thread.
        if unsafe { lua_setowner(self.main, owner) } != 0 {
            self.owner.set(owner);
        }
    }

    /// Bytes `owner`'s blocks hold now.
    pub fn held(&self, owner: u32) -> usize {
        // SAFETY: as in `set_memory_limit`; the call only reads fields.
        unsafe { lua_held(self.main, owner) }
    }

    /// Starts a budgeted call: the budget is full again, unless this call runs inside another
    /// (which keeps counting).
    #[inline]
    pub fn begin(&self) -> Call {
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        if depth == 0 {
            self.host_refused.set(None);
            if self.reserve_on.get() {
                self.reserve(false);
            }
            self.net_running();
            let units = self.call_units();
            // SAFETY: as in `set_memory_limit`; the calls only store fields.
            unsafe {
                lua_memout(self.main);
                lua_setwork(self.main, units);
            }
        }
        Call { outer: depth == 0 }
    }

    /// Starts the call of one agent of a batch, which the decision loop makes with
    /// `lua_agentcall` (patched Lua): the VM makes `owner` the owner of what the call
    /// allocates and gives it the units returned here as it calls, and leaves both in place
    /// after it, for the next agent's call to replace ([`Self::end_agent`],
    /// [`Self::leave_batch`]). `None` for the units inside another budgeted call (which goes
    /// on counting): then the loop calls with `lua_call` and ends with [`Self::end`].
    #[inline]
    pub fn begin_agent(&self, owner: u32) -> (Call, Option<i64>) {
        if self.depth.get() != 0 {
            return (self.begin(), None);
        }
        self.depth.set(1);
        self.host_refused.set(None);
        if self.reserve_on.get() {
            self.reserve(false);
        }
        self.net_running();
        // As the VM makes it (if it cannot count the owner, it keeps the host's, and the
        // reset after the batch is then a no-op).
        self.owner.set(owner);
        (Call { outer: true }, Some(self.call_units()))
    }

    /// Starts a run of agents' calls that `lua_agentbatch` (patched Lua) makes one after
    /// another, each as `lua_agentcall` makes it: the units each call starts with, or `None`
    /// inside another budgeted call (then the loop calls agent by agent, [`Self::begin_agent`]).
    /// Each agent is then made current with [`Self::enter_agent`], and the run's last one is
    /// ended with [`Self::end_agent`]; the earlier ones ended without a bit set (the VM ends the
    /// run after one that did) and without a refusal of the host's ([`Self::host_refusal`],
    /// which the loop looks at before the next agent).
    #[inline]
    pub fn begin_batch(&self) -> Option<i64> {
        if self.depth.get() != 0 {
            return None;
        }
        if self.reserve_on.get() {
            self.reserve(false);
        }
        self.net_running();
        Some(self.call_units())
    }

    /// Makes `owner` the agent whose call of a run ([`Self::begin_batch`]) comes next, as
    /// [`Self::begin_agent`] does; the token is for [`Self::end_agent`] or [`Self::end`].
    #[inline]
    pub fn enter_agent(&self, owner: u32) -> Call {
        self.depth.set(1);
        self.host_refused.set(None);
        self.owner.set(owner);
        Call { outer: true }
    }

    /// Ends an agent's call that `lua_agentcall` made ([`Self::begin_agent`]) from the bits it
    /// returned (`ended`): as [`Self::end`], except that the owner and the (maybe spent)
    /// budget stay in place until the next agent's call replaces them or
    /// [`Self::leave_batch`] resets them; between the two no Lua code runs and nothing is
    /// allocated in Lua.
    #[inline]
    pub fn end_agent(&self, call: Call, ended: c_int) -> Stop {
        debug_assert!(call.outer);
        self.depth.set(0);
        if ended & AGENT_VICTIM != 0 {
            // SAFETY: as in `set_memory_limit`; the call reads and clears a field.
            let victim = unsafe { lua_victim(self.main) };
            if victim != HOST && self.victim.get().is_none() {
                self.victim.set(Some(victim));
            }
        }
        if ended & AGENT_SPENT != 0 {
            self.budget_or_cpu()
        } else if ended & AGENT_MEMOUT != 0 || self.host_refused.get().is_some() {
            Stop::Memory
        } else {
            Stop::None
        }
    }

    /// After a batch of [`Self::end_agent`] calls: the budget without limit and the host as
    /// the owner again, as [`Self::end`] leaves them.
    #[inline]
    pub fn leave_batch(&self) {
        if self.depth.get() != 0 {
            return;
        }
        // SAFETY: as in `set_memory_limit`; the call only stores a field.
        unsafe { lua_setwork(self.main, NO_LIMIT) };
        if self.owner.get() != HOST {
            self.set_owner(HOST);
        }
        if !self.reserve_on.get() {
            self.reserve(true);
        }
        self.net_idle();
    }

    /// This state runs budgeted calls: the net's tick must move ([`net_enter`]). Once per
    /// call, or per batch of agents' calls, not per agent.
    #[inline]
    fn net_running(&self) {
        if !self.net_on.get() {
            self.net_on.set(true);
            net_enter();
        }
    }

    /// This state's budgeted calls are done ([`net_leave`]).
    #[inline]
    fn net_idle(&self) {
        if self.net_on.get() {
            self.net_on.set(false);
            net_leave();
        }
    }

    /// The units a call starts with.
    #[inline]
    fn call_units(&self) -> i64 {
        match self.mode.get() {
            Mode::Counted => self.units.get(),
            Mode::Off => NO_LIMIT,
        }
    }

    /// Ends the call [`Self::begin`] started: how it ended for the budget and the memory
    /// limit (whatever it returned: a `pcall` may have swallowed the error). The outer call
    /// leaves the budget without limit and the host as the owner, and keeps the victim the
    /// VM named, if any (see [`Self::take_victim`]).
    #[inline]
    pub fn end(&self, call: Call) -> Stop {
        self.depth.set(self.depth.get().saturating_sub(1));
        let spent = self.spent();
        if call.outer {
            // SAFETY: as in `set_memory_limit`; the calls only read and store fields.
            let (memory, victim) = unsafe {
                lua_setwork(self.main, NO_LIMIT);
                (lua_memout(self.main) != 0, lua_victim(self.main))
            };
            if victim != HOST && self.victim.get().is_none() {
                self.victim.set(Some(victim));
            }
            if self.owner.get() != HOST {
                self.set_owner(HOST);
            }
            if !self.reserve_on.get() {
                self.reserve(true);
            }
            self.net_idle();
            let memory = memory || self.host_refused.get().is_some();
            return match (spent, memory) {
                (true, _) => self.budget_or_cpu(),
                (false, true) => Stop::Memory,
                _ => Stop::None,
            };
        }
        if spent {
            Stop::Budget
        } else {
            Stop::None
        }
    }

    /// How a spent budget was spent: by the count, or by the CPU-time net (whose flag this
    /// clears).
    fn budget_or_cpu(&self) -> Stop {
        // SAFETY: as in `set_memory_limit`; the call reads and clears a field.
        if unsafe { lua_cpuout(self.main) } != 0 {
            Stop::Cpu
        } else {
            Stop::Budget
        }
    }

    /// Whether the running call has spent its budget.
    #[inline]
    pub fn spent(&self) -> bool {
        // SAFETY: as in `set_memory_limit`; the call only reads a field.
        unsafe { lua_getwork(self.main) < 0 }
    }

    /// Runs one budgeted call (`f` calls into Lua): its result, and how it stopped.
    pub fn call<R>(&self, f: impl FnOnce() -> R) -> (R, Stop) {
        let call = self.begin();
        let result = f();
        let stop = self.end(call);
        (result, stop)
    }

    /// Spends `units` of the running call's budget for work a Rust function did for a
    /// script; an error once the budget is spent.
    pub fn charge(&self, units: u64) -> mlua::Result<()> {
        // SAFETY: as in `set_memory_limit`; reads and stores a field.
        unsafe {
            let left = lua_getwork(self.main);
            let left = left.saturating_sub(units.min(NO_LIMIT as u64) as i64);
            lua_setwork(self.main, left.max(-1));
            if left < 0 {
                return Err(mlua::Error::runtime(BUDGET_MESSAGE));
            }
        }
        Ok(())
    }

    /// Keeps `bytes` on the account of the running call's owner (`what` names them for the
    /// message), if what the VM says it holds and what the host keeps for it stay within its
    /// quota: the owner charged, or `Err` when refused (the call then ends as a memory stop).
    /// The host's own calls (owner 0) and a state without a cap are not limited.
    pub fn keep(&self, what: &'static str, bytes: usize) -> Result<u32, ()> {
        let owner = self.owner.get();
        let quota = agent_memory(self.cap.get());
        let mut held = self.host_held.borrow_mut();
        let index = owner as usize;
        if held.len() <= index {
            held.resize(index + 1, 0);
        }
        if owner != HOST && quota != 0 {
            let total = self
                .held(owner)
                .saturating_add(held[index])
                .saturating_add(bytes);
            if total > quota {
                self.host_refused.set(Some(what));
                return Err(());
            }
        }
        held[index] = held[index].saturating_add(bytes);
        Ok(owner)
    }

    /// Gives back `bytes` the host kept for `owner` ([`Self::keep`]).
    pub fn release(&self, owner: u32, bytes: usize) {
        if let Some(held) = self.host_held.borrow_mut().get_mut(owner as usize) {
            *held = held.saturating_sub(bytes);
        }
    }

    /// Bytes the host keeps on `owner`'s behalf now.
    #[cfg(test)]
    pub fn host_held(&self, owner: u32) -> usize {
        self.host_held
            .borrow()
            .get(owner as usize)
            .copied()
            .unwrap_or(0)
    }

    /// What the host refused to keep for the last call, if that ended its call (for the
    /// message of the memory stop).
    pub fn host_refusal(&self) -> Option<&'static str> {
        self.host_refused.get()
    }

    /// Whether a call found the shared cap full and named the largest holder, which the host
    /// has yet to stop.
    #[inline]
    pub fn victim_named(&self) -> bool {
        self.victim.get().is_some()
    }

    /// The largest holder the VM named when the shared cap was hit, for the host to stop.
    pub fn take_victim(&self) -> Option<u32> {
        self.victim.take()
    }
}

/// What one agent may hold, under a cap of `cap` bytes for all.
pub fn agent_memory(cap: usize) -> usize {
    (cap / 4).min(DEFAULT_AGENT_MEMORY)
}

/// What the host's own allocations may hold over a cap of `cap` bytes (none without a cap):
/// two agents' quotas, since the agents' calls may already have taken the state one quota
/// over the cap (the VM's headroom while a victim is named).
pub fn host_reserve(cap: usize) -> usize {
    agent_memory(cap).saturating_mul(2)
}

/// Makes mlua protect every allocation it makes on the host's behalf (tables, strings,
/// userdata, table writes, pushed values), as it does when it holds a memory limit itself.
///
/// The patched VM refuses allocations on its own (an agent over its quota, the cap), which
/// mlua cannot see: without a limit of its own, mlua calls the allocating C API directly and
/// a refusal inside a binding (a Rust function Lua called) would `longjmp` through its Rust
/// frames to the script's `pcall`, skipping their destructors (undefined behaviour). With a
/// limit set, mlua makes such calls in a protected call, and the refusal comes back to the
/// binding as an `Err`, whose frames return normally. The limit given is one mlua's allocator
/// can never reach (`isize::MAX` bytes), so mlua itself refuses nothing: the VM's quota and
/// cap decide.
fn protect_mlua_allocations(lua: &Lua) -> mlua::Result<()> {
    lua.set_memory_limit(usize::MAX).map(|_| ())
}
/// Whether a budgeted call was stopped by a limit (which suspends the agent that made it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    None,
    /// It spent its work budget.
    Budget,
    /// An allocation went over the memory limit.
    Memory,
    /// The CPU-time net stopped it: it took more thread CPU time than `budget.cpu_ms` while
    /// the count did not see the work (a C function that charges nothing). Unlike the others,
    /// a clock decided it, so a replay may differ from here.
    Cpu,
}

impl Drop for Budget {
    /// A state dropped inside a call (a panic through it) no longer keeps the net ticking.
    fn drop(&mut self) {
        self.net_idle();
    }
}

/// Lua states of this process running a budgeted call (or a batch of agents' calls) now.
static NET_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// The thread that moves the net's tick, to wake when a call starts.
static NET_THREAD: OnceLock<std::thread::Thread> = OnceLock::new();

/// Times the net's thread has woken (a tick moved, or a call started): a count a test can
/// read to see that it sleeps while nothing runs.
static NET_WAKEUPS: AtomicU64 = AtomicU64::new(0);

/// Starts, once per process, the thread that moves the tick the CPU-time net looks at: every
/// [`NET_TICK`] while some state runs a budgeted call, parked while none does (an idle
/// window wakes nobody).
fn start_net_tick() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("agentbox-cpu-net".into())
            .spawn(|| loop {
                while NET_RUNNING.load(Ordering::Acquire) == 0 {
                    std::thread::park();
                    NET_WAKEUPS.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(NET_TICK);
                NET_WAKEUPS.fetch_add(1, Ordering::Relaxed);
                // SAFETY: takes no state: an atomic add to a process-wide counter.
                unsafe { lua_nettick() };
            });
        // Without the thread the net never looks; the count still holds.
        if let Ok(handle) = spawned {
            let _ = NET_THREAD.set(handle.thread().clone());
        }
    });
}

/// A state starts running budgeted calls. The first after a time when none ran moves the
/// tick itself, so the call's start reads its thread's CPU time afresh (the VM reads it
/// only once the tick has moved, and a tick that stood still through an idle time would
/// leave the base as old as that time), and wakes the net's thread.
fn net_enter() {
    if NET_RUNNING.fetch_add(1, Ordering::AcqRel) == 0 {
        // SAFETY: takes no state: an atomic add to a process-wide counter.
        unsafe { lua_nettick() };
        if let Some(thread) = NET_THREAD.get() {
            thread.unpark();
        }
    }
}

/// A state's budgeted calls are done; with none running, the net's thread parks after its
/// current tick.
fn net_leave() {
    NET_RUNNING.fetch_sub(1, Ordering::AcqRel);
}

/// How many times the net's thread has woken since the process started.
pub fn net_wakeups() -> u64 {
    NET_WAKEUPS.load(Ordering::Relaxed)
}

/// The message of a spent budget (the VM adds the script's place).
pub const BUDGET_MESSAGE: &str = "instruction budget exceeded";

#[cfg(test)]
mod tests {
    use super::*;

    /// Four owners fill one shared table until the cap is hit, each in its own call (a
    /// `pcall` swallowing the refusal), and the host then allocates: as `stop_victim`
    /// clearing an agent's memory does.
    #[test]
    fn the_host_allocates_at_a_full_cap_without_aborting() {
        let lua = Lua::new();
        let budget = Budget::install(&lua, 4 * 1024 * 1024).unwrap();
        let fill = lua
            .load("return function() while true do hoard = { next = hoard } end end")
            .eval::<mlua::Function>()
            .unwrap();
        let mut stops = Vec::new();
        for owner in 1..=4 {
            budget.own(owner);
            let (_, stop) = budget.call(|| fill.call::<()>(()));
            stops.push(stop);
        }
        assert!(stops.iter().all(|s| *s == Stop::Memory), "{stops:?}");
        // The host's own allocations go on within its reserve: a table, a string.
        let t = lua.create_table().unwrap();
        t.raw_set("memory", lua.create_table().unwrap()).unwrap();
        lua.create_string("x".repeat(1000)).unwrap();
        let held: Vec<usize> = (0..=4).map(|o| budget.held(o)).collect();
        assert!(
            lua.used_memory() >= 4 * 1024 * 1024,
            "{} {held:?}",
            lua.used_memory()
        );
    }
}
