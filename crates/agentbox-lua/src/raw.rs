//! The raw C-API twins of bindings: C functions Lua calls on the hot path of a crowd, in
//! front of (or instead of) an mlua function. An mlua function converts its arguments and
//! results through protected calls; these read the common arguments off the stack themselves
//! and hand every other case (other argument shapes, errors with their messages) to the mlua
//! function behind them. This file is the one place such twins live, and each is kept only
//! because a measurement shows it pays: `docs/benchmarks.md`, "The Lua host's raw C-API
//! twins", gives the figure for each (instructions per agent and tick by cachegrind, with the
//! twin and with the mlua function alone).
//!
//! | twin | in front of | what it answers itself |
//! | --- | --- | --- |
//! | [`nearest`] (`world:nearest`) | `bindings::world`'s `nearest` | the deciding agent's own `self` and a kind string (the one seen last known by its address, `KindSeen`); the query is [`nearest_of`] for both |
//! | [`target`] (the one-target `move.*`) | `bindings::moves`' `target_fn` | a view of this round: hands out the action made for that agent (one per target instead of a new userdata per call), and makes and keeps the first one itself once the mlua function has made the cache current; the first caches' twins carry their number in their code (`TARGET_TWINS`) |
//! | [`world_number`] (`world:tick`, `world:time`) | nothing: a raw C function only | everything (outside a loan, a located error) |
//! | [`draw_gate`] (`draw.*`) | `bindings::draw`'s shape reader | returns at once unless the window collects drawings |
//! | [`inbox`] (`self:inbox()`) | `acts.rs`' `inbox` | the deciding agent's own call: hands out the shared empty list, or builds its read-only list of letters (and charges it) itself, each sender's id string from a cache by its shared `Arc` ([`SenderStrings`]) |
//! | [`spawn`] (`world:spawn`) | `bindings::acts`' `spawn` | a spec of `kind` and a plain `at` that the scene takes: queued and charged by `bindings::acts::spawn_plain` |
//! | [`broadcast`] (`world:broadcast`) | `bindings::acts`' `broadcast` | a plain scalar message with options of `radius` and `kind`: resolved, queued and charged by `bindings::acts::broadcast_plain` |
//! | [`field_index`], [`part_index`] (views' and `self`'s `__index`) | `views::fill`, for the first read of a part or of `self.memory` | every engine field of an agent, read from the world lent now; the deciding agent's methods (`self:inbox`...) by their names' addresses (`Views::method_slot`) |
//!
//! The context the twins read is [`RawContext`] (one per Lua state, in its app data; the
//! decision loop, `decide_loop.rs`, reads it too): the views, the actions' metatable, and
//! the one-target `move.*` caches of actions by target agent.
//!
//! Audit rules, for every function here:
//! - Each `unsafe` block says why it is sound. A raw function reads its context through a light
//!   userdata upvalue pointing into an `Rc` that the state's app data holds for the state's
//!   life (or, inside a batch, through [`BATCH_CONTEXT`], set only for the batch's protected
//!   call).
//! - Rust code runs under `decide_loop::host`, so a panic becomes a Lua error.
//! - Nothing that needs dropping is alive across a Lua call that can raise (a raised error
//!   unwinds with `longjmp`): only references and plain numbers are held there.
//! - The world is read only through the loan (`lent.rs`); nothing here changes it.

use crate::convert::ActionMeta;
use crate::decide_loop::host;
use crate::draw::Drawings;
use crate::ffi::lua_toidentity;
use crate::views::{
    field_of, part_slot, part_xy, scalar, Num, Scalar, Views, LABEL, POS, TILE, VEL,
};
use agentbox_core::world::effects::Letter;
use agentbox_core::world::{Action, Roster, Target, World};
use glam::DVec2;
use mlua::ffi;
use mlua::{Function, Lua, Table, Value};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::rc::Rc;

/// Which action a `move.*` function of one target makes from its target.
///
/// An enum matched where the action is made, not a `fn(Target) -> Action`: through the
/// pointer, the target went to the maker through the stack, stored in 8- and 16-byte pieces
/// its 16-byte loads straddled, and the action came back the same way, store-forwarding
/// stalls on every agent handed a cached action (`docs/benchmarks.md`, goal 1 of issue 35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MakeAction {
    Chase,
    Evade,
    FlowTo,
    BasicChase,
    BasicEvade,
    LosChase,
    Intercept,
    WanderAvoid,
}

impl MakeAction {
    /// The action made from `target`.
    #[inline(always)]
    pub fn make(self, target: Target) -> Action {
        match self {
            MakeAction::Chase => Action::Chase(target),
            MakeAction::Evade => Action::Evade(target),
            MakeAction::FlowTo => Action::FlowTo(target),
            MakeAction::BasicChase => Action::BasicChase(target),
            MakeAction::BasicEvade => Action::BasicEvade(target),
            MakeAction::LosChase => Action::LosChase(target),
            MakeAction::Intercept => Action::Intercept(target),
            MakeAction::WanderAvoid => Action::WanderAvoid(target),
        }
    }
}

/// What the raw functions (and the decision loop) read while scripts run; one per Lua state,
/// in its app data.
pub struct RawContext {
    pub views: Rc<Views>,
    /// The metatable that marks a userdata as an action (`convert::make_action`).
    pub actions: ActionMeta,
    /// Per cache of actions by target agent: the views' roster its entries were made for
    /// (entries of an older roster are dropped before the next is added).
    stamps: RefCell<Vec<u64>>,
    /// Per cache: how its actions are made from their target.
    makers: RefCell<Vec<MakeAction>>,
    /// The cached action a `move.*` fast path handed out last: its cache, the index of its
    /// target agent and the userdata's identity (`lua_toidentity`, which reads no userdata).
    pub(crate) handed: Cell<Option<(usize, usize, *const c_void)>>,
    /// The action the full `move.*` function just made, to be kept by the raw entry that
    /// called it (its cache and target agent; see [`remember`]).
    keep: Cell<Option<(usize, usize)>>,
    /// The kind string `world:nearest` read last ([`KindSeen`]).
    kind_seen: Cell<KindSeen>,
    /// The round's effects, which the raw `world:spawn` queues to.
    acts: Rc<crate::acts::Acts>,
    /// The state's budget, which the raw `world:spawn` bills the queued spawn to.
    budget: Option<Rc<crate::budget::Budget>>,
    /// The senders' ids the raw `self:inbox()` made Lua strings of lately ([`SenderStrings`]).
    senders: RefCell<SenderStrings>,
}

/// How many senders' id strings the raw `self:inbox()` keeps at hand.
const SENDER_SLOTS: usize = 256;

/// The Rust half of the raw `self:inbox()`'s cache of its letters' `from` strings: slot `k`
/// holds the sender id (a letter's shared `Arc`) whose Lua string its cache table (an upvalue)
/// holds at `k + 1`. A sender reaching many agents in a tick is one `Arc` in all their
/// letters, so its string is found by the `Arc`'s address (the slot) and checked to be that
/// `Arc` (held here, no other string can take its address while it is kept), instead of
/// hashing and interning its bytes again for every letter. A slot is set only after the Lua
/// string is in the table, so the two halves never disagree.
struct SenderStrings(Vec<Option<std::sync::Arc<str>>>);

impl SenderStrings {
    /// The slot of a sender id (by its address; two ids may share one).
    #[inline]
    fn slot(from: &std::sync::Arc<str>) -> usize {
        (std::sync::Arc::as_ptr(from) as *const u8 as usize >> 4) % SENDER_SLOTS
    }

    /// Whether slot `slot`'s string is the one of `from`.
    #[inline]
    fn holds(&self, slot: usize, from: &std::sync::Arc<str>) -> bool {
        matches!(self.0.get(slot), Some(Some(kept)) if std::sync::Arc::ptr_eq(kept, from))
    }
}

