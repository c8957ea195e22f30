//! Helpers shared by the integration tests: run the built `agentbox` binary, write scratch
//! scenes, read traces.
#![allow(dead_code)]

#[cfg(unix)]
pub mod limited;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a test waits for something it expects to happen (a reload applied, a trace line, a
/// file written) before it fails. Only a failing test waits this long: every wait returns as
/// soon as its event arrives, so the bound is generous for a machine busy with other builds.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// How often a wait looks again at something that sends no event (a file growing).
pub const POLL: Duration = Duration::from_millis(5);

/// Calls `check` until it gives a value, for at most [`PATIENCE`]; `None` if it never did.
/// `check` waits for its event itself, briefly (a channel's `recv_timeout`, the file watcher's
/// `wait`, or a [`POLL`] sleep), and may fail the test at once when the event can no longer
/// come (the process it waits on has ended).
pub fn patiently<T>(mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if let Some(value) = check() {
            return Some(value);
        }
    }
    None
}

/// The project root (where `scenes/` and `scripts/` live).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `agentbox` with arguments from the project root.
pub fn agentbox(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentbox"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the agentbox binary runs")
}

/// Runs `agentbox` from another folder.
pub fn agentbox_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentbox"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the agentbox binary runs")
}

/// Runs a command line agentbox printed, as a designer pastes it into a shell: `sh -c` from
/// `dir`, with this build's `agentbox` first on `PATH` and `extra` words after the line.
pub fn pasted(dir: &Path, line: &str, extra: &[&str]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_agentbox")).parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path)),
    )
    .unwrap();
    Command::new("sh")
        .arg("-c")
        .arg(format!("{line} \"$@\""))
        .arg("sh")
        .args(extra)
        .env("PATH", path)
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

/// Environment variables that would pick a shard (a Kubernetes Indexed Job's, a Slurm
/// array's): cleared so a test is not sharded by the machine it runs on.
pub const SHARD_VARS: [&str; 5] = [
    "JOB_COMPLETION_INDEX",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
];

/// [`agentbox_in`] with the [`SHARD_VARS`] cleared.
pub fn unsharded_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agentbox"));
    c.args(args).current_dir(dir);
    for v in SHARD_VARS {
        c.env_remove(v);
    }
    c.output().expect("the agentbox binary runs")
}

/// Runs `test` in a process of its own, for a test that measures the whole process (its
/// resident size), which the other tests, running in threads of the same process, would
/// disturb. This test binary is started again on the one test `name` (its path in the binary,
/// `module::function`); there `test` runs, and here the child must pass that one test.
pub fn alone(name: &str, test: impl FnOnce()) {
    const CHILD: &str = "AGENTBOX_TEST_ALONE";
    if std::env::var_os(CHILD).is_some_and(|n| n == name) {
        test();
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .output()
        .expect("the test binary runs");
    let (said, err) = (stdout(&out), stderr(&out));
    assert!(
        out.status.success() && said.contains("test result: ok. 1 passed"),
        "{name}, run alone, did not pass:\n{said}\n{err}"
    );
    // What the test printed, shown as its own output would be.
    eprint!("{err}");
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a scene headless for `ticks` and returns the trace lines parsed as JSON.
pub fn trace(scene: &str, ticks: u64, extra: &[&str]) -> Vec<serde_json::Value> {
    let ticks = ticks.to_string();
    let mut args = vec!["headless", scene, "--ticks", ticks.as_str(), "--trace", "-"];
    args.extend_from_slice(extra);
    let out = agentbox(&args);
    assert!(out.status.success(), "headless failed: {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each trace line is JSON"))
        .collect()
}

/// An agent's `(x, y)` in one trace line.
pub fn pos(line: &serde_json::Value, id: &str) -> (f64, f64) {
    let agent = line["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["id"] == id))
        .unwrap_or_else(|| panic!("agent {id} in trace line"));
    (agent["x"].as_f64().unwrap(), agent["y"].as_f64().unwrap())
}

pub fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// A scratch folder holding `files` (relative path → contents).
pub fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A window test's screenshot as RGBA bytes, with its width and height.
pub fn read_rgba(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot written"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    assert_eq!(info.color_type, png::ColorType::Rgba, "an RGBA screenshot");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// `agentbox` under a virtual X display (`xvfb-run`: a 1024x768 screen, so the window, which
/// opens at the screen's size, is 1024x768; Mesa's software OpenGL), from `dir`, arguments
/// still to add.
pub fn window_command(dir: &Path) -> Command {
    let mut command = Command::new("xvfb-run");
    command
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        // The user's kept docks and UI scale would change every screenshot.
        .env("AGENTBOX_NO_SETTINGS", "1")
        .arg(env!("CARGO_BIN_EXE_agentbox"))
        .current_dir(dir);
    command
}

/// Runs `agentbox ARGS` in a window under Xvfb from `dir` (see [`window_command`]).
pub fn in_window<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Output {
    window_command(dir)
        .args(args)
        .output()
        .expect("xvfb-run is installed (see README)")
}

/// Replays recorded `input` (JSON lines, as `--record` writes them) on `scene` for `frames`
/// frames in a window from `dir` and saves the last frame to `dir/NAME.png`; fails the test
/// when the window run fails. Gives (stderr, screenshot).
pub fn replay_in_window(
    dir: &Path,
    scene: &Path,
    frames: u64,
    input: &str,
    name: &str,
) -> (String, PathBuf) {
    let input_file = dir.join(format!("{name}.jsonl"));
    std::fs::write(&input_file, input).expect("input file written");
    let shot = dir.join(format!("{name}.png"));
    let frames = frames.to_string();
    let out = in_window(
        dir,
        &[
            OsStr::new("run"),
            scene.as_os_str(),
            OsStr::new("--frames"),
            OsStr::new(&frames),
            OsStr::new("--input"),
            input_file.as_os_str(),
            OsStr::new("--screenshot"),
            shot.as_os_str(),
        ],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{name}: window run failed: {err}");
    (err, shot)
}

/// Runs the scene at `scene` headless for `ticks` in two processes, asserts that both succeed
/// with the same trace, byte for byte, and returns its parsed lines.
pub fn trace_twice(scene: &Path, ticks: u64) -> Vec<serde_json::Value> {
    let path = scene.to_str().unwrap();
    let ticks = ticks.to_string();
    let args = ["headless", path, "--ticks", &ticks, "--trace", "-"];
    let (first, second) = (agentbox(&args), agentbox(&args));
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(
        stdout(&first),
        stdout(&second),
        "a second process gave another trace"
    );
    stdout(&first)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON trace line"))
        .collect()
}
