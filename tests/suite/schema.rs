//! The JSON Schema (`agentbox schema`) checked by a real validator, check-jsonschema from PyPI:
//! the schema itself passes the draft-07 metaschema, every shipped scene validates, and the
//! mistakes the loader refuses where a schema can say so (no map, a negative speed, a zero
//! tick rate) are refused by the schema too. These tests need check-jsonschema on the PATH
//! and fail, saying how to install it, when it is not.

use crate::common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// Runs check-jsonschema with `args`, or fails the test saying how to install it.
fn check_jsonschema(args: &[&str]) -> Output {
    match Command::new("check-jsonschema").args(args).output() {
        Ok(out) => out,
        Err(e) => panic!(
            "cannot run check-jsonschema ({e}): install check-jsonschema (pip install check-jsonschema)"
        ),
    }
}

/// `agentbox schema`, written into `dir`.
fn schema_in(dir: &Path) -> String {
    let out = agentbox(&["schema"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let path = dir.join("agentbox.schema.json");
    std::fs::write(&path, &out.stdout).unwrap();
    path.display().to_string()
}

fn shown(out: &Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

#[test]
fn the_schema_passes_the_metaschema() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_in(dir.path());
    let out = check_jsonschema(&["--check-metaschema", &schema]);
    assert!(out.status.success(), "{}", shown(&out));
}

#[test]
fn every_shipped_scene_validates() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_in(dir.path());
    let mut scenes: Vec<String> = std::fs::read_dir(root().join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| p.display().to_string())
        .collect();
    scenes.sort();
    assert!(scenes.len() >= 30, "{scenes:?}");
    let mut args = vec!["--schemafile", schema.as_str()];
    args.extend(scenes.iter().map(String::as_str));
    let out = check_jsonschema(&args);
    assert!(out.status.success(), "{}", shown(&out));
}

#[test]
fn scenes_the_loader_refuses_are_refused_by_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_in(dir.path());
    let map = "map:\n  rows: |\n    ...\n";
    let good = format!("{map}agents:\n  - id: a\n    at: [0, 0]\n    speed: 2\n");
    let steering = format!(
        "{good}    radius: 0.4\n    max_force: 20\n    avoid: true\n    avoid_horizon: 3\n"
    );
    let cases = [
        ("no map", "name: x\nagents: []\n".to_string()),
        ("a negative speed", good.replace("speed: 2", "speed: -2")),
        ("a zero tick rate", format!("tick_rate: 0\n{good}")),
        ("a negative radius", format!("{good}    radius: -0.3\n")),
        ("a max_force of 0", format!("{good}    max_force: 0\n")),
        (
            "a zero avoid_horizon",
            format!("{good}    avoid: true\n    avoid_horizon: 0\n"),
        ),
        ("a misspelt avoid", format!("{good}    avoide: true\n")),
        (
            "a CPU net of 5 ms",
            format!("budget: {{ cpu_ms: 5 }}\n{good}"),
        ),
        (
            "a misspelt cpu_ms",
            format!("budget: {{ cpu_mss: 500 }}\n{good}"),
        ),
    ];
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    for text in [&good, &steering] {
        let ok = check_jsonschema(&["--schemafile", &schema, &write("good.yaml", text)]);
        assert!(ok.status.success(), "the good scene: {}", shown(&ok));
        assert!(
            agentbox(&["check", &write("good.yaml", text)])
                .status
                .success(),
            "{text}"
        );
    }
    for (name, text) in cases {
        let file = write("bad.yaml", &text);
        // The loader refuses it...
        assert!(!agentbox(&["check", &file]).status.success(), "{name}");
        // ...and so does the schema.
        let out = check_jsonschema(&["--schemafile", &schema, &file]);
        assert!(!out.status.success(), "{name}: the schema accepts\n{text}");
    }
}