/// Makes the raw context of a state and stores it in its app data.
pub fn install(lua: &Lua) -> mlua::Result<Rc<RawContext>> {
    let context = Rc::new(RawContext {
        views: crate::views::get(lua)?,
        actions: ActionMeta::new(lua)?,
        stamps: RefCell::new(Vec::new()),
        makers: RefCell::new(Vec::new()),
        handed: Cell::new(None),
        keep: Cell::new(None),
        kind_seen: Cell::new(KindSeen::default()),
        acts: crate::acts::get(lua)?,
        budget: lua
            .app_data_ref::<Rc<crate::budget::Budget>>()
            .map(|b| Rc::clone(&b)),
        senders: RefCell::new(SenderStrings(vec![None; SENDER_SLOTS])),
    });
    lua.set_app_data(Rc::clone(&context));
    Ok(context)
}

/// The raw context of a state.
pub fn get(lua: &Lua) -> mlua::Result<Rc<RawContext>> {
    lua.app_data_ref::<Rc<RawContext>>()
        .map(|c| Rc::clone(&c))
        .ok_or_else(|| mlua::Error::RuntimeError("agentbox raw context is not installed".into()))
}

impl RawContext {
    /// The world lent to Lua (`lent.rs`); `None` outside a loan.
    ///
    /// # Safety
    /// As `LentWorld::get`: only for the length of the raw function's call.
    #[inline]
    unsafe fn world(&self) -> Option<&World> {
        // SAFETY: the caller's contract.
        unsafe { self.views.lent().get() }
    }

    /// A new cache of actions by target agent, made by `make` (its table of actions, kept by
    /// its twin as an upvalue, is the caller's); its number.
    pub fn new_cache(&self, make: MakeAction) -> usize {
        self.makers.borrow_mut().push(make);
        let mut stamps = self.stamps.borrow_mut();
        stamps.push(0);
        stamps.len() - 1
    }

    /// How to make again the action the fast path handed out last (the same action as the
    /// cached userdata's, without reading the userdata): its kind and its target agent, one
    /// `world` has (so [`target_of`] finds it).
    #[inline]
    pub(crate) fn handed_action(&self, world: &World) -> Option<(MakeAction, usize)> {
        let (cache, j, _) = self.handed.get()?;
        let make = *self.makers.borrow().get(cache)?;
        (j < world.agents.len()).then_some((make, j))
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
#[inline]
pub fn target_of(world: &World, j: usize) -> Option<Target> {
    let agent = match world.agent_ref(j) {
        Some(a) => a,
        None => world.agents.get(j)?.id.as_str().into(),
    };
    Some(Target::Agent(agent))
}

/// Upvalues of every raw entry: the raw context, the fallback, the view store; then the
/// function's own.
const UP_CONTEXT: c_int = 1;
const UP_FALLBACK: c_int = 2;
const UP_STORE: c_int = 3;
const UP_OWN: c_int = 4;

/// Makes a raw entry: `raw` with upvalues the context, `fallback`, the view store, `own...`.
fn make_raw(
    lua: &Lua,
    context: &Rc<RawContext>,
    raw: ffi::lua_CFunction,
    fallback: Function,
    own: Vec<Value>,
) -> mlua::Result<Function> {
    let mut args: Vec<Value> = vec![
        Value::LightUserData(mlua::LightUserData(Rc::as_ptr(context) as *mut c_void)),
        Value::Function(fallback),
        Value::Table(context.views.store().clone()),
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
    /// The raw context of the batch running on this thread, null outside one. Raw functions
    /// read it instead of their upvalue (a Lua API call each, twice per agent in a crowd); no
    /// other state's function can run inside a batch, as states share no values. Set only by
    /// [`in_batch`].
    static BATCH_CONTEXT: Cell<*const RawContext> = const { Cell::new(std::ptr::null()) };
}

/// Restores [`BATCH_CONTEXT`] when dropped; private to [`in_batch`], so nothing can leak it.
struct EndBatch(*const RawContext);

impl Drop for EndBatch {
    fn drop(&mut self) {
        BATCH_CONTEXT.with(|c| c.set(self.0));
    }
}

/// Runs `f` (a batch's protected call) with `context` as the batch's: raw functions called
/// during `f` find it in [`BATCH_CONTEXT`]. What was there before is back when `f` returns or
/// unwinds.
pub fn in_batch<R>(context: &RawContext, f: impl FnOnce() -> R) -> R {
    let _end = EndBatch(BATCH_CONTEXT.with(|c| c.replace(context)));
    f()
}

/// The raw context of the raw function running now.
///
/// # Safety
/// Called by a raw entry made by [`make_raw`] or [`world_number`] (its first upvalue is the
/// context), on the state's thread.
unsafe fn context_of<'a>(state: *mut ffi::lua_State) -> &'a RawContext {
    // The batch's context is set only while `in_batch`'s call runs, which encloses every Lua
    // call made inside it; the upvalue points into an `Rc` the state's app data holds.
    // SAFETY: as just said, both references outlive this raw call.
    unsafe {
        let batch = BATCH_CONTEXT.with(|c| c.get());
        if !batch.is_null() {
            return &*batch;
        }
        &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(UP_CONTEXT)) as *const RawContext)
    }
}

/// `self:inbox()`: the raw entry builds the deciding agent's list of letters with the C API
/// (20,000 walkers reading their inbox each tick spent most of the talking crowd's extra cost
/// converting letters through mlua); `full` answers any other call, and one the budget
/// cannot pay for (it raises as usual).
pub fn inbox(
    lua: &Lua,
    context: &Rc<RawContext>,
    full: Function,
    read_only: crate::acts::ReadOnlyInbox,
) -> mlua::Result<Function> {
    let mut own = vec![Value::Table(read_only.empty), Value::Table(read_only.meta)];
    for key in INBOX_KEYS {
        own.push(Value::String(lua.create_string(key)?));
    }
    // Under an id of its own, as the `self`-by-id table is: the host's next ids, which later
    // objects (the views) are hashed by, stay as they were (`pairs` order over tables keyed
    // by them is pinned by the hostile `table_keyed_pairs.lua`).
    let make = || lua.create_table_with_capacity(SENDER_SLOTS, 0);
    let senders = match &context.budget {
        Some(budget) => budget.with_next_id(SENDERS_ID, make)?,
        None => make()?,
    };
    own.push(Value::Table(senders));
    make_raw(lua, context, inbox_raw, full, own)
}

/// The id the Lua half of [`SenderStrings`] is made with: its own, just below the
/// `self`-by-id table's (`agents.rs`), far past any count the host reaches. No script
/// reaches the table.
const SENDERS_ID: u32 = (1 << 30) - 2;

/// The keys of a letter, in the order the full function sets them; upvalues of the raw
/// `self:inbox()` after the shared empty list (`UP_OWN`) and the lists' metatable; then the
/// Lua half of [`SenderStrings`] (`UP_SENDERS`).
const INBOX_KEYS: [&str; 3] = ["from", "tick", "msg"];
const UP_SENDERS: c_int = UP_OWN + 2 + INBOX_KEYS.len() as c_int;

unsafe extern "C-unwind" fn inbox_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        match try_inbox(state) {
            Some(n) => n,
            None => fallback(state),
        }
    }
}

unsafe fn try_inbox(state: *mut ffi::lua_State) -> Option<c_int> {
    // this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    // Only references into the lent world live across the calls that may raise (allocation).
    // SAFETY: as said above.
    unsafe {
        let context = context_of(state);
        if ffi::lua_gettop(state) != 1 {
            return None;
        }
        let world = context.world()?;
        let (me_ptr, me) = context.views.deciding()?;
        // Only the deciding agent's own `self` has its address (whatever the argument's type;
        // `lua_toidentity`, a table's address as `lua_topointer` gives it, in fewer steps).
        if lua_toidentity(state, 1) != me_ptr {
            return None;
        }
        let letters: &[Letter] = host(state, || {
            (world.agents.get(me))
                .and_then(|a| a.deliveries.as_deref())
                .map_or(&[][..], |d| &d.inbox[..])
        });
        // No letters: the shared, read-only empty list (nothing to charge).
        if letters.is_empty() {
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(UP_OWN));
            return Some(1);
        }
        // The full function's charge, 1 per letter; one the budget cannot pay is left to it.
        let left = crate::ffi::lua_getwork(state) - letters.len() as i64;
        if left < 0 {
            return None;
        }
        crate::ffi::lua_setwork(state, left);
        let key = |n: c_int| ffi::lua_upvalueindex(UP_OWN + 2 + n);
        ffi::lua_createtable(state, letters.len() as c_int, 0);
        for (n, letter) in letters.iter().enumerate() {
            // As the full function makes it: `from`, `tick`, `msg`, in this order.
            ffi::lua_createtable(state, 0, 3);
            ffi::lua_pushvalue(state, key(0));
            push_sender(state, context, &letter.from);
            ffi::lua_rawset(state, -3);
            ffi::lua_pushvalue(state, key(1));
            ffi::lua_pushinteger(state, letter.tick as ffi::lua_Integer);
            ffi::lua_rawset(state, -3);
            ffi::lua_pushvalue(state, key(2));
            push_json(state, &letter.msg);
            ffi::lua_rawset(state, -3);
            ffi::lua_rawseti(state, -2, n as ffi::lua_Integer + 1);
        }
        // Read-only, as the full function leaves it.
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(UP_OWN + 1));
        ffi::lua_setmetatable(state, -2);
        crate::ffi::lua_setreadonly(state, -1);
        Some(1)
    }
}

