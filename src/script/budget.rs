//! Limits that keep one runaway script from stopping the scene: an instruction budget per
//! call of `init`/`decide`/`on_reload` (and per module load), and a memory cap for the whole
//! Lua state.
//!
//! Lua 5.4's count hook makes every instruction go through the hook check, which roughly
//! doubles the cost of pure-Lua code whatever the hook's period. So normal calls run with no
//! hook at all: a watchdog thread looks at the running call every [`POLL`] and, once a call has
//! run longer than its grace, installs the count hook on the running Lua threads with
//! `lua_sethook` (the grace grows with the budget, see [`grace`]). Lua documents this as safe
//! to do asynchronously (the stand-alone `lua`
//! interpreter does it from a signal handler to stop a script on Ctrl-C; the VM re-reads its
//! `volatile` trap flag on every jump). From then on the call may run `instructions` more
//! instructions before it fails with `file.lua:LINE: instruction budget exceeded`.
//!
//! Once spent, the budget stays spent for the rest of the call: every later hook call fails
//! again, and the sandbox's `pcall`, `xpcall`, `coroutine.resume` and `coroutine.wrap` re-raise
//! the budget error instead of returning it, so a script cannot swallow it and go on.
//! Coroutines inherit the hook of the thread that creates them, and the guarded
//! `coroutine.resume` registers the coroutine it runs so the watchdog can hook it too.
//!
//! [`Mode::Exact`] arms the hook at the start of every call instead (precise counting, about
//! twice the cost of pure-Lua code): kept for comparison in the overhead benchmark.

use mlua::ffi;
use mlua::{Lua, Value};
use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{
    AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering::Acquire, Ordering::Relaxed,
    Ordering::Release, Ordering::SeqCst,
};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the hook runs once armed, in Lua instructions.
const PERIOD: c_int = 1000;

/// How long a call runs, per instruction of its budget, before the watchdog arms the count:
/// 2 ns, so the default 2M-instruction budget gives a 4 ms grace (about half of what 2M
/// instructions take unhooked here). Clamped to [`MIN_GRACE`, `MAX_GRACE`].
pub const GRACE_PER_INSTRUCTION_NS: u64 = 2;
pub const MIN_GRACE: Duration = Duration::from_millis(1);
pub const MAX_GRACE: Duration = Duration::from_millis(100);

/// The grace of a budget of `instructions`.
pub fn grace(instructions: u64) -> Duration {
    Duration::from_nanos(instructions.saturating_mul(GRACE_PER_INSTRUCTION_NS))
        .clamp(MIN_GRACE, MAX_GRACE)
}

/// How often the watchdog looks at the running call while scripts run: a quarter of the
/// default grace. Each look wakes a thread, which on a machine whose other core is busy runs
/// in the simulation thread's place: looking every 250 µs instead made a crowd's Lua tick
/// about 4-6% slower in two sets of 12 side-by-side runs with both cores busy.
pub const POLL: Duration = Duration::from_millis(1);

/// Instructions a call may run once armed, by default (about 10-20 ms of hooked Lua here).
pub const DEFAULT_INSTRUCTIONS: u64 = 2_000_000;

/// Bytes the Lua state may hold by default.
pub const DEFAULT_MEMORY: usize = 256 * 1024 * 1024;

/// How the instruction budget is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No instruction budget (for measuring the cost of enforcement only).
    Off = 0,
    /// The count hook is armed by the watchdog once a call runs longer than its [`grace`].
    Watchdog = 1,
    /// The count hook runs from the first instruction of every call.
    Exact = 2,
}

