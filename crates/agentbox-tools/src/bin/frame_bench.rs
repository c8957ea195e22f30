//! The window's cost per frame, before and after a change (issue 33): runs two `agentbox`
//! binaries side by side under Xvfb (Mesa's software OpenGL) on the chase scene and the
//! 20,000-walker crowd with `--frame-stats`, interleaved (A B A B ...), and compares the
//! median of each binary's mean whole-frame build time (wall clock). The goal: the new one is
//! at most 10% slower on each scene.
//!
//! ```text
//! cargo run --release -p agentbox-tools --bin frame_bench -- \
//!     --before /path/to/main/target/release/agentbox --after target/release/agentbox \
//!     [--frames 300] [--rounds 5] [--screen 1024x768]
//! ```
//!
//! The screen defaults to 1024x768: a build from before issue 33 always opens a 1024x768
//! window and a later one opens at the screen's size, so on that screen both draw the same
//! number of pixels (software OpenGL's cost grows with them).
//!
//! Both binaries run from the current folder (the project root, for `scenes/`). Prints one
//! line per run and per scene, with MET or NOT MET against the goal.
//!
//! With `--bare BINARY` (the window crate's `bare_frame` example) it measures issue 35's goal
//! 7 instead: the window's frame on the two-agent chase scene against a bare macroquad loop
//! drawing the same map and agents, interleaved; the goal is at most 1.2x. Two figures are
//! printed for each: the wall clock of building a frame (to handing it to OpenGL), and the
//! process's CPU time per whole frame, all threads (`cpu:` lines: software OpenGL's
//! rasterizing included, as the issue measured). The verdict is on the CPU figure, the
//! issue's; the wall figure's ratio is printed beside it with its own MET / NOT MET, and so is
//! the ratio of the median frame after the warm-up (wall clock; the mean over all frames moves
//! with the first frame's one-off work and with the machine's load).
//!
//! ```text
//! cargo build --release -p agentbox-window --example bare_frame
//! cargo run --release -p agentbox-tools --bin frame_bench -- \
//!     --bare target/release/examples/bare_frame --after target/release/agentbox --rounds 9
//! ```
//!
//! Timed figures move with the machine's load. With `--instructions` as well, each side runs
//! once more under valgrind's cachegrind (all threads, Mesa's software rasterizing included)
//! at two frame counts, and the difference of the two totals over the difference of the
//! frames is its instructions per frame: a figure no neighbour disturbs, printed with its own
//! MET / NOT MET (it takes minutes: the program runs about 50 times slower under valgrind).

use std::path::PathBuf;
use std::process::Command;

/// The scenes measured, with how many frames each runs at most (the crowd is slow).
const SCENES: [(&str, u64); 2] = [("scenes/chase.yaml", 300), ("scenes/crowd.yaml", 60)];
/// The most the new binary may be slower, as a share.
const GOAL: f64 = 0.10;
/// The two-agent scene of the bare comparison, and the most the window may cost against it.
const BARE_SCENE: &str = "scenes/chase.yaml";
const BARE_GOAL: f64 = 1.2;

struct Options {
    /// The build before the change, or the bare macroquad peer with `--bare`.
    before: PathBuf,
    bare: bool,
    /// The bare peer draws its map as flat opaque runs (`bare_frame --flat-map`).
    flat_map: bool,
    after: PathBuf,
    frames: Option<u64>,
    rounds: usize,
    screen: String,
    /// Also count instructions per frame under cachegrind (`--bare` only).
    instructions: bool,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut before, mut after, mut frames, mut rounds, mut screen) =
        (None, None, None, 5, "1024x768".to_string());
    let (mut bare, mut flat_map, mut instructions) = (false, false, false);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--before" => before = Some(PathBuf::from(value()?)),
            "--bare" => {
                before = Some(PathBuf::from(value()?));
                bare = true;
            }
            "--flat-map" => flat_map = true,
            "--instructions" => instructions = true,
            "--after" => after = Some(PathBuf::from(value()?)),
            "--frames" => frames = Some(value()?.parse().map_err(|e| format!("--frames: {e}"))?),
            "--rounds" => rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--screen" => screen = value()?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Options {
        before: before.ok_or("--before BINARY or --bare BINARY is required")?,
        bare,
        flat_map,
        after: after.ok_or("--after BINARY is required")?,
        frames,
        rounds: rounds.max(1),
        screen,
        instructions,
    })
}

/// What one run printed: the mean whole-frame build time in ms (wall clock) from
/// `--frame-stats`' line (or the bare peer's line of the same form, when `bare`), and the mean
/// process CPU time per frame in ms from its `cpu:` line, when it printed one.
struct Figures {
    wall: f64,
    /// The median wall-clock build time of the frames after the warm-up, when printed.
    settled: Option<f64>,
    cpu: Option<f64>,
}