/// Pushes the Lua string of sender id `from`, from the raw `self:inbox()`'s cache of them
/// ([`SenderStrings`]) or made and kept there.
///
/// # Safety
/// Called by `try_inbox` (its upvalues), with room for two values; it may raise a memory
/// error making the string, before anything is kept.
unsafe fn push_sender(
    state: *mut ffi::lua_State,
    context: &RawContext,
    from: &std::sync::Arc<str>,
) {
    let slot = SenderStrings::slot(from);
    let at = slot as ffi::lua_Integer + 1;
    // SAFETY: the caller's contract; no borrow of `senders` is held across a Lua call.
    unsafe {
        if (context.senders.try_borrow()).is_ok_and(|s| s.holds(slot, from)) {
            ffi::lua_rawgeti(state, ffi::lua_upvalueindex(UP_SENDERS), at);
            return;
        }
        ffi::lua_pushlstring(state, from.as_ptr().cast(), from.len());
        // Into the table's list part, made with every slot: nothing is allocated.
        ffi::lua_pushvalue(state, -1);
        ffi::lua_rawseti(state, ffi::lua_upvalueindex(UP_SENDERS), at);
    }
    // `try_borrow_mut`: nothing here may panic (this runs outside `host`).
    if let Ok(mut senders) = context.senders.try_borrow_mut() {
        if let Some(kept) = senders.0.get_mut(slot) {
            *kept = Some(std::sync::Arc::clone(from));
        }
    }
}

/// `world:spawn`: the raw entry reads a spec of only `kind` (a string) and `at` (a plain
/// `{x = X, y = Y}` or `{X, Y}`) with the C API and queues the spawn through
/// `bindings::acts::spawn_plain`, which checks and charges it as the mlua function does
/// (a hive spawning 10,000 agents in a tick spent most of each call on mlua's callback, its
/// argument and result conversion and the protected call reading the spec); `full` answers
/// every other call (`params`, other shapes, and every refusal with its message).
pub fn spawn(lua: &Lua, context: &Rc<RawContext>, full: Function) -> mlua::Result<Function> {
    make_raw(lua, context, spawn_raw, full, Vec::new())
}

/// The longest id the raw `world:spawn` returns: a name-sized kind, `-` and a `u64`.
const ID_BYTES: usize = crate::bounded::NAME_BYTES + 21;

unsafe extern "C-unwind" fn spawn_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        match try_spawn(state) {
            Some(n) => n,
            None => fallback(state),
        }
    }
}

unsafe fn try_spawn(state: *mut ffi::lua_State) -> Option<c_int> {
    // A live state on this thread (the caller's contract). Only references, numbers and a byte
    // array live across the calls that may raise (`luaL_checkstack`, pushing the id).
    // SAFETY: as said above.
    unsafe {
        let context = context_of(state);
        if ffi::lua_gettop(state) != 2 || ffi::lua_type(state, 2) != ffi::LUA_TTABLE {
            return None;
        }
        let world = context.world()?;
        let (_, me) = context.views.deciding()?;
        ffi::luaL_checkstack(state, 6, c"world:spawn".as_ptr());
        // The spec's keys: only `kind` and `at` (as `spawn_fields` walks them).
        if !push_only_fields(state, 2, [c"kind", c"at"]) {
            return None;
        }
        crate::bindings::acts::push_plain_xy(state, 4);
        // Stack: world, spec, kind (3), at (4), x (5), y (6).
        let kind = key_bytes(state, 3).and_then(|k| std::str::from_utf8(k).ok());
        let at = match (kind, ffi::lua_type(state, 5), ffi::lua_type(state, 6)) {
            (Some(_), ffi::LUA_TNUMBER, ffi::LUA_TNUMBER) => DVec2::new(
                ffi::lua_tonumberx(state, 5, std::ptr::null_mut()),
                ffi::lua_tonumberx(state, 6, std::ptr::null_mut()),
            ),
            _ => DVec2::NAN,
        };
        let Some(kind) = kind.filter(|_| at.is_finite()) else {
            ffi::lua_settop(state, 2);
            return None;
        };
        let work = crate::ffi::lua_getwork(state);
        // The id fits `ID_BYTES`: `spawn_plain` takes no kind longer than a name.
        let queued = host(state, || {
            let (id, left) = crate::bindings::acts::spawn_plain(
                &context.acts,
                context.budget.as_ref(),
                work,
                world,
                me,
                kind,
                at,
            )?;
            let mut bytes = [0u8; ID_BYTES];
            bytes.get_mut(..id.len())?.copy_from_slice(id.as_bytes());
            Some((bytes, id.len(), left))
        });
        let Some((id, len, left)) = queued else {
            ffi::lua_settop(state, 2);
            return None;
        };
        crate::ffi::lua_setwork(state, left);
        ffi::lua_settop(state, 0);
        ffi::lua_pushlstring(state, id.as_ptr().cast(), len);
        Some(1)
    }
}

/// `world:broadcast`: the raw entry reads a plain scalar message (nil, a boolean, a finite
/// number, a UTF-8 string) and options of only `radius` (a number) and `kind` (a name-sized
/// UTF-8 string) with the C API, and queues the broadcast through
/// `bindings::acts::broadcast_plain`, which resolves, charges and bills it as the mlua
/// function does (a talking crowd spent most of each call on mlua's callback: the options
/// walked with `pairs`, the message converted twice); `full` answers every other call
/// (table messages, other options, and every refusal with its message).
pub fn broadcast(lua: &Lua, context: &Rc<RawContext>, full: Function) -> mlua::Result<Function> {
    make_raw(lua, context, broadcast_raw, full, Vec::new())
}

unsafe extern "C-unwind" fn broadcast_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        match try_broadcast(state) {
            Some(n) => n,
            None => fallback(state),
        }
    }
}

/// The plain scalar message at `at` as `acts::to_message` makes it, or `None` for any other
/// value (a table, a function, a number that is not finite, a string that is not UTF-8 text).
///
/// # Safety
/// A live state; reads the value only (`lua_tolstring` only on a string, which it leaves as
/// it is).
unsafe fn scalar_message(state: *mut ffi::lua_State, at: c_int) -> Option<serde_json::Value> {
    use serde_json::Value as Json;
    // SAFETY: the caller's contract.
    unsafe {
        Some(match ffi::lua_type(state, at) {
            ffi::LUA_TNIL => Json::Null,
            ffi::LUA_TBOOLEAN => Json::Bool(ffi::lua_toboolean(state, at) != 0),
            ffi::LUA_TNUMBER if ffi::lua_isinteger(state, at) != 0 => {
                Json::from(ffi::lua_tointegerx(state, at, std::ptr::null_mut()))
            }
            ffi::LUA_TNUMBER => Json::Number(serde_json::Number::from_f64(ffi::lua_tonumberx(
                state,
                at,
                std::ptr::null_mut(),
            ))?),
            ffi::LUA_TSTRING => {
                let bytes = key_bytes(state, at)?;
                // A short string JSON writes as it is (no escapes) is far within a message's
                // limit; any other is the full function's to measure (and refuse).
                if bytes.len() > 256 || bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\') {
                    return None;
                }
                Json::String(std::str::from_utf8(bytes).ok()?.to_string())
            }
            _ => return None,
        })
    }
}

