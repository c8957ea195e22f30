//! What a crowd's agents cost in memory (issue 35, goal 5), against its goal, printing MET or
//! NOT MET beside the Rust peer:
//!
//! - The scene opened as `agentbox headless` opens it (`Session::open`: the scene kept without
//!   its agents, which a reset builds again from its bytes; the running world; the Lua state),
//!   run for TICKS ticks: the
//!   peak of the bytes allocated on the heap from before the open to the end, over the number
//!   of agents. Goal: at most 2 KB (2,048 bytes) per agent for `scenes/crowd.yaml`.
//! - The peer: the same scene loaded and run with the crowd's behaviour in Rust
//!   (`bench::NativeCrowd`, no Lua, no start world kept), measured the same way.
//!
//! Heap bytes are counted by a global allocator that wraps the system's (every Rust and Lua
//! block; the program's code and stacks are not heap), so the figure is the same on a busy
//! machine; the process's peak resident size (`VmHWM`) is printed too.
//!
//! `cargo run --release -p agentbox-tools --example memory_bench [-- SCENE [TICKS]]`
//! (defaults: `scenes/crowd.yaml`, 20 ticks), from the repository root.

use agentbox_core::scene;
use agentbox_core::sim::Simulation;
use agentbox_session::bench::NativeCrowd;
use agentbox_session::session::Session;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held now and the most held since the last reset.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(by: usize) {
        let now = HELD.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed unchanged to the system allocator, which upholds
// GlobalAlloc's contract; the counters only add and subtract the sizes it was asked for.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout contract is passed on to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator (so by the system's) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` and `layout` come from this allocator, as the caller guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            HELD.fetch_sub(layout.size(), Ordering::Relaxed);
            Counting::grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `part` and returns the most heap bytes held during it beyond those held before it.
fn peak_of(part: impl FnOnce()) -> usize {
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    part();
    PEAK.load(Ordering::Relaxed).saturating_sub(before)
}

/// The process's peak resident size in kilobytes (`VmHWM`), where the system says.
fn peak_resident_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

const GOAL_BYTES_PER_AGENT: f64 = 2048.0;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().unwrap_or_else(|| "scenes/crowd.yaml".into()));
    let ticks: u64 = args
        .next()
        .map_or(20, |t| t.parse().expect("TICKS: a number"));

    let mut agents = 0;
    let rust = peak_of(|| {
        let loaded = scene::load(&path).expect("the scene loads");
        agents = loaded.world.agents.len();
        let mut sim = Simulation::new(loaded.world);
        let mut crowd = NativeCrowd::default();
        for _ in 0..ticks {
            sim.step(&mut crowd);
        }
    });
    let lua = peak_of(|| {
        let mut session = Session::open_with(&path, None, true).expect("the scene opens");
        for _ in 0..ticks {
            session.tick();
        }
        assert!(
            session.current_errors().is_empty(),
            "{:?}",
            session.current_errors()
        );
    });
    let per = |bytes: usize| bytes as f64 / agents.max(1) as f64;
    let met = per(lua) <= GOAL_BYTES_PER_AGENT;
    println!(
        "memory: {} ({agents} agents, {ticks} ticks): as headless runs it (Lua) peak heap {:.1} MB, {:.0} bytes per agent; the Rust peer (NativeCrowd, no Lua) {:.1} MB, {:.0} bytes per agent ({:.2}x); process peak resident {} kB",
        path.display(),
        lua as f64 / 1e6,
        per(lua),
        rust as f64 / 1e6,
        per(rust),
        lua as f64 / rust.max(1) as f64,
        peak_resident_kb().map_or("unknown".into(), |k| k.to_string()),
    );
    println!(
        "goal: at most {GOAL_BYTES_PER_AGENT:.0} bytes per agent: {} ({:.0})",
        if met { "MET" } else { "NOT MET" },
        per(lua)
    );
}
