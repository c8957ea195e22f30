//! Where the time of `acts_bench`'s spawn goes, for a profiler that samples by time: the
//! same scene (one agent spawning SPAWNED walkers at tick 3, applied at tick 4) run in
//! REPS sessions one after another in one process, each tick's thread CPU time printed with
//! the kernel's split of it into user and system time, its minor page faults and context
//! switches (`getrusage(RUSAGE_THREAD)`: the split is counted in whole scheduler ticks, 4 ms
//! here, so it is only a hint; the CPU time and the faults are exact).
//! The first session's memory is fresh from the system; later ones mostly reuse what the
//! earlier ones freed, so they show the tick without its page faults.
//!
//! With `PERF_CTL` (and `PERF_ACK`) naming the control FIFOs of `perf record
//! --control=fifo:CTL,ACK -D -1`, it enables the recording for one tick of each session only
//! (PART `apply`: the applying tick; `calls`: the tick of the calls; `ordinary`: ticks 7 to
//! 10), so a sampling profile holds that tick alone:
//!
//! `mkfifo /tmp/ctl /tmp/ack; PERF_CTL=/tmp/ctl PERF_ACK=/tmp/ack perf record -e cpu-clock -D -1
//! --control=fifo:/tmp/ctl,/tmp/ack -- ./target/release/examples/spawn_profile 25 10000 apply`
//!
//! `cargo build --release -p agentbox-tools --example spawn_profile`, run from the
//! repository root: `spawn_profile [REPS [SPAWNED [PART]]]` (defaults 10, 10,000, `apply`).
//! Linux only (it prints nothing useful elsewhere).

use agentbox_session::session::Session;
use std::fs::File;
use std::io::{Read, Write};

#[path = "shared/spawn_scene.rs"]
mod spawn_scene;

/// One reading of this thread's resource use: user and system ms, minor faults, voluntary
/// and involuntary context switches.
#[derive(Clone, Copy, Default)]
struct Usage {
    user_ms: f64,
    system_ms: f64,
    faults: i64,
    switches: (i64, i64),
}

fn usage() -> Usage {
    #[cfg(target_os = "linux")]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes one `rusage` through the pointer, which points at a zeroed
        // value of that type that lives across the call; RUSAGE_THREAD is a valid `who` on Linux.
        let ok = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) } == 0;
        // SAFETY: zeroed before the call, and filled by it when it returned 0.
        let u = unsafe { usage.assume_init() };
        let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
        if ok {
            return Usage {
                user_ms: ms(u.ru_utime),
                system_ms: ms(u.ru_stime),
                faults: u.ru_minflt,
                switches: (u.ru_nvcsw, u.ru_nivcsw),
            };
        }
    }
    Usage::default()
}

/// Tells `perf record` to enable or disable its events and waits for its answer.
struct PerfControl {
    control: File,
    ack: Option<File>,
}

impl PerfControl {
    fn from_env() -> Option<PerfControl> {
        let control = std::env::var_os("PERF_CTL")?;
        let control = std::fs::OpenOptions::new()
            .write(true)
            .open(control)
            .expect("PERF_CTL names a FIFO perf reads");
        let ack = std::env::var_os("PERF_ACK")
            .map(|ack| File::open(ack).expect("PERF_ACK names a FIFO perf writes"));
        Some(PerfControl { control, ack })
    }

    fn send(&mut self, command: &str) {
        self.control.write_all(command.as_bytes()).unwrap();
        self.control.flush().unwrap();
        if let Some(ack) = &mut self.ack {
            let mut answer = [0u8; 5];
            let _ = ack.read(&mut answer);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let part = args.next().unwrap_or_else(|| "apply".into());
    if !["apply", "calls", "ordinary"].contains(&part.as_str()) {
        eprintln!("spawn_profile: PART is apply, calls or ordinary, not {part:?}");
        std::process::exit(2);
    }
    let mut perf = PerfControl::from_env();
    let dir = std::env::temp_dir().join(format!("spawn_profile_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    spawn_scene::write_scene(&dir, count);
    println!(
        "per tick: thread CPU ms (user + system in the kernel's coarse split), minor faults, context switches"
    );
    for rep in 0..reps {
        let mut session = Session::open_with(&dir.join("spawn.yaml"), None, true).expect("loads");
        let mut line = String::new();
        // Index 2 makes the calls, index 3 applies them (as in `acts_bench`).
        for tick in 0..10 {
            let profiled = match part.as_str() {
                "apply" => tick == 3,
                "calls" => tick == 2,
                _ => tick >= 6,
            };
            if profiled {
                if let Some(perf) = perf.as_mut() {
                    perf.send("enable\n");
                }
            }
            let before = usage();
            let cpu = cpu_time::ThreadTime::now();
            drop(session.tick());
            let ms = cpu.elapsed().as_secs_f64() * 1e3;
            let after = usage();
            if profiled {
                if let Some(perf) = perf.as_mut() {
                    perf.send("disable\n");
                }
            }
            if (2..8).contains(&tick) {
                line += &format!(
                    " {}: {ms:.1} ms ({:.0}+{:.0}) {} faults {}/{} cs;",
                    tick + 1,
                    after.user_ms - before.user_ms,
                    after.system_ms - before.system_ms,
                    after.faults - before.faults,
                    after.switches.0 - before.switches.0,
                    after.switches.1 - before.switches.1,
                );
            }
        }
        println!("session {rep}:{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