unsafe fn try_broadcast(state: *mut ffi::lua_State) -> Option<c_int> {
    // A live state on this thread (the caller's contract). Only references and numbers live
    // across the calls that may raise (`luaL_checkstack`); the message is made and handed
    // over within `host`.
    // SAFETY: as said above.
    unsafe {
        let context = context_of(state);
        if ffi::lua_gettop(state) != 3 || ffi::lua_type(state, 3) != ffi::LUA_TTABLE {
            return None;
        }
        let world = context.world()?;
        let (_, me) = context.views.deciding()?;
        ffi::luaL_checkstack(state, 4, c"world:broadcast".as_ptr());
        // The options' keys: only `radius` and `kind` (as `only_keys` walks them).
        if !push_only_fields(state, 3, [c"radius", c"kind"]) {
            return None;
        }
        // Stack: world, msg, opts, radius (4), kind (5).
        let radius = match ffi::lua_type(state, 4) {
            ffi::LUA_TNUMBER if ffi::lua_isinteger(state, 4) != 0 => {
                ffi::lua_tointegerx(state, 4, std::ptr::null_mut()) as f64
            }
            ffi::LUA_TNUMBER => ffi::lua_tonumberx(state, 4, std::ptr::null_mut()),
            _ => f64::NAN,
        };
        let kind = match ffi::lua_type(state, 5) {
            ffi::LUA_TNIL => Some(None),
            _ => key_bytes(state, 5)
                .filter(|k| k.len() <= crate::bounded::NAME_BYTES)
                .and_then(|k| std::str::from_utf8(k).ok())
                .map(Some),
        };
        let (Some(kind), true) = (kind, radius.is_finite() && radius >= 0.0) else {
            ffi::lua_settop(state, 3);
            return None;
        };
        let work = crate::ffi::lua_getwork(state);
        let queued = host(state, || {
            let msg = scalar_message(state, 2)?;
            crate::bindings::acts::broadcast_plain(
                &context.acts,
                context.budget.as_ref(),
                work,
                world,
                me,
                radius,
                kind,
                msg,
            )
        });
        let Some((reached, left)) = queued else {
            ffi::lua_settop(state, 3);
            return None;
        };
        crate::ffi::lua_setwork(state, left);
        ffi::lua_settop(state, 0);
        ffi::lua_pushinteger(state, reached as ffi::lua_Integer);
        Some(1)
    }
}

/// Pushes a plain JSON value as `convert::json_to_lua` makes it.
///
/// # Safety
/// A live state with room for three values; it may raise a memory error, or a stack error
/// past the stack's limit.
unsafe fn push_json(state: *mut ffi::lua_State, value: &serde_json::Value) {
    use serde_json::Value as Json;
    // SAFETY: the caller's contract; nested values get their room from `luaL_checkstack`.
    unsafe {
        match value {
            Json::Null => ffi::lua_pushnil(state),
            Json::Bool(b) => ffi::lua_pushboolean(state, c_int::from(*b)),
            Json::Number(n) => match n.as_i64() {
                Some(i) => ffi::lua_pushinteger(state, i),
                None => ffi::lua_pushnumber(state, n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => {
                ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
            }
            Json::Array(items) => {
                ffi::luaL_checkstack(state, 3, c"message nested too deeply".as_ptr());
                ffi::lua_createtable(state, items.len() as c_int, 0);
                for (i, item) in items.iter().enumerate() {
                    push_json(state, item);
                    ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
                }
            }
            Json::Object(map) => {
                ffi::luaL_checkstack(state, 3, c"message nested too deeply".as_ptr());
                ffi::lua_createtable(state, 0, map.len() as c_int);
                for (k, v) in map {
                    ffi::lua_pushlstring(state, k.as_ptr().cast(), k.len());
                    push_json(state, v);
                    ffi::lua_rawset(state, -3);
                }
            }
        }
    }
}

/// Where `world:nearest` measures from.
#[derive(Clone, Copy)]
pub enum Origin {
    /// An agent's position, leaving that agent out.
    Agent(usize),
    /// A point, leaving out the agent of this index if any.
    Point(DVec2, Option<usize>),
}

/// `world:nearest`'s query, for both of its entries: the nearest agent of `kind` (any kind for
/// `None`) to `from`, and its distance.
pub fn nearest_of(world: &World, from: Origin, kind: Option<&[u8]>) -> Option<(usize, f64)> {
    let (origin, exclude) = match from {
        Origin::Agent(me) => (world.agent_pos(me)?, Some(me)),
        Origin::Point(p, exclude) => (p, exclude),
    };
    let found = match (from, kind) {
        // `world:nearest(self, self.kind)`: the kind is found by its number.
        (Origin::Agent(me), Some(k)) if world.is_kind_of(me, k) => world.nearest_of_own_kind(me),
        // No agent's kind is text that is not UTF-8.
        (_, Some(k)) => world.nearest_agent(origin, Some(std::str::from_utf8(k).ok()?), exclude),
        (_, None) => world.nearest_agent(origin, None, exclude),
    }?;
    Some((found, world.agent_pos(found)?.distance(origin)))
}

/// `world:nearest(from, kind)`: the raw entry reads the deciding agent's own `self` and a kind
/// string (or none); `full` reads any other arguments.
pub fn nearest(lua: &Lua, context: &Rc<RawContext>, full: Function) -> mlua::Result<Function> {
    make_raw(lua, context, nearest_raw, full, Vec::new())
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
        let context = context_of(state);
        let top = ffi::lua_gettop(state);
        if !(2..=3).contains(&top) {
            return None;
        }
        // Outside a loan of the world the full function says why.
        let world = context.world()?;
        let (me_ptr, me) = context.views.deciding()?;
        // Only the deciding agent's own table has its address (whatever the argument's type).
        if lua_toidentity(state, 2) != me_ptr {
            return None;
        }
        let found = match top {
            3 if context.is_own_kind(state, world, me) => host(state, || {
                let j = world.nearest_of_own_kind(me)?;
                let d = world.agent_pos(j)?.distance(world.agent_pos(me)?);
                Some((j, d, context.views.view_ptr(j)))
            }),
            _ => {
                let kind = match ffi::lua_type(state, 3) {
                    ffi::LUA_TNONE | ffi::LUA_TNIL => None,
                    ffi::LUA_TSTRING => {
                        let mut len = 0usize;
                        let p = ffi::lua_tolstring(state, 3, &mut len);
                        let bytes = std::slice::from_raw_parts(p as *const u8, len);
                        context.learn_kind(state, world, bytes);
                        Some(bytes)
                    }
                    _ => return None,
                };
                host(state, || {
                    nearest_of(world, Origin::Agent(me), kind)
                        .map(|(j, d)| (j, d, context.views.view_ptr(j)))
                })
            }
        };
        match found {
            None => {
                ffi::lua_pushnil(state);
                Some(1)
            }
            // A view not made yet: `full` makes it.
            Some((_, _, None)) => None,
            Some((j, distance, Some(ptr))) => {
                context
                    .views
                    .push_view_at(state, ffi::lua_upvalueindex(UP_STORE), j, ptr);
                ffi::lua_pushnumber(state, distance);
                Some(2)
            }
        }
    }
}

/// The kind string `world:nearest` was handed last and what it names, so the next call with
/// the same string (a crowd's `self.kind`, one interned string) is known by its address, with
/// no bytes read or compared: [`RawContext::is_own_kind`].
#[derive(Clone, Copy, Default)]
struct KindSeen {
    /// The string's address (`lua_toidentity`), kept alive by the registry's [`KIND_ANCHOR`]
    /// entry for as long as it is here, so no other value can take the address.
    ptr: usize,
    /// The world roster the rank was read for.
    roster: Roster,
    /// The index's number of the kind it names (`World::kind_rank_named`).
    rank: Option<u32>,
}

/// The registry key (its address, as a light userdata) of the kind string [`KindSeen`] names.
static KIND_ANCHOR: u8 = 0;

impl RawContext {
    /// Whether the value at 3 is the kind string seen last and names agent `me`'s own kind (by
    /// the index's numbers, while the world is sealed and its roster the one the string's
    /// number was read for).
    ///
    /// # Safety
    /// Inside a raw function with at least three values on its stack.
    #[inline]
    unsafe fn is_own_kind(&self, state: *mut ffi::lua_State, world: &World, me: usize) -> bool {
        let seen = self.kind_seen.get();
        // SAFETY: the caller's contract; reads the value's address only.
        let at = unsafe { lua_toidentity(state, 3) } as usize;
        at == seen.ptr
            && seen.rank.is_some()
            && seen.roster.is_known()
            && seen.roster == world.roster()
            && world.kind_rank_of(me) == seen.rank
    }

    /// Remembers the kind string at 3 (its bytes `kind`) as [`KindSeen`], anchored in the
    /// registry, when the world's roster is known, its index sealed and the string names a
    /// kind some agent has.
    ///
    /// # Safety
    /// Inside a raw function with room for one value, the string at 3; nothing that needs
    /// dropping in the caller's frames (setting the registry's entry may raise).
    unsafe fn learn_kind(&self, state: *mut ffi::lua_State, world: &World, kind: &[u8]) {
        let roster = world.roster();
        if !roster.is_known() {
            return;
        }
        let Some(rank) = world.kind_rank_named(kind) else {
            return;
        };
        // The registry's entry is made by the first string learnt, not when the state is made:
        // what a state allocates before any script runs moves when the collector runs, which
        // scripts can see (weak tables), so a scene that never asks for a kind allocates
        // exactly what it did. That first entry may raise a memory error (at the agent's
        // limit), which is then the agent's, as any allocation of its call.
        // SAFETY: the caller's contract; nothing here needs dropping if it raises.
        unsafe {
            ffi::lua_pushvalue(state, 3);
            ffi::lua_rawsetp(
                state,
                ffi::LUA_REGISTRYINDEX,
                &KIND_ANCHOR as *const u8 as *const c_void,
            );
            self.kind_seen.set(KindSeen {
                ptr: lua_toidentity(state, 3) as usize,
                roster,
                rank: Some(rank),
            });
        }
    }
}

/// A number of the world a raw `world:*` method gives.
#[derive(Clone, Copy)]
pub enum WorldNumber {
    /// `world:tick()`: the tick being decided.
    Tick,
    /// `world:time()`: simulated seconds.
    Time,
}

/// `world:tick()` or `world:time()`: a raw C function (a crowd reads the tick every decision;
/// through mlua it cost several times as much: `docs/benchmarks.md`). Outside `init` and
/// `decide` it raises a located error.
pub fn world_number(lua: &Lua, which: WorldNumber) -> mlua::Result<Function> {
    raw_closure(
        lua,
        match which {
            WorldNumber::Tick => tick_raw,
            WorldNumber::Time => time_raw,
        },
        vec![Value::LightUserData(mlua::LightUserData(
            Rc::as_ptr(&get(lua)?) as *mut c_void,
        ))],
    )
}

unsafe extern "C-unwind" fn tick_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: Lua calls it on a live state of this thread with the upvalue `world_number` gave;
    // the lent world is read only within this call.
    unsafe {
        match context_of(state).world() {
            Some(w) => ffi::lua_pushinteger(state, w.tick as i64),
            None => outside(state, c"world:tick can only be used inside init or decide"),
        }
        1
    }
}

