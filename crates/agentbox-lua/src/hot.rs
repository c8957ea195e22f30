//! The hot path of a round of decisions, in the raw Lua C API: what crowds of thousands of
//! agents pay for every decision, kept to plain stack operations (an mlua call or table write
//! is a protected call costing hundreds of nanoseconds).
//!
//! - [`Hot`]: what the raw functions read while scripts run (the world of the tick, the views,
//!   the book of live actions); one per Lua state, in its app data.
//! - [`ActionBook`]: every live action userdata by address, so the decision loop reads what
//!   `decide` returned without an mlua type check.
//! - Raw C entry points that read the common arguments themselves and hand everything else
//!   (other argument shapes, errors with their messages) to the mlua function that reads any
//!   argument: `world:nearest`, whose query is written once ([`nearest_of`]) for both, and the
//!   `move.*` functions taking a target, whose raw entry only hands out the action the mlua
//!   function made and cached for that target agent (one per target instead of a new userdata
//!   per call). `world:tick()` and `world:time()` are raw C functions and nothing else.
//! - The engine fields of views and `self` are read by raw `__index` functions of their own
//!   (`views.rs`); the deciding agent's own `pos`/`vel`/`tile` proxies are lent to it for its
//!   call (`Views::lend`), so reading them is a table lookup.
//! - [`run_batch`]: calls `decide` for every agent (the host prepares an agent's slot, module,
//!   `init` or `on_reload` and view first, when they are new), each under the work budget and
//!   the message handler, in one protected call
//!   ([`decide_loop`]) that is entered again after an agent whose `decide` raised. While it
//!   runs, the raw functions find its [`Hot`] in a thread-local instead of their upvalue.
//!
//! Nothing here may leave a Rust value that needs dropping alive across a Lua call that can
//! raise (a raised error unwinds with `longjmp`): the code copies what it needs and calls Lua
//! with only references and plain numbers in its frames. It never changes the world.

use super::budget::{Call, Stop};
use super::views::{raw_closure, Views, FAST_PROXIES, FAST_SLOTS};
use agentbox_core::world::spatial::FastMap;
use agentbox_core::world::{Action, Target, World};
use glam::DVec2;
use mlua::ffi;
use mlua::{AnyUserData, Function, Lua, Table, Value};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::rc::Rc;

/// Live action userdata by address (entries leave when the userdata is collected).
#[derive(Default)]
pub struct ActionBook(RefCell<FastMap<usize, Action>>);

impl ActionBook {
    pub fn insert(&self, at: usize, action: Action) {
        self.0.borrow_mut().insert(at, action);
    }

    pub fn remove(&self, at: usize) {
        self.0.borrow_mut().remove(&at);
    }

    /// The action of the userdata at `at`, if it is one.
    pub fn get(&self, at: usize) -> Option<Action> {
        self.0.borrow().get(&at).cloned()
    }
}

/// How a `move.*` function of one target makes its action.
pub type MakeAction = fn(Target) -> Action;

/// What raw functions read while scripts run.
pub struct Hot {
    pub views: Rc<Views>,
    pub book: Rc<ActionBook>,
    /// Per cache of actions by target agent: the views' roster its entries were made for
    /// (entries of an older roster are dropped before the next is added).
    stamps: RefCell<Vec<u64>>,
    /// Per cache: how its actions are made from their target.
    makers: RefCell<Vec<MakeAction>>,
    /// Per cache: its table of actions by target agent (`[j+1]`).
    caches: RefCell<Vec<Table>>,
    /// The cached action a `move.*` fast path handed out last: its cache and the index of its
    /// target agent.
    handed: Cell<Option<(usize, usize)>>,
}

