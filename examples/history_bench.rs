//! Time-travel figures (docs/benchmarks.md): on `scenes/crowd100.yaml`, 10 minutes of simulated
//! time recorded, then the time to show ticks of it (a replay from tick 0, as the window's
//! rewind does), the cost of scrubbing forward one frame, the recording's size and the
//! process's peak memory; and on `scenes/crowd.yaml` (20,000 agents) the cost of recording a
//! tick (`History::tick`) against a plain `Session::tick`, taking turns.
//!
//! `cargo run --release --example history_bench [-- CROWD_TICKS]`

use agentbox::history::{self, History, Replayer};
use agentbox::session::Session;
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

fn main() {
    let crowd_ticks: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let scene = Path::new("scenes/crowd100.yaml");
    let mut h = History::open_with(scene, None, true).expect("scenes/crowd100.yaml loads");
    let rate = h.session().world().tick_rate as u64;
    let ticks = 600 * rate;
    let started = Instant::now();
    for _ in 0..ticks {
        h.tick();
    }
    println!(
        "recorded {ticks} ticks (10 min at {rate} Hz, 100 agents) in {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
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
