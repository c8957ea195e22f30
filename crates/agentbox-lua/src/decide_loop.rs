//! The decision loop: calls `decide` for a round's agents in the raw Lua C API, each under the
//! work budget and the message handler, in one protected call ([`run_batch`]). This is what a
//! crowd of thousands pays for every decision, so it is kept to plain stack operations (an
//! mlua call is a protected call of its own; `docs/benchmarks.md`, "Figures the Lua host's
//! code relies on").
//!
//! The host (`round.rs`) readies an agent through mlua first when its slot, module, `init` or
//! `on_reload` or view is new, then hands the loop compact entries ([`Ready`]); the loop lends
//! the deciding agent its own `pos`/`vel`/`tile` numbers for its call (`Views::lend`), reads
//! what `decide` returned without an mlua type check (the action a raw twin handed out, or any
//! userdata with the actions' metatable, `convert::action_at`) and gives each agent's [`Outcome`] back through [`Batch`]. While a
//! batch runs, the raw twins (`raw.rs`) find their context through [`raw::in_batch`].
//!
//! Nothing here may leave a Rust value that needs dropping alive across a Lua call that can
//! raise (a raised error unwinds with `longjmp`): the code copies what it needs and calls Lua
//! with only references and plain numbers in its frames. It never changes the world.

use crate::budget::{Budget, Call, Stop};
use crate::convert::action_at;
use crate::ffi::{lua_agentbatch, lua_agentcall, lua_toidentity, LuaAgentTurn};
use crate::raw::{self, MakeAction, RawContext};
use crate::views::{Views, FAST_PROXIES, FAST_SLOTS};
use agentbox_core::world::{Action, World};
use mlua::ffi;
use std::ffi::{c_int, c_void};

/// One agent of a batch: everything the raw loop needs, resolved beforehand.
#[derive(Clone, Copy)]
pub struct Ready {
    pub index: usize,
    /// Registry references of its script's module table and its `self` table.
    pub module: c_int,
    pub this: c_int,
    pub this_ptr: *const c_void,
    /// How many cache lines [`prefetch_self`] asks for ([`self_lines`]).
    pub lines: u8,
    /// Its memory owner number (`Slot::owner`), made current for its call by the budget.
    pub owner: u32,
}

/// How many agents ahead of the one deciding [`prefetch_self`] is asked for.
pub const AHEAD: usize = 3;