/// Makes the hot context of a state and stores it in its app data.
pub fn install(lua: &Lua) -> mlua::Result<Rc<Hot>> {
    let hot = Rc::new(Hot {
        views: super::views::get(lua)?,
        book: Rc::new(ActionBook::default()),
        stamps: RefCell::new(Vec::new()),
        makers: RefCell::new(Vec::new()),
        caches: RefCell::new(Vec::new()),
        handed: Cell::new(None),
    });
    lua.set_app_data(Rc::clone(&hot));
    Ok(hot)
}

/// The hot context of a state.
pub fn get(lua: &Lua) -> mlua::Result<Rc<Hot>> {
    lua.app_data_ref::<Rc<Hot>>()
        .map(|h| Rc::clone(&h))
        .ok_or_else(|| mlua::Error::RuntimeError("agentbox hot context is not installed".into()))
}

impl Hot {
    /// Runs `f` with the world lent to Lua (`lent.rs`); `None` outside a loan.
    fn with_world<R>(&self, f: impl FnOnce(&World) -> R) -> Option<R> {
        self.views.lent().with(f)
    }

    /// A new cache of actions by target agent, made by `make` and kept in `actions`; its
    /// number.
    pub fn new_cache(&self, make: MakeAction, actions: &Table) -> usize {
        self.makers.borrow_mut().push(make);
        self.caches.borrow_mut().push(actions.clone());
        let mut stamps = self.stamps.borrow_mut();
        stamps.push(0);
        stamps.len() - 1
    }

    /// Every cache's table of actions, in cache order.
    pub fn caches(&self) -> Vec<Table> {
        self.caches.borrow().clone()
    }

    /// The action the fast path handed out last, made again from its target (the same action
    /// as the cached userdata's, without reading the userdata).
    fn handed_action(&self, world: &World) -> Option<Action> {
        let (cache, j) = self.handed.get()?;
        let make = *self.makers.borrow().get(cache)?;
        Some(make(target_of(world, j)?))
    }

    /// Whether the entries of cache `cache` are current (made for the views' roster).
    fn cache_current(&self, cache: usize) -> bool {
        let roster = self.views.roster();
        self.stamps.borrow().get(cache) == Some(&roster)
    }

    /// Makes cache `cache` current, emptying `actions` if it held entries of an older roster.
    fn renew(&self, cache: usize, actions: &Table) -> mlua::Result<()> {
        if !self.cache_current(cache) {
            actions.clear()?;
            if let Some(stamp) = self.stamps.borrow_mut().get_mut(cache) {
                *stamp = self.views.roster();
            }
        }
        Ok(())
    }

    /// The agent index of a view.
    pub fn view_index(&self, value: &Value) -> Option<usize> {
        let Value::Table(t) = value else { return None };
        self.views.index_of(t.to_pointer())
    }
}

/// The target standing for agent `j` of `world` (its id from the shared list while the world
/// is sealed, so no string is copied).
pub fn target_of(world: &World, j: usize) -> Option<Target> {
    let agent = match world.agent_ref(j) {
        Some(a) => a,
        None => world.agents.get(j)?.id.as_str().into(),
    };
    Some(Target::Agent(agent))
}

/// Upvalues of every raw entry: the hot context, the fallback, the view store; then the
/// function's own.
const UP_HOT: c_int = 1;
const UP_FALLBACK: c_int = 2;
const UP_STORE: c_int = 3;
const UP_OWN: c_int = 4;

/// Makes a raw entry: `raw` with upvalues hot, `fallback`, the view store, `own...`.
fn make_raw(
    lua: &Lua,
    hot: &Rc<Hot>,
    raw: ffi::lua_CFunction,
    fallback: Function,
    own: Vec<Value>,
) -> mlua::Result<Function> {
    let mut args: Vec<Value> = vec![
        Value::LightUserData(mlua::LightUserData(Rc::as_ptr(hot) as *mut c_void)),
        Value::Function(fallback),
        Value::Table(hot.views.store().clone()),
    ];
    args.extend(own);
    raw_closure(lua, raw, args)
}

