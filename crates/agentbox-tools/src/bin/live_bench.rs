//! Benchmarks for live editing (issue 5), run with `cargo run --release -p agentbox-tools --bin live_bench`:
//!
//! - `overhead`: a busy scene (many agents whose `decide` is pure-Lua arithmetic) timed with
//!   the work budget off and counted (the default), interleaved, median of several rounds.
//!   Both run the patched VM, which always counts: this is the host's share (setting and
//!   reading the budget per call); the VM's share is measured against a stock build.
//! - `runaways`: healthy walkers beside 4 runaways (an endless loop, a pattern match that
//!   backtracks forever, an endless recursion, a memory bomb), against the same walkers alone:
//!   after the runaways' first stop, the median tick must be at most 1.1x.
//! - `latency`: from a save (atomic: temp file + rename) to the first tick that runs the new
//!   code, through the same `realtime::run` loop as `agentbox headless --realtime`, at a
//!   window-like 60 ticks/s and at 1000 ticks/s.
//! - `save`: a scene file save applied by `Session::sync` to a running scene of 20,000 agents
//!   (each listed in the file): every tick from the one whose sync sees the save to the one
//!   whose sync applies it (sync + tick; the scene is built on another thread in between),
//!   the worst of them against the median tick without a save, over several saves; the goal
//!   is a stall of 100 ms or less (issue 35). Printed beside it: the CPU time of the build
//!   that runs off the tick (`scene::live::Prepared::make`, timed here on this thread).
//!
//! Prints one line per figure. Scratch files go to a fresh folder under the temp dir.

use agentbox_lua::BudgetMode;
use agentbox_session::realtime;
use agentbox_session::session::Session;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentbox-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scripts")).expect("a scratch folder");
    dir
}

fn busy_scene(dir: &Path, agents: usize, loop_len: u64) -> PathBuf {
    let mut yaml = String::from("name: busy\ntick_rate: 30\nmap:\n  rows: |\n");
    let side = 40;
    for _ in 0..side {
        yaml.push_str("    ");
        yaml.push_str(&".".repeat(side));
        yaml.push('\n');
    }
    yaml.push_str("agents:\n");
    for i in 0..agents {
        yaml.push_str(&format!(
            "  - id: a{i}\n    at: [{}, {}]\n    script: scripts/busy.lua\n",
            i % side,
            i / side
        ));
    }
    std::fs::write(dir.join("busy.yaml"), yaml).unwrap();
    let script = format!(
        r#"
local M = {{}}
local function mix(a, b) return (a * 31 + b) % 1000003 end
function M.decide(self, world)
  local s = self.memory.s or 1
  for i = 1, {loop_len} do
    s = mix(s, i)
    if s % 7 == 0 then s = s + 1 end
  end
  self.memory.s = s
  return move.stop()
end
return M
"#
    );
    std::fs::write(dir.join("scripts/busy.lua"), script).unwrap();
    dir.join("busy.yaml")
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}