/// Asks the CPU to start loading an agent's `self` table a few agents before it decides: its
/// header, its fields and, made right after it, its `params` table (five cache lines from its
/// address for a `self` of four slots, more for a bigger one: [`self_lines`], as the allocator
/// lays out an agent's tables made together). In a crowd those were the misses left in the
/// decision loop (the `self.kind` and `self.params.space` reads); what it saved is in
/// `docs/benchmarks.md`, "Figures the Lua host's code relies on". A hint only: nothing is
/// read. `lines` is [`self_lines`] of the `self`.
#[inline]
pub fn prefetch_self(this: *const c_void, lines: u8) {
    // The usual five lines unrolled (a crowd's every agent), then any more.
    #[cfg(target_arch = "x86_64")]
    {
        let at = |line: usize| {
            // SAFETY: a prefetch never faults and changes no memory, whatever the address.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>((this as *const i8).wrapping_add(64 * line));
            }
        };
        at(0);
        at(1);
        at(2);
        at(3);
        at(4);
        let mut line = 5;
        while line < lines as usize {
            at(line);
            line += 1;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (this, lines);
}

/// How many cache lines from a `self` table's address [`prefetch_self`] covers for a `self`
/// made with `slots` hash slots: five for the usual four (its header, its slots and its
/// `params`, allocated one after the other), and the lines its extra slots (24 bytes each)
/// push `params` further.
pub fn self_lines(slots: usize) -> u8 {
    (5 + (24 * slots.saturating_sub(4)).div_ceil(64)).min(16) as u8
}

/// Asks the CPU to start loading the cache line at `at` (0: nothing). A hint only.
#[inline]
pub fn prefetch_line(at: usize) {
    #[cfg(target_arch = "x86_64")]
    if at != 0 {
        // SAFETY: a prefetch never faults and changes no memory, whatever the address.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(at as *const i8);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// How a raw result came back.
pub enum Outcome {
    /// `decide` returned an action.
    Act(Action),
    /// `decide` returned the action a raw twin handed out: of this kind, for the agent at this
    /// index of the batch's world (one it has). The batch makes it where it keeps it: made
    /// here and passed on by value, the action was copied through the stack with loads that
    /// straddled the stores that made it (`docs/benchmarks.md`, goal 1 of issue 35).
    Handed(MakeAction, usize),
    /// `decide` returned something else: its Lua type name (`nil`, `table`, `userdata`...).
    Returned(&'static str),
    /// `decide` failed with this message (the message handler's, or the raw error; empty
    /// when a `pcall` swallowed a limit's stop), and whether a limit stopped it.
    Failed(String, Stop),
    /// The module has no `decide` function (any more).
    NoDecide,
}

/// The host's side of a batch. No method may call Lua.
pub trait Batch {
    /// The next agent to decide, made current (its random stream in place); `None` ends the
    /// batch. (Its slot stays with the host: a `(u32, Ready)` returned through the stack was
    /// copied back with loads that straddle the stores that made it, a store-forwarding stall
    /// per agent; `docs/benchmarks.md`, goal 1 of issue 35.)
    fn next(&mut self) -> Option<Ready>;
    /// Appends to `into` (up to `max` entries in all) the agents [`Self::next`] would hand out
    /// one after another from here, as long as they share a module and have none of their own
    /// parts to lend (`Views::lends`), without making any current: the loop runs them in one
    /// call of the VM, making each current with [`Self::enter`] as its turn comes. Stops at
    /// the first agent that does not fit, so an agent decided by itself costs one look.
    fn gather(&mut self, into: &mut Vec<(u32, Ready)>, max: usize);
    /// Makes the agent of slot `slot`, gathered by [`Self::gather`], the current one.
    fn enter(&mut self, slot: u32);
    /// What the `decide` of the current agent (made current by [`Self::next`] or
    /// [`Self::enter`]) gave; false ends the batch after it.
    fn done(&mut self, ready: &Ready, outcome: Outcome) -> bool;
}

/// The most agents one call of the VM runs (`lua_agentbatch`): the entries are kept in the
/// batch's frame and reused for each run of a round.
const RUN: usize = 256;

/// Runs `decide` for the agents `batch` hands out, each under the budget: the one place a
/// `decide` is called. Ends early only when the stack cannot grow (then no agent was called).
///
/// The stack holds the message handler at 1, `world` at 2 and the string `"decide"` at 3.
///
/// The agents are called one after another inside one protected call ([`decide_loop`]): a
/// run of agents sharing a module that have nothing of their own lent (most of a crowd) with
/// one call of patched Lua's `lua_agentbatch`, which calls each `decide` in a C loop and, before
/// each call, has [`enter_turn`] settle the agent before it and make the next current; any
/// other agent with `lua_agentcall`, a `lua_call` that pushes `decide`, `self` and `world`
/// and sets the agent's memory owner and budget in the same step (a protected call per agent
/// costs more: `docs/benchmarks.md`, "Figures the Lua host's code relies on"). Either way the
/// VM makes each agent's call the same way, so budgets, stops and messages are the same. The owner and
/// the budget an agent's call leaves stay until the next agent's call replaces them (nothing
/// runs in Lua between the two), and the host's are set back when the batch ends
/// (`Budget::leave_batch`), however it ends.
/// An error in a `decide` ends that protected call (after the message handler has made its
/// message); the agent is given the failure and the loop is entered again for the next.
///
/// A module's `decide` is read once for a run of agents sharing the module (in a crowd, the
/// whole round): a script that assigns its module's `decide` while deciding changes what the
/// next round calls.
///
/// # Safety
/// `state` is the host's Lua state inside `exec_raw`, with that stack; `batch` lives outside
/// this call.
pub unsafe fn run_batch(
    state: *mut ffi::lua_State,
    context: &RawContext,
    world: &World,
    budget: &Budget,
    batch: &mut dyn Batch,
) {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let layout = Layout::new();
        // Room for what the loop pushes above its copy of the arguments (a C function is promised
        // only 20 slots).
        if ffi::lua_checkstack(state, layout.module_slot + 24) == 0 {
            return;
        }
        // What the fast paths handed out before belongs to another round.
        context.handed.set(None);
        let base = ffi::lua_gettop(state);
        let mut frame = LoopFrame {
            state,
            context,
            world,
            budget,
            batch,
            layout,
            deciding: None,
            lent: (0, 0),
            run: Vec::new(),
            turns: Vec::new(),
            settled: 0,
            ended: false,
        };
        let frame_ptr: *mut LoopFrame = &mut frame;
        loop {
            ffi::lua_pushcfunction(state, decide_loop);
            ffi::lua_pushlightuserdata(state, frame_ptr as *mut c_void);
            for slot in 2..=base {
                ffi::lua_pushvalue(state, slot);
            }
            // The protected call always returns here, so the batch's context is set only for it.
            let status = raw::in_batch(context, || ffi::lua_pcall(state, base, 0, 1));
            // SAFETY: the loop's frame, the only other user of `frame`, is gone.
            let frame = &mut *frame_ptr;
            if frame.lent.1 != 0 {
                let (index, lent) = frame.lent;
                ffi::lua_settop(state, base + 1);
                give_back(state, frame.context, index, lent);
                frame.lent = (0, 0);
            }
            if status == ffi::LUA_OK {
                break;
            }
            // An error outside a `decide` ends the batch with the agent undecided, as the
            // caller expects of a `longjmp` past it.
            let Some((ready, call)) = frame.deciding.take() else {
                break;
            };
            let stop = match frame.budget.end(call) {
                Stop::None if status == ffi::LUA_ERRMEM => Stop::Memory,
                stop => stop,
            };
            frame.context.views.set_deciding(None);
            let outcome = Outcome::Failed(error_text(state), stop);
            ffi::lua_settop(state, base);
            if !host(state, || frame.batch.done(&ready, outcome)) {
                break;
            }
        }
        // The last agent's owner and budget were left in place (`Budget::end_agent`).
        frame.budget.leave_batch();
        ffi::lua_settop(state, base);
    }
}

/// Where the fixed values sit on the stack of a batch (and of [`decide_loop`], whose frame
/// copies them, with its context in place of the message handler at 1).
#[derive(Clone, Copy)]
struct Layout {
    /// The string `"decide"`.
    decide_name: c_int,
    /// Above the fixed slots, pushed by the loop: what lends the deciding agent its own parts
    /// (`views::FAST_SLOTS` values).
    fast: c_int,
    /// Above the fixed slots: the module being run, then its `decide`.
    module_slot: c_int,
}

impl Layout {
    fn new() -> Self {
        let fast = 3 + 1;
        Layout {
            decide_name: 3,
            fast,
            module_slot: fast + FAST_SLOTS,
        }
    }
}

/// What [`decide_loop`] works with, owned by [`run_batch`]'s frame.
struct LoopFrame<'a> {
    /// The state the batch runs on (for [`enter_turn`], which the VM calls).
    state: *mut ffi::lua_State,
    context: &'a RawContext,
    world: &'a World,
    budget: &'a Budget,
    /// The host's side (a `dyn`: inlining its methods into the loop saved about 24
    /// instructions an agent but made the hot code larger, and the loop no faster).
    batch: &'a mut dyn Batch,
    layout: Layout,
    /// The agent whose `decide` is running and its budget call (left set when it raises).
    deciding: Option<(Ready, Call)>,
    /// The agent index and the parts lent to it while it decides (`Views::lend`), given back
    /// when it raises.
    lent: (usize, u8),
    /// The run of agents the VM is calling in one step ([`run_agents`]), with their slots,
    /// and their turns, which the VM writes as each call returns.
    run: Vec<(u32, Ready)>,
    turns: Vec<LuaAgentTurn>,
    /// How many agents of the run [`enter_turn`] has settled (given their outcome).
    settled: usize,
    /// The batch's host side said to end the batch after an agent [`enter_turn`] settled.
    ended: bool,
}

/// The loop over a batch's agents (see [`run_batch`]): its context is a light userdata at 1.
/// Nothing in this frame needs dropping: a raised error unwinds it with `longjmp`.
unsafe extern "C-unwind" fn decide_loop(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: Lua calls this (through `run_batch`'s `lua_pcall`) on a live state of this
    // thread, with `run_batch`'s frame at 1 and the batch's stack copied above it.
    unsafe {
        let frame = &mut *(ffi::lua_touserdata(state, 1) as *mut LoopFrame);
        let (context, budget) = (frame.context, frame.budget);
        let Layout {
            fast, module_slot, ..
        } = frame.layout;
        let decide_slot = module_slot + 1;
        push_fast_slots(state, context, fast);
        let mut module = None;
        // Whether to look for a run before the next agent: not after an agent that was lent
        // its parts (the next one most often runs the same script and is lent them too), so
        // a crowd whose every agent is lent (`scenes/crowd_reads.yaml`) looks once a round
        // and takes main's per-agent path; which path an agent takes changes nothing of its
        // outcome.
        let mut look = true;
        loop {
            if look {
                match run_agents(state, frame, &mut module) {
                    Some(true) => continue,
                    Some(false) => break,
                    None => {}
                }
            }
            // One agent by itself: its parts lent, or its module without a `decide`.
            let Some(ready) = host(state, || frame.batch.next()) else {
                break;
            };
            if module != Some(ready.module) {
                if !enter_module(state, frame.layout, ready.module) {
                    module = None;
                    if host(state, || frame.batch.done(&ready, Outcome::NoDecide)) {
                        continue;
                    }
                    break;
                }
                module = Some(ready.module);
            }
            // The agents of a crowd decide in index order, so the one a few ahead is most often
            // index + AHEAD: its own tables are asked for now (a hint, never a read).
            // An agent that reads its own parts: its `self` above `decide_slot`, then those
            // parts, lent (their proxies left above `self`, found in it).
            let this_slot = decide_slot + 1;
            let parts = context.views.self_parts_ahead(ready.index, AHEAD);
            look = parts == 0;
            if parts != 0 {
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.this as i64);
                frame.lent = (ready.index, 0);
                Views::lend(
                    state,
                    fast,
                    this_slot,
                    frame.world,
                    ready.index,
                    parts,
                    &mut frame.lent.1,
                );
            }
            context
                .views
                .set_deciding(Some((ready.this_ptr, ready.index)));
            context.handed.set(None);
            // `decide(self, world)`. The VM pushes the three, makes the agent the owner of
            // what it allocates and gives it its budget as it calls, and leaves both for the
            // next agent's call to replace (patched Lua's `lua_agentcall`: one step of the API
            // instead of ten).
            let (call, units) = budget.begin_agent(ready.owner);
            frame.deciding = Some((ready, call));
            let ended = match units {
                Some(units) => Some(lua_agentcall(
                    state,
                    decide_slot,
                    ready.this as ffi::lua_Integer,
                    2,
                    units,
                    ready.owner,
                )),
                None => {
                    ffi::lua_pushvalue(state, decide_slot);
                    ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.this as i64);
                    ffi::lua_pushvalue(state, 2);
                    ffi::lua_callk(state, 2, 1, 0, None);
                    None
                }
            };
            let stop = match (frame.deciding.take(), ended) {
                (Some((_, call)), Some(ended)) => budget.end_agent(call, ended),
                (Some((_, call)), None) => budget.end(call),
                (None, _) => Stop::None,
            };
            context.views.set_deciding(None);
            if frame.lent.1 != 0 {
                Views::end_lend(state, this_slot + 1, frame.lent.1);
                frame.lent = (0, 0);
            }
            let outcome = read_outcome(state, frame, stop);
            ffi::lua_settop(state, decide_slot);
            if !host(state, || frame.batch.done(&ready, outcome)) {
                break;
            }
        }
        0
    }
}

/// Runs the agents from the batch's next one on that share a module and have nothing of
/// their own lent, in one call of the VM (`lua_agentbatch`, at most [`RUN`]): [`enter_turn`]
/// settles each agent as the next one's turn comes, and the last one called is settled here,
/// with its result on the stack as [`decide_loop`]'s own calls leave it. `None` when there is
/// no such run (the next agent is decided by itself), else whether the batch goes on.
///
/// Kept out of [`decide_loop`]'s code (once per run, not per agent), so the per-agent path
/// of lent agents stays as small as it was.
///
/// # Safety
/// Inside [`decide_loop`], with its stack (its module entered or not, as `module` says).
#[inline(never)]
unsafe fn run_agents(
    state: *mut ffi::lua_State,
    frame: &mut LoopFrame,
    module: &mut Option<c_int>,
) -> Option<bool> {
    // SAFETY: the caller's contract; `lua_agentbatch` gets the function and `world` at
    // positive indices, the turns and the frame (`enter_turn`'s data); nothing here to drop.
    unsafe {
        let decide_slot = frame.layout.module_slot + 1;
        frame.run.clear();
        host(state, || frame.batch.gather(&mut frame.run, RUN));
        let n = frame.run.len();
        if n == 0 {
            return None;
        }
        let first = frame.run[0].1.module;
        if *module != Some(first) {
            if !enter_module(state, frame.layout, first) {
                *module = None;
                return None;
            }
            *module = Some(first);
        }
        let units = frame.budget.begin_batch()?;
        frame.turns.clear();
        frame.turns.extend(
            frame
                .run
                .iter()
                .map(|(_, r)| LuaAgentTurn::new(r.this as ffi::lua_Integer, r.owner)),
        );
        frame.settled = 0;
        frame.ended = false;
        let turns = frame.turns.as_mut_ptr();
        let frame_ptr: *mut LoopFrame = frame;
        let ran = lua_agentbatch(
            state,
            decide_slot,
            2,
            turns,
            n as c_int,
            units,
            Some(enter_turn),
            frame_ptr as *mut c_void,
        ) as usize;
        // SAFETY: the VM's calls of `enter_turn`, the other user of the frame, are over.
        let frame = &mut *frame_ptr;
        if ran == 0 {
            return Some(true);
        }
        if frame.settled == ran {
            // `enter_turn` settled the last one called, and the batch's host side said to end.
            ffi::lua_settop(state, decide_slot);
            return Some(!frame.ended);
        }
        let Some((ready, call)) = frame.deciding.take() else {
            ffi::lua_settop(state, decide_slot);
            return Some(false);
        };
        let stop = frame.budget.end_agent(call, frame.turns[ran - 1].ended);
        frame.context.views.set_deciding(None);
        let outcome = read_outcome(state, frame, stop);
        ffi::lua_settop(state, decide_slot);
        Some(host(state, || frame.batch.done(&ready, outcome)))
    }
}

/// What `lua_agentbatch` calls before the call of turn `i` of a run ([`run_agents`]): settles
/// the agent called before it, whose result is on top of the stack (when its outcome can be
/// told from its turn: not a userdata other than the action a raw twin handed it), then makes
/// agent `i` the current one as [`decide_loop`] does before its own calls. 0 ends the run
/// before the call: the batch's host side said to end, or the agent before needs its result
/// read from the stack ([`run_agents`] settles it).
unsafe extern "C-unwind" fn enter_turn(ud: *mut c_void, i: c_int) -> c_int {
    // SAFETY: the VM calls this with the run's frame as `ud`, on the run's state, while
    // `run_agents` makes no use of the frame; nothing here needs dropping when `host` raises.
    unsafe {
        let frame = &mut *(ud as *mut LoopFrame);
        let state = frame.state;
        host(state, || frame.enter_turn(i as usize)) as c_int
    }
}

impl LoopFrame<'_> {
    /// [`enter_turn`]'s work: settles agent `i - 1` of the run (if `i` > 0), then makes agent
    /// `i` current; false ends the run.
    #[inline(always)]
    fn enter_turn(&mut self, i: usize) -> bool {
        if i > 0 && !self.settle_previous(i - 1) {
            return false;
        }
        let Some(&(slot, ready)) = self.run.get(i) else {
            return false;
        };
        if let Some((_, later)) = self.run.get(i + AHEAD) {
            prefetch_self(later.this_ptr, later.lines);
        }
        let context = self.context;
        context.views.self_parts_ahead(ready.index, AHEAD);
        self.batch.enter(slot);
        context
            .views
            .set_deciding(Some((ready.this_ptr, ready.index)));
        context.handed.set(None);
        let call = self.budget.enter_agent(ready.owner);
        self.deciding = Some((ready, call));
        true
    }

    /// Settles agent `j` of the run, whose call returned (its turn written: no bit set, or the
    /// VM would have ended the run) when its outcome can be told from its turn; false ends
    /// the run (then [`run_agents`] settles it if it is not settled).
    #[inline(always)]
    fn settle_previous(&mut self, j: usize) -> bool {
        let Some(turn) = self.turns.get(j).copied() else {
            return false;
        };
        let context = self.context;
        let act = if turn.rtype == ffi::LUA_TUSERDATA {
            // The action a raw twin handed this agent, known by its identity; any other
            // userdata is read from the stack by `run_agents`.
            match context.handed.get() {
                Some((_, _, handed)) if handed == turn.result => {
                    let Some(made) = context.handed_action(self.world) else {
                        return false;
                    };
                    Some(made)
                }
                _ => return false,
            }
        } else {
            None
        };
        let Some((ready, call)) = self.deciding.take() else {
            return false;
        };
        let stop = self.budget.end_agent(call, turn.ended);
        let outcome = match act {
            _ if stop != Stop::None => Outcome::Failed(String::new(), stop),
            Some((make, j)) => Outcome::Handed(make, j),
            None => Outcome::Returned(type_name(turn.rtype)),
        };
        self.settled = j + 1;
        if !self.batch.done(&ready, outcome) {
            self.ended = true;
            return false;
        }
        true
    }
}