/// Calls the fallback (upvalue 2) with this call's arguments; returns its results.
unsafe fn fallback(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let n = ffi::lua_gettop(state);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(UP_FALLBACK));
        ffi::lua_rotate(state, 1, 1);
        ffi::lua_call(state, n, ffi::LUA_MULTRET);
        ffi::lua_gettop(state)
    }
}

thread_local! {
    /// The hot context of the batch running on this thread, null outside one. Raw functions
    /// read it instead of their upvalue (a Lua API call each, twice per agent in a crowd); no
    /// other state's function can run inside a batch, as states share no values.
    static BATCH_HOT: Cell<*const Hot> = const { Cell::new(std::ptr::null()) };
}

/// Sets [`BATCH_HOT`] for as long as it lives (cleared again by a panic too).
struct InBatch;

impl InBatch {
    fn enter(hot: &Hot) -> Self {
        BATCH_HOT.with(|h| h.set(hot));
        InBatch
    }
}

impl Drop for InBatch {
    fn drop(&mut self) {
        BATCH_HOT.with(|h| h.set(std::ptr::null()));
    }
}

unsafe fn hot_of<'a>(state: *mut ffi::lua_State) -> &'a Hot {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let batch = BATCH_HOT.with(|h| h.get());
        if !batch.is_null() {
            return &*batch;
        }
        &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(UP_HOT)) as *const Hot)
    }
}

/// Where `world:nearest` measures from.
#[derive(Clone, Copy)]
pub enum From {
    /// An agent's position, leaving that agent out.
    Agent(usize),
    /// A point, leaving out the agent of this index if any.
    Point(DVec2, Option<usize>),
}

/// `world:nearest`'s query, for both of its entries: the nearest agent of `kind` (any kind for
/// `None`) to `from`, and its distance.
pub fn nearest_of(world: &World, from: From, kind: Option<&[u8]>) -> Option<(usize, f64)> {
    let (origin, exclude) = match from {
        From::Agent(me) => (world.agent_pos(me)?, Some(me)),
        From::Point(p, exclude) => (p, exclude),
    };
    let found = match (from, kind) {
        // `world:nearest(self, self.kind)`: the kind is found by its number.
        (From::Agent(me), Some(k)) if world.is_kind_of(me, k) => world.nearest_of_own_kind(me),
        // No agent's kind is text that is not UTF-8.
        (_, Some(k)) => world.nearest_agent(origin, Some(std::str::from_utf8(k).ok()?), exclude),
        (_, None) => world.nearest_agent(origin, None, exclude),
    }?;
    Some((found, world.agent_pos(found)?.distance(origin)))
}

/// `world:nearest(from, kind)`: the raw entry reads the deciding agent's own `self` and a kind
/// string (or none); `full` reads any other arguments.
pub fn nearest(lua: &Lua, hot: &Rc<Hot>, full: Function) -> mlua::Result<Function> {
    make_raw(lua, hot, nearest_raw, full, Vec::new())
}

unsafe extern "C-unwind" fn nearest_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        match try_nearest(state) {
            Some(n) => n,
            None => fallback(state),
        }
    }
}

unsafe fn try_nearest(state: *mut ffi::lua_State) -> Option<c_int> {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let hot = hot_of(state);
        if !(2..=3).contains(&ffi::lua_gettop(state)) {
            return None;
        }
        let (me_ptr, me) = hot.views.deciding()?;
        // Only the deciding agent's own table has its address (whatever the argument's type).
        if ffi::lua_topointer(state, 2) != me_ptr {
            return None;
        }
        let kind = match ffi::lua_type(state, 3) {
            ffi::LUA_TNONE | ffi::LUA_TNIL => None,
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let p = ffi::lua_tolstring(state, 3, &mut len);
                Some(std::slice::from_raw_parts(p as *const u8, len))
            }
            _ => return None,
        };
        // `None` outside a loan of the world: the full function says why.
        let found = host(state, || {
            hot.with_world(|world| {
                nearest_of(world, From::Agent(me), kind).map(|(j, d)| (j, d, hot.views.view_ptr(j)))
            })
        })?;
        match found {
            None => {
                ffi::lua_pushnil(state);
                Some(1)
            }
            // A view not made yet: `full` makes it.
            Some((_, _, None)) => None,
            Some((j, distance, Some(_))) => {
                hot.views
                    .push_view_raw(state, ffi::lua_upvalueindex(UP_STORE), j);
                ffi::lua_pushnumber(state, distance);
                Some(2)
            }
        }
    }
}