/// The mean in a stats line: the number between " mean " and " ms".
fn mean_of(line: &str) -> Option<f64> {
    number_after(line, " mean ")
}

/// The number between `label` and " ms" in a stats line.
fn number_after(line: &str, label: &str) -> Option<f64> {
    let rest = line.split(label).nth(1)?;
    rest.split(" ms").next()?.trim().parse().ok()
}

/// How a run is made: the window with `--frame-stats`, or the bare peer (with its map flat).
#[derive(Clone, Copy)]
enum Peer {
    Window,
    Bare { flat_map: bool },
}

/// The arguments a run of `peer` takes after its binary.
fn arguments(scene: &str, frames: u64, peer: Peer) -> Vec<String> {
    let frames = frames.to_string();
    let args: Vec<&str> = if let Peer::Bare { flat_map } = peer {
        let mut args = vec![scene, frames.as_str()];
        if flat_map {
            args.push("--flat-map");
        }
        args
    } else {
        vec!["run", scene, "--frames", &frames, "--frame-stats"]
    };
    args.into_iter().map(String::from).collect()
}

fn run(
    binary: &PathBuf,
    scene: &str,
    frames: u64,
    screen: &str,
    peer: Peer,
) -> Result<Figures, String> {
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", &format!("-screen 0 {screen}x24")])
        .arg(binary)
        .args(arguments(scene, frames, peer))
        .output()
        .map_err(|e| format!("xvfb-run: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} {scene} failed: {err}", binary.display()));
    }
    let frames_line = err
        .lines()
        .find(|l| l.starts_with("frames: ") && l.contains("whole frame"));
    let wall = frames_line
        .and_then(mean_of)
        .ok_or_else(|| format!("no frame-stats line from {}: {err}", binary.display()))?;
    let settled = frames_line.and_then(|l| number_after(l, " median after warm-up "));
    let cpu = err
        .lines()
        .find(|l| l.starts_with("cpu: ") && l.contains("whole frame"))
        .and_then(mean_of);
    Ok(Figures { wall, settled, cpu })
}

/// The instructions a run of `frames` frames executes in all its threads, by cachegrind.
fn instructions(
    binary: &PathBuf,
    scene: &str,
    frames: u64,
    screen: &str,
    peer: Peer,
) -> Result<u64, String> {
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", &format!("-screen 0 {screen}x24")])
        .args([
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(binary)
        .args(arguments(scene, frames, peer))
        .output()
        .map_err(|e| format!("xvfb-run valgrind: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "{} {scene} under valgrind failed: {err}",
            binary.display()
        ));
    }
    // "==123== I   refs:      2,846,451,937"
    err.lines()
        .find_map(|l| l.split("I   refs:").nth(1))
        .and_then(|n| n.trim().replace(',', "").parse().ok())
        .ok_or_else(|| format!("no instruction count from valgrind: {err}"))
}

/// Instructions per frame of one side: the difference between a run of `FEW` frames and one of
/// `FEW + MORE`, over `MORE` (the start, with its shader compiling, cancels out).
fn instructions_per_frame(
    binary: &PathBuf,
    scene: &str,
    screen: &str,
    peer: Peer,
) -> Result<f64, String> {
    const FEW: u64 = 40;
    const MORE: u64 = 100;
    let few = instructions(binary, scene, FEW, screen, peer)?;
    let many = instructions(binary, scene, FEW + MORE, screen, peer)?;
    Ok(many.saturating_sub(few) as f64 / MORE as f64)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("frame_bench: {e}");
            std::process::exit(2);
        }
    };
    if o.bare {
        std::process::exit(if bare_goal(&o) { 0 } else { 1 });
    }
    let mut all_met = true;
    for (scene, most) in SCENES {
        let frames = o.frames.unwrap_or(most).min(most);
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for round in 0..o.rounds {
            for (which, binary, into) in [
                ("before", &o.before, &mut before),
                ("after", &o.after, &mut after),
            ] {
                match run(binary, scene, frames, &o.screen, Peer::Window).map(|f| f.wall) {
                    Ok(ms) => {
                        println!("{scene} round {round} {which}: mean frame {ms:.2} ms");
                        into.push(ms);
                    }
                    Err(e) => {
                        eprintln!("frame_bench: {e}");
                        std::process::exit(1);
                    }
                }
            }
        }
        let (b, a) = (median(before), median(after));
        let change = a / b - 1.0;
        let met = change <= GOAL;
        all_met &= met;
        println!(
            "{scene}: {frames} frames at {}, median of {} rounds: before {b:.2} ms, after {a:.2} ms, {:+.1}% (goal: at most +{:.0}%): {}",
            o.screen,
            o.rounds,
            change * 100.0,
            GOAL * 100.0,
            if met { "MET" } else { "NOT MET" }
        );
    }
    std::process::exit(if all_met { 0 } else { 1 });
}