/// Pushes the [`FAST_SLOTS`] values the lending reads (`Views::fast_ref`) at `fast`, above the
/// batch's fixed slots.
///
/// # Safety
/// Inside [`decide_loop`], with room for [`FAST_SLOTS`] + 1 values.
#[inline(always)]
unsafe fn push_fast_slots(state: *mut ffi::lua_State, context: &RawContext, fast: c_int) {
    // SAFETY: the caller's contract; reads of a registry reference and a table's fields, which
    // do not raise.
    unsafe {
        ffi::lua_settop(state, fast - 1);
        ffi::lua_rawgeti(
            state,
            ffi::LUA_REGISTRYINDEX,
            context.views.fast_ref as ffi::lua_Integer,
        );
        for n in 0..FAST_SLOTS {
            ffi::lua_rawgeti(state, fast, n as ffi::lua_Integer + 1);
        }
        // The reference's table out, its values in place.
        ffi::lua_rotate(state, fast, -1);
        ffi::lua_settop(state, -2);
    }
}

/// Puts the module with registry reference `module` at the layout's module slot and its
/// `decide` above it, which stay for the next agents sharing the module; false (and the slots
/// emptied) when `decide` is not a function.
///
/// # Safety
/// Inside [`decide_loop`], with the batch's stack.
#[inline(always)]
unsafe fn enter_module(state: *mut ffi::lua_State, layout: Layout, module: c_int) -> bool {
    // SAFETY: the caller's contract; a raw get of a registry reference and of a table field.
    unsafe {
        ffi::lua_settop(state, layout.module_slot - 1);
        ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, module as i64);
        ffi::lua_pushvalue(state, layout.decide_name);
        ffi::lua_rawget(state, -2);
        if ffi::lua_type(state, -1) != ffi::LUA_TFUNCTION {
            ffi::lua_settop(state, layout.module_slot - 1);
            return false;
        }
        true
    }
}