/// A number of the world a raw `world:*` method gives.
#[derive(Clone, Copy)]
pub enum Number {
    /// `world:tick()`: the tick being decided.
    Tick,
    /// `world:time()`: simulated seconds.
    Time,
}

/// `world:tick()` or `world:time()`: a raw C function (an mlua call cost about 280 ns; a crowd
/// reads the tick every decision). Outside `init` and `decide` it raises a located error.
pub fn world_number(lua: &Lua, which: Number) -> mlua::Result<Function> {
    raw_closure(
        lua,
        match which {
            Number::Tick => tick_raw,
            Number::Time => time_raw,
        },
        vec![Value::LightUserData(mlua::LightUserData(
            Rc::as_ptr(&get(lua)?) as *mut c_void,
        ))],
    )
}

unsafe extern "C-unwind" fn tick_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: Lua calls it on a live state of this thread with the upvalue `world_number` gave.
    unsafe {
        match hot_of(state).with_world(|w| w.tick as i64) {
            Some(tick) => ffi::lua_pushinteger(state, tick),
            None => outside(state, c"world:tick can only be used inside init or decide"),
        }
        1
    }
}

unsafe extern "C-unwind" fn time_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as `tick_raw`.
    unsafe {
        match hot_of(state).with_world(World::time) {
            Some(time) => ffi::lua_pushnumber(state, time),
            None => outside(state, c"world:time can only be used inside init or decide"),
        }
        1
    }
}

/// Raises `message`, located at the script's line as `errors::located` does.
///
/// # Safety
/// A live state inside a function Lua called; nothing that needs dropping in the caller's
/// frames.
unsafe fn outside(state: *mut ffi::lua_State, message: &std::ffi::CStr) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::luaL_where(state, 1);
        ffi::lua_pushstring(state, message.as_ptr());
        ffi::lua_concat(state, 2);
        ffi::lua_error(state);
    }
}

/// A `move.*` function of one target: the raw entry hands out the cached action for a view;
/// `full` makes (and caches) it, and reads any other target.
pub fn target(
    lua: &Lua,
    hot: &Rc<Hot>,
    full: Function,
    cache: usize,
    actions: Table,
) -> mlua::Result<Function> {
    make_raw(
        lua,
        hot,
        target_raw,
        full,
        vec![Value::Integer(cache as i64), Value::Table(actions)],
    )
}

unsafe extern "C-unwind" fn target_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        match try_target(state) {
            Some(n) => n,
            None => fallback(state),
        }
    }
}

unsafe fn try_target(state: *mut ffi::lua_State) -> Option<c_int> {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let hot = hot_of(state);
        // Extra arguments are ignored, as the full function ignores them
        // (`move.chase(world:nearest(self))` passes the distance too).
        if ffi::lua_gettop(state) < 1 {
            return None;
        }
        // Only a view table has a view's address (whatever the argument's type).
        let index = hot.views.index_of(ffi::lua_topointer(state, 1))?;
        let cache = ffi::lua_tointeger(state, ffi::lua_upvalueindex(UP_OWN)) as usize;
        if !hot.cache_current(cache) {
            return None;
        }
        if ffi::lua_rawgeti(state, ffi::lua_upvalueindex(UP_OWN + 1), index as i64 + 1)
            != ffi::LUA_TUSERDATA
        {
            ffi::lua_settop(state, -2);
            return None;
        }
        hot.handed.set(Some((cache, index)));
        Some(1)
    }
}

