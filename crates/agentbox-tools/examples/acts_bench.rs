//! What acting costs (issue "Agents that act"), each against its goal, printing MET or NOT
//! MET:
//!
//! - 20,000 walkers of `scenes/crowd.yaml`, each also broadcasting to radius 3 every 30 ticks
//!   (staggered by its number) and reading its inbox every tick, against the plain crowd: CPU
//!   time per tick, the two sessions taking turns of 10 ticks; goal at most 1.3x.
//! - One agent spawning 10,000 walkers in one tick: the dearer of the tick of the calls and
//!   the tick they are applied in (their `init`s and first decisions), against the median
//!   ordinary tick of the resulting crowd; goal at most 3x. The three ticks after are
//!   printed too (nothing of the spawn may be left to them), and (on Linux) the applying
//!   tick's minor page faults beside what touching as many fresh pages alone costs the
//!   machine: the part of that tick no code of ours does.
//! - One noise of loudness 20 on an open 512x512 map (`nav::hearing::walking_distances`,
//!   the search `world:noise` runs), median of 1,000; goal at most 50 us.
//!
//! `cargo run --release -p agentbox-tools --example acts_bench [-- TICKS [SPAWNED [PART]]]`
//! (defaults: 120 ticks of each crowd, at least 2; 10,000 spawned; PART `noise`, `spawn`,
//! `messages` or `all`), from the repository root. One part alone is what to run under
//! `valgrind --tool=callgrind` to count its instructions.

use agentbox_core::nav::hearing::walking_distances;
use agentbox_core::world::{Tile, World};
use agentbox_session::session::Session;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "shared/spawn_scene.rs"]
mod spawn_scene;

fn verdict(met: bool) -> &'static str {
    if met {
        "MET"
    } else {
        "NOT MET"
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The crowd walker, plus a broadcast every 30 ticks and an inbox read every tick.
const TALKER: &str = r#"
local M = {}
local chase, evade, stop = move.chase, move.evade, move.stop
function M.init(self)
  self.memory.n = tonumber(self.id:match("%d+")) or 0
end
function M.decide(self, world)
  local heard = #self:inbox()
  if (world:tick() + self.memory.n) % 30 == 0 then
    world:broadcast(heard, { radius = 3 })
  end
  local other, distance = world:nearest(self, self.kind)
  if not other then
    return stop()
  end
  if distance < self.params.space then
    return evade(other)
  end
  return chase(other)
end
return M
"#;

/// Writes `scenes/crowd.yaml` with its walkers running `script` into `dir`; the scene's path.
fn crowd_with(dir: &Path, script: &str, name: &str) -> PathBuf {
    let text = std::fs::read_to_string("scenes/crowd.yaml").expect("run from the repository root");
    let text = text.replace("../scripts/crowd.lua", &format!("{name}.lua"));
    std::fs::write(dir.join(format!("{name}.lua")), script).unwrap();
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn cpu_ms(f: impl FnOnce()) -> f64 {
    let cpu = cpu_time::ThreadTime::now();
    f();
    cpu.elapsed().as_secs_f64() * 1e3
}

/// The minor page faults this thread has taken so far (memory touched for the first time),
/// where the system says.
fn minor_faults() -> Option<i64> {
    #[cfg(target_os = "linux")]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes one `rusage` through the pointer, which points at a zeroed
        // value of that type that lives across the call; RUSAGE_THREAD is a valid `who` on Linux.
        let ok = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) } == 0;
        // SAFETY: zeroed before the call, and filled by it when it returned 0.
        let usage = unsafe { usage.assume_init() };
        ok.then_some(usage.ru_minflt)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The thread CPU time, in ms, of writing one byte into each of `pages` fresh 4 KiB pages
/// mapped for it (what this machine charges for memory touched for the first time, whoever
/// touches it), and the minor faults that took; `None` where it cannot be measured.
fn first_touch_ms(pages: usize) -> Option<(f64, i64)> {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let len = pages * PAGE;
        // SAFETY: a private anonymous mapping of `len` bytes, asked of the system with no
        // address, file or offset; the result is checked before any use.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        let base = map.cast::<u8>();
        let before = minor_faults();
        let ms = cpu_ms(|| {
            for offset in (0..len).step_by(PAGE) {
                // SAFETY: `offset < len`, inside the mapping made above, readable and
                // writable, which nothing else refers to.
                unsafe { base.add(offset).write_volatile(1) };
            }
        });
        let faults = minor_faults().zip(before).map(|(a, b)| a - b);
        // SAFETY: the mapping made above, of `len` bytes, no longer used.
        unsafe { libc::munmap(map, len) };
        faults.map(|f| (ms, f))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pages;
        None
    }
}

