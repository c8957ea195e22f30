//! Golden traces of the movement demo scenes: the first ticks of each scene, byte for byte, so
//! any change of behaviour shows up in review as a diff of `tests/golden/<scene>.jsonl`.
//!
//! After an intended change, re-bless them with
//! `BLESS=1 cargo test --release --test suite golden::` and review the diff before committing.

use crate::common;

use common::{agentbox, stderr, stdout};

/// How many ticks each golden trace holds.
const TICKS: &str = "150";

fn check(scene: &str) {
    let out = agentbox(&[
        "headless",
        &format!("scenes/{scene}.yaml"),
        "--ticks",
        TICKS,
        "--trace",
        "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let actual = stdout(&out);
    let path = common::root().join(format!("tests/golden/{scene}.jsonl"));
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with BLESS=1 cargo test --release --test suite golden::",
            path.display()
        )
    });
    if actual != expected {
        let (n, (a, e)) = actual
            .lines()
            .zip(expected.lines())
            .enumerate()
            .find(|(_, (a, e))| a != e)
            .unwrap_or((0, ("(length differs)", "")));
        panic!(
            "scenes/{scene}.yaml no longer matches its golden trace at line {}:\n  now:  {a}\n  was:  {e}\nIf the change is intended: BLESS=1 cargo test --release --test suite golden::",
            n + 1
        );
    }
}

#[test]
fn golden_crumbs() {
    check("crumbs");
}

#[test]
fn golden_road() {
    check("road");
}

#[test]
fn golden_rooms() {
    check("rooms");
}

#[test]
fn golden_intercept() {
    check("intercept");
}

#[test]
fn golden_swarm() {
    check("swarm");
}

#[test]
fn golden_mountains() {
    check("mountains");
}

#[test]
fn golden_tile_chase() {
    check("tile_chase");
}

#[test]
fn golden_potential() {
    check("potential");
}

#[test]
fn golden_wander() {
    check("wander");
}

#[test]
fn golden_tank() {
    check("tank");
}

#[test]
fn golden_waypoints() {
    check("waypoints");
}

#[test]
fn golden_guard() {
    check("guard");
}
