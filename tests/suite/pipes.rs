//! Every command that prints, piped into a reader that stops early (`agentbox ... | head -1`),
//! ends quietly with status 0: no "Broken pipe" message, no panic. Each is run twice: into a
//! reader that takes one line and closes (as `head -1` does), and into a pipe closed before it
//! starts, so its very first write fails whatever the timing.

use crate::common;
use common::{root, stderr};
use std::io::BufRead;
use std::process::{Command, Output, Stdio};

/// The printing commands, run from the project root, each short.
fn commands(merge_file: &str) -> Vec<Vec<String>> {
    let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    vec![
        words("schema"),
        words("api"),
        words("api --markdown"),
        words("api --luarc"),
        words("api --luacheckrc"),
        words("check scenes/"),
        words("test scenes/chase.yaml scenes/guard.yaml"),
        words("headless scenes/chase.yaml --ticks 300 --trace -"),
        words("compare scenes/pursuit.yaml --seeds 1..6 --ticks 30 --jobs 1"),
        words("sweep scenes/tunables.yaml --param hunter.lead=0..1:0.5 --seeds 1..2 --ticks 30 --jobs 1"),
        vec!["merge".into(), merge_file.into()],
        words("bench scenes/chase.yaml --ticks 5 --warmup 1"),
        words("paths --map data/movingai/8room_000.map --scen data/movingai/8room_000.map.scen --rounds 1"),
        words("--help"),
    ]
}

fn command(args: &[String]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agentbox"));
    c.args(args).current_dir(root()).stderr(Stdio::piped());
    for v in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"] {
        c.env_remove(v);
    }
    c
}

/// Runs `args` with its standard output read for one line, then closed; the line and the end.
fn into_head(args: &[String]) -> (String, Output) {
    let mut child = command(args).stdout(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    reader.read_line(&mut first).unwrap();
    drop(reader);
    (first, child.wait_with_output().unwrap())
}

/// Runs `args` with its standard output a pipe whose reader is already gone.
fn into_closed_pipe(args: &[String]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    command(args).stdout(Stdio::from(writer)).output().unwrap()
}

fn assert_quiet_success(args: &[String], how: &str, out: &Output) {
    let err = stderr(out);
    assert!(
        !err.contains("Broken pipe") && !err.contains("panicked"),
        "agentbox {} ({how}) complained:\n{err}",
        args.join(" ")
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "agentbox {} ({how}) exit status:\n{err}",
        args.join(" ")
    );
}

#[test]
fn every_printing_command_piped_into_head_exits_zero_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study.jsonl");
    let study = study.to_str().unwrap();
    let made = command(&[
        "compare".into(),
        "scenes/pursuit.yaml".into(),
        "--seeds".into(),
        "1..2".into(),
        "--ticks".into(),
        "10".into(),
        "--out".into(),
        study.into(),
    ])
    .stdout(Stdio::null())
    .output()
    .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    for args in commands(study) {
        let (first, out) = into_head(&args);
        assert!(
            !first.trim().is_empty(),
            "agentbox {} printed a line on standard output",
            args.join(" ")
        );
        assert_quiet_success(&args, "read for one line", &out);
        assert_quiet_success(&args, "into a closed pipe", &into_closed_pipe(&args));
    }
}