/// State shared between the main thread, the watchdog and the hook.
struct Shared {
    /// The main Lua state, as an address (the watchdog hooks it from another thread).
    main: usize,
    mode: AtomicU8,
    limit: AtomicI64,
    grace_ns: AtomicU64,
    /// Counts calls; the id of the running (or last) call.
    call: AtomicU64,
    running: AtomicBool,
    /// The call the hook is armed for (0: none).
    armed_for: AtomicU64,
    left: AtomicI64,
    spent: AtomicBool,
    /// `file.lua:LINE: instruction budget exceeded` of the spent call, for re-raising.
    message: Mutex<String>,
    /// Coroutine states being resumed, innermost last; guarded with the arming itself.
    threads: Mutex<Vec<usize>>,
    /// Whether scripts are running (the watchdog sleeps otherwise), and whether to quit.
    active: Mutex<(bool, bool)>,
    wake: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// Installs the count hook on the main state and every coroutine being resumed, for the
    /// running call, if it is still `call`. Takes the thread list's lock.
    fn arm(&self, call: u64) {
        let threads = lock(&self.threads);
        if !self.running.load(SeqCst) || self.call.load(SeqCst) != call {
            return;
        }
        if self.armed_for.load(SeqCst) == call {
            return;
        }
        self.left.store(self.limit.load(SeqCst), SeqCst);
        self.armed_for.store(call, SeqCst);
        // SAFETY: `lua_sethook` may be called asynchronously (Lua's own interpreter calls it
        // from a signal handler); the states live as long as the host, which stops this
        // thread before closing Lua, and coroutine states are listed only while resumed.
        unsafe {
            set_hook(self.main as *mut ffi::lua_State);
            for t in threads.iter() {
                set_hook(*t as *mut ffi::lua_State);
            }
        }
    }
}

unsafe fn set_hook(state: *mut ffi::lua_State) {
    ffi::lua_sethook(state, Some(budget_hook), ffi::LUA_MASKCOUNT, PERIOD);
}

/// The registry key under which the shared state's address is stored.
static KEY: u8 = 0;

fn key() -> *const c_void {
    &KEY as *const u8 as *const c_void
}

/// The shared state of the host owning `state`, found through the registry.
unsafe fn shared_of<'a>(state: *mut ffi::lua_State) -> Option<&'a Shared> {
    ffi::lua_rawgetp(state, ffi::LUA_REGISTRYINDEX, key());
    let p = ffi::lua_touserdata(state, -1) as *const Shared;
    ffi::lua_settop(state, -2);
    p.as_ref()
}

/// Writes the budget message for the current line into `buf`; returns its length. Keeps every
/// owned value inside, so nothing with a destructor is alive when the hook raises the error.
unsafe fn budget_message(
    shared: &Shared,
    state: *mut ffi::lua_State,
    ar: *mut ffi::lua_Debug,
    buf: &mut [u8; 256],
) -> usize {
    let message = {
        let mut place = String::new();
        if ffi::lua_getinfo(state, c"Sl".as_ptr(), ar) != 0 {
            let src = CStr::from_ptr((*ar).short_src.as_ptr()).to_string_lossy();
            let line = (*ar).currentline;
            if line > 0 {
                place = format!("{src}:{line}: ");
            } else {
                place = format!("{src}: ");
            }
        }
        format!("{place}instruction budget exceeded (an endless loop?)")
    };
    let n = message.len().min(buf.len());
    buf[..n].copy_from_slice(&message.as_bytes()[..n]);
    *lock(&shared.message) = message;
    n
}

fn is_stale(shared: &Shared) -> bool {
    !shared.running.load(SeqCst) || shared.armed_for.load(SeqCst) != shared.call.load(SeqCst)
}

/// Removes a hook left over from an earlier call (or armed just as its call ended), under the
/// lock the watchdog arms with, so it cannot undo an arming for the call now running. True if
/// it was stale.
unsafe fn unhook_if_stale(shared: &Shared, state: *mut ffi::lua_State) -> bool {
    let _threads = lock(&shared.threads);
    if is_stale(shared) {
        ffi::lua_sethook(state, None, 0, 0);
        true
    } else {
        false
    }
}

