//! The command line itself, through the real binary: arguments that make no sense together
//! are refused with clap's usage error (exit 2), and `--help` explains every argument.

use crate::common;

use common::{agentbox, stderr, stdout};

#[test]
fn a_screenshot_without_frames_is_refused_before_any_window_opens() {
    let out = agentbox(&["run", "scenes/chase.yaml", "--screenshot", "/tmp/never.png"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--frames"), "names the missing flag: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn run_and_headless_help_describe_the_scene_argument() {
    for command in ["run", "headless", "bench"] {
        let out = agentbox(&[command, "--help"]);
        assert!(out.status.success(), "{command} --help: {}", stderr(&out));
        let help = stdout(&out);
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with("<SCENE>"))
            .unwrap_or_else(|| panic!("{command} --help lists <SCENE>:\n{help}"));
        assert!(
            line.contains("scene file"),
            "{command} --help says what SCENE is: {line:?}"
        );
    }
}