/// What the `decide` just called gave, on top of the stack: an action (most often the one a
/// raw twin just handed out, the entry of its cache for its target, known by comparing its
/// identity, `lua_toidentity`, with the one the twin handed out, without reading the userdata,
/// whose block is most often not in the cache:
/// `docs/benchmarks.md`, "Figures the Lua host's code relies on" and "Closer to the limit
/// (issue 35)"), another value, or a failure when a limit stopped it (a `pcall` may have
/// swallowed the stop: the call failed all the same).
///
/// # Safety
/// Inside [`decide_loop`], right after the call, with room for one value.
#[inline(always)]
unsafe fn read_outcome(state: *mut ffi::lua_State, frame: &LoopFrame, stop: Stop) -> Outcome {
    // SAFETY: the caller's contract; raw reads that do not raise.
    unsafe {
        let context = frame.context;
        let result = ffi::lua_gettop(state);
        match ffi::lua_type(state, -1) {
            _ if stop != Stop::None => Outcome::Failed(String::new(), stop),
            ffi::LUA_TUSERDATA => {
                let known = match context.handed.get() {
                    Some((_, _, handed)) if handed == lua_toidentity(state, result) => {
                        context.handed_action(frame.world)
                    }
                    _ => None,
                };
                // Matched rather than `or_else`, which the compiler kept out of line (a call
                // and a copy of the action per agent).
                match known {
                    Some((make, j)) => Outcome::Handed(make, j),
                    None => match action_at(state, result, context.actions.ptr()) {
                        Some(action) => Outcome::Act(action.clone()),
                        None => Outcome::Returned("userdata"),
                    },
                }
            }
            t => Outcome::Returned(type_name(t)),
        }
    }
}