unsafe extern "C-unwind" fn time_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as `tick_raw`.
    unsafe {
        match context_of(state).world() {
            Some(w) => ffi::lua_pushnumber(state, w.time()),
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
    context: &Rc<RawContext>,
    full: Function,
    cache: usize,
    actions: Table,
) -> mlua::Result<Function> {
    // The first caches' twins carry their number in their code (reading it from an upvalue
    // was a C API call per decision).
    let raw = TARGET_TWINS.get(cache).copied().unwrap_or(target_raw);
    let meta = Value::Table(context.actions.table().clone());
    make_raw(
        lua,
        context,
        raw,
        full,
        vec![Value::Integer(cache as i64), Value::Table(actions), meta],
    )
}

/// The twins of caches 0 to 7 (there are six one-target `move.*` functions).
const TARGET_TWINS: [ffi::lua_CFunction; 8] = [
    target_raw_of::<0>,
    target_raw_of::<1>,
    target_raw_of::<2>,
    target_raw_of::<3>,
    target_raw_of::<4>,
    target_raw_of::<5>,
    target_raw_of::<6>,
    target_raw_of::<7>,
];

/// The twin of cache `CACHE`.
unsafe extern "C-unwind" fn target_raw_of<const CACHE: usize>(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe { target_entry(state, CACHE) }
}

/// The twin of any cache: its number is its upvalue.
unsafe extern "C-unwind" fn target_raw(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let cache = ffi::lua_tointeger(state, ffi::lua_upvalueindex(UP_OWN)) as usize;
        target_entry(state, cache)
    }
}

/// The raw entry of cache `cache`: hands out the cached action, or calls the full function
/// and keeps the action it made for a target agent.
unsafe fn target_entry(state: *mut ffi::lua_State, cache: usize) -> c_int {
    // Only references and plain numbers live across the calls that may raise.
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        if let Some(n) = try_target(state, cache) {
            return n;
        }
        let context = context_of(state);
        context.keep.set(None);
        let n = fallback(state);
        // The action the full function made for a target agent, kept here with one raw set
        // (through mlua, the set cost a fifth of making the action: a crowd spawned in one
        // tick makes one for each new target).
        if let Some((made_for, index)) = context.keep.take() {
            if made_for == cache && n == 1 && ffi::lua_type(state, -1) == ffi::LUA_TUSERDATA {
                ffi::lua_pushvalue(state, -1);
                ffi::lua_rawseti(state, ffi::lua_upvalueindex(UP_OWN + 1), index as i64 + 1);
                // Now the cache's entry, handed out as a hit hands it out.
                context
                    .handed
                    .set(Some((cache, index, lua_toidentity(state, -1))));
            }
        }
        n
    }
}

unsafe fn try_target(state: *mut ffi::lua_State, cache: usize) -> Option<c_int> {
    // SAFETY: this function's contract (its `# Safety` section, or for a function Lua
    // calls, a live state on this thread with the stack Lua documents) is upheld by the caller.
    unsafe {
        let context = context_of(state);
        // Extra arguments are ignored, as the full function ignores them
        // (`move.chase(world:nearest(self))` passes the distance too).
        let top = ffi::lua_gettop(state);
        if top < 1 {
            return None;
        }
        // An options table (`move.evade(t, {predict = 1})`) is read by the full function.
        if top >= 2 && ffi::lua_type(state, 2) == ffi::LUA_TTABLE {
            return None;
        }
        // Only a view table has a view's address (whatever the argument's type); nil, a
        // number or a boolean has none (a null one, which must not match the views' "last
        // handed out" entry before it is first set).
        let ptr = lua_toidentity(state, 1);
        if ptr.is_null() {
            return None;
        }
        let index = context.views.index_of(ptr)?;
        if !context.cache_current(cache) {
            return None;
        }
        if ffi::lua_rawgeti(state, ffi::lua_upvalueindex(UP_OWN + 1), index as i64 + 1)
            != ffi::LUA_TUSERDATA
        {
            ffi::lua_settop(state, -2);
            return first_target(state, context, cache, index);
        }
        context
            .handed
            .set(Some((cache, index, lua_toidentity(state, -1))));
        Some(1)
    }
}