/// Caches `ud` as the action of cache `cache` for agent `index`.
pub fn remember(
    hot: &Hot,
    actions: &Table,
    cache: usize,
    index: usize,
    ud: &AnyUserData,
) -> mlua::Result<()> {
    hot.renew(cache, actions)?;
    actions.raw_set(index + 1, ud)
}

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
}

/// How many agents ahead of the one deciding [`prefetch_self`] is asked for.
pub const AHEAD: usize = 3;

/// Asks the CPU to start loading an agent's `self` table a few agents before it decides: its
/// header, its fields and, made right after it, its `params` table (five cache lines from its
/// address for a `self` of four slots, more for a bigger one: [`self_lines`], as the allocator
/// lays out an agent's tables made together). In a crowd those
/// were the misses left in the decision loop (the `self.kind` and `self.params.space` reads);
/// in four sets of side-by-side runs it took 3% to 13% off the Lua tick (geometric means).
/// A hint only: nothing is read. `lines` is [`self_lines`] of the `self`.
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
    /// `decide` returned something else: its Lua type name (`nil`, `table`, `userdata`...).
    Returned(&'static str),
    /// `decide` failed with this message (the message handler's, or the raw error; empty
    /// when a `pcall` swallowed a limit's stop), and whether a limit stopped it.
    Failed(String, Stop),
    /// The module has no `decide` function (any more).
    NoDecide,
}

/// The host's side of a batch. Neither method may call Lua.
pub trait Batch {
    /// The next agent to decide, made current (its random stream in place); `None` ends the
    /// batch.
    fn next(&mut self) -> Option<Ready>;
    /// What the agent's `decide` gave; false ends the batch after it.
    fn done(&mut self, ready: &Ready, outcome: Outcome) -> bool;
}

/// Runs `decide` for the agents `batch` hands out, each under the budget: the one place a
/// `decide` is called. Ends early only when the stack cannot grow (then no agent was called).
///
/// The stack holds the message handler at 1, `world` at 2, the string `"decide"` at 3, then
/// every cache's table of actions (`Hot::caches`).
///
/// The agents are called one after another inside one protected call ([`decide_loop`]), each
/// with a plain `lua_call`: a protected call per agent cost about 100 instructions in a crowd.
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
    hot: &Hot,
    world: &World,
    budget: &super::budget::Budget,
    batch: &mut dyn Batch,
) {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let layout = Layout::new(hot);
        // Room for what the loop pushes above its copy of the arguments (a C function is promised
        // only 20 slots).
        if ffi::lua_checkstack(state, layout.module_slot + 24) == 0 {
            return;
        }
        // What the fast paths handed out before belongs to another round.
        hot.handed.set(None);
        let base = ffi::lua_gettop(state);
        let mut turn = Turn {
            hot,
            world,
            budget,
            batch,
            layout,
            deciding: None,
            lent: (0, 0),
        };
        let turn_ptr: *mut Turn = &mut turn;
        loop {
            ffi::lua_pushcfunction(state, decide_loop);
            ffi::lua_pushlightuserdata(state, turn_ptr as *mut c_void);
            for slot in 2..=base {
                ffi::lua_pushvalue(state, slot);
            }
            // The protected call always returns here, so the guard always ends its batch.
            let in_batch = InBatch::enter(hot);
            let status = ffi::lua_pcall(state, base, 0, 1);
            drop(in_batch);
            // SAFETY: the loop's frame, the only other user of `turn`, is gone.
            let turn = &mut *turn_ptr;
            if turn.lent.1 != 0 {
                let (index, lent) = turn.lent;
                ffi::lua_settop(state, base + 1);
                give_back(state, turn.hot, index, lent);
                turn.lent = (0, 0);
            }
            if status == ffi::LUA_OK {
                break;
            }
            // An error outside a `decide` ends the batch with the agent undecided, as the
            // caller expects of a `longjmp` past it.
            let Some((ready, call)) = turn.deciding.take() else {
                break;
            };
            let stop = match turn.budget.end(call) {
                Stop::None if status == ffi::LUA_ERRMEM => Stop::Memory,
                stop => stop,
            };
            turn.hot.views.set_deciding(None);
            let outcome = Outcome::Failed(error_text(state), stop);
            ffi::lua_settop(state, base);
            if !host(state, || turn.batch.done(&ready, outcome)) {
                break;
            }
        }
        ffi::lua_settop(state, base);
    }
}