fn messages(dir: &Path, ticks: u64) {
    let plain_path = crowd_with(
        dir,
        &std::fs::read_to_string("scripts/crowd.lua").unwrap(),
        "plain",
    );
    let talk_path = crowd_with(dir, TALKER, "talk");
    let mut plain = Session::open_with(&plain_path, None, true).expect("the crowd loads");
    let mut talk = Session::open_with(&talk_path, None, true).expect("the talking crowd loads");
    let (mut p, mut t) = (0.0, 0.0);
    let mut done = 0;
    while done < ticks {
        let turn = 10.min(ticks - done);
        p += cpu_ms(|| (0..turn).for_each(|_| drop(plain.tick())));
        t += cpu_ms(|| (0..turn).for_each(|_| drop(talk.tick())));
        done += turn;
    }
    let ratio = t / p;
    println!(
        "messages: {} walkers broadcasting every 30 ticks {:.2} ms/tick, plain crowd {:.2} ms/tick: {ratio:.2}x (goal <= 1.3x) {}",
        talk.world().agents.len(),
        t / ticks as f64,
        p / ticks as f64,
        verdict(ratio <= 1.3)
    );
}

fn spawning(dir: &Path, count: usize, ticks: u64) {
    spawn_scene::write_scene(dir, count);
    let mut s = Session::open_with(&dir.join("spawn.yaml"), None, true).expect("loads");
    let mut times = Vec::new();
    let mut faults = Vec::new();
    for _ in 0..(4 + ticks) {
        let before = minor_faults();
        times.push(cpu_ms(|| drop(s.tick())));
        faults.push(
            minor_faults()
                .zip(before)
                .map(|(after, before)| after - before),
        );
    }
    let agents = s.world().agents.len();
    assert_eq!(agents, count + 2, "every spawn was applied");
    // Tick 3 (index 2) makes the calls; tick 4 (index 3) applies them.
    let worst = times[2].max(times[3]);
    let ordinary = median(&mut times[5..].to_vec());
    let ratio = worst / ordinary;
    // The ticks after: nothing of the spawn may be left to them (a slot made lazily).
    let after: Vec<String> = times[4..times.len().min(7)]
        .iter()
        .map(|t| format!("{t:.2}"))
        .collect();
    println!(
        "spawning: {count} in one tick {worst:.2} ms (the calls' tick {:.2} ms, the tick applying them {:.2} ms; the next ticks {} ms), an ordinary tick of the {agents} {ordinary:.2} ms: {ratio:.2}x (goal <= 3x) {}",
        times[2],
        times[3],
        after.join(", "),
        verdict(ratio <= 3.0)
    );
    // What of the applying tick is the machine's: its memory is new, and a page touched for
    // the first time costs the kernel's fault (much dearer in some virtual machines).
    if let Some(pages) = faults[3].filter(|&p| p > 0) {
        if let Some((host, taken)) = first_touch_ms(pages as usize) {
            println!(
                "spawning: the tick applying them took {pages} minor page faults; touching as many fresh pages alone ({taken} faults) costs this machine {host:.2} ms ({:.2} us a page, {:.2}x the ordinary tick)",
                host * 1e3 / pages as f64,
                host / ordinary
            );
        }
    }
}

fn noise() {
    let rows: Vec<String> = (0..512).map(|_| ".".repeat(512)).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let world = World::from_ascii(&rows);
    let mut us = Vec::new();
    let mut visited = 0;
    for i in 0..1000 {
        let from = Tile::new(100 + (i % 300), 100 + (i * 7 % 300));
        let start = Instant::now();
        let h = walking_distances(&world, from, 20.0);
        us.push(start.elapsed().as_secs_f64() * 1e6);
        visited = h.visited;
    }
    let m = median(&mut us);
    println!(
        "noise: loudness 20 on 512x512, {visited} tiles visited, median {m:.1} us (goal <= 50 us) {}",
        verdict(m <= 50.0)
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let ticks: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(120)
        .max(2);
    let spawned: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let part = args.next().unwrap_or_else(|| "all".into());
    if !["noise", "spawn", "messages", "all"].contains(&part.as_str()) {
        eprintln!("acts_bench: PART is noise, spawn, messages or all, not {part:?}");
        std::process::exit(2);
    }
    let runs = |name: &str| part == "all" || part == name;
    let dir = std::env::temp_dir().join(format!("acts_bench_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    if runs("noise") {
        noise();
    }
    if runs("spawn") {
        spawning(&dir, spawned, ticks);
    }
    if runs("messages") {
        messages(&dir, ticks);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