/// The first action of cache `cache` for target agent `index` (a view of this round, the
/// cache current): made and kept here as the full function and the raw entry would make and
/// keep it (a crowd spawned in one tick makes one for each new target, and through mlua the
/// call and the userdata cost about 4,000 instructions each). `None` (the full function
/// answers) outside a loan or for an agent the world does not have.
///
/// # Safety
/// Called by the raw entry of cache `cache` with its upvalues (the cache at `UP_OWN + 1`, the
/// actions' metatable at `UP_OWN + 2`) and room for two values; it may raise a memory error.
unsafe fn first_target(
    state: *mut ffi::lua_State,
    context: &RawContext,
    cache: usize,
    index: usize,
) -> Option<c_int> {
    // Only references and plain numbers live across the calls that may raise (the block's
    // and the cache's allocations); the action is made and written between them, as
    // `convert::make_action` writes it: block, action, metatable (with its `__gc`).
    // SAFETY: as said above; a new userdata's block is `size_of::<Action>()` bytes, aligned
    // for it (the assertion by `ActionMeta`).
    unsafe {
        let world = context.world()?;
        let make = host(state, || context.makers.borrow().get(cache).copied())?;
        // Agent `index` stands for a target (dropped again before the block is made).
        host(state, || target_of(world, index))?;
        let size = std::mem::size_of::<Action>();
        let block = ffi::lua_newuserdatauv(state, size, 0) as *mut Action;
        if block.align_offset(std::mem::align_of::<Action>()) != 0 {
            // Not reached (see the assertion): the full function answers.
            ffi::lua_settop(state, -2);
            return None;
        }
        let action = host(state, || target_of(world, index).map(|t| make.make(t)));
        let Some(action) = action else {
            ffi::lua_settop(state, -2);
            return None;
        };
        block.write(action);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(UP_OWN + 2));
        ffi::lua_setmetatable(state, -2);
        ffi::lua_pushvalue(state, -1);
        ffi::lua_rawseti(state, ffi::lua_upvalueindex(UP_OWN + 1), index as i64 + 1);
        context
            .handed
            .set(Some((cache, index, lua_toidentity(state, -1))));
        Some(1)
    }
}

/// Caches the action the full function of cache `cache` is about to return as the action
/// for agent `index`: the cache is made current (emptied if it held entries of an older
/// roster) and the raw entry that called the full function keeps the action when it returns
/// (`target_raw`).
pub fn remember(
    context: &RawContext,
    actions: &Table,
    cache: usize,
    index: usize,
) -> mlua::Result<()> {
    context.renew(cache, actions)?;
    context.keep.set(Some((cache, index)));
    Ok(())
}

/// A C closure of `f` over `upvalues`.
pub fn raw_closure(
    lua: &Lua,
    f: ffi::lua_CFunction,
    upvalues: Vec<Value>,
) -> mlua::Result<Function> {
    let count = upvalues.len() as c_int;
    // SAFETY: pushes a C closure over the values on the stack; nothing here can raise but the
    // allocation of the closure, which `exec_raw` protects.
    unsafe {
        lua.exec_raw::<Function>(mlua::MultiValue::from_iter(upvalues), move |state| {
            ffi::lua_pushcclosure(state, f, count);
        })
    }
}

/// When the table at `table` (the top of the stack) has no keys but `fields`, pushes their
/// two values (nil for a missing one) and returns true; otherwise leaves the stack as it
/// was and returns false, for the full function to read and refuse.
///
/// # Safety
/// A live state with room for three more values, `table` a table at the top of the stack.
unsafe fn push_only_fields(
    state: *mut ffi::lua_State,
    table: c_int,
    fields: [&std::ffi::CStr; 2],
) -> bool {
    // SAFETY: the caller's contract; `lua_next` walks a table nobody changes meanwhile.
    unsafe {
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, table) != 0 {
            ffi::lua_settop(state, -2);
            let known = key_bytes(state, -1)
                .is_some_and(|key| fields.iter().any(|field| field.to_bytes() == key));
            if !known {
                ffi::lua_settop(state, table);
                return false;
            }
        }
        for field in fields {
            ffi::lua_pushstring(state, field.as_ptr());
            ffi::lua_rawget(state, table);
        }
        true
    }
}

/// The bytes of the string at `at`, if it is one (not a number: `lua_tolstring` would convert
/// it in place).
///
/// # Safety
/// A live state; the slice lives as long as the value stays on the stack.
unsafe fn key_bytes<'a>(state: *mut ffi::lua_State, at: c_int) -> Option<&'a [u8]> {
    // SAFETY: the caller's contract.
    unsafe {
        if ffi::lua_type(state, at) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0usize;
        let p = ffi::lua_tolstring(state, at, &mut len);
        Some(std::slice::from_raw_parts(p as *const u8, len))
    }
}

/// Pushes a coordinate.
///
/// # Safety
/// A live state with room for one value.
pub unsafe fn push_num(state: *mut ffi::lua_State, n: Num) {
    // SAFETY: the caller's contract.
    unsafe {
        match n {
            Num::Float(n) => ffi::lua_pushnumber(state, n),
            Num::Int(n) => ffi::lua_pushinteger(state, n),
        }
    }
}

/// A `draw.*` function: [`gate`] in front of `slow`, the function that reads the arguments
/// and adds the shape to `drawings` (the state's collector, in its app data for the state's
/// life).
pub fn draw_gate(lua: &Lua, drawings: &Rc<Drawings>, slow: Function) -> mlua::Result<Function> {
    let ptr = Rc::as_ptr(drawings) as *mut c_void;
    raw_closure(
        lua,
        gate,
        vec![
            Value::LightUserData(mlua::LightUserData(ptr)),
            Value::Function(slow),
        ],
    )
}

/// Each `draw.*` function: returns at once unless collecting, else hands its arguments to
/// the function that reads them (upvalue 2). Upvalue 1 is the collector, kept alive by the
/// state's app data for the state's life.
unsafe extern "C-unwind" fn gate(state: *mut ffi::lua_State) -> c_int {
    // Upvalue 1 is the `Drawings` pointer `install` gave (alive while the state is), upvalue
    // 2 a function; reading a `Cell<bool>` cannot panic; nothing needing a drop lives across
    // `lua_call`. SAFETY: Lua calls this with a live state of this thread and those upvalues.
    unsafe {
        let d = &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)) as *const Drawings);
        if !d.enabled.get() {
            return 0;
        }
        let n = ffi::lua_gettop(state);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
        ffi::lua_rotate(state, 1, 1);
        ffi::lua_call(state, n, 0);
        0
    }
}

/// `__index` of views and `self` tables (upvalues: the views, `views::fill`, the proxies, the
/// `self` methods by name and by slot, `acts::self_methods`): reads an
/// engine field of the agent the table stands for from the current world; `nil` for any other
/// key, and outside a decision.
pub unsafe extern "C-unwind" fn field_index(state: *mut ffi::lua_State) -> c_int {
    // Nothing that needs dropping lives across the Lua calls below.
    // Lua calls this with the table and the key on a live state of this thread; the upvalues
    // are the ones `install` gave, the views kept alive by the state's app data.
    // SAFETY: as just said, and the lent world is read only within this call.
    unsafe {
        let views = &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)) as *const Views);
        let ptr = ffi::lua_topointer(state, 1) as usize;
        // `self:inbox()` and the other methods on the deciding agent's own `self` (read every
        // decision): the key's string known by its address, the function read from its slot,
        // with no look at the key's bytes nor a lookup by name.
        if let Some((me_ptr, _)) = views.deciding() {
            if me_ptr as usize == ptr {
                if let Some(slot) = views.method_slot(lua_toidentity(state, 2)) {
                    if ffi::lua_rawgeti(state, ffi::lua_upvalueindex(4), slot) != ffi::LUA_TNIL {
                        return 1;
                    }
                    ffi::lua_settop(state, -2);
                }
            }
        }
        let key = key_bytes(state, 2);
        let found = host(state, || {
            // The deciding agent's own `self` (its methods, `self:inbox()`, are read on it
            // every decision) is known without a lookup in the views' maps.
            let (index, is_self) = match views.deciding() {
                Some((me_ptr, me)) if me_ptr as usize == ptr => (me, true),
                _ => views.owner(ptr)?,
            };
            let field = match key {
                Some(b"memory") if is_self => None,
                Some(k) if is_self && crate::acts::self_method(k).is_some() => {
                    return Some((index, is_self, None, crate::acts::self_method(k)));
                }
                // Another agent's view: its label, a scalar like the others.
                Some(b"label") => Some(LABEL),
                Some(k) => Some(field_of(k)?),
                None => return None,
            };
            Some((index, is_self, field, None))
        });
        let Some((index, is_self, field, method)) = found else {
            ffi::lua_pushnil(state);
            return 1;
        };
        // `self:inbox()` and the other methods of `acts.rs` (and `self:label`): the function
        // the registry keeps under its name, as `fill` hands it out, without the call to it;
        // found by the key itself (making the registry name's string cost a hash of it).
        if method.is_some() {
            ffi::lua_pushvalue(state, 2);
            ffi::lua_rawget(state, ffi::lua_upvalueindex(4));
            return 1;
        }
        match field {
            // A `self` keeps its proxy raw: `fill` stores it there on the first read.
            Some(field @ (POS | VEL | TILE)) if !is_self => {
                if ffi::lua_rawgeti(state, ffi::lua_upvalueindex(3), part_slot(index, field))
                    == ffi::LUA_TTABLE
                {
                    return 1;
                }
                ffi::lua_settop(state, -2);
            }
            Some(POS | VEL | TILE) => {}
            Some(field) => {
                let value = host(state, || {
                    let agent = views.lent().get()?.agents.get(index)?;
                    Some(match field {
                        LABEL => agent.label.as_deref().map_or(Scalar::Nil, Scalar::Text),
                        _ => scalar(field, agent),
                    })
                });
                match value {
                    Some(Scalar::Number(n)) => ffi::lua_pushnumber(state, n),
                    Some(Scalar::Text(s)) => {
                        ffi::lua_pushlstring(state, s.as_ptr() as *const _, s.len());
                    }
                    Some(Scalar::Nil) | None => ffi::lua_pushnil(state),
                }
                return 1;
            }
            // `self.memory`, read for the first time.
            None => {}
        }
        // Made by `fill` on first read.
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
        ffi::lua_pushvalue(state, 1);
        ffi::lua_pushvalue(state, 2);
        ffi::lua_call(state, 2, 1);
        1
    }
}