/// Issue 35's goal 7: the window's frame on the two-agent scene against the bare peer's,
/// interleaved, by wall clock of building and by process CPU per frame; true when the CPU
/// figure (the issue's) is met.
fn bare_goal(o: &Options) -> bool {
    let frames = o.frames.unwrap_or(300);
    let (mut bare, mut window) = (Vec::new(), Vec::new());
    let (peer, peer_name) = if o.flat_map {
        (Peer::Bare { flat_map: true }, "bare macroquad (flat map)")
    } else {
        (Peer::Bare { flat_map: false }, "bare macroquad")
    };
    for round in 0..o.rounds {
        for (which, binary, into, how) in [
            (peer_name, &o.before, &mut bare, peer),
            ("window", &o.after, &mut window, Peer::Window),
        ] {
            match run(binary, BARE_SCENE, frames, &o.screen, how) {
                Ok(f) => {
                    let cpu = f.cpu.map_or("none".to_string(), |c| format!("{c:.3} ms"));
                    let settled = f
                        .settled
                        .map_or("none".to_string(), |s| format!("{s:.3} ms"));
                    println!(
                        "{BARE_SCENE} round {round} {which}: building a frame (wall) {:.3} ms (median after warm-up {settled}), process CPU per frame {cpu}",
                        f.wall
                    );
                    into.push(f);
                }
                Err(e) => {
                    eprintln!("frame_bench: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
    let verdict = |ratio: f64| if ratio <= BARE_GOAL { "MET" } else { "NOT MET" };
    let wall = |xs: &[Figures]| median(xs.iter().map(|f| f.wall).collect());
    let (b, w) = (wall(&bare), wall(&window));
    println!(
        "{BARE_SCENE}: {frames} frames at {}, median of {} rounds, building a frame (wall clock, to handing it to OpenGL): {peer_name} {b:.3} ms, window {w:.3} ms, {:.2}x (goal: at most {BARE_GOAL}x): {}",
        o.screen,
        o.rounds,
        w / b,
        verdict(w / b)
    );
    let settled = |xs: &[Figures]| xs.iter().map(|f| f.settled).collect::<Option<Vec<f64>>>();
    if let (Some(b), Some(w)) = (settled(&bare), settled(&window)) {
        let (b, w) = (median(b), median(w));
        println!(
            "{BARE_SCENE}: {frames} frames at {}, median of {} rounds, the median frame after the warm-up (wall clock, to handing it to OpenGL): {peer_name} {b:.3} ms, window {w:.3} ms, {:.2}x (goal: at most {BARE_GOAL}x): {}",
            o.screen,
            o.rounds,
            w / b,
            verdict(w / b)
        );
    }
    let cpu = |xs: &[Figures]| xs.iter().map(|f| f.cpu).collect::<Option<Vec<f64>>>();
    let (Some(b), Some(w)) = (cpu(&bare), cpu(&window)) else {
        println!("{BARE_SCENE}: no process CPU figure from one of the binaries: NOT MET");
        return false;
    };
    let (b, w) = (median(b), median(w));
    let ratio = w / b;
    println!(
        "{BARE_SCENE}: {frames} frames at {}, median of {} rounds, process CPU per frame (all threads, software OpenGL included; the issue's figure): {peer_name} {b:.3} ms, window {w:.3} ms, {ratio:.2}x (goal: at most {BARE_GOAL}x): {}",
        o.screen,
        o.rounds,
        verdict(ratio)
    );
    if o.instructions {
        let counted =
            instructions_per_frame(&o.before, BARE_SCENE, &o.screen, peer).and_then(|b| {
                Ok((
                    b,
                    instructions_per_frame(&o.after, BARE_SCENE, &o.screen, Peer::Window)?,
                ))
            });
        match counted {
            Ok((b, w)) => println!(
                "{BARE_SCENE}: instructions per frame (cachegrind, all threads, frames 41 to 140): {peer_name} {:.2} M, window {:.2} M, {:.2}x (goal: at most {BARE_GOAL}x): {}",
                b / 1e6,
                w / 1e6,
                w / b,
                verdict(w / b)
            ),
            Err(e) => {
                eprintln!("frame_bench: {e}");
                return false;
            }
        }
    }
    ratio <= BARE_GOAL
}
