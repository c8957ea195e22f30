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
//! drawing the same map and agents, interleaved; the goal is at most 1.2x.
//!
//! ```text
//! cargo build --release -p agentbox-window --example bare_frame
//! cargo run --release -p agentbox-tools --bin frame_bench -- \
//!     --bare target/release/examples/bare_frame --after target/release/agentbox --rounds 9
//! ```

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
    after: PathBuf,
    frames: Option<u64>,
    rounds: usize,
    screen: String,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut before, mut after, mut frames, mut rounds, mut screen) =
        (None, None, None, 5, "1024x768".to_string());
    let mut bare = false;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--before" => before = Some(PathBuf::from(value()?)),
            "--bare" => {
                before = Some(PathBuf::from(value()?));
                bare = true;
            }
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
        after: after.ok_or("--after BINARY is required")?,
        frames,
        rounds: rounds.max(1),
        screen,
    })
}

/// One run's mean whole-frame build time in ms, from `--frame-stats`' line (or the bare
/// peer's line of the same form, when `bare`).
fn run(
    binary: &PathBuf,
    scene: &str,
    frames: u64,
    screen: &str,
    bare: bool,
) -> Result<f64, String> {
    let frames = frames.to_string();
    let args: Vec<&str> = if bare {
        vec![scene, &frames]
    } else {
        vec!["run", scene, "--frames", &frames, "--frame-stats"]
    };
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", &format!("-screen 0 {screen}x24")])
        .arg(binary)
        .args(args)
        .output()
        .map_err(|e| format!("xvfb-run: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} {scene} failed: {err}", binary.display()));
    }
    err.lines()
        .find(|l| l.starts_with("frames: ") && l.contains("whole frame"))
        .and_then(|l| l.split(" mean ").nth(1))
        .and_then(|rest| rest.split(" ms").next())
        .and_then(|ms| ms.trim().parse().ok())
        .ok_or_else(|| format!("no frame-stats line from {}: {err}", binary.display()))
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
                match run(binary, scene, frames, &o.screen, false) {
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
/// interleaved; true when it is met.
fn bare_goal(o: &Options) -> bool {
    let frames = o.frames.unwrap_or(300);
    let (mut bare, mut window) = (Vec::new(), Vec::new());
    for round in 0..o.rounds {
        for (which, binary, into, is_bare) in [
            ("bare macroquad", &o.before, &mut bare, true),
            ("window", &o.after, &mut window, false),
        ] {
            match run(binary, BARE_SCENE, frames, &o.screen, is_bare) {
                Ok(ms) => {
                    println!("{BARE_SCENE} round {round} {which}: mean frame {ms:.3} ms");
                    into.push(ms);
                }
                Err(e) => {
                    eprintln!("frame_bench: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
    let (b, w) = (median(bare), median(window));
    let ratio = w / b;
    let met = ratio <= BARE_GOAL;
    println!(
        "{BARE_SCENE}: {frames} frames at {}, median of {} rounds: bare macroquad {b:.3} ms, window {w:.3} ms, {ratio:.2}x (goal: at most {BARE_GOAL}x): {}",
        o.screen,
        o.rounds,
        if met { "MET" } else { "NOT MET" }
    );
    met
}