/// Where the fixed values sit on the stack of a batch (and of [`decide_loop`], whose frame
/// copies them, with its context in place of the message handler at 1).
#[derive(Clone, Copy)]
struct Layout {
    /// The string `"decide"`.
    decide_name: c_int,
    /// The first cache's table of actions.
    first_cache: c_int,
    /// Above the caches, pushed by the loop: what lends the deciding agent its own parts
    /// (`views::FAST_SLOTS` values).
    fast: c_int,
    /// Above the fixed slots: the module being run, then its `decide`.
    module_slot: c_int,
}

impl Layout {
    fn new(hot: &Hot) -> Self {
        let fast = 4 + hot.caches.borrow().len() as c_int;
        Layout {
            decide_name: 3,
            first_cache: 4,
            fast,
            module_slot: fast + FAST_SLOTS,
        }
    }
}

/// What [`decide_loop`] works with, owned by [`run_batch`]'s frame.
struct Turn<'a> {
    hot: &'a Hot,
    world: &'a World,
    budget: &'a super::budget::Budget,
    batch: &'a mut dyn Batch,
    layout: Layout,
    /// The agent whose `decide` is running and its budget call (left set when it raises).
    deciding: Option<(Ready, Call)>,
    /// The agent index and the parts lent to it while it decides (`Views::lend`), given back
    /// when it raises.
    lent: (usize, u8),
}

