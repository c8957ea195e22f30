//! Time-travel figures (docs/benchmarks.md): on `scenes/crowd100.yaml`, 10 minutes of simulated
//! time recorded, then the time to show ticks of it (a replay from tick 0, as the window's
//! rewind does), the cost of scrubbing forward one frame, the recording's size and the
//! process's peak memory; and on `scenes/crowd.yaml` (20,000 agents) the cost of recording a
//! tick (`History::tick`) against a plain `Session::tick`, taking turns.
//!
//! With frames kept (as the window keeps them), also the cost of a live tick with and without
//! them, their size, and jumps and backward scrubbing from them (no Lua).
//!
//! `cargo run --release -p agentbox-tools --example history_bench [-- CROWD_TICKS]`

use agentbox_session::history::{self, History, Replayer};
use agentbox_session::session::Session;
use std::path::Path;
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// The minimum and the median (sorts the list).
fn min_median(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

fn main() {
    let crowd_ticks: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let scene = Path::new("scenes/crowd100.yaml");
    let mut h = History::open_with(scene, None, true).expect("scenes/crowd100.yaml loads");
    // Kept frames, as the window keeps them.
    h.keep_frames(true);
    let rate = h.session().world().tick_rate as u64;
    let ticks = std::env::var("HB_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600)
        * rate;
    // The live tick with frames kept against without, taking turns (100 ticks each).
    let mut bare = History::open_with(scene, None, true).unwrap();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let started = Instant::now();
    while h.ticks() < ticks {
        let cpu = cpu_time::ThreadTime::now();
        for _ in 0..100 {
            h.tick();
        }
        with.push(cpu.elapsed().as_secs_f64() * 1e3 / 100.0);
        let cpu = cpu_time::ThreadTime::now();
        for _ in 0..100 {
            bare.tick();
        }
        without.push(cpu.elapsed().as_secs_f64() * 1e3 / 100.0);
    }
    println!(
        "recorded {ticks} ticks (10 min at {rate} Hz, 100 agents) twice in turns in {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let (wm, wmed) = min_median(&mut with);
    let (om, omed) = min_median(&mut without);
    println!(
        "crowd100 live tick, per 100-tick turn: with frames min {wm:.3} median {wmed:.3} ms, without min {om:.3} median {omed:.3} ms"
    );
    drop(bare);
    let frames = h.frames().expect("kept");
    println!(
        "frames kept: from tick {:?}, {:.1} MB (estimated heap; cap {} MB)",
        frames.first_tick(),
        frames.bytes() as f64 / 1048576.0,
        history::FRAMES_MAX_BYTES >> 20
    );
    println!(
        "frames: (world copies, decisions, memory entries) {:?}; a decision is {} bytes, a world copy about {} kB",
        frames.counts(),
        std::mem::size_of::<agentbox_core::sim::Decision>(),
        h.session().world().agents.len() * std::mem::size_of::<agentbox_core::world::Agent>() / 1024
    );
    println!("peak memory with frames (VmHWM): {:.0} MB", peak_rss_mb());
    // Jumps and scrubbing from the frames: any tick of the 10 minutes, no Lua.
    let mut jumps = Vec::new();
    let mut x = 12345u64;
    for _ in 0..200 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let to = 1 + (x >> 33) % (ticks - 1);
        let cpu = cpu_time::ThreadTime::now();
        let f = h.frame(to).expect("a frame");
        jumps.push(cpu.elapsed().as_secs_f64() * 1e3);
        assert_eq!(f.tick, to);
    }
    let worst = jumps.iter().cloned().fold(0.0, f64::max);
    let (jm, jmed) = min_median(&mut jumps);
    println!(
        "jump to any tick from the frames (200 random ticks): min {jm:.2} median {jmed:.2} worst {worst:.2} ms CPU"
    );
    // Scrubbing backward: from the end to the start, 18 ticks (one pixel of a 1000-pixel bar)
    // a frame, every frame a tick rebuilt from the frames.
    let mut back = Vec::new();
    let step = (ticks / 1000).max(1);
    let mut to = ticks - 1;
    while to > step {
        let cpu = cpu_time::ThreadTime::now();
        let f = h.frame(to).expect("a frame");
        back.push(cpu.elapsed().as_secs_f64() * 1e3);
        assert_eq!(f.tick, to);
        to -= step;
    }
    let n = back.len();
    let worst = back.iter().cloned().fold(0.0, f64::max);
    let (bm, bmed) = min_median(&mut back);
    println!(
        "scrub backward {step} ticks per frame over the 10 minutes ({n} frames): min {bm:.2} median {bmed:.2} worst {worst:.2} ms CPU per frame ({:.0} frames/s at the worst)",
        1e3 / worst
    );
    let text_len = history::save_recording(h.recording(), Path::new("/tmp/history_bench.json"))
        .map(|()| std::fs::metadata("/tmp/history_bench.json").map_or(0, |m| m.len()));
    println!("session file: {:?} bytes", text_len);
    for to in [ticks / 10, ticks / 2, ticks - 1] {
        let started = Instant::now();
        let cpu = cpu_time::ThreadTime::now();
        let mut r = Replayer::new(h.recording()).unwrap();
        r.advance_to(to, |_, _| {}).unwrap();
        println!(
            "jump to tick {to}: {:.0} ms CPU, {:.0} ms wall (replay from tick 0)",
            cpu.elapsed().as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    // Parked replays every 900 ticks (as the window builds them, 120 ticks a frame), then
    // jumps from the nearest one below.
    let mut parked = history::Parked::new(900);
    let cpu = cpu_time::ThreadTime::now();
    let mut frames = 0;
    while parked.ticks().len() < (ticks / 900) as usize {
        parked.work(h.recording(), 120).unwrap();
        frames += 1;
    }
    println!(
        "parked {} replays in {frames} frames of 120 ticks: {:.0} ms CPU",
        parked.ticks().len(),
        cpu.elapsed().as_secs_f64() * 1e3
    );
    println!("peak memory with them (VmHWM): {:.0} MB", peak_rss_mb());
    let mut worst: f64 = 0.0;
    for to in [ticks / 2 + 899, ticks - 1, ticks - 901, ticks - 9000 + 450] {
        let cpu = cpu_time::ThreadTime::now();
        let started = Instant::now();
        let r = parked.take(h.recording(), to).unwrap();
        assert_eq!(r.tick(), to);
        let ms = cpu.elapsed().as_secs_f64() * 1e3;
        worst = worst.max(ms);
        println!(
            "jump to tick {to} from a parked replay: {ms:.0} ms CPU, {:.0} ms wall",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    println!("worst parked jump: {worst:.0} ms CPU");
    // Scrubbing forward: a frame that moves the view on by 1/30 of a second of drag, i.e.
    // about the ticks one pixel of a 1000-pixel bar stands for.
    let mut r = Replayer::new(h.recording()).unwrap();
    r.advance_to(ticks / 2, |_, _| {}).unwrap();
    let step = (ticks / 1000).max(1);
    let started = Instant::now();
    let frames = 30;
    for i in 1..=frames {
        r.advance_to(ticks / 2 + i * step, |_, _| {}).unwrap();
    }
    let per = started.elapsed().as_secs_f64() * 1e3 / frames as f64;
    println!(
        "scrub forward {step} ticks per frame: {per:.2} ms per frame ({:.0} frames/s of replay)",
        1e3 / per
    );
    println!("peak memory (VmHWM): {:.0} MB", peak_rss_mb());

    // The 20,000-agent crowd: History::tick against Session::tick, in turns of 5 ticks.
    let crowd = Path::new("scenes/crowd.yaml");
    let mut plain = Session::open_with(crowd, None, true).expect("scenes/crowd.yaml loads");
    let mut recorded = History::open_with(crowd, None, true).unwrap();
    let (mut a, mut b) = (0.0, 0.0);
    let mut done = 0;
    while done < crowd_ticks {
        let t = Instant::now();
        for _ in 0..5 {
            plain.tick();
        }
        a += t.elapsed().as_secs_f64();
        let t = Instant::now();
        for _ in 0..5 {
            recorded.tick();
        }
        b += t.elapsed().as_secs_f64();
        done += 5;
    }
    println!(
        "crowd (20,000 agents), {done} ticks each: plain {:.2} ms/tick, recorded {:.2} ms/tick ({:+.1}%)",
        a * 1e3 / done as f64,
        b * 1e3 / done as f64,
        (b / a - 1.0) * 100.0
    );
}
