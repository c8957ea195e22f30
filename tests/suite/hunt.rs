//! `agentbox hunt` end to end: the shipped guard_corner scene's blind alcove found in under 200
//! tries, shrunk towards the intruder's own start and the first seed, written as a scene that
//! fails and a session that opens at the failing tick; bad --vary paths and empty ranges
//! refused with exit 1; and a scene that cannot fail reports nothing.

use crate::common;
use common::{root, stderr, stdout};
use std::path::Path;
use std::process::Output;

fn run(dir: &Path, args: &[&str]) -> Output {
    common::unsharded_in(dir, args)
}

/// A folder with a copy of the guard_corner scene (the shrunk scenes are written beside it)
/// and the scripts it names.
fn copy_of_guard_corner() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scenes")).unwrap();
    std::fs::copy(
        root().join("scenes/guard_corner.yaml"),
        dir.path().join("scenes/guard_corner.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root().join("scripts"), dir.path().join("scripts")).unwrap();
    dir
}

const VARY: [&str; 4] = [
    "--vary",
    "agents.intruder.at.0=1..20",
    "--vary",
    "agents.intruder.at.1=1..10",
];

#[test]
fn hunt_finds_shrinks_and_writes_the_guards_blind_corner() {
    let dir = copy_of_guard_corner();
    let mut args = vec!["hunt", "scenes/guard_corner.yaml"];
    args.extend(VARY);
    args.extend(["--seeds", "1..50", "--tries", "60", "--sessions", "failed"]);
    let o = run(dir.path(), &args);
    assert_eq!(o.status.code(), Some(6), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("failure 1: reach: `guard` did not come within 1 of `intruder`"),
        "{text}"
    );
    assert!(!text.contains("failure 2"), "one distinct failure: {text}");
    // Shrunk towards the scene's own start [17, 2] and seed 1: the alcove's nearest tile.
    assert!(
        text.contains("shrunk")
            && text.contains("seed=1 agents.intruder.at.0=17 agents.intruder.at.1=7"),
        "{text}"
    );
    let scene = dir.path().join("scenes/guard_corner.hunt-1.yaml");
    let written = std::fs::read_to_string(&scene).unwrap();
    assert!(written.contains("at: [17, 7]"), "{written}");
    let test = run(
        dir.path(),
        &["test", "scenes/guard_corner.hunt-1.yaml", "--no-sessions"],
    );
    assert_eq!(
        test.status.code(),
        Some(1),
        "the written scene fails: {}",
        stdout(&test)
    );
    // A folder's test passes over it (it fails by construction) and says so.
    let folder = run(dir.path(), &["test", "scenes", "--no-sessions"]);
    assert_eq!(folder.status.code(), Some(0), "{}", stdout(&folder));
    assert!(
        stdout(&folder).contains("1 passed, 0 failed")
            && stderr(&folder).contains("passed over 1 scenario(s) agentbox hunt wrote"),
        "{}{}",
        stdout(&folder),
        stderr(&folder)
    );
    let session = dir
        .path()
        .join("failed/guard_corner.hunt-1.failed-1.session.json");
    assert!(session.is_file(), "{text}");
    assert!(
        text.contains(&format!(
            "open it: agentbox run scenes/guard_corner.hunt-1.yaml --session {}",
            "failed/guard_corner.hunt-1.failed-1.session.json"
        )),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    assert_eq!(json["open_at"]["agent"], "guard", "{json}");
    assert_eq!(json["open_at"]["tick"], 600, "{json}");
    assert_eq!(json["seed"], 1, "{json}");
    // The same --seed draws the same scenarios.
    let again = run(dir.path(), &args);
    assert_eq!(stdout(&again), text);
}

#[test]
fn hunt_refuses_bad_paths_and_ranges_and_reports_nothing_when_nothing_fails() {
    let dir = copy_of_guard_corner();
    for (vary, message) in [
        ("agents.intruder.at.5=1..3", "--vary"),
        ("agents.nobody.at.0=1..3", "--vary"),
        ("agents.intruder.at.0=9..3", "the range is empty"),
        ("agents.intruder.at.0", "no `=`"),
    ] {
        let o = run(
            dir.path(),
            &[
                "hunt",
                "scenes/guard_corner.yaml",
                "--vary",
                vary,
                "--tries",
                "3",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{vary}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{vary}: {}", stderr(&o));
    }
    // The open hall's near side only: the guard always finds the intruder there.
    let o = run(
        dir.path(),
        &[
            "hunt",
            "scenes/guard_corner.yaml",
            "--vary",
            "agents.intruder.at.0=2..10",
            "--vary",
            "agents.intruder.at.1=1..5",
            "--tries",
            "8",
            "--seeds",
            "1..3",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("8 tries") && stdout(&o).contains("0 failed"),
        "{}",
        stdout(&o)
    );
}