/// `__index` of part proxies (upvalue: the views): `x` or `y` of the agent's position,
/// velocity or tile in the current world.
pub unsafe extern "C-unwind" fn part_index(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as `field_index`.
    unsafe {
        let views = &*(ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)) as *const Views);
        let ptr = ffi::lua_topointer(state, 1) as usize;
        let axis = match key_bytes(state, 2) {
            Some(b"x") => 0,
            Some(b"y") => 1,
            _ => 2,
        };
        // The number, read in Rust under `host` (a panic becomes a Lua error).
        let value = host(state, || {
            let (index, part) = views.part_at(ptr)?;
            part_xy(views.lent().get()?, index as usize, part as usize)?
                .get(axis)
                .copied()
        });
        match value {
            Some(n) => push_num(state, n),
            None => ffi::lua_pushnil(state),
        }
        1
    }
}

#[cfg(test)]
mod tests {
    use crate::ScriptHost;
    use agentbox_core::sim::Simulation;
    use agentbox_core::world::{Agent, Brain, Tile, World};

    /// Steps `world` four ticks under `host`, failing on any agent's error; the simulation.
    fn four_clean_ticks(world: World, host: &mut ScriptHost) -> Simulation {
        let mut sim = Simulation::new(world);
        for tick in 0..4 {
            sim.step(host);
            for agent in &sim.world().agents {
                assert!(agent.error.is_none(), "tick {tick}: {:?}", agent.error);
            }
        }
        sim
    }

    /// A host running `script`, written as `name` into `dir`, and the script's path.
    fn host_with(
        dir: &tempfile::TempDir,
        name: &str,
        script: &str,
    ) -> (ScriptHost, std::path::PathBuf) {
        let path = dir.path().join(name);
        std::fs::write(&path, script).unwrap();
        let mut host = ScriptHost::new(0).unwrap();
        host.load(&path).unwrap();
        (host, path)
    }

    /// `world:nearest`'s twin knows a kind string it saw before by its address: whatever
    /// strings a script alternates (its own kind, another, one no agent has, nil), each call
    /// answers what a scan of `world:agents()` answers, tick after tick in the raw loop.
    #[test]
    fn nearest_by_a_kind_string_seen_before_answers_as_a_scan() {
        let dir = tempfile::tempdir().unwrap();
        let script = r#"
local function scan(self, world, kind)
  local best, bd
  for _, a in ipairs(world:agents()) do
    if a.id ~= self.id and (kind == nil or a.kind == kind) then
      local dx, dy = a.pos.x - self.pos.x, a.pos.y - self.pos.y
      local d = math.sqrt(dx * dx + dy * dy)
      if not bd or d < bd then best, bd = a, d end
    end
  end
  return best, bd
end
return { decide = function(self, world)
  for _, kind in ipairs({ self.kind, "b", "zzz", self.kind, "a", self.kind }) do
    local o, d = world:nearest(self, kind)
    local w, wd = scan(self, world, kind)
    if (o and o.id) ~= (w and w.id) or (d and math.abs(d - wd) > 1e-9) then
      error(("nearest(%s): %s, want %s"):format(kind, tostring(o and o.id), tostring(w and w.id)))
    end
  end
  local o = world:nearest(self)
  local w = scan(self, world, nil)
  if o.id ~= w.id then error("nearest(nil): " .. o.id .. ", want " .. w.id) end
  return move.stop()
end }
"#;
        let (mut host, path) = host_with(&dir, "k.lua", script);
        let mut world = World::from_ascii(&["........"; 6]);
        // No two agents of a kind at the same distance from a third.
        for (id, kind, x, y) in [
            ("a1", "a", 0, 0),
            ("a2", "a", 3, 0),
            ("a3", "a", 7, 2),
            ("b1", "b", 1, 4),
            ("b2", "b", 6, 5),
        ] {
            let mut agent = Agent::new(id, Tile::new(x, y));
            agent.kind = kind.into();
            agent.brain = Brain::Script(path.as_path().into());
            world.agents.push(agent);
        }
        four_clean_ticks(world, &mut host);
        // The calls went through the address path (a string was learnt).
        let seen = super::get(&host.lua).unwrap().kind_seen.get();
        assert!(seen.ptr != 0 && seen.rank.is_some());
    }

    /// `self`'s methods are known by their names' addresses: a string made now with a
    /// method's name is the object `Views::method_slot` knows, and that slot of
    /// `acts::self_methods` holds the function the registry keeps under the method's name
    /// (what `field_index` hands out); no other string has a slot.
    #[test]
    fn self_methods_are_found_by_their_names_addresses() {
        let host = ScriptHost::new(0).unwrap();
        let lua = &host.lua;
        let identity = |name: &str| -> *const std::ffi::c_void {
            let s = lua.create_string(name).unwrap();
            // SAFETY: `exec_raw` pushes the string at 1; its identity is read, the stack
            // emptied and an integer pushed, none of which raises.
            let at = unsafe {
                lua.exec_raw::<i64>(s, |state| {
                    let at = crate::ffi::lua_toidentity(state, 1) as i64;
                    mlua::ffi::lua_settop(state, 0);
                    mlua::ffi::lua_pushinteger(state, at);
                })
            };
            at.unwrap() as usize as *const std::ffi::c_void
        };
        let views = crate::views::get(lua).unwrap();
        let methods = crate::acts::self_methods(lua).unwrap();
        for (k, name) in crate::acts::METHOD_NAMES.iter().enumerate() {
            assert_eq!(
                views.method_slot(identity(name)),
                Some(k as i64 + 1),
                "{name}"
            );
            let slot: mlua::Function = methods.raw_get(k + 1).unwrap();
            let registry = crate::acts::self_method(name.as_bytes()).unwrap();
            let named: mlua::Function = lua.named_registry_value(registry).unwrap();
            assert_eq!(slot, named, "{name}");
        }
        for other in ["memory", "id", "inboxes", "pos"] {
            assert_eq!(views.method_slot(identity(other)), None, "{other}");
        }
    }