unsafe extern "C-unwind" fn budget_hook(state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) {
    let Some(shared) = shared_of(state) else {
        ffi::lua_sethook(state, None, 0, 0);
        return;
    };
    if is_stale(shared) && unhook_if_stale(shared, state) {
        return;
    }
    let left = shared.left.fetch_sub(PERIOD as i64, SeqCst) - PERIOD as i64;
    if left >= 0 && !shared.spent.load(SeqCst) {
        return;
    }
    let mut buf = [0u8; 256];
    let n = if shared.spent.swap(true, SeqCst) {
        let m = lock(&shared.message);
        let n = m.len().min(buf.len());
        buf[..n].copy_from_slice(&m.as_bytes()[..n]);
        n
    } else {
        budget_message(shared, state, ar, &mut buf)
    };
    ffi::lua_pushlstring(state, buf.as_ptr() as *const _, n);
    ffi::lua_error(state);
}

/// The instruction budget of one host: owns the watchdog thread.
pub struct Budget {
    shared: Arc<Shared>,
    watchdog: Mutex<Option<JoinHandle<()>>>,
}

/// Keeps the watchdog awake while scripts run (a round of decisions, a module load).
pub struct Round<'a>(&'a Budget);

impl Drop for Round<'_> {
    fn drop(&mut self) {
        lock(&self.0.shared.active).0 = false;
    }
}

impl Budget {
    /// Installs the budget on a Lua state (with a memory cap of `memory` bytes) and starts
    /// the watchdog.
    pub fn install(lua: &Lua, memory: usize) -> mlua::Result<Budget> {
        lua.set_memory_limit(memory)?;
        let mut main = 0usize;
        unsafe {
            lua.exec_raw::<()>((), |state| {
                // The main state, not whichever thread mlua runs this closure on.
                ffi::lua_rawgeti(state, ffi::LUA_REGISTRYINDEX, ffi::LUA_RIDX_MAINTHREAD);
                main = ffi::lua_tothread(state, -1) as usize;
                ffi::lua_settop(state, -2);
            })?;
        }
        let shared = Arc::new(Shared {
            main,
            mode: AtomicU8::new(Mode::Watchdog as u8),
            limit: AtomicI64::new(DEFAULT_INSTRUCTIONS as i64),
            grace_ns: AtomicU64::new(grace(DEFAULT_INSTRUCTIONS).as_nanos() as u64),
            call: AtomicU64::new(0),
            running: AtomicBool::new(false),
            armed_for: AtomicU64::new(0),
            left: AtomicI64::new(0),
            spent: AtomicBool::new(false),
            message: Mutex::new(String::new()),
            threads: Mutex::new(Vec::new()),
            active: Mutex::new((false, false)),
            wake: Condvar::new(),
        });
        let address = Arc::as_ptr(&shared) as usize;
        unsafe {
            lua.exec_raw::<()>((), |state| {
                ffi::lua_pushlightuserdata(state, address as *mut c_void);
                ffi::lua_rawsetp(state, ffi::LUA_REGISTRYINDEX, key());
            })?;
        }
        let for_thread = Arc::clone(&shared);
        let watchdog = std::thread::Builder::new()
            .name("agentbox-budget".into())
            .spawn(move || watch(&for_thread))
            .map_err(|e| mlua::Error::runtime(format!("cannot start the budget watchdog: {e}")))?;
        Ok(Budget {
            shared,
            watchdog: Mutex::new(Some(watchdog)),
        })
    }

    /// Sets the instructions one call may run once armed.
    pub fn set_instructions(&self, instructions: u64) {
        let n = instructions.clamp(PERIOD as u64, i64::MAX as u64) as i64;
        self.shared.limit.store(n, SeqCst);
        self.shared
            .grace_ns
            .store(grace(n as u64).as_nanos() as u64, SeqCst);
    }

    pub fn set_mode(&self, mode: Mode) {
        self.shared.mode.store(mode as u8, SeqCst);
    }

