//! What asking the history costs (issue "Ask the history a question"), each against its goal,
//! printing MET or NOT MET:
//!
//! - `headless --stop-when 'world:agent("walker-1").pos.x > 1e9'` on `scenes/crowd_5k.yaml`:
//!   the CPU time of a tick plus the question (as `--stop-when` asks it after every tick)
//!   over a plain tick, two sessions taking turns of 10 ticks so both see the same machine
//!   load; goal at most 1.2x.
//! - "Next tick where" over 10 minutes of `scenes/crowd100.yaml`'s history (kept frames, as
//!   the window keeps them), for an expression that never holds, so every tick is looked at;
//!   goal at most 2 s.
//!
//! `cargo run --release -p agentbox-tools --example ask_bench [-- CROWD_TICKS [SECONDS]]`
//! (defaults: 300 ticks of the 5,000 crowd, 600 s of the 100 crowd's history).

use agentbox_session::ask::{Asker, Direction, Question};
use agentbox_session::history::History;
use agentbox_session::session::Session;
use std::path::Path;
use std::time::Instant;

const NEVER: &str = "world:agent(\"walker-1\").pos.x > 1e9";

fn verdict(met: bool) -> &'static str {
    if met {
        "MET"
    } else {
        "NOT MET"
    }
}

/// The median of a list (sorts it).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn stop_when_cost(ticks: u64) {
    let scene = Path::new("scenes/crowd_5k.yaml");
    let mut plain = Session::open_with(scene, None, true).expect("scenes/crowd_5k.yaml loads");
    let mut asked = Session::open_with(scene, None, true).expect("scenes/crowd_5k.yaml loads");
    let question = Question::compile(&mut asked, "--stop-when", NEVER).expect("compiles");
    let mut ratios = Vec::new();
    let (mut plain_ms, mut asked_ms) = (0.0, 0.0);
    let mut done = 0;
    while done < ticks {
        let turn = 10.min(ticks - done);
        let cpu = cpu_time::ThreadTime::now();
        for _ in 0..turn {
            plain.tick();
        }
        let p = cpu.elapsed().as_secs_f64() * 1e3;
        let cpu = cpu_time::ThreadTime::now();
        for _ in 0..turn {
            asked.tick();
            let answer = question.ask(&mut asked).expect("the question answers");
            assert!(!answer.holds, "{NEVER} held");
        }
        let a = cpu.elapsed().as_secs_f64() * 1e3;
        plain_ms += p;
        asked_ms += a;
        ratios.push(a / p);
        done += turn;
    }
    let ratio = median(&mut ratios);
    println!(
        "stop-when on crowd_5k: {ticks} ticks, plain {:.2} ms/tick, with --stop-when {:.2} ms/tick, median ratio of {} turns {ratio:.3} (goal <= 1.2): {}",
        plain_ms / ticks as f64,
        asked_ms / ticks as f64,
        ratios.len(),
        verdict(ratio <= 1.2)
    );
}

fn find_cost(seconds: u64) {
    let scene = Path::new("scenes/crowd100.yaml");
    let mut history = History::open_with(scene, None, true).expect("scenes/crowd100.yaml loads");
    history.keep_frames(true);
    let rate = history.session().world().tick_rate as u64;
    let ticks = seconds * rate;
    for _ in 0..ticks {
        history.tick();
    }
    let frames = history.frames().expect("frames are kept");
    let (first, last) = frames.ticks().expect("frames hold ticks");
    let mut asker = Asker::new(history.session().world().seed).expect("Lua starts");
    let mut reports = 0;
    let started = Instant::now();
    let found = asker
        .find(frames, NEVER, first, Direction::Next, |_, _| reports += 1)
        .expect("the search runs");
    let took = started.elapsed().as_secs_f64();
    assert_eq!(found, None, "{NEVER} held");
    println!(
        "next tick where on crowd100: {seconds} s of history ({} ticks, frames hold {first}..{last}), every tick looked at in {took:.3} s, {reports} progress reports (goal <= 2 s): {}",
        ticks,
        verdict(took <= 2.0)
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let crowd_ticks = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let seconds = args.next().and_then(|a| a.parse().ok()).unwrap_or(600);
    stop_when_cost(crowd_ticks);
    find_cost(seconds);
}