/// Gives the parts `lent` to agent `index` back after its `decide` raised (the loop's stack,
/// which held their proxies, is gone).
///
/// # Safety
/// A live state with room for [`FAST_SLOTS`] + 2 values; nothing that needs dropping in the
/// caller's frames.
unsafe fn give_back(state: *mut ffi::lua_State, context: &RawContext, index: usize, lent: u8) {
    // SAFETY: the caller's contract; these reads and `lua_lendback` do not raise.
    unsafe {
        let top = ffi::lua_gettop(state);
        ffi::lua_rawgeti(
            state,
            ffi::LUA_REGISTRYINDEX,
            context.views.fast_ref as ffi::lua_Integer,
        );
        let fast = top + 1;
        for n in 0..FAST_SLOTS {
            ffi::lua_rawgeti(state, fast, n as ffi::lua_Integer + 1);
        }
        let values = fast + 1;
        let first = ffi::lua_gettop(state) + 1;
        for (k, slot) in context.views.part_slots(index) {
            if lent & (1 << k) != 0 {
                ffi::lua_rawgeti(state, values + FAST_PROXIES, slot);
            }
        }
        Views::end_lend(state, first, lent);
        ffi::lua_settop(state, top);
    }
}

/// Runs host code (Rust only, no Lua call) for a function Lua calls: a panic becomes a Lua
/// error raised from here, after everything the panic left is dropped, instead of unwinding
/// into Lua's C frames.
///
/// # Safety
/// `state` is the running Lua state; no Rust value that needs dropping may be alive in the
/// caller's frames (the error unwinds them with `longjmp`).
#[inline(always)]
pub(crate) unsafe fn host<R>(state: *mut ffi::lua_State, f: impl FnOnce() -> R) -> R {
    let payload = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => return r,
        Err(payload) => payload,
    };
    let mut buf = [0u8; 200];
    let n = {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let text = format!("internal error (a bug in agentbox, please report it): {text}");
        let n = text.len().min(buf.len());
        buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        n
    };
    drop(payload);
    // SAFETY: the caller's contract; nothing above needs dropping any more.
    unsafe {
        ffi::lua_pushlstring(state, buf.as_ptr() as *const _, n);
        ffi::lua_error(state)
    }
}

