//! Runs the `agentbox` binary under limits (Unix): an address-space cap, so a runaway
//! allocation fails at once instead of swapping, and a CPU-time cap, reading the child's own
//! peak resident size from `wait4`.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The child's address-space limit: 1 GiB.
pub const ADDRESS_LIMIT: u64 = 1 << 30;
/// CPU seconds after which the kernel stops the child (SIGXCPU).
pub const CPU_LIMIT: u64 = 60;

/// What one limited run of `agentbox` did.
pub struct Run {
    /// The exit code, or `None` when a signal ended it.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident set size of the child alone, in KiB.
    pub max_rss_kb: i64,
}

/// Runs `agentbox` in `dir` under [`ADDRESS_LIMIT`] and [`CPU_LIMIT`], waiting with `wait4` for
/// its own resource usage.
pub fn run_limited(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentbox"));
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs in the forked child before exec and only calls setrlimit, which
    // is async-signal-safe, on values on its own stack; it allocates and locks nothing.
    unsafe {
        cmd.pre_exec(|| {
            for (resource, limit) in [
                (libc::RLIMIT_AS, ADDRESS_LIMIT),
                (libc::RLIMIT_CPU, CPU_LIMIT),
            ] {
                let lim = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(resource, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    // Reaped by `wait4` below (for the child's own resource usage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("the agentbox binary runs");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let read_out = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).ok();
        s
    });
    let read_err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).ok();
        s
    });
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is this process's child and has not been reaped (`child` is never waited
    // on through std); `status` and `usage` are valid for writes.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    Run {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stdout: read_out.join().unwrap(),
        stderr: read_err.join().unwrap(),
        max_rss_kb: usage.ru_maxrss,
    }
}