    /// Each letter's `from` is its sender's id, however many senders share the raw
    /// `self:inbox()`'s cache of their strings: 600 walkers each broadcast their id every
    /// tick (far more senders than the cache's slots, so slots are shared and taken over,
    /// tick after tick), and each checks every letter it reads.
    #[test]
    fn every_letter_is_from_its_sender_through_the_cache_of_ids() {
        let dir = tempfile::tempdir().unwrap();
        let script = r#"
return { decide = function(self, world)
  local letters = self:inbox()
  for _, l in ipairs(letters) do
    if l.from ~= l.msg then error("a letter from " .. l.msg .. " says it is from " .. l.from) end
  end
  if #letters > 0 then self:label("read " .. #letters) end
  world:broadcast(self.id, { radius = 3 })
  return move.stop()
end }
"#;
        let (mut host, path) = host_with(&dir, "t.lua", script);
        let mut world = World::from_ascii(&[".".repeat(40).as_str(); 15]);
        for n in 0..600 {
            let mut agent = Agent::new(format!("w-{n}"), Tile::new(n % 40, n / 40));
            agent.brain = Brain::Script(path.as_path().into());
            world.agents.push(agent);
        }
        let sim = four_clean_ticks(world, &mut host);
        let read = (sim.world().agents.iter())
            .filter(|a| a.label.is_some())
            .count();
        assert_eq!(read, 600, "every walker read letters");
    }

    /// What one tick of a hive spawning `count` drones with `spec` (Lua table fields after
    /// `kind` and `at`) leaves: the world's agents and the hive's error, after the next tick.
    fn spawned_by(
        spec: &str,
        count: usize,
        max_agents: usize,
    ) -> (Vec<(String, Tile)>, Option<String>) {
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            r#"
local done = false
return {{ decide = function(self, world)
  if self.kind == "hive" and not done then
    done = true
    for i = 1, {count} do
      local id = world:spawn({{ kind = "drone", at = {{ i % 7, i % 5 }}{spec} }})
      assert(type(id) == "string" and id:sub(1, 6) == "drone-", id)
    end
    -- Refusals and odd shapes still answered by the full function, with its messages.
    local ok, err = pcall(world.spawn, world, {{ kind = "drone", at = {{ 99, 0 }}{spec} }})
    assert(not ok and tostring(err):find("is off the map", 1, true), tostring(err))
    ok, err = pcall(world.spawn, world, {{ kind = "drome", at = {{ 1, 1 }}{spec} }})
    assert(not ok and tostring(err):find("did you mean", 1, true), tostring(err))
    ok, err = pcall(world.spawn, world, {{ kind = 3, at = {{ 1, 1 }} }})
    assert(not ok and tostring(err):find("kind must be a string", 1, true), tostring(err))
  end
  return move.stop()
end }}
"#
        );
        let (mut host, path) = host_with(&dir, "hive.lua", &script);
        host.set_max_agents(max_agents);
        let mut world = World::from_ascii(&["........"; 6]);
        let mut hive = Agent::new("hive-1", Tile::new(7, 5));
        hive.kind = "hive".into();
        hive.brain = Brain::Script(path.as_path().into());
        let mut drone = Agent::new("drone-3", Tile::new(0, 0));
        drone.kind = "drone".into();
        drone.brain = Brain::Script(path.as_path().into());
        world.numbers.insert("drone".into(), 3);
        let mut templates = std::collections::BTreeMap::new();
        templates.insert("drone".to_string(), drone.clone());
        world.templates = std::sync::Arc::new(templates);
        world.agents.push(hive);
        world.agents.push(drone);
        let mut sim = Simulation::new(world);
        let mut error = None;
        for _ in 0..3 {
            sim.step(&mut host);
            let hive = &sim.world().agents[0];
            // From the script's name on (each run has its own directory).
            let message = |e: &agentbox_core::world::ScriptError| {
                e.message[e.message.find("hive.lua").unwrap_or(0)..].to_string()
            };
            error = error.or_else(|| hive.error.as_ref().map(message));
        }
        let agents = sim
            .world()
            .agents
            .iter()
            .map(|a| (a.id.clone(), a.tile()))
            .collect();
        (agents, error)
    }

    /// `world:spawn`'s raw entry (a spec of `kind` and `at`) queues what the full function
    /// (the same spec with an empty `params`) queues: the same ids from the world's numbers
    /// on, the same tiles, and at `budget.max_agents` the same error.
    #[test]
    fn spawn_raw_queues_what_the_full_function_queues() {
        let raw = spawned_by("", 40, 50_000);
        assert_eq!(raw.0.len(), 42, "{raw:?}");
        assert_eq!(raw.0[2].0, "drone-4");
        assert_eq!(raw, spawned_by(", params = {}", 40, 50_000));
        let raw = spawned_by("", 40, 20);
        assert!(
            raw.1
                .as_deref()
                .unwrap_or("")
                .contains("at its limit of 20 agents"),
            "{raw:?}"
        );
        assert_eq!(raw, spawned_by(", params = {}", 40, 20));
    }

    /// What `count` talkers broadcasting `msg` with `opts` (Lua source) leave after `ticks`
    /// ticks: every tick's events, every agent's inbox after each tick, and each call's count
    /// of receivers (printed). With `full`, each call passes an extra argument, which the raw
    /// entry leaves to the mlua function (which ignores it).
    fn broadcasts(msg: &str, opts: &str, full: bool) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let extra = if full { ", \"full\"" } else { "" };
        let script = format!(
            r#"
return {{ decide = function(self, world)
  local letters = {{}}
  for _, l in ipairs(self:inbox()) do
    letters[#letters + 1] = l.from .. "@" .. l.tick .. "=" .. tostring(l.msg)
  end
  if #letters > 0 then print(table.concat(letters, " ")) end
  print(world:broadcast({msg}, {opts}{extra}))
  local ok, err = pcall(world.broadcast, world, {msg}, {{ radius = -1 }}{extra})
  print(ok, err)
  ok, err = pcall(world.broadcast, world, {msg}, {{ radius = 2, kidn = "b" }}{extra})
  print(ok, err)
  return move.stop()
end }}
"#
        );
        let (mut host, path) = host_with(&dir, "talk.lua", &script);
        let mut world = World::from_ascii(&["........"; 4]);
        for (n, (x, y)) in [(0, 0), (1, 0), (2, 1), (5, 3), (7, 0), (1, 2)]
            .into_iter()
            .enumerate()
        {
            let mut agent = Agent::new(format!("t{n}"), Tile::new(x, y));
            agent.kind = if n % 2 == 0 { "a" } else { "b" }.into();
            agent.brain = Brain::Script(path.as_path().into());
            world.agents.push(agent);
        }
        let mut sim = Simulation::new(world);
        let mut seen = Vec::new();
        for _ in 0..3 {
            let report = sim.step(&mut host);
            // From the script's name on (each run has its own directory).
            let events = format!("{:?}", report.events);
            seen.push(events.replace(&dir.path().display().to_string(), ""));
            for agent in &sim.world().agents {
                assert!(agent.error.is_none(), "{:?}", agent.error);
                seen.push(format!("{:?}", agent.deliveries));
            }
        }
        seen
    }

    /// `world:broadcast`'s raw entry (a plain scalar message, options of `radius` and `kind`)
    /// reaches, delivers, traces and answers what the mlua function does, and leaves its
    /// refusals to it with the same messages.
    #[test]
    fn broadcast_raw_delivers_what_the_full_function_delivers() {
        for (msg, opts) in [
            ("7", "{ radius = 3 }"),
            ("2.5", "{ radius = 2, kind = \"a\" }"),
            ("\"help\"", "{ kind = \"b\", radius = 9 }"),
            ("true", "{ radius = 1 }"),
            ("nil", "{ radius = 1.5 }"),
        ] {
            let raw = broadcasts(msg, opts, false);
            assert!(raw.iter().any(|e| e.contains("Message")), "{msg}: {raw:?}");
            assert!(
                raw.iter()
                    .any(|e| e.contains("radius must be a finite distance")),
                "{raw:?}"
            );
            assert!(raw.iter().any(|e| e.contains("did you mean")), "{raw:?}");
            assert_eq!(raw, broadcasts(msg, opts, true), "{msg} {opts}");
        }
    }
}