fn type_name(t: c_int) -> &'static str {
    match t {
        ffi::LUA_TNIL => "nil",
        ffi::LUA_TBOOLEAN => "boolean",
        ffi::LUA_TLIGHTUSERDATA | ffi::LUA_TUSERDATA => "userdata",
        ffi::LUA_TNUMBER => "number",
        ffi::LUA_TSTRING => "string",
        ffi::LUA_TTABLE => "table",
        ffi::LUA_TFUNCTION => "function",
        ffi::LUA_TTHREAD => "thread",
        _ => "no value",
    }
}

/// The error on top of the stack as text (the message handler makes every error a string;
/// a memory error skips the handler and is Lua's own string).
unsafe fn error_text(state: *mut ffi::lua_State) -> String {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        if ffi::lua_type(state, -1) == ffi::LUA_TSTRING {
            let mut len = 0usize;
            let p = ffi::lua_tolstring(state, -1, &mut len);
            // Only what the error line keeps is copied (a script may throw 16 MB).
            crate::bounded::message(
                std::slice::from_raw_parts(p as *const u8, len),
                agentbox_core::world::ScriptError::MAX_BYTES,
            )
        } else {
            format!(
                "error thrown with a {} instead of a message",
                type_name(ffi::lua_type(state, -1))
            )
        }
    }
}