fn overhead(label: &str, agents: usize, loop_len: u64, ticks: u32) {
    let dir = scratch(label);
    let scene = busy_scene(&dir, agents, loop_len);
    let modes = [("off", BudgetMode::Off), ("counted", BudgetMode::Counted)];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut sessions: Vec<Session> = modes
        .iter()
        .map(|(_, mode)| {
            let mut s = Session::open(&scene, None).expect("the bench scene opens");
            s.host_mut().set_budget_mode(*mode);
            s.tick();
            s
        })
        .collect();
    for _round in 0..7 {
        for (i, session) in sessions.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..ticks {
                session.tick();
            }
            times[i].push(start.elapsed().as_secs_f64() * 1000.0 / ticks as f64);
        }
    }
    for s in &sessions {
        assert!(
            s.world().agents.iter().all(|a| a.error.is_none()),
            "no budget errors"
        );
    }
    let base = median(&mut times[0].clone());
    for (i, (name, _)) in modes.iter().enumerate() {
        let m = median(&mut times[i]);
        println!(
            "overhead {label}: {name:>8}: {m:8.3} ms/tick  ({:+.1}% vs off)",
            (m / base - 1.0) * 100.0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const STOP: &str =
    "local M = {}\n-- v{N}\nfunction M.decide(self, world) return move.stop() end\nreturn M\n";
const CHASE: &str =
    "local M = {}\n-- v{N}\nfunction M.decide(self, world) return move.chase({ x = 3, y = 1 }) end\nreturn M\n";

fn latency(tick_rate: u32, samples: usize) {
    let dir = scratch(&format!("latency{tick_rate}"));
    let scene = dir.join("live.yaml");
    std::fs::write(
        &scene,
        format!("name: live\ntick_rate: {tick_rate}\nmap:\n  rows: |\n    ......\nagents:\n  - id: a\n    at: [0, 0]\n    script: scripts/a.lua\n"),
    )
    .unwrap();
    let script = dir.join("scripts/a.lua");
    std::fs::write(&script, STOP.replace("{N}", "0")).unwrap();
    let (tx, rx) = channel::<(Instant, bool)>();
    let (stop_tx, stop_rx) = channel::<()>();
    let scene_for_thread = scene.clone();
    let runner = std::thread::spawn(move || {
        let mut session = Session::open(&scene_for_thread, None).expect("scene opens");
        let _ = realtime::run(
            &mut session,
            u64::MAX,
            |_| {},
            |s, _| {
                if stop_rx.try_recv().is_ok() {
                    return Err(());
                }
                let chasing = s.world().agents[0].action.name() == "chase";
                tx.send((Instant::now(), chasing)).map_err(|_| ())
            },
        );
    });
    // Let it settle.
    let deadline = Instant::now() + Duration::from_millis(200);
    while Instant::now() < deadline {
        let _ = rx.recv_timeout(Duration::from_millis(10));
    }
    let mut lat = Vec::new();
    for n in 1..=samples {
        // Saves land at varied points of the tick.
        std::thread::sleep(Duration::from_micros(15_000 + (n as u64 * 7919) % 20_000));
        while rx.try_recv().is_ok() {}
        let chasing = n % 2 == 1;
        let text = if chasing { CHASE } else { STOP }.replace("{N}", &n.to_string());
        let tmp = dir.join("scripts/.a.lua.tmp");
        let t0 = Instant::now();
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &script).unwrap();
        loop {
            let (at, now_chasing) = rx
                .recv_timeout(Duration::from_secs(5))
                .expect("the new version runs within 5 s");
            if now_chasing == chasing && at > t0 {
                lat.push((at - t0).as_secs_f64() * 1000.0);
                break;
            }
        }
    }
    let _ = stop_tx.send(());
    let _ = runner.join();
    let med = median(&mut lat);
    let p95 = percentile(&mut lat, 0.95);
    let max = percentile(&mut lat, 1.0);
    println!(
        "latency at {tick_rate} ticks/s ({samples} atomic saves): median {med:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    if what.is_empty() || what == "overhead" {
        // Many short calls (the common case: a crowd of small decides).
        overhead("400 agents x 2k-iteration decide", 400, 2_000, 10);
        // Fewer, long calls (each a large share of the default 2M-unit budget).
        overhead("10 agents x 100k-iteration decide", 10, 100_000, 5);
    }
    if what.is_empty() || what == "latency" {
        latency(60, 100);
        latency(1000, 100);
    }
    if what.is_empty() || what == "runaways" {
        runaways(2_000);
    }
    if what.is_empty() || what == "save" {
        save(20_000, 5);
    }
}

/// A scene of `agents` walkers, each listed by id; `version` changes its name, one wall tile
/// and the first agent's params (that agent takes its new params; every agent keeps its state).
fn crowd_scene(agents: usize, version: usize) -> String {
    let side = 160;
    let mut yaml = format!("name: crowd v{version}\ntick_rate: 30\nmap:\n  rows: |\n");
    for y in 0..side {
        let mut row: Vec<u8> = vec![b'.'; side];
        if y == side - 2 {
            row[version % side] = b'#';
        }
        yaml.push_str("    ");
        yaml.push_str(std::str::from_utf8(&row).unwrap());
        yaml.push('\n');
    }
    yaml.push_str("agents:\n");
    for i in 0..agents {
        // Rows from the top; 20,000 agents fill 125 of the 160 rows.
        let (x, y) = (i % side, i / side);
        yaml.push_str(&format!(
            "  - id: w{i}\n    at: [{x}, {y}]\n    script: scripts/walker.lua\n"
        ));
        if i == 0 {
            yaml.push_str(&format!("    params: {{ version: {version} }}\n"));
        }
    }
    yaml
}

const WALKER: &str = "local M = {}\nfunction M.decide(self, world)\n  self.memory.n = (self.memory.n or 0) + 1\n  return move.to({ x = 80, y = 80 })\nend\nreturn M\n";

fn save(agents: usize, saves: usize) {
    let dir = scratch("save");
    let scene = dir.join("crowd.yaml");
    std::fs::write(&scene, crowd_scene(agents, 0)).unwrap();
    std::fs::write(dir.join("scripts/walker.lua"), WALKER).unwrap();
    let mut session = Session::open_with(&scene, None, true).expect("the crowd scene opens");
    let mut watcher = agentbox_session::watch::FileWatcher::new();
    watcher.watch(&session.watched_files());
    for _ in 0..3 {
        session.tick();
    }
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let mut plain = Vec::new();
    let mut with_save = Vec::new();
    let mut sync_only = Vec::new();
    let mut sync_cpus = Vec::new();
    // Per save: the worst tick (sync + tick) from the one that saw it to the one applying it.
    let mut worst = Vec::new();
    let (mut worst_cpu, mut plain_cpu) = (Vec::new(), Vec::new());
    for version in 1..=saves {
        for _ in 0..10 {
            let t = Instant::now();
            let cpu = agentbox_session::bench::thread_cpu_time();
            session.sync(&mut watcher);
            session.tick();
            plain.push(ms(t));
            plain_cpu
                .push((agentbox_session::bench::thread_cpu_time() - cpu).as_secs_f64() * 1000.0);
        }
        let tmp = dir.join(".crowd.yaml.tmp");
        std::fs::write(&tmp, crowd_scene(agents, version)).unwrap();
        std::fs::rename(&tmp, &scene).unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut during: Vec<f64> = Vec::new();
        let mut during_cpu: Vec<f64> = Vec::new();
        loop {
            assert!(Instant::now() < deadline, "the save was never applied");
            // Waiting for the event is not the stall: only sync and the tick are timed.
            watcher.wait(Duration::from_millis(50));
            let t = Instant::now();
            let cpu = agentbox_session::bench::thread_cpu_time();
            let reloads = session.sync(&mut watcher);
            let synced = ms(t);
            let sync_cpu =
                (agentbox_session::bench::thread_cpu_time() - cpu).as_secs_f64() * 1000.0;
            session.tick();
            let took = ms(t);
            let took_cpu =
                (agentbox_session::bench::thread_cpu_time() - cpu).as_secs_f64() * 1000.0;
            let applied = reloads
                .iter()
                .any(|r| matches!(r, agentbox_session::session::Reload::SceneOk(..)));
            if applied {
                with_save.push(took);
                sync_only.push(synced);
                sync_cpus.push(sync_cpu);
                during.push(took);
                during_cpu.push(took_cpu);
                worst.push(during.iter().cloned().fold(0.0, f64::max));
                worst_cpu.push(during_cpu.iter().cloned().fold(0.0, f64::max));
                break;
            }
            // Ticks while the save is seen and built count as the save's, not as plain ones.
            if session.scene_loading() || !during.is_empty() {
                during.push(took);
                during_cpu.push(took_cpu);
            } else {
                plain.push(took);
                plain_cpu.push(took_cpu);
            }
        }
    }
    // What the thread does for a save, timed here on this thread.
    let last = agentbox_core::scene::live::Last::of(session.scene());
    let bytes = std::fs::read(&scene).unwrap();
    let cpu = agentbox_session::bench::thread_cpu_time();
    let prepared = agentbox_core::scene::live::Prepared::make(&last, &bytes, None);
    let build_cpu = (agentbox_session::bench::thread_cpu_time() - cpu).as_secs_f64() * 1000.0;
    assert!(prepared.is_ok());
    assert!(session.world().agents.iter().all(|a| a.error.is_none()));
    let base = median(&mut plain);
    let base_cpu = median(&mut plain_cpu);
    let stalls_cpu: Vec<f64> = worst_cpu.iter().map(|t| t - base_cpu).collect();
    let stalls: Vec<f64> = worst.iter().map(|t| t - base).collect();
    let med = median(&mut stalls.clone());
    let max = percentile(&mut stalls.clone(), 1.0);
    println!(
        "save: {agents} agents, {saves} scene saves: median tick {base:.2} ms; sync applying a save {:.2} ms median ({:.2} ms CPU); the tick applying a save (sync + tick) {:.2} ms median; the scene's build off the tick {build_cpu:.2} ms CPU; stall (the worst tick of a save over the median tick) median {med:.2} ms, max {max:.2} ms (goal 100 ms or less: {})",
        median(&mut sync_only),
        median(&mut sync_cpus),
        median(&mut with_save),
        if max <= 100.0 { "MET" } else { "NOT MET" }
    );
    println!(
        "save, CPU time of this thread (what the load does not change): median tick {base_cpu:.2} ms; stall (the worst tick of a save over the median tick) median {:.2} ms, max {:.2} ms (goal 100 ms or less: {})",
        median(&mut stalls_cpu.clone()),
        percentile(&mut stalls_cpu.clone(), 1.0),
        if percentile(&mut stalls_cpu.clone(), 1.0) <= 100.0 { "MET" } else { "NOT MET" }
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The runaways beside `walkers` healthy agents, against the walkers alone (see the module
/// docs): CPU time of this thread per tick, interleaved rounds, median.
fn runaways(walkers: usize) {
    const RUNAWAYS: [(&str, &str); 4] = [
        ("loop", "while true do end"),
        (
            "pattern",
            "string.find(string.rep('a', 300000), '.-.-.-.-.-b')",
        ),
        (
            "recursion",
            "local function f(n) return 1 + f(n + 1) end f(1)",
        ),
        ("bomb", "local t = {} for i = 1, 1e9 do t[i] = {} end"),
    ];
    let scene = |dir: &Path, with: bool| {
        let side = 60;
        let mut yaml = String::from(
            "name: runaways
tick_rate: 30
map:
  rows: |
",
        );
        for _ in 0..side {
            yaml.push_str(&format!(
                "    {}
",
                ".".repeat(side)
            ));
        }
        yaml.push_str(
            "agents:
",
        );
        for i in 0..walkers {
            yaml.push_str(&format!(
                "  - id: w{i}
    at: [{}, {}]
    script: scripts/walker.lua
",
                i % side,
                i / side
            ));
        }
        if with {
            for (k, (name, body)) in RUNAWAYS.iter().enumerate() {
                yaml.push_str(&format!(
                    "  - id: {name}
    at: [{k}, {}]
    script: scripts/{name}.lua
",
                    side - 1
                ));
                std::fs::write(
                    dir.join(format!("scripts/{name}.lua")),
                    format!("return {{ decide = function(self) {body} return move.stop() end }}\n"),
                )
                .unwrap();
            }
        }
        std::fs::write(
            dir.join("scripts/walker.lua"),
            "local M = {}\nfunction M.decide(self, world)\n  local other, d = world:nearest(self)\n  if other and d < 1 then return move.evade(other) end\n  return move.to({ x = 30, y = 30 })\nend\nreturn M\n",
        )
        .unwrap();
        let path = dir.join("scene.yaml");
        std::fs::write(&path, yaml).unwrap();
        path
    };
    let (with_dir, without_dir) = (scratch("runaways"), scratch("walkers"));
    let mut sessions = [
        Session::open_with(&scene(&without_dir, false), None, true)
            .expect("the walkers' scene opens"),
        Session::open_with(&scene(&with_dir, true), None, true).expect("the runaways' scene opens"),
    ];
    for s in sessions.iter_mut() {
        // The runaways' first (and only) stop.
        for _ in 0..3 {
            s.tick();
        }
    }
    let stopped = sessions[1]
        .world()
        .agents
        .iter()
        .filter(|a| a.suspended)
        .count();
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for _round in 0..9 {
        for (i, s) in sessions.iter_mut().enumerate() {
            let start = agentbox_session::bench::thread_cpu_time();
            for _ in 0..10 {
                s.tick();
            }
            times[i]
                .push((agentbox_session::bench::thread_cpu_time() - start).as_secs_f64() * 100.0);
        }
    }
    let (alone, beside) = (median(&mut times[0]), median(&mut times[1]));
    let ratio = beside / alone;
    println!(
        "runaways: {walkers} walkers alone {alone:.3} ms/tick, beside 4 runaways ({stopped} suspended) {beside:.3} ms/tick: {ratio:.3}x (goal 1.1x or less: {})",
        if ratio <= 1.1 { "MET" } else { "NOT MET" }
    );
    let _ = std::fs::remove_dir_all(&with_dir);
    let _ = std::fs::remove_dir_all(&without_dir);
}