/// The loop over a batch's agents (see [`run_batch`]): its context is a light userdata at 1.
/// Nothing in this frame needs dropping: a raised error unwinds it with `longjmp`.
unsafe extern "C-unwind" fn decide_loop(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let turn = &mut *(ffi::lua_touserdata(state, 1) as *mut Turn);
        let (hot, world, budget) = (turn.hot, turn.world, turn.budget);
        let Layout {
            decide_name,
            first_cache,
            fast,
            module_slot,
        } = turn.layout;
        let decide_slot = module_slot + 1;
        ffi::lua_settop(state, fast - 1);
        ffi::lua_rawgeti(
            state,
            ffi::LUA_REGISTRYINDEX,
            hot.views.fast_ref as ffi::lua_Integer,
        );
        for n in 0..FAST_SLOTS {
            ffi::lua_rawgeti(state, fast, n as ffi::lua_Integer + 1);
        }
        // The reference's table out, its values in place.
        ffi::lua_rotate(state, fast, -1);
        ffi::lua_settop(state, -2);
        let mut module = None;
        while let Some(ready) = host(state, || turn.batch.next()) {
            if module != Some(ready.module) {
                // The module stays under its `decide`, which stays for the next agents.
                ffi::lua_settop(state, module_slot - 1);
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.module as i64);
                ffi::lua_pushvalue(state, decide_name);
                ffi::lua_rawget(state, -2);
                if ffi::lua_type(state, -1) != ffi::LUA_TFUNCTION {
                    ffi::lua_settop(state, module_slot - 1);
                    module = None;
                    if host(state, || turn.batch.done(&ready, Outcome::NoDecide)) {
                        continue;
                    }
                    break;
                }
                module = Some(ready.module);
            }
            // The agents of a crowd decide in index order, so the one a few ahead is most often
            // index + AHEAD: its own tables are asked for now (a hint, never a read).
            hot.views.prefetch_own(ready.index + AHEAD);
            // Its `self` above `decide_slot`, then its own parts it reads, lent (their proxies
            // left above `self`, found in it).
            let this_slot = decide_slot + 1;
            ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.this as i64);
            let parts = hot.views.self_parts(ready.index);
            if parts != 0 {
                turn.lent = (ready.index, 0);
                Views::lend(
                    state,
                    fast,
                    this_slot,
                    world,
                    ready.index,
                    parts,
                    &mut turn.lent.1,
                );
            }
            ffi::lua_pushvalue(state, decide_slot);
            ffi::lua_pushvalue(state, this_slot);
            ffi::lua_pushvalue(state, 2);
            hot.views.set_deciding(Some((ready.this_ptr, ready.index)));
            turn.deciding = Some((ready, budget.begin()));
            ffi::lua_callk(state, 2, 1, 0, None);
            let stop = match turn.deciding.take() {
                Some((_, call)) => budget.end(call),
                None => Stop::None,
            };
            hot.views.set_deciding(None);
            if turn.lent.1 != 0 {
                Views::end_lend(state, this_slot + 1, turn.lent.1);
                turn.lent = (0, 0);
            }
            let result = ffi::lua_gettop(state);
            let outcome = match ffi::lua_type(state, -1) {
                // A `pcall` swallowed the stop: the call failed all the same.
                _ if stop != Stop::None => Outcome::Failed(String::new(), stop),
                ffi::LUA_TUSERDATA => {
                    // Most often the action a fast path just handed out, the entry of its cache
                    // for its target: known by comparing values, without reading the userdata (a
                    // cache miss per agent in a crowd; even its address, `lua_touserdata`, reads
                    // its header, which cost 9% of a crowd's time).
                    let known = match hot.handed.get() {
                        Some((cache, j)) => {
                            ffi::lua_rawgeti(state, first_cache + cache as c_int, j as i64 + 1);
                            let handed = ffi::lua_rawequal(state, -1, result) != 0;
                            handed.then(|| hot.handed_action(world)).flatten()
                        }
                        None => None,
                    };
                    match known
                        .or_else(|| hot.book.get(ffi::lua_touserdata(state, result) as usize))
                    {
                        Some(action) => Outcome::Act(action),
                        None => Outcome::Returned("userdata"),
                    }
                }
                t => Outcome::Returned(type_name(t)),
            };
            ffi::lua_settop(state, decide_slot);
            if !host(state, || turn.batch.done(&ready, outcome)) {
                break;
            }
        }
        0
    }
}

/// Gives the parts `lent` to agent `index` back after its `decide` raised (the loop's stack,
/// which held their proxies, is gone).
///
/// # Safety
/// A live state with room for [`FAST_SLOTS`] + 2 values; nothing that needs dropping in the
/// caller's frames.
unsafe fn give_back(state: *mut ffi::lua_State, hot: &Hot, index: usize, lent: u8) {
    // SAFETY: the caller's contract; these reads and `lua_lendback` do not raise.
    unsafe {
        let top = ffi::lua_gettop(state);
        ffi::lua_rawgeti(
            state,
            ffi::LUA_REGISTRYINDEX,
            hot.views.fast_ref as ffi::lua_Integer,
        );
        let fast = top + 1;
        for n in 0..FAST_SLOTS {
            ffi::lua_rawgeti(state, fast, n as ffi::lua_Integer + 1);
        }
        let values = fast + 1;
        let first = ffi::lua_gettop(state) + 1;
        for (k, slot) in hot.views.part_slots(index) {
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
pub(super) unsafe fn host<R>(state: *mut ffi::lua_State, f: impl FnOnce() -> R) -> R {
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
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        } else {
            format!(
                "error thrown with a {} instead of a message",
                type_name(ffi::lua_type(state, -1))
            )
        }
    }
}