    /// Marks the start of a batch of calls: wakes the watchdog until the guard is dropped.
    pub fn round(&self) -> Round<'_> {
        let mut active = lock(&self.shared.active);
        if !active.0 {
            active.0 = true;
            self.shared.wake.notify_one();
        }
        Round(self)
    }

    /// Runs one budgeted call (`f` calls into Lua).
    pub fn call<R>(&self, f: impl FnOnce() -> R) -> R {
        let call = self.begin();
        let result = f();
        self.end(call);
        result
    }

    /// Marks the start of one budgeted call; pass what it returns to [`Self::end`] when the
    /// call returns. Cheap (no clock read: the watchdog times calls itself), so the decision
    /// loop can bracket each `decide` directly.
    #[inline]
    pub fn begin(&self) -> u64 {
        let s = &self.shared;
        let mode = s.mode.load(Relaxed);
        if mode == Mode::Off as u8 {
            return 0;
        }
        s.spent.store(false, Relaxed);
        // Only this thread writes `call` and `running`, so plain stores do (no locked
        // instruction or fence per call: a crowd makes tens of thousands of calls a tick). The
        // watchdog may see them a little late; at worst it arms the hook for a call that has
        // just ended, and the hook removes itself (see `is_stale`).
        let call = s.call.load(Relaxed) + 1;
        s.call.store(call, Release);
        s.running.store(true, Release);
        if mode == Mode::Exact as u8 {
            s.arm(call);
        }
        call
    }

    /// Marks the end of the call [`Self::begin`] started, removing the hook if it was armed.
    #[inline]
    pub fn end(&self, call: u64) {
        if call == 0 {
            return;
        }
        let s = &self.shared;
        s.running.store(false, Release);
        if s.armed_for.load(Acquire) == call {
            let threads = lock(&s.threads);
            unsafe { ffi::lua_sethook(s.main as *mut ffi::lua_State, None, 0, 0) };
            drop(threads);
        }
    }

    /// Whether the running call has spent its budget (the guarded `pcall` re-raises then).
    pub fn spent(&self) -> bool {
        self.shared.spent.load(SeqCst)
    }

    /// The message of the spent budget.
    pub fn message(&self) -> String {
        lock(&self.shared.message).clone()
    }

    /// A coroutine is about to be resumed: the watchdog may need to hook it.
    pub fn enter(&self, thread: &Value) {
        if let Value::Thread(t) = thread {
            let mut threads = lock(&self.shared.threads);
            let state = t.state() as usize;
            threads.push(state);
            let s = &self.shared;
            if s.running.load(SeqCst) && s.armed_for.load(SeqCst) == s.call.load(SeqCst) {
                unsafe { set_hook(state as *mut ffi::lua_State) };
            }
        }
    }

    /// The coroutine resumed last has yielded, returned or failed.
    pub fn leave(&self, thread: &Value) {
        if let Value::Thread(t) = thread {
            let state = t.state() as usize;
            let mut threads = lock(&self.shared.threads);
            if let Some(i) = threads.iter().rposition(|&p| p == state) {
                threads.remove(i);
            }
        }
    }

    /// Stops the watchdog (before the Lua state closes).
    pub fn stop(&self) {
        {
            let mut active = lock(&self.shared.active);
            active.1 = true;
            self.shared.wake.notify_one();
        }
        if let Some(handle) = lock(&self.watchdog).take() {
            let _ = handle.join();
        }
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The watchdog: sleeps while no script runs; while one does, arms the hook on a call that
/// has run longer than its grace. Calls are timed from when the watchdog first sees them
/// running (at most one [`POLL`] after they start), so starting a call reads no clock.
fn watch(shared: &Shared) {
    let mut seen: Option<(u64, Instant)> = None;
    loop {
        {
            let mut active = lock(&shared.active);
            while !active.0 && !active.1 {
                seen = None;
                active = shared.wake.wait(active).unwrap_or_else(|p| p.into_inner());
            }
            if active.1 {
                return;
            }
        }
        std::thread::sleep(POLL);
        if !shared.running.load(SeqCst) {
            continue;
        }
        let call = shared.call.load(SeqCst);
        if shared.armed_for.load(SeqCst) == call {
            continue;
        }
        let now = Instant::now();
        match seen {
            Some((c, since)) if c == call => {
                if now.duration_since(since).as_nanos() as u64 >= shared.grace_ns.load(SeqCst) {
                    shared.arm(call);
                }
            }
            _ => seen = Some((call, now)),
        }
    }
}
