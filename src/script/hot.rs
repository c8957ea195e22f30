//! The hot path of a round of decisions, in the raw Lua C API: what crowds of thousands of
//! agents pay for every decision, kept to plain stack operations (an mlua call or table write
//! is a protected call costing hundreds of nanoseconds).
//!
//! - [`Hot`]: what the raw functions read while scripts run (the world of the tick, the views,
//!   the book of live actions); one per Lua state, in its app data.
//! - [`ActionBook`]: every live action userdata by address, so the decision loop reads what
//!   `decide` returned without an mlua type check.
//! - Raw C functions with a fast path for the common call and the full mlua function as their
//!   fallback for everything else (other argument shapes, errors with their messages):
//!   `world:nearest(self, kind)` and the `move.*` functions taking a target, which hand out one
//!   cached action per target agent instead of a new userdata per call.
//! - [`run_batch`]: calls `decide` for a run of agents whose state is ready (slot, module,
//!   view), each under the instruction budget and the message handler, in one protected call
//!   ([`decide_loop`]) that is entered again after an agent whose `decide` raised. While it
//!   runs, the raw functions find its [`Hot`] in a thread-local instead of their upvalue.
//!
//! Nothing here may leave a Rust value that needs dropping alive across a Lua call that can
//! raise (a raised error unwinds with `longjmp`): the code copies what it needs and calls Lua
//! with only references and plain numbers in its frames. It never changes the world.

use super::budget::{Call, Stop};
use super::views::{write_scalars_raw, Keys, Views, DECIDE, KEY_NAMES};
use crate::world::spatial::FastMap;
use crate::world::{Action, Target, World};
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
    /// The world of the round being decided (null outside one).
    world: Cell<*const World>,
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
        world: Cell::new(std::ptr::null()),
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
    /// Sets the world raw functions read (`None` once the round is over). The caller keeps
    /// the world alive until it clears it.
    pub fn set_world(&self, world: Option<&World>) {
        self.world
            .set(world.map_or(std::ptr::null(), |w| w as *const World));
    }

    fn world(&self) -> Option<&World> {
        // SAFETY: set from a world the host keeps alive (an `Rc` in the app data) until it
        // clears the pointer at the end of the round.
        unsafe { self.world.get().as_ref() }
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

    /// The agent index of a view refreshed this round.
    pub fn view_index(&self, value: &Value) -> Option<usize> {
        let Value::Table(t) = value else { return None };
        self.views.current_index(t.to_pointer())
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

/// Upvalues of every raw function: the hot context, the fallback, the view store, the parts
/// store, the key names; then the function's own.
const UP_HOT: c_int = 1;
const UP_FALLBACK: c_int = 2;
const UP_STORE: c_int = 3;
const UP_PARTS: c_int = 4;
const UP_NAMES: c_int = 5;
const UP_OWN: c_int = UP_NAMES + KEY_NAMES.len() as c_int;

fn upvalue_keys() -> Keys {
    let mut names = [0; KEY_NAMES.len()];
    for (k, n) in names.iter_mut().enumerate() {
        *n = ffi::lua_upvalueindex(UP_NAMES + k as c_int);
    }
    Keys {
        store: ffi::lua_upvalueindex(UP_STORE),
        parts: ffi::lua_upvalueindex(UP_PARTS),
        names,
    }
}

/// Makes a raw function: `raw` with upvalues hot, `fallback`, the stores, the names,
/// `own...`.
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
        Value::Table(hot.views.parts().clone()),
    ];
    args.extend(hot.views.names.iter().map(|n| Value::String(n.clone())));
    let n = args.len() + own.len();
    args.extend(own);
    let count = n as c_int;
    // SAFETY: pushes a C closure over the values on the stack; nothing here can raise but the
    // allocation of the closure, which `exec_raw` protects.
    unsafe {
        lua.exec_raw::<Function>(mlua::MultiValue::from_iter(args), move |state| {
            ffi::lua_pushcclosure(state, raw, count);
        })
    }
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

/// `world:nearest(from, kind)`: the fast path takes the deciding agent's own `self` and a
/// kind string (or none), and gives the view and its distance.
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
        let world = hot.world()?;
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
        let origin = world.agent_pos(me)?;
        let found = host(state, || match kind {
            // `world:nearest(self, self.kind)`: the kind is found by its number.
            Some(k) if world.is_kind_of(me, k) => Some(world.nearest_of_own_kind(me)),
            Some(k) => {
                let k = std::str::from_utf8(k).ok()?;
                Some(world.nearest_agent(origin, Some(k), Some(me)))
            }
            None => Some(world.nearest_agent(origin, None, Some(me))),
        })?;
        match found {
            None => {
                ffi::lua_pushnil(state);
                Some(1)
            }
            Some(j) => {
                let distance = world.agent_pos(j)?.distance(origin);
                let keys = upvalue_keys();
                if !hot.views.refresh_raw(state, &keys, world, j) {
                    return None;
                }
                hot.views.push_view_raw(state, &keys, j);
                ffi::lua_pushnumber(state, distance);
                Some(2)
            }
        }
    }
}

/// A `move.*` function of one target: the fast path hands out the cached action for a view
/// refreshed this round; `full` makes (and caches) the others.
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
        let index = hot.views.current_index(ffi::lua_topointer(state, 1))?;
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
}

/// How many agents ahead of the one deciding [`prefetch_self`] is asked for.
pub const AHEAD: usize = 3;

/// Asks the CPU to start loading an agent's `self` table a few agents before it decides: its
/// header, its fields and, made right after it, its `params` table (five cache lines from its
/// address, as the allocator lays out an agent's tables made together). In a crowd those
/// were the misses left in the decision loop (the `self.kind` and `self.params.space` reads);
/// in four sets of side-by-side runs it took 3% to 13% off the Lua tick (geometric means).
/// A hint only: nothing is read.
#[inline]
pub fn prefetch_self(this: *const c_void) {
    #[cfg(target_arch = "x86_64")]
    for line in 0..5 {
        // SAFETY: a prefetch never faults and changes no memory, whatever the address.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>((this as *const i8).wrapping_add(64 * line));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = this;
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
    /// `decide` did not run: the agent's view must be made first (outside the fast path).
    Retry,
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

/// Runs `decide` for the agents `batch` hands out, each under the budget. Ends early (before
/// calling an agent) when its view must be made first; the caller then goes on without the
/// fast path.
///
/// The stack holds the message handler at 1, `world` at 2, the view store at 3, the parts
/// store at 4, the key names from 5, then every cache's table of actions (`Hot::caches`).
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
/// this call (a memory error in the sweep unwinds with `longjmp` past it).
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
        // only 20 slots); without it the agents go through the full path.
        if ffi::lua_checkstack(state, layout.module_slot + 24) == 0 {
            return;
        }
        // What the fast paths handed out before belongs to another round.
        hot.handed.set(None);
        hot.views.sweep_raw(state, &layout.keys, world);
        let base = ffi::lua_gettop(state);
        let mut turn = Turn {
            hot,
            world,
            budget,
            batch,
            layout,
            deciding: None,
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
            if status == ffi::LUA_OK {
                break;
            }
            // An error outside a `decide` (memory, in a refresh) ends the batch with the agent
            // undecided, as the caller expects of a `longjmp` past it.
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
struct Layout {
    keys: Keys,
    /// The first cache's table of actions.
    first_cache: c_int,
    /// Above the fixed slots: the module being run, then its `decide`.
    module_slot: c_int,
}

impl Layout {
    fn new(hot: &Hot) -> Self {
        let mut names = [0; KEY_NAMES.len()];
        for (k, n) in names.iter_mut().enumerate() {
            *n = 5 + k as c_int;
        }
        let first_cache = 5 + KEY_NAMES.len() as c_int;
        Layout {
            keys: Keys {
                store: 3,
                parts: 4,
                names,
            },
            first_cache,
            module_slot: first_cache + hot.caches.borrow().len() as c_int,
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
            keys,
            first_cache,
            module_slot,
        } = turn.layout;
        let decide_slot = module_slot + 1;
        let top = |module: Option<c_int>| match module {
            Some(_) => decide_slot,
            None => module_slot - 1,
        };
        let mut module = None;
        while let Some(ready) = host(state, || turn.batch.next()) {
            if !hot.views.refresh_raw(state, &keys, world, ready.index) {
                let _ = host(state, || turn.batch.done(&ready, Outcome::Retry));
                break;
            }
            let live = hot.views.self_live(ready.index);
            if let (true, Some(agent)) = (live != 0, world.agents.get(ready.index)) {
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.this as i64);
                write_scalars_raw(state, &keys, live, agent);
                ffi::lua_settop(state, top(module));
            }
            if module != Some(ready.module) {
                // The module stays under its `decide`, which stays for the next agents.
                ffi::lua_settop(state, module_slot - 1);
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.module as i64);
                ffi::lua_pushvalue(state, keys.names[DECIDE]);
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
            ffi::lua_pushvalue(state, decide_slot);
            ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ready.this as i64);
            ffi::lua_pushvalue(state, 2);
            hot.views.set_deciding(Some((ready.this_ptr, ready.index)));
            turn.deciding = Some((ready, budget.begin()));
            ffi::lua_callk(state, 2, 1, 0, None);
            let stop = match turn.deciding.take() {
                Some((_, call)) => budget.end(call),
                None => Stop::None,
            };
            hot.views.set_deciding(None);
            let outcome = match ffi::lua_type(state, -1) {
                // A `pcall` swallowed the stop: the call failed all the same.
                _ if stop != Stop::None => Outcome::Failed(String::new(), stop),
                ffi::LUA_TUSERDATA => {
                    // Most often the action a fast path just handed out, the entry of its cache
                    // for its target: known by comparing values, without reading the userdata (a
                    // cache miss per agent in a crowd; even its address, `lua_touserdata`, reads
                    // its header, which cost 9% of a crowd's time).
                    let result = decide_slot + 1;
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

/// Runs host code (Rust only, no Lua call) for a function Lua calls: a panic becomes a Lua
/// error raised from here, after everything the panic left is dropped, instead of unwinding
/// into Lua's C frames.
///
/// # Safety
/// `state` is the running Lua state; no Rust value that needs dropping may be alive in the
/// caller's frames (the error unwinds them with `longjmp`).
unsafe fn host<R>(state: *mut ffi::lua_State, f: impl FnOnce() -> R) -> R {
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
